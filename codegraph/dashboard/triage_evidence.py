"""Call-site evidence for ranking triage candidates (docs/DESIGN.md#users: Triager), free of
Streamlit: how many arguments each call site passes against the parameters a candidate
takes (*arity*), and what the extractor knew of the receiver (*receiver type*).

What is stored, and what is read instead:
- Arguments passed: the extractor stores them on the edge (``extra.arity``) for the JVM
  languages and C/C++ only. For Python call sites nothing is stored, so the count is read
  from the calling file's source with Python's own parser (``ast``): the call at that line
  whose function is named like the target's last segment; a ``*args`` / ``**kw`` in the
  call, or several such calls on the line with different counts, leave it unknown.
- Parameters taken: a symbol's ``arity`` / ``variadic`` where stored (languages with
  overloads); for Python the ``def`` signature kept on the symbol, parsed with ``ast``
  (``self`` / ``cls`` of a method not counted, defaults and ``*args`` / ``**kw`` give a range).
- Receiver type: the Python extractor writes a typed receiver into the target itself
  (``s.put()`` with ``s: Store`` gives the stub ``app.base.Store.put``); other languages
  leave the ``Owner.member`` names of receiver-typed candidates in ``extra.lookup``. Those
  owners that are types in the graph, with their base types (EXTENDS / IMPLEMENTS, up to
  ``MAX_BASES`` hops), are the receiver's types; nothing else is guessed.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from codegraph.core.graph_store import GraphStore
from codegraph.core.models import EXTENDS, IMPLEMENTS
from codegraph.core.triage_lookup import CallSite, Candidate, last_segment

MAX_BASES = 6
MAX_FILES = 50  # calling files parsed for argument counts per ranking, most call sites first (the rest: unknown)
TYPE_KINDS = frozenset({"class", "interface", "struct", "trait", "record", "enum", "object"})


@dataclass(frozen=True, slots=True)
class Params:
    """Arguments a call may pass: ``low`` to ``high`` (None: any number)."""

    low: int
    high: int | None

    def fits(self, n: int) -> bool:
        return n >= self.low and (self.high is None or n <= self.high)

    def text(self) -> str:
        if self.high is None:
            return f"{self.low}+ argument(s)"
        return f"{self.low} argument(s)" if self.low == self.high else f"{self.low}-{self.high} arguments"


def params(c: Candidate) -> Params | None:
    """The arguments candidate ``c`` takes, or None when nothing says (see module docstring)."""
    if c.arity is not None:
        return Params(max(0, c.arity - 1), None) if c.variadic else Params(c.arity, c.arity)
    if c.language != "python" or not c.signature.lstrip().startswith(("def ", "async def ")):
        return None
    try:
        tree = ast.parse(c.signature.strip().rstrip(":") + ": pass")
    except SyntaxError:
        return None
    fn = tree.body[0] if tree.body else None
    if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    if c.kind == "method" and positional and positional[0].arg in ("self", "cls"):
        positional = positional[1:]
    required = len(positional) - len(a.defaults) + sum(1 for d in a.kw_defaults if d is None)
    high = None if (a.vararg or a.kwarg) else len(positional) + len(a.kwonlyargs)
    return Params(max(0, required), high)


@lru_cache(maxsize=512)
def _calls(path: str, mtime_ns: int, size: int) -> dict[tuple[int, str], tuple[int | None, ...]]:
    """(line, called name) -> argument counts of the calls there (None: a spread)."""
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (SyntaxError, ValueError, OSError):
        return {}
    out: dict[tuple[int, str], list[int | None]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
        if name is None:
            continue
        spread = any(isinstance(x, ast.Starred) for x in node.args) or any(k.arg is None for k in node.keywords)
        n = None if spread else len(node.args) + len(node.keywords)
        for line in {node.lineno, getattr(f, "end_lineno", None) or node.lineno}:
            out.setdefault((line, name), []).append(n)
    return {k: tuple(v) for k, v in out.items()}


def site_arity(root: str | None, sites: Iterable[CallSite], target: str) -> dict[tuple[str, int], int | None]:
    """(file, line) -> arguments the call passes: stored on the edge, else read from a
    Python calling file's source (module docstring); None when unknown."""
    name = last_segment(target)
    base = Path(root).resolve() if root else None
    sites = list(sites)
    per_file = Counter(s.file for s in sites if s.arity is None and s.file.endswith((".py", ".pyi")))
    readable = {f for f, _ in per_file.most_common(MAX_FILES)}  # parsing costs ~25 ms a file: the busiest only
    out: dict[tuple[str, int], int | None] = {}
    for s in sites:
        if s.arity is not None:
            out[(s.file, s.line)] = s.arity
            continue
        out[(s.file, s.line)] = None
        if base is None or s.file not in readable:
            continue
        p = (base / s.file).resolve()
        if not p.is_relative_to(base) or not p.is_file():  # paths stay inside the repo root
            continue
        st = p.stat()
        counts = set(_calls(str(p), st.st_mtime_ns, st.st_size).get((s.line, name), ()))
        if len(counts) == 1:
            out[(s.file, s.line)] = counts.pop()
    return out


def receiver_owners(target: str, site: CallSite) -> set[str]:
    """Qualified names the extractor recorded as the receiver's type at one call site: the
    target's head (``app.base.Store`` of ``app.base.Store.put``) and the owners in the
    site's ``lookup``. Which of them are types in the graph is for ``ancestors`` to say."""
    owners = {target.rpartition(".")[0]} - {""}
    owners.update(k.rpartition(".")[0] for k in site.lookup if "." in k)
    return owners


def ancestors(store: GraphStore, qns: Iterable[str]) -> dict[str, set[str]]:
    """Type qualified name -> itself and its base types (EXTENDS / IMPLEMENTS, up to
    MAX_BASES hops), for the names that are types in the graph; others are left out."""
    names = sorted(set(qns))
    if not names:
        return {}
    found = store.symbols_by_qualified_name(names)
    out: dict[str, set[str]] = {}
    for qn, nodes in found.items():
        types = [n for n in nodes if str(n.props.get("kind", "")) in TYPE_KINDS]
        if not types:
            continue
        seen = {qn}
        frontier = [n.uid for n in types]
        for _ in range(MAX_BASES):
            if not frontier:
                break
            nxt = []
            for lst in store.neighbours(frontier, "out", [EXTENDS, IMPLEMENTS]).values():
                for h in lst:
                    bqn = str(h.node.props.get("qualified_name") or "")
                    if bqn and bqn not in seen:
                        seen.add(bqn)
                        nxt.append(h.node.uid)
            frontier = nxt
        out[qn] = seen
    return out
