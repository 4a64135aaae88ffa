"""Reading a decision out of the IR when it is made: ops, live-ins, live-outs and the dataflow around them.

A :class:`Recorder` is bound to one report, one pass and one function; the
passes call :meth:`Recorder.formed` / :meth:`Recorder.formed_cluster` /
:meth:`Recorder.refused` at the point of decision (before they rewrite), and
the recorder turns the ops into plain data (:mod:`.record`). A pass gets a
recorder only when a report was asked for (:func:`hilo_mlir.fusion.report.recorder`);
otherwise it holds None and records nothing.
"""

from __future__ import annotations

import linecache
import os

from hilo_mlir.fusion.order import sorted_in_block
from hilo_mlir.fusion.report.record import Cluster, FusionReport, Graph, Node, Refusal
from hilo_mlir.fusion.report.vocabulary import RefusalReason
from hilo_mlir.ir.utils import as_op, defining_op, op_key
from hilo_mlir.support.diagnostics import location_to_str

#: at most this many users (or producers) of one op are drawn; the rest are one "+N more" node
FAN_LIMIT = 8


class Recorder:
    """Records the decisions of one pass on one function into a :class:`FusionReport`.

    Args:
        report: where the entries go.
        pass_argument: the recording pass (``neuron-op-fusion``).
        function: the name of the function it runs on.
    """

    def __init__(self, report: FusionReport, pass_argument: str, function: str):
        self.report = report
        self.pass_argument = pass_argument
        self.function = function
        self._filename = report.filename

    # -- ops as data -----------------------------------------------------------------

    def loc(self, op) -> str:
        """``file:line:col`` of ``op`` (the first file location inside its location), or ``"unknown"``."""
        return location_to_str(op.location, self._filename) or "unknown"

    def ref(self, op) -> dict:
        """``{"name", "loc"}`` of ``op``."""
        op = as_op(op)
        return {"name": op.name, "loc": self.loc(op)}

    def _source(self, loc: str) -> str:
        """The source line at ``loc`` (``file:line:col``); a relative file is looked for in the
        current folder, then beside the input; "" when it is not found."""
        path, _, _col = loc.rpartition(":")
        path, _, line = path.rpartition(":")
        if not path or not line.isdigit():
            return ""
        if not os.path.isfile(path) and not os.path.isabs(path) and self._filename:
            path = os.path.join(os.path.dirname(self._filename), path)
        if not os.path.isfile(path):
            return ""
        return linecache.getline(path, int(line)).strip()

    # -- the decisions -----------------------------------------------------------------

    def formed(self, rule: str, kind: str, members) -> None:
        """A subgraph ``members`` was replaced by one op of ``kind`` (listed in block order when they share one)."""
        members = [as_op(m) for m in members]
        block = members[0].block
        if all(m.block == block for m in members):
            members = sorted_in_block(members)
        keys = {op_key(m) for m in members}
        live_ins, live_outs, seen = [], [], set()
        for m in members:
            for v in m.operands:
                p = defining_op(v)
                if (p is None or op_key(p) not in keys) and hash(v) not in seen:
                    seen.add(hash(v))
                    live_ins.append(self._value_from(v))
            for r in m.results:
                outside = [as_op(u.owner) for u in r.uses if op_key(as_op(u.owner)) not in keys]
                if outside:
                    live_outs.append({"type": str(r.type), "from": self.ref(m), "users": [self.ref(u) for u in outside]})
        graph = self._graph(members, "member").graph
        self.report.add(self.function, Cluster(self.pass_argument, rule, kind, [self.ref(m) for m in members], live_ins, live_outs, graph))

    def capture_cluster(self, rule: str, cluster, anchor=None):
        """The data of a :class:`~hilo_mlir.fusion.FusionCluster` before its codegen runs;
        file it with :meth:`file_cluster` once the codegen decided. ``anchor``: the op the
        rule started from (named by a refusal; default: the last member)."""
        members = list(cluster.members)
        anchor_ref = self.ref(anchor if anchor is not None else cluster.last)
        live_outs = [
            {"type": str(v.type), "from": self.ref(defining_op(v)), "users": [self.ref(u) for u in users]}
            for v, users in zip(cluster.live_outs, cluster.live_out_users())
        ]
        live_ins = [self._value_from(v) for v in cluster.live_ins]
        return (rule, cluster.kind, anchor_ref, [self.ref(m) for m in members], live_ins, live_outs, self._graph(members, "member"))

    def file_cluster(self, captured, refusal=None) -> None:
        """File what :meth:`capture_cluster` took: formed, or refused by the codegen (``refusal``:
        a :class:`~hilo_mlir.fusion.Refusal`)."""
        rule, kind, anchor, ops, live_ins, live_outs, drawing = captured
        if refusal is None:
            self.report.add(self.function, Cluster(self.pass_argument, rule, kind, ops, live_ins, live_outs, drawing.graph))
            return
        culprit = refusal.op
        detail = None
        if culprit is not None:
            detail = culprit.name
            drawing.mark(culprit, "culprit")
        self.report.add(
            self.function,
            Refusal(
                self.pass_argument,
                rule,
                kind,
                anchor,
                refusal.reason + (f":{detail}" if detail else ""),
                self.ref(culprit) if culprit is not None else None,
                drawing.graph,
            ),
        )

    def refused(self, rule: str, kind: str, anchor, code: str, detail: str | None = None, culprit=None) -> None:
        """The rule looked at ``anchor`` and refused it for ``code`` (+ ``detail``); ``culprit``: the op that decided."""
        self._file_refusal(rule, kind, anchor, code + (f":{detail}" if detail else ""), culprit)

    def notify_match_failure(self, pattern: str, op, reason: str) -> None:
        """The match-failure channel's listener (:class:`~hilo_mlir.rewrite.pattern.MatchFailureListener`):
        ``pattern`` refused ``op``. A :class:`~.vocabulary.RefusalReason` is filed with its kind and
        culprit; plain text names no kind: it is said about an op that is no candidate (``--debug`` only).
        """
        if isinstance(reason, RefusalReason):
            self._file_refusal(pattern, reason.kind, op, str(reason), reason.culprit)

    def _file_refusal(self, rule: str, kind: str, anchor, reason: str, culprit) -> None:
        anchor = as_op(anchor)
        drawing = self._graph([anchor], "anchor")
        if culprit is not None:
            culprit = as_op(culprit)
            drawing.mark(culprit, "culprit")
        self.report.add(
            self.function,
            Refusal(
                self.pass_argument, rule, kind, self.ref(anchor), reason, self.ref(culprit) if culprit is not None else None, drawing.graph
            ),
        )

    # -- drawings ----------------------------------------------------------------------

    def _value_from(self, v) -> dict:
        p = defining_op(v)
        if p is None:
            return {"type": str(v.type), "from": {"argument": v.arg_number}}
        return {"type": str(v.type), "from": self.ref(p)}

    def _graph(self, center, role: str) -> _Drawing:
        """The ops ``center`` (role ``role``), their producers and their users, one hop."""
        d = _Drawing(self)
        for c in center:
            d.op(c, role)
        for c in center:
            d.around(c)
        return d


class _Drawing:
    """Builds a :class:`Graph` from ops (keyed by :func:`~hilo_mlir.ir.utils.op_key` while it is built)."""

    def __init__(self, recorder: Recorder):
        self.rec = recorder
        self.graph = Graph()
        self.ids: dict = {}
        self.center: set = set()
        self._edges: set = set()

    def node(self, key, name: str, loc: str, role: str) -> str:
        nid = self.ids.get(key)
        if nid is None:
            nid = self.ids[key] = f"n{len(self.ids)}"
            self.graph.nodes.append(Node(nid, name, loc, role, self.rec._source(loc) if loc else ""))
        return nid

    def op(self, op, role: str) -> str:
        k = op_key(op)
        if role in ("member", "anchor"):
            self.center.add(k)
        return self.node(k, op.name, self.rec.loc(op), role)

    def edge(self, a: str, b: str) -> None:
        if (a, b) not in self._edges:
            self._edges.add((a, b))
            self.graph.edges.append((a, b))

    def around(self, c) -> None:
        """Edges from ``c``'s producers and to its users (at most :data:`FAN_LIMIT` each way)."""
        cid = self.ids[op_key(c)]
        operands = list(c.operands)
        for i, v in enumerate(operands):
            if i == FAN_LIMIT:
                self.edge(self.node(("more-in", cid), f"+{len(operands) - FAN_LIMIT} more operands", "", "producer"), cid)
                break
            p = defining_op(v)
            if p is None:
                owner = v.owner.owner
                where = self.rec.loc(owner) if owner is not None else "unknown"
                src = self.node(("arg", hash(v)), f"block argument #{v.arg_number}", "" if where == "unknown" else where, "argument")
            elif op_key(p) in self.center:
                continue  # drawn from the producer's side
            else:
                src = self.op(p, "producer")
            self.edge(src, cid)
        n = 0
        for r in c.results:
            for use in r.uses:
                if n == FAN_LIMIT:
                    self.edge(cid, self.node(("more-out", cid), "more users", "", "user"))
                    return
                n += 1
                owner = as_op(use.owner)
                k = op_key(owner)
                dst = self.ids[k] if k in self.center else self.op(owner, "user")
                self.edge(cid, dst)

    def mark(self, op, role: str) -> None:
        """Give ``op``'s node ``role`` (adding the node if the drawing lacks it)."""
        op = as_op(op)
        nid = self.ids.get(op_key(op))
        if nid is None:
            self.op(op, role)
            return
        for n in self.graph.nodes:
            if n.id == nid:
                n.role = role
