"""Shared helpers of the NeuronOpFusion sub-passes (seed 000).

One :class:`FusionRun` per function run holds what every sub-pass needs: the
dialect table, the pass statistics, the per-block :class:`OrderIndex` (built
once per block, kept current by codegen) and the symbol namer for StableHLO
decompositions. Sub-passes never spell an op name: they ask ``run.d``.
"""

from __future__ import annotations

import functools

from ...cluster import FusionCluster, OrderIndex, SymbolNamer, codegen, op_key
from ...dialects import is_fusion_like
from ...ir import ir

#: Kinds the six sub-passes produce (seed 000 "Downstream emission").
KINDS = ("DotLogistic", "MulRedSqrt", "Elementwise", "Expm1", "Log1p")


def as_op(x):
    """Generic ``ir.Operation`` for an OpView / Operation (None stays None)."""
    if x is None:
        return None
    return x if isinstance(x, ir.Operation) else x.operation


def defining_op(v):
    """The op producing ``v`` (``getDefiningOp``); None for a block argument."""
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation  # OpView or Operation: both have .operation


def num_uses(v) -> int:
    """Number of uses of ``v`` (``hilo::getNumUsers`` counts use-list entries)."""
    n = 0
    for _ in v.uses:
        n += 1
    return n


def users(v) -> list:
    """The owners of ``v``'s uses (one entry per use), as ``ir.Operation``."""
    return [as_op(u.owner) for u in v.uses]


def has_one_use(op) -> bool:
    """``op`` has one result and that result has exactly one use (``hasOneUse``).

    Reads at most two use-list entries (a shared constant may have thousands).
    """
    try:
        r = op.result  # one binding call; raises unless the op has exactly one result
    except ValueError:
        return False
    it = iter(r.uses)
    return next(it, None) is not None and next(it, None) is None


def same_block(a, b) -> bool:
    """``a`` and ``b`` sit directly in the same block."""
    ba, bb = a.block, b.block
    return ba is not None and bb is not None and ba == bb  # ir.Block compares by its C++ pointer


def same_value(a, b) -> bool:
    """SSA value identity."""
    return a == b


_FUSION_LIKE = frozenset({"mhlo.fusion", "stablehlo.composite"})
_TOP = ("func.func", "builtin.module")


def inside_fusion(op) -> bool:
    """True if an ancestor of ``op`` is an ``mhlo.fusion`` / ``stablehlo.composite``."""
    p = op.parent
    while p is not None:
        name = p.name  # op.parent is an ir.Operation (never an OpView), so .name is the op name
        if name in _FUSION_LIKE:
            return True
        if name in _TOP:
            return False
        p = p.parent
    return False


def in_function_body(op, func) -> bool:
    """``op`` is nested in ``func`` and not inside a fusion: an op ``collect(func, ...)`` can find."""
    p = op.parent
    while p is not None:
        p = as_op(p)
        name = p.name
        if name in _FUSION_LIKE:
            return False
        if name == "func.func":
            return p == func
        if name == "builtin.module":
            return False
        p = p.parent
    return False


def collect(func_op, pred=None, names=None) -> list:
    """Ops of ``func_op`` (nested regions included, fusion bodies excluded) for which ``pred(op)``.

    Pre-order walk; the regions of ``mhlo.fusion`` are skipped (seed 000: no
    sub-pass seeds inside an existing fusion). ``names`` (full op names)
    restricts the result to those ops with one name lookup per op (then
    ``pred``, if given, also has to hold).
    """
    out = []
    if names is not None:
        names = frozenset(names)

        def visit_named(op):
            op = op.operation
            name = op.name
            if name in _FUSION_LIKE:
                return ir.WalkResult.SKIP
            if name in names and (pred is None or pred(op)):
                out.append(op)
            return ir.WalkResult.ADVANCE

        func_op.walk(visit_named, ir.WalkOrder.PRE_ORDER)
        return out

    def visit(op):
        op = op.operation
        if is_fusion_like(op):
            return ir.WalkResult.SKIP
        if pred(op):
            out.append(op)
        return ir.WalkResult.ADVANCE

    func_op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return out


#: Anchor kinds whose ops never hold regions: for them the census's walk order
#: (post-order) restricted to one name is the pre-order ``collect`` gives.
_REGION_FREE = frozenset({"add", "logistic", "sqrt", "rsqrt", "exponential_minus_one", "log_plus_one", "concatenate"})


def _chain(op, func) -> list:
    """``op``'s ancestors below ``func``, outermost first, ending with ``op``."""
    chain = [op]
    p = op.parent
    while p is not None:
        p = as_op(p)
        if p == func:
            break
        chain.append(p)
        p = p.parent
    chain.reverse()
    return chain


def _block_rank(parent, block) -> tuple:
    """(region number, block number) of ``block`` among ``parent``'s regions."""
    for ri, region in enumerate(parent.regions):
        for bi, b in enumerate(region.blocks):
            if b == block:
                return (ri, bi)
    return (len(parent.regions), 0)


def preorder_sorted(ops, func) -> list:
    """``ops`` (distinct ops nested in ``func``) in the pre-order a walk of ``func`` visits them.

    An op comes before the ops nested in it; ops of one block follow MLIR's
    block order (``is_before_in_block``); ops under one parent follow its
    region, then block order.
    """
    if len(ops) < 2:
        return list(ops)
    chains = [(_chain(o, func), o) for o in ops]

    def cmp(x, y) -> int:
        a, b = x[0], y[0]
        for i in range(min(len(a), len(b))):
            p, q = a[i], b[i]
            if p == q:
                continue
            pb, qb = p.block, q.block
            if pb == qb:
                return -1 if p.is_before_in_block(q) else 1
            parent = a[i - 1] if i else func
            return -1 if _block_rank(parent, pb) < _block_rank(parent, qb) else 1
        return len(a) - len(b)

    return [o for _, o in sorted(chains, key=functools.cmp_to_key(cmp))]


def splat_float_value(v):
    """If ``v`` is a splat float constant (through broadcast_in_dim/reshape/convert of one), its value; else None."""
    op = defining_op(v)
    for _ in range(8):
        if op is None:
            return None
        short = op.name.split(".", 1)[-1]
        if short == "constant":
            attr = op.attributes["value"]
            try:
                dense = ir.DenseElementsAttr(attr)
            except (ValueError, TypeError):
                return None
            if not dense.is_splat:
                return None
            sv = dense.get_splat_value()
            try:
                return ir.FloatAttr(sv).value
            except (ValueError, TypeError):
                return None
        if short in ("broadcast_in_dim", "reshape", "broadcast"):
            op = defining_op(op.operands[0])
            continue
        return None
    return None


_ANY_SHORT: dict = {}  # op name -> the part after the first dot (any dialect)


def _any_short(name: str) -> str:
    short = _ANY_SHORT.get(name)
    if short is None:
        short = _ANY_SHORT[name] = name.split(".", 1)[-1]
    return short


def is_constant_like(v, memo: dict | None = None) -> bool:
    """``v`` is a constant or a broadcast_in_dim/reshape/convert chain of one (stays a live-in).

    ``memo`` (:func:`value_key` -> answer; :attr:`FusionRun.const_memo`) saves
    re-reading a constant many matches share; it must be cleared whenever an
    op is erased (a value's address may then be reused).
    """
    if memo is not None:
        k = hash(v)  # == value_key(v)
        hit = memo.get(k)
        if hit is None:
            hit = memo[k] = is_constant_like(v)
        return hit
    op = defining_op(v)
    for _ in range(8):
        if op is None:
            return False
        short = _any_short(op.name)
        if short in ("constant", "iota"):
            return True
        if short in ("broadcast_in_dim", "reshape", "convert", "broadcast"):
            op = defining_op(op.operands[0])
            continue
        return False
    return False


class FusionRun:
    """State of one NeuronOpFusion run on one function.

    Attributes:
        func: the ``func.func`` being fused.
        d: the dialect table (MHLO or STABLEHLO).
        ctx: the :class:`~hilo_mlir.registry.PassContext` (stats, debug log).
        order: the :class:`OrderIndex` every cluster of this run shares.
    """

    def __init__(self, func_op, ctx, namer: SymbolNamer | None = None):
        self.func = func_op
        self.ctx = ctx
        self.d = ctx.d
        self.order = OrderIndex()
        self._namer = namer
        self.changed = False  # some sub-pass rewrote the IR
        self.const_memo: dict = {}  # is_constant_like answers by value_key; cleared by erase()
        self.reordered = False  # a codegen moved dependent ops after its fused op
        self._anchors: dict = {}  # {short name: [op, ...]}: the census lists, asked for once per name
        # op_key of every op this run erased: census-list ops among them are
        # dropped by anchors() without being touched (guards the rule that no
        # sub-pass erases a later sub-pass's anchor; their keys cannot clash:
        # both were alive when the census was taken)
        self.erased: set = set()

    def _ops_of(self, short: str) -> list:
        """The ``short`` ops of the function from :meth:`PassContext.ops_named`, asked once per name.

        From the pipeline's census (no walk; a snapshot taken before this
        pass rewrote anything) when there is one, else one walk of the
        function now. Census lists are in walk post-order.
        """
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

        From :meth:`_ops_of`. A census list holds the ops a walk would find
        now: no sub-pass erases an anchor of a later one, and the ops a
        sub-pass creates outside fusions (Pass B's logistic/multiply/reshape)
        are no later sub-pass's anchors. Their relative order is unchanged
        unless a codegen moved dependent ops (then this walks as ``collect``
        does). Ops that left the function (members moved into a StableHLO
        decomposition) or sit inside a fusion are dropped, except for one
        region-free kind before the run moved anything out of the function
        (MHLO fusions stay in it): then ops inside fusions may be returned
        (every sub-pass skips them).
        """
        if self.reordered:
            return collect(self.func, names=[self.d.name(s) for s in shorts])
        erased = self.erased
        lists = [(s, [o for o in lst if op_key(o) not in erased] if erased else lst)
                 for s in shorts for lst in (self._ops_of(s),)]
        lists = [(s, lst) for s, lst in lists if lst]
        if not lists:
            return []
        if len(lists) == 1 and lists[0][0] in _REGION_FREE and (not self.changed or self.d.prefix == "mhlo"):
            return list(lists[0][1])
        func = self.func
        kept = [(s, [o for o in lst if in_function_body(o, func)]) for s, lst in lists]
        kept = [(s, lst) for s, lst in kept if lst]
        if not kept:
            return []
        if len(kept) == 1 and kept[0][0] in _REGION_FREE:
            return kept[0][1]
        return preorder_sorted([o for _, lst in kept for o in lst], self.func)

    def namer(self) -> SymbolNamer:
        if self._namer is None:
            m = self.func.parent
            self._namer = SymbolNamer(as_op(m))
        return self._namer

    def emit(self, ops, kind: str):
        """Build ``FusionCluster(ops, kind)`` and run the shared codegen; count it.

        ``ops`` must all sit directly in one block (every sub-pass checks it
        while matching, so the cluster does not check again).

        Returns the fused op or None (cluster refused: not convex, or a
        dependent op with side effects would have to move).
        """
        cluster = FusionCluster(ops, kind, self.order, one_block=True)
        namer = self.namer() if self.d.prefix != "mhlo" else None
        fused = codegen(cluster, self.d, self.order, namer)
        st = self.ctx.stats
        if fused is None:
            st[f"refused-{kind}"] += 1
            self.ctx.debug(f"{kind}: cluster of {len(cluster)} ops at {cluster.last.location} refused (not convex, no live-out, or a side-effecting op would have to move)")
            return None
        st[f"clusters-{kind}"] += 1
        st[f"ops-absorbed-{kind}"] += len(cluster)
        self.changed = True
        if cluster.moved:
            self.reordered = True
        return fused

    def note_created_before(self, new_ops, anchor) -> None:
        """Keep the order index current for ops just created before ``anchor`` (in order)."""
        for o in new_ops:
            self.order.note_inserted_before(o, anchor)

    def erase(self, op) -> None:
        """Erase ``op`` (no uses left) and forget it in the index."""
        self.order.note_erased(op)
        self.const_memo.clear()  # the erased op's values may be reused by new ops
        self.erased.add(op_key(op))
        op.erase()
        self.changed = True


__all__ = [
    "KINDS", "FusionRun", "as_op", "defining_op", "num_uses", "users", "has_one_use", "same_block",
    "inside_fusion", "in_function_body", "collect", "preorder_sorted", "splat_float_value", "is_constant_like", "op_key",
]
