"""CPU seconds of a local process and of each of its threads, read from Linux's
``/proc/<pid>/stat`` and ``/proc/<pid>/task/<tid>/stat`` (fields 14 and 15: user and system
clock ticks). The benchmarks and the local Neo4j warm-up use it to measure the servers they
talk to, whose CPU the client's own ``time.process_time`` does not see."""

from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")


def _stat_cpu(stat: str) -> tuple[str, float]:
    """(name, CPU seconds) of one ``stat`` text; the name sits in parentheses and may hold
    spaces, so the fields are counted after its closing one. Raises ValueError / IndexError
    on a text of another shape."""
    name = stat[stat.index("(") + 1:stat.rindex(")")]
    fields = stat.rsplit(")", 1)[1].split()
    return name, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_cpu(pid: str, proc: Path = PROC) -> float:
    """CPU seconds so far of process ``pid`` (all its threads); 0.0 when there is no pid or
    the process cannot be read."""
    if not pid:
        return 0.0
    try:
        return _stat_cpu((proc / pid / "stat").read_text())[1]
    except (OSError, ValueError, IndexError):
        return 0.0


def thread_cpu(pid: str, proc: Path = PROC) -> list[tuple[str, float]]:
    """(thread name, CPU seconds so far) of each thread of process ``pid``, in the order the
    kernel lists them; names are cut at 15 characters by the kernel. [] when there is no pid
    or the process cannot be read; a thread that ends while it is read is left out."""
    if not pid:
        return []
    try:
        tasks = list((proc / pid / "task").iterdir())
    except OSError:
        return []
    out = []
    for t in tasks:
        try:
            out.append(_stat_cpu((t / "stat").read_text()))
        except (OSError, ValueError, IndexError):
            continue
    return out


__all__ = ["process_cpu", "thread_cpu"]
