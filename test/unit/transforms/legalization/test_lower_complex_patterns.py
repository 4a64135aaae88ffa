"""lower-complex(+extra) on the pattern layer: refusals through notify_match_failure with exact reasons, the
statistic from the driver's rewrites, and no walk for absent root kinds."""

import pytest
from pattern_probe_util import run_probed

from hilo_mlir.passes.legalization.lower_complex import LowerComplexOp

#: a complex add (lowered), a real add (refused) and a dynamic-shape complex abs (refused)
MIXED = """
func.func @f(%a: tensor<2xcomplex<f32>>, %r: tensor<2xf32>, %d: tensor<?xcomplex<f32>>) -> (tensor<2xcomplex<f32>>, tensor<2xf32>, tensor<?xf32>) {
  %0 = stablehlo.add %a, %a : tensor<2xcomplex<f32>> loc("cadd")
  %1 = stablehlo.add %r, %r : tensor<2xf32> loc("radd")
  %2 = stablehlo.abs %d : (tensor<?xcomplex<f32>>) -> tensor<?xf32> loc("dabs")
  return %0, %1, %2 : tensor<2xcomplex<f32>>, tensor<2xf32>, tensor<?xf32>
}
"""

#: nothing lower-complex-extra roots at (abs, exponential, log, sqrt)
ONLY_ADD = """
func.func @f(%a: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  %0 = stablehlo.add %a, %a : tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}
"""

P = "[stablehlo-lower-complex] lower-complex-op: "


@pytest.mark.no_check_analyses  # counts walks/matches of the fast path
def test_refusals_are_match_failures_with_exact_reasons(monkeypatch):
    probe = run_probed(monkeypatch, "stablehlo-lower-complex", MIXED, LowerComplexOp, debug=True)
    # with --debug the sweep runs without the look-ahead: one match per root op, in walk order
    assert probe.matches == 3
    assert sorted(probe.log) == [
        P + 'stablehlo.abs at loc("dabs"): abs on a dynamic shape (its lowering needs splat constants)',
        P + 'stablehlo.add at loc("radd"): operand is not complex',
    ]
    assert probe.stats == {"ops-lowered": 1}
    assert "stablehlo.abs %arg2" in probe.text and "stablehlo.add %arg1, %arg1" in probe.text
    assert "stablehlo.complex" in probe.text and "stablehlo.real %arg0" in probe.text
    assert probe.walks == 1  # two root names (add, abs) in the function: one pre-order walk


def test_without_debug_nothing_is_said_and_the_same_ir_comes_out(monkeypatch):
    loud = run_probed(monkeypatch, "stablehlo-lower-complex", MIXED, LowerComplexOp, debug=True)
    quiet = run_probed(monkeypatch, "stablehlo-lower-complex", MIXED, LowerComplexOp)
    assert quiet.log == [] and quiet.text == loud.text and quiet.stats == loud.stats


def test_absent_root_kinds_cost_no_walk_and_no_match(monkeypatch):
    probe = run_probed(monkeypatch, "stablehlo-lower-complex-extra", ONLY_ADD, LowerComplexOp, debug=True)
    assert (probe.walks, probe.matches, probe.log, probe.stats) == (0, 0, [], {})
    assert "stablehlo.add %arg0, %arg0" in probe.text
