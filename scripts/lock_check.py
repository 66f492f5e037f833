"""Does requirements.lock still satisfy pyproject.toml? (the reproducible install, see README)

Every dependency of the project and of its ``dev`` extra must have a pin in the lock whose
version meets the pyproject specifier (for this Python and platform). Prints one line per
problem and exits 1, or prints one ``ok`` line. Fix with ``make lock``.

Usage: python scripts/lock_check.py [pyproject.toml] [requirements.lock]
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")


def lock_pins(text: str) -> dict[str, str]:
    """name -> version for the lock's pins that apply here (markers evaluated)."""
    pins: dict[str, str] = {}
    for line in text.splitlines():
        m = PIN.match(line.strip())
        if m and (not m.group(3) or Marker(m.group(3)).evaluate()):
            pins[canonicalize_name(m.group(1))] = m.group(2)
    return pins


def problems(pyproject: Path, lock: Path) -> list[str]:
    """One readable line per dependency the lock does not satisfy."""
    project = tomllib.loads(pyproject.read_text())["project"]
    reqs = [*project.get("dependencies", []), *project.get("optional-dependencies", {}).get("dev", [])]
    pins = lock_pins(lock.read_text())
    out = []
    for raw in reqs:
        req = Requirement(raw)
        if req.marker and not req.marker.evaluate({"extra": "dev"}):
            continue
        have = pins.get(canonicalize_name(req.name))
        if have is None:
            out.append(f"{req.name}: in {pyproject.name} but not in {lock.name}")
        elif not req.specifier.contains(Version(have), prereleases=True):
            out.append(f"{req.name}: {lock.name} pins {have}, {pyproject.name} wants {req.specifier}")
    return out


def main(argv: list[str]) -> int:
    pyproject = Path(argv[1]) if len(argv) > 1 else ROOT / "pyproject.toml"
    lock = Path(argv[2]) if len(argv) > 2 else ROOT / "requirements.lock"
    bad = problems(pyproject, lock)
    for line in bad:
        print(f"lock out of date: {line} (run `make lock`)")
    if not bad:
        print(f"{lock.name} satisfies {pyproject.name}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
