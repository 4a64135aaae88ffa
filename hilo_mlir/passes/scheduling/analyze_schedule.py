"""``analyze-schedule`` (spine step 18, ``AnalyzeSchedule``; twin ``stablehlo-analyze-schedule``).

Live ranges of the values of the function body in the current order; the
peak live bytes are stamped on the function as ``neuron.peak_live_bytes``
(i64). Reads the :class:`~hilo_mlir.analysis.snapshot.FunctionSnapshot`
that schedule-postorder left (or builds it) and the result types; only an
attribute of the function changes, which keeps the snapshot for hoist-compute.
"""

from __future__ import annotations

from typing import Any

from hilo_mlir.analysis.snapshot import FunctionSnapshot, OpEntry
from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.utils import attr_is, func_name, type_bytes
from hilo_mlir.passmanager.registry import register_twins

#: Function attribute holding the peak live bytes (i64) stamped by analyze-schedule.
PEAK_ATTR = "neuron.peak_live_bytes"


def _last_uses(snap: FunctionSnapshot, entries: list[OpEntry]) -> dict[int, int]:
    """``{value id: position of its last use}`` over the entry block ``entries``, by one forward sweep.

    A use inside op i (its operands or those of ops nested in its regions) is
    at point i. Every use of an entry-block value sits in some op of the entry
    block (dominance), so this is the max over its uses of their enclosing
    op's position.
    """
    last: dict[int, int] = {}
    update = last.update
    fromkeys = dict.fromkeys
    for i, x in enumerate(entries):
        update(fromkeys(x.operands, i))
        if x.regions:
            update(fromkeys(snap.nested_operands(x), i))
    return last


def peak_live_bytes(func_op: Any, snap: FunctionSnapshot | None = None) -> tuple[int, int, int]:
    """Peak live bytes of the function body in its current order.

    Program points are the ops of the entry block, 0..n-1 (the terminator is
    the last). A block argument is live from point 0 to its last use; an op's
    result from its op to its last use (a use inside a nested region counts at
    the enclosing op of the entry block); a result without uses is live at its
    op only; an unused argument at point 0 only. Values inside nested regions
    are transient to their op and not counted. Bytes per value:
    :func:`~hilo_mlir.ir.utils.type_bytes`; dynamic shapes count 0. ``snap``:
    the function's :class:`FunctionSnapshot` if the caller has it (read from
    the IR otherwise).

    Returns:
        (peak bytes, index of the first op where the peak is reached, number of
        values of unknown size).
    """
    block = func_op.regions[0].blocks[0]
    if snap is None:
        snap = FunctionSnapshot(func_op)
    entries = snap.ops_in(snap.entry)
    n = len(entries)
    if n == 0:
        return 0, 0, 0
    delta = [0] * (n + 1)
    unknown = 0
    sizes: dict[int, int | None] = {}  # hash(type) -> bytes (types are uniqued: one type_bytes per distinct type)
    get_last = _last_uses(snap, entries).get

    def add(v: int, t: Any, start: int) -> None:
        nonlocal unknown
        th = hash(t)
        b = sizes.get(th, -1)
        if b == -1:
            b = sizes[th] = type_bytes(t)
        if b is None:
            unknown += 1
            return
        if b == 0:
            return
        end = get_last(v, start)
        if end < start:
            end = start
        delta[start] += b
        delta[end + 1] -= b

    for a in block.arguments:
        add(hash(a), a.type, 0)
    for i, x in enumerate(entries):
        if x.results:
            for v, t in zip(x.results, x.op.results.types):
                add(v, t, i)
    peak, at, cur = 0, 0, 0
    for i in range(n):
        cur += delta[i]
        if cur > peak:
            peak, at = cur, i
    return peak, at, unknown


def _run_analyze_schedule(func_op: Any, ctx: Any) -> None:
    if len(func_op.regions) == 0 or len(func_op.regions[0].blocks) == 0:
        return  # a declaration
    peak, at, unknown = peak_live_bytes(func_op, ctx.get_analysis(FunctionSnapshot, func_op))
    with func_op.context:
        new = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), peak)
        if not attr_is(func_op, PEAK_ATTR, new):  # a re-run finds its stamp: nothing to record
            ctx.rewriter.set_attr(func_op, PEAK_ATTR, new)
    ctx.stats["functions"] += 1
    ctx.stats["peak-live-bytes"] = max(ctx.stats["peak-live-bytes"], peak)
    if unknown:
        ctx.stats["values-of-unknown-size"] += unknown
    ctx.debug(f"@{func_name(func_op)}: peak live bytes {peak} at op #{at}")


register_twins(
    "analyze-schedule",
    "Live ranges in the current order; stamp peak live bytes on the function (neuron.peak_live_bytes)",
    _run_analyze_schedule,
    class_name="AnalyzeSchedule",
    statistics=("functions", "peak-live-bytes", "values-of-unknown-size"),
    source="seed 004 step 18 (gate cfg[0x134]); DESIGN.md catalogue step 18 (our interpretation)",
)
