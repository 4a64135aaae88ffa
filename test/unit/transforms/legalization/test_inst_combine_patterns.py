"""neuron-inst-combine on the pattern layer: its refusals through notify_match_failure, its statistic from the
driver's rewrites, and no walk of the IR for an absent root kind (nor for a sweep: the census lists the reduces)."""

import pytest
from pattern_probe_util import run_probed

from hilo_mlir.passes.legalization.inst_combine import CombineReduceSliceReduce

#: add-reduce -> slice -> maximum-reduce: the reducers differ
DIFFERENT_REDUCERS = """
func.func @f(%x: tensor<4x6xf32>) -> tensor<f32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32> loc("inner")
  %1 = stablehlo.slice %0 [0:2] : (tensor<4xf32>) -> tensor<2xf32>
  %2 = stablehlo.reduce(%1 init: %z) applies stablehlo.maximum across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32> loc("outer")
  return %2 : tensor<f32>
}
"""

COMBINABLE = DIFFERENT_REDUCERS.replace("stablehlo.maximum", "stablehlo.add")

NO_REDUCE = """
func.func @f(%x: tensor<4xf32>) -> tensor<2xf32> {
  %0 = stablehlo.slice %x [0:2] : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""

P = "[neuron-inst-combine] reduce-slice-reduce: stablehlo.reduce at "


def test_refusals_are_match_failures_with_exact_reasons(monkeypatch):
    probe = run_probed(monkeypatch, "neuron-inst-combine", DIFFERENT_REDUCERS, CombineReduceSliceReduce, debug=True)
    assert probe.log == [
        P + 'loc("inner"): operand is not a slice',
        P + 'loc("outer"): reducers differ or are not a single associative op (add vs maximum)',
    ]
    assert probe.text.count("stablehlo.reduce") == 2 and probe.stats == {}
    quiet = run_probed(monkeypatch, "neuron-inst-combine", DIFFERENT_REDUCERS, CombineReduceSliceReduce)
    assert quiet.log == [] and quiet.text == probe.text


@pytest.mark.no_check_analyses  # counts walks/matches of the fast path
def test_a_combination_is_counted_once_and_costs_no_walk(monkeypatch):
    probe = run_probed(monkeypatch, "neuron-inst-combine", COMBINABLE, CombineReduceSliceReduce)
    assert probe.stats == {"reduces-combined": 1}
    assert probe.text.count("stablehlo.reduce") == 1
    assert "stablehlo.slice %arg0 [0:2, 0:6]" in probe.text and "across dimensions = [0, 1]" in probe.text
    # look-ahead: inner (no slice operand), outer (matches); sweep: inner skipped (refused, nothing changed
    # since), outer (rewritten)
    assert probe.matches == 3
    assert probe.walks == 0  # one root name: the census's list of the reduces


def test_an_absent_root_kind_costs_no_walk_and_no_match(monkeypatch):
    probe = run_probed(monkeypatch, "neuron-inst-combine", NO_REDUCE, CombineReduceSliceReduce, debug=True)
    assert (probe.walks, probe.matches, probe.log, probe.stats) == (0, 0, [], {})
