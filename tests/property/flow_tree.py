"""A small Python + TypeScript tree that leans on what a refresh must follow across files
(docs/DESIGN.md#refresh): a package barrel (``pkg/__init__.py`` re-exporting names) and a
TypeScript barrel (``export { } from`` and ``export *``), base classes in other modules,
calls on what a factory returns (``make().run()``: ``returns_of``), values handed to a
function that calls its parameter (``runner(work)``: ``pass`` / ``param_call``), a module
named by a string and returned by a loader of another file (``load("pkg.m2").gamma()``:
``module_param`` / ``module_of_call``), method calls on an unknown receiver (the
unique-name fallback, or an ambiguous stub), and edits that rename, move, delete and add
functions, classes, re-exports and whole files.

Rendering is deterministic; edits are tuples of small ints read modulo what exists.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path

PY_MODS = ("pkg/m1.py", "pkg/m2.py", "pkg/m3.py")
PY_APPS = ("app/c1.py", "app/c2.py")
TS_MODS = ("ts/a.ts", "ts/b.ts", "ts/c.ts")
TS_APPS = ("ts/use1.ts", "ts/use2.ts")
FN_NAMES = ("alpha", "beta", "gamma", "delta", "eps", "zeta")
CLS_NAMES = ("Widget", "Gadget", "Base", "Thing")
METHODS = ("run", "stop", "size")


@dataclass
class Cls:
    name: str
    base: str | None = None  # name of another class (found wherever it is defined)
    methods: list[str] = field(default_factory=lambda: ["run"])


@dataclass
class Fn:
    name: str
    kind: str = "plain"  # plain | factory (returns an instance of ``ret``) | runner (calls its parameter)
    #                      | loader (returns importlib.import_module of its parameter)
    ret: str | None = None


@dataclass
class Use:
    """One statement in a caller's body: ``call`` f(); ``chain`` f().m(); ``pass`` runner(f);
    ``recv`` obj.m() (receiver unknown); ``new`` C().m(); ``dyn`` loader("pkg.mX").f() (``b``
    is ``mX.f``: the module written stays when f moves)."""

    form: str
    a: str
    b: str = ""


@dataclass
class Tree:
    defs: dict[str, list[Fn | Cls]] = field(default_factory=dict)  # module path -> definitions
    barrel: list[str] = field(default_factory=list)  # names pkg/__init__.py / ts/index.ts re-export
    star: bool = False  # ts/index.ts: `export * from "./c"` as well
    uses: dict[str, list[Use]] = field(default_factory=dict)  # caller path -> statements

    def copy(self) -> Tree:
        return copy.deepcopy(self)


def is_ts(path: str) -> bool:
    return path.endswith(".ts")


def base_tree() -> Tree:
    t = Tree()
    t.defs["pkg/m1.py"] = [Cls("Base", None, ["run", "size"]), Fn("alpha", "factory", "Widget"),
                           Fn("beta", "runner"), Fn("delta", "loader")]
    t.defs["pkg/m2.py"] = [Cls("Widget", "Base", ["stop"]), Fn("gamma")]
    t.defs["ts/a.ts"] = [Fn("alpha"), Fn("beta", "runner")]
    t.defs["ts/b.ts"] = [Fn("gamma")]
    t.defs["ts/c.ts"] = [Fn("delta")]
    t.barrel = ["alpha", "gamma", "beta"]
    t.star = True
    t.uses["app/c1.py"] = [Use("call", "alpha"), Use("chain", "alpha", "run"), Use("pass", "beta", "gamma"),
                           Use("dyn", "delta", "m2.gamma")]
    t.uses["app/c2.py"] = [Use("new", "Widget", "size"), Use("recv", "", "stop")]
    t.uses["ts/use1.ts"] = [Use("call", "alpha"), Use("call", "delta"), Use("pass", "beta", "gamma")]
    t.uses["ts/use2.ts"] = [Use("call", "gamma")]
    return t


def _where(t: Tree, name: str, ts: bool) -> str | None:
    for path in sorted(t.defs):
        if is_ts(path) == ts and any(d.name == name for d in t.defs[path]):
            return path
    return None


def _names(t: Tree, ts: bool, kind: type | None = None) -> list[str]:
    return sorted({d.name for p, ds in t.defs.items() if is_ts(p) == ts for d in ds
                   if kind is None or isinstance(d, kind)})


OPS = ("add_fn", "add_cls", "delete", "rename", "move", "rebase", "retarget", "barrel", "use", "unuse",
       "new_file", "drop_file", "add_method")


def apply(t: Tree, edit: tuple[int, int, int, int]) -> str:
    """Apply one edit in place; returns a one-line description."""
    op = OPS[edit[0] % len(OPS)]
    a, b, c = edit[1:]
    ts = bool(a % 2)
    mods = [p for p in (TS_MODS if ts else PY_MODS) if p in t.defs]
    taken = set(_names(t, ts))
    if op == "add_fn" or op == "add_cls" or not mods:
        path = mods[b % len(mods)] if mods else (TS_MODS if ts else PY_MODS)[0]
        pool = CLS_NAMES if op == "add_cls" and not ts else FN_NAMES
        name = next((n for n in pool[c % len(pool):] + pool[:c % len(pool)] if n not in taken), None)
        if name is None:
            return f"{op}: every name taken"
        kinds = ("plain", "factory", "runner", "loader")
        d: Fn | Cls = Cls(name, None, [METHODS[c % 3]]) if pool is CLS_NAMES else \
            Fn(name, kinds[b % 4] if not ts else ("plain", "runner")[b % 2],
               _pick(_names(t, False, Cls), c) if kinds[b % 4] == "factory" and not ts else None)
        t.defs.setdefault(path, []).append(d)
        return f"add {type(d).__name__} {name} ({getattr(d, 'kind', 'class')}) to {path}"
    path = mods[b % len(mods)]
    ds = t.defs[path]
    if op == "new_file":
        free = [p for p in (TS_MODS if ts else PY_MODS) if p not in t.defs]
        if not free or not ds:
            return "new_file: none free"
        dst = free[c % len(free)]
        moved = ds.pop(c % len(ds))
        t.defs[dst] = [moved]
        return f"new file {dst} with {moved.name} (moved from {path})"
    if op == "drop_file":
        if len(mods) < 2:
            return "drop_file: last module"
        del t.defs[path]
        return f"delete file {path}"
    if not ds:
        return f"{op}: {path} is empty"
    d = ds[c % len(ds)]
    if op == "delete":
        ds.remove(d)
        return f"delete {d.name} from {path}"
    if op == "rename":
        pool = CLS_NAMES if isinstance(d, Cls) else FN_NAMES
        new = next((n for n in pool if n not in taken), None)
        if new is None:
            return "rename: every name taken"
        old, d.name = d.name, new
        return f"rename {old} -> {new} in {path}"
    if op == "move":
        others = [p for p in mods if p != path]
        if not others:
            return "move: one module"
        dst = others[c % len(others)]
        ds.remove(d)
        t.defs[dst].append(d)
        return f"move {d.name} {path} -> {dst}"
    if op == "rebase":
        if not isinstance(d, Cls):
            return "rebase: not a class"
        bases = [n for n in _names(t, False, Cls) if n != d.name] + [None]
        d.base = bases[a % len(bases)]
        return f"class {d.name} now extends {d.base}"
    if op == "retarget":
        if not isinstance(d, Fn) or d.kind != "factory":
            return "retarget: not a factory"
        d.ret = _pick(_names(t, False, Cls), a)
        return f"factory {d.name} now returns {d.ret}"
    if op == "add_method":
        if not isinstance(d, Cls):
            return "add_method: not a class"
        m = METHODS[a % 3]
        if m in d.methods:
            d.methods.remove(m)
            return f"remove method {d.name}.{m}"
        d.methods.append(m)
        return f"add method {d.name}.{m}"
    if op == "barrel":
        if d.name in t.barrel:
            t.barrel.remove(d.name)
            return f"barrel no longer re-exports {d.name}"
        if ts and a % 4 == 3:
            t.star = not t.star
            return f"ts barrel star export {'on' if t.star else 'off'}"
        t.barrel.append(d.name)
        return f"barrel re-exports {d.name}"
    callers = TS_APPS if ts else PY_APPS
    caller = callers[a % 2]
    uses = t.uses.setdefault(caller, [])
    if op == "unuse":
        if not uses:
            return "unuse: nothing"
        gone = uses.pop(c % len(uses))
        return f"{caller} drops {gone.form} {gone.a}"
    forms = ("call", "pass", "recv") if ts else ("call", "chain", "pass", "recv", "new", "dyn")
    form = forms[(a + c) % len(forms)]
    u = Use(form, d.name, METHODS[c % 3])
    if form == "pass":
        runners = [x.name for p, xs in t.defs.items() if is_ts(p) == ts for x in xs
                   if isinstance(x, Fn) and x.kind == "runner"]
        u = Use("pass", _pick(runners, c) or d.name, d.name)
    if form == "dyn":
        loaders = [x.name for p, xs in t.defs.items() if not is_ts(p) for x in xs
                   if isinstance(x, Fn) and x.kind == "loader"]
        u = Use("dyn", _pick(loaders, c) or d.name, f"{path[:-3].split('/')[-1]}.{d.name}")
    uses.append(u)
    return f"{caller} adds {u.form} {u.a} {u.b}"


def _pick(seq: list, i: int):  # type: ignore[no-untyped-def]
    return seq[i % len(seq)] if seq else None


# -- rendering --------------------------------------------------------------------------------
def _py_module(t: Tree, path: str) -> str:
    imports: dict[str, set[str]] = {}
    body: list[str] = []
    here = path[:-3].replace("/", ".")

    def need(name: str) -> None:
        where = _where(t, name, False)
        if where and where != path:
            imports.setdefault(where[:-3].replace("/", "."), set()).add(name)

    for d in t.defs.get(path, []):
        if isinstance(d, Cls):
            base = d.base if d.base and _where(t, d.base, False) else None
            if base:
                need(base)
            body += ["", "", f"class {d.name}({base or ''}):"]
            body += [f"    def {m}(self):\n        return 0\n" for m in d.methods]
        elif d.kind == "factory":
            ret = d.ret if d.ret and _where(t, d.ret, False) else None
            if ret:
                need(ret)
            body += ["", "", f"def {d.name}():", f"    return {ret or 'object'}()"]
        elif d.kind == "runner":
            body += ["", "", f"def {d.name}(fn):", "    return fn()"]
        elif d.kind == "loader":
            imports.setdefault("importlib", set())
            body += ["", "", f"def {d.name}(name):", "    return importlib.import_module(name)"]
        else:
            body += ["", "", f"def {d.name}():", "    return 0"]
    head = [f"from {m} import {', '.join(sorted(ns))}" if ns else f"import {m}"
            for m, ns in sorted(imports.items()) if m != here]
    return "\n".join(head + body).strip("\n") + "\n"


def _py_app(t: Tree, path: str) -> str:
    direct: dict[str, set[str]] = {}
    via_barrel: set[str] = set()
    lines: list[str] = []

    def ref(name: str) -> str:
        where = _where(t, name, False)
        if where is None:
            return name  # not defined anywhere: a missing stub
        if name in t.barrel:
            via_barrel.add(name)
        else:
            direct.setdefault(where[:-3].replace("/", "."), set()).add(name)
        return name

    for i, u in enumerate(t.uses.get(path, [])):
        if u.form == "call":
            stmt = f"{ref(u.a)}()"
        elif u.form == "chain":
            stmt = f"{ref(u.a)}().{u.b}()"
        elif u.form == "pass":
            stmt = f"{ref(u.a)}({ref(u.b)})"
        elif u.form == "new":
            stmt = f"{ref(u.a)}().{u.b}()"
        elif u.form == "dyn":
            mod, _, fn = u.b.partition(".")
            stmt = f"{ref(u.a)}(\"pkg.{mod}\").{fn}()"
        else:
            stmt = f"obj.{u.b}()"
        lines += ["", "", f"def use{i}(obj):", f"    {stmt}", "    return 0"]
    head = [f"from {m} import {', '.join(sorted(ns))}" for m, ns in sorted(direct.items())]
    if via_barrel:
        head.append(f"from pkg import {', '.join(sorted(via_barrel))}")
    return "\n".join(head + lines).strip("\n") + "\n"


def _py_barrel(t: Tree) -> str:
    by_mod: dict[str, list[str]] = {}
    for name in t.barrel:
        where = _where(t, name, False)
        if where:
            by_mod.setdefault(where[:-3].split("/")[-1], []).append(name)
    return "".join(f"from .{m} import {', '.join(sorted(ns))}\n" for m, ns in sorted(by_mod.items())) or "\n"


def _ts_module(t: Tree, path: str) -> str:
    out = []
    for d in t.defs.get(path, []):
        if isinstance(d, Fn) and d.kind == "runner":
            out.append(f"export function {d.name}(fn: () => number): number {{\n  return fn();\n}}\n")
        else:
            out.append(f"export function {d.name}(): number {{\n  return 0;\n}}\n")
    return "\n".join(out) or "export {};\n"


def _ts_barrel(t: Tree) -> str:
    by_mod: dict[str, list[str]] = {}
    for name in t.barrel:
        where = _where(t, name, True)
        if where and not (t.star and where == "ts/c.ts"):
            by_mod.setdefault(Path(where).stem, []).append(name)
    lines = [f"export {{ {', '.join(sorted(ns))} }} from \"./{m}\";" for m, ns in sorted(by_mod.items())]
    if t.star and "ts/c.ts" in t.defs:
        lines.append('export * from "./c";')
    return "\n".join(lines) + "\n" if lines else "export {};\n"


def _ts_app(t: Tree, path: str) -> str:
    direct: dict[str, set[str]] = {}
    via_barrel: set[str] = set()
    lines: list[str] = []

    def ref(name: str) -> str:
        where = _where(t, name, True)
        if where is None:
            return name
        star = t.star and where == "ts/c.ts"
        if name in t.barrel or star:
            via_barrel.add(name)
        else:
            direct.setdefault(Path(where).stem, set()).add(name)
        return name

    for i, u in enumerate(t.uses.get(path, [])):
        if u.form == "call":
            stmt = f"{ref(u.a)}();"
        elif u.form == "pass":
            stmt = f"{ref(u.a)}({ref(u.b)});"
        else:
            stmt = f"obj.{u.b}();"
        lines += ["", f"export function use{i}(obj: any): number {{", f"  {stmt}", "  return 0;", "}"]
    head = [f"import {{ {', '.join(sorted(ns))} }} from \"./{m}\";" for m, ns in sorted(direct.items())]
    if via_barrel:
        head.append(f"import {{ {', '.join(sorted(via_barrel))} }} from \"./index\";")
    return "\n".join(head + lines).strip("\n") + "\n"


def render(t: Tree) -> dict[str, str]:
    """path -> source text."""
    out = {"pkg/__init__.py": _py_barrel(t), "app/__init__.py": "\n", "ts/index.ts": _ts_barrel(t)}
    for path in t.defs:
        out[path] = _ts_module(t, path) if is_ts(path) else _py_module(t, path)
    for path in PY_APPS:
        out[path] = _py_app(t, path)
    for path in TS_APPS:
        out[path] = _ts_app(t, path)
    return out


def write(root: Path, t: Tree, python_only: bool = False) -> None:
    """Make ``root`` hold exactly the rendered tree (files written only when changed;
    ``python_only``: without the TypeScript files, whose edits are then no-ops)."""
    want = {p: text for p, text in render(t).items() if not (python_only and is_ts(p))}
    for p in [p for p in root.rglob("*") if p.is_file()]:
        if p.relative_to(root).as_posix() not in want:
            p.unlink()
    for rel, text in want.items():
        p = root / rel
        if not p.exists() or p.read_text(encoding="utf-8") != text:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")
