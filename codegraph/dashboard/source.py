"""Source lines for the dashboard, read from the repository's checkout on disk.

The graph stores file:line evidence, not text; the checkout path comes from the Repo
node. Reads stay inside that folder (no ``..`` escapes through stored paths) and are
capped, and every failure is a message, never an exception.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

MAX_BYTES = 2_000_000
MAX_LINES = 80

CODE_LANGUAGES = {
    "python": "python", "javascript": "javascript", "typescript": "typescript", "tsx": "tsx", "go": "go",
    "java": "java", "kotlin": "kotlin", "csharp": "csharp", "rust": "rust", "c": "c", "cpp": "cpp",
    "ruby": "ruby", "php": "php",
}


@dataclass(slots=True)
class Snippet:
    """``text`` holds the lines prefixed by their 1-based numbers; ``note`` says why
    ``text`` is empty or cut (missing checkout, file changed since indexing...)."""

    text: str
    first: int
    last: int
    note: str = ""


def read_snippet(root: str | Path | None, rel: str, start: int, end: int | None = None, context: int = 0,
                 max_lines: int = MAX_LINES, mark: int | None = None) -> Snippet:
    """Lines ``start - context`` .. ``end + context`` (1-based, inclusive) of ``root/rel``;
    line ``mark`` (the evidence) is flagged with a leading '>'."""
    if not root or not rel:
        return Snippet("", 0, 0, "no checkout path recorded for this repository")
    base = Path(root).resolve()
    path = (base / rel).resolve()
    if not path.is_relative_to(base):
        return Snippet("", 0, 0, f"{rel} points outside the checkout {base}")
    try:
        if path.stat().st_size > MAX_BYTES:
            return Snippet("", 0, 0, f"{rel} is larger than {MAX_BYTES // 1_000_000} MB; open it in an editor")
        lines = path.read_text("utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return Snippet("", 0, 0, f"{rel} is not on disk under {base} (moved or deleted since indexing?)")
    except OSError as e:
        return Snippet("", 0, 0, f"cannot read {rel}: {e.strerror or e}")
    if not lines:
        return Snippet("", 0, 0, f"{rel} is empty")
    end = max(end or start, start)
    first = max(1, start - context)
    last = min(len(lines), end + context)
    note = ""
    if start > len(lines):
        return Snippet("", 0, 0, f"{rel} has {len(lines)} lines now, fewer than line {start}: re-index it")
    if last - first + 1 > max_lines:
        last = first + max_lines - 1
        note = f"first {max_lines} lines shown"
    width = len(str(last))

    def flag(n: int) -> str:
        return ("> " if n == mark else "  ") if mark else ""

    text = "\n".join(f"{flag(n)}{n:>{width}}  {lines[n - 1]}" for n in range(first, last + 1))
    return Snippet(text, first, last, note)


def code_language(language: str | None) -> str:
    """The st.code highlighter name for a graph language (plain text if unknown)."""
    return CODE_LANGUAGES.get(language or "", "text")
