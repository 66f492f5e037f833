"""Real Python sources for tests and benches: PyPI sdists fetched with pip at run time,
cached under ``.cache/sdists`` (git-ignored; ``CODEGRAPH_SDIST_CACHE`` moves it) and
unpacked once. Nothing fetched is ever committed."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cache_dir() -> Path:
    return Path(os.environ.get("CODEGRAPH_SDIST_CACHE") or ROOT / ".cache" / "sdists")


def _unpacked(archive: Path, into: Path) -> Path | None:
    """The single top folder of an sdist archive, unpacked below ``into`` (safe paths only)."""
    if archive.name.endswith((".tar.gz", ".tgz")):
        with tarfile.open(archive) as tf:
            members = [m for m in tf.getmembers() if not m.name.startswith("/") and ".." not in Path(m.name).parts]
            tops = {Path(m.name).parts[0] for m in members if Path(m.name).parts}
            top = into / sorted(tops)[0]
            if not top.is_dir():
                tf.extractall(into, members=members, filter="data")
            return top
    if archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as zf:
            names = [n for n in zf.namelist() if not n.startswith("/") and ".." not in Path(n).parts]
            top = into / sorted({Path(n).parts[0] for n in names})[0]
            if not top.is_dir():
                zf.extractall(into, members=names)
            return top
    return None


def fetch_sdists(pins: dict[str, str]) -> tuple[dict[str, Path], str]:
    """``{"flask": "3.0.3", ...}`` -> ({name: unpacked source folder}, problem). The
    problem is "" when every sdist is there; otherwise one line saying what failed
    (registry unreachable, package without an sdist), and the dict has what could be had."""
    cache = cache_dir()
    archives, src = cache / "archives", cache / "src"
    archives.mkdir(parents=True, exist_ok=True)
    src.mkdir(parents=True, exist_ok=True)

    def find(name: str, version: str) -> Path | None:
        norm = name.lower().replace("-", "_")
        for p in archives.iterdir():
            stem = p.name.lower().replace("-", "_")
            if stem.startswith(f"{norm}_{version}.") or stem.startswith(f"{norm}_{version}_"):
                return p
        return None

    missing = [f"{n}=={v}" for n, v in pins.items() if find(n, v) is None]
    problem = ""
    if missing:
        # --no-binary for the wanted packages only: with ':all:' pip also builds every build
        # backend of every sdist from source (Cython extensions with gcc) just to read metadata.
        no_binary = ",".join(sorted({m.split("==")[0] for m in missing}))
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", no_binary, "-q",
               "--disable-pip-version-check", "-d", str(archives), *missing]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
            if r.returncode != 0:
                tail = (r.stderr.strip().splitlines() or ["pip failed"])[-1]
                problem = f"pip download of {len(missing)} sdist(s) failed: {tail}"
        except (OSError, subprocess.TimeoutExpired) as e:
            problem = f"pip download failed: {e}"
    out: dict[str, Path] = {}
    for n, v in pins.items():
        a = find(n, v)
        top = _unpacked(a, src) if a is not None else None
        if top is not None:
            out[n] = top
        elif not problem:
            problem = f"no sdist of {n}=={v} in {archives}"
    return out, problem
