"""Kafka topics and database tables: exact PRODUCES / CONSUMES and READS / WRITES /
TOUCHES edge sets per client and ORM."""

from __future__ import annotations

from tests.boundaries.util import FIXTURES, boundary_edges, link_tree


def test_kafka_producers_and_consumers() -> None:
    assert boundary_edges(FIXTURES / "kafka") == {
        ("CONSUMES", "js/events.listen", "payments"),  # kafkajs subscribe({topic})
        ("CONSUMES", "js/events.listen", "refunds"),  # subscribe({topics: [...]})
        ("CONSUMES", "js/events.listen", "returns"),
        ("CONSUMES", "py.producers.confluent", "returns"),
        ("CONSUMES", "py.producers.kafka_python", "audit"),  # subscribe(topics=[...])
        ("CONSUMES", "py.producers.kafka_python", "payments"),  # KafkaConsumer("payments", "refunds")
        ("CONSUMES", "py.producers.kafka_python", "refunds"),
        ("PRODUCES", "js/events.publish", "audit"),  # sendBatch topicMessages
        ("PRODUCES", "js/events.publish", "orders"),
        ("PRODUCES", "py.producers.aio", "invoices"),
        ("PRODUCES", "py.producers.confluent", "shipments"),
        ("PRODUCES", "py.producers.kafka_python", "orders"),  # a module constant
        # `KafkaProducer().send(topic, ...)` with a parameter: no edge, no guess
    }


def test_spring_and_go_kafka() -> None:
    spring = boundary_edges(FIXTURES / "spring", ("PRODUCES", "CONSUMES"))
    assert spring == {
        ("CONSUMES", "com.acme.orders.Reporting.onPayment", "payments"),  # @KafkaListener(topics = {...})
        ("CONSUMES", "com.acme.orders.Reporting.onPayment", "refunds"),
        ("PRODUCES", "com.acme.orders.Reporting.publish", "order-events"),  # kafkaTemplate.send(TOPIC constant)
    }
    assert boundary_edges(FIXTURES / "go", ("PRODUCES", "CONSUMES")) == {
        ("CONSUMES", "internal/handlers.Consume", "payments"),  # sarama group.Consume
        ("CONSUMES", "internal/handlers.Consume", "refunds"),  # kafka-go ReaderConfig
        ("PRODUCES", "internal/handlers.Publish", "audit"),  # kafka-go Writer
        ("PRODUCES", "internal/handlers.Publish", "orders.created"),  # sarama ProducerMessage
    }


def test_sql_literals_and_orms() -> None:
    assert boundary_edges(FIXTURES / "tables") == {
        ("READS", "js/repo.listUsers", "users"),  # knex("users")
        ("READS", "js/repo.raw", "teams"),  # SQL in a template literal, LEFT JOIN
        ("READS", "js/repo.raw", "users"),
        ("READS", "js/repo.supa", "profiles"),  # supabase.from("profiles")
        ("READS", "other.Count", "visits"),  # Go db.Table("visits")
        ("READS", "prisma/entity.ShipmentService.all", "shipments"),  # TypeORM Repository<Shipment>
        ("READS", "prisma/service.openOrders", "orders"),  # prisma.order + schema @@map("orders")
        ("READS", "py.queries.archive", "deliveries"),  # MERGE ... USING
        ("READS", "py.queries.archive", "orders"),  # INSERT ... SELECT
        ("READS", "py.queries.orm", "customers"),  # session.query(Customer), select(Customer)
        ("READS", "py.queries.report", "customers"),  # CTE name `recent` is not a table
        ("READS", "py.queries.report", "orders"),
        ("READS", "py.shop.services.products", "shop_product"),  # Django default <app>_<model>
        ("TOUCHES", "prisma/entity.ts", "return_item"),  # @Entity() -> snake_case
        ("TOUCHES", "prisma/entity.ts", "shipments"),  # @Entity({name})
        ("TOUCHES", "py/queries.py", "customers"),  # __tablename__
        ("TOUCHES", "py/queries.py", "invoices"),  # Table("invoices", ...)
        ("TOUCHES", "py/queries.py", "orders"),  # module-level SQL constant: file-level evidence
        ("TOUCHES", "py/shop/models.py", "coupons"),  # Meta.db_table
        ("TOUCHES", "py/shop/models.py", "shop_product"),  # abstract models map to nothing
        ("WRITES", "js/repo.audit", "audit_log"),  # .insert().into()
        ("WRITES", "js/repo.removeSessions", "sessions"),  # ...del()
        ("WRITES", "prisma/entity.ShipmentService.store", "shipments"),
        ("WRITES", "prisma/service.addLine", "orderline"),  # no @@map: the model name
        ("WRITES", "py.queries.archive", "customers"),
        ("WRITES", "py.queries.archive", "order_archive"),
        ("WRITES", "py.queries.archive", "orders"),
        ("WRITES", "py.queries.archive", "stock"),
        ("WRITES", "py.queries.orm", "customers"),  # session.add(Customer(...))
        ("WRITES", "py.queries.orm", "invoices"),  # update(invoices)
        ("WRITES", "py.shop.services.redeem", "coupons"),  # .filter().update()
        ("WRITES", "py.shop.services.redeem", "shop_product"),  # .objects.create()
    }


def test_jpa_entities_repositories_and_jdbc() -> None:
    assert boundary_edges(FIXTURES / "spring", ("READS", "WRITES", "TOUCHES")) == {
        ("READS", "com.acme.orders.OrderController.get", "orders"),  # orders.findById on an OrderRepository field
        ("READS", "com.acme.orders.OrderController.list", "orders"),
        ("READS", "com.acme.orders.OrderRepository.bigOnes", "orders"),  # JPQL names the entity Order
        ("READS", "com.acme.orders.Reporting.countLines", "order_line"),
        ("TOUCHES", "src/main/java/com/acme/orders/Order.java", "orders"),  # @Table(name)
        ("TOUCHES", "src/main/java/com/acme/orders/OrderLine.java", "order_line"),  # Spring Boot default
        ("TOUCHES", "src/main/java/com/acme/orders/OrderRepository.java", "orders"),
        ("WRITES", "com.acme.orders.OrderController.cancel", "orders"),  # deleteById
        ("WRITES", "com.acme.orders.OrderController.create", "orders"),  # save
        ("WRITES", "com.acme.orders.Reporting.onPayment", "payment_log"),
    }


def test_every_edge_carries_evidence() -> None:
    for family in ("flask", "express", "spring", "go", "tables", "kafka"):
        _, _, links = link_tree(FIXTURES / family)
        for path, edges in links.edges.items():
            for e in edges:
                assert e.file == path and e.line > 0, (family, e)
