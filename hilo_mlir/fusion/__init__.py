"""The fusion core: clusters of ops and the one codegen that turns them into fused ops.

Every producer of fused ops -- the NeuronOpFusion sub-passes and their
StableHLO twins, ``schedule-fusion`` -- builds a :class:`FusionCluster` and
hands it to :func:`codegen`::

    from hilo_mlir.fusion import FusionCluster, OrderIndex, SymbolNamer, codegen

    with OrderIndex(ctx.rewriter) as order:       # one per pass run (positions per block)
        c = FusionCluster(ops, FusionKind.DOT_LOGISTIC, order=order)
        c.members      # OpSet: insertion-ordered, O(1) `in`, block (def-before-use) order
        c.live_ins     # list[ir.Value]: operands produced outside the cluster / block arguments
        c.live_outs    # list[ir.Value]: member results with a user outside the cluster
        c.is_convex()  # False if a path leaves the cluster and comes back in
        fused = codegen(c, d, ctx.rewriter, order=order, namer=namer)
        # -> the fused ir.Operation, or None with c.refusal saying why

Layers (each imports only the ones above it):

1. :mod:`.order` -- op identity and block order (:class:`OpSet`,
   :class:`OrderIndex`, :func:`ancestor_in_block`, :func:`sorted_in_block`);
2. :mod:`.cluster` -- :class:`FusionCluster` (members, live-ins/outs, convexity);
3. :mod:`.composite` -- our ``neuron.<Kind>`` composites and their decompositions;
4. :mod:`.codegen` -- :func:`codegen`, :func:`check_legal`, :class:`Refusal`.
"""

from hilo_mlir.fusion.cluster import FusionCluster
from hilo_mlir.fusion.codegen import Refusal, check_legal, codegen, recursively_move_dependent_ops
from hilo_mlir.fusion.composite import SymbolNamer, composite_attributes, decomposition_base, new_decomposition
from hilo_mlir.fusion.order import OpSet, OrderIndex, ancestor_in_block, sorted_in_block, value_def_ancestor

__all__ = [
    "FusionCluster",
    "OpSet",
    "OrderIndex",
    "Refusal",
    "SymbolNamer",
    "ancestor_in_block",
    "check_legal",
    "codegen",
    "composite_attributes",
    "decomposition_base",
    "new_decomposition",
    "recursively_move_dependent_ops",
    "sorted_in_block",
    "value_def_ancestor",
]
