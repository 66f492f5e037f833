"""Persistence: the orders table."""
import sqlite3


def connect(path="shop.db"):
    return sqlite3.connect(path)


def list_orders(conn):
    return conn.execute("SELECT id, customer, total_cents FROM orders ORDER BY id").fetchall()


def insert_order(conn, customer, total_cents):
    cur = conn.execute("INSERT INTO orders (customer, total_cents) VALUES (?, ?)", (customer, total_cents))
    conn.commit()
    return cur.lastrowid
