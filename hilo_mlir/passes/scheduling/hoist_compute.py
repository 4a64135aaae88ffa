"""``hoist-compute`` (spine step 22, ``HoistCompute``; twin ``stablehlo-hoist-compute``).

Moves the compute of the entry block that depends only on parameters or on
constants to the top of the function, in its current relative order, ahead of
the first op that depends on anything else. Side-effecting ops never move,
except the parameter markers themselves (below). Reads the
:class:`~hilo_mlir.analysis.entry_block.EntryBlock` that schedule-postorder
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

from hilo_mlir.analysis.entry_block import CensusEffectOracle, EntryBlock
from hilo_mlir.ir.effects import EffectOracle
from hilo_mlir.ir.parameters import attribute_parameters, is_marker, parameter_indices
from hilo_mlir.ir.utils import func_name
from hilo_mlir.passmanager.registry import register_twins


def hoistable_ops(func_op, info: EntryBlock, markers=(), oracle: EffectOracle | None = None) -> list[bool]:
    """Per op of the entry block: does it read only parameters, constants and hoistable ops, without effects?

    ``markers``: the ``custom_call`` ops of the function (nested ones
    included), whose parameter markers name parameters of ``main``.
    ``oracle``: the :class:`~hilo_mlir.ir.effects.EffectOracle` asked about
    composites (one per run of the pass serves all its functions); a new one if None.
    """
    # the markers name parameters of main only: with none, main's name is not read
    params = parameter_indices(func_op, markers) if markers else attribute_parameters(func_op)
    # Values keyed by hash(value) (the C++ pointer); ops by position (an argument's number is its position).
    arguments = info.entry_arguments(func_op)
    if params:
        args = [(hash(a), i) for i, a in enumerate(arguments)]
        param_args = {h for h, i in args if i in params}
        block_args = {h for h, _ in args}
    else:  # no parameter (every decomposition function): the argument numbers are not read
        param_args = set()
        block_args = set(map(hash, arguments))
    get = {h: i for i, rs in enumerate(info.result_ids) for h in rs}.get
    if oracle is None:
        oracle = EffectOracle(func_op)  # asked only for a composite's effect (it reads nothing when built)
    hoistable = [False] * len(info.ops)
    inputs = info.inputs
    for k in range(len(info.ops) - 1):
        # The op reads entry-block values: its operands and what its regions
        # capture (other values in its inputs are defined inside it). Those
        # are checked first (Python ints): the effect, which may ask the
        # oracle about a composite's decomposition, only for an op they allow.
        ok = True
        for h in inputs[k]:
            p = get(h)
            if p is None:
                if h in block_args and h not in param_args:
                    ok = False
                    break
            elif not hoistable[p]:
                ok = False
                break
        if ok and not (info.effect(k, oracle) and not is_marker(info.ops[k])):
            hoistable[k] = True
    return hoistable


class _HoistState:
    """Shared by the functions of one run: one effect oracle (the module's function table is read
    once, not once per function). Only ops of entry blocks move during the run, which changes
    no op's effect."""

    def __init__(self) -> None:
        self.oracle: EffectOracle | None = None


def nothing_to_hoist(func_op, info: EntryBlock) -> bool:
    """True when :func:`hoistable_ops` surely finds no op of ``func_op`` hoistable, decided from the
    maker's promise :attr:`EntryBlock.sourceless` (every op but the terminator has an operand) and
    no ``slowChangingIns`` (one attribute read; markers name parameters of ``main`` only, and no
    maker makes that promise for ``main``): then every op reads an argument that is no parameter or
    the result of an op that is not hoistable (by induction along the block). False: not known."""
    return info.sourceless and not attribute_parameters(func_op)


def _check_nothing_to_hoist(func_op, info: EntryBlock, calls, oracle) -> None:
    """The checking mode of :func:`nothing_to_hoist`: :func:`hoistable_ops` (the definition) must find
    no hoistable op; AssertionError if it does."""
    hoistable = hoistable_ops(func_op, info, calls, oracle)
    if any(hoistable):
        what = f"has nothing to hoist, {sum(hoistable)} ops are hoistable"
        raise AssertionError(f"hoist-compute: the kept EntryBlock says @{func_name(func_op)} {what}")


def _run_hoist_compute(func_op, ctx):
    info = ctx.analyses.cached(EntryBlock, func_op)  # usually schedule-postorder's: a body, no read
    if info is None:
        if len(func_op.regions) == 0 or len(func_op.regions[0].blocks) == 0:
            return
        info = ctx.get_analysis(EntryBlock, func_op)
    ops = info.ops
    if not ops:
        return
    d = ctx.d
    state = ctx.state
    if nothing_to_hoist(func_op, info):  # a new decomposition function (the fusion codegen's promise)
        if ctx.analyses.checking:
            calls = ctx.ops_named(func_op, d.name("custom_call"), any_order=True) if ctx.module_may_contain(d.name("custom_call")) else []
            if state.oracle is None:
                state.oracle = CensusEffectOracle(func_op, ctx.census)
            _check_nothing_to_hoist(func_op, info, calls, state.oracle)
        ctx.stats["hoistable"] += 0  # as the general way counts (the statistic is listed)
        ctx.stats["ops-hoisted"] += 0
        return
    # the markers name a set of parameters: their order does not matter (no walk to restore it)
    calls = ctx.ops_named(func_op, d.name("custom_call"), any_order=True) if ctx.module_may_contain(d.name("custom_call")) else []
    if state.oracle is None:
        state.oracle = CensusEffectOracle(func_op, ctx.census)
    hoistable = hoistable_ops(func_op, info, calls, state.oracle)
    first = hoistable.index(False)  # the terminator is never hoistable
    # One batch: each op moved right before the first non-hoistable one, in order.
    to_move = [ops[k] for k in range(first + 1, len(ops)) if hoistable[k]]
    if to_move:
        ctx.rewriter.move_all_before(to_move, ops[first])
    ctx.stats["hoistable"] += sum(hoistable)
    ctx.stats["ops-hoisted"] += len(to_move)


register_twins(
    "hoist-compute",
    "Move ops that depend only on parameters (slowChangingIns, parameter markers) or constants to the top of the function",
    _run_hoist_compute,
    class_name="HoistCompute",
    statistics=("hoistable", "ops-hoisted"),
    state=_HoistState,
    source=(
        "seed 004 step 22 (gate cfg[0xE9]); DESIGN.md catalogue step 22 (our interpretation); parameters: "
        "slowChangingIns and the AwsNeuronTransferWithStaticRing markers as seed 002 section 4 reads them"
    ),
)
