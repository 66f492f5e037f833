// The front end's client for the order service.
export async function fetchOrders() {
  const res = await fetch("/api/orders");
  return res.json();
}

export async function createOrder(customer: string, totalCents: number) {
  const res = await fetch("/api/orders", {
    method: "POST",
    body: JSON.stringify({ customer, total_cents: totalCents }),
  });
  return res.json();
}
