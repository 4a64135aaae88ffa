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


def grow_upwards(run: FusionRun, seed, rejected: dict | None = None) -> OpSet:
    """``growFusionOpUpwards``: the greedy upward worklist from ``seed`` (R1-R4).

    ``rejected`` (when recording): gets ``{op_key: op}`` of every producer an
    R1-R4 test turned away at some point (it may still be admitted later).
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
            if (
                not same_block(cand, seed)  # R1
                or d.is_op(cand, *BOUNDARY)
                or is_fusion_like(cand)  # R2
                or not is_elementwise_op(cand)  # R3
                or _user_outside(cand, block, cluster) is not None
            ):  # R4
                if rejected is not None:
                    rejected[op_key(cand)] = cand
                continue
            cluster.add(cand)
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


def _record_frontier(run: FusionRun, seed, cluster, rejected: dict, kind: str) -> None:
    """Record why each producer the grower turned away (and never admitted) stayed outside."""
    d, block = run.d, seed.block
    for cand in rejected.values():
        if cand in cluster:
            continue  # admitted later
        if len(cand.results) == 1 and is_constant_like(cand.results[0]):
            continue  # a constant (or a broadcast of one): never absorbed, not worth listing
        if not same_block(cand, seed):
            run.refuse(RULE, kind, cand, "R1-other-block", detail=cand.name)
        elif d.is_op(cand, *BOUNDARY) or is_fusion_like(cand):
            run.refuse(RULE, kind, cand, "R2-boundary", detail=cand.name)
        elif not is_elementwise_op(cand):
            run.refuse(RULE, kind, cand, "R3-not-elementwise", detail=cand.name)
        else:
            user = _user_outside(cand, block, cluster)
            run.refuse(RULE, kind, cand, "R4-user-outside", culprit=user, detail=f"{user.name}@{run.rec.loc(user)}")


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
        rejected = {} if run.rec is not None else None
        cluster = grow_upwards(run, seed, rejected)
        kind = FusionKind.ELEMENTWISE
        if d.is_op(seed, "reduce"):
            n_in = len(seed.operands) // 2
            for v in list(seed.operands)[:n_in]:
                p = defining_op(v)
                if p is not None and p in cluster and d.is_op(p, "multiply"):
                    kind = FusionKind.MUL_RED_SQRT
                    break
        if rejected:
            _record_frontier(run, seed, cluster, rejected, kind)
        run.emit(list(cluster), kind, RULE, anchor=seed)
