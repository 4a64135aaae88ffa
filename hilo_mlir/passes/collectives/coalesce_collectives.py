"""Spine step 11: ``coalesce-collective-ops`` (twin ``stablehlo-coalesce-collective-ops``).

Moves same-kind collectives with equal groups next to each other where
dominance allows (:func:`_coalesce`). Seed 004 step 11 and
"CoalesceCollectiveOps (step 11)"; DESIGN.md catalogue row 11.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hilo_mlir.fusion.order import operand_def_ops
from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.effects import EffectOracle
from hilo_mlir.ir.utils import op_key, type_bytes
from hilo_mlir.passmanager.options import option
from hilo_mlir.passmanager.registry import register_twins

if TYPE_CHECKING:
    from hilo_mlir.passmanager.pass_context import PassContext

#: Collective kinds the coalescer groups (short names, both dialects).
_COALESCED = ("all_gather", "all_reduce", "reduce_scatter")
_PLURAL = {"all_gather": "AllGathers", "all_reduce": "AllReduces", "reduce_scatter": "ReduceScatters"}


def _coalesce(func_op, ctx: PassContext[CoalesceCollectiveOpsOptions]):
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
    Linear in the block size (one pass, dict of open windows) when nothing is
    hoisted.

    Operands computed after ``W`` (what XLA's SPMD output looks like: each
    gradient's all-reduce right after the ops that compute it, interleaved
    with the optimizer update of the previous one): the ops between ``W`` and
    ``C`` that compute ``C``'s operands (its backward slice there, regions
    included) move, in their order, above the window's first member, then
    ``C`` moves next to ``W`` -- when none of them has side effects, none
    depends on a member of the window, and there are at most 256 of them
    (statistic ``operands-hoisted``). Pure ops may cross collectives; the
    collectives keep their relative order.

    Short-circuit: a kind with a variadic (already combined) op in the
    function is not coalesced: debug line
    ``Not Coalescing AllGathers as we have partially coalesced AllGathers in input.``
    """
    d = ctx.d
    assert d is not None, "registered for one dialect"
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
        if d.is_op(op, *_COALESCED) and len(op.operands) > 1 and (kind := d.short(op)) is not None:
            partial.add(kind)
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


#: Most pure ops hoisted for one collective (a longer operand chain starts a new window instead).
_MAX_HOISTED = 256


def _coalesce_block(block, ops: list, caps: dict, partial: set, effects, ctx) -> int:
    """One sweep of ``block`` (its ``ops``) with a dict of open windows; returns the collectives moved."""
    d = ctx.d
    pos = _Positions(ops)
    windows: dict = {}  # key -> [members of the window (contiguous, in order), bytes]
    last_barrier = None  # the last visited side-effecting op that is not a coalesced collective
    tail = None  # the last visited op in the current order
    moved = 0

    def before_window(op, end) -> bool:
        return last_barrier is None or pos[last_barrier] < pos[end]

    for o in ops:
        kind = d.short(o)
        if kind not in _COALESCED or kind in partial:
            if effects(o):  # the one side-effect model: regions, composites, func.call
                last_barrier = o
            tail = o
            continue
        key = _window_key(o, kind)
        size = sum(type_bytes(r.type) or 0 for r in o.results)
        w = windows.get(key)
        if w is not None:
            members, end = w[0], w[0][-1]
            deps_ok = all((p := _ancestor_in(v, block)) is None or pos[p] <= pos[end] for v in o.operands)
            hoist = None
            if not deps_ok and before_window(o, end) and w[1] + size <= caps[kind]:
                hoist = _hoistable_operands(o, end, members, block, pos, effects)
            if (deps_ok or hoist) and before_window(o, end) and w[1] + size <= caps[kind]:
                if hoist:
                    ctx.rewriter.move_all_before(hoist, members[0])
                    ctx.stats["operands-hoisted"] += len(hoist)
                    ctx.debug(f"hoisted {len(hoist)} pure op(s) computing the operands of {o.name} at {o.location} above its window")
                if end != tail:
                    ctx.rewriter.move_after(o, end)
                    moved += 1
                    ctx.debug(f"moved {o.name} at {o.location} next to its window")
                else:
                    tail = o
                if hoist:  # renumber: the hoisted ops now sit before the window
                    pos = _Positions([x.operation for x in block.operations])
                else:
                    pos[o] = (pos[end][0], pos[end][1] + 1)
                members.append(o)
                w[1] += size
                continue
            if not before_window(o, end):
                why = "a side-effecting op lies in between"
            elif w[1] + size > caps[kind]:
                why = "byte cap reached"
            else:
                why = "an operand depends on the window or is computed by a side-effecting op after it"
            ctx.debug(f"{o.name} at {o.location} starts a new window ({why})")
        windows[key] = [[o], size]
        tail = o
    return moved


class _Positions:
    """Order index of the ops of one block, keyed by op identity (:func:`op_key`): ``pos[op]`` is a
    ``(index, sub)`` pair; an op moved right after ``x`` gets ``(index of x, sub of x + 1)``."""

    def __init__(self, ops: list):
        self._pos = {op_key(o): (i, 0) for i, o in enumerate(ops)}

    def __getitem__(self, op) -> tuple:
        return self._pos[op_key(op)]

    def __setitem__(self, op, value: tuple) -> None:
        self._pos[op_key(op)] = value


def _hoistable_operands(o, end, members: list, block, pos, effects) -> list | None:
    """The ops between window end ``end`` and collective ``o`` that compute ``o``'s operands, in block order,
    if all of them are free of side effects and none depends on a window member (then they can move above
    the window and ``o`` next to it: dominance is kept); else None. Ops defined at or before ``end`` (other
    than members) already dominate the window's first member, since a window is contiguous."""
    member_keys = {op_key(m) for m in members}
    found: dict = {}
    stack = [o]
    while stack:
        for a in operand_def_ops(stack.pop(), block):
            k = op_key(a)
            if k in member_keys:
                return None  # o depends on the window
            if pos[a] <= pos[end] or k in found:
                continue
            if effects(a) or len(found) >= _MAX_HOISTED:
                return None
            found[k] = a
            stack.append(a)
    return sorted(found.values(), key=lambda x: pos[x]) or None


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


@dataclass(frozen=True)
class CoalesceCollectiveOpsOptions:
    """The options of ``coalesce-collective-ops`` and its StableHLO twin."""

    all_gather_max_bytes: int = option(1 << 30, "byte cap of one all_gather window")
    all_reduce_max_bytes: int = option(1 << 30, "byte cap of one all_reduce window")
    reduce_scatter_max_bytes: int = option(1 << 30, "byte cap of one reduce_scatter window")


register_twins(
    "coalesce-collective-ops",
    "Move same-kind collectives with equal replica_groups next to each other where dominance allows",
    _coalesce,
    class_name="CoalesceCollectiveOps",
    statistics=("collectives-moved", "operands-hoisted"),
    options_type=CoalesceCollectiveOpsOptions,
    source=(
        "seed 004 step 11 and 'CoalesceCollectiveOps (step 11)' (@0x20931d0, message @0x348e00); DESIGN.md row 11; "
        "hoisting the pure ops computing an operand above the window is ours (issue 22: XLA's SPMD output)"
    ),
)
