"""Impact of a change set (docs/DESIGN.md#impact): the lines a git diff changes, mapped
to the innermost symbols that contain them (a changed line outside every symbol counts
for its file), and the blast radius of each, with their union.

``spec`` is ``BASE...HEAD`` (what HEAD changed since it left BASE, as a pull request
shows it), ``BASE..HEAD``, one commit-ish (against the working tree), or None / ""
for the working tree against HEAD (staged and unstaged). Paths are taken relative to
the indexed folder, which may lie below the git top level; changed files outside it or
not in the graph are listed as ``unindexed``. Raises BadInput for a bad range or a
folder that is not in a git checkout.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from codegraph.core.errors import BadInput
from codegraph.core.graph_store import GraphStore
from codegraph.core.impact.radius import impact
from codegraph.core.impact.results import ImpactResult, NodeRef
from codegraph.core.models import FILE, Node, file_uid

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


@dataclass(slots=True)
class ChangedTarget:
    """One changed symbol (or file, when the lines lie outside every symbol)."""

    target: NodeRef
    lines: list[int]
    result: ImpactResult


@dataclass(slots=True)
class DiffImpact:
    spec: str
    repo: str
    files: list[str]
    unindexed: list[str] = field(default_factory=list)
    changes: list[ChangedTarget] = field(default_factory=list)

    @property
    def union_callers(self) -> list[str]:
        return sorted({c.node.qualified_name for ch in self.changes for c in ch.result.callers}
                      - {ch.target.qualified_name for ch in self.changes})

    @property
    def union_entry_points(self) -> list[tuple[str, str]]:
        return sorted({(e.kind, e.node.qualified_name) for ch in self.changes for e in ch.result.entry_points})

    @property
    def union_tables(self) -> list[str]:
        return sorted({t["table"] for ch in self.changes for t in ch.result.tables})


def _git(root: Path, *args: str) -> str:
    r = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        why = (r.stderr.strip().splitlines() or ["?"])[-1]
        raise BadInput(f"git {' '.join(args[:3])} failed in {root}: {why}")
    return r.stdout


def changed_lines(root: Path, spec: str | None) -> dict[str, set[int]]:
    """Indexed-folder-relative path -> changed line numbers on the new side (a pure
    deletion counts the line where it happened)."""
    root = Path(root).resolve()
    top = Path(_git(root, "rev-parse", "--show-toplevel").strip())
    prefix = "" if root == top else root.relative_to(top).as_posix() + "/"
    spec = (spec or "").strip()
    rng = [spec] if spec else ["HEAD"]
    out = _git(top, "diff", "--unified=0", "--no-color", "--no-ext-diff", "--relative=" + prefix if prefix else
               "--no-relative", *rng, "--")
    changes: dict[str, set[int]] = {}
    path: str | None = None
    for line in out.splitlines():
        if line.startswith("+++ "):
            name = line[4:].strip()
            path = None if name == "/dev/null" else name.removeprefix("b/")
        elif line.startswith("@@") and path is not None:
            m = _HUNK.match(line)
            if m:
                start, count = int(m.group(1)), int(m.group(2) or 1)
                changes.setdefault(path, set()).update(range(start, start + count) if count else {max(1, start)})
    if not spec:  # untracked files are changes of the working tree too
        for name in _git(top, "ls-files", "--others", "--exclude-standard", "--", prefix or ".").splitlines():
            rel = name.removeprefix(prefix)
            changes.setdefault(rel, set()).add(1)
    return changes


def _innermost(symbols: list[Node], line: int) -> Node | None:
    """The symbol with the smallest span that contains ``line`` (a method, not its class
    or module)."""
    best: tuple[int, Node] | None = None
    for s in symbols:
        a, b = int(s.props.get("line") or 0), int(s.props.get("end_line") or s.props.get("line") or 0)
        if a <= line <= b and (best is None or b - a < best[0]):
            best = (b - a, s)
    return best[1] if best else None


def diff_impact(store: GraphStore, repo: str, root: Path, spec: str | None, depth: int = 3,
                include_tests: bool = True, limit: int = 200) -> DiffImpact:
    """The changed symbols of ``spec`` in ``repo`` and the blast radius of each."""
    lines = changed_lines(root, spec)
    out = DiffImpact(spec or "working tree", repo, sorted(lines))
    if not lines:
        return out
    files = store.get_nodes([file_uid(repo, p) for p in lines])
    declared = store.nodes_in_files(repo, sorted(lines))
    hit: dict[str, tuple[Node, set[int]]] = {}
    for path, changed in sorted(lines.items()):
        f = files.get(file_uid(repo, path))
        if f is None or f.label != FILE:
            out.unindexed.append(path)
            continue
        for ln in sorted(changed):
            node = _innermost(declared.get(path, []), ln) or f
            hit.setdefault(node.uid, (node, set()))[1].add(ln)
    for node, changed in sorted(hit.values(), key=lambda t: (str(t[0].props.get("file") or t[0].props.get("path")),
                                                             min(t[1]))):
        target = (f"file:{node.props.get('path')}" if node.label == FILE
                  else str(node.props.get("qualified_name") or node.uid))
        res = impact(store, target, repo=repo, depth=depth, include_tests=include_tests, limit=limit,
                     nodes=[node])
        out.changes.append(ChangedTarget(NodeRef.of(node), sorted(changed), res))
    return out


def diff_markdown(d: DiffImpact) -> str:
    """The pull-request comment: the union first, then one section per changed symbol."""
    lines = [f"## Impact of `{d.spec}` on `{d.repo}`", "",
             f"{len(d.changes)} changed symbol(s) / file(s) in {len(d.files)} changed file(s); union blast radius: "
             f"**{len(d.union_callers)} caller(s)**, {len(d.union_entry_points)} entry point(s), "
             f"{len(d.union_tables)} table(s).", ""]
    if d.union_entry_points:
        lines += ["### Entry points to re-check", *[f"- [ ] {k} `{q}`" for k, q in d.union_entry_points], ""]
    if d.union_tables:
        lines += ["### Tables", *[f"- [ ] `{t}`" for t in d.union_tables], ""]
    for ch in d.changes:
        r = ch.result
        span = f"{ch.lines[0]}" if len(ch.lines) == 1 else f"{ch.lines[0]}-{ch.lines[-1]}"
        lines.append(f"### `{ch.target.qualified_name}` ({ch.target.file or ch.target.qualified_name}:{span}): "
                     f"{r.total_callers} caller(s)")
        lines += [f"- depth {c.depth}: `{c.node.qualified_name}` — {c.evidence_file}:{c.evidence_line}"
                  for c in r.callers[:20]]
        if r.total_callers > 20:
            lines.append(f"- … {r.total_callers - 20} more")
        lines.append("")
    if d.unindexed:
        lines += [f"_Not in the graph (not indexed or outside the indexed folder): {', '.join(d.unindexed[:20])}_", ""]
    lines.append("_An empty or short answer means no supported relationship was found, not that nothing can break._")
    return "\n".join(lines) + "\n"
