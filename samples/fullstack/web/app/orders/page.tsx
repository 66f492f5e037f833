import { fetchOrders } from "../../lib/api";

export default async function OrdersPage() {
  const orders = await fetchOrders();
  return <ul>{orders.map((o: any) => <li key={o.id}>{o.customer}</li>)}</ul>;
}
