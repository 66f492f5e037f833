"""The lock file used by `make install` covers pyproject.toml (scripts/lock_check.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("lock_check", ROOT / "scripts" / "lock_check.py")
assert _spec and _spec.loader
lock_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lock_check)


def test_lock_satisfies_pyproject() -> None:
    assert lock_check.problems(ROOT / "pyproject.toml", ROOT / "requirements.lock") == []


def test_lock_pins_every_package_with_hashes() -> None:
    text = (ROOT / "requirements.lock").read_text()
    pins = [ln for ln in text.splitlines() if "==" in ln and not ln.startswith((" ", "#"))]
    assert len(pins) > 50
    assert all(ln.rstrip().endswith("\\") for ln in pins)  # each pin is followed by its --hash lines


def test_a_new_dependency_missing_from_the_lock_is_named(tmp_path: Path) -> None:
    py = tmp_path / "pyproject.toml"
    py.write_text('[project]\nname = "x"\ndependencies = ["rich>=1", "not-locked-pkg>=1", "typer>=999"]\n')
    lock = tmp_path / "requirements.lock"
    lock.write_text("rich==15.0.0 \\\n    --hash=sha256:00\ntyper==0.29.2 \\\n    --hash=sha256:00\n"
                    "colorama==0.4.6 ; sys_platform == 'win32' \\\n    --hash=sha256:00\n")
    assert lock_check.problems(py, lock) == [
        "not-locked-pkg: in pyproject.toml but not in requirements.lock",
        "typer: requirements.lock pins 0.29.2, pyproject.toml wants >=999",
    ]
