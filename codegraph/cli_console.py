"""Rich consoles for the CLI that never hard-wrap when the output is not a terminal.

Rich wraps every line at 80 columns when it cannot ask a terminal for its width, which
splits error lines and table cells of logs, pipes and CI output mid-phrase (and long
temp paths across lines). When a stream is not a terminal the console gets an unbounded
width and soft wrapping: each printed line stays one line, tables keep full paths.
On a terminal nothing changes (the terminal's width, rich's own folding).

Rich itself is imported on first use (``LazyConsole``, ``rich_table``, ``esc``): ``codegraph
--help`` and ``--json`` answers print nothing through rich, and importing it costs about a
third of the CLI's start-up (docs/DESIGN.md#cli-start-up).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

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
    """A Console on stdout (or stderr) that soft-wraps and has no width limit off a terminal.

    Without colours (off a terminal) automatic highlighting is switched off: its
    styles would not be printed, and its first use compiles rich's repr regexes (about 10 ms
    of a ``codegraph callers`` run)."""
    from rich.console import Console
    from rich.highlighter import NullHighlighter

    c = Console(stderr=stderr) if is_terminal(stderr) else Console(stderr=stderr, width=UNBOUNDED_WIDTH, soft_wrap=True)
    if c.color_system is None:
        c.highlighter = NullHighlighter()
    return c


class LazyConsole:
    """Stands for ``make_console(stderr)``, built (and rich imported) at the first attribute
    used: ``console.print(...)`` works as on a Console. Rich objects that take a console
    argument get ``.real`` (the Console itself)."""

    def __init__(self, stderr: bool = False) -> None:
        self._stderr = stderr
        self._console: Console | None = None

    @property
    def real(self) -> Console:
        if self._console is None:
            self._console = make_console(self._stderr)
        return self._console

    def __getattr__(self, name: str) -> Any:  # only called for names the proxy lacks
        return getattr(self.real, name)


def rich_table(*args: Any, **kwargs: Any) -> Table:
    """``rich.table.Table(*args, **kwargs)``, importing rich.table on first use."""
    from rich.table import Table

    return Table(*args, **kwargs)


def esc(text: str) -> str:
    """``rich.markup.escape``: ``text`` with its ``[`` markup openers escaped."""
    from rich.markup import escape

    return escape(text)
