"""The entry block of a function as the scheduling passes read it: an analysis of the manager.

``schedule-postorder`` (which reorders the block and reads it anyway),
``analyze-schedule`` (live ranges) and ``hoist-compute`` (what depends only on
parameters) need the same facts of a function's entry block: its ops in order,
the values each op reads (its operands and those of the ops nested in it), its
results, and whether it may have side effects. :class:`EntryBlock` holds them;
``ctx.get_analysis(EntryBlock, func_op)`` builds it once and the analysis
manager keeps it while the IR changes in ways that leave it valid
(:attr:`EntryBlock.preserved_by`). schedule-postorder hands over the one it
computed while reordering (``ctx.analyses.put``), so the steps after it do
not read the block again; the StableHLO fusion codegen puts the one of each
decomposition function it fills (:func:`of_new_function`, from what the
cluster read), so schedule-postorder need not read those functions either.

What keeps it valid: attribute changes and type changes. Neither alters the
ops, their order, their operands or their results (value handles; a type is
read from the value when needed), and no stored effect answer depends on an
attribute: the only effect that does -- a ``composite``'s, decided by its
``decomposition`` function, i.e. by an attribute *and* by another function
of the module -- is not stored but left for :meth:`EntryBlock.effect` to ask
at use time. Any other change (an op created, erased or moved, an operand or
a block argument changed) invalidates it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hilo_mlir.analysis.census import REGION_FREE
from hilo_mlir.ir.binding import checking_mode_enabled, identity_key, ir
from hilo_mlir.ir.dialects import TERMINATORS, hlo_short_name
from hilo_mlir.ir.effects import _UNKNOWN, EffectOracle
from hilo_mlir.ir.utils import block_ops
from hilo_mlir.rewrite.rewriter import Change

if TYPE_CHECKING:
    from hilo_mlir.analysis.census import Census
    from hilo_mlir.analysis.manager import AnalysisManager
    from hilo_mlir.ir.handles import Op, Value


class LeafEffects:
    """:class:`~hilo_mlir.ir.effects.EffectOracle`'s own-effect answer per op, memoized per op name.

    An op's own effect (its regions not counted) depends only on its name,
    except for a ``composite`` (its decomposition decides): those are asked
    per op, through the oracle's per-callee memo, and never enter
    :attr:`by_name`. Same model as :mod:`hilo_mlir.ir.effects`.

    Attributes:
        oracle: the :class:`~hilo_mlir.ir.effects.EffectOracle` asked.
        by_name: ``{op name: own effect}`` of the non-composite names seen.
    """

    def __init__(self, oracle: EffectOracle) -> None:
        self.oracle = oracle
        self.by_name: dict[str, bool] = {}

    def __call__(self, op: ir.Operation, name: str) -> bool:
        """The own effect of ``op`` (whose name is ``name``)."""
        r = self.by_name.get(name)
        if r is None:
            r = self.oracle._leaf_effect(op)
            if not is_composite(name):
                self.by_name[name] = r
        return r


class CensusEffectOracle(EffectOracle):
    """An :class:`~hilo_mlir.ir.effects.EffectOracle` that answers a composite's decomposition from the
    census's op names (:meth:`~hilo_mlir.analysis.census.Census.names_in`) instead of walking it.

    The oracle's model decides a function body by the names of the ops in it
    (any side-effecting name; a composite among them by its own decomposition,
    recursively), so the set of names the census keeps for the function gives
    the same answer with no IR read. The StableHLO spine's ``main`` holds one
    composite per fused cluster, each with its own decomposition function: the
    walks of those functions were most of schedule-postorder's cost there.

    With ``analyses``, a function whose :class:`EntryBlock` the manager keeps
    with its maker's promise of one block (:attr:`EntryBlock.nested_blocks`;
    the fusion codegen's, for a new decomposition) and every effect known (no
    composite) is answered from that EntryBlock's effects, not even the names
    are read.

    The checking mode (``HILO_MLIR_CHECK_ANALYSES=1``) compares every answer
    with the oracle's walk and raises AssertionError on a difference.

    Args:
        anchor_op: as :class:`~hilo_mlir.ir.effects.EffectOracle`.
        census: the module's census (kept current by the rewriter).
        analyses: the run's analysis manager (kept EntryBlocks), or None.
    """

    def __init__(self, anchor_op: Op, census: Census, analyses: AnalysisManager | None = None) -> None:
        super().__init__(anchor_op)
        self._census = census
        self._analyses = analyses
        self._check = checking_mode_enabled() or bool(analyses is not None and analyses.checking)

    def _body_effect(self, f: Op) -> bool:
        found = self._kept_effect(f)
        if found is None:
            found = self._names_effect(f)
        if self._check:
            slow = EffectOracle._body_effect(self, f)
            if slow != found:
                raise AssertionError(f"CensusEffectOracle: the census says {found} for a function body, a walk says {slow}")
        return found

    def _kept_effect(self, f: Op) -> bool | None:
        """The body effect of ``f`` from its kept :class:`EntryBlock` (see the class doc), or None."""
        if self._analyses is None:
            return None
        info = self._analyses.cached(EntryBlock, f)
        if info is None or info.nested_blocks is None or None in info.effects:
            return None
        return any(info.effects)

    def _names_effect(self, f: Op) -> bool:
        """The body effect of ``f`` from the census's op names of it."""
        names = self._census.names_in(f)
        found = False
        by_name, name_effect = self._by_name, self._name_effect
        for name in sorted(names):  # sorted: the same visiting order on every run
            if name == "func.func":
                continue
            eff = by_name.get(name, _UNKNOWN)
            if eff is _UNKNOWN:
                eff = name_effect(name)
            if eff is None:  # composites: each by its decomposition
                eff = any(self._composite(op) for op in self._census.ops_named(f, name, any_order=True))
            if eff:
                found = True
                break
        return found


def is_composite(name: str) -> bool:
    """True for ``stablehlo.composite`` / ``mhlo.composite`` (an effect decided by another function)."""
    return hlo_short_name(name) == "composite"


def _nested_summary(op: ir.Operation, leaf: LeafEffects) -> tuple[list[int], bool, bool]:
    """One walk of ``op`` (``op`` included): the ``hash`` of the operands of every op,
    whether one of them has an effect of its own, and whether one is a composite."""
    out: list[int] = []
    extend = out.extend
    found = composite = False
    by_name = leaf.by_name
    advance = ir.WalkResult.ADVANCE

    def visit(inner: ir.Operation) -> ir.WalkResult:
        nonlocal found, composite
        extend(map(hash, inner.operands))
        name = inner.name
        e = by_name.get(name)
        if e is None:
            e = leaf(inner, name)
            if is_composite(name):
                composite = True
        found = found or e
        return advance

    op.walk(visit)
    return out, found, composite


class EntryBlock:
    """The entry block of a ``func.func`` (see the module doc); ``EntryBlock(func_op, am)``.

    Args:
        func_op: a ``func.func`` with a body.
        am: the analysis manager (unused: this analysis builds on no other); None
            when built by the checking mode or directly.

    Attributes (one entry per op, in block order, terminator last):
        ops: the ``ir.Operation`` s.
        inputs: ``hash(value)`` (a value hashes to its C++ pointer) of the op's
            operands and of the operands of every op nested in its regions (its
            captures among them); unordered, may repeat.
        results: the op's result values.
        result_ids: ``hash`` of each of them (the same order).
        effects: may the op (or an op nested in it) have side effects: True or
            False, decided by op names; None when a ``composite`` takes part
            (ask :meth:`effect`).
        nested_blocks: None (unknown), or a promise of the maker that the
            function has this one block and that the blocks nested in its ops
            are ``nested_blocks`` blocks ending in a known terminator (plus any
            without one) and none has two ops or more before its terminator:
            schedule-postorder can move nothing in them. Only
            :func:`of_new_function` (the fusion codegen) makes that promise;
            schedule-postorder's checking mode verifies it.
        sourceless: a promise of the maker (only :func:`of_new_function` makes it; False
            otherwise: unknown) that every op before the terminator has an operand of its own.
            In a function without parameters no op then depends on constants alone:
            hoist-compute has nothing to hoist there (its checking mode verifies it).
        arguments: the entry block's arguments (values, in order), or None: not read
            (:meth:`entry_arguments` reads them then).
    """

    __slots__ = ("arguments", "effects", "inputs", "nested_blocks", "ops", "result_ids", "results", "sourceless")

    #: the change kinds that leave it valid (module doc)
    preserved_by = Change.ATTRIBUTE | Change.TYPE

    def __init__(self, func_op: Op, am: AnalysisManager | None = None) -> None:
        self.nested_blocks: int | None = None
        self.sourceless = False
        leaf = LeafEffects(EffectOracle(func_op))
        by_name = leaf.by_name
        block = func_op.regions[0].blocks[0]
        self.arguments: list[Value] | None = list(block.arguments)
        self.ops: list[ir.Operation] = block_ops(block)
        self.inputs: list[list[int]] = []
        self.results: list[list[Value]] = []
        self.result_ids: list[list[int]] = []
        self.effects: list[bool | None] = []
        e: bool | None
        for o in self.ops:
            if len(o.regions):
                values, e, composite = _nested_summary(o, leaf)
            else:
                values = list(map(hash, o.operands))
                name = o.name
                e = by_name.get(name)
                if e is None:
                    e = leaf(o, name)
                composite = is_composite(name)
            self.inputs.append(values)
            results: list[Value] = list(o.results)
            self.results.append(results)
            self.result_ids.append(list(map(hash, results)))
            self.effects.append(None if composite else bool(e))

    @classmethod
    def from_parts(
        cls,
        ops: list[ir.Operation],
        inputs: list[list[int]],
        results: list[list[Value]],
        effects: list[bool | None],
        result_ids: list[list[int]] | None = None,
    ) -> EntryBlock:
        """An entry block read by a pass while it rewrote it (fields as in the class doc; ``result_ids``
        hashed from ``results`` if None)."""
        self = cls.__new__(cls)
        self.ops, self.inputs, self.results, self.effects = ops, inputs, results, effects
        self.nested_blocks = None
        self.sourceless = False
        self.arguments = None
        self.result_ids = result_ids if result_ids is not None else [list(map(hash, rs)) for rs in results]
        return self

    def permuted(self, order: list[int]) -> EntryBlock:
        """The same block after reordering its body into ``order`` (positions; the terminator stays last)."""
        order = order + [len(self.ops) - 1]
        out = EntryBlock.from_parts(
            [self.ops[i] for i in order],
            [self.inputs[i] for i in order],
            [self.results[i] for i in order],
            [self.effects[i] for i in order],
            [self.result_ids[i] for i in order],
        )
        out.sourceless, out.arguments = self.sourceless, self.arguments  # neither depends on the order
        return out

    def effect(self, k: int, oracle: EffectOracle) -> bool:
        """May op ``k`` have side effects: the stored answer, or ``oracle``'s for a composite."""
        e = self.effects[k]
        return oracle(self.ops[k]) if e is None else e

    def entry_arguments(self, func_op: Op) -> list[Value]:
        """The arguments of ``func_op``'s entry block: :attr:`arguments` if the maker gave them, else read."""
        args = self.arguments
        if args is None:
            return list(func_op.regions[0].blocks[0].arguments)
        return args

    def differences(self, fresh: EntryBlock) -> list[str]:
        """How this analysis differs from ``fresh`` (one read of the IR as it is now); [] if equal."""
        mine = [identity_key(o) for o in self.ops]
        theirs = [identity_key(o) for o in fresh.ops]
        if mine != theirs:
            return [f"entry block ops differ ({len(mine)} kept, {len(theirs)} now, or a different order)"]
        out: list[str] = []
        if self.arguments is not None and fresh.arguments is not None:
            kept, now = list(map(hash, self.arguments)), list(map(hash, fresh.arguments))
            if kept != now:
                out.append(f"entry block arguments differ ({len(kept)} kept, {len(now)} now, or others)")
        for k, o in enumerate(self.ops):
            what: list[str] = []
            if set(self.inputs[k]) != set(fresh.inputs[k]):
                what.append("inputs")
            if self.result_ids[k] != fresh.result_ids[k] or [hash(r) for r in self.results[k]] != self.result_ids[k]:
                what.append("results")
            if self.effects[k] != fresh.effects[k]:
                what.append("effects")
            if what:
                out.append(f"op #{k} ('{o.name}'): {', '.join(what)} differ")
        return out


def nested_reads(op: ir.Operation, leaf: LeafEffects) -> tuple[list[int], bool, bool, int | None]:
    """What schedule-postorder reads of the ops nested in ``op`` (``op``'s own operands not included).

    Returns:
        ``(hashes, effect, composite, blocks)``: the ``hash`` of the operands of
        every nested op in the scheduler's order (per region, block and op: the
        ops nested in it first, then its operands); whether a nested op has an
        effect of its own; whether one is a ``composite``; and the number of
        nested blocks that end in a known terminator if none of them has two
        ops or more before it (nothing in them can move), else None.
    """
    out: list[int] = []
    extend = out.extend
    by_name = leaf.by_name
    found = composite = False
    count = 0
    fixed = True

    def visit_block(b: ir.Block) -> None:
        nonlocal found, composite, count, fixed
        ops = block_ops(b)
        if ops and ops[-1].name in TERMINATORS:
            count += 1
            if len(ops) > 2:
                fixed = False
        for o in ops:
            if len(o.regions):
                for region in o.regions:
                    for inner in region.blocks:
                        visit_block(inner)
            extend(map(hash, o.operands))
            name = o.name
            e = by_name.get(name)
            if e is None:
                e = leaf(o, name)
                if is_composite(name):
                    composite = True
            found = found or e

    for region in op.regions:
        for b in region.blocks:
            visit_block(b)
    return out, found, composite, count if fixed else None


def of_new_function(
    ops: list[ir.Operation],
    operand_keys: list[list[int]],
    results: list[list[Value]],
    rename: dict[int, int],
    leaf: LeafEffects,
    result_ids: list[list[int]] | None = None,
    arguments: list[Value] | None = None,
) -> EntryBlock:
    """The :class:`EntryBlock` of a function its maker just filled, from what the maker read already.

    The fusion codegen moves a cluster's members into a new decomposition
    function (one block) and ends it with a ``func.return``; it knows each
    member's operands (``operand_keys``: their ``hash`` before the move, one
    list per op, the terminator's last) and results (``results``, the
    terminator's ``[]``). ``rename``: ``{hash of an old operand: hash of the
    block argument that replaced it}`` (the live-ins). Only the ops with
    regions are read (their nested ops, :func:`nested_reads`); the result sets
    :attr:`EntryBlock.nested_blocks` when every nested block is fixed.
    ``leaf``: the own-effect memo to ask. ``result_ids``: the ``hash`` of each
    result if the maker has them (else hashed here). ``arguments``: the function's entry
    block arguments if the maker has them (kept as :attr:`EntryBlock.arguments`). The result
    promises :attr:`EntryBlock.sourceless` when every op but the last (the terminator) has
    operands (``operand_keys`` non-empty).
    """
    inputs: list[list[int]] = []
    effects: list[bool | None] = []
    nested_total: int | None = 0
    by_name = leaf.by_name
    get = rename.get
    for o, keys in zip(ops, operand_keys):
        ks = [get(h, h) for h in keys] if rename else list(keys)
        name = o.name
        e = by_name.get(name)
        composite = False  # a composite never enters by_name
        if e is None:
            e = leaf(o, name)
            composite = is_composite(name)
        if name not in REGION_FREE and len(o.regions):  # a kind without regions is not asked
            nested, e2, c2, blocks = nested_reads(o, leaf)
            ks += nested
            e = e or e2
            composite = composite or c2
            nested_total = None if blocks is None or nested_total is None else nested_total + blocks
        inputs.append(ks)
        effects.append(None if composite else bool(e))
    info = EntryBlock.from_parts(list(ops), inputs, results, effects, result_ids)
    info.nested_blocks = nested_total
    info.sourceless = all(operand_keys[:-1])
    info.arguments = arguments
    return info
