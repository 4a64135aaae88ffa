"""The fusion report as one self-contained HTML page (no network, no script).

Summary tables per kind and per refusal reason, then per function every
formed cluster and every refused candidate: a table of its ops (with their
``file:line:col``) and its drawing (inline SVG from :mod:`.graph`; hover a
node for its location and source line). The markup is well-formed XML
(XHTML syntax), so the page can be checked with any XML parser.
"""

from __future__ import annotations

import collections
from html import escape

from hilo_mlir.fusion.report import graph as _graph
from hilo_mlir.fusion.report.record import FusionReport
from hilo_mlir.fusion.report.vocabulary import REASONS

#: at most this many decisions are drawn (clusters first); the rest are listed without a drawing
MAX_DRAWINGS = 500

_CSS = """
body { font-family: Helvetica, Arial, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em 0; }
th, td { border: 1px solid #ccc; padding: 2px 8px; text-align: left; font-size: 13px; vertical-align: top; }
th { background: #f0f0f0; }
td.n { text-align: right; }
code, .loc { font-family: Menlo, Consolas, monospace; font-size: 12px; }
.entry { border: 1px solid #ddd; border-radius: 4px; padding: 0.5em 1em; margin: 0.8em 0; }
.entry h4 { margin: 0.2em 0 0.4em 0; }
.refused h4 { color: #a50f15; }
.note { background: #fff7bc; border: 1px solid #e6c200; padding: 0.5em 1em; }
figure { margin: 0.5em 0; overflow-x: auto; }
"""


def _n(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _e(x) -> str:
    return escape(str(x), quote=True)


def _ops_table(ops: list) -> str:
    rows = "".join(f'<tr><td><code>{_e(o["name"])}</code></td><td class="loc">{_e(o["loc"])}</td></tr>' for o in ops)
    return f"<table><tr><th>op</th><th>location</th></tr>{rows}</table>"


def _summary_tables(report: FusionReport) -> str:
    s = report.summary()
    rows = []
    for kind, v in s.items():
        reasons = ", ".join(f"{code} {n}" for code, n in sorted(v["reasons"].items(), key=lambda kv: (-kv[1], kv[0])))
        rows.append(f'<tr><td>{_e(kind)}</td><td class="n">{v["formed"]}</td><td class="n">{v["refused"]}</td><td>{_e(reasons)}</td></tr>')
    per_kind = (
        "<h2>Per kind</h2><table><tr><th>kind</th><th>formed</th><th>refused</th><th>refusal reasons</th></tr>" + "".join(rows) + "</table>"
    )
    by_code: dict = collections.defaultdict(collections.Counter)
    for r in report.refusals():
        by_code[r.code][r.kind] += 1
    rows = []
    for code, kinds in sorted(by_code.items(), key=lambda kv: (-sum(kv[1].values()), kv[0])):
        ks = ", ".join(f"{k} {n}" for k, n in kinds.most_common())
        rows.append(
            f"<tr><td><code>{_e(code)}</code></td><td>{_e(REASONS[code])}</td>"
            f'<td class="n">{sum(kinds.values())}</td><td>{_e(ks)}</td></tr>'
        )
    per_reason = (
        "<h2>Per refusal reason</h2><table><tr><th>reason</th><th>meaning</th><th>refused</th><th>kinds</th></tr>"
        + "".join(rows)
        + "</table>"
    )
    return per_kind + per_reason


def _entries(report: FusionReport):
    """``(entry id, function, entry, is_cluster)`` for every decision, clusters first per function."""
    for fi, f in enumerate(report.functions.values()):
        for i, c in enumerate(f.clusters):
            yield f"f{fi}-c{i}", f.name, c, True
        for i, r in enumerate(f.refused):
            yield f"f{fi}-r{i}", f.name, r, False


def _drawings(report: FusionReport) -> tuple[dict, str | None]:
    """``({entry id: svg}, note or None)``: the first :data:`MAX_DRAWINGS` decisions drawn by one ``dot`` run."""
    entries = sorted(_entries(report), key=lambda e: not e[3])[:MAX_DRAWINGS]
    if not entries:
        return {}, None
    if not _graph.dot_available():
        return {}, _graph.NO_DOT_NOTE
    texts = [_graph.to_dot(e.graph, e.kind, eid, boxed) for eid, _f, e, boxed in entries]
    svgs = _graph.render(texts)
    if svgs is None:
        return {}, "Graphviz 'dot' failed on the drawings; the tables below list every decision."
    note = None
    total = sum(1 for _ in _entries(report))
    if total > len(entries):
        note = f"{len(entries)} of {total} decisions are drawn (clusters first); the rest are listed only."
    return {eid: svg for (eid, *_), svg in zip(entries, svgs)}, note


def _entry_html(eid: str, entry, is_cluster: bool, svg: str | None) -> str:
    if is_cluster:
        head = (
            f"<h4>{_e(entry.kind)} formed by <code>{_e(entry.pass_)}</code> ({_e(entry.rule)}): "
            f"{len(entry.ops)} ops, {len(entry.live_ins)} live-ins, {len(entry.live_outs)} live-outs</h4>"
        )
        body = _ops_table(entry.ops)
        cls = "entry"
    else:
        culprit = ""
        if entry.culprit is not None:
            culprit = f'; decided by <code>{_e(entry.culprit["name"])}</code> at <span class="loc">{_e(entry.culprit["loc"])}</span>'
        head = (
            f"<h4>{_e(entry.kind)} refused by <code>{_e(entry.pass_)}</code> ({_e(entry.rule)}): "
            f"<code>{_e(entry.reason)}</code></h4>"
            f"<p>{_e(REASONS[entry.code])}. Anchor <code>{_e(entry.anchor['name'])}</code> at "
            f'<span class="loc">{_e(entry.anchor["loc"])}</span>{culprit}.</p>'
        )
        body = ""
        cls = "entry refused"
    fig = f"<figure>{svg}</figure>" if svg else ""
    return f'<div class="{cls}" id="{eid}">{head}{body}{fig}</div>'


def render_html(report: FusionReport) -> str:
    """The whole page (a ``str``)."""
    svgs, note = _drawings(report)
    title = "Fusion report" + (f": {report.filename}" if report.filename else "")
    n_c, n_r = len(report.clusters()), len(report.refusals())
    parts = [
        '<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml" lang="en"><head><meta charset="utf-8"/>',
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1><p>{_n(n_c, 'cluster')} formed, {_n(n_r, 'candidate')} refused, in "
        f"{_n(len(report.functions), 'function')}. Hover a node of a drawing for its location and source line.</p>",
    ]
    if note:
        parts.append(f'<p class="note">{_e(note)}</p>')
    for text, href in getattr(report, "links", ()):
        parts.append(f'<p class="note">See also: <a href="{_e(href)}">{_e(text)}</a></p>')
    parts.append(_summary_tables(report))
    by_function: dict = collections.defaultdict(list)
    for eid, fname, entry, is_cluster in _entries(report):
        by_function[fname].append(_entry_html(eid, entry, is_cluster, svgs.get(eid)))
    for fname, entries in by_function.items():
        parts.append(f"<h2>Function <code>@{_e(fname)}</code></h2>")
        parts.extend(entries)
    parts.append("</body></html>\n")
    return "".join(parts)
