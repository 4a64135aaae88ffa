"""The pattern layer (hilo_mlir/rewrite/pattern.py): drivers, the census look-ahead, the match-failure channel."""

from __future__ import annotations

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.ir.dialects import STABLEHLO
from hilo_mlir.passmanager.pipeline import Pipeline, PipelineEnv, Step
from hilo_mlir.passmanager.registry import PassInfo
from hilo_mlir.rewrite.pattern import RewritePattern, apply_patterns_greedily, apply_patterns_once

SRC = """
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %a : tensor<4xf32>
  %1 = stablehlo.negate %0 : tensor<4xf32>
  %2 = stablehlo.abs %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
"""


class DoubleNegate(RewritePattern):
    """negate(negate(x)) -> x."""

    name, roots = "double-negate", ("negate",)

    def match(self, op, rw):
        inner = op.operands[0].owner
        ok = isinstance(inner, ir.OpView) and inner.operation.name == "stablehlo.negate"
        return ok or rw.notify_match_failure(op, "operand is not a negate")

    def rewrite(self, op, rw):
        rw.replace_op(op, [op.operands[0].owner.operands[0]])


class Seen(RewritePattern):
    """Never matches; records the ops it was asked about."""

    name, roots = "seen", ("abs", "sine")

    def __init__(self):
        self.asked: list[str] = []

    def match(self, op, rw):
        self.asked.append(op.name)
        return False


class Failures:
    def __init__(self):
        self.seen: list[tuple[str, str, str]] = []

    def notify_match_failure(self, pattern, op, reason):
        self.seen.append((pattern, op.name, reason))


def _run(patterns, driver=apply_patterns_once, debug=False, listener=None):
    out = {}

    def run(f, ctx):
        out["n"] = driver(f, patterns, ctx, listener=listener)

    info = PassInfo("test-patterns", "test", run, dialect="stablehlo", statistics=[p.name for p in patterns])
    with make_context():
        m = ir.Module.parse(SRC)
        pipe = Pipeline([Step(info, info.argument, {}, anchor="func.func")], env=PipelineEnv(debug=debug))
        pipe.run(m)
        return str(m), out["n"], pipe


def test_one_sweep_rewrites_and_counts():
    text, n, pipe = _run([DoubleNegate()])
    assert n == 1
    assert text.count("stablehlo.negate") == 1 and "stablehlo.abs %arg0" in text  # the dead inner negate stays (no DCE)
    assert dict(pipe.stats["TestPatterns"]) == {"double-negate": 1}


def test_absent_root_kinds_are_never_asked_about():
    seen = Seen()
    _run([seen])
    assert seen.asked == ["stablehlo.abs"]  # the look-ahead; no sine in the module, and no sweep (nothing matched)


def test_match_failures_go_to_debug_and_the_listener():
    listener = Failures()
    _text, _n, pipe = _run([DoubleNegate()], debug=True, listener=listener)
    assert listener.seen == [("double-negate", "stablehlo.negate", "operand is not a negate")]
    assert len(pipe.log) == 1 and pipe.log[0].startswith("[test-patterns] double-negate: stablehlo.negate at ")
    assert pipe.log[0].endswith(": operand is not a negate")
    _text, _n, quiet = _run([DoubleNegate()])
    assert quiet.log == []  # without --debug nothing is formatted


def test_greedy_driver_reaches_a_fixpoint():
    class AbsOfAbs(RewritePattern):
        name, roots = "abs-to-negate", ("abs",)

        def match(self, op, rw):
            return True

        def rewrite(self, op, rw):
            neg = rw.create(STABLEHLO.name("negate"), results=[op.results[0].type], operands=[op.operands[0]], before=op)
            rw.replace_op(op, [neg.results[0]])

    text, n, _pipe = _run([AbsOfAbs(), DoubleNegate()], driver=apply_patterns_greedily)
    # sweep 1: negate(negate(a)) -> a, then abs(a) -> negate(a); sweep 2: nothing matches (a dead negate stays)
    assert n == 2 and text.count("stablehlo.negate") == 2 and "stablehlo.abs" not in text
