"""Discovery's walk (one ``os.scandir`` per folder) lists what the ``os.walk`` walk it
replaced listed, in the same order, with the same skip counts; ``path_suffix`` is
pathlib's suffix; the index run's content phase reuses discovery's path list
(docs/DESIGN.md#search, content kinds)."""

from __future__ import annotations

import os
import sysconfig
from collections import Counter
from collections.abc import Callable
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.embedded_search import EmbeddedSearchIndex
from codegraph.indexer import content, discover
from codegraph.indexer.discover import _is_skip_dir, gitignore_spec
from codegraph.indexer.languages import path_suffix
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore


def _os_walk(root: Path, skipped: Counter[str], skipped_folders: list[str],
             many: tuple[int, Callable[[], None]] | None = None) -> list[str]:
    """The walk as it was written with ``os.walk`` (the reference)."""
    out: list[str] = []
    specs: list[tuple[str, object]] = []

    def unreadable_dir(_: OSError) -> None:
        skipped["unreadable folder"] += 1

    for dirpath, dirnames, filenames in os.walk(root, followlinks=False, onerror=unreadable_dir):
        rel_dir = os.path.relpath(dirpath, root)
        rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/")
        gi = Path(dirpath) / ".gitignore"
        if gi.is_file():
            specs.append((rel_dir, gitignore_spec(gi.read_text(encoding="utf-8", errors="replace").splitlines())))

        def ignored(rel: str, is_dir: bool) -> bool:
            for base, spec in specs:
                if base and not rel.startswith(base + "/"):
                    continue
                if spec.match_file((rel[len(base) + 1:] if base else rel) + ("/" if is_dir else "")):  # type: ignore[attr-defined]
                    return True
            return False

        keep = []
        for d in sorted(dirnames):
            rel = f"{rel_dir}/{d}" if rel_dir else d
            if _is_skip_dir(d):
                skipped["vendored or build folder"] += 1
                skipped_folders.append(rel + "/")
            elif os.path.islink(os.path.join(dirpath, d)):
                skipped["symlinked folder"] += 1
            elif ignored(rel, True):
                skipped["ignored by .gitignore"] += 1
            else:
                keep.append(d)
        dirnames[:] = keep
        for f in sorted(filenames):
            rel = f"{rel_dir}/{f}" if rel_dir else f
            if ignored(rel, False):
                skipped["ignored by .gitignore"] += 1
            else:
                out.append(rel)
        if many is not None and len(out) >= many[0]:
            many[1]()
            many = None
    return out


def _tree(root: Path) -> Path:
    files = ["top.py", "a/b/1.py", "a/b/2.log", "a/keep.log", "a/c/z.tmp", "a/c/y.py", "a/c/d/deep.py",
             "d/e/q.py", "d/r.py", "g/h.txt", "node_modules/x/i.js", "f.egg-info/PKG", "zz/last.py",
             "a/b/sub/more.py", "a/b/sub/more.log", "B/upper.py"]
    for f in files:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("x = 1\n")
    (root / ".gitignore").write_text("*.log\n/d/e/\n!keep.log\n")
    (root / "a" / ".gitignore").write_bytes(b"*.tmp\r\nb/sub/more.py\r\n")
    (root / "g" / ".gitignore").mkdir()  # a folder named .gitignore is no ignore file
    (root / "g" / "linkdir").symlink_to(root / "a")
    (root / "g" / "dangling").symlink_to(root / "nowhere")
    (root / "g" / "filelink").symlink_to(root / "top.py")
    return root


def _both(root: Path) -> None:
    runs = []
    for walk in (_os_walk, discover._walk):
        skipped: Counter[str] = Counter()
        folders: list[str] = []
        fired: list[int] = []
        out = walk(root, skipped, folders, (3, lambda out=fired, n=len(runs): out.append(n)))
        runs.append((out, skipped, folders, fired))
    (want, want_skipped, want_folders, fired_ref), (got, got_skipped, got_folders, fired) = runs
    assert got == want  # same paths, same order
    assert got_skipped == want_skipped
    assert got_folders == want_folders
    assert len(fired) == len(fired_ref) == 1


def test_the_walk_lists_what_os_walk_listed(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    _both(root)
    out = discover._walk(root, Counter(), [])
    assert "a/b/2.log" not in out and "a/keep.log" in out and "a/c/z.tmp" not in out
    assert "a/b/sub/more.py" not in out and "d/r.py" in out and "d/e/q.py" not in out
    assert "g/filelink" in out and "g/dangling" in out and not any(p.startswith("g/linkdir/") for p in out)


def test_the_walk_of_the_standard_library_is_unchanged() -> None:
    _both(Path(sysconfig.get_paths()["stdlib"]).resolve())


@given(st.text(alphabet="ab./ .-_Z", max_size=14))
def test_path_suffix_is_pathlibs(path: str) -> None:
    assert path_suffix(path) == PurePosixPath(path).suffix


def test_content_uses_discoverys_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "src"
    (src / "docs").mkdir(parents=True)
    (src / "docs" / "guide.md").write_text("# Orders\n\ntext\n\n## Refunds\n\nmore\n")
    (src / "schema.sql").write_text("CREATE TABLE orders (id INT, total INT);\n")
    for i in range(3):
        (src / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    assert discover.discover(src).paths == content.repo_paths(src)

    def no_listing(root: Path) -> list[str]:
        raise AssertionError("the content phase listed the tree again")

    monkeypatch.setattr(content, "repo_paths", no_listing)
    home = tmp_path / "home"
    g, s, state = EmbeddedGraphStore(home / "graph.db"), EmbeddedSearchIndex(home / "search.db"), StateStore(home / "state.db")
    try:
        out = index_repo(src, "r", g, s, state, workers=1)
    finally:
        g.close()
        s.close()
        state.close()
    assert out.content["chunks"] == {"schema": 1, "config": 0, "docs": 2}
