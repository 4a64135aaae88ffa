"""hoist-compute (and analyze-schedule) on a decomposition function the fusion codegen just made.

The codegen's :class:`~hilo_mlir.analysis.entry_block.EntryBlock` of a new
decomposition function carries two facts of its maker: the function's entry
block arguments (:attr:`EntryBlock.arguments`: analyze-schedule and
hoist-compute do not read the block for them) and the promise
:attr:`EntryBlock.sourceless` (every member has an operand). In a function
without parameters nothing is then hoistable, and hoist-compute skips it
(:func:`~hilo_mlir.passes.scheduling.hoist_compute.nothing_to_hoist`); the
checking mode runs the general way and raises AssertionError when it finds a
hoistable op. A wrong argument list is caught by the manager's comparison of
the kept EntryBlock with a fresh one.
"""

from __future__ import annotations

import pytest
from test_sched_decomposition_handover import RMSNORM_SILU  # an RMSNorm core and a SiLU: two decompositions

from hilo_mlir.analysis.check import AnalysisCheckError
from hilo_mlir.analysis.entry_block import EntryBlock
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.ir.utils import func_name, top_funcs
from hilo_mlir.passes.scheduling.hoist_compute import nothing_to_hoist
from hilo_mlir.passmanager.pipeline import Pipeline, Step, step_for
from hilo_mlir.passmanager.registry import PassInfo
from hilo_mlir.testing import run_passes

#: a constant chain after an op that reads an argument: hoist-compute moves the constant and the add first
HOISTABLE = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %a, %a : tensor<4xf32>
  %c = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>
  %d = stablehlo.add %c, %c : tensor<4xf32>
  %e = stablehlo.add %0, %d : tensor<4xf32>
  return %e : tensor<4xf32>
}
"""

SPINE_TAIL = ["stablehlo-schedule-postorder", "stablehlo-analyze-schedule", "stablehlo-hoist-compute"]


def _probe(seen: dict, label: str) -> Step:
    """A pass that records, per function, the EntryBlock the manager holds for it (None if none)."""

    def run(f, ctx):
        seen.setdefault(label, {})[func_name(f)] = ctx.analyses.cached(EntryBlock, f)

    info = PassInfo(f"test-probe-hoist-{label}", "t", run)
    return Step(info, info.argument, anchor="func.func")


def test_the_codegen_hands_over_arguments_and_the_promise(monkeypatch):
    monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "1")  # also the skip's own comparison
    seen: dict = {}
    steps = [step_for("stablehlo-neuron-op-fusion", fuse_dot_logistic=True), *map(step_for, SPINE_TAIL), _probe(seen, "end")]
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(RMSNORM_SILU)
        pipe = Pipeline(steps, check_analyses=True)
        pipe.run(m)
        shared = str(m)
        stats = dict(pipe.stats["StableHLOHoistCompute"])
        funcs = {func_name(f): f for f in top_funcs(m.operation)}
        for name in ("neuron.MulRedSqrt.impl", "neuron.DotLogistic.impl"):
            info = seen["end"][name]
            assert info is not None and info.sourceless  # the codegen's, kept to the end
            args = list(funcs[name].regions[0].blocks[0].arguments)
            assert list(map(hash, info.arguments)) == list(map(hash, args))
            assert nothing_to_hoist(funcs[name], info)
        assert len(seen["end"]["neuron.MulRedSqrt.impl"].arguments) == 4  # %x, %z and the broadcasts of %n and %eps
        assert len(seen["end"]["neuron.DotLogistic.impl"].arguments) == 2
    # the same IR and statistics as separate runs (no hand-over there: every function is read)
    fused, _ = run_passes(RMSNORM_SILU, "stablehlo-neuron-op-fusion{fuse-dot-logistic=true}")
    separate, sep_stats = run_passes(fused, ",".join(SPINE_TAIL))
    assert shared == separate
    assert stats == {k: sep_stats[k] for k in stats}
    assert stats["ops-hoisted"] == 0 and stats["hoistable"] == 5  # main: 3 constants, 2 broadcasts of them, first already
    assert shared.count("neuron.peak_live_bytes") == 3


def test_a_fresh_entry_block_makes_no_promise():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(HOISTABLE)
        f = top_funcs(m.operation)[0]
        info = EntryBlock(f)
        assert info.sourceless is False and not nothing_to_hoist(f, info)
        assert list(map(hash, info.arguments)) == [hash(f.regions[0].blocks[0].arguments[0])]
        moved = info.permuted([0, 1, 2, 3])
        assert moved.arguments is info.arguments and moved.sourceless is False


class _PutWrong:
    """Puts a fresh EntryBlock of each function with a wrong ``sourceless`` promise or argument list."""

    def __init__(self, sourceless: bool = False, no_arguments: bool = False) -> None:
        self.sourceless, self.no_arguments = sourceless, no_arguments

    def __call__(self, f, ctx):
        info = EntryBlock(f)
        info.sourceless = self.sourceless
        if self.no_arguments:
            info.arguments = []
        ctx.analyses.put(EntryBlock, f, info)


def _run_with(put: _PutWrong, check: bool = False) -> str:
    info = PassInfo("test-put-wrong-hoist", "t", put)
    steps = [Step(info, info.argument, anchor="func.func"), step_for("stablehlo-hoist-compute")]
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(HOISTABLE)
        Pipeline(steps, check_analyses=check).run(m)
        return str(m)


def test_a_wrong_promise_is_caught_by_the_checking_mode(monkeypatch):
    monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)
    with pytest.raises(AssertionError, match="the kept EntryBlock says @f has nothing to hoist, 2 ops are hoistable"):
        _run_with(_PutWrong(sourceless=True), check=True)


def test_the_wrong_promise_is_trusted_without_the_checking_mode(monkeypatch):
    # what the checking mode guards against: unchecked, the skip believes the promise
    monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)
    trusted = _run_with(_PutWrong(sourceless=True))
    assert trusted.index("stablehlo.multiply") < trusted.index("stablehlo.constant")  # left as it was
    hoisted = _run_with(_PutWrong(sourceless=False))
    assert hoisted.index("stablehlo.constant") < hoisted.index("stablehlo.add") < hoisted.index("stablehlo.multiply")


def test_wrong_arguments_are_caught_after_the_pass_that_put_them(monkeypatch):
    monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)
    info = PassInfo("test-put-wrong-arguments", "t", _PutWrong(no_arguments=True))
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(HOISTABLE)
        with pytest.raises(AnalysisCheckError, match=r"EntryBlock: entry block arguments differ \(0 kept, 1 now"):
            Pipeline([Step(info, info.argument, anchor="func.func")], check_analyses=True).run(m)
