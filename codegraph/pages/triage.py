"""Triage: the unresolved-symbol stubs, most referenced first. For one stub: its call
sites and the candidate targets with their source, and one-click decisions (resolve to
a symbol, external library, ignore) on every call site, a calling file, a folder or
chosen call sites (codegraph.core.triage_scope); decisions by pattern in bulk; the
decision log with undo. Decisions live in the graph and every index run re-applies them
(codegraph.core.triage)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

import streamlit as st

from codegraph.core import triage
from codegraph.core.errors import CodegraphError
from codegraph.core.models import STUB, Node
from codegraph.core.triage_scope import Scope
from codegraph.dashboard.common import (
    current_repo,
    current_scope,
    empty_state,
    graph_store,
    one_line,
    persistent,
    remember,
    run_page,
)
from codegraph.dashboard.source import code_language, read_snippet
from codegraph.dashboard.triage_view import CONFIRM_ABOVE, builtin_verdict, preview, rank

log = logging.getLogger("codegraph.dashboard")
FLASH = "triage_flash"
PENDING = "triage_pending"  # a decision waiting for its confirmation
SITES_SHOWN = 8
CANDIDATES_SHOWN = 8
ALL_SITES = 5000  # call sites read for the ranking, the verdict and the preview
SCOPES = ("every call site", "a calling file", "a folder", "chosen call sites")
SCOPE_KEYS = ("triage_scope", "triage_scope_file", "triage_scope_folder", "triage_scope_sites")


# ---------------------------------------------------------------------------- actions (button callbacks)
def _act(what: Callable[..., triage.TriageDecision], *args: Any, **kw: Any) -> None:
    """Run a decision before the page is drawn again; the outcome is one line on top.
    ``scope`` (JSON, codegraph.core.triage_scope) limits it to some call sites."""
    if "scope" in kw:
        kw["scope"] = Scope.from_json(kw["scope"])
    try:
        d = what(graph_store(), *args, by=st.session_state.get("triage_by") or None, **kw)
    except CodegraphError as e:
        st.session_state[FLASH] = ("error", one_line(e))
        return
    except Exception as e:  # the page must stay usable; the traceback goes to the log
        log.exception("triage action failed")
        st.session_state[FLASH] = ("error", one_line(e, "CODEGRAPH_GRAPH"))
        return
    verb = {"resolve": f"resolved to `{d.symbol_qualified_name}`", "external": f"marked external ({d.library})",
            "ignore": "ignored"}[d.action]
    where = "" if d.scope.everything else f" on {d.scope.label()}"
    st.session_state.pop("triage_undo_pick", None)  # undo preselects the latest decision again
    if d.undone_at:
        st.session_state[FLASH] = ("success", f"Undone: `{d.key}`{where} ({d.action}); {len(d.targets)} stub(s) and "
                                   "their call sites are back.")
    else:
        st.session_state[FLASH] = ("success", f"`{d.key}`{where} {verb}: {len(d.targets)} stub(s), {d.call_sites} "
                                   "call site(s). Re-index keeps it; undo it in the decision log.")


def _needs_confirm(kind: str, args: tuple[Any, ...], sites: int, what: str, scope: str) -> bool:
    """A decision touching more than CONFIRM_ABOVE call sites (of its scope) waits for a
    confirmation: keep it pending (shown with its preview on top of the stub) and say so."""
    if sites <= CONFIRM_ABOVE:
        return False
    label = Scope.from_json(scope).label()
    st.session_state[PENDING] = {"kind": kind, "args": args, "sites": sites, "scope": scope,
                                 "what": what + ("" if not scope else f" on {label}")}
    return True


def _confirm() -> None:
    p = st.session_state.pop(PENDING, None)
    if p:
        {"resolve": _resolve, "external": _external, "ignore": _ignore}[p["kind"]](*p["args"], sites=0,
                                                                                 scope=p["scope"])


def _cancel() -> None:
    st.session_state.pop(PENDING, None)
    st.session_state[FLASH] = ("success", "Cancelled: nothing was changed.")


def _resolve(repo: str, target: str, symbol_uid: str, sites: int = 0, scope: str = "") -> None:
    if _needs_confirm("resolve", (repo, target, symbol_uid), sites, f"resolve `{target}` to the chosen symbol", scope):
        return
    _act(triage.resolve, repo, target, symbol_uid, note=st.session_state.get("triage_note", ""), scope=scope)


def _resolve_named(repo: str, target: str, sites: int = 0, scope: str = "") -> None:
    text = str(st.session_state.get("triage_other_symbol", "")).strip()
    try:
        sym = triage.find_symbol(graph_store(), text, repo)
    except CodegraphError as e:
        st.session_state[FLASH] = ("error", one_line(e))
        return
    _resolve(repo, target, sym.uid, sites, scope)


def _external(repo: str, key: str, library: str, sites: int = 0, scope: str = "") -> None:
    if _needs_confirm("external", (repo, key, library), sites, f"mark `{key}` external ({library})", scope):
        return
    _act(triage.mark_external, repo, key, library, note=st.session_state.get("triage_note", ""), scope=scope)


def _external_typed(repo: str, key: str, sites: int = 0, scope: str = "") -> None:
    _external(repo, key, str(st.session_state.get("triage_library", "")), sites, scope)


def _ignore(repo: str, key: str, sites: int = 0, scope: str = "") -> None:
    if _needs_confirm("ignore", (repo, key), sites, f"ignore `{key}`", scope):
        return
    _act(triage.ignore, repo, key, note=st.session_state.get("triage_note", ""), scope=scope)


def _bulk(repo: str) -> None:
    pattern = str(st.session_state.get("triage_pattern", "")).strip()
    note = str(st.session_state.get("triage_bulk_note", ""))
    if st.session_state.get("triage_bulk_action") == "external":
        _act(triage.mark_external, repo, pattern, str(st.session_state.get("triage_bulk_library", "")), note=note)
    else:
        _act(triage.ignore, repo, pattern, note=note)


def _undo(repo: str, key: str, uid: str) -> None:
    def run(graph: Any, repo: str, key: str, by: str | None = None) -> triage.TriageDecision:
        return triage.undo(graph, repo, key, by=by, uid=uid)

    _act(run, repo, key)


# ---------------------------------------------------------------------------- drawing
def _roots(store: Any) -> dict[str, str | None]:
    return {str(r.props.get("name")): r.props.get("path") for r in store.repos()}


def _flash() -> None:
    msg = st.session_state.pop(FLASH, None)
    if msg:
        kind, text = msg
        (st.error if kind == "error" else st.success)(text, icon=":material/error:" if kind == "error"
                                                      else ":material/check_circle:")


def _call_sites(store: Any, stub: Node, refs: int, roots: dict[str, str | None]) -> None:
    sites = triage.call_sites(store, [stub.uid], SITES_SHOWN).get(stub.uid, [])
    st.markdown(f"**Call sites** ({refs})")
    if not sites:
        st.caption("No edge points at this stub any more.")
    for s in sites:
        st.caption(f"`{s.file}:{s.line}` · {s.edge_type} from `{s.source}` ({s.kind})")
        snip = read_snippet(roots.get(s.repo), s.file, s.line, s.line, context=2, mark=s.line)
        if snip.text:
            st.code(snip.text, language=code_language(s.language))
        else:
            st.caption(snip.note)
    if refs > len(sites):
        st.caption(f"… and {refs - len(sites)} more (`codegraph triage show {stub.props.get('target_identifier')}`).")


def _pending(target: str, all_sites: list[triage.CallSite]) -> None:
    """The confirmation panel of a decision touching more than CONFIRM_ABOVE call sites
    (dropped when the person moved on to another stub)."""
    p = st.session_state.get(PENDING)
    if not p:
        return
    if p["args"][1] != target:
        st.session_state.pop(PENDING, None)
        return
    pv = preview(Scope.from_json(p["scope"]).select(all_sites))
    with st.container(border=True, key="triage_confirm_box"):
        st.warning(f"Confirm: {p['what']}? It touches **{p['sites']} call sites** (more than {CONFIRM_ABOVE}) "
                   f"from **{pv.callers} calling symbol(s)** in {pv.files} file(s): the impact answers of those "
                   f"{pv.callers} callers change (and of the symbol they are resolved to, if any). Undo stays "
                   "possible in the decision log.", icon=":material/warning:")
        c1, c2, _ = st.columns([2, 2, 6])
        c1.button("Confirm", key="triage_confirm", type="primary", on_click=_confirm, icon=":material/check:",
                  shortcut="Enter")
        c2.button("Cancel", key="triage_cancel", on_click=_cancel, shortcut="Esc")


def _candidates(store: Any, stub: Node, roots: dict[str, str | None], all_sites: list[triage.CallSite],
                scope: Scope) -> None:
    """Candidates and decision buttons; every decision acts on the call sites of ``scope``
    (their count decides whether it asks for a confirmation)."""
    repo, target = stub.repo, str(stub.props.get("target_identifier", ""))
    refs, sj = len(scope.select(all_sites)), scope.to_json()
    verdict = builtin_verdict(target, all_sites)
    if verdict:
        st.info(f"**Verdict: builtin / standard library.** {verdict}", icon=":material/lightbulb:")
        st.button("Builtin: mark external (builtins)", key="triage_builtin", type="primary", shortcut="B",
                  icon=":material/extension:", on_click=_external, args=(repo, target, "builtins", refs, sj))
    cands = triage.candidates(store, stub)
    chosen = scope.select(all_sites)
    ranked = rank(store, cands.symbols, chosen or all_sites, repo, target=target, root=roots.get(repo))
    st.markdown(f"**Candidates** ({len(ranked)}), best evidence first")
    if not ranked:
        st.caption("No symbol of that name in any indexed repository.")
    for i, r in enumerate(ranked[:CANDIDATES_SHOWN]):
        c = r.candidate
        st.markdown(f"`{c.qualified_name}` · {c.kind} · `{c.file}:{c.line}` · {c.repo}  \n*{c.why}*; "
                    + "; ".join(r.reasons))
        snip = read_snippet(roots.get(c.repo), c.file, c.line, min(c.end_line or c.line, c.line + 7))
        if snip.text:
            st.code(snip.text, language=code_language(c.language))
        st.button("Resolve to this", key=f"triage_resolve_{i}", icon=":material/call_merge:",
                  on_click=_resolve, args=(repo, target, c.uid, refs, sj), shortcut="1" if i == 0 else None)
    if len(ranked) > CANDIDATES_SHOWN:
        st.caption(f"{len(ranked) - CANDIDATES_SHOWN} more candidate(s): name one below.")
    st.text_input("Resolve to another symbol (qualified name or uid)", key="triage_other_symbol")
    st.button("Resolve", key="triage_resolve_named", on_click=_resolve_named, args=(repo, target, refs, sj),
              disabled=not st.session_state.get("triage_other_symbol"))
    st.markdown("**Not in this code**")
    for i, lib in enumerate(cands.libraries):
        st.button(f"External: {lib.name}", key=f"triage_lib_{i}", help=lib.why, icon=":material/extension:",
                  on_click=_external, args=(repo, target, lib.name, refs, sj))
        st.caption(lib.why)
    c1, c2 = st.columns([3, 2])
    c1.text_input("Library", key="triage_library", placeholder="e.g. requests")
    c2.button("Mark external", key="triage_external", on_click=_external_typed, args=(repo, target, refs, sj),
              disabled=not st.session_state.get("triage_library"))
    st.button("Ignore this target", key="triage_ignore", icon=":material/visibility_off:", on_click=_ignore,
              shortcut="I",
              args=(repo, target, refs, sj), help="A test double, generated code...: no edge, no stub.")


def _step(uids: list[str], by: int) -> None:
    at = uids.index(st.session_state["triage_pick"]) if st.session_state.get("triage_pick") in uids else 0
    st.session_state["triage_pick"] = uids[(at + by) % len(uids)]
    st.session_state.pop(PENDING, None)
    for k in SCOPE_KEYS[1:]:  # a file or call site of the last stub means nothing for the next
        st.session_state.pop(k, None)


def _queue(uids: list[str]) -> None:
    """The keyboard-driven queue: J / K walk the stubs; on the stub, 1 resolves to the best
    candidate, B marks builtin, I ignores; Enter / Esc answer a confirmation; U (decision
    log) undoes the latest."""
    at = uids.index(st.session_state["triage_pick"]) + 1 if st.session_state.get("triage_pick") in uids else 1
    c = st.columns([2, 2, 8], vertical_alignment="center")
    c[0].button("Previous", key="triage_prev", shortcut="K", on_click=_step, args=(uids, -1),
                icon=":material/arrow_upward:", use_container_width=True)
    c[1].button("Next", key="triage_next", shortcut="J", on_click=_step, args=(uids, 1),
                icon=":material/arrow_downward:", use_container_width=True)
    c[2].caption(f"Stub {at} of {len(uids)} · keys: J / K next / previous, 1 resolve to the best candidate, "
                 "B builtin, I ignore, Enter / Esc confirm / cancel, U undo the latest (decision log)")


def _stub_rows(store: Any, repo: str | None, names: list[str] | None, limit: int, offset: int) -> list[Any]:
    """Stubs most referenced first, of one repo, of the workspace's repos (``names``: each
    repo's first offset+limit merged), or of all."""
    if repo or names is None:
        return triage.stub_rows(store, repo, limit=limit, offset=offset)
    rows = [row for r in names for row in triage.stub_rows(store, r, limit=limit + offset)]
    rows.sort(key=lambda x: (-x.references, x.target_identifier, x.repo))
    return rows[offset:offset + limit]


def _stubs_tab(store: Any, repo: str | None, roots: dict[str, str | None],
               names: list[str] | None = None) -> None:
    persistent("triage_limit", 50)
    c1, c2 = st.columns(2)
    limit = int(c1.number_input("Stubs to list", 10, 5000, step=50, key="triage_limit"))
    offset = int(c2.number_input("Skip", 0, 10_000_000, step=50, key="triage_offset"))
    remember("triage_limit")
    rows = _stub_rows(store, repo, names, limit, offset)
    if not rows:
        st.success("No unresolved symbol here." if not offset else "No more stubs.", icon=":material/check_circle:")
        return
    st.dataframe([{"references": r.references, "target": r.target_identifier, "reason": r.reason, "repo": r.repo,
                   "candidates": ", ".join(r.candidates[:5]) + (" …" if len(r.candidates) > 5 else "")}
                  for r in rows], hide_index=True, key="triage_stubs")
    by_uid = {r.uid: r for r in rows}
    if st.session_state.get("triage_pick") not in by_uid:
        st.session_state["triage_pick"] = rows[0].uid
    _queue([r.uid for r in rows])
    uid = st.selectbox("Stub to decide", list(by_uid), key="triage_pick",
                       format_func=lambda u: f"{by_uid[u].target_identifier} — {by_uid[u].reason}, "
                                             f"{by_uid[u].references} reference(s) ({by_uid[u].repo})")
    row = by_uid[uid]
    stub = store.get_nodes([uid]).get(uid)
    if stub is None:
        st.caption("This stub is gone (decided or re-indexed meanwhile).")
        return
    all_sites = triage.call_sites(store, [uid], ALL_SITES).get(uid, [])
    _pending(row.target_identifier, all_sites)
    scope = _scope_picker(all_sites)
    st.text_input("Note for the log (optional)", key="triage_note")
    left, right = st.columns(2)
    with left:
        _call_sites(store, stub, row.references, roots)
    with right:
        _candidates(store, stub, roots, all_sites, scope)


def _scope_picker(sites: list[triage.CallSite]) -> Scope:
    """Which call sites of the stub the decision buttons act on: every one, one calling
    file, one folder, or chosen call sites; says how many and what changes."""
    files = sorted({s.file for s in sites if s.file})
    folders = sorted({str(PurePosixPath(f).parent) for f in files} - {"."})
    if st.session_state.get("triage_scope") not in SCOPES:
        st.session_state["triage_scope"] = SCOPES[0]
    c1, c2 = st.columns([3, 5], vertical_alignment="bottom")
    kind = c1.radio("Decide for", SCOPES, key="triage_scope", horizontal=True)
    scope = Scope()
    if kind == SCOPES[1] and files:
        if st.session_state.get("triage_scope_file") not in files:
            st.session_state["triage_scope_file"] = files[0]
        scope = Scope.of(files=[c2.selectbox("Calling file", files, key="triage_scope_file")])
    elif kind == SCOPES[2] and folders:
        if st.session_state.get("triage_scope_folder") not in folders:
            st.session_state["triage_scope_folder"] = folders[0]
        scope = Scope.of(folders=[c2.selectbox("Folder (and below)", folders, key="triage_scope_folder")])
    elif kind == SCOPES[3]:
        by_key = {f"{s.file}:{s.line}|{s.source_uid}": s for s in sites}
        keep = [k for k in st.session_state.get("triage_scope_sites") or [] if k in by_key]
        st.session_state["triage_scope_sites"] = keep
        picked = c2.multiselect("Call sites", list(by_key), key="triage_scope_sites",
                                format_func=lambda k: f"{k.split('|')[0]} · {by_key[k].source}")
        scope = Scope.of(sites=[(by_key[k].file, by_key[k].line, by_key[k].source_uid) for k in picked])
        if not picked:
            st.caption("Choose the call sites above; until then the buttons act on every call site.")
    pv = preview(scope.select(sites))
    st.caption(f"Decisions below act on **{scope.label()}**: {pv.call_sites} call site(s) from {pv.callers} "
               f"calling symbol(s) in {pv.files} file(s), so {pv.callers} impact answer(s) change"
               + (f"; more than {CONFIRM_ABOVE} asks for a confirmation." if pv.call_sites > CONFIRM_ABOVE else "."))
    return scope


def _bulk_tab(store: Any, repo: str | None, names: list[str]) -> None:
    st.caption("An fnmatch pattern over target identifiers: `requests.*` (also covers `requests`), `*.mock_*`. "
               "It also applies to matching stubs that appear later.")
    target_repo = repo
    if target_repo is None:
        target_repo = st.selectbox("Repository", names, key="triage_bulk_repo")
    c1, c2, c3 = st.columns([3, 2, 2])
    pattern = c1.text_input("Pattern", key="triage_pattern", placeholder="requests.*")
    action = c2.radio("Decision", ["external", "ignore"], key="triage_bulk_action", horizontal=True)
    if action == "external":
        c3.text_input("Library", key="triage_bulk_library", placeholder="requests")
    st.text_input("Note for the log (optional)", key="triage_bulk_note")
    if not pattern.strip() or not target_repo:
        return
    matched = triage.preview(store, target_repo, pattern.strip())
    st.caption(f"{len(matched)} stub(s) of {target_repo} match now.")
    if matched:
        st.dataframe([{"target": n.props.get("target_identifier"), "reason": n.props.get("reason")}
                      for n in matched[:200]], hide_index=True, key="triage_bulk_preview")
    ready = action == "ignore" or bool(str(st.session_state.get("triage_bulk_library", "")).strip())
    st.button(f"Apply to {len(matched)} stub(s)", key="triage_bulk_apply", on_click=_bulk, args=(target_repo,),
              disabled=not ready, type="primary")


def _log_tab(store: Any, repo: str | None, names: list[str] | None = None) -> None:
    ds = [d for d in triage.decision_list(store, repo) if names is None or d.repo in names]
    if not ds:
        st.caption("No decision yet.")
        return
    st.dataframe([{"decided": d.decided_at[:19].replace("T", " "), "by": d.decided_by, "repo": d.repo,
                   "target / pattern": d.key, "action": d.action, "to / library": d.symbol_qualified_name or d.library,
                   "scope": d.scope.label(), "stubs": len(d.targets), "call sites": d.call_sites,
                   "status": d.status,
                   "undone": f"{d.undone_at[:19].replace('T', ' ')} by {d.undone_by}" if d.undone_at else "",
                   "note": d.note} for d in ds], hide_index=True, key="triage_log")
    if any(d.status == "stale" for d in ds):
        st.warning("A stale decision resolves to a symbol that is no longer in the graph: its call sites are a stub "
                   "again. Undo it and decide anew.", icon=":material/warning:")
    active = [d for d in ds if d.active]
    if not active:
        return
    # Latest first, and preselected: undo means "take back what I just did".
    active.sort(key=lambda d: d.decided_at, reverse=True)
    by_uid = {d.uid: d for d in active}
    if st.session_state.get("triage_undo_pick") not in by_uid:
        st.session_state["triage_undo_pick"] = active[0].uid
    pick = st.selectbox("Decision to undo (latest first)", list(by_uid), key="triage_undo_pick",
                        format_func=lambda u: f"{by_uid[u].key} — {by_uid[u].action}"
                                              + ("" if by_uid[u].scope.everything else f" on {by_uid[u].scope.label()}")
                                              + f" ({by_uid[u].repo}, {by_uid[u].decided_by}, "
                                                f"{by_uid[u].decided_at[:19]})")
    d = by_uid[pick]
    st.button("Undo", key="triage_undo", icon=":material/undo:", on_click=_undo, args=(d.repo, d.key, d.uid),
              shortcut="U")


def body() -> None:
    st.title("Triage")
    st.caption("Turn unresolved symbols into edges: most referenced first. Each decision applies at once, "
               "survives re-indexing and can be undone.")
    store = graph_store()
    roots = _roots(store)
    if not roots:
        empty_state()
        return
    repo = current_repo()
    scope = current_scope()  # a workspace: its repos (and a decision still acts on one repo)
    persistent("triage_by", triage.default_user())
    st.text_input("Decided by", key="triage_by", help="Recorded with every decision in the log.")
    remember("triage_by")
    names = [repo] if repo else sorted(r for r in roots if scope is None or r in scope)
    applied = {r: triage.apply_pending(store, r) for r in names}
    _flash()
    for r, ts in applied.items():
        if ts:
            st.info(f"Existing decisions applied to {len(ts)} new stub(s) in {r}: {', '.join(ts[:10])}",
                    icon=":material/auto_fix_high:")
    stubs = sum(store.counts(r)["nodes"].get(STUB, 0) for r in names)
    active = [d for d in triage.decision_list(store, repo, include_undone=False) if d.repo in names]
    m = st.columns(3)
    m[0].metric("Unresolved stubs", stubs)
    m[1].metric("Active decisions", len(active))
    m[2].metric("Call sites decided", sum(d.call_sites for d in active))
    tabs = st.tabs(["Stubs", "Bulk by pattern", "Decision log"])
    with tabs[0]:
        _stubs_tab(store, repo, roots, None if scope is None else names)
    with tabs[1]:
        _bulk_tab(store, repo, names)
    with tabs[2]:
        _log_tab(store, repo, None if scope is None else names)


run_page(body, what="The Triage page")
