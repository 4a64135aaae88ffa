"""``hoist-compute`` (spine step 22, ``HoistCompute``; twin ``stablehlo-hoist-compute``).

Moves the compute of the entry block that depends only on parameters or on
constants to the top of the function, in its current relative order, ahead of
the first op that depends on anything else. Side-effecting ops never move,
except the parameter markers themselves (below). Reads the
:class:`~hilo_mlir.analysis.snapshot.FunctionSnapshot` that schedule-postorder
left (or builds it); linear in the number of ops.

The parameters are :func:`hilo_mlir.ir.parameters.parameter_indices`: the
function's ``slowChangingIns`` (stamped before the spine by
``hilo2penguin --weights`` / ``params=``) and, on ``main``, the arguments
named by ``custom_call @AwsNeuronTransferWithStaticRing`` markers -- the rule
``penguinize-io`` applies at step 26, four steps later, when it strips them.
A marker whose operands are all parameters is a tag, not an effect (it is
only kept alive against dead-code elimination): it is hoistable like pure
compute, and its results (the loaded parameter) count as parameters.
"""

from __future__ import annotations

from typing import Any

from hilo_mlir.analysis.entry_block import LeafEffects, is_composite
from hilo_mlir.analysis.snapshot import FunctionSnapshot, OpEntry
from hilo_mlir.ir.effects import EffectOracle
from hilo_mlir.ir.parameters import is_marker, parameter_indices
from hilo_mlir.passmanager.registry import register_twins


def _effect(snap: FunctionSnapshot, x: OpEntry, leaf: LeafEffects) -> tuple[bool, bool]:
    """(may ``x`` or an op nested in it have side effects by their names, does a composite take part)."""
    name = x.name
    e = leaf.by_name.get(name)
    composite = False
    if e is None:
        e = leaf(x.op, name)
        composite = is_composite(name)
    e = bool(e)
    for bk in x.regions:
        for y in snap.ops_in(snap.blocks[bk]):
            ie, ic = _effect(snap, y, leaf)
            e = e or ie
            composite = composite or ic
    return e, composite


def hoistable_ops(func_op: Any, snap: FunctionSnapshot, markers: Any = ()) -> list[bool]:
    """Per op of the entry block (``snap``'s order): does it read only parameters, constants and
    hoistable ops, without effects?

    ``markers``: the ``custom_call`` ops of the function (nested ones
    included), whose parameter markers name parameters of ``main``.
    """
    params = parameter_indices(func_op, markers)
    # Values by their ids (hash(value)); ops by position.
    args = snap.entry.args
    param_args = {h for i, h in enumerate(args) if i in params}
    block_args = set(args)
    entries = snap.ops_in(snap.entry)
    get = {r: i for i, x in enumerate(entries) for r in x.results}.get
    oracle = EffectOracle(func_op)
    leaf = LeafEffects(oracle)
    hoistable = [False] * len(entries)
    for k in range(len(entries) - 1):
        x = entries[k]
        e, composite = _effect(snap, x, leaf)
        if composite:  # decided by another function: ask the oracle now
            e = oracle(x.op)
        if e and not is_marker(x.op):
            continue
        # The op reads entry-block values: its operands and what its regions
        # capture (other values among the nested operands are defined inside it).
        ok = True
        for h in (*x.operands, *snap.nested_operands(x)) if x.regions else x.operands:
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


def _run_hoist_compute(func_op: Any, ctx: Any) -> None:
    if len(func_op.regions) == 0 or len(func_op.regions[0].blocks) == 0:
        return
    snap = ctx.get_analysis(FunctionSnapshot, func_op)
    entries = snap.ops_in(snap.entry)
    if not entries:
        return
    d = ctx.d
    calls = ctx.ops_named(func_op, d.name("custom_call")) if ctx.module_may_contain(d.name("custom_call")) else []
    hoistable = hoistable_ops(func_op, snap, calls)
    first = hoistable.index(False)  # the terminator is never hoistable
    # One batch: each op moved right before the first non-hoistable one, in order.
    to_move = [entries[k].op for k in range(first + 1, len(entries)) if hoistable[k]]
    if to_move:
        ctx.rewriter.move_all_before(to_move, entries[first].op)
    ctx.stats["hoistable"] += sum(hoistable)
    ctx.stats["ops-hoisted"] += len(to_move)


register_twins(
    "hoist-compute",
    "Move ops that depend only on parameters (slowChangingIns, parameter markers) or constants to the top of the function",
    _run_hoist_compute,
    class_name="HoistCompute",
    statistics=("hoistable", "ops-hoisted"),
    source=(
        "seed 004 step 22 (gate cfg[0xE9]); DESIGN.md catalogue step 22 (our interpretation); parameters: "
        "slowChangingIns and the AwsNeuronTransferWithStaticRing markers as seed 002 section 4 reads them"
    ),
)
