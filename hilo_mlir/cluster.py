"""FusionCluster and the shared codegen (seed 000 "The FusionCluster Data Structure
and Shared codeGen"; DESIGN.md "The op-fusion core", "StableHLO fusions are
composites").

Every producer of fused ops -- the six NeuronOpFusion sub-passes, their
StableHLO twins and ScheduleFusion -- builds a :class:`FusionCluster` and hands
it to :func:`codegen`. Nothing else in the project creates ``mhlo.fusion`` or
``neuron.*`` composites.

API (stable; other passes import it)::

    from hilo_mlir.cluster import FusionCluster, OrderIndex, SymbolNamer, codegen

    order = OrderIndex()                       # one per pass run (positions per block)
    c = FusionCluster(ops, "DotLogistic", order=order)
    c.members      # OpSet: insertion-ordered, O(1) `in`, def-before-use (block) order
    c.live_ins     # list[ir.Value]: operands produced outside the cluster / block arguments
    c.live_outs    # list[ir.Value]: member results with a user outside the cluster
    c.is_convex()  # False if a path leaves the cluster and comes back in
    fused = codegen(c, d, order=order, namer=namer)   # ir.Operation or None (refused)

``d`` is the :class:`~hilo_mlir.dialects.DialectTable`: ``MHLO`` gives an
``mhlo.fusion {FusionKind = "<kind>"}``; ``STABLEHLO`` gives a
``stablehlo.composite "neuron.<kind>"`` with a private decomposition
``@neuron.<kind>.impl[.N]`` and ``CompositeKind = "<kind>"``.

Dominance: the fused op is inserted at the position of the last member (every
live-in is defined before some member, hence before it). Non-members that sit
between the first and the last member and (transitively) use a live-out are
moved, in their original order, right after the fused op
(``recursivelyMoveDependentOps``). A cluster that is not convex is refused:
moving its dependent ops would have to cross a member that uses them.

Positions: the bindings have no dominance API, so :class:`OrderIndex` keeps a
position per op and a prev/next list mirror per block, built once per block
and updated in O(members + moved ops) by :func:`codegen`.
"""

from __future__ import annotations

import functools
import operator

from . import effects as _effects
from .dialects import MHLO, DialectTable, hlo_short_name, is_side_effecting  # noqa: F401
from .ir import identity_key, ir

__all__ = [
    "FusionCluster",
    "OpSet",
    "op_key",
    "block_key",
    "value_key",
    "OrderIndex",
    "SymbolNamer",
    "codegen",
    "sorted_in_block",
    "recursively_move_dependent_ops",
    "ancestor_in_block",
    "value_def_ancestor",
    "has_side_effects",
    "FUSION_KIND_ATTR",
    "COMPOSITE_KIND_ATTR",
    "COMPOSITE_VERSION",
]

#: The discardable string attribute codegen stamps on ``mhlo.fusion`` (seed 000 codeGen).
FUSION_KIND_ATTR = "FusionKind"
#: The discardable string attribute on our ``stablehlo.composite`` ops (seed 002).
COMPOSITE_KIND_ATTR = "CompositeKind"
#: ``version`` of the composites we emit (schema 1 of the ``neuron.<Kind>`` composites).
COMPOSITE_VERSION = 1


def op_key(op) -> int:
    """A stable identity for an op: the address of the C++ ``Operation``.

    ``hash(ir.Operation)`` changes when the op's operands are rewritten, so ops
    must not be dict keys across a rewrite; key by ``op_key`` instead. The key
    is reused after the op is erased: drop it from any table first.
    """
    return identity_key(op)


def block_key(block) -> int:
    """A stable identity for an ``ir.Block`` (the C++ ``Block`` address).

    The binding hashes a block by that address (``hash(block) == identity_key(block)``,
    checked by ``test/unit/test_fusion_perf.py``), at a tenth of the cost.
    """
    return hash(block)


def value_key(v) -> int:
    """A stable identity for an ``ir.Value`` (the C++ value implementation address).

    The binding hashes a value by that address (``hash(v) == identity_key(v)``,
    checked by ``test/unit/test_fusion_perf.py``), at a tenth of the cost.
    """
    return hash(v)


def _op(x) -> ir.Operation:
    """Generic ``ir.Operation`` for an OpView or Operation."""
    return x.operation if not isinstance(x, ir.Operation) else x


class OpSet:
    """Insertion-ordered set of ops with O(1) membership by :func:`op_key`.

    Iterates over ``ir.Operation`` objects in insertion order. A set made by
    :meth:`of_distinct` computes the keys (a C-pointer read per op) only when
    first asked about membership.
    """

    __slots__ = ("_d", "_ops")

    def __init__(self, ops=()):
        self._d: dict = {}
        self._ops = None  # the members, in order, while the keys are not computed yet
        for o in ops:
            self.add(o)

    @classmethod
    def of_distinct(cls, ops) -> "OpSet":
        """An OpSet of ``ops`` (``ir.Operation``, already free of duplicates), keys computed lazily."""
        s = cls()
        s._ops = list(ops)
        return s

    def _keys(self) -> dict:
        if self._ops is not None:
            self._d = {op_key(o): o for o in self._ops}
            self._ops = None
        return self._d

    def add(self, op) -> bool:
        """Insert ``op``; False if it was already there."""
        op = _op(op)
        d = self._keys()
        k = op_key(op)
        if k in d:
            return False
        d[k] = op
        return True

    def discard(self, op) -> None:
        self._keys().pop(op_key(op), None)

    def __contains__(self, op) -> bool:
        return op is not None and op_key(op) in self._keys()

    def _values(self):
        return self._ops if self._ops is not None else self._d.values()

    def __iter__(self):
        return iter(list(self._values()))

    def __reversed__(self):
        return reversed(list(self._values()))

    def __len__(self) -> int:
        return len(self._ops) if self._ops is not None else len(self._d)

    def first(self):
        return next(iter(self._values()))

    def last(self):
        if self._ops is not None:
            return self._ops[-1]
        return next(reversed(self._d.values()))

    def __repr__(self) -> str:  # pragma: no cover
        return f"OpSet({[o.name for o in self._values()]})"


def ancestor_in_block(op, block) -> ir.Operation | None:
    """The ancestor of ``op`` (itself included) that sits directly in ``block``, or None.

    A use inside a nested region (``case``/``while``/``reduce`` body) belongs to
    its enclosing op in ``block`` (DESIGN.md "Rules of the IR").
    """
    op = _op(op)
    while True:
        parent = op.parent
        if parent is None:  # a top-level op (or detached): not in any block we fuse in
            return None
        if op.block == block:  # ir.Block compares by its C++ pointer (cheaper than block_key)
            return op
        op = _op(parent)


def value_def_ancestor(v, block) -> ir.Operation | None:
    """The op in ``block`` that (or inside which) ``v`` is defined; None for args of ``block`` / values from above."""
    owner = v.owner
    if isinstance(owner, ir.Block):
        if owner == block:
            return None
        parent = owner.owner  # the op owning the region of that block
        return ancestor_in_block(parent, block) if parent is not None else None
    return ancestor_in_block(owner, block)


def has_side_effects(op) -> bool:
    """True if ``op`` or any op nested in it has side effects (never fused, moved or deleted).

    The one model of :mod:`hilo_mlir.effects` (shared with the scheduling
    passes): the dialect table's set (custom_call, collectives, rng,
    ``xla.rng_get_and_update_state``, optimization_barrier, ...), ``func.call``,
    ops of dialects not known to be pure, and a ``stablehlo.composite`` whose
    decomposition contains any of these.
    """
    return _effects.has_side_effects(op)


_first = operator.itemgetter(0)


def _before_cmp(a, b) -> int:
    return -1 if a.is_before_in_block(b) else 1


def sorted_in_block(items: list, key=None) -> list:
    """``items`` (distinct ops of one block, or things ``key`` maps to them) in block order.

    Uses MLIR's own per-block order (``Operation.is_before_in_block``, cached
    in C++ and kept current on insertion), so no Python index of the block is
    built; an already sorted list costs ``len - 1`` comparisons.
    """
    items = list(items)
    if len(items) < 2:
        return items
    ops = items if key is None else [key(x) for x in items]
    prev = ops[0]
    for o in ops[1:]:
        if not prev.is_before_in_block(o):
            break
        prev = o
    else:
        return items  # already in block order (the usual case: matchers list def before use)
    if key is None:
        return sorted(items, key=functools.cmp_to_key(_before_cmp))
    return sorted(items, key=functools.cmp_to_key(lambda x, y: _before_cmp(key(x), key(y))))


class _BlockOrder:
    """Positions and a prev/next mirror of one block's op list (keys: :func:`op_key`)."""

    __slots__ = ("block", "pos", "nxt", "prv", "ops")

    def __init__(self, block):
        self.block = block
        self.renumber()

    def renumber(self) -> None:
        self.pos, self.nxt, self.prv, self.ops = {}, {}, {}, {}
        prev = None
        for i, o in enumerate(self.block.operations):
            o = o.operation
            k = op_key(o)
            self.ops[k] = o
            self.pos[k] = float(i) * 1024.0
            self.prv[k] = prev
            if prev is not None:
                self.nxt[prev] = k
            prev = k
        if prev is not None:
            self.nxt[prev] = None

    def remove(self, k: int) -> None:
        p, n = self.prv.pop(k, None), self.nxt.pop(k, None)
        self.pos.pop(k, None)
        self.ops.pop(k, None)
        if p is not None:
            self.nxt[p] = n
        if n is not None:
            self.prv[n] = p

    def insert_after(self, op, k: int, anchor: int) -> bool:
        """Record ``op`` (key ``k``) right after ``anchor``; True if the block had to be renumbered."""
        n = self.nxt.get(anchor)
        lo = self.pos[anchor]
        hi = self.pos[n] if n is not None else lo + 2048.0
        return self._link(op, k, anchor, n, lo, hi)

    def insert_before(self, op, k: int, anchor: int) -> bool:
        """Record ``op`` (key ``k``) right before ``anchor``; True if the block had to be renumbered."""
        p = self.prv.get(anchor)
        hi = self.pos[anchor]
        lo = self.pos[p] if p is not None else hi - 2048.0
        return self._link(op, k, p, anchor, lo, hi)

    def _link(self, op, k, p, n, lo, hi) -> bool:
        mid = (lo + hi) / 2.0
        self.ops[k] = op
        self.prv[k], self.nxt[k] = p, n
        if p is not None:
            self.nxt[p] = k
        if n is not None:
            self.prv[n] = k
        self.pos[k] = mid
        if not (lo < mid < hi):  # float gap exhausted: renumber from the real block
            self.renumber()
            return True
        return False


class OrderIndex:
    """Position of each op in its block, built once per block on demand, kept current by codegen.

    ``pos(op)`` is a float, increasing along the block. A block is indexed
    the first time :meth:`pos` / :meth:`is_before` / :meth:`next_op` /
    :meth:`prev_op` asks about one of its ops; the ``note_*`` calls keep the
    indexed blocks current and cost nothing for blocks never asked about
    (those are read from the real block when first asked). The fusion core
    itself orders ops with MLIR's own per-block order
    (``Operation.is_before_in_block``: C++, cached per block, updated on
    insertion), so a fusion pass on a 30k-op block never builds the Python
    mirror. An op the index has not seen (created after its block was indexed
    without :meth:`note_inserted_before`) makes the whole block be re-indexed:
    correct, but O(block); passes that create ops should call
    ``note_inserted_before`` or :meth:`invalidate` once after a batch. Erased
    ops must be reported with :meth:`note_erased` (their address may be reused).
    """

    def __init__(self):
        self._blocks: dict = {}  # block_key -> _BlockOrder
        self._of: dict = {}  # op_key -> _BlockOrder

    def invalidate(self) -> None:
        """Forget every position (call after creating/moving ops behind the index's back)."""
        self._blocks.clear()
        self._of.clear()

    def _order_of_key(self, op, k: int) -> _BlockOrder:
        bo = self._of.get(k)
        if bo is not None and k in bo.pos:
            return bo
        block = op.block
        bk = block_key(block)
        old = self._blocks.get(bk)
        if old is not None:
            for ok in old.pos:
                self._of.pop(ok, None)
        bo = _BlockOrder(block)
        self._blocks[bk] = bo
        self._adopt(bo)
        return bo

    def _adopt(self, bo) -> None:
        for ok in bo.pos:
            self._of[ok] = bo

    def pos(self, op) -> float:
        """Position of ``op`` in its block (comparable only within one block)."""
        op = _op(op)
        k = op_key(op)
        return self._order_of_key(op, k).pos[k]

    def is_before(self, a, b) -> bool:
        """``a`` sits before ``b`` in their (common) block."""
        return self.pos(a) < self.pos(b)

    def next_op(self, op):
        """The op after ``op`` in its block (None at the end)."""
        op = _op(op)
        k = op_key(op)
        bo = self._order_of_key(op, k)
        n = bo.nxt.get(k)
        return bo.ops[n] if n is not None else None

    def prev_op(self, op):
        """The op before ``op`` in its block (None at the start)."""
        op = _op(op)
        k = op_key(op)
        bo = self._order_of_key(op, k)
        p = bo.prv.get(k)
        return bo.ops[p] if p is not None else None

    def _indexed_order(self, anchor, ak: int):
        """The :class:`_BlockOrder` of ``anchor``'s block if that block is indexed, else None."""
        bo = self._of.get(ak)
        if bo is not None and ak in bo.pos:
            return bo
        if block_key(anchor.block) not in self._blocks:
            return None  # never asked about: it is read from the real block when first asked
        return self._order_of_key(anchor, ak)

    def note_inserted_before(self, new_op, anchor) -> None:
        """Tell the index that ``new_op`` was created (or moved) right before ``anchor``."""
        self._note_placed(new_op, anchor, before=True)

    def note_moved_after(self, op, anchor) -> None:
        """Tell the index that ``op`` was moved (or created) right after ``anchor``."""
        self._note_placed(op, anchor, before=False)

    def _note_placed(self, op, anchor, before: bool) -> None:
        if not self._blocks:
            return  # nothing indexed yet
        op, anchor = _op(op), _op(anchor)
        ak, k = op_key(anchor), op_key(op)
        self.note_erased(op)
        bo = self._indexed_order(anchor, ak)
        if bo is None:
            return
        self._of[k] = bo
        placed = bo.insert_before(op, k, ak) if before else bo.insert_after(op, k, ak)
        if placed:
            self._adopt(bo)

    def note_erased(self, op) -> None:
        """Tell the index that ``op`` is about to be erased (or moved out of its block)."""
        if not self._of:
            return  # nothing indexed yet
        k = op_key(_op(op))
        bo = self._of.pop(k, None)
        if bo is not None:
            bo.remove(k)


class SymbolNamer:
    """Unique, deterministic symbol names in one module (``neuron.<Kind>.impl``, ``.impl.1``, ...)."""

    def __init__(self, module_op):
        self.module_op = _op(module_op)
        self.taken = set()
        for o in self.module_op.regions[0].blocks[0].operations:
            if "sym_name" in o.operation.attributes:
                self.taken.add(ir.StringAttr(o.operation.attributes["sym_name"]).value)
        self._next: dict[str, int] = {}

    def fresh(self, base: str) -> str:
        """``base`` if free, else ``base.N`` with the smallest free N >= 1."""
        if base not in self.taken:
            self.taken.add(base)
            return base
        n = self._next.get(base, 1)
        while f"{base}.{n}" in self.taken:
            n += 1
        self._next[base] = n + 1
        name = f"{base}.{n}"
        self.taken.add(name)
        return name


def new_decomposition(module_body, sym: str, in_types, out_types, loc, arg_locs):
    """Append a private ``func.func @sym(in_types) -> out_types`` (a composite's decomposition) to ``module_body``.

    Returns its entry block (empty, one argument per input type, at ``arg_locs``).
    Source: DESIGN.md decision 6 (StableHLO fusions are composites with a private decomposition).
    """
    fn = ir.Operation.create(
        "func.func",
        attributes={
            "sym_name": ir.StringAttr.get(sym),
            "function_type": ir.TypeAttr.get(ir.FunctionType.get(in_types, out_types)),
            "sym_visibility": ir.StringAttr.get("private"),
        },
        regions=1, loc=loc, ip=ir.InsertionPoint(module_body))
    return fn.regions[0].blocks.append(*in_types, arg_locs=arg_locs)


def _enclosing_module(op) -> ir.Operation:
    op = _op(op)
    while op is not None and op.name != "builtin.module":
        p = op.parent
        op = _op(p) if p is not None else None
    if op is None:
        raise ValueError("cluster is not inside a builtin.module")
    return op


def _results(op) -> list:
    """``list(op.results)``; one binding object for the usual single-result op."""
    try:
        return [op.result]
    except ValueError:  # zero or several results
        return list(op.results)


def _has_more_uses(v, n: int) -> bool:
    """``v`` has more than ``n`` uses (reads at most ``n + 1`` use-list entries)."""
    i = 0
    for _ in v.uses:
        i += 1
        if i > n:
            return True
    return False


def _nested_post_order(op, out: list, defined: set) -> None:
    """Append the ops nested in ``op`` to ``out`` in walk post-order; add every value they define to ``defined``.

    Post-order as ``Operation.walk``: an op after the ops nested in it; regions,
    blocks and ops in order. ``defined`` gets :func:`value_key` of block
    arguments and nested results.
    """
    for region in op.regions:
        for b in region.blocks:
            for a in b.arguments:
                defined.add(hash(a))
            for o in b.operations:
                o = o.operation
                if len(o.regions):
                    _nested_post_order(o, out, defined)
                out.append(o)
                for r in o.results:
                    defined.add(hash(r))


class FusionCluster:
    """A set of ops of one block that becomes one fused op (seed 000 ``FusionCluster``).

    Args:
        ops: the member ops (``ir.Operation`` or OpView), all in one block, any
            order; duplicates are ignored. Members are kept in block order
            (def-before-use), which is the topological order the region needs.
        kind: the FusionKind / CompositeKind string (``"DotLogistic"``,
            ``"MulRedSqrt"``, ``"Elementwise"``, ``"Expm1"``, ``"Log1p"``,
            ``"ScheduleFusion"``).
        order: an :class:`OrderIndex` shared by the pass (a private one if None).
        one_block: the caller has already checked that all ``ops`` sit directly
            in one block (every NeuronOpFusion matcher does): the per-op check
            is skipped.

    Attributes:
        kind: as given.
        members: :class:`OpSet` (insertion-ordered, O(1) ``in``) in block order.
        block: the ``ir.Block`` holding the members.
        live_ins: operand values (of members or of ops nested in members) defined
            outside the cluster, or block arguments; first-use order, no duplicates.
        live_outs: member results with at least one user outside the cluster
            (a user in a nested region counts as its ancestor in ``block``), in
            member order then result number.
        fused: the fused op once :func:`codegen` made it, else None.
        moved: the dependent ops :func:`codegen` moved after the fused op (block order).

    Raises:
        ValueError: no ops, or ops in different blocks.
    """

    def __init__(self, ops, kind: str, order: OrderIndex | None = None, *, one_block: bool = False):
        ops = [o if isinstance(o, ir.Operation) else o.operation for o in ops]
        if not ops:
            raise ValueError("FusionCluster needs at least one op")
        self.kind = kind
        self.order = order if order is not None else OrderIndex()
        self.block = block = ops[0].block
        if not one_block:  # else the caller has checked that every op sits directly in one block
            for o in ops:
                b = o.block
                if b is None or b != block:
                    raise ValueError(f"FusionCluster '{kind}': ops {ops[0].name} and {o.name} are not in one block")
        # distinct members with their results (read once; results are needed for the live sets)
        seen: dict = {}
        for o in ops:
            res = _results(o)
            # identity: the address of result 0 (a value hash) or, for an op without results, of the op
            k = hash(res[0]) if res else op_key(o)
            if k not in seen:
                seen[k] = (o, res)
        pairs = sorted_in_block(list(seen.values()), key=_first)
        self.members = OpSet.of_distinct([o for o, _ in pairs])
        self.fused = None
        self.moved: list = []  # after codegen: the dependent ops it moved after the fused op
        self._compute_live([res for _, res in pairs])

    # -- live-ins / live-outs ------------------------------------------------------

    def _compute_live(self, results=None) -> None:
        """Live-ins, live-outs and the uses codegen rewires; each member and nested op visited once.

        Values are told apart by :func:`value_key`. An operand is internal if a
        member defines it, or (for an op nested in member ``m``) if it is
        defined inside ``m``'s regions; every other operand is a live-in. A
        member result is a live-out if it has more uses than internal ones;
        only results with both kinds of use look at each use's owner.
        """
        block, members = self.block, self.members
        mlist = list(members)
        if results is None:
            results = [_results(m) for m in mlist]
        result_keys = [[hash(r) for r in rs] for rs in results]  # value_key of each member result
        member_vals = {k for ks in result_keys for k in ks}
        internal: dict = {}  # value_key of a member result -> its uses by members / ops nested in them
        live_ins: dict = {}  # value_key -> value
        inside_uses: list = []  # (owner op, operand number, live-in value key)
        live_outs: list = []
        outside_uses: list = []  # (owner op, operand number, live-out index)

        def scan_operands(o, defined):
            i = 0
            for v in o.operands:
                vk = hash(v)  # == value_key(v)
                if vk in member_vals:
                    internal[vk] = internal.get(vk, 0) + 1
                elif defined is None or vk not in defined:
                    if vk not in live_ins:
                        live_ins[vk] = v
                    inside_uses.append((o, i, vk))
                i += 1

        for m in mlist:
            scan_operands(m, None)
            if len(m.regions):
                nested: list = []
                defined: set = set()  # value_key of values defined inside m's regions
                _nested_post_order(m, nested, defined)
                for o in nested:
                    scan_operands(o, defined)
        for rs, ks in zip(results, result_keys):
            for r, rk in zip(rs, ks):
                n_in = internal.get(rk, 0)
                outside = None
                if n_in == 0:
                    outside = [(_op(use.owner), use.operand_number) for use in r.uses]
                elif _has_more_uses(r, n_in):
                    outside = []
                    for use in r.uses:
                        owner = _op(use.owner)
                        anc = ancestor_in_block(owner, block)
                        if anc is None or anc not in members:
                            outside.append((owner, use.operand_number))
                if outside:
                    k = len(live_outs)
                    live_outs.append(r)
                    for o, n in outside:
                        outside_uses.append((o, n, k))
        self.live_ins = list(live_ins.values())
        self._live_in_keys = list(live_ins)
        self.live_outs = live_outs
        self._inside_uses = inside_uses
        self._outside_uses = outside_uses

    # -- legality ------------------------------------------------------------------

    @property
    def first(self) -> ir.Operation:
        """The first member in block order."""
        return self.members.first()

    @property
    def last(self) -> ir.Operation:
        """The last member in block order (where the fused op goes)."""
        return self.members.last()

    def dependent_ops(self):
        """Non-members before the last member that (transitively) use a live-out.

        Returns:
            ``(ops, convex)``: the ops in block order (what
            ``recursivelyMoveDependentOps`` moves after the fused op) and False if
            one of them feeds a member (a path leaves the cluster and comes back).
            Cost: the ops visited, each once.
        """
        block, members, last = self.block, self.members, self.last
        seen = None  # OpSet, made for the first op found before the last member
        stack = []
        for owner, _n, _k in self._outside_uses:
            anc = ancestor_in_block(owner, block)
            if anc is not None and anc.is_before_in_block(last):
                if seen is None:
                    seen = OpSet()
                if anc not in seen:
                    seen.add(anc)
                    stack.append(anc)
        if seen is None:
            return [], True
        while stack:
            u = stack.pop()
            for r in u.results:
                for use in r.uses:
                    w = ancestor_in_block(_op(use.owner), block)
                    if w is None or w in seen:
                        continue
                    if w in members:
                        return [], False
                    if w.is_before_in_block(last):
                        seen.add(w)
                        stack.append(w)
        return sorted_in_block(list(seen)), True

    def is_convex(self) -> bool:
        """True if no path goes from a member through a non-member back into a member."""
        return self.dependent_ops()[1]

    def __len__(self) -> int:
        return len(self.members)

    def __contains__(self, op) -> bool:
        return _op(op) in self.members

    def __repr__(self) -> str:  # pragma: no cover
        return f"FusionCluster({self.kind}, {[m.name for m in self.members]})"


def recursively_move_dependent_ops(fused, dependent, order: OrderIndex | None = None) -> None:
    """Move ``dependent`` (block order) right after ``fused`` (seed 000 ``recursivelyMoveDependentOps``).

    ``dependent`` must be every op between the cluster's first member and
    ``fused`` that transitively uses a result of ``fused``
    (:meth:`FusionCluster.dependent_ops`); keeping their order keeps their own
    def-use edges legal.
    """
    anchor = _op(fused)
    for o in dependent:
        o.move_after(anchor)
        if order is not None:
            order.note_moved_after(o, anchor)
        anchor = o


def _fill_body(cluster: FusionCluster, body, fused, term_name: str, order, loc=None) -> None:
    """Move members into ``body`` (before a new terminator), rewire live-ins to block args, live-outs to ``fused``.

    ``loc``: the fused op's location (read from ``fused`` if None).
    """
    term = ir.Operation.create(term_name, operands=list(cluster.live_outs), loc=loc if loc is not None else fused.location,
                               ip=ir.InsertionPoint(body))
    arg_of = dict(zip(cluster._live_in_keys, body.arguments))
    track = order is not None and bool(order._blocks)  # a block nobody asked about is not mirrored
    if track:
        order.note_inserted_before(fused, cluster.last)
    for m in cluster.members:
        if track:
            order.note_erased(m)
        m.move_before(term)
    operands_of: dict = {}  # id(owner object) -> its operand list (the owners are kept alive by the use lists)
    for owner, n, vk in cluster._inside_uses:
        ops = operands_of.get(id(owner))
        if ops is None:
            ops = operands_of[id(owner)] = owner.operands
        ops[n] = arg_of[vk]
    results = list(fused.results)
    for owner, n, k in cluster._outside_uses:
        owner.operands[n] = results[k]


def codegen(cluster: FusionCluster, d: DialectTable = MHLO, order: OrderIndex | None = None,
            namer: SymbolNamer | None = None):
    """Turn ``cluster`` into one fused op (seed 000 ``FusionCluster::codeGen``).

    MHLO: ``mhlo.fusion`` with operands = live-ins, one block argument per
    live-in, the members moved in block order, ``mhlo.return`` of the
    live-outs, discardable ``FusionKind = "<kind>"`` (mhlo's own
    ``fusion_kind`` enum is left unset), a FusedLoc of the member locations;
    outside users of live-outs read the fusion results.

    StableHLO (``d`` is ``STABLEHLO``; DESIGN.md decision 6 and "StableHLO
    fusions are composites"): ``stablehlo.composite "neuron.<kind>"
    {composite_attributes = {}, decomposition = @neuron.<kind>.impl[.N],
    version = 1 : i32, CompositeKind = "<kind>"}`` and a private ``func.func``
    decomposition (appended to the module) whose body is the members and whose
    ``func.return`` returns the live-outs; its signature is (live-in types) ->
    (live-out types), as the composite verifier demands.

    Then dominance is restored: non-members between the first and the last
    member that depend on a live-out move after the fused op
    (``recursivelyMoveDependentOps``).

    Args:
        cluster: the cluster (not yet generated).
        d: the dialect table (``MHLO`` / ``STABLEHLO``).
        order: the pass's :class:`OrderIndex` (kept current); default: the cluster's.
        namer: a :class:`SymbolNamer` for the module (StableHLO; one is made if None).

    Returns:
        The fused ``ir.Operation``, or None when the cluster is refused: not
        convex, no live-out (it would be dead), or a dependent op that would
        have to move has side effects (DESIGN.md "Rules of the IR"). A refused
        cluster leaves the IR untouched.

    Raises:
        ValueError: ``codegen`` called twice on one cluster.
    """
    order = order if order is not None else cluster.order
    if cluster.fused is not None:
        raise ValueError("codegen called twice on one FusionCluster")
    if not cluster.live_outs:
        return None
    dependent, convex = cluster.dependent_ops()
    if not convex:
        return None
    if any(has_side_effects(o) for o in dependent):
        return None
    last = cluster.last
    with last.context:
        loc = ir.Location.fused([m.location for m in cluster.members])
        out_types = [v.type for v in cluster.live_outs]
        in_types = [v.type for v in cluster.live_ins]
        arg_locs = [loc] * len(in_types)
        if d.prefix == "mhlo":
            fused = ir.Operation.create(
                "mhlo.fusion", results=out_types, operands=list(cluster.live_ins),
                attributes={FUSION_KIND_ATTR: ir.StringAttr.get(cluster.kind)},
                regions=1, loc=loc, ip=ir.InsertionPoint(last))
            body = fused.regions[0].blocks.append(*in_types, arg_locs=arg_locs)
            _fill_body(cluster, body, _op(fused), "mhlo.return", order, loc)
        else:
            module_op = _enclosing_module(last)
            namer = namer if namer is not None else SymbolNamer(module_op)
            sym = namer.fresh(f"neuron.{cluster.kind}.impl")
            fbody = new_decomposition(module_op.regions[0].blocks[0], sym, in_types, out_types, loc, arg_locs)
            fused = ir.Operation.create(
                "stablehlo.composite", results=out_types, operands=list(cluster.live_ins),
                attributes={
                    "name": ir.StringAttr.get(f"neuron.{cluster.kind}"),
                    "composite_attributes": ir.DictAttr.get({}),
                    "decomposition": ir.FlatSymbolRefAttr.get(sym),
                    "version": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), COMPOSITE_VERSION),
                    COMPOSITE_KIND_ATTR: ir.StringAttr.get(cluster.kind),
                },
                loc=loc, ip=ir.InsertionPoint(last))
            _fill_body(cluster, fbody, _op(fused), "func.return", order, loc)
    fused = _op(fused)
    recursively_move_dependent_ops(fused, dependent, order)
    cluster.fused = fused
    cluster.moved = dependent
    return fused
