"""A long-running process patches the last run's symbol table for the files that changed
(``TracingTable.patch``, docs/DESIGN.md#refresh): the patched table holds exactly what a
build over the new files gives — every structure, entry and list order — also after the
last run's look-ups inserted empty entries for keys no file defines."""

from __future__ import annotations

from typing import Any

from codegraph.indexer.extract import extract_source
from codegraph.indexer.resolve import link_bases
from codegraph.indexer.tracing_table import TracingTable

V1 = {
    "pkg/a.py": "class A:\n    def run(self):\n        return 1\n\n\ndef helper():\n    return A()\n",
    "pkg/b.py": "from pkg.a import A\n\n\nclass B(A):\n    def stop(self):\n        return 2\n",
    "pkg/c.py": "def gone():\n    return 3\n",
}
V2 = {
    "pkg/a.py": V1["pkg/a.py"],
    "pkg/b.py": V1["pkg/b.py"] + "\n\ndef helper():\n    return B()\n",  # a second `helper`: by_name order
    "pkg/d.py": "from pkg.b import B\n\n\ndef use(f):\n    return f()\n\n\ndef main():\n    return use(B)\n",
}


def _fx(files: dict[str, str]) -> list[Any]:
    return [extract_source("r", p, "python", text.encode()) for p, text in sorted(files.items())]


def _plain(table: TracingTable) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for tag, val in table.structures().items():
        if tag == "deps":
            continue
        out[tag] = set(val) if isinstance(val, set) else {k: (dict(v) if isinstance(v, dict) else v)
                                                          for k, v in dict.items(val)}
    return out


def test_a_patched_table_equals_a_build_over_the_new_files() -> None:
    old, new = _fx(V1), _fx(V2)
    table = TracingTable("r", old)
    link_bases(table, old)
    table.begin("pkg/b.py")
    for tag, key in [("by_name", "nope"), ("members", ("pkg.a.A", "missing")), ("by_qn", "pkg.x"),
                     ("by_file_qn", ("pkg/a.py", "pkg.zz")), ("dirs", "nodir"), ("param_calls", "pkg.q")]:
        assert getattr(table, tag)[key] == []  # a look-up of a defaultdict: an empty entry now
    assert dict.__contains__(table.by_name, "nope")
    assert [s.file for s in table.named("helper", None, "python")[0]] == ["pkg/a.py"]  # memoised now
    changed = {"pkg/b.py", "pkg/c.py", "pkg/d.py"}
    table.patch([fx for fx in old if fx.file.path in changed], [fx for fx in new if fx.file.path in changed],
                {fx.file.path: fx.exports for fx in new})
    built = TracingTable("r", new)
    assert _plain(table) == _plain(built)
    assert not dict.__contains__(table.by_name, "nope")
    assert [s.file for s in dict.get(table.by_name, "helper")] == ["pkg/a.py", "pkg/b.py"]
    assert table.named("helper", None, "python") == built.named("helper", None, "python")  # the memo too
    assert [s.file for s in table.named("helper", None, "python")[0]] == ["pkg/a.py", "pkg/b.py"]
    link_bases(table, new)
    link_bases(built, new)
    assert _plain(table) == _plain(built)
