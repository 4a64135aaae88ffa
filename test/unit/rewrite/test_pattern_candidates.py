"""The pattern drivers' candidates (hilo_mlir/rewrite/pattern.py): from the census, equal to a walk's, exact
op lists; the refusals the sweep skips; the checking mode's comparison with the truth."""

from __future__ import annotations

import pytest

from hilo_mlir.analysis.census import Census
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passmanager.pipeline import Pipeline, PipelineEnv, Step
from hilo_mlir.passmanager.registry import PassInfo
from hilo_mlir.rewrite.pattern import PatternCheckError, RewritePattern, apply_patterns_once

SRC = """
func.func @main(%a: tensor<4xf32>, %b: tensor<4x2xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %a : tensor<4xf32> loc("n0")
  %1 = stablehlo.abs %0 : tensor<4xf32> loc("a0")
  %z = stablehlo.constant dense<0.0> : tensor<f32> loc("c0")
  %r = stablehlo.reduce(%b init: %z) across dimensions = [1] : (tensor<4x2xf32>, tensor<f32>) -> tensor<4xf32>
   reducer(%x: tensor<f32>, %y: tensor<f32>) {
    %n = stablehlo.negate %x : tensor<f32> loc("n-in-reduce")
    %s = stablehlo.add %n, %y : tensor<f32> loc("s-in-reduce")
    stablehlo.return %s : tensor<f32>
  } loc("r0")
  %2 = stablehlo.negate %1 : tensor<4xf32> loc("n1")
  %3 = stablehlo.add %2, %r : tensor<4xf32> loc("s0")
  return %3 : tensor<4xf32>
}
func.func private @other(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.abs %a : tensor<4xf32> loc("a-other")
  %1 = stablehlo.negate %0 : tensor<4xf32> loc("n-other")
  return %1 : tensor<4xf32>
}
"""


def _loc(op) -> str:
    return str(op.location).split('"')[1]


class Asked(RewritePattern):
    """Never matches; records (in order) the ops it was asked about, by location name."""

    name = "asked"

    def __init__(self, roots):
        self.roots = roots
        self.asked: list[str] = []

    def match(self, op, rw):
        self.asked.append(_loc(op))
        return False


def _run(patterns, anchor="func.func", env=None, check=False, monkeypatch=None):
    if check:  # the drivers read the checking mode from the environment, as identity_key does
        monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "1")

    def run(op, ctx):
        apply_patterns_once(op, patterns, ctx)

    info = PassInfo("test-candidates", "test", run, dialect="stablehlo", anchor=anchor, statistics=[p.name for p in patterns])
    with make_context():
        m = ir.Module.parse(SRC)
        walked = {}

        def visit(op):
            if op.name.startswith("stablehlo."):
                walked.setdefault(op.name.split(".", 1)[1], []).append(_loc(op))
            return ir.WalkResult.ADVANCE

        m.operation.walk(visit)  # the truth: post-order, like the census
        Pipeline([Step(info, info.argument, {}, anchor=anchor)], env=env or PipelineEnv(), check_analyses=check).run(m)
        return walked, str(m)


@pytest.mark.parametrize("anchor", ["func.func", "builtin.module"])
def test_candidates_are_a_walks_ops_name_after_name(anchor):
    p = Asked(("negate", "abs", "sine"))  # no sine in the module: never asked about
    walked, _ = _run([p], anchor=anchor)
    if anchor == "builtin.module":  # the module's lists: each name over every function, in order
        assert p.asked == walked["negate"] + walked["abs"]
        assert p.asked == ["n0", "n-in-reduce", "n1", "n-other", "a0", "a-other"]
    else:  # one function after the other
        assert p.asked == ["n0", "n-in-reduce", "n1", "a0", "n-other", "a-other"]


@pytest.mark.no_check_analyses  # counts walks/matches of the fast path
def test_no_walk_for_candidates(monkeypatch):
    walks = []
    op_walk, view_walk = ir.Operation.walk, ir.OpView.walk
    monkeypatch.setattr(ir.Operation, "walk", lambda self, *a, **k: (walks.append(self.name), op_walk(self, *a, **k))[1])
    monkeypatch.setattr(ir.OpView, "walk", lambda self, *a, **k: (walks.append(self.operation.name), view_walk(self, *a, **k))[1])
    p = Asked(("negate", "abs"))
    with make_context():
        m = ir.Module.parse(SRC)
        census = Census(m.operation)
        walks.clear()

        def run(op, ctx):
            apply_patterns_once(op, [p], ctx)

        info = PassInfo("test-candidates", "test", run, dialect="stablehlo", anchor="builtin.module", statistics=["asked"])
        Pipeline([Step(info, info.argument, {}, anchor="builtin.module")]).run(m, census=census)
    assert walks == [] and len(p.asked) == 6


class NegateOfNegate(RewritePattern):
    """negate(negate(x)) -> x; counts its matches."""

    name, roots = "negate-negate", ("negate",)

    def __init__(self):
        self.matches = 0

    def match(self, op, rw):
        self.matches += 1
        inner = op.operands[0].owner
        return isinstance(inner, ir.OpView) and inner.operation.name == "stablehlo.negate"

    def rewrite(self, op, rw):
        rw.replace_op(op, [op.operands[0].owner.operands[0]])


def test_a_refused_candidate_is_not_asked_again_until_something_changes():
    p = NegateOfNegate()
    _, text = _run([p])
    # main: look-ahead n0, n-in-reduce, n1 refused; nothing matches: no sweep. @other: n-other refused.
    assert p.matches == 4 and text.count("stablehlo.negate") == 4


def test_checking_mode_compares_the_candidates_with_a_walk(monkeypatch):
    p = Asked(("negate",))
    _run([p], check=True, monkeypatch=monkeypatch)  # the census is right: nothing raised
    real = Census.ops_named

    def drops_one(self, top, *names, any_order=False):
        return real(self, top, *names, any_order=any_order)[1:]

    monkeypatch.setattr(Census, "ops_named", drops_one)
    with pytest.raises(PatternCheckError, match="candidates of"):
        _run([Asked(("negate",))], check=True, monkeypatch=monkeypatch)


def test_checking_mode_matches_a_skipped_refusal_again(monkeypatch):
    class Fickle(RewritePattern):
        """Refuses n0 the first time it is asked, then matches it (a match that is not pure)."""

        name, roots = "fickle", ("negate",)

        def __init__(self):
            self.seen: set[str] = set()

        def match(self, op, rw):
            loc = _loc(op)
            first = loc not in self.seen
            self.seen.add(loc)
            return loc == "n1" or (loc == "n0" and not first)

        def rewrite(self, op, rw):
            rw.replace_op(op, [op.operands[0]])

    with pytest.raises(PatternCheckError, match="skipped as refused"):
        _run([Fickle()], check=True, monkeypatch=monkeypatch)
