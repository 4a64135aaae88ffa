"""Spine step 11: ``coalesce-collective-ops`` (twin ``stablehlo-coalesce-collective-ops``).

Moves same-kind collectives with equal groups next to each other where
dominance allows (:func:`_coalesce`). Seed 004 step 11 and
"CoalesceCollectiveOps (step 11)"; DESIGN.md catalogue row 11.
"""

from __future__ import annotations

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.effects import EffectOracle
from hilo_mlir.ir.utils import type_bytes
from hilo_mlir.passmanager.registry import Option, register_twins

#: Collective kinds the coalescer groups (short names, both dialects).
_COALESCED = ("all_gather", "all_reduce", "reduce_scatter")
_PLURAL = {"all_gather": "AllGathers", "all_reduce": "AllReduces", "reduce_scatter": "ReduceScatters"}


def _coalesce(func_op, ctx):
    """Move same-kind collectives with equal groups next to each other (per block).

    Key: (kind, ``replica_groups``, ``use_global_device_ids``, ``channel_handle``
    type). A collective ``C`` moves up to just after the last member ``W`` of the
    open window of its key when every operand of ``C`` is defined at or before
    ``W`` (dominance, from an order index per block) and no other side-effecting
    op (custom_call, send/recv, optimization_barrier, a collective of a kind
    this pass does not coalesce, ...) lies between ``W`` and ``C``: collectives
    of the coalesced kinds may pass each other (that is this pass's job),
    nothing else may. A window is also closed when its result bytes would pass
    the kind's cap (``*-max-bytes`` options: independent per-kind byte caps).
    Linear in the block size (one pass, dict of open windows).

    Short-circuit: a kind with a variadic (already combined) op in the
    function is not coalesced: debug line
    ``Not Coalescing AllGathers as we have partially coalesced AllGathers in input.``
    """
    d = ctx.d
    if not ctx.module_may_contain(*[d.name(k) for k in _COALESCED]):
        ctx.stats["collectives-moved"] += 0  # the statistic is reported even when nothing moved
        return  # no collective of a coalesced kind in the module
    caps = {
        "all_gather": ctx.options.all_gather_max_bytes,
        "all_reduce": ctx.options.all_reduce_max_bytes,
        "reduce_scatter": ctx.options.reduce_scatter_max_bytes,
    }
    blocks, partial = [], set()

    def visit(op):
        if d.is_op(op, *_COALESCED) and len(op.operands) > 1:
            partial.add(d.short(op))
        for r in op.regions:
            for b in r.blocks:
                blocks.append(b)
        return ir.WalkResult.ADVANCE

    func_op.walk(visit)
    for kind in sorted(partial):
        ctx.debug(f"Not Coalescing {_PLURAL[kind]} as we have partially coalesced {_PLURAL[kind]} in input.")
    moved = 0
    effects = EffectOracle(func_op)
    for block in blocks:
        ops = [o.operation for o in block.operations]
        if sum(1 for o in ops if d.is_op(o, *_COALESCED)) >= 2:
            moved += _coalesce_block(block, ops, caps, partial, effects, ctx)
    ctx.stats["collectives-moved"] += moved


def _window_key(o, kind: str) -> tuple:
    return (
        kind,
        str(o.attributes["replica_groups"]) if "replica_groups" in o.attributes else "",
        "use_global_device_ids" in o.attributes,
        _channel_type(o),
    )


def _coalesce_block(block, ops: list, caps: dict, partial: set, effects, ctx) -> int:
    """One sweep of ``block`` (its ``ops``) with a dict of open windows; returns the ops moved."""
    d = ctx.d
    pos = {o: (i, 0) for i, o in enumerate(ops)}
    windows: dict = {}  # key -> [last op of the window, bytes]
    last_barrier = (-1, 0)
    tail = None  # the last visited op in the current order
    moved = 0
    for o in ops:
        kind = d.short(o)
        if kind not in _COALESCED or kind in partial:
            if effects(o):  # the one side-effect model: regions, composites, func.call
                last_barrier = pos[o]
            tail = o
            continue
        key = _window_key(o, kind)
        size = sum(type_bytes(r.type) or 0 for r in o.results)
        w = windows.get(key)
        if w is not None:
            end = w[0]
            deps_ok = all((p := _ancestor_in(v, block)) is None or pos[p] <= pos[end] for v in o.operands)
            if deps_ok and last_barrier < pos[end] and w[1] + size <= caps[kind]:
                if end != tail:
                    ctx.rewriter.move_after(o, end)
                    moved += 1
                    ctx.debug(f"moved {o.name} at {o.location} next to its window")
                else:
                    tail = o
                pos[o] = (pos[end][0], pos[end][1] + 1)
                w[0], w[1] = o, w[1] + size
                continue
            why = (
                "an operand is defined after the window"
                if not deps_ok
                else "a side-effecting op lies in between"
                if last_barrier >= pos[end]
                else "byte cap reached"
            )
            ctx.debug(f"{o.name} at {o.location} starts a new window ({why})")
        windows[key] = [o, size]
        tail = o
    return moved


def _ancestor_in(v, block):
    """The op of ``block`` that defines ``v`` or contains its definition; None for
    block arguments and values from enclosing regions (they dominate the block)."""
    if isinstance(v.owner, ir.Block):
        return None
    op = v.owner.operation
    while op is not None:
        if op.block == block:
            return op
        parent = op.parent
        op = parent.operation if parent is not None else None
        if op is not None and op.name in ("func.func", "builtin.module"):
            return None
    return None


def _channel_type(op) -> str:
    if "channel_handle" not in op.attributes:
        return ""
    return str(op.attributes["channel_handle"]).split("type", 1)[-1]


register_twins(
    "coalesce-collective-ops",
    "Move same-kind collectives with equal replica_groups next to each other where dominance allows",
    _coalesce,
    class_name="CoalesceCollectiveOps",
    statistics=("collectives-moved",),
    options=(
        Option("all-gather-max-bytes", int, 1 << 30, "byte cap of one all_gather window"),
        Option("all-reduce-max-bytes", int, 1 << 30, "byte cap of one all_reduce window"),
        Option("reduce-scatter-max-bytes", int, 1 << 30, "byte cap of one reduce_scatter window"),
    ),
    source="seed 004 step 11 and 'CoalesceCollectiveOps (step 11)' (@0x20931d0, message @0x348e00); DESIGN.md row 11",
)
