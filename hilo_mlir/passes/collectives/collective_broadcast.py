"""Spine step 3: ``collective-broadcast-to-all-gather`` (one pass for both dialects).

``collective_broadcast`` becomes an ``all_gather`` over the same groups and a
slice of the source replica's part (:func:`_broadcast_to_all_gather`). One
name for both dialects, as the binary's ``CollectiveBroadcastToAllGatherPattern``
matches both dialects' op (seed 004 step 3 and "Class hierarchy"; behaviour:
DESIGN.md catalogue row 3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import NUM_PARTITIONS_ATTR, NUM_REPLICAS_ATTR, TABLES, table_for
from hilo_mlir.passmanager.registry import PassInfo, register
from hilo_mlir.rewrite.pattern import RewritePattern, apply_patterns_once

if TYPE_CHECKING:
    from typing_extensions import Buffer


def _channel_id(op) -> int:
    import re

    m = re.search(r"handle\s*=\s*(-?\d+)", str(op.attributes["channel_handle"]))
    return int(m.group(1)) if m else 0


def _replica_groups(op) -> np.ndarray | None:
    if "replica_groups" not in op.attributes:
        return None
    return np.array(ir.DenseIntElementsAttr(op.attributes["replica_groups"])).astype(np.int64)


def _broadcast_to_all_gather(module_op, ctx):
    """Rewrite every ``collective_broadcast`` (mhlo or stablehlo) in the module.

    ``%r = collective_broadcast(%x) {replica_groups = G (k x n)}`` with
    ``%x : tensor<d0 x ...>`` becomes::

        %g = all_gather(%x') {all_gather_dim = 0, replica_groups = G, channel_handle}
             : tensor<(n*d0') x ...>          # %x' = %x reshaped to 1-D-leading for rank 0
        %r = slice %g [0:d0', ...]            # the part of G[i][0], the source replica
        (reshape back for rank 0)

    StableHLO semantics: every process of group ``G[i]`` receives the operand
    of ``G[i][0]``; ``all_gather`` concatenates the group members' operands in
    group order, so the first ``d0`` rows are exactly the source's operand.

    With a ``channel_handle`` (id > 0) the broadcast is cross-partition; the
    all_gather gets ``use_global_device_ids`` so its groups are read as device
    ids, which equal partition ids when ``num_replicas = 1``; with
    ``mhlo.num_replicas = R > 1`` on the module the groups are repeated for
    each replica as flattened ids (:func:`_flat_groups`).

    Left alone (a ``--debug`` line): no or empty ``replica_groups`` (a process in no
    group gets zeros from collective_broadcast, but all_gather would gather
    everyone), groups padded with ``-1``, dynamic shapes.
    """
    apply_patterns_once(module_op, (BroadcastToAllGather(module_op),), ctx)


class BroadcastToAllGather(RewritePattern):
    """One ``collective_broadcast`` (either dialect) -> all_gather + slice (see :func:`_broadcast_to_all_gather`)."""

    name, statistic = "collective-broadcast-to-all-gather", "broadcasts-rewritten"
    roots = tuple(t.name("collective_broadcast") for t in TABLES.values())

    def __init__(self, module_op):
        self.module_op = module_op  # its mhlo.num_replicas / num_partitions decide the all_gather's groups

    def match(self, op, rw):
        groups = _replica_groups(op)
        if groups is None or groups.size == 0:
            return rw.notify_match_failure(op, "empty replica_groups; left alone")
        if (groups < 0).any():
            return rw.notify_match_failure(op, "replica_groups padded with -1; left alone")
        t = op.results[0].type
        if t.typeid != ir.RankedTensorType.static_typeid or not ir.RankedTensorType(t).has_static_shape:
            return rw.notify_match_failure(op, "dynamic shape; left alone")
        return True

    def rewrite(self, op, rw):
        groups = _replica_groups(op)
        assert groups is not None, "matched"
        with op.context, op.location:
            out = _gather_and_slice(op, table_for(op), int(groups.shape[1]), rw.rewriter, _flat_groups(self.module_op, op, groups))
        rw.replace_op(op, [out])


def _module_int(module_op, name: str) -> int | None:
    a = module_op.attributes[name] if name in module_op.attributes else None
    return a.value if isinstance(a, ir.IntegerAttr) else None


def _flat_groups(module_op, op, groups: np.ndarray):
    """The all_gather's ``replica_groups`` when they must differ from the broadcast's, else None.

    A broadcast with a channel is cross-partition: each group of partition ids
    applies within every replica. The all_gather reads its groups as
    flattened device ids (``replica * num_partitions + partition``), so with
    ``mhlo.num_replicas = R > 1`` (and ``mhlo.num_partitions = P``) each group
    becomes ``R`` groups, one per replica.
    """
    if "channel_handle" not in op.attributes or _channel_id(op) <= 0:
        return None
    r, p = _module_int(module_op, NUM_REPLICAS_ATTR), _module_int(module_op, NUM_PARTITIONS_ATTR)
    if r is None or r <= 1 or p is None:
        return None
    flat = np.array([[rep * p + int(i) for i in g] for rep in range(r) for g in groups], dtype=np.int64)
    # an ndarray is a buffer (numpy's stubs declare __buffer__ only for Python >= 3.12)
    groups_type = ir.RankedTensorType.get(list(flat.shape), ir.IntegerType.get_signless(64))
    return ir.DenseIntElementsAttr.get(cast("Buffer", flat), type=groups_type)


def _gather_and_slice(op, d, n: int, rw, flat_groups=None):
    """Build the all_gather + slice (+ reshapes for rank 0) replacing ``collective_broadcast``
    ``op`` over groups of ``n`` before it; returns the value replacing its result."""
    rt = ir.RankedTensorType(op.results[0].type)
    shape = list(rt.shape)
    loc = op.location
    x = op.operands[0]
    if not shape:
        one = ir.RankedTensorType.get([1], rt.element_type)
        x = rw.create(d.name("reshape"), results=[one], operands=[x], loc=loc, before=op).results[0]
        g_shape = [1]
    else:
        g_shape = shape
    gathered_t = ir.RankedTensorType.get([n * g_shape[0]] + g_shape[1:], rt.element_type)
    attrs = {
        "all_gather_dim": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0),
        "replica_groups": flat_groups if flat_groups is not None else op.attributes["replica_groups"],
    }
    if "channel_handle" in op.attributes:
        # collective_broadcast with a channel is cross-partition (groups are
        # partition ids); all_gather with a channel and use_global_device_ids
        # reads groups as flattened device ids: the same ids when
        # num_replicas = 1 (the Neuron case).
        attrs["channel_handle"] = op.attributes["channel_handle"]
        if _channel_id(op) > 0:
            attrs["use_global_device_ids"] = ir.UnitAttr.get()
    ag = rw.create(d.name("all_gather"), results=[gathered_t], operands=[x], attributes=attrs, loc=loc, before=op)
    part_t = ir.RankedTensorType.get(g_shape, rt.element_type)
    sl = rw.create(
        d.name("slice"),
        results=[part_t],
        operands=[ag.results[0]],
        attributes={
            "start_indices": d.i64_array([0] * len(g_shape)),
            "limit_indices": d.i64_array(g_shape),
            "strides": d.i64_array([1] * len(g_shape)),
        },
        loc=loc,
        before=op,
    )
    out = sl.results[0]
    if not shape:
        out = rw.create(d.name("reshape"), results=[rt], operands=[out], loc=loc, before=op).results[0]
    return out


register(
    PassInfo(
        "collective-broadcast-to-all-gather",
        "collective_broadcast -> all_gather over the same groups + slice of the source replica's part (both dialects)",
        _broadcast_to_all_gather,
        anchor="builtin.module",
        dialect=None,
        class_name="CollectiveBroadcastToAllGather",
        statistics=("broadcasts-rewritten",),
        source="seed 004 step 3 (CollectiveBroadcastToAllGatherPattern, one pass for both dialects); DESIGN.md row 3",
    )
)
