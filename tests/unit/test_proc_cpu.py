"""codegraph.core.proc_cpu on a fake /proc tree: fields counted after the name's last ')'."""

from __future__ import annotations

import os
from pathlib import Path

from codegraph.core.proc_cpu import process_cpu, thread_cpu


def _stat(pid: int, name: str, utime: int, stime: int) -> str:
    return f"{pid} ({name}) " + " ".join(["S"] + ["0"] * 10 + [str(utime), str(stime)] + ["0"] * 30) + "\n"


def test_process_and_thread_cpu_read_user_plus_system_ticks(tmp_path: Path) -> None:
    tick = os.sysconf("SC_CLK_TCK")
    (tmp_path / "7").mkdir()
    (tmp_path / "7" / "stat").write_text(_stat(7, "java (x) y", 3 * tick, tick))  # a name holding ") "
    for tid, name, u in ((7, "java", tick), (8, "C2 CompilerThre", 2 * tick)):
        d = tmp_path / "7" / "task" / str(tid)
        d.mkdir(parents=True)
        (d / "stat").write_text(_stat(tid, name, u, 0))
    (tmp_path / "7" / "task" / "9").mkdir()  # a thread that ended while it was read
    assert process_cpu("7", tmp_path) == 4.0
    assert sorted(thread_cpu("7", tmp_path)) == [("C2 CompilerThre", 2.0), ("java", 1.0)]
    assert process_cpu("", tmp_path) == 0.0 and thread_cpu("", tmp_path) == []
    assert process_cpu("8", tmp_path) == 0.0 and thread_cpu("8", tmp_path) == []
    (tmp_path / "5").mkdir()
    (tmp_path / "5" / "stat").write_text("5 (short) S 0\n")
    assert process_cpu("5", tmp_path) == 0.0
