"""``hoist-compute`` (spine step 22, ``HoistCompute``; twin ``stablehlo-hoist-compute``).

Moves the compute of the entry block that depends only on parameters (the
arguments listed in ``slowChangingIns``) or on constants to the top of the
function, in its current relative order, ahead of the first op that depends
on anything else. Side-effecting ops never move. Reads the
:class:`~hilo_mlir.analysis.entry_block.EntryBlock` that schedule-postorder
left (or builds it); linear in the number of ops.
"""

from __future__ import annotations

from hilo_mlir.analysis.entry_block import EntryBlock
from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.effects import EffectOracle
from hilo_mlir.passmanager.registry import register_twins

#: Attribute on ``main`` listing the entry arguments that are parameters (written by penguinize-io).
PARAMS_ATTR = "slowChangingIns"


def parameter_indices(func_op) -> set[int]:
    """Indices in ``slowChangingIns`` on the function (dense int elements or i64/i32 array); empty if absent."""
    attrs = func_op.attributes
    if PARAMS_ATTR not in attrs:
        return set()
    a = attrs[PARAMS_ATTR]
    if isinstance(a, ir.DenseI64ArrayAttr) or isinstance(a, ir.DenseI32ArrayAttr):
        return {int(x) for x in a}
    if isinstance(a, ir.DenseElementsAttr):
        import numpy as np

        return {int(x) for x in np.array(a).reshape(-1)}
    if isinstance(a, ir.ArrayAttr):
        return {int(ir.IntegerAttr(x).value) for x in a}
    return set()


def hoistable_ops(func_op, info: EntryBlock) -> list[bool]:
    """Per op of the entry block: does it read only parameters, constants and hoistable ops, without effects?"""
    block = func_op.regions[0].blocks[0]
    params = parameter_indices(func_op)
    # Values keyed by hash(value) (the C++ pointer); ops by position.
    args = [(hash(a), a.arg_number) for a in block.arguments]
    param_args = {h for h, i in args if i in params}
    block_args = {h for h, _ in args}
    get = {hash(r): i for i, rs in enumerate(info.results) for r in rs}.get
    oracle = None  # built only if a composite's effect is asked
    hoistable = [False] * len(info.ops)
    for k in range(len(info.ops) - 1):
        if info.effects[k] is None and oracle is None:
            oracle = EffectOracle(func_op)
        if info.effect(k, oracle):
            continue
        # The op reads entry-block values: its operands and what its regions
        # capture (other values in its inputs are defined inside it).
        ok = True
        for h in info.inputs[k]:
            p = get(h)
            if p is None:
                if h in block_args and h not in param_args:
                    ok = False
                    break
            elif not hoistable[p]:
                ok = False
                break
        if ok:
            hoistable[k] = True
    return hoistable


def _run_hoist_compute(func_op, ctx):
    if len(func_op.regions) == 0 or len(func_op.regions[0].blocks) == 0:
        return
    info = ctx.get_analysis(EntryBlock, func_op)
    ops = info.ops
    if not ops:
        return
    hoistable = hoistable_ops(func_op, info)
    first = hoistable.index(False)  # the terminator is never hoistable
    anchor = ops[first]
    moved = 0
    for k in range(first + 1, len(ops)):
        if hoistable[k]:
            ctx.rewriter.move_before(ops[k], anchor)
            moved += 1
    ctx.stats["hoistable"] += sum(hoistable)
    ctx.stats["ops-hoisted"] += moved


register_twins(
    "hoist-compute",
    "Move ops that depend only on parameters (slowChangingIns) or constants to the top of the function",
    _run_hoist_compute,
    class_name="HoistCompute",
    statistics=("hoistable", "ops-hoisted"),
    source="seed 004 step 22 (gate cfg[0xE9]); DESIGN.md catalogue step 22 (our interpretation)",
)
