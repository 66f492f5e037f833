"""How the ``codegraph`` command says a failure: one readable line per problem on stderr,
exit code 2 (bad input, not found, usage) or 3 (a store did not answer), never a traceback;
with ``--json`` also one JSON error object on stdout (docs/hardening.md, "CLI errors").

``OneLineTyper`` handles usage errors (click's parsing), ``run`` the failures of a command
body, both through ``fail``. ``run`` also refuses an unknown ``--repo`` of a ``RepoOpt``
(``REPO_HELP``) before the body runs.
"""

from __future__ import annotations

import contextlib
import errno
import json
import sys
from typing import TYPE_CHECKING, Any

import typer

from codegraph.cli_console import LazyConsole, esc
from codegraph.core.errors import CodegraphError, StoreUnavailable

if TYPE_CHECKING:
    from codegraph.core.stores import Stores

# Built (and rich imported) at the first print: --help and --json answers never need rich.
err = LazyConsole(stderr=True)
# The help of RepoOpt (codegraph.cli): a --repo that limits the answer to an indexed repository.
REPO_HELP = "Limit to one indexed repository (by name)."


class OneLineTyper(typer.Typer):
    """A Typer app whose usage errors (unknown option, bad option value) are one line
    ``error: <what> (see `codegraph CMD --help`)`` with exit code 2, not click's box."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:  # typer >= 0.16 ships its own copy of click
            from typer._click import exceptions as cx
        except ImportError:  # pragma: no cover - older typer on plain click
            from click import exceptions as cx  # type: ignore[no-redef]

        argv = kwargs.get("args")
        argv = list(sys.argv[1:] if argv is None else argv)
        # Before parsing, --json is only known from the words given (up to a `--`).
        json_wanted = "--json" in argv[:argv.index("--")] if "--" in argv else "--json" in argv
        try:
            rc = super().__call__(*args, standalone_mode=False, **kwargs)
        except cx.NoArgsIsHelpError as e:  # bare `codegraph`: the help, as before
            e.show()
            sys.exit(2)
        except cx.UsageError as e:
            names, c = [], e.ctx
            while c is not None and c.parent is not None:  # "codegraph ..." however it was started
                names.append(c.info_name or "")
                c = c.parent
            where = " ".join(["codegraph", *reversed(names)])
            msg = " ".join(e.format_message().split())
            rc = fail([f"{msg} (see `{where} --help`)"], 2, "usage", json_wanted).exit_code
        except cx.ClickException as e:
            rc = fail([" ".join(e.format_message().split())], 2, "usage", json_wanted).exit_code
        except typer.Abort:  # end of input outside a command body (typer's copy of click raises typer's Abort)
            rc = fail(["interrupted (end of input)"], 2, "interrupted", json_wanted).exit_code
        sys.exit(rc if isinstance(rc, int) else 0)


def fail(lines: list[str], code: int, kind: str, as_json: bool) -> typer.Exit:
    """Say a failure: each of ``lines`` as ``error: <line>`` on stderr (one line each, never
    wrapped) and, when the command was asked for ``--json``, one JSON object on stdout,
    ``{"error": {"message": <the lines joined by "; ">, "kind": <kind>, "exit_code": <code>}}``
    (plus ``"lines"`` when there are several), so a script reading stdout sees the error too.
    Returns the ``typer.Exit(code)`` to raise. ``kind``: usage, bad_input, not_found, refused,
    unsupported, store_unavailable, store_failed, disk_full, os_error, interrupted, internal
    (docs/hardening.md, "CLI errors")."""
    for line in lines:
        err.print(f"[red]error:[/red] {esc(line)}", highlight=False, soft_wrap=True)
    if as_json:
        body: dict[str, Any] = {"message": "; ".join(lines), "kind": kind, "exit_code": code}
        if len(lines) > 1:
            body["lines"] = lines
        with contextlib.suppress(OSError, ValueError):  # stdout gone (a closed pipe, a full disk)
            sys.stdout.write(json.dumps({"error": body}, ensure_ascii=False) + "\n")
            sys.stdout.flush()
    return typer.Exit(code)


def _command_context() -> Any:
    """The click context of the command being run, or None outside one."""
    try:
        from typer._click.globals import get_current_context
    except ImportError:  # pragma: no cover - older typer on plain click
        from click import get_current_context  # type: ignore[no-redef]

    return get_current_context(silent=True)


def _json_requested() -> bool:
    """True when the command being run has a ``--json`` option and it was given."""
    ctx = _command_context()
    return ctx is not None and any("--json" in p.opts and bool(ctx.params.get(p.name or "")) for p in ctx.command.params)


def _known_scope(stores: Stores) -> None:
    """BadInput (one line naming the known ones) when the command's ``--repo``, a ``RepoOpt``
    (a repository to limit the answer to), names no indexed repository: `verify --repo typo`
    said "ok", `triage list --repo typo` printed an empty table. Options that name a new
    repository (``index --repo``, ``load --repo``) have their own help and are not checked."""
    ctx = _command_context()
    if ctx is None or not ctx.params.get("repo"):
        return
    if any(p.name == "repo" and getattr(p, "help", None) == REPO_HELP for p in ctx.command.params):
        from codegraph.core.targets import known_repo

        known_repo(stores.graph, ctx.params["repo"])


def run(fn: Any) -> None:
    """Run a command body with one Stores session (opened lazily, closed once). Every
    failure is one readable line on stderr (several lines only for several problems, e.g.
    a config with two bad values), never a traceback; with ``--json`` also a JSON error
    object on stdout (``fail``).

    Exit 3: a store did not answer or failed (server down, embedded database full or
    corrupt). Exit 2: everything else - bad input, not found, refused queries, a disk
    full while writing output, and (last resort) an unexpected error, named as a bug;
    CODEGRAPH_DEBUG=1 re-raises it with its traceback. docs/hardening.md, "CLI errors".
    """
    import os
    import sqlite3

    from codegraph.core.errors import ReadOnlyViolation, TargetNotFound, Unsupported
    from codegraph.core.settings import load_settings
    from codegraph.core.stores import Stores

    ctx: Stores | None = None
    try:
        ctx = Stores(load_settings())  # inside: a bad CODEGRAPH_* value is one line too
        _known_scope(ctx)
        fn(ctx)
    except StoreUnavailable as e:
        raise fail([str(e)], 3, "store_unavailable", _json_requested()) from None
    except CodegraphError as e:
        kind = ("not_found" if isinstance(e, TargetNotFound) else "refused" if isinstance(e, ReadOnlyViolation)
                else "unsupported" if isinstance(e, Unsupported) else "bad_input")
        raise fail(str(e).splitlines() or [type(e).__name__], 2, kind, _json_requested()) from None
    except sqlite3.Error as e:
        hint = ("disk full, a file-size limit or a bad disk: free space and retry; what was stored before "
                "is kept") if "full" in str(e) or "I/O" in str(e) else "check the file"
        home = ctx.settings.home if ctx is not None else "CODEGRAPH_HOME"
        raise fail([f"the embedded store under {home} failed: {e} ({hint})"], 3, "store_failed",
                   _json_requested()) from None
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
            raise fail([f"disk full: {e.strerror} ({e.filename or 'while writing'})"], 2, "disk_full",
                       _json_requested()) from None
        raise fail([f"{e.strerror or e}: {e.filename}" if e.filename else str(e) or type(e).__name__], 2,
                   "os_error", _json_requested()) from None
    except typer.Exit:
        raise
    except KeyboardInterrupt:
        raise fail(["interrupted"], 2, "interrupted", _json_requested()) from None
    except Exception as e:  # noqa: BLE001 - the last line of defence: a bug, said in one line
        if os.environ.get("CODEGRAPH_DEBUG") == "1":
            raise
        msg = " ".join(str(e).split())[:300]
        raise fail([f"internal error (a bug, please report it): {type(e).__name__}: {msg}; "
                    "CODEGRAPH_DEBUG=1 shows the traceback"], 2, "internal", _json_requested()) from None
    finally:
        if ctx is not None:
            with contextlib.suppress(Exception):  # closing a dead store must not replace the real error
                ctx.close()
