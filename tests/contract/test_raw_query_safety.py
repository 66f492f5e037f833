"""Raw query safety in layers (docs/hardening.md, "Raw query safety").

Every hostile query below must be refused by the client tokeniser alone AND by the
server alone (the Neo4j store with the client check switched off: the server's own plan
of the query, its read transaction and its hardened settings). Writes only ever name the
label ``HostileProbe`` and user names that do not exist, so a failure cannot hurt the
shared server.
"""

from __future__ import annotations

import pytest

from codegraph.core.cypher_guard import check_read_only, tokenize
from codegraph.core.errors import CodegraphError, ReadOnlyViolation, Unsupported
from codegraph.core.graph_store import GraphStore
from codegraph.core.models import FILE, REPO, SYMBOL
from tests.contract.test_graph_contract import fimp, setup_repo, sym
from tests.services import services_required

PASSWD = "'file:///etc/passwd'"
U = "\\u"  # a backslash-u, written so that this file holds no escape itself

HOSTILE: list[str] = [
    # -- host files and SSRF through LOAD CSV, whatever the spelling
    f"// x\rLOAD CSV FROM {PASSWD} AS l RETURN l[0] LIMIT 3",
    f"LOAD CSV FROM {PASSWD} AS l RETURN l",
    f"load csv from {PASSWD} as l return l",
    f"LoAd CsV WITH HEADERS FROM {PASSWD} AS l RETURN l",
    f"/* c */ LOAD CSV FROM {PASSWD} AS l RETURN l",
    f"LOAD/**/CSV FROM {PASSWD} AS l RETURN l",
    f"LOAD\tCSV\nFROM {PASSWD} AS l RETURN l",
    f"LOAD\u00a0CSV FROM {PASSWD} AS l RETURN l",
    f"LOAD\x0bCSV FROM {PASSWD} AS l RETURN l",
    f"WITH 1 AS x // {U}000a LOAD CSV FROM {PASSWD} AS l RETURN l",
    f"WITH '{U}0027 AS a LOAD CSV FROM {U}0027file:///etc/passwd{U}0027 AS l RETURN l //' AS z RETURN z",
    f"{U}004cOAD CSV FROM {PASSWD} AS l RETURN l",
    f"WITH 1 AS x LOAD CSV FROM {PASSWD} AS l RETURN l",
    f"MATCH (n) WITH n LIMIT 1 LOAD CSV FROM {PASSWD} AS l RETURN l",
    f"CALL {{ LOAD CSV FROM {PASSWD} AS l RETURN l }} RETURN l",
    f"CALL () {{ LOAD CSV FROM {PASSWD} AS l RETURN l }} RETURN l",
    f"RETURN 1 AS a UNION LOAD CSV FROM {PASSWD} AS l RETURN l[0] AS a",
    "LOAD CSV FROM 'http://127.0.0.1:9200/' AS l RETURN l",
    "LOAD CSV FROM 'http://localhost:7474/' AS l RETURN l",
    "LOAD CSV FROM 'http://169.254.169.254/latest/meta-data/' AS l RETURN l",
    "LOAD CSV FROM 'file:///proc/self/environ' AS l RETURN l",
    "LOAD CSV FROM 'file:///' + 'etc/passwd' AS l RETURN l",
    f"WITH {PASSWD} AS u LOAD CSV FROM u AS l RETURN l",
    "LOAD CSV FROM $repo AS l RETURN l",
    f"CYPHER runtime=slotted LOAD CSV FROM {PASSWD} AS l RETURN l",
    f"PROFILE LOAD CSV FROM {PASSWD} AS l RETURN l",
    f"EXPLAIN LOAD CSV FROM {PASSWD} AS l RETURN l",
    f"RETURN 1; LOAD CSV FROM {PASSWD} AS l RETURN l",
    f"MATCH (n) WHERE EXISTS {{ LOAD CSV FROM {PASSWD} AS l RETURN l }} RETURN n",
    # -- procedures outside the allow-list, whatever the spelling
    "CALL dbms.listConfig()",
    "CALL `dbms`.`listConfig`()",
    "CALL `dbms.listConfig`()",
    "CALL `dbms`.listConfig() YIELD name, value RETURN name, value",
    "call DBMS.LISTCONFIG()",
    "CALL dbms . listConfig ( )",
    "CALL dbms/**/.listConfig()",
    "CALL dbms.listConfig",
    "CALL dbms.components()",
    "CALL dbms.showCurrentUser()",
    "CALL dbms.listConnections()",
    "CALL dbms.security.createUser('nosuchprobe', 'xxxxxxxx', false)",
    "CALL dbms.routing.getRoutingTable({})",
    "MATCH (n) CALL dbms.listConfig() YIELD name RETURN name LIMIT 1",
    "CALL db.labels() YIELD label CALL dbms.listConfig() YIELD name RETURN name",
    "RETURN 1 AS a UNION CALL dbms.listConfig() YIELD name RETURN name AS a",
    "CALL { CALL dbms.listConfig() YIELD name RETURN name } RETURN name",
    f"CALL {U}0064bms.listConfig()",
    f"CALL apoc.load.json({PASSWD})",
    f"CALL `apoc`.load.csv({PASSWD})",
    "RETURN apoc.util.md5(['x']) AS h",
    "CALL db.createLabel('HostileProbe')",
    "CALL db.info()",
    "CALL db.awaitIndexes(1)",
    "CALL db.clearQueryCaches()",
    "CALL tx.setMetaData({a: 1})",
    # -- SHOW / TERMINATE commands
    "SHOW SETTINGS",
    "show settings yield *",
    "SHOW USERS",
    "SHOW TRANSACTIONS",
    "SHOW PROCEDURES",
    "SHOW FUNCTIONS",
    "SHOW INDEXES",
    "SHOW DATABASES",
    "SHOW CURRENT USER",
    "// c\rSHOW SETTINGS",
    "/* c */SHOW SETTINGS",
    f"{U}0053HOW SETTINGS",
    "TERMINATE TRANSACTIONS 'neo4j-transaction-1'",
    # -- writes and administration (scoped to a label / users that do not exist)
    "CREATE (:HostileProbe)",
    "MATCH (n:HostileProbe) DETACH DELETE n",
    "MERGE (n:HostileProbe {a: 1}) RETURN n",
    "MATCH (n:HostileProbe) SET n.a = 1",
    "MATCH (n:HostileProbe) REMOVE n.a",
    "FOREACH (x IN [1] | CREATE (:HostileProbe))",
    "CALL { CREATE (:HostileProbe) } IN TRANSACTIONS",
    "MATCH (n:HostileProbe) CALL { WITH n DELETE n } IN TRANSACTIONS OF 10 ROWS",
    "// x\rCREATE (:HostileProbe)",
    "DROP INDEX nosuchprobe_idx IF EXISTS",
    "CREATE INDEX probe_idx IF NOT EXISTS FOR (n:HostileProbe) ON (n.a)",
    "ALTER USER nosuchprobe SET PASSWORD 'xxxxxxxx'",
    "DROP USER nosuchprobe IF EXISTS",
    "USE system SHOW USERS",
    "USE system MATCH (n) RETURN n",
    "STOP DATABASE nosuchprobe",
    "GRANT ROLE admin TO nosuchprobe",
]

READS: list[str] = [
    "MATCH (s:Symbol) WHERE s.repo = $repo RETURN s.name AS name ORDER BY name",
    "MATCH (s:Symbol) WHERE s.name <> 'LOAD CSV FROM x' RETURN s.name",
    "MATCH (s:Symbol) // SHOW SETTINGS in a comment\nRETURN s.`set` AS a, s.created_at AS b LIMIT 1",
    "MATCH (s:Symbol {repo: $repo}) RETURN s {.name, delete: 1} AS m /* remove */ LIMIT 2",
    "CALL db.labels() YIELD label RETURN count(label) AS n",
    "CALL db.relationshipTypes() YIELD relationshipType RETURN count(*) AS n",
    "CALL db.schema.visualization() YIELD nodes RETURN size(nodes) AS n",
    "MATCH (s:Symbol) WHERE NOT EXISTS { MATCH (s)-[:CALLS]->() } RETURN COUNT { (s)-->() } AS c LIMIT 1",
    "CALL () { MATCH (s:Symbol) RETURN s LIMIT 1 } RETURN count(s) AS n",
    "MATCH (a:Symbol) RETURN a.name AS n LIMIT 1 UNION ALL MATCH (b:File) RETURN b.path AS n LIMIT 1",
    "RETURN point.distance(point({x: 0, y: 0}), point({x: 3, y: 4})) AS d",
    "RETURN 'it\\'s' AS s, \"a \\\" b\" AS t;",
]


@pytest.mark.parametrize("query", HOSTILE)
def test_client_check_refuses_every_hostile_query(query: str) -> None:
    with pytest.raises(ReadOnlyViolation) as e:
        check_read_only(query)
    assert str(e.value).startswith("refused") and "\n" not in str(e.value)


def test_hostile_corpus_is_large_and_distinct() -> None:
    assert len(HOSTILE) >= 60 and len(set(HOSTILE)) == len(HOSTILE)


@pytest.mark.parametrize("query", READS)
def test_client_check_accepts_reads(query: str) -> None:
    check_read_only(query)


def test_tokenizer_reads_comments_strings_and_backticks_like_the_server() -> None:
    toks = tokenize("MATCH (n) // a\rRETURN `we``ird`, 'x\\'y', \"q\" /* c */")
    assert [(t.kind, t.text) for t in toks] == [
        ("word", "match"), ("punct", "("), ("word", "n"), ("punct", ")"), ("word", "return"),
        ("name", "we`ird"), ("punct", ","), ("string", "x\\'y"), ("punct", ","), ("string", "q")]
    for bad in ("RETURN 'open", "RETURN `open", "RETURN 1 /* open", "RETURN 1 \\ 2", "RETURN 1\x00"):
        with pytest.raises(ReadOnlyViolation):
            tokenize(bad)


def _server_only(store: GraphStore, monkeypatch: pytest.MonkeyPatch) -> None:
    if store.backend != "neo4j":
        with pytest.raises(Unsupported):
            store.run_cypher("RETURN 1", {}, 1)
        pytest.skip("raw Cypher is Neo4j only (the embedded store refuses every raw query)")
    from codegraph.core import neo4j_graph

    monkeypatch.setattr(neo4j_graph, "check_read_only", lambda q: None)


@pytest.mark.parametrize("query", HOSTILE)
def test_server_refuses_every_hostile_query_without_the_client_check(
        store: GraphStore, repo: str, query: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _server_only(store, monkeypatch)
    setup_repo(store, repo)
    store.import_files(repo, [fimp(repo, "a.py", [sym(repo, "a.py", "a.f", 1)])])
    with pytest.raises(CodegraphError) as e:
        store.run_cypher(query, {"repo": repo}, 10)
    assert "\n" not in str(e.value) and "root:" not in str(e.value)
    assert store.counts(repo)["nodes"] == {REPO: 1, FILE: 1, SYMBOL: 1}
    assert store.run_cypher("MATCH (n:HostileProbe) RETURN count(n) AS n", {}, 1)[0] == [{"n": 0}]


@pytest.mark.parametrize("query", READS)
def test_server_answers_reads(store: GraphStore, repo: str, query: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _server_only(store, monkeypatch)
    setup_repo(store, repo)
    store.import_files(repo, [fimp(repo, "a.py", [sym(repo, "a.py", "a.f", 1)])])
    rows, total = store.run_cypher(query, {"repo": repo}, 10)
    assert total >= 1 and len(rows) == min(total, 10)


def test_server_settings_refuse_load_csv_even_past_both_checks(store: GraphStore,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Layer 3 alone: with the client check and the plan check off, the server's own
    settings refuse local files (allow_csv_import_from_file_urls=false, empty import
    directory) and every URL (ip blocklist). A server started before these settings
    existed fails this test on CI and is skipped locally with the reason."""
    _server_only(store, monkeypatch)
    from codegraph.core import neo4j_graph

    monkeypatch.setattr(neo4j_graph, "check_plan", lambda *a: None)
    leaked: list[str] = []
    for url in ("file:///etc/passwd", "file:///etc/hostname", "http://127.0.0.1:9200/", "http://localhost:7687/"):
        try:
            store.run_cypher(f"LOAD CSV FROM '{url}' AS l RETURN l LIMIT 1", {}, 1)
            leaked.append(url)
        except ReadOnlyViolation as e:
            assert "refused by the server" in str(e)
    if leaked:
        msg = f"the Neo4j server is not hardened (LOAD CSV read {leaked}); restart it with `make services`"
        if services_required():
            pytest.fail(msg)
        pytest.skip(msg)
