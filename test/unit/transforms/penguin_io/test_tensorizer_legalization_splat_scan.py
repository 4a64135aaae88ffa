"""stablehlo-tensorizer-legalization's splat stage asks the census for the constants of one top-level op
after the other and stops once it holds as many as the census counts in the module (the StableHLO spine
has 1,536 decomposition functions after ``main``)."""

from __future__ import annotations

import pytest

from hilo_mlir.passmanager.pass_context import PassContext
from hilo_mlir.testing import run_passes

SRC = """
func.func @main(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %k = stablehlo.constant dense<0.5> : tensor<8x8xf32>
  %0 = stablehlo.multiply %a, %k : tensor<8x8xf32>
  %1 = call @scale(%0) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}
func.func private @scale(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %k = stablehlo.constant dense<2.0> : tensor<8x8xf32>
  %s = stablehlo.constant dense<1.0> : tensor<2xf32>
  %0 = stablehlo.multiply %a, %k : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
func.func private @no_constant_1(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  return %a : tensor<8x8xf32>
}
func.func private @no_constant_2(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = stablehlo.negate %a : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
"""


def _asked(monkeypatch, src: str) -> tuple[list[str], str, dict]:
    asked: list[str] = []
    real = PassContext.ops_named

    def counting(self, top, *names, any_order=False):
        if names == ("stablehlo.constant",):
            asked.append(top.attributes["sym_name"].value)
        return real(self, top, *names, any_order=any_order)

    monkeypatch.setattr(PassContext, "ops_named", counting)
    after, stats = run_passes(src, "stablehlo-tensorizer-legalization{splat-threshold=64}")
    return asked, after, stats


@pytest.mark.no_check_analyses
def test_stops_at_the_census_count(monkeypatch):
    asked, after, stats = _asked(monkeypatch, SRC)
    assert asked == ["main", "scale"]  # all three constants found: the two functions after are not asked
    assert stats["large-splats-broadcast"] == 2  # the two 8x8 splats; the 2-element one stays
    assert after.count("stablehlo.broadcast_in_dim") == 2
    assert after.count("stablehlo.constant dense<1.000000e+00> : tensor<2xf32>") == 1


@pytest.mark.no_check_analyses
def test_a_constant_in_the_last_function_is_found(monkeypatch):
    src = SRC.replace(
        "%0 = stablehlo.negate %a : tensor<8x8xf32>",
        "%c = stablehlo.constant dense<3.0> : tensor<8x8xf32>\n  %0 = stablehlo.add %a, %c : tensor<8x8xf32>",
    )
    asked, after, stats = _asked(monkeypatch, src)
    assert asked == ["main", "scale", "no_constant_1", "no_constant_2"]
    assert stats["large-splats-broadcast"] == 3 and after.count("stablehlo.broadcast_in_dim") == 3


@pytest.mark.no_check_analyses
def test_no_constant_asks_nothing(monkeypatch):
    src = SRC.replace("stablehlo.constant dense<0.5> : tensor<8x8xf32>", "stablehlo.negate %a : tensor<8x8xf32>")
    src = src.replace("%k = stablehlo.constant dense<2.0> : tensor<8x8xf32>", "%k = stablehlo.negate %a : tensor<8x8xf32>")
    src = src.replace("  %s = stablehlo.constant dense<1.0> : tensor<2xf32>\n", "")
    asked, after, stats = _asked(monkeypatch, src)
    assert asked == [] and "large-splats-broadcast" not in stats and "broadcast_in_dim" not in after
