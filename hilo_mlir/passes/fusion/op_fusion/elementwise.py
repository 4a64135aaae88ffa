"""fuseElementwiseOps: the seeded upward grower.

Seeds: every ``reduce`` and ``concatenate`` not inside a fusion. From a seed
the grower walks operand-ward (``growFusionOpUpwards``, a worklist over an
insertion-ordered set) and admits a producer ``cand`` iff

* R1 it is an op (block arguments stay live-ins) in the seed's block;
* R2 it is not a structural boundary (``transpose``, ``fusion``/composite,
  ``concatenate``, ``slice``, ``reshape``, ``broadcast_in_dim``) -- tested
  before the elementwise test, so ``reshape`` is never absorbed;
* R3 ``is_elementwise_op(cand)`` (one predicate for both dialects);
* R4 every user of ``cand`` is already in the cluster, where a user inside a
  nested region counts as its ancestor in the seed's block.

Members are ordered def-before-use (block order). Kind: a
concatenate seed gives ``Elementwise``; a reduce seed gives ``MulRedSqrt`` when
one of its inputs is produced by a ``multiply`` inside the cluster, else
``Elementwise``. A seed with no admitted producer still becomes a one-op
cluster, as the seed's finalize step does (only the sort is skipped).
"""

from __future__ import annotations

from hilo_mlir.fusion import OpSet, ancestor_in_block
from hilo_mlir.ir.dialects import EXTENDED_ELEMENTWISE_OPS, FusionKind, hlo_short_name, is_elementwise_op, is_fusion_like
from hilo_mlir.ir.utils import as_op, defining_op, op_key
from hilo_mlir.passes.fusion.op_fusion.common import inside_fusion, is_constant_like, same_block
from hilo_mlir.passes.fusion.op_fusion.run import FusionRun
from hilo_mlir.support.diagnostics import location_to_str

#: the op kinds this sub-pass seeds from
ANCHORS = ("reduce", "concatenate")

#: R2: structural boundaries (they stay live-in producers).
BOUNDARY = ("transpose", "fusion", "composite", "concatenate", "slice", "reshape", "broadcast_in_dim")


RULE = "fuseElementwiseOps"


def _user_outside(cand, block, cluster):
    """The first user of ``cand`` whose ancestor in ``block`` is not in ``cluster`` (R4), else None."""
    for r in cand.results:
        for use in r.uses:
            owner = as_op(use.owner)
            if ancestor_in_block(owner, block) not in cluster:
                return owner
    return None


def grow_upwards(run: FusionRun, seed, frontier: dict | None = None) -> OpSet:
    """``growFusionOpUpwards``: the greedy upward worklist from ``seed`` (R1-R4).

    ``frontier`` (given when someone hears refusals): gets ``{op_key: (op, code, culprit)}``
    for every producer a gate turned away and the grower never admitted: the verdict of
    the gate that turned it away last (``code``: ``R1-other-block`` ... ``R4-user-outside``;
    ``culprit``: the R4 user outside the cluster, else None). An R4 verdict is provisional:
    a producer admitted later leaves the frontier, and a producer turned away again gets
    the new verdict (its last user outside is the first one outside the final cluster:
    every admitted op but the seed is region-free, so a user joining the cluster is
    re-visited). Entries keep the order producers were first turned away in.
    """
    d = run.d
    block = seed.block
    cluster = OpSet([seed])
    worklist = [seed]
    while worklist:
        cur = worklist.pop()
        for v in cur.operands:
            cand = defining_op(v)
            if cand is None or cand in cluster:
                continue
            culprit = None
            if not same_block(cand, seed):
                code: str | None = "R1-other-block"
            elif d.is_op(cand, *BOUNDARY) or is_fusion_like(cand):
                code = "R2-boundary"
            elif not is_elementwise_op(cand):
                code = "R3-not-elementwise"
            else:
                culprit = _user_outside(cand, block, cluster)
                code = "R4-user-outside" if culprit is not None else None
            if code is not None:
                if frontier is not None:
                    frontier[op_key(cand)] = (cand, code, culprit)
                continue
            cluster.add(cand)
            if frontier:
                frontier.pop(op_key(cand), None)
            worklist.append(cand)
            if hlo_short_name(cand) in EXTENDED_ELEMENTWISE_OPS:
                _say_extended(run, cand, seed)
    return cluster


def _say_extended(run: FusionRun, cand, seed) -> None:
    """The --debug line for an absorbed op of :data:`EXTENDED_ELEMENTWISE_OPS` (beyond the binary's set)."""
    fname = run.ctx.env.filename
    where = location_to_str(cand.location, fname) or "unknown location"
    at = location_to_str(seed.location, fname) or "unknown location"
    run.ctx.stats["extended-elementwise-absorbed"] += 1
    run.ctx.debug(
        f"{RULE}: absorbed '{cand.name}' at {where} into the cluster of '{seed.name}' at {at}: "
        "an elementwise op hilo_mlir adds to the Neuron compiler's set (docs/provenance.md, 'Elementwise set')"
    )


def _report_frontier(run: FusionRun, frontier: dict, kind: str) -> None:
    """Report, once each, the producers :func:`grow_upwards` turned away, with its verdicts
    (constants and broadcasts of them are never absorbed: not worth listing)."""
    for cand, code, culprit in frontier.values():
        if len(cand.results) == 1 and is_constant_like(cand.results[0]):
            continue
        if culprit is None:
            run.refuse(RULE, kind, cand, code, detail=cand.name)
        else:
            run.refuse(RULE, kind, cand, code, culprit=culprit, detail=f"{culprit.name}@{run.loc(culprit)}")


def fuse_elementwise(run: FusionRun) -> None:
    """``fuseElementwiseOps``: one cluster per reduce/concatenate seed."""
    d = run.d
    seeds = run.anchors(*ANCHORS)
    for seed in seeds:
        if seed.block is None:
            continue
        if inside_fusion(seed):
            run.refuse(RULE, FusionKind.ELEMENTWISE, seed, "inside-fusion")
            continue
        frontier: dict | None = {} if run.listening else None
        cluster = grow_upwards(run, seed, frontier)
        kind = FusionKind.ELEMENTWISE
        if d.is_op(seed, "reduce"):
            n_in = len(seed.operands) // 2
            for v in list(seed.operands)[:n_in]:
                p = defining_op(v)
                if p is not None and p in cluster and d.is_op(p, "multiply"):
                    kind = FusionKind.MUL_RED_SQRT
                    break
        if frontier:
            _report_frontier(run, frontier, kind)
        run.emit(list(cluster), kind, RULE, anchor=seed)
