"""Re-check lists for pull requests: an ImpactResult as Markdown or CSV rows."""

from __future__ import annotations

import csv
import io

from codegraph.core.impact import ImpactResult
from codegraph.core.models import location


def _at(file: str, line: int) -> str:
    """``file:line``, or "no file" for nodes without a location (tables, endpoints)."""
    return location(file, line) or "no file"


def impact_markdown(res: ImpactResult) -> str:
    """Markdown with the snapshot's commit and age first, then pages, endpoints,
    consumers, tables, tests and callers (with file:line), then the caveat."""
    lines = [f"## Re-check list for `{res.query}` (depth {res.depth})", ""]
    for f in res.freshness:
        age = f"{f['age_hours']} h old" if f.get("age_hours") is not None else "age unknown"
        lines.append(f"_Graph of **{f['repo']}** at commit `{(f['commit'] or 'n/a')[:12]}`, "
                     f"imported {f['last_imported_at']} ({age})._")
    lines.append("")
    lines.append("Targets: " + ", ".join(f"`{t.qualified_name}` ({_at(t.file, t.line)})" for t in res.targets))
    lines.append("")
    sections = [("Pages", "page"), ("Endpoints", "endpoint"), ("Topic consumers", "consumer"), ("Tests", "test")]
    for title, kind in sections:
        items = [e for e in res.entry_points if e.kind == kind]
        lines.append(f"### {title} ({len(items)})")
        lines.extend(f"- [ ] `{e.node.qualified_name}` — {_at(e.node.file, e.node.line)} (depth {e.depth})"
                     for e in items)
        if not items:
            lines.append("- none found (no supported relationship found; not proof of no impact)")
        lines.append("")
    lines.append(f"### Tables ({len(res.tables)})")
    for t in res.tables:
        acc = "; ".join(f"{a['type']} by `{a['by']}` {a['file']}:{a['line']}" for a in t["access"][:5])
        lines.append(f"- [ ] `{t['table']}` — {acc}")
    if not res.tables:
        lines.append("- none found (no supported relationship found; not proof of no data access)")
    lines.append("")
    lines.append(f"### Callers ({res.shown_callers} shown of {res.total_callers})")
    owners = sorted({c.node.file for c in res.callers if c.node.file})
    for c in res.callers:
        lines.append(f"- depth {c.depth}: `{c.node.qualified_name}` — {c.evidence_file}:{c.evidence_line} "
                     f"({c.via}, {c.resolution})")
    lines.append("")
    lines.append(f"### Files to review ({len(owners)})")
    lines.extend(f"- {f}" for f in owners)
    if res.unresolved:
        lines.append("")
        lines.append("### Unresolved call sites that may also reach the target")
        lines.extend(f"- `{u.target_identifier}` ({u.reason}, {u.references} call sites)" for u in res.unresolved)
    lines += ["", f"> {res.notice}", ""]
    return "\n".join(lines)


def impact_csv(res: ImpactResult) -> str:
    """One row per caller and entry point: kind, qualified_name, file, line, depth, via."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["kind", "qualified_name", "file", "line", "depth", "via", "resolution"])
    for e in res.entry_points:
        w.writerow([e.kind, e.node.qualified_name, e.node.file, e.node.line, e.depth, "", ""])
    for t in res.tables:
        w.writerow(["table", t["table"], "", "", "", "", ""])
    for c in res.callers:
        w.writerow(["caller", c.node.qualified_name, c.evidence_file, c.evidence_line, c.depth, c.via, c.resolution])
    return buf.getvalue()
