"""fold-iota on the pattern layer: the seed's reject reasons through notify_match_failure, 'rejected' from the
census, one fold per match (the look-ahead's values are reused), and no walk for an absent power."""

import pytest
from pattern_probe_util import run_probed

from hilo_mlir.passes.legalization import fold_iota
from hilo_mlir.passes.legalization.fold_iota import FoldIotaPattern

ROPE = """
func.func @rope() -> tensor<4xf32> {
  %c = stablehlo.constant dense<10000.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %i = stablehlo.iota dim = 0 : tensor<4xf32>
  %s = stablehlo.constant dense<-0.25> : tensor<4xf32>
  %m = stablehlo.multiply %i, %s : tensor<4xf32>
  %p = stablehlo.power %b, %m : tensor<4xf32> loc("pow")
  return %p : tensor<4xf32>
}
"""

#: the exponent is an add: the seed's "powOp arg1 is not a MulOp"
NOT_MUL = ROPE.replace("stablehlo.multiply", "stablehlo.add")

NO_POWER = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def test_the_seeds_reason_is_a_match_failure(monkeypatch):
    probe = run_probed(monkeypatch, "stablehlo-fold-iota", NOT_MUL, FoldIotaPattern, debug=True)
    assert probe.log == ['[stablehlo-fold-iota] fold-iota: stablehlo.power at loc("pow"): powOp arg1 is not a MulOp']
    assert probe.stats == {"rejected": 1}
    assert "stablehlo.power" in probe.text


@pytest.mark.no_check_analyses  # counts walks/matches of the fast path
def test_a_fold_is_computed_once_and_counted(monkeypatch):
    folds = []
    real = fold_iota.match_fold_iota

    def counted(*a, **k):
        folds.append(1)
        return real(*a, **k)

    monkeypatch.setattr(fold_iota, "match_fold_iota", counted)
    probe = run_probed(monkeypatch, "stablehlo-fold-iota", ROPE, FoldIotaPattern)
    assert probe.stats == {"folded": 1}
    assert "stablehlo.constant dense<[1.000000e+00, 1.000000e-01, 0.00999999977, 1.000000e-03]> : tensor<4xf32>" in probe.text
    for gone in ("power", "iota", "multiply", "broadcast_in_dim"):
        assert f"stablehlo.{gone}" not in probe.text
    assert probe.matches == 2 and len(folds) == 1  # look-ahead and sweep asked; the values were computed once
    assert probe.walks == 0


def test_an_absent_power_costs_no_walk_and_no_match(monkeypatch):
    probe = run_probed(monkeypatch, "stablehlo-fold-iota", NO_POWER, FoldIotaPattern, debug=True)
    assert (probe.walks, probe.matches, probe.log, probe.stats) == (0, 0, [], {})
