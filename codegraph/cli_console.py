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

# Of a folding table column, in a terminal: below this a table is printed as records (print_rows).
FOLDED_MIN_WIDTH = 16
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


def add_columns(table: Table, names: tuple[str, ...] | list[str], locations: tuple[str, ...] = ()) -> None:
    """Add ``names`` as columns of ``table``: text columns fold, the ``locations`` among them
    (``file:line`` cells, short numbers) never wrap."""
    for name in names:
        if name in locations:
            table.add_column(name, no_wrap=True, overflow="ellipsis")
        else:
            table.add_column(name, overflow="fold")


def print_rows(console: Any, names: tuple[str, ...] | list[str], rows: list[list[str]], *, title: str | None = None,
               whole: tuple[str, ...] = (), own_lines: tuple[str, ...] = ()) -> None:
    """Print ``rows`` (cells already markup-escaped) under the column ``names``: a table when it
    fits the console with every word whole (the ``whole`` columns, ``file:line`` and short
    numbers, never wrap), else one record per row - its other cells on one line
    (``name: value``), then each of ``own_lines`` (``file:line``, long paths) on a line of its own.

    Why: inside a narrow terminal a table folds ``file:line`` over several lines (it can no longer
    be clicked or copied) or, kept whole, squeezes the other columns to nothing. Off a terminal
    the width is unbounded (``make_console``), so logs and pipes always get the table, one row a
    line."""
    from rich.text import Text

    real = getattr(console, "real", console)
    t = rich_table(title=title)
    add_columns(t, names, whole)
    for r in rows:
        t.add_row(*r)
    # The table fits when its whole columns keep their full width and every other column
    # gets FOLDED_MIN_WIDTH characters (or all it needs): 2 of padding per column, n + 1 borders.
    if real.width >= UNBOUNDED_WIDTH:  # not a terminal: every row fits on its line
        real.print(t)
        return
    widths = [max(Text.from_markup(str(v)).cell_len for v in [n, *(r[i] for r in rows)]) for i, n in enumerate(names)]
    need = sum((w if n in whole else min(w, FOLDED_MIN_WIDTH)) + 2 for n, w in zip(names, widths, strict=True))
    if need + len(names) + 1 <= real.width:
        real.print(t)
        return
    if title:
        real.print(f"[bold]{title}[/bold]", highlight=False, soft_wrap=True)
    apart = set(own_lines)
    for r in rows:
        cells = list(zip(names, r, strict=True))
        real.print("  ".join(f"{n}: {v}" for n, v in cells if n not in apart and v), highlight=False, soft_wrap=True)
        for n, v in cells:
            if n in apart and v:
                real.print(f"    {n}: {v}", highlight=False, soft_wrap=True)


def esc(text: str) -> str:
    """``rich.markup.escape``: ``text`` with its ``[`` markup openers escaped."""
    from rich.markup import escape

    return escape(text)
