"""call-inliner keeps semantics (StableHLO reference interpreter, bit-exact) and unlocks fusion."""

import numpy as np
from conftest import corpus_path

from hilo_mlir import testing
from hilo_mlir.driver.config import CompileConfig
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passes.legalization import call_inliner
from hilo_mlir.passmanager.pipeline import Pipeline, module_to_text, step_for

NESTED = """
func.func @main(%x: tensor<4xf32>, %y: tensor<f32>) -> (tensor<f32>, tensor<4xf32>) {
  %0 = func.call @outer(%x, %y) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %b = stablehlo.broadcast_in_dim %y, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %1 = func.call @sq(%b) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<f32>, tensor<4xf32>
}
func.func private @outer(%a: tensor<4xf32>, %i: tensor<f32>) -> tensor<f32> {
  %0 = func.call @sq(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.reduce(%0 init: %i) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
func.func private @sq(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def _inline(text):
    ctx = make_context()
    with ctx:
        m = ir.Module.parse(text)
        p = Pipeline([step_for("call-inliner")])
        p.run(m)
        out = module_to_text(m)
    return out, dict(p.stats["CallInliner"])


def test_nested_calls_inline_bit_exact():
    out, stats = _inline(NESTED)
    assert "call" not in out
    # call sites expanded into main: outer, the sq inside that copy of outer, sq.
    assert stats == {"calls-inlined": 3, "functions-erased": 2}
    ins = [np.array([1.5, -2.0, 3.25, 0.5], np.float32), np.array(0.75, np.float32)]
    before = testing.evaluate(NESTED, ins)
    after = testing.evaluate(out, ins)
    assert [a.tobytes() for a in before] == [a.tobytes() for a in after]
    np.testing.assert_array_equal(after[0], np.float32(0.75 + 1.5**2 + 4 + 3.25**2 + 0.25))


def test_silu_call_is_inlined_and_fused_in_the_compiler():
    path = corpus_path("jax", "swiglu_mlp_nn_silu.stablehlo.mlir")
    import hilo_mlir

    src = hilo_mlir.compile_file(path, CompileConfig.preset("all"))
    assert src.statistics["CallInliner"] == {"calls-inlined": 1, "functions-erased": 1}
    assert src.statistics["NeuronOpFusion"]["clusters-DotLogistic"] == 1
    assert src.count("op='DotFusion'") == 1


def chain(depth: int, main_first: bool = True) -> str:
    """main -> f1 -> ... -> f<depth>: each level adds, calls the next level, multiplies by its input."""
    main = (
        "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        '  %0 = func.call @f1(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("main.call")\n'
        "  return %0 : tensor<4xf32>\n}\n"
    )
    fs = []
    for i in range(1, depth + 1):
        call = (
            f'  %1 = func.call @f{i + 1}(%0) : (tensor<4xf32>) -> tensor<4xf32> loc("f{i}.call")\n'
            if i < depth
            else "  %1 = stablehlo.negate %0 : tensor<4xf32>\n"
        )
        fs.append(
            f"func.func private @f{i}(%a: tensor<4xf32>) -> tensor<4xf32> {{\n"
            f'  %0 = stablehlo.add %a, %a : tensor<4xf32> loc("f{i}.add")\n{call}'
            f'  %2 = stablehlo.multiply %1, %a : tensor<4xf32> loc("f{i}.mul")\n'
            "  return %2 : tensor<4xf32>\n}\n"
        )
    return main + "".join(fs) if main_first else "".join(reversed(fs)) + main


KEPT = """
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = func.call @pub(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.composite "my.op" %0 {decomposition = @dec} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = func.call @twice(%1) : (tensor<4xf32>) -> tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}
func.func @pub(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @twice(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @dec(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @leaf(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @twice(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @leaf(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @leaf(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @leaf(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def _inline_with_locations(text, monkeypatch=None, by_rounds=False):
    if by_rounds:  # the round-by-round algorithm (quadratic on chains) as the reference
        monkeypatch.setattr(call_inliner, "_run_linear", lambda funcs, calls, refs, ctx: call_inliner._run_by_rounds(None, funcs, ctx))
    ctx = make_context()
    with ctx:
        m = ir.Module.parse(text)
        p = Pipeline([step_for("call-inliner")])
        p.run(m)
        locs = []

        def visit(op):
            locs.append(f"{op.name} {op.location}")
            return ir.WalkResult.ADVANCE

        m.operation.walk(visit)
        out = module_to_text(m)
    return out, dict(p.stats["CallInliner"]), locs


def test_linear_inliner_equals_round_by_round_on_a_chain(monkeypatch):
    text = chain(8)
    new, stats, locs = _inline_with_locations(text)
    old, _, _ = _inline_with_locations(text, monkeypatch, by_rounds=True)
    assert new == old  # the same ops in the same order
    assert stats == {"calls-inlined": 8, "functions-erased": 8}
    assert "func.call" not in new and new.count("stablehlo.add") == 8
    # every copy is located at its whole call chain, innermost call first
    assert 'stablehlo.add loc(callsite("f3.add" at callsite("f2.call" at callsite("f1.call" at "main.call"))))' in locs


def test_kept_functions_are_inlined_into_and_values_equal(monkeypatch):
    new, stats, _ = _inline_with_locations(KEPT)
    old, old_stats, _ = _inline_with_locations(KEPT, monkeypatch, by_rounds=True)
    assert new == old
    # kept: main, pub (public), dec (a composite's decomposition); erased: twice, leaf
    assert stats["functions-erased"] == old_stats["functions-erased"] == 2
    assert "func.call" not in new and "@dec" in new and "func.func @pub" in new
    # main: pub (twice: leaf, leaf), twice (leaf, leaf) = 7 call sites; pub: twice (2 leaves) = 3; dec: leaf = 1
    assert stats["calls-inlined"] == 11
    ins = [np.array([0.5, -1.0, 0.25, 2.0], np.float32)]
    assert [a.tobytes() for a in testing.evaluate(KEPT, ins)] == [a.tobytes() for a in testing.evaluate(new, ins)]


def test_callee_first_order_gives_the_same_values():
    text = chain(12, main_first=False)
    out, stats = _inline(text)
    assert stats == {"calls-inlined": 12, "functions-erased": 12}
    ins = [np.array([0.5, -1.0, 0.25, 1.5], np.float32)]
    assert [a.tobytes() for a in testing.evaluate(text, ins)] == [a.tobytes() for a in testing.evaluate(out, ins)]


def test_a_cycle_through_two_functions_is_one_error():
    text = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @a(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @a(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @b(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @b(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @a(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
    import pytest

    from hilo_mlir.support.diagnostics import HiloError

    with pytest.raises(HiloError, match="call-inliner: call graph is recursive"):
        _inline(text)
