"""The fast scheduling passes against their reference definitions.

* ``schedule-postorder`` reads each op once for the whole function and moves
  only the ops off a longest increasing subsequence; the order it leaves must
  be, block by block, :func:`schedule_postorder.schedule_block_postorder` (the
  one-block reference definition), and its statistics must count the same.
* ``analyze-schedule`` and ``hoist-compute`` reuse the
  :class:`~hilo_mlir.analysis.entry_block.EntryBlock` schedule-postorder
  hands to the analysis manager; one pipeline (sharing) and separate runs (no
  sharing) must give the same IR and statistics, also when a step in between
  changes the IR (the manager must drop the analysis), and the checking mode
  compares the kept analysis with a fresh one after every step.
"""

from __future__ import annotations

import random

import pytest
from conftest import corpus_path

from hilo_mlir.analysis.check import AnalysisCheckError
from hilo_mlir.analysis.entry_block import EntryBlock
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.ir.effects import EffectOracle
from hilo_mlir.ir.utils import all_blocks
from hilo_mlir.passes.scheduling.schedule_postorder import schedule_block_postorder
from hilo_mlir.passmanager.pipeline import Pipeline, Step, step_for
from hilo_mlir.passmanager.registry import PassInfo
from hilo_mlir.rewrite.rewriter import Change
from hilo_mlir.testing import run_passes

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
        p = Pipeline.from_text("builtin.module(stablehlo-schedule-postorder)", check_analyses=True)
        p.run(m)
        assert p.changes == [("StableHLOSchedulePostorder (stablehlo-schedule-postorder)", Change.NONE)]
        assert p.verify_timings == []  # nothing moved: nothing recorded, no verifier
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
    passes = ["stablehlo-schedule-postorder", "stablehlo-analyze-schedule", "stablehlo-scatter-motion", "stablehlo-hoist-compute"]
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
    passes = ["stablehlo-schedule-postorder", "stablehlo-analyze-schedule", "stablehlo-memcast-motion", "stablehlo-hoist-compute"]
    out, stats = run_passes(SINK, ",".join(passes))
    assert (out, stats) == _separately(SINK, passes)
    assert stats["converts-sunk"] == 1
    assert stats["hoistable"] == 3 and stats["ops-hoisted"] == 3  # reshape (now bf16), convert, multiply
    body = out.split("{", 2)[2]
    assert (
        body.index("stablehlo.reshape %arg0")
        < body.index("stablehlo.convert")
        < body.index("stablehlo.multiply")
        < body.index("stablehlo.add %arg1")
    )


def test_analyze_schedule_unchanged_stamp_is_not_a_change():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SINK)
        p1 = Pipeline.from_text("builtin.module(stablehlo-analyze-schedule)")
        p1.run(m)
        assert [n for n, _ in p1.verify_timings] == ["StableHLOAnalyzeSchedule (stablehlo-analyze-schedule)"]
        p2 = Pipeline.from_text("builtin.module(stablehlo-analyze-schedule)", check_analyses=True)
        p2.run(m)
        assert [c for _, c in p2.changes] == [Change.NONE]
        assert p2.verify_timings == []  # same stamp: nothing recorded, the verifier is skipped
        assert "neuron.peak_live_bytes = 48 : i64" in str(m)


def _probe(seen: list):
    """A pass that records the EntryBlock of each function the manager holds (None if none)."""
    info = PassInfo("test-probe-entry", "t", lambda f, ctx: seen.append(ctx.analyses.cached(EntryBlock, f)))
    return Step(info, info.argument, anchor="func.func")


def test_entry_block_handed_over_reaches_hoist_compute():
    seen: list = []
    steps = [
        step_for("stablehlo-schedule-postorder"),
        _probe(seen),
        step_for("stablehlo-analyze-schedule"),
        _probe(seen),
        step_for("stablehlo-hoist-compute"),
        _probe(seen),
    ]
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SINK)
        Pipeline(steps, check_analyses=True).run(m)
    # the one schedule-postorder put is still there after the attribute stamp ...
    assert seen[0] is not None and seen[1] is seen[0]
    # ... and dropped once hoist-compute moved ops (a move invalidates it)
    assert seen[2] is None


class _Stale:
    """A pass that moves the first op of main's body to the end of it and hands over the
    EntryBlock read before the move (a wrong hand-over the checking mode must catch)."""

    def __call__(self, f, ctx):
        stale = EntryBlock(f)
        ops = stale.ops
        ctx.rewriter.move_before(ops[0], ops[-1])
        ctx.analyses.put(EntryBlock, f, stale)


def test_checking_mode_catches_a_stale_entry_block():
    info = PassInfo("test-stale-entry", "t", _Stale())
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SINK)
        with pytest.raises(AnalysisCheckError, match="EntryBlock: entry block ops differ"):
            Pipeline([Step(info, info.argument, anchor="func.func")], check_analyses=True).run(m)
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SINK)
        Pipeline([Step(info, info.argument, anchor="func.func")], check_analyses=False).run(m)  # unchecked: silent


COMPOSITE_WITH_TOKEN = """
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> attributes {slowChangingIns = array<i64: 0>} {
  %x = stablehlo.add %b, %b : tensor<4xf32>
  %c = stablehlo.composite "test.op" %a {decomposition = @dec} : (tensor<4xf32>) -> tensor<4xf32>
  %y = stablehlo.add %x, %c : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func private @dec(%a: tensor<4xf32>) -> tensor<4xf32> {
  %t = stablehlo.after_all : !stablehlo.token
  return %a : tensor<4xf32>
}
"""


def test_composite_effect_is_asked_when_used_not_kept():
    # Between schedule-postorder and hoist-compute, replace-token-type-with-u8 rewrites
    # the decomposition (another function): the composite in main loses its side effect.
    # The kept EntryBlock of main must not answer with the stale effect.
    passes = ["stablehlo-schedule-postorder", "stablehlo-replace-token-type-with-u8", "stablehlo-hoist-compute"]
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(COMPOSITE_WITH_TOKEN)
        pipe = Pipeline([step_for(p) for p in passes], check_analyses=True)
        pipe.run(m)
        shared = str(m)
        stats = dict(pipe.stats["StableHLOHoistCompute"])
    separate, sep_stats = _separately(COMPOSITE_WITH_TOKEN, passes)
    assert shared == separate
    assert stats == {k: sep_stats[k] for k in stats}
    assert stats["ops-hoisted"] == 1  # the composite (pure now) in main
    body = shared.split("@main", 1)[1]
    assert body.index("stablehlo.composite") < body.index("stablehlo.add %arg1")  # hoisted above the add
