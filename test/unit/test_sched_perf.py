"""The fast scheduling passes (issue 7) against their reference definitions.

* ``schedule-postorder`` reads each op once for the whole function and moves
  only the ops off a longest increasing subsequence; the order it leaves must
  be, block by block, :func:`scheduling.schedule_block_postorder` (the
  one-block reference definition), and its statistics must count the same.
* ``analyze-schedule`` and ``hoist-compute`` reuse the entry-block analysis
  schedule-postorder leaves in ``ctx.analyses``; one pipeline (sharing) and
  separate runs (no sharing) must give the same IR and statistics, also when
  a step in between changes the IR (the pipeline must drop the analysis).

Source: issue 7 (performance without a change of behaviour); DESIGN.md
catalogue steps 17, 18, 22.
"""

from __future__ import annotations

import random

import pytest

from hilo_mlir.effects import EffectOracle
from hilo_mlir.ir import ir, make_context
from hilo_mlir.ir_utils import all_blocks
from hilo_mlir.passes.schedule_postorder import schedule_block_postorder
from hilo_mlir.pipeline import Pipeline
from hilo_mlir.testing import run_passes

from conftest import corpus_path

T = "tensor<4xf32>"


def _random_function(rng: random.Random, n_ops: int, name: str) -> str:
    """A function of ``n_ops`` random ops over two arguments: binary ops, side-effecting
    custom_calls, reduces whose body captures an outer scalar, dead ops, and a return of
    a few random values (so the post-order differs from the textual order)."""
    lines = [f"func.func @{name}(%a0: {T}, %a1: {T}) -> ({T}, {T}) attributes {{slowChangingIns = array<i64: 0>}} {{"]
    vals = ["%a0", "%a1"]
    scalars = []
    for i in range(n_ops):
        kind = rng.random()
        if kind < 0.08:
            lines.append(f"  %s{i} = stablehlo.constant dense<{i}.0> : tensor<f32>")
            scalars.append(f"%s{i}")
        elif kind < 0.16:
            x = rng.choice(vals)
            lines.append(f"  %v{i} = stablehlo.custom_call @fx{i}({x}) {{has_side_effect = true}} : ({T}) -> {T}")
            vals.append(f"%v{i}")
        elif kind < 0.26 and scalars:
            x, init, cap = rng.choice(vals), rng.choice(scalars), rng.choice(scalars)
            lines.append(f"  %r{i} = stablehlo.reduce({x} init: {init}) across dimensions = [0] : ({T}, tensor<f32>) -> tensor<f32>")
            lines.append(f"   reducer(%p{i}: tensor<f32>, %q{i}: tensor<f32>) {{")
            lines.append(f"    %m{i} = stablehlo.multiply %q{i}, {cap} : tensor<f32>")
            lines.append(f"    %n{i} = stablehlo.add %p{i}, %m{i} : tensor<f32>")
            lines.append(f"    stablehlo.return %n{i} : tensor<f32>")
            lines.append("  }")
            lines.append(f"  %v{i} = stablehlo.broadcast_in_dim %r{i}, dims = [] : (tensor<f32>) -> {T}")
            vals.append(f"%v{i}")
        else:
            op = rng.choice(["add", "multiply", "subtract", "maximum"])
            x, y = rng.choice(vals), rng.choice(vals)
            lines.append(f"  %v{i} = stablehlo.{op} {x}, {y} : {T}")
            vals.append(f"%v{i}")
    r1, r2 = rng.choice(vals), rng.choice(vals)
    lines.append(f"  return {r1}, {r2} : {T}, {T}")
    lines.append("}")
    return "\n".join(lines)


def _check_against_reference(text: str, arg: str = "stablehlo-schedule-postorder") -> dict:
    """Run the pass; every block must end in its reference post-order; return the statistics."""
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(text)
        expected = []  # (block, [ops in reference order] or None)
        blocks, moved = 0, 0
        for f in m.body.operations:
            f = f.operation
            oracle = EffectOracle(f)
            for b in all_blocks(f):
                res = schedule_block_postorder(b, oracle)
                if res is not None:
                    blocks += 1
                    moved += res[1]
                expected.append((b, None if res is None else res[0]))
        p = Pipeline.from_text(f"builtin.module({arg})")
        p.run(m)
        for b, order in expected:
            if order is None:
                continue
            got = [o.operation for o in b.operations][:-1]
            assert got == order
        stats = dict(p.stats["StableHLOSchedulePostorder"])
        assert stats["blocks"] == blocks
        assert stats.get("ops-moved", 0) == moved
        return stats


@pytest.mark.parametrize("seed", range(12))
def test_postorder_matches_reference_on_random_functions(seed):
    rng = random.Random(seed)
    text = "\n".join(_random_function(rng, rng.randint(1, 60), f"f{k}") for k in range(3))
    _check_against_reference(text)


def test_postorder_matches_reference_on_corpus():
    text = corpus_path("jax", "decoder_stack_L4.stablehlo.mlir").read_text()
    stats = _check_against_reference(text)
    assert stats["blocks"] > 1


def test_postorder_already_in_order_preserves_everything():
    text = _random_function(random.Random(7), 40, "g")
    once, _ = run_passes(text, "stablehlo-schedule-postorder")
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(once)
        p = Pipeline.from_text("builtin.module(stablehlo-schedule-postorder)")
        p.run(m)
        assert p.verify_timings == []  # nothing moved: all preserved, no verifier
        assert "ops-moved" not in p.stats["StableHLOSchedulePostorder"]
        assert str(m) == once


def _separately(text: str, passes: list[str]) -> tuple[str, dict]:
    stats: dict = {}
    for p in passes:
        text, s = run_passes(text, p)
        stats.update(s)
    return text, stats


@pytest.mark.parametrize("seed", range(6))
def test_shared_entry_block_analysis_same_as_separate_runs(seed):
    rng = random.Random(100 + seed)
    text = "\n".join(_random_function(rng, rng.randint(5, 50), f"f{k}") for k in range(2))
    passes = ["stablehlo-schedule-postorder", "stablehlo-analyze-schedule", "stablehlo-scatter-motion",
              "stablehlo-hoist-compute"]
    shared = run_passes(text, ",".join(passes))
    assert shared == _separately(text, passes)


SINK = """
func.func @main(%a: tensor<4xbf16>, %b: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) attributes {slowChangingIns = array<i64: 0>} {
  %t = stablehlo.add %b, %b : tensor<2x2xf32>
  %c = stablehlo.convert %a : (tensor<4xbf16>) -> tensor<4xf32>
  %r = stablehlo.reshape %c : (tensor<4xf32>) -> tensor<2x2xf32>
  %s = stablehlo.multiply %r, %r : tensor<2x2xf32>
  return %t, %s : tensor<2x2xf32>, tensor<2x2xf32>
}
"""


def test_analysis_dropped_after_a_step_that_changes_the_ir():
    # memcast-motion erases the reshape and the convert the kept analysis lists:
    # hoist-compute must read the block again (a stale analysis would touch erased ops).
    passes = ["stablehlo-schedule-postorder", "stablehlo-analyze-schedule", "stablehlo-memcast-motion",
              "stablehlo-hoist-compute"]
    out, stats = run_passes(SINK, ",".join(passes))
    assert (out, stats) == _separately(SINK, passes)
    assert stats["converts-sunk"] == 1
    assert stats["hoistable"] == 3 and stats["ops-hoisted"] == 3  # reshape (now bf16), convert, multiply
    body = out.split("{", 2)[2]
    assert body.index("stablehlo.reshape %arg0") < body.index("stablehlo.convert") < body.index("stablehlo.multiply") \
        < body.index("stablehlo.add %arg1")


def test_analyze_schedule_unchanged_stamp_is_not_a_change():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SINK)
        p1 = Pipeline.from_text("builtin.module(stablehlo-analyze-schedule)")
        p1.run(m)
        assert [n for n, _ in p1.verify_timings] == ["StableHLOAnalyzeSchedule (stablehlo-analyze-schedule)"]
        p2 = Pipeline.from_text("builtin.module(stablehlo-analyze-schedule)")
        p2.run(m)
        assert p2.verify_timings == []  # same stamp: all preserved, the verifier is skipped
        assert "neuron.peak_live_bytes = 48 : i64" in str(m)
