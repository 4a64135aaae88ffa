"""identify-cross-pass-tensors finds stale stamps among the census's op lists (no walk); the checking
mode compares them with a walk and catches a wrong list."""

from __future__ import annotations

import pytest

from hilo_mlir.analysis.census import Census
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passes.scheduling.cross_pass import ATTR
from hilo_mlir.passmanager.pipeline import Pipeline, step_for

TEXT = """
func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %b {neuron.CrossPassTensor = array<i64: 0>} : tensor<4xf32>
  %1 = stablehlo.multiply %0, %b {neuron.CrossPassTensor = array<i64: 3>} : tensor<4xf32>
  %2 = func.call @f(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %3 = stablehlo.reduce(%2 init: %z) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    reducer(%p: tensor<f32>, %q: tensor<f32>) {
      %s = stablehlo.add %p, %q {neuron.CrossPassTensor = array<i64: 0>} : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }
  return %3 : tensor<f32>
}
"""


def _run(check: bool) -> tuple[list[tuple[str, str]], dict]:
    """``[(op name, its stamp or "")]`` of every op of ``@main`` in walk order, and the pass statistics."""
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(TEXT)
        p = Pipeline([step_for("stablehlo-identify-cross-pass-tensors")], check_analyses=check)
        p.run(m)
        stamps: list[tuple[str, str]] = []

        def visit(op):
            stamps.append((op.name, str(op.attributes[ATTR]) if ATTR in op.attributes else ""))
            return ir.WalkResult.ADVANCE

        m.body.operations[1].operation.walk(visit)
        return stamps, dict(p.stats["StableHLOIdentifyCrossPassTensors"])


EXPECTED = [
    ("stablehlo.add", ""),  # stale: %0 crosses no boundary
    ("stablehlo.multiply", "array<i64: 0>"),  # the call's operand: restamped [0]
    ("func.call", "array<i64: 0>"),  # the call's result has a user
    ("stablehlo.constant", ""),
    ("stablehlo.add", ""),  # stale, nested in the reducer
    ("stablehlo.return", ""),
    ("stablehlo.reduce", ""),
    ("func.return", ""),
    ("func.func", ""),
]


def test_stale_stamps_go_and_the_crossing_values_are_stamped():
    stamps, stats = _run(check=True)
    assert stamps == EXPECTED
    assert stats["values-stamped"] == 2


def test_a_wrong_op_list_is_caught_by_the_checking_mode(monkeypatch):
    monkeypatch.setattr(Census, "names_in", lambda self, top: frozenset())  # the lists seem empty
    with pytest.raises(AssertionError, match="stale stamps"):
        _run(check=True)


def test_without_the_checking_mode_the_lists_are_not_compared(monkeypatch):
    monkeypatch.setattr(Census, "names_in", lambda self, top: frozenset())
    stamps, _ = _run(check=False)
    assert [s for _, s in stamps] == ["array<i64: 0>", "array<i64: 0>", "array<i64: 0>", "", "array<i64: 0>", "", "", "", ""]
