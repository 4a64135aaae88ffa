"""The fusion report's data: what each pass decided, per function, as plain data (no IR handles).

A :class:`FusionReport` holds, per function, the clusters the recording
passes formed and the candidates they refused. Each entry is captured when
the decision is made (:mod:`.capture` reads the IR then), so the report
describes the IR each pass saw, not the IR at the end. :meth:`FusionReport.to_json`
gives the document ``docs/fusion_report.md`` specifies.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field

from hilo_mlir.fusion.report.vocabulary import REASONS, code_of

#: version of the JSON document (bumped on incompatible changes)
SCHEMA_VERSION = 1


@dataclass
class Node:
    """One op (or block argument) of a drawing.

    Attributes:
        id: unique within its drawing (``n0``, ``n1``...).
        name: the op name (``stablehlo.logistic``) or ``block argument #i``.
        loc: ``file:line:col`` (``"unknown"`` without a file location).
        role: ``member`` (of the cluster), ``anchor`` (the refused candidate),
            ``culprit`` (the op that decided a refusal), ``producer``, ``user``
            or ``argument``.
        source: the source line at ``loc`` when the file is readable, else "".
    """

    id: str
    name: str
    loc: str
    role: str
    source: str = ""


@dataclass
class Graph:
    """The dataflow around one decision: nodes and ``(from id, to id, label)`` edges."""

    nodes: list = field(default_factory=list)
    edges: list = field(default_factory=list)


@dataclass
class Cluster:
    """A formed cluster (or a subgraph replaced by one op).

    Attributes:
        pass_: the pass argument (``stablehlo-neuron-op-fusion``).
        rule: the sub-pass or rule (``fuseDotLogisticOp``).
        kind: what was formed (a FusionKind, or ``Logistic`` / ``Softmax`` / ``ReassociatedReshape``).
        ops: ``[{"name", "loc"}]`` of the members, in block order.
        live_ins: ``[{"type", "from": {"name", "loc"} | {"argument": i}}]``.
        live_outs: ``[{"type", "from": {"name", "loc"}, "users": [{"name", "loc"}]}]``.
        graph: the drawing's data.
    """

    pass_: str
    rule: str
    kind: str
    ops: list
    live_ins: list
    live_outs: list
    graph: Graph

    def to_json(self) -> dict:
        return {
            "pass": self.pass_,
            "rule": self.rule,
            "kind": self.kind,
            "ops": self.ops,
            "live_ins": self.live_ins,
            "live_outs": self.live_outs,
        }


@dataclass
class Refusal:
    """A refused candidate.

    Attributes:
        pass_, rule, kind: as for :class:`Cluster` (``kind``: what would have been formed).
        anchor: ``{"name", "loc"}`` of the op the rule looked at.
        reason: a code of :data:`~.vocabulary.REASONS`, optionally ``:detail``.
        culprit: ``{"name", "loc"}`` of the op that decided it, or None.
        graph: the drawing's data (the culprit highlighted).
    """

    pass_: str
    rule: str
    kind: str
    anchor: dict
    reason: str
    culprit: dict | None
    graph: Graph

    @property
    def code(self) -> str:
        return code_of(self.reason)

    def to_json(self) -> dict:
        return {
            "pass": self.pass_,
            "rule": self.rule,
            "kind": self.kind,
            "anchor": self.anchor,
            "reason": self.reason,
            "code": self.code,
            "culprit": self.culprit,
        }


@dataclass
class FunctionReport:
    """The decisions made in one function."""

    name: str
    clusters: list = field(default_factory=list)
    refused: list = field(default_factory=list)


class FusionReport:
    """Every decision of the recording passes in one run (one module).

    Args:
        filename: the input's name (substituted for the parser's ``-`` buffer
            in locations; shown in the page's title).

    Attributes:
        functions: ``{function name: FunctionReport}`` in first-recorded order.
        output_dirs: folders a pass was asked (``{report=DIR}``) to write to.
        links: ``[(text, relative href)]`` of companion files the HTML page links to
            (``hilo-check``'s Model Explorer graph); not part of the JSON.
    """

    def __init__(self, filename: str | None = None):
        self.filename = filename
        self.functions: dict[str, FunctionReport] = {}
        self.output_dirs: list[str] = []
        self.links: list[tuple[str, str]] = []

    def function(self, name: str) -> FunctionReport:
        fr = self.functions.get(name)
        if fr is None:
            fr = self.functions[name] = FunctionReport(name)
        return fr

    def add(self, function: str, entry) -> None:
        """File a :class:`Cluster` or a :class:`Refusal` under ``function``."""
        fr = self.function(function)
        if isinstance(entry, Cluster):
            fr.clusters.append(entry)
        else:
            if code_of(entry.reason) not in REASONS:
                raise ValueError(f"reason '{entry.reason}' is not in the fusion report vocabulary")
            fr.refused.append(entry)

    def clusters(self) -> list:
        return [c for f in self.functions.values() for c in f.clusters]

    def refusals(self) -> list:
        return [r for f in self.functions.values() for r in f.refused]

    def summary(self) -> dict:
        """``{kind: {"formed": n, "refused": n, "reasons": {code: n}}}``, kinds in first-recorded order."""
        out: dict = {}
        for c in self.clusters():
            out.setdefault(c.kind, {"formed": 0, "refused": 0, "reasons": collections.Counter()})["formed"] += 1
        for r in self.refusals():
            s = out.setdefault(r.kind, {"formed": 0, "refused": 0, "reasons": collections.Counter()})
            s["refused"] += 1
            s["reasons"][r.code] += 1
        return out

    def summary_lines(self) -> list[str]:
        """One line per kind: ``DotLogistic: 3 formed, 12 refused (logistic-multi-use 12)``."""
        lines = []
        for kind, s in self.summary().items():
            line = f"{kind}: {s['formed']} formed, {s['refused']} refused"
            if s["reasons"]:
                parts = sorted(s["reasons"].items(), key=lambda kv: (-kv[1], kv[0]))
                line += " (" + ", ".join(f"{code} {n}" for code, n in parts) + ")"
            lines.append(line)
        return lines

    def to_json(self) -> dict:
        """The report document (``docs/fusion_report.md``)."""
        summary = {k: {"formed": s["formed"], "refused": s["refused"], "reasons": dict(s["reasons"])} for k, s in self.summary().items()}
        return {
            "version": SCHEMA_VERSION,
            "input": self.filename,
            "functions": [
                {"name": f.name, "clusters": [c.to_json() for c in f.clusters], "refused": [r.to_json() for r in f.refused]}
                for f in self.functions.values()
            ],
            "summary": summary,
        }
