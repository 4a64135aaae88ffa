"""One NeuronOpFusion run on one function: what every sub-pass shares, and how it mutates.

:class:`FusionRun` holds the dialect table, the pass context (statistics,
debug log, rewriter), the per-block :class:`~hilo_mlir.fusion.OrderIndex`
(listening to the rewriter) and the symbol namer for StableHLO
decompositions. Its mutating methods are thin adapters over
``ctx.rewriter`` that also keep the run's own tables current (the order
index, the constant memo, the set of erased ops); sub-passes never mutate IR
any other way. :class:`OpFusionState` is what the functions of one pass run
over a module share (``ctx.state``).
"""

from __future__ import annotations

from hilo_mlir.fusion import FusionCluster, OrderIndex, SymbolNamer, codegen
from hilo_mlir.fusion.fuel import fuel_of
from hilo_mlir.fusion.report import RefusalReason, ReportRun
from hilo_mlir.ir.utils import as_op, op_key
from hilo_mlir.passes.fusion.op_fusion.common import REGION_FREE, collect, in_function_body, preorder_sorted
from hilo_mlir.rewrite.pattern import PatternRewriter
from hilo_mlir.support.diagnostics import location_to_str


class OpFusionState(ReportRun):
    """Shared by the functions of one ``neuron-op-fusion`` run over a module (``ctx.state``).

    Attributes:
        decompositions: ``sym_name`` of every function that is the
            decomposition of a composite (taken once, on the first function;
            such functions are not fused).
        namer: the module's :class:`SymbolNamer` (StableHLO), so that names stay
            unique across the functions of the run.
    """

    def __init__(self):
        super().__init__()
        self.decompositions: set | None = None
        self.namer: SymbolNamer | None = None


class FusionRun:
    """State of one NeuronOpFusion run on one function.

    Args:
        func_op: the ``func.func`` being fused.
        ctx: the :class:`~hilo_mlir.passmanager.registry.PassContext`.
        namer: the module's :class:`SymbolNamer` (StableHLO; made on first need if None).
        anchors: short names of the ops the enabled sub-passes seed from: their
            lists are taken now, before any sub-pass rewrites (see :meth:`anchors`).
        rec: the fusion report's recorder for this function, or None.

    Attributes:
        func, ctx, d: as given (``d``: the dialect table).
        rw: ``ctx.rewriter``.
        order: the :class:`OrderIndex` every cluster of this run shares.
        const_memo: ``is_constant_like`` answers by value key (cleared on every erase).
        erased: :func:`~hilo_mlir.ir.utils.op_key` of every op this run erased.
        reordered: some codegen moved dependent ops after its fused op.
        listening: someone hears refusals (a fusion report, or ``--debug``): only then
            are they worth explaining (:meth:`refuse` does nothing otherwise).
        checking: the checking mode is on (``HILO_MLIR_CHECK_ANALYSES=1`` or the pipeline's ``check_analyses``).
    """

    def __init__(self, func_op, ctx, namer: SymbolNamer | None = None, anchors=(), rec=None):
        self.func = func_op
        #: the fusion report's :class:`~hilo_mlir.fusion.report.Recorder`, or None (no report asked for)
        self.rec = rec
        self.ctx = ctx
        self.d = ctx.d
        self.rw = ctx.rewriter
        self.order = OrderIndex(self.rw)
        self._namer = namer
        self._actions0 = self.rw.actions
        self.const_memo: dict = {}
        self.reordered = False
        self.erased: set = set()
        self._fuel: tuple | None = None  # (FusionFuel or None, pass argument), read on the first emit
        self._attrs: dict = {}  # codegen's memo of the FusionKind attributes (one context)
        # the match-failure channel: refusals go to --debug and to the report's recorder
        self._failures = PatternRewriter(ctx, listener=rec)
        self.listening = rec is not None or ctx.debugging
        self._anchors: dict = {}  # {short name: [op, ...]}: census lists as of the start of the run
        #: the checking mode: fast paths are compared with the general way
        self.checking = ctx.analyses.checking
        for s in anchors:
            self._ops_of(s)

    def close(self) -> None:
        """The run is over: stop the order index listening to the rewriter."""
        self.order.close()

    @property
    def changed(self) -> bool:
        """True once this run recorded a mutation (read from the rewriter)."""
        return self.rw.actions != self._actions0

    # -- seeds -----------------------------------------------------------------------

    def _ops_of(self, short: str) -> list:
        """The ``short`` ops of the function from the census (walk post-order), asked once per name."""
        got = self._anchors
        lst = got.get(short)
        if lst is None:
            lst = got[short] = [as_op(o) for o in self.ctx.ops_named(self.func, self.d.name(short))]
        return lst

    def has_all(self, *shorts: str) -> bool:
        """False if the function surely holds no op of one of the ``shorts`` kinds."""
        return all(self._ops_of(s) for s in shorts)

    def anchors(self, *shorts: str) -> list:
        """The ``shorts`` ops of the function outside fusions, in pre-order: what ``collect`` would return now.

        From the lists taken at the start of the run. Such a list holds the ops
        a walk would find now: no sub-pass erases an anchor of a later one
        (erased ops are dropped), and the ops a sub-pass creates outside
        fusions (Pass B's logistic/multiply/reshape) are no later sub-pass's
        anchors. Their relative order is unchanged unless a codegen moved
        dependent ops (then this walks as ``collect`` does). Ops that left
        the function (members moved into a StableHLO decomposition) or sit
        inside a fusion are dropped, except for one region-free kind before
        the run moved anything out of the function (MHLO fusions stay in it):
        then ops inside fusions may be returned (every sub-pass skips them).
        """
        if self.reordered:
            return collect(self.func, names=[self.d.name(s) for s in shorts])
        erased = self.erased
        lists = [(s, [o for o in lst if op_key(o) not in erased] if erased else lst) for s in shorts for lst in (self._ops_of(s),)]
        lists = [(s, lst) for s, lst in lists if lst]
        if not lists:
            return []
        if len(lists) == 1 and lists[0][0] in REGION_FREE and (not self.changed or not self.d.fusion_is_composite):
            return list(lists[0][1])
        func = self.func
        kept = [(s, [o for o in lst if in_function_body(o, func)]) for s, lst in lists]
        kept = [(s, lst) for s, lst in kept if lst]
        if not kept:
            return []
        if len(kept) == 1 and kept[0][0] in REGION_FREE:
            return kept[0][1]
        return preorder_sorted([o for _, lst in kept for o in lst], self.func)

    # -- mutations (through the rewriter) ------------------------------------------------

    def namer(self) -> SymbolNamer:
        if self._namer is None:
            self._namer = SymbolNamer(as_op(self.func.parent))
        return self._namer

    def emit(self, ops, kind: str, rule: str, anchor=None, sealed: bool = False, reads: tuple | None = None):
        """Build ``FusionCluster(ops, kind)`` and run the shared codegen; count and record it.

        ``ops`` must all sit directly in one block (every sub-pass checks it
        while matching, so the cluster does not check again). ``rule``: the
        sub-pass; ``anchor``: the op it started from (for the report);
        ``sealed``: the matcher checked that ``ops`` are a sealed chain (see
        :class:`~hilo_mlir.fusion.FusionCluster`; the checking mode compares
        the cluster with the general scan); ``reads``: with ``sealed``, ``(block, operands,
        results)``: what the matcher read of ``ops`` (see :class:`~hilo_mlir.fusion.FusionCluster`),
        so that the cluster does not read it again.

        Returns the fused op or None (cluster refused: ``cluster.refusal`` says why).
        """
        if sealed:
            block, operands, results = reads if reads is not None else (None, None, None)
            cluster = FusionCluster(
                ops, kind, self.order, one_block=True, sealed=True, check=self.checking, block=block, operands=operands, results=results
            )
        else:
            cluster = FusionCluster(ops, kind, self.order, one_block=True)
        namer = self.namer() if self.d.fusion_is_composite else None
        rec = self.rec
        captured = rec.capture_cluster(rule, cluster, anchor) if rec is not None else None
        fuel = self._fuel
        if fuel is None:
            fuel = self._fuel = (fuel_of(self.ctx), self.ctx.info.argument)
        fused = codegen(cluster, self.d, self.rw, self.order, namer, fuel=fuel, memo=self._attrs, analyses=self.ctx.analyses)
        if rec is not None:
            rec.file_cluster(captured, cluster.refusal)
        st = self.ctx.stats
        if fused is None:
            st[f"refused-{kind}"] += 1
            assert cluster.refusal is not None  # codegen returns None only with a refusal
            self.ctx.debug(f"{kind}: cluster of {len(cluster)} ops at {cluster.last.location} refused ({cluster.refusal.reason})")
            return None
        st[f"clusters-{kind}"] += 1
        st[f"ops-absorbed-{kind}"] += len(cluster)
        if cluster.moved:
            self.reordered = True
        return fused

    def refuse(self, rule: str, kind: str, anchor, code: str, culprit=None, detail: str | None = None) -> None:
        """``rule`` refused ``anchor`` for ``code`` (a fusion report reason): say it once, through the
        match-failure channel (``--debug`` and the fusion report); nothing when nobody listens.

        ``kind``: what the rule would have formed; ``culprit``: the op that decided it;
        ``detail`` defaults to the culprit's op name.
        """
        if not self.listening:
            return
        if detail is None and culprit is not None:
            detail = culprit.name
        failures = self._failures
        failures.pattern = rule
        failures.notify_match_failure(anchor, RefusalReason(code, detail, kind=kind, culprit=culprit))

    def loc(self, op) -> str:
        """``file:line:col`` of ``op`` as the fusion report writes it (``"unknown"`` without a file location)."""
        if self.rec is not None:
            return self.rec.loc(op)
        return location_to_str(op.location, self.ctx.env.filename) or "unknown"

    def create(self, name: str, *, results, operands=(), attributes=None, loc, before):
        """Create op ``name`` right before ``before`` (rewriter) and place it in the order index."""
        op = self.rw.create(name, results=results, operands=operands, attributes=attributes, loc=loc, before=before)
        self.order.note_inserted_before(op, before)
        return op

    def set_operand(self, op, index: int, value) -> None:
        """Operand ``index`` of ``op`` becomes ``value`` (rewriter)."""
        self.rw.set_operand(op, index, value)

    def replace_all_uses_with(self, old, new) -> None:
        """Every use of ``old`` now uses ``new`` (rewriter)."""
        self.rw.replace_all_uses_with(old, new)

    def erase(self, op) -> None:
        """Erase ``op`` (no uses left) through the rewriter; forget it in the run's tables."""
        self.const_memo.clear()  # the erased op's values may be reused by new ops
        self.erased.add(op_key(op))
        self.rw.erase_op(op)
