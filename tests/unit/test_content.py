"""Chunks of the non-code content kinds (indexer/content.py): exact chunks per parser,
which files feed which kind, and unparsable files counted, never fatal."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from codegraph.core.content import check_kinds, content_kind
from codegraph.core.errors import BadInput
from codegraph.indexer import content
from codegraph.indexer.content import (
    ContentSummary,
    config_chunks,
    content_chunks,
    doc_chunks,
    kind_of_file,
    schema_chunks,
)


def rows(chunks: list) -> list[tuple]:
    return [(c.kind, c.qualified_name, c.line, c.end_line, c.text) for c in chunks]


def test_which_files_feed_which_kind() -> None:
    assert {p: kind_of_file(p) for p in [
        "db/schema.sql", "README.md", "docs/adr/0001.markdown", "src/main/resources/application.yml",
        "src/main/resources/application-prod.properties", "bootstrap.yaml", ".env.example", "config/app.toml",
        "settings.toml", "conf/logging.yaml", "pyproject.toml", "Cargo.toml", ".github/workflows/ci.yml",
        "docker-compose.yml", "data/points.yaml", "src/app.py", ".env",
    ]} == {
        "db/schema.sql": "schema", "README.md": "docs", "docs/adr/0001.markdown": "docs",
        "src/main/resources/application.yml": "config", "src/main/resources/application-prod.properties": "config",
        "bootstrap.yaml": "config", ".env.example": "config", "config/app.toml": "config", "settings.toml": "config",
        "conf/logging.yaml": "config", "pyproject.toml": None, "Cargo.toml": None, ".github/workflows/ci.yml": None,
        "docker-compose.yml": None, "data/points.yaml": None, "src/app.py": None, ".env": None,
    }


def kind_before(path: str) -> str | None:
    """kind_of_file as it was before its suffix pre-check (the reference)."""
    p = PurePosixPath(path)
    name, suffix = p.name.lower(), p.suffix.lower()
    if suffix == ".sql":
        return "schema"
    if suffix in (".md", ".markdown"):
        return "docs"
    if name in content._ENV_FILES or suffix == ".properties":
        return "config"
    if name in content._NOT_CONFIG or p.parts[0] in (".github", ".gitlab"):
        return None
    if suffix in (".yml", ".yaml", ".toml") and (
            any(w in p.stem.lower() for w in content._CONFIG_WORDS)
            or any(d.lower() in content._CONFIG_DIRS for d in p.parts[:-1])):
        return "config"
    return None


_SEGMENT = st.sampled_from(["a", "Config", "conf", ".github", "settings", ".env.example", ".ENV.sample", "x.SQL",
                            "README.md", ".md", "a.", "app.YAML", "pyproject.toml", "b.properties", "m.markdown",
                            "c.py", "bootstrap", "docker-compose.yml", ".toml", "q.yml.bak", "app.toml",
                            "Settings.TOML", "schema.Sql", "application-dev.yaml"])


@given(st.lists(_SEGMENT, min_size=1, max_size=4).map("/".join))
@example("conf/.yml")
@example("x/.env.example")
def test_kind_of_file_is_the_same_with_its_suffix_pre_check(path: str) -> None:
    assert kind_of_file(path) == kind_before(path)


def test_sql_tables_with_columns_and_lines() -> None:
    sql = ("-- schema\nCREATE TABLE IF NOT EXISTS sales.orders (\n  id BIGINT PRIMARY KEY,\n  note TEXT DEFAULT ';'\n);\n"
           "CREATE INDEX orders_id ON sales.orders (id);\n\ncreate table Customers (id int, email varchar(200));\n")
    out = schema_chunks("r", "db/s.sql", sql)
    assert [(c.name, c.qualified_name, c.line, c.end_line, c.symbol_uid) for c in out] == [
        ("orders", "sales.orders", 2, 5, "table|r|orders"), ("Customers", "Customers", 8, 8, "table|r|customers")]
    assert out[0].text.endswith(");") and "note TEXT DEFAULT ';'" in out[0].text  # ';' in a string is not the end
    assert "columns: id BIGINT, note TEXT" in out[0].embed_text
    assert out[1].embed_text.endswith("columns: id INT, email VARCHAR(200)")
    assert {content_kind(c.kind) for c in out} == {"schema"}


def test_config_properties_of_each_format() -> None:
    yml = "spring:\n  datasource:\n    url: ${DB_URL:jdbc:h2:mem}\n  profiles: [dev, prod]\nserver.port: 8080\n"
    assert rows(config_chunks("r", "application.yml", yml)) == [
        ("property", "spring.datasource.url", 3, 3, "spring.datasource.url = ${DB_URL:jdbc:h2:mem}"),
        ("property", "spring.profiles[0]", 4, 4, "spring.profiles[0] = dev"),
        ("property", "spring.profiles[1]", 4, 4, "spring.profiles[1] = prod"),
        ("property", "server.port", 5, 5, "server.port = 8080")]
    props = "# comment\n! also\nmail.host = smtp.example\nmail.port: 25\n\n"
    assert rows(config_chunks("r", "app.properties", props)) == [
        ("property", "mail.host", 3, 3, "mail.host = smtp.example"), ("property", "mail.port", 4, 4, "mail.port = 25")]
    env = "# copy to .env\nexport API_KEY=\"changeme\"\nDEBUG=0\nnot a line\n"
    assert rows(config_chunks("r", ".env.example", env)) == [
        ("property", "API_KEY", 2, 2, "API_KEY = changeme"), ("property", "DEBUG", 3, 3, "DEBUG = 0")]
    toml = "title = \"shop\"\n[db]\nhost = \"localhost\"\n[db.pool]\nsize = 5\n"
    assert rows(config_chunks("r", "settings.toml", toml)) == [
        ("property", "title", 1, 1, "title = shop"), ("property", "db.host", 3, 3, "db.host = localhost"),
        ("property", "db.pool.size", 5, 5, "db.pool.size = 5")]
    assert "reads DB_URL" in config_chunks("r", "application.yml", yml)[0].embed_text


def test_markdown_sections_by_heading_path() -> None:
    md = "Intro line.\n# Title\ntext\n## Setup\n```bash\n# not a heading\n```\n### Linux\nsteps\n## Use\nend\n"
    assert [(c.qualified_name, c.line, c.end_line) for c in doc_chunks("r", "docs/guide.md", md)] == [
        ("guide.md", 1, 1), ("Title", 2, 3), ("Title > Setup", 4, 7), ("Title > Setup > Linux", 8, 9),
        ("Title > Use", 10, 11)]


def test_a_file_that_does_not_parse_is_counted_and_skipped(tmp_path: Path) -> None:
    (tmp_path / "bad.sql").write_text("CREATE TABLE (((;\n")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "app.yml").write_text("a: [unclosed\n")
    (tmp_path / "ok.md").write_text("# Fine\n")
    summary = ContentSummary()
    out = content_chunks(tmp_path, "r", ["bad.sql", "config/app.yml", "ok.md"], summary=summary)
    assert (len(out["schema"]), len(out["config"]), len(out["docs"])) == (0, 0, 1)
    assert dict(summary.unparsed) == {"schema": 1, "config": 1} and summary.files == {"docs": 1}


def test_kinds_are_checked() -> None:
    assert check_kinds(None) == ["code", "schema", "config", "docs"]
    assert check_kinds(["docs", "code"]) == ["code", "docs"]
    with pytest.raises(BadInput, match="pictures.*known: code, schema, config, docs"):
        check_kinds(["pictures"])
