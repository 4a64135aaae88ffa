"""``prune-functions``: calls, decompositions and called computations that reach every function
end the pass without the scan of every attribute; anything else still takes the full scan."""

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passes.scheduling import prune_functions
from hilo_mlir.passmanager.pipeline import Pipeline, step_for

ALL_DIRECT = """
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @f(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = stablehlo.composite "neuron.Elementwise" %0 {decomposition = @g} : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}
func.func private @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
func.func private @g(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @h(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func private @h(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
"""

# @k is referenced only from a discardable attribute; @dead from nowhere
INDIRECT = """
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a {hilo.refs = [@k]} : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func private @k(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
func.func private @dead(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
"""


def _run(text, monkeypatch):
    scans: list = []
    full = prune_functions.reachable_functions
    monkeypatch.setattr(prune_functions, "reachable_functions", lambda *a, **k: (scans.append(1), full(*a, **k))[1])
    with make_context():
        m = ir.Module.parse(text)
        pipe = Pipeline([step_for("stablehlo-prune-functions")], check_analyses=True)
        pipe.run(m)
        names = [str(op.attributes["sym_name"]) for op in m.body.operations]
    return names, dict(pipe.stats["StableHLOPruneFunctions"]), len(scans)


def test_every_function_reached_directly_needs_no_scan(monkeypatch):
    names, stats, scans = _run(ALL_DIRECT, monkeypatch)
    assert names == ['"main"', '"f"', '"g"', '"h"']
    assert stats == {"functions-erased": 0, "functions-kept": 4}
    assert scans == 0


def test_a_function_referenced_otherwise_takes_the_full_scan(monkeypatch):
    names, stats, scans = _run(INDIRECT, monkeypatch)
    assert names == ['"main"', '"k"']
    assert stats == {"functions-erased": 1, "functions-kept": 2}
    assert scans == 1
