"""Rich consoles for the CLI that never hard-wrap when the output is not a terminal.

Rich wraps every line at 80 columns when it cannot ask a terminal for its width, which
splits error lines and table cells of logs, pipes and CI output mid-phrase (and long
temp paths across lines). When a stream is not a terminal the console gets an unbounded
width and soft wrapping: each printed line stays one line, tables keep full paths.
On a terminal nothing changes (the terminal's width, rich's own folding).
"""

from __future__ import annotations

import sys

from rich.console import Console

# Wide enough that no table row or message of ours reaches it; rich sizes tables to their
# content (expand=False), so this is a ceiling, not padding.
UNBOUNDED_WIDTH = 100_000


def is_terminal(stderr: bool = False) -> bool:
    """True when stdout (or stderr) is an interactive terminal."""
    stream = sys.stderr if stderr else sys.stdout
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed or replaced streams
        return False


def make_console(stderr: bool = False) -> Console:
    """A Console on stdout (or stderr) that soft-wraps and has no width limit off a terminal."""
    if is_terminal(stderr):
        return Console(stderr=stderr)
    return Console(stderr=stderr, width=UNBOUNDED_WIDTH, soft_wrap=True)
