"""A small multi-language source tree as a model (files -> functions), the edits the
property test applies to it, and its rendering to Python, Go, Java and TypeScript.

Rendering is deterministic, so an incremental index after an edit can be compared with
a full index of the same files. Names are unique per namespace where the language makes
them one (a Go package), and Java overloads differ by parameter count or type.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path

LANGS = ("py", "go", "java", "ts")
NAMES = ("alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta")
DIRS = {"py": "py", "go": "gosrc", "java": "java/app", "ts": "ts"}
EXT = {"py": ".py", "go": ".go", "java": ".java", "ts": ".ts"}
STEMS = {"py": ("m1", "m2", "m3"), "go": ("a", "b", "c"), "java": ("J1", "J2", "J3"), "ts": ("t1", "t2", "t3")}


@dataclass
class Fn:
    name: str
    arity: int = 1
    ptype: str = "int"  # Java overloads: "int" or "String" parameters
    calls: list[tuple[str, int, str]] = field(default_factory=list)  # (callee name, argument count, literal kind)


@dataclass
class Tree:
    files: dict[str, list[Fn]] = field(default_factory=dict)  # path -> functions in order

    def copy(self) -> Tree:
        return copy.deepcopy(self)

    def lang_files(self, lang: str) -> list[str]:
        return sorted(p for p in self.files if lang_of(p) == lang)


def lang_of(path: str) -> str:
    return next(k for k, v in EXT.items() if path.endswith(v))


def path_for(lang: str, stem: str) -> str:
    return f"{DIRS[lang]}/{stem}{EXT[lang]}"


def base_tree() -> Tree:
    t = Tree()
    t.files[path_for("py", "m1")] = [Fn("alpha", 1, calls=[("beta", 1, "int")]), Fn("beta", 2)]
    t.files[path_for("py", "m2")] = [Fn("gamma", 1, calls=[("alpha", 1, "int"), ("get", 1, "str")])]
    t.files[path_for("go", "a")] = [Fn("Helper", 1), Fn("main", 0, calls=[("Helper", 1, "int")])]
    t.files[path_for("go", "b")] = [Fn("More", 0, calls=[("Helper", 1, "int")])]
    t.files[path_for("java", "J1")] = [Fn("add", 2, calls=[("get", 1, "str")]), Fn("add", 1, "String")]
    t.files[path_for("java", "J2")] = [Fn("get", 1, calls=[("add", 2, "int"), ("add", 1, "str")])]
    t.files[path_for("ts", "t1")] = [Fn("lookup", 1, calls=[("get", 1, "str")])]
    t.files[path_for("ts", "t2")] = [Fn("show", 0, calls=[("lookup", 1, "str")])]
    return t


# -- edits --------------------------------------------------------------------------------
# An edit is a tuple of small ints, interpreted modulo what exists (so every drawn edit
# applies to every tree and shrinks well): (op, a, b, c).
OPS = ("add", "delete", "rename", "move", "signature", "move_file", "overload", "call", "uncall")


def _pick(seq: list, i: int):  # type: ignore[no-untyped-def]
    return seq[i % len(seq)] if seq else None


def apply(tree: Tree, edit: tuple[int, int, int, int]) -> str:
    """Apply one edit in place; returns a one-line description."""
    op = OPS[edit[0] % len(OPS)]
    a, b, c = edit[1:]
    lang = LANGS[a % len(LANGS)]
    files = tree.lang_files(lang)
    if op == "add" or not files:
        path = path_for(lang, STEMS[lang][b % 3])
        name = _unique(tree, lang, path, NAMES[c % len(NAMES)])
        tree.files.setdefault(path, []).append(Fn(name, c % 3, calls=[(NAMES[(c + 1) % len(NAMES)], 1, "int")]))
        return f"add {lang} {name} to {path}"
    path = _pick(files, b)
    fns = tree.files[path]
    if op == "move_file":
        free = [path_for(lang, s) for s in STEMS[lang] if path_for(lang, s) not in tree.files]
        if not free:
            return "move_file: no free name"
        dst = _pick(free, c)
        tree.files[dst] = tree.files.pop(path)
        return f"move file {path} -> {dst}"
    if not fns:
        del tree.files[path]
        return f"delete empty {path}"
    fn = _pick(fns, c)
    if op == "delete":
        fns.remove(fn)
        return f"delete {fn.name} from {path}"
    if op == "rename":
        old = fn.name
        fn.name = _unique(tree, lang, path, NAMES[(c + 3) % len(NAMES)])
        return f"rename {old} -> {fn.name} in {path}"
    if op == "move":
        dst = path_for(lang, STEMS[lang][(b + 1 + c) % 3])
        if dst == path:
            dst = path_for(lang, STEMS[lang][(b + 2) % 3])
        fns.remove(fn)
        if lang == "java" and any(f.name == fn.name and f.arity == fn.arity and f.ptype == fn.ptype
                                  for f in tree.files.get(dst, [])):
            fn.arity += 1
        tree.files.setdefault(dst, []).append(fn)
        return f"move {fn.name} {path} -> {dst}"
    if op == "signature":
        fn.arity = (fn.arity + 1 + c) % 4
        if lang == "java":
            while sum(1 for f in fns if (f.name, f.arity, f.ptype) == (fn.name, fn.arity, fn.ptype)) > 1:
                fn.arity += 1
        return f"signature of {fn.name} in {path}: {fn.arity} parameters"
    if op == "overload":
        if lang != "java":
            fn.arity = (fn.arity + 1) % 4
            return f"signature of {fn.name} in {path}: {fn.arity} parameters (no overloads in {lang})"
        ptype = "String" if c % 2 else "int"
        arity = next(n for n in range(1, 9) if not any((f.name, f.arity, f.ptype) == (fn.name, n, ptype) for f in fns))
        fns.append(Fn(fn.name, arity, ptype))
        return f"overload {fn.name}({arity} x {ptype}) in {path}"
    if op == "call":
        callee = _pick([f for p in tree.lang_files(lang) for f in tree.files[p]], b + c)
        assert callee is not None
        kind = "str" if callee.ptype == "String" else "int"
        fn.calls.append((callee.name, callee.arity if c % 2 else (callee.arity + 1) % 3, kind))
        return f"{fn.name} calls {callee.name} in {path}"
    if fn.calls:  # uncall
        gone = fn.calls.pop(c % len(fn.calls))
        return f"{fn.name} no longer calls {gone[0]}"
    return "uncall: nothing to remove"


def _unique(tree: Tree, lang: str, path: str, name: str) -> str:
    """A name not yet used in the namespace: the Go package, or the file elsewhere."""
    scope = tree.lang_files(lang) if lang == "go" else [path]
    used = {f.name for p in scope for f in tree.files.get(p, [])}
    n, i = name, 2
    while n in used:
        n, i = f"{name}{i}", i + 1
    return n


# -- rendering ------------------------------------------------------------------------------
def _args(n: int, kind: str) -> str:
    return ", ".join(f'"s{i}"' if kind == "str" else str(i + 1) for i in range(n))


def render(tree: Tree) -> dict[str, str]:
    """path -> source text."""
    out: dict[str, str] = {}
    for path, fns in sorted(tree.files.items()):
        lang = lang_of(path)
        out[path] = {"py": _py, "go": _go, "java": _java, "ts": _ts}[lang](tree, path, fns)
    return out


def _owner(tree: Tree, lang: str, name: str, here: str) -> str | None:
    """The file that declares ``name`` (this file first, then path order)."""
    if any(f.name == name for f in tree.files.get(here, [])):
        return here
    return next((p for p in tree.lang_files(lang) if any(f.name == name for f in tree.files[p])), None)


def _py(tree: Tree, path: str, fns: list) -> str:
    imports: dict[str, set[str]] = {}
    for fn in fns:
        for name, _, _ in fn.calls:
            o = _owner(tree, "py", name, path)
            if o and o != path:
                imports.setdefault(o[:-3].replace("/", "."), set()).add(name)
    lines = [f"from {m} import {', '.join(sorted(ns))}" for m, ns in sorted(imports.items())]
    for fn in fns:
        params = ", ".join(f"a{i}" for i in range(fn.arity))
        body = [f"    {'order.' if _owner(tree, 'py', n, path) is None else ''}{n}({_args(k, kind)})"
                for n, k, kind in fn.calls]
        lines += ["", "", f"def {fn.name}({params}):", *body, "    return 0"]
    return "\n".join(lines).lstrip("\n") + "\n"


def _go(tree: Tree, path: str, fns: list) -> str:
    lines = ["package main"]
    for fn in fns:
        params = ", ".join(f"a{i} int" for i in range(fn.arity))
        body = [f"\t{n}({_args(k, 'int')})" for n, k, _ in fn.calls]
        lines += ["", f"func {fn.name}({params}) int {{", *body, "\treturn 0", "}"]
    return "\n".join(lines) + "\n"


def _java(tree: Tree, path: str, fns: list) -> str:
    cls = Path(path).stem
    lines = ["package app;", "", f"public class {cls} {{"]
    for fn in fns:
        params = ", ".join(f"{fn.ptype} a{i}" for i in range(fn.arity))
        body = []
        for n, k, kind in fn.calls:
            o = _owner(tree, "java", n, path)
            recv = "" if o == path else (f"{Path(o).stem}." if o else "Missing.")
            body.append(f"        {recv}{n}({_args(k, kind)});")
        lines += [f"    public static int {fn.name}({params}) {{", *body, "        return 0;", "    }"]
    return "\n".join([*lines, "}"]) + "\n"


def _ts(tree: Tree, path: str, fns: list) -> str:
    imports: dict[str, set[str]] = {}
    for fn in fns:
        for name, _, _ in fn.calls:
            o = _owner(tree, "ts", name, path)
            if o and o != path:
                imports.setdefault("./" + Path(o).stem, set()).add(name)
    lines = [f"import {{ {', '.join(sorted(ns))} }} from \"{m}\";" for m, ns in sorted(imports.items())]
    for fn in fns:
        params = ", ".join(f"a{i}: number" for i in range(fn.arity))
        body = [f"  {'cache.' if _owner(tree, 'ts', n, path) is None else ''}{n}({_args(k, kind)});"
                for n, k, kind in fn.calls]
        lines += ["", f"export function {fn.name}({params}): number {{", *body, "  return 0;", "}"]
    return "\n".join(lines).lstrip("\n") + "\n"


def write(root: Path, tree: Tree) -> None:
    """Make ``root`` hold exactly the rendered tree (files written only when changed)."""
    want = render(tree)
    want["gosrc/go.mod"] = "module example.com/app\n\ngo 1.21\n"
    for p in [p for p in root.rglob("*") if p.is_file()]:
        rel = p.relative_to(root).as_posix()
        if rel not in want:
            p.unlink()
    for rel, text in want.items():
        p = root / rel
        if not p.exists() or p.read_text(encoding="utf-8") != text:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")
