"""Drawing decisions with Graphviz: one ``digraph`` per cluster or refusal, all rendered by one ``dot -Tsvg``.

A cluster is a box (``subgraph cluster``) holding its members, filled with
the colour of its kind; live-ins enter the box from their producers and
live-outs leave it towards their users. A refusal draws the anchor, its
producers and its users, with the op that decided the refusal in red. Every
node's tooltip (hover) gives the op name, its ``file:line:col`` and the source
line when the file was readable.

:func:`render` runs ``dot`` once for every graph of a report (one process:
``dot`` renders a file of several graphs in order) and returns the SVG
elements, or None when ``dot`` is not on ``PATH`` or fails -- the page then
shows the tables only, with a note (:data:`NO_DOT_NOTE`).
"""

from __future__ import annotations

import re
import shutil
import subprocess

from hilo_mlir.fusion.report.record import Graph
from hilo_mlir.fusion.report.vocabulary import KINDS

_PALETTE = ("#9ecae1", "#a1d99b", "#fdd0a2", "#dadaeb", "#bcbddc", "#fcbba1", "#c7e9c0", "#c6dbef", "#fdae6b", "#d9d9d9")
#: fill colour per kind (members of a cluster of that kind); other kinds get :data:`DEFAULT_FILL`
KIND_FILL = dict(zip(KINDS, _PALETTE))
DEFAULT_FILL = "#eeeeee"
ANCHOR_FILL = "#ffffb2"
CULPRIT_COLOR = "#cb181d"

#: shown instead of the drawings when Graphviz is missing or fails
NO_DOT_NOTE = (
    "The dataflow drawings need Graphviz: 'dot' was not found on PATH (install the 'graphviz' "
    "package and rerun); the tables below list every decision."
)

#: seconds one ``dot`` run may take before the page falls back to the tables
DOT_TIMEOUT = 300.0


def _q(text: str) -> str:
    """A DOT double-quoted string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _short(name: str) -> str:
    return name.split(".", 1)[1] if "." in name and not name.startswith("block ") else name


def _label(node) -> str:
    where = node.loc.rsplit("/", 1)[-1] if node.loc and node.loc != "unknown" else ""
    return _short(node.name) + (f"\n{where}" if where else "")


def _tooltip(node) -> str:
    tip = f"{node.name} at {node.loc}" if node.loc else node.name
    return tip + (f"\n{node.source}" if node.source else "")


def _node_attrs(node, kind: str) -> str:
    attrs = {"label": _label(node), "tooltip": _tooltip(node)}
    style = []
    if node.role == "member":
        attrs["fillcolor"] = KIND_FILL.get(kind, DEFAULT_FILL)
        style.append("filled")
    elif node.role == "anchor":
        attrs["fillcolor"] = ANCHOR_FILL
        attrs["penwidth"] = "2"
        style.append("filled")
    elif node.role == "culprit":
        attrs["color"] = CULPRIT_COLOR
        attrs["fontcolor"] = CULPRIT_COLOR
        attrs["penwidth"] = "2.5"
    elif node.role == "argument":
        attrs["shape"] = "ellipse"
        attrs["color"] = "#888888"
    else:
        attrs["color"] = "#888888"
    if style:
        attrs["style"] = ",".join(style)
    return ", ".join(f"{k}={_q(v)}" for k, v in attrs.items())


def to_dot(graph: Graph, kind: str, name: str, boxed: bool) -> str:
    """The DOT text of one drawing; ``boxed``: members inside a box labelled ``kind`` (a cluster)."""
    lines = [
        f"digraph {_q(name)} {{",
        '  graph [rankdir=TB, fontname="Helvetica", fontsize=10];',
        '  node [shape=box, style=rounded, fontname="Helvetica", fontsize=10];',
        '  edge [color="#555555"];',
    ]
    members = [n for n in graph.nodes if n.role == "member"]
    if boxed and members:
        lines.append(f'  subgraph cluster_0 {{ label={_q(kind)}; style=rounded; color="#444444";')
        for n in members:
            lines.append(f"    {n.id} [{_node_attrs(n, kind)}];")
        lines.append("  }")
    for n in graph.nodes:
        if not (boxed and n.role == "member"):
            lines.append(f"  {n.id} [{_node_attrs(n, kind)}];")
    for a, b in graph.edges:
        lines.append(f"  {a} -> {b};")
    lines.append("}")
    return "\n".join(lines) + "\n"


_SVG = re.compile(r"<svg\b.*?</svg>", re.S)


def dot_available() -> bool:
    """True when Graphviz's ``dot`` is on ``PATH``."""
    return shutil.which("dot") is not None


def render(dot_texts: list[str]) -> list[str] | None:
    """SVG elements (``<svg ...>...</svg>``, no XML prolog) for ``dot_texts``, in order; None
    when ``dot`` is missing, fails, times out, or does not return one SVG per graph."""
    if not dot_texts:
        return []
    exe = shutil.which("dot")
    if exe is None:
        return None
    try:
        proc = subprocess.run([exe, "-Tsvg"], input="".join(dot_texts).encode(), capture_output=True, timeout=DOT_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    svgs = _SVG.findall(proc.stdout.decode("utf-8", "replace"))
    return svgs if len(svgs) == len(dot_texts) else None
