"""raise-logistic on the pattern layer: a refused candidate's reason (the fusion report's code and detail)
through notify_match_failure, the statistic from the driver's rewrites, and no walk: the census lists the
divides, and a module without one asks no pattern."""

import pytest
from pattern_probe_util import run_probed

from hilo_mlir.passes.fusion.raise_logistic import LogisticRefusal, RaiseLogistic, _ReportRefusals

SIGMOID = """
func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %one = stablehlo.constant dense<1.0> : tensor<4xf32>
  %n = stablehlo.negate %x : tensor<4xf32>
  %e = stablehlo.exponential %n : tensor<4xf32>
  %a = stablehlo.add %one, %e : tensor<4xf32>
  %d = stablehlo.divide %one, %a : tensor<4xf32> loc("sig")
  %q = stablehlo.divide %x, %x : tensor<4xf32> loc("plain")
  return %d, %q : tensor<4xf32>, tensor<4xf32>
}
"""

#: the add has another user: a candidate refused as add-multi-use
SHARED_ADD = SIGMOID.replace("return %d, %q", "return %d, %a")

NO_DIVIDE = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

P = "[raise-logistic] raise-logistic: stablehlo.divide at "


def test_a_refused_candidate_states_the_reports_reason(monkeypatch):
    probe = run_probed(monkeypatch, "raise-logistic", SHARED_ADD, RaiseLogistic, debug=True)
    assert probe.log == [
        P + 'loc("sig"): add-multi-use:stablehlo.add',
        P + 'loc("plain"): not 1/(1+exp(..)): the denominator is not an add of an exponential',
    ]
    assert probe.stats == {} and "stablehlo.logistic" not in probe.text


def test_the_report_listener_hears_only_candidates():
    seen = []

    class Recorder:
        def refused(self, rule, kind, anchor, code, detail, culprit):
            seen.append((rule, kind, code, detail, culprit))

    listener = _ReportRefusals(Recorder())
    listener.notify_match_failure("raise-logistic", None, "not 1/(1+exp(..)): the denominator is not an add of an exponential")
    culprit = object()
    listener.notify_match_failure("raise-logistic", None, LogisticRefusal("add-multi-use", "stablehlo.add", culprit))
    assert seen == [("RaiseLogistic", "Logistic", "add-multi-use", "stablehlo.add", culprit)]
    assert str(LogisticRefusal("type-mismatch", None, None)) == "type-mismatch"


@pytest.mark.no_check_analyses  # counts walks/matches of the fast path
def test_a_raise_is_counted_and_costs_no_walk(monkeypatch):
    probe = run_probed(monkeypatch, "raise-logistic", SIGMOID, RaiseLogistic)
    assert probe.stats == {"raised-logistic": 1}
    assert "stablehlo.logistic %arg0" in probe.text and "stablehlo.divide %arg0, %arg0" in probe.text
    for gone in ("negate", "exponential", "constant"):
        assert f"stablehlo.{gone}" not in probe.text
    assert probe.matches == 3  # look-ahead: the sigmoid (a match, kept); sweep: the sigmoid (reused), the plain divide
    assert probe.walks == 0  # one root name in the module: the census's list of the divides


def test_an_absent_divide_costs_no_walk_and_no_match(monkeypatch):
    probe = run_probed(monkeypatch, "raise-logistic", NO_DIVIDE, RaiseLogistic, debug=True)
    assert (probe.walks, probe.matches, probe.log, probe.stats) == (0, 0, [], {})


def test_a_module_without_the_chain_kinds_costs_no_match(monkeypatch):
    """Divides but no exponential: no candidate can exist (census), so no pattern is asked, even with --debug."""
    src = NO_DIVIDE.replace("stablehlo.negate %x", "stablehlo.divide %x, %x")
    probe = run_probed(monkeypatch, "raise-logistic", src, RaiseLogistic, debug=True)
    assert (probe.walks, probe.matches, probe.log, probe.stats) == (0, 0, [], {})
