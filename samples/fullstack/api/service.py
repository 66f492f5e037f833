"""Business rules: validate, then store."""
from api.repo import insert_order, list_orders


def validate(customer, total_cents):
    if not customer or total_cents <= 0:
        raise ValueError("an order needs a customer and a positive total")


def place_order(conn, customer, total_cents):
    validate(customer, total_cents)
    return insert_order(conn, customer, total_cents)


def all_orders(conn):
    return [{"id": i, "customer": c, "total_cents": t} for i, c, t in list_orders(conn)]
