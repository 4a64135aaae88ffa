"""The shared codegen: one :class:`~hilo_mlir.fusion.cluster.FusionCluster` becomes one fused op.

Nothing else in the project creates ``mhlo.fusion`` or ``neuron.*``
composites. The dialect table decides the form:

* MHLO (``d.fusion_is_composite`` False): ``mhlo.fusion {FusionKind =
  "<kind>"}`` with operands = live-ins, one block argument per live-in, the
  members moved into its region in block order and ``mhlo.return`` of the
  live-outs (mhlo's own ``fusion_kind`` enum is left unset);
* StableHLO: ``stablehlo.composite "neuron.<kind>"`` (attributes from
  :func:`~hilo_mlir.fusion.composite.composite_attributes`) calling a private
  ``func.func @neuron.<kind>.impl[.N]`` appended to the module, whose body is
  the members and whose ``func.return`` returns the live-outs; its signature
  is (live-in types) -> (live-out types), as the composite verifier demands.

Either way the fused op takes a ``FusedLoc`` of the member locations and sits
at the position of the last member (every live-in is defined before some
member, hence before it); outside users of live-outs read its results.
Dominance is then restored: the non-members between the first and the last
member that (transitively) use a live-out move, in their order, right after
the fused op (:func:`recursively_move_dependent_ops`).

Every mutation goes through the :class:`~hilo_mlir.rewrite.rewriter.Rewriter`; the
:class:`~hilo_mlir.fusion.order.OrderIndex` of the pass is told where each
op went.
"""

from __future__ import annotations

from dataclasses import dataclass

from hilo_mlir.analysis.entry_block import EntryBlock, LeafEffects, of_new_function
from hilo_mlir.fusion.cluster import FusionCluster
from hilo_mlir.fusion.composite import SymbolNamer, composite_attributes, decomposition_base, new_decomposition_returning
from hilo_mlir.fusion.order import OrderIndex
from hilo_mlir.ir import effects
from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import FUSION_KIND_ATTR, DialectTable
from hilo_mlir.ir.effects import EffectOracle
from hilo_mlir.ir.utils import as_op, enclosing_module

__all__ = ["NOT_CONVEX", "NO_LIVE_OUT", "SIDE_EFFECTING_DEPENDENT", "Refusal", "check_legal", "codegen", "recursively_move_dependent_ops"]

#: refusal reasons of the codegen (the fusion report's vocabulary, ``docs/fusion_report.md``)
NO_LIVE_OUT = "no-live-out"
NOT_CONVEX = "not-convex"
SIDE_EFFECTING_DEPENDENT = "side-effecting-dependent"


@dataclass(frozen=True)
class Refusal:
    """Why the codegen refused a cluster.

    Attributes:
        reason: :data:`NO_LIVE_OUT` (nothing outside uses the cluster: it
            would be dead), :data:`NOT_CONVEX` (a path leaves the cluster and
            comes back in) or :data:`SIDE_EFFECTING_DEPENDENT` (an op that
            would have to move after the fused op has side effects).
        op: the op that decided it: the non-member on the path back into the
            cluster, or the side-effecting dependent op; None for ``no-live-out``.
        member: for ``not-convex``, the member that path re-enters.
    """

    reason: str
    op: object = None
    member: object = None


def check_legal(cluster: FusionCluster) -> tuple[list, Refusal | None]:
    """``(dependent ops, None)`` if ``cluster`` may be fused, else ``([], Refusal)``.

    Refused: no live-out, not convex, or a dependent op (one that must move
    after the fused op) has side effects -- ops with side effects are never
    moved across the fused ops.
    """
    if not cluster.live_outs:
        return [], Refusal(NO_LIVE_OUT)
    dependent, convex = cluster.dependent_ops()
    if not convex:
        u, w = cluster.reentry if cluster.reentry is not None else (None, None)
        return [], Refusal(NOT_CONVEX, u, w)
    for o in dependent:
        if effects.has_side_effects(o):
            return [], Refusal(SIDE_EFFECTING_DEPENDENT, o)
    return dependent, None


def recursively_move_dependent_ops(fused, dependent, rewriter, order: OrderIndex | None = None) -> None:
    """Move ``dependent`` (block order) right after ``fused`` (``recursivelyMoveDependentOps``).

    ``dependent`` must be every op between the cluster's first member and
    ``fused`` that transitively uses a result of ``fused``
    (:meth:`FusionCluster.dependent_ops`); keeping their order keeps their own
    def-use edges legal.
    """
    anchor = as_op(fused)
    for o in dependent:
        rewriter.move_after(o, anchor)
        if order is not None:
            order.note_moved_after(o, anchor)
        anchor = o


def _fused_results(cluster: FusionCluster, fused) -> list:
    """``fused``'s results, one per live-out of ``cluster``."""
    return [fused.result] if len(cluster.live_outs) == 1 else list(fused.results)


def _rewire_whole(cluster: FusionCluster, results: list, rewriter, top: int | None) -> None:
    """Every use of a live-out whose uses are all outside and after the cluster now reads its result of
    the fused op (``results``; ``top``: the fused op's top-level op); before the body's terminator is
    made (it reads the live-outs too)."""
    live_outs = cluster.live_outs
    for k in cluster._rewired_whole:  # a result of the last member that no member uses: all its uses are outside
        rewriter.replace_all_uses_with(live_outs[k], results[k], top)


def _fill_body(cluster: FusionCluster, members: list, body, fused, results: list, term, rewriter, order, fn, tops: tuple):
    """Move ``members`` (the cluster's, in block order) into ``body`` before ``term`` (its terminator,
    returning the live-outs); rewire live-in uses to ``body``'s arguments and live-out uses to ``fused``'s
    ``results`` (:func:`_rewire_whole` has rewired the live-outs whose uses are all after the cluster).
    ``fn``: the decomposition function ``body`` is the entry block of (another top-level op than
    ``fused``'s), or None: ``body`` is ``fused``'s own region's. ``tops``: ``(fused's top-level op,
    body's)`` (the rewriter is told them, not asked)."""
    track = order is not None and order.tracking  # a block nobody asked about is not mirrored
    if track:
        order.note_inserted_before(fused, members[-1])
        if not order.listens_to(rewriter):  # else the index forgets the members as it hears them move
            for m in members:
                order.note_erased(m)
    rewriter.move_all_before(members, term, within=fused, tops=tops)  # distinct (an OpSet), in fused's block
    updates: list = []
    if cluster._inside_uses:
        arg_of = dict(zip(cluster._live_in_keys, body.arguments))
        updates = [(owner, n, arg_of[vk]) for owner, n, vk in cluster._inside_uses]
    if fn is not None and updates:  # the members are in the decomposition function now, the other users in fused's
        rewriter.set_operands(updates, within=fn, top=tops[1])
        updates = []
    for outside in (cluster._outside_uses, cluster._after_uses):
        if outside:
            updates += [(owner, n, results[k]) for owner, n, k in outside]
    if updates:
        rewriter.set_operands(updates, within=fused, top=tops[0])  # users of live-outs (and members in fused's body): fused's function


def _hand_over_entry_block(cluster: FusionCluster, members: list, body, fn, term, analyses, namer: SymbolNamer, top) -> None:
    """Give ``analyses`` the :class:`~hilo_mlir.analysis.entry_block.EntryBlock` of the decomposition
    function ``fn`` just filled (``body``: its block; ``term``: its ``func.return``), from what the cluster
    read: its members' operands (live-ins renamed to ``body``'s arguments) and results. Only the
    members with regions are read again. The checking mode compares it with a fresh one after the pass.
    ``top``: ``fn``'s ``identity_key`` (it is a top-level op), or None (read)."""
    leaf = namer.leaf_effects
    if leaf is None:
        leaf = namer.leaf_effects = LeafEffects(EffectOracle(fn))
    keys = cluster._live_in_keys
    args = list(body.arguments) if keys else []  # one argument per live-in
    rename = {vk: hash(a) for vk, a in zip(keys, args)} if keys else {}
    info = of_new_function(
        [*members, term],
        [*cluster.operand_keys, [hash(v) for v in cluster.live_outs]],
        [*cluster.member_results, []],
        rename,
        leaf,
        [*cluster.member_result_keys, []],
        args,
    )
    analyses.put(EntryBlock, fn, info, top)


def _fusion_op(cluster: FusionCluster, d: DialectTable, rewriter, loc, in_types, out_types, last, memo: dict | None, top):
    """An ``mhlo.fusion`` before ``last`` (the last member; ``top``: its top-level op); returns ``(op, its
    body block, None)``. ``memo``: attributes made once per kind (:attr:`SymbolNamer.attributes`-like, one context)."""
    kind = cluster.kind
    attrs = memo.get(kind) if memo is not None else None
    if attrs is None:
        attrs = {FUSION_KIND_ATTR: ir.StringAttr.get(kind)}
        if memo is not None:
            memo[kind] = attrs
    fused = rewriter.create(
        d.fusion, results=out_types, operands=cluster.live_ins, attributes=attrs, regions=1, loc=loc, before=last, top=top
    )
    body = rewriter.create_block(fused.regions[0], in_types, [loc] * len(in_types), owner=fused)
    return fused, body, None


def _composite_op(cluster: FusionCluster, d: DialectTable, rewriter, namer, loc, out_types, last, top):
    """A ``neuron.<kind>`` composite before ``last`` (the last member; ``top``: its top-level op) calling a fresh decomposition
    symbol; returns ``(op, the symbol, the namer)`` (the decomposition is made by
    :func:`~hilo_mlir.fusion.composite.new_decomposition_returning`)."""
    if namer is None:
        module_op = enclosing_module(last)
        if module_op is None:
            raise ValueError("cluster is not inside a builtin.module")
        namer = SymbolNamer(module_op)
    sym = namer.fresh(decomposition_base(cluster.kind))
    fused = rewriter.create(
        d.fusion,
        results=out_types,
        operands=cluster.live_ins,
        attributes=composite_attributes(cluster.kind, sym, namer.attributes),
        loc=loc,
        before=last,
        top=top,
    )
    return fused, sym, namer


def codegen(
    cluster: FusionCluster,
    d: DialectTable,
    rewriter,
    order: OrderIndex | None = None,
    namer: SymbolNamer | None = None,
    fuel=None,
    memo: dict | None = None,
    analyses=None,
):
    """Turn ``cluster`` into one fused op (see the module doc for the form).

    Args:
        cluster: the cluster (not yet generated).
        d: the dialect table (``MHLO`` / ``STABLEHLO``).
        rewriter: the :class:`~hilo_mlir.rewrite.rewriter.Rewriter` every mutation goes through.
        order: the pass's :class:`OrderIndex` (kept current); default: the cluster's.
        namer: a :class:`SymbolNamer` for the module holding the cluster (composites; one is made if None).
        fuel: ``(FusionFuel, pass argument)`` of the run (``--fusion-fuel``), or None: a legal
            cluster takes one unit; with none left it is refused (``out-of-fuel``), IR untouched.
        memo: a dict the caller keeps for one context (MHLO): the ``FusionKind`` attribute of each
            kind is made once (composites use ``namer.attributes``).
        analyses: the run's :class:`~hilo_mlir.analysis.manager.AnalysisManager`, or None. With it
            and a ``namer`` (composites), the new decomposition function's
            :class:`~hilo_mlir.analysis.entry_block.EntryBlock` is put there, made from what the
            cluster read (schedule-postorder then need not read the function again).

    Returns:
        The fused ``ir.Operation``, or None when :func:`check_legal` refuses the
        cluster (then ``cluster.refusal`` says why and the IR is untouched).

    Raises:
        ValueError: ``codegen`` called twice on one cluster.
    """
    order = order if order is not None else cluster.order
    if cluster.fused is not None:
        raise ValueError("codegen called twice on one FusionCluster")
    dependent, refusal = check_legal(cluster)
    if refusal is None and fuel is not None and fuel[0] is not None:
        from hilo_mlir.fusion.fuel import OUT_OF_FUEL
        from hilo_mlir.support.diagnostics import location_to_str

        loc_text = location_to_str(cluster.last.location, None) or str(cluster.last.location)
        if not fuel[0].take(fuel[1], cluster.kind, loc_text, len(cluster)):
            refusal = Refusal(OUT_OF_FUEL)
    if refusal is not None:
        cluster.refusal = refusal
        return None
    members = list(cluster.members)
    last = members[-1]
    with last.context:
        loc = ir.Location.fused([m.location for m in members])
        out_types = [v.type for v in cluster.live_outs]
        in_types = [v.type for v in cluster.live_ins]
        top = rewriter.top_of(last)  # the cluster's top-level op: asked once, then told to the rewriter
        if d.fusion_is_composite:
            fused, sym, module_namer = _composite_op(cluster, d, rewriter, namer, loc, out_types, last, top)
            results = _fused_results(cluster, fused)
            _rewire_whole(cluster, results, rewriter, top)
            fn, body, term = new_decomposition_returning(  # the func.func, its block and func.return of the live-outs
                rewriter,
                module_namer.module_body(),
                sym,
                in_types,
                out_types,
                loc,
                [loc] * len(in_types),
                cluster.live_outs,
                module_namer.attributes,
            )
            tops = (top, rewriter.top_of_block(body))  # the new function's (its block's top was noted)
        else:
            fused, body, fn = _fusion_op(cluster, d, rewriter, loc, in_types, out_types, last, memo, top)
            results = _fused_results(cluster, fused)
            _rewire_whole(cluster, results, rewriter, top)
            term = rewriter.create(d.fusion_body_terminator, operands=cluster.live_outs, loc=loc, at_end=body, top=top)
            tops = (top, top)
        _fill_body(cluster, members, body, fused, results, term, rewriter, order, fn, tops)
        if analyses is not None and namer is not None and fn is not None:
            _hand_over_entry_block(cluster, members, body, fn, term, analyses, namer, tops[1])
    if dependent:
        recursively_move_dependent_ops(fused, dependent, rewriter, order)
    cluster.fused = fused
    cluster.moved = dependent
    return fused
