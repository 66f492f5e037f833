"""HTTP endpoints."""
from fastapi import FastAPI

from api.repo import connect
from api.service import all_orders, place_order

app = FastAPI()


@app.get("/api/orders")
def get_orders():
    return all_orders(connect())


@app.post("/api/orders")
def post_order(order: dict):
    return {"id": place_order(connect(), order["customer"], order["total_cents"])}
