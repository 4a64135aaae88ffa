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

from ...dialects import FusionKind, is_elementwise_op, is_fusion_like
from ...fusion import OpSet, ancestor_in_block
from ...ir_utils import as_op, defining_op
from .common import inside_fusion, same_block
from .run import FusionRun

#: the op kinds this sub-pass seeds from
ANCHORS = ("reduce", "concatenate")

#: R2: structural boundaries (they stay live-in producers).
BOUNDARY = ("transpose", "fusion", "composite", "concatenate", "slice", "reshape", "broadcast_in_dim")


def grow_upwards(run: FusionRun, seed) -> OpSet:
    """``growFusionOpUpwards``: the greedy upward worklist from ``seed`` (R1-R4)."""
    d = run.d
    block = seed.block
    cluster = OpSet([seed])
    worklist = [seed]
    while worklist:
        cur = worklist.pop()
        for v in cur.operands:
            cand = defining_op(v)
            if cand is None or cand in cluster or not same_block(cand, seed):  # R1
                continue
            if d.is_op(cand, *BOUNDARY) or is_fusion_like(cand):  # R2
                continue
            if not is_elementwise_op(cand):  # R3
                continue
            ok = True  # R4
            for r in cand.results:
                for use in r.uses:
                    if ancestor_in_block(as_op(use.owner), block) not in cluster:
                        ok = False
                        break
                if not ok:
                    break
            if not ok:
                continue
            cluster.add(cand)
            worklist.append(cand)
    return cluster


def fuse_elementwise(run: FusionRun) -> None:
    """``fuseElementwiseOps``: one cluster per reduce/concatenate seed."""
    d = run.d
    seeds = run.anchors(*ANCHORS)
    for seed in seeds:
        if seed.block is None or inside_fusion(seed):
            continue
        cluster = grow_upwards(run, seed)
        kind = FusionKind.ELEMENTWISE
        if d.is_op(seed, "reduce"):
            n_in = len(seed.operands) // 2
            for v in list(seed.operands)[:n_in]:
                p = defining_op(v)
                if p is not None and p in cluster and d.is_op(p, "multiply"):
                    kind = FusionKind.MUL_RED_SQRT
                    break
        run.emit(list(cluster), kind)
