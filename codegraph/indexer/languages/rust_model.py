"""Rust extractor data: std name sets, the scope and path-reading records, and the
crate layout of a file (crate prefix, module path) that qualified names follow.
Used by ``rust`` (see ``docs/languages/rust.md``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tree_sitter import Node as TSNode

LANG = "rust"
EXTERNAL_CRATES = frozenset({"std", "core", "alloc", "proc_macro", "test"})
# Wrappers whose methods are rarely what a call means: `Box<Repo>` calls Repo's methods.
TRANSPARENT = frozenset({"Box", "Rc", "Arc", "RefCell", "Cell", "Mutex", "RwLock", "Cow", "Pin", "MutexGuard"})
# Prelude / std types: their names are never this crate's items unless defined here.
PRELUDE_TYPES = frozenset({
    "Vec", "String", "Option", "Result", "Box", "Rc", "Arc", "HashMap", "HashSet", "BTreeMap",
    "BTreeSet", "VecDeque", "Some", "None", "Ok", "Err", "Default", "Iterator", "From", "Into",
    "Clone", "Copy", "Debug", "Display", "PartialEq", "Eq", "PartialOrd", "Ord", "Hash", "Drop", "Send", "Sync",
    "Sized", "AsRef", "AsMut", "TryFrom", "TryInto", "ToString", "ToOwned", "IntoIterator", "Extend",
    "FromIterator", "DoubleEndedIterator", "ExactSizeIterator", "Fn", "FnMut", "FnOnce", "Deref", "DerefMut",
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "f32", "f64",
    "bool", "char", "str",
})
# Method names of std types and traits: an unknown receiver calling one of these makes
# no `missing` stub when the repository defines no such method (it is almost always std).
STD_METHODS = frozenset("""
unwrap expect unwrap_or unwrap_or_else unwrap_or_default ok err ok_or ok_or_else map map_err and_then
or_else is_some is_none is_ok is_err as_ref as_mut as_deref as_str as_bytes as_slice as_ptr clone
cloned copied to_string to_owned to_vec into into_iter iter iter_mut collect len is_empty push pop
insert remove get get_mut contains contains_key entry or_insert or_insert_with or_default extend
append clear first last split splitn trim starts_with ends_with join chars bytes lines parse
format fmt write write_str write_all flush read read_to_string next peekable enumerate zip filter
filter_map flat_map fold any all find position count sum max min rev take skip chain sort sort_by
sort_by_key dedup retain keys values lock borrow borrow_mut take replace swap set as_any downcast_ref
with_capacity capacity reserve truncate drain sort_unstable binary_search windows chunks to_lowercase
to_uppercase eq ne cmp partial_cmp hash await poll send recv spawn then unwrap_err expect_err
field finish debug_struct debug_tuple debug_list debug_map debug_set entries entry key value write_fmt
""".split())


@dataclass(slots=True)
class _Scope:
    """What a byte range of the file means for naming and resolution."""

    end: int
    kind: str  # file | mod | type | trait | impl | fn | const
    module: tuple[str, ...]  # the Rust module (full qn segments) the scope lives in
    prefix: tuple[str, ...]  # qn segments for items nested here
    source_qn: str  # the symbol that owns code written here
    source_sig: str
    owner: str | None = None  # `Self` (impl type or trait) qualified name
    generics: dict[str, list[TSNode]] = field(default_factory=dict)
    locals: dict[str, tuple[list[str], str]] = field(default_factory=dict)  # var -> (owner qns, how)
    is_test: bool = False


@dataclass(slots=True)
class _Alt:
    """One reading of a path: full qn segments, the resolution label, and whether it
    lies in this crate (so files can be guessed) or is external (no name fallback)."""

    segs: tuple[str, ...]
    how: str
    local: bool
    external: bool = False
    # `use mycrate::x` from tests/ or examples/: the first segment may be this
    # package's own name, so the rest is also tried inside this crate.
    own_crate: tuple[str, ...] | None = None
    guess: bool = False  # nothing in scope names it: only a plausible reading


_VERSION = re.compile(r"-\d+\.\d+(\.\d+)?([-+.][\w.]*)?$")


class _Layout:
    """Where a file sits in its crate: crate prefix, module path, `mod x;` directory."""

    def __init__(self, path: str) -> None:
        parts = path.split("/")
        dirs = parts[:-1]
        stem = parts[-1][:-3] if parts[-1].endswith(".rs") else parts[-1]
        if "src" in dirs:
            i = len(dirs) - 1 - dirs[::-1].index("src")
            crate_dir, rel = dirs[:i], dirs[i + 1:]
            self.src_dir = "/".join(dirs[: i + 1])
            root_file = not rel and stem in ("lib", "main")
            bin_root = rel == ["bin"]
        else:
            # tests/, examples/, benches/, build.rs: each file is its own crate root.
            k = next((j for j, d in enumerate(dirs) if d in ("tests", "examples", "benches")), None)
            crate_dir = dirs[:k] if k is not None else dirs
            rel = dirs[k:] if k is not None else []
            self.src_dir = "/".join(crate_dir + ["src"]) if crate_dir else "src"
            root_file = False
            bin_root = k is not None and len(rel) == 1
        # a crate directory is named after the crate, perhaps with its version
        # (`serde-1.0.210` in cargo's registry): `use serde::x` names it
        self.prefix: tuple[str, ...] = (_VERSION.sub("", crate_dir[-1]).replace("-", "_"),) if crate_dir else ()
        segs = list(rel) + ([] if root_file or stem == "mod" else [stem])
        self.module: tuple[str, ...] = self.prefix + tuple(s.replace("-", "_") for s in segs)
        self.is_root = root_file or bin_root or path.endswith("build.rs") and not rel
        here = "/".join(dirs)
        self.mod_dir = here if (self.is_root or stem == "mod") else (f"{here}/{stem}" if here else stem)

    def files_for(self, segs: tuple[str, ...]) -> list[str]:
        """Candidate files of module ``segs`` (full qn segments of this crate)."""
        rel = segs[len(self.prefix):]
        base = self.src_dir
        if not rel:
            return [f"{base}/lib.rs", f"{base}/main.rs"]
        p = "/".join(rel)
        return [f"{base}/{p}.rs", f"{base}/{p}/mod.rs"]


def module_qn(segs: tuple[str, ...]) -> str:
    return "::".join(segs) if segs else "crate"
