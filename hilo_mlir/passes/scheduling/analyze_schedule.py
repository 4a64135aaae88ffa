"""``analyze-schedule`` (spine step 18, ``AnalyzeSchedule``; twin ``stablehlo-analyze-schedule``).

Live ranges of the values of the function body in the current order; the
peak live bytes are stamped on the function as ``neuron.peak_live_bytes``
(i64). Reads the :class:`~hilo_mlir.analysis.entry_block.EntryBlock` that
schedule-postorder left (or builds it); only an attribute of the function
changes, which keeps that analysis for hoist-compute.
"""

from __future__ import annotations

from hilo_mlir.analysis.entry_block import EntryBlock
from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.utils import attr_is, func_name, type_bytes
from hilo_mlir.passmanager.registry import register_twins

#: Function attribute holding the peak live bytes (i64) stamped by analyze-schedule.
PEAK_ATTR = "neuron.peak_live_bytes"


def peak_live_bytes(func_op, info: EntryBlock | None = None, sizes: dict | None = None) -> tuple[int, int, int]:
    """Peak live bytes of the function body in its current order.

    Program points are the ops of the entry block, 0..n-1 (the terminator is
    the last). A block argument is live from point 0 to its last use; an op's
    result from its op to its last use (a use inside a nested region counts at
    the enclosing op of the entry block); a result without uses is live at its
    op only; an unused argument at point 0 only. Values inside nested regions
    are transient to their op and not counted. Bytes per value:
    :func:`~hilo_mlir.ir.utils.type_bytes`; dynamic shapes count 0. ``info``:
    the entry block's :class:`EntryBlock` if the caller has it (read from the
    IR otherwise). ``sizes``: ``{hash(type): bytes or None}`` to reuse and fill
    (types are uniqued in their context: one map serves every function of a
    module); a fresh one if None.

    Returns:
        (peak bytes, index of the first op where the peak is reached, number of
        values of unknown size).
    """
    if info is None:
        info = EntryBlock(func_op)
    n = len(info.ops)
    if n == 0:
        return 0, 0, 0
    delta = [0] * (n + 1)
    # Last use of every value (keyed by hash(value)), by one forward sweep: a
    # use inside op i (its operands or those of ops nested in its regions) is
    # at point i. Every use of an entry-block value sits in some op of the
    # entry block (dominance), so this is the max over its uses of their
    # enclosing op's position.
    last = {h: i for i, values in enumerate(info.inputs) for h in values}  # a later use overwrites
    if sizes is None:
        sizes = {}  # hash(type) -> bytes (types are uniqued: one type_bytes per distinct type)
    get_last = last.get
    get_size = sizes.get
    # Each value of the block once: live from its definition (0 for an argument) to its last use.
    # One loop per kind of value, the body written out (no call per value): the results' keys
    # come from the EntryBlock (its result_ids), only their types are read.
    unknown = _arguments_live(info.entry_arguments(func_op), get_last, sizes, delta)
    for i, (rs, ks) in enumerate(zip(info.results, info.result_ids)):
        for r, rk in zip(rs, ks):
            t = r.type
            th = hash(t)
            b = get_size(th, -1)
            if b == -1:
                b = sizes[th] = type_bytes(t)
            if b is None:
                unknown += 1
            elif b:
                end = get_last(rk, i)
                if end < i:
                    end = i
                delta[i] += b
                delta[end + 1] -= b
    peak, at, cur = 0, 0, 0
    for i in range(n):
        cur += delta[i]
        if cur > peak:
            peak, at = cur, i
    return peak, at, unknown


def _arguments_live(arguments, get_last, sizes: dict, delta: list) -> int:
    """Add each of ``arguments`` (the entry block's) to ``delta`` (live from point 0 to its last use,
    ``get_last(hash(arg), 0)``); ``sizes``: as :func:`peak_live_bytes`'s. Returns the number of
    arguments of unknown size."""
    unknown = 0
    get_size = sizes.get
    for a in arguments:
        t = a.type
        th = hash(t)
        b = get_size(th, -1)
        if b == -1:
            b = sizes[th] = type_bytes(t)
        if b is None:
            unknown += 1
        elif b:
            end = get_last(hash(a), 0)
            delta[0] += b
            delta[end + 1] -= b
    return unknown


class _AnalyzeState:
    """Shared by the functions of one run: bytes per distinct type and the stamps made (a module of
    many small functions pays these once, not once per function). The pass changes no type, so
    neither map goes stale during the run."""

    def __init__(self) -> None:
        self.sizes: dict = {}  # hash(type) -> bytes or None
        self.stamps: dict[int, ir.Attribute] = {}  # peak -> its i64 IntegerAttr


def _run_analyze_schedule(func_op, ctx):
    info = ctx.analyses.cached(EntryBlock, func_op)  # usually schedule-postorder's: a body, no read
    if info is None:
        if len(func_op.regions) == 0 or len(func_op.regions[0].blocks) == 0:
            return  # a declaration
        info = ctx.get_analysis(EntryBlock, func_op)
    state = ctx.state
    peak, at, unknown = peak_live_bytes(func_op, info, state.sizes)
    new = state.stamps.get(peak)
    if new is None:  # the context is entered only to make an attribute (the many small functions share a few)
        with func_op.context:
            new = state.stamps[peak] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), peak)
    if not attr_is(func_op, PEAK_ATTR, new):  # a re-run finds its stamp: nothing to record
        ctx.rewriter.set_attr(func_op, PEAK_ATTR, new)
    ctx.stats["functions"] += 1
    ctx.stats["peak-live-bytes"] = max(ctx.stats["peak-live-bytes"], peak)
    if unknown:
        ctx.stats["values-of-unknown-size"] += unknown
    if ctx.debugging:
        ctx.debug(f"@{func_name(func_op)}: peak live bytes {peak} at op #{at}")


register_twins(
    "analyze-schedule",
    "Live ranges in the current order; stamp peak live bytes on the function (neuron.peak_live_bytes)",
    _run_analyze_schedule,
    class_name="AnalyzeSchedule",
    statistics=("functions", "peak-live-bytes", "values-of-unknown-size"),
    state=_AnalyzeState,
    source="seed 004 step 18 (gate cfg[0x134]); DESIGN.md catalogue step 18 (our interpretation)",
)
