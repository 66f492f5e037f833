"""Kafka producers and consumers with literal topic names (or same-file constants).

Python: kafka-python (``KafkaProducer.send``, ``KafkaConsumer("t")``, ``subscribe``),
confluent-kafka (``produce``, ``subscribe``), aiokafka (``send``/``send_and_wait``,
``AIOKafkaConsumer("t")``). JavaScript/TypeScript: kafkajs (``producer.send({topic})``,
``sendBatch``, ``consumer.subscribe({topic | topics})``). Java/Kotlin: Spring
``KafkaTemplate.send``, ``@KafkaListener(topics=...)``, plain clients (``new
ProducerRecord("t", ...)``, ``consumer.subscribe(List.of("t"))``). Go: sarama
(``ProducerMessage{Topic}``, ``ConsumePartition``, consumer-group ``Consume``) and
segmentio/kafka-go (``Writer{Topic}``, ``Message{Topic}``, ``ReaderConfig{Topic, GroupTopics}``).

A topic given by a non-constant expression is not recorded (no guessing).
"""

from __future__ import annotations

from typing import Any

from codegraph.indexer.adapters import _syntax as sx

_PY_PRODUCE = {"send", "send_and_wait", "produce", "send_batch"}
_PY_CONSUMER_CTORS = {"KafkaConsumer", "AIOKafkaConsumer", "kafka.KafkaConsumer", "aiokafka.AIOKafkaConsumer"}


def _rec(ctx: Any, line: int, topic: str, access: str, client: str, at: int | None = None) -> dict[str, Any]:
    return ctx.record("topic_access", line, topic=topic, access=access, client=client, at=at or line)


def extract(ctx: Any) -> list[dict[str, Any]]:
    if not ctx.has_ci(b"kafka"):
        return []
    lang = ctx.language
    if lang == "python":
        return _python(ctx)
    if lang in sx.JS_LANGS:
        return _javascript(ctx)
    if lang in ("java", "kotlin"):
        return _jvm(ctx)
    if lang == "go":
        return _go(ctx)
    return []


def _python(ctx: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    client = "aiokafka" if ctx.has(b"aiokafka") else "confluent-kafka" if ctx.has(b"confluent_kafka") else "kafka-python"
    for c in ctx.calls:
        if c.method in _PY_PRODUCE and c.receiver:
            node = c.args[0] if c.args else c.kwargs.get("topic")
            topic = ctx.literal(node)
            if topic:
                out.append(_rec(ctx, c.line, topic, "produce", client))
        elif c.callee in _PY_CONSUMER_CTORS or c.method in ("KafkaConsumer", "AIOKafkaConsumer"):
            for a in c.args:
                topic = ctx.literal(a)
                if topic:
                    out.append(_rec(ctx, c.line, topic, "consume", client))
        elif c.method == "subscribe" and c.receiver:
            node = c.args[0] if c.args else c.kwargs.get("topics")
            for topic in ctx.literals(node):
                out.append(_rec(ctx, c.line, topic, "consume", client))
    return out


def _javascript(ctx: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for c in ctx.calls:
        if not c.args or c.args[0].type != "object" or not c.receiver:
            continue
        cfg = sx.mapping(ctx.language, c.args[0])
        if c.method == "send":
            topic = ctx.literal(cfg.get("topic"))
            if topic:
                out.append(_rec(ctx, c.line, topic, "produce", "kafkajs"))
        elif c.method == "sendBatch":
            for tm in sx.literal_nodes(ctx.language, cfg.get("topicMessages")):
                topic = ctx.literal(sx.mapping(ctx.language, tm).get("topic"))
                if topic:
                    out.append(_rec(ctx, c.line, topic, "produce", "kafkajs"))
        elif c.method == "subscribe":
            topics = ctx.literals(cfg.get("topic")) + ctx.literals(cfg.get("topics"))
            for topic in topics:
                out.append(_rec(ctx, c.line, topic, "consume", "kafkajs"))
    return out


def _jvm(ctx: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if ctx.has(b"KafkaListener"):
        for a in ctx.annotated:
            for ann in a.annotations:
                if ann.name != "KafkaListener":
                    continue
                node = ann.kwargs.get("topics") or (ann.args[0] if ann.args else None)
                for topic in ctx.literals(node):
                    out.append(_rec(ctx, ann.line, topic, "consume", "spring-kafka", at=a.line))
    for c in ctx.calls:
        if c.is_new and c.method == "ProducerRecord" and c.args:
            topic = ctx.literal(c.args[0])
            if topic:
                out.append(_rec(ctx, c.line, topic, "produce", "kafka-clients"))
        elif c.method == "send" and c.args:
            topic = ctx.literal(c.args[0])
            if topic and ("template" in c.receiver.lower() or "kafka" in c.receiver.lower()):
                out.append(_rec(ctx, c.line, topic, "produce", "spring-kafka"))
        elif c.method == "subscribe" and c.args:
            for topic in ctx.literals(c.args[0]):
                out.append(_rec(ctx, c.line, topic, "consume", "kafka-clients"))
    return out


def _go(ctx: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    client = "sarama" if ctx.has(b"sarama") else "kafka-go"
    for n in sx.captures("go", "(composite_literal) @c", ctx.root):
        typ = sx.text(n.child_by_field_name("type"))
        short = typ.rsplit(".", 1)[-1]
        if short not in ("ProducerMessage", "Writer", "Message", "ReaderConfig", "WriterConfig"):
            continue
        fields = sx.mapping("go", n)
        access = "consume" if short == "ReaderConfig" else "produce"
        topics = ctx.literals(fields.get("Topic"))
        if short == "ReaderConfig":
            topics += ctx.literals(fields.get("GroupTopics"))
        for topic in topics:
            out.append(_rec(ctx, sx.line(n), topic, access, client))
    for c in ctx.calls:
        if c.method == "ConsumePartition" and c.args:
            topic = ctx.literal(c.args[0])
            if topic:
                out.append(_rec(ctx, c.line, topic, "consume", "sarama"))
        elif c.method == "Consume" and len(c.args) >= 3:
            for topic in ctx.literals(c.args[1]):
                out.append(_rec(ctx, c.line, topic, "consume", "sarama"))
    return out


CALL_NAMES = frozenset({
    *_PY_PRODUCE, "KafkaConsumer", "AIOKafkaConsumer", "subscribe", "send", "sendBatch", "ProducerRecord",
    "ConsumePartition", "Consume",
})
