"""The pattern drivers skip a function that holds none of the root kinds (``Census.names_in``, no walk),
as on the StableHLO spine's decomposition functions; the checking mode compares that answer with a walk."""

from __future__ import annotations

import pytest

from hilo_mlir.analysis.census import Census
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passmanager.pipeline import Pipeline, Step
from hilo_mlir.passmanager.registry import PassInfo
from hilo_mlir.rewrite import pattern
from hilo_mlir.rewrite.pattern import PatternCheckError, RewritePattern, apply_patterns_once

SRC = """
func.func private @only_abs(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.abs %a : tensor<4xf32> loc("a-only")
  return %0 : tensor<4xf32>
}
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %a : tensor<4xf32> loc("n0")
  %1 = func.call @only_abs(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @nested(%b: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%b init: %z) across dimensions = [1] : (tensor<4x2xf32>, tensor<f32>) -> tensor<4xf32>
   reducer(%x: tensor<f32>, %y: tensor<f32>) {
    %n = stablehlo.negate %x : tensor<f32> loc("n-in-reduce")
    stablehlo.return %n : tensor<f32>
  }
  %o = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<4xf32>) -> tensor<4x2xf32>
  return %o : tensor<4x2xf32>
}
func.func private @empty(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
"""


class Asked(RewritePattern):
    """Never matches; records the ops it was asked about, by location name."""

    name, roots = "asked", ("negate",)

    def __init__(self) -> None:
        self.asked: list[str] = []

    def match(self, op, rw):
        self.asked.append(str(op.location).split('"')[1])
        return False


def _run(p: RewritePattern, runs: list[str], monkeypatch, check: bool) -> None:
    if check:
        monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "1")
    else:
        monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)
    real_init = pattern._Run.__init__

    def counting_init(self, top, *a, **k):  # one driver run built per function that holds a root kind
        runs.append(ir.StringAttr(top.attributes["sym_name"]).value)
        real_init(self, top, *a, **k)

    monkeypatch.setattr(pattern._Run, "__init__", counting_init)
    patterns = (p,)

    def run(op, ctx):
        apply_patterns_once(op, patterns, ctx)

    info = PassInfo("test-function-skip", "test", run, dialect="stablehlo", statistics=[p.name])
    with make_context():
        m = ir.Module.parse(SRC)
        Pipeline([Step(info, info.argument, {})], check_analyses=check).run(m)


@pytest.mark.no_check_analyses
def test_functions_without_a_root_kind_build_no_driver_run(monkeypatch):
    p, runs = Asked(), []
    _run(p, runs, monkeypatch, check=False)
    # @only_abs and @empty hold no negate: nothing is built or asked for them
    assert runs == ["main", "nested"]
    assert p.asked == ["n0", "n-in-reduce"]


def test_checking_mode_walks_the_skipped_functions(monkeypatch):
    p, runs = Asked(), []
    _run(p, runs, monkeypatch, check=True)  # the census is right: the same answers, and nothing raised
    assert runs == ["only_abs", "main", "nested", "empty"]  # checked by a walk of each function
    assert p.asked == ["n0", "n-in-reduce"]


@pytest.mark.parametrize("check", [False, True])
def test_a_wrong_names_in_is_caught_by_the_checking_mode_only(monkeypatch, check):
    real = Census.names_in

    def forgets_negate(self, top):
        return frozenset(n for n in real(self, top) if n != "stablehlo.negate")

    monkeypatch.setattr(Census, "names_in", forgets_negate)
    p, runs = Asked(), []
    if not check:  # the fast path trusts the census: nothing is asked
        _run(p, runs, monkeypatch, check=False)
        assert runs == [] and p.asked == []
        return
    with pytest.raises(PatternCheckError, match=r"the census says \['stablehlo.negate'\] are absent but the op holds 1 of them"):
        _run(p, runs, monkeypatch, check=True)
