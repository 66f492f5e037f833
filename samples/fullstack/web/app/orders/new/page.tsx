"use client";
import { createOrder } from "../../../lib/api";

export default function NewOrderPage() {
  return <button onClick={() => createOrder("ada", 1200)}>Order</button>;
}
