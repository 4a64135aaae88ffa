"""schedule-postorder on a decomposition function the fusion codegen just made.

The StableHLO fusion codegen puts the :class:`~hilo_mlir.analysis.entry_block.EntryBlock`
of each new decomposition function into the analysis manager, made from what the
cluster read (:func:`~hilo_mlir.analysis.entry_block.of_new_function`). When that
EntryBlock is still cached and says the function is in the scheduler's order
(:func:`~hilo_mlir.passes.scheduling.schedule_postorder.settled_blocks`), the pass
reads nothing there and keeps it. The checking mode compares the handed-over
EntryBlock with a fresh one after the fusion pass, and the skip with the one-block
definition (:func:`schedule_block_postorder`); a wrong EntryBlock is caught.
"""

from __future__ import annotations

import pytest

from hilo_mlir.analysis.check import AnalysisCheckError
from hilo_mlir.analysis.entry_block import EntryBlock
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.ir.utils import func_name, top_funcs
from hilo_mlir.passes.scheduling.schedule_postorder import settled_blocks
from hilo_mlir.passmanager.pipeline import Pipeline, Step, step_for
from hilo_mlir.passmanager.registry import PassInfo
from hilo_mlir.testing import run_passes

FUSION = "stablehlo-neuron-op-fusion{fuse-dot-logistic=true}"  # for run_passes (pipeline text)

#: an RMSNorm core (one MulRedSqrt cluster, a reduce with its body inside) and a SiLU (DotLogistic)
RMSNORM_SILU = """
func.func @main(%x: tensor<4x128xf32>, %w: tensor<128x128xf32>) -> tensor<4x128xf32> {
  %eps = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
  %n = stablehlo.constant dense<1.280000e+02> : tensor<f32>
  %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.multiply %x, %x : tensor<4x128xf32>
  %1 = stablehlo.reduce(%0 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x128xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
  %3 = stablehlo.broadcast_in_dim %n, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
  %4 = stablehlo.divide %2, %3 : tensor<4x1xf32>
  %5 = stablehlo.broadcast_in_dim %eps, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
  %6 = stablehlo.add %4, %5 : tensor<4x1xf32>
  %7 = stablehlo.rsqrt %6 : tensor<4x1xf32>
  %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x128xf32>
  %9 = stablehlo.multiply %x, %8 : tensor<4x128xf32>
  %10 = stablehlo.dot_general %9, %w, contracting_dims = [1] x [0] : (tensor<4x128xf32>, tensor<128x128xf32>) -> tensor<4x128xf32>
  %11 = stablehlo.logistic %10 : tensor<4x128xf32>
  %12 = stablehlo.multiply %10, %11 : tensor<4x128xf32>
  return %12 : tensor<4x128xf32>
}
"""


def _probe(seen: dict, label: str):
    """A pass that records, per function, the EntryBlock the manager holds for it (None if none)."""

    def run(f, ctx):
        seen.setdefault(label, {})[func_name(f)] = ctx.analyses.cached(EntryBlock, f)

    info = PassInfo(f"test-probe-{label}", "t", run)
    return Step(info, info.argument, anchor="func.func")


def test_fusion_hands_over_and_schedule_postorder_keeps_it(monkeypatch):
    monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "1")  # also the skip's own comparison
    seen: dict = {}
    fusion = step_for("stablehlo-neuron-op-fusion", fuse_dot_logistic=True)
    steps = [fusion, _probe(seen, "fused"), step_for("stablehlo-schedule-postorder"), _probe(seen, "scheduled")]
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(RMSNORM_SILU)
        pipe = Pipeline(steps, check_analyses=True)  # compares each kept EntryBlock with a fresh one
        pipe.run(m)
        shared = str(m)
        stats = dict(pipe.stats["StableHLOSchedulePostorder"])
    decomps = sorted(k for k in seen["fused"] if k != "main")
    assert decomps == ["neuron.DotLogistic.impl", "neuron.MulRedSqrt.impl"]
    for name in decomps:
        info = seen["fused"][name]
        assert info is not None
        assert seen["scheduled"][name] is info  # skipped: not read again, not replaced
    # the MulRedSqrt decomposition: 6 members and the return; the reduce's body is one block
    red = seen["fused"]["neuron.MulRedSqrt.impl"]
    assert [o.name for o in red.ops] == [
        "stablehlo.multiply",
        "stablehlo.reduce",
        "stablehlo.broadcast_in_dim",
        "stablehlo.divide",
        "stablehlo.add",
        "stablehlo.rsqrt",
        "func.return",
    ]
    assert red.nested_blocks == 1 and settled_blocks(red) == 2
    assert seen["fused"]["neuron.DotLogistic.impl"].nested_blocks == 0
    # the same IR and statistics as separate runs (no hand-over there: every function is read)
    fused, _ = run_passes(RMSNORM_SILU, FUSION)
    separate, sep_stats = run_passes(fused, "stablehlo-schedule-postorder")
    assert shared == separate
    assert stats == {k: sep_stats[k] for k in stats}
    assert stats["blocks"] == 1 + 2 + 1  # main, the MulRedSqrt decomposition and its reduce body, DotLogistic


OUT_OF_ORDER = """
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %x = stablehlo.add %a, %a : tensor<4xf32>
  %y = stablehlo.multiply %b, %b : tensor<4xf32>
  return %y, %x : tensor<4xf32>, tensor<4xf32>
}
"""


class _PutWrong:
    """Puts a deliberately wrong EntryBlock of each function, marked settled by the maker's promise:
    ``swap`` the terminator's inputs (so the order looks like the post-order), or promise ``blocks`` nested blocks."""

    def __init__(self, swap: bool, blocks: int = 0) -> None:
        self.swap, self.blocks = swap, blocks

    def __call__(self, f, ctx):
        info = EntryBlock(f)
        if self.swap:
            info.inputs[-1] = list(reversed(info.inputs[-1]))
        info.nested_blocks = self.blocks
        ctx.analyses.put(EntryBlock, f, info)


IN_ORDER = OUT_OF_ORDER.replace("return %y, %x", "return %x, %y")


def _run_with(put: _PutWrong, text: str = OUT_OF_ORDER) -> str:
    info = PassInfo("test-put-wrong-entry", "t", put)
    steps = [Step(info, info.argument, anchor="func.func"), step_for("stablehlo-schedule-postorder")]
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(text)
        Pipeline(steps).run(m)  # the checking mode as the environment says
        return str(m)


def test_a_wrong_order_claim_is_caught_by_the_checking_mode(monkeypatch):
    monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "1")
    with pytest.raises(Exception, match="the kept EntryBlock says @f is in order, but 2 ops of a block would move"):
        _run_with(_PutWrong(swap=True))


def test_a_wrong_block_count_is_caught_by_the_checking_mode(monkeypatch):
    monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "1")
    with pytest.raises(Exception, match="the kept EntryBlock says @f has 4 blocks to schedule, a walk finds 1"):
        _run_with(_PutWrong(swap=False, blocks=3), IN_ORDER)


def test_the_wrong_entry_block_is_trusted_without_the_checking_mode(monkeypatch):
    # what the checking mode guards against: unchecked, the skip believes the kept EntryBlock
    monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)
    trusted = _run_with(_PutWrong(swap=True))
    assert trusted.index("stablehlo.add") < trusted.index("stablehlo.multiply")  # left as it was
    scheduled, _ = run_passes(OUT_OF_ORDER, "stablehlo-schedule-postorder")
    assert scheduled.index("stablehlo.multiply") < scheduled.index("stablehlo.add")


def test_a_wrong_hand_over_is_caught_after_the_pass_that_made_it():
    # the manager's own comparison (kept EntryBlock vs a fresh one) after the pass that put it
    class _WrongInputs:
        def __call__(self, f, ctx):
            info = EntryBlock(f)
            info.inputs[0] = []
            ctx.analyses.put(EntryBlock, f, info)

    info = PassInfo("test-wrong-inputs", "t", _WrongInputs())
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(OUT_OF_ORDER)
        with pytest.raises(AnalysisCheckError, match=r"EntryBlock: op #0 \('stablehlo.add'\): inputs differ"):
            Pipeline([Step(info, info.argument, anchor="func.func")], check_analyses=True).run(m)


def _entry(text: str, name: str) -> tuple[EntryBlock, ir.Module]:
    m = ir.Module.parse(text)
    f = next(f for f in top_funcs(m.operation) if func_name(f) == name)
    return EntryBlock(f), m


def test_settled_blocks_needs_the_promise_known_effects_and_the_order():
    with make_context(), ir.Location.unknown():
        info, _m = _entry(OUT_OF_ORDER, "f")
        assert settled_blocks(info) is None  # no promise (a fresh read makes none)
        info.nested_blocks = 0
        assert settled_blocks(info) is None  # the return reads %y first: the multiply would move first
        info.inputs[-1] = list(reversed(info.inputs[-1]))
        assert settled_blocks(info) == 1
        info.effects[0] = None  # a composite takes part: not decided here
        assert settled_blocks(info) is None


def test_the_pipelines_checking_flag_checks_a_skip_without_the_environment(monkeypatch):
    """``Pipeline(check_analyses=True)`` turns the skip's comparison on as the environment variable does."""
    monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)
    info = PassInfo("test-put-wrong-entry-flag", "t", _PutWrong(swap=True))
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(OUT_OF_ORDER)
        steps = [Step(info, info.argument, anchor="func.func"), step_for("stablehlo-schedule-postorder")]
        with pytest.raises(AssertionError, match="kept EntryBlock"):
            Pipeline(steps, check_analyses=True).run(m)


@pytest.mark.parametrize("checking", [False, True])
def test_the_real_fusion_hands_schedule_postorder_kept_answers(checking, monkeypatch):
    """End to end: after stablehlo-neuron-op-fusion, schedule-postorder answers each composite (one
    MulRedSqrt, one DotLogistic) from the EntryBlock the codegen kept for its decomposition, not from
    the census's names (in the checking mode too, where a walk agrees)."""
    from hilo_mlir.analysis import entry_block
    from hilo_mlir.analysis.entry_block import CensusEffectOracle

    monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)
    kept: list = []
    by_names: list = []
    original_kept, original_names = CensusEffectOracle._kept_effect, CensusEffectOracle._names_effect

    def spy_kept(self, f):
        found = original_kept(self, f)
        kept.append((func_name(f), found))
        return found

    def spy_names(self, f):
        by_names.append(func_name(f))
        return original_names(self, f)

    monkeypatch.setattr(entry_block.CensusEffectOracle, "_kept_effect", spy_kept)
    monkeypatch.setattr(entry_block.CensusEffectOracle, "_names_effect", spy_names)
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(RMSNORM_SILU)
        steps = [step_for("stablehlo-neuron-op-fusion", fuse_dot_logistic=True), step_for("stablehlo-schedule-postorder")]
        Pipeline(steps, check_analyses=checking).run(m)
        names = sorted(func_name(f) for f in top_funcs(m.operation))
    assert names == ["main", "neuron.DotLogistic.impl", "neuron.MulRedSqrt.impl"]
    assert sorted(kept) == [("neuron.DotLogistic.impl", False), ("neuron.MulRedSqrt.impl", False)]
    assert by_names == []
