"""schedule-postorder's two read shortcuts and their checking mode.

* :func:`~hilo_mlir.passes.scheduling.schedule_postorder.postorder_of_inputs` runs
  the DFS over each op's input ids (no dependency lists); it must give the order
  :func:`postorder_positions` gives over :func:`_dependencies_of` (repeated
  producers, ids from outside the block, side-effecting ops chained).
* The ops of each block are taken from one pre-order walk of the function
  (:func:`_preorder`), not from ``block.operations``.
* An op's results are read as ``[op.result]`` when it has one (:func:`op_results`).
* An op's region count is not read when its class declares none (:func:`declares_no_regions`).

The checking mode (``Pipeline(check_analyses=True)``) compares both with the slow
truth: a deliberately wrong fast answer raises AssertionError.
"""

from __future__ import annotations

import pytest

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passes.scheduling import schedule_postorder as sp
from hilo_mlir.passmanager.pipeline import Pipeline, step_for
from hilo_mlir.testing import run_passes

#: the return reads %c first, so the multiply chain moves before the add; the reduce body captures %s
TEXT = """
func.func @f(%a: tensor<4xf32>, %s: tensor<f32>) -> (tensor<4xf32>, tensor<f32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %x = stablehlo.add %a, %a : tensor<4xf32>
  %m = stablehlo.multiply %a, %a : tensor<4xf32>
  %c = stablehlo.multiply %m, %m : tensor<4xf32>
  %r = stablehlo.reduce(%x init: %z) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%p: tensor<f32>, %q: tensor<f32>) {
    %t = stablehlo.multiply %q, %s : tensor<f32>
    %u = stablehlo.add %p, %t : tensor<f32>
    stablehlo.return %u : tensor<f32>
  }
  return %c, %r : tensor<4xf32>, tensor<f32>
}
"""


def test_postorder_of_inputs_is_the_dfs_over_dependency_lists():
    # ids: op k's result is 100 + k; 7 and 8 come from outside the block (arguments, nested values)
    inputs = [
        [7],  # 0: reads an argument only
        [100, 100, 7],  # 1: reads op 0 twice
        [8],  # 2: side-effecting, reads nothing of the block
        [101, 100],  # 3
        [],  # 4: side-effecting, after 2
        [103, 102, 101],  # the terminator
    ]
    result_ids = [[100], [101], [102], [103], [104], []]
    effect_at = [2, 4]
    deps, roots = sp._dependencies_of(inputs, result_ids, effect_at, 5)
    assert deps == [[], [0], [], [1, 0], [2], [3, 2, 1]]
    assert roots == [3, 2, 1, 0, 1, 2, 3, 4]
    assert sp.postorder_positions(5, deps, roots) == [0, 1, 3, 2, 4]
    assert sp.postorder_of_inputs(inputs, result_ids, effect_at, 5) == [0, 1, 3, 2, 4]


def test_postorder_of_inputs_on_an_empty_body_and_a_chain():
    assert sp.postorder_of_inputs([[]], [[]], [], 0) == []
    # a terminator reading the last of a chain written backwards: the chain comes out reversed
    inputs = [[101], [102], [], [100]]
    assert sp.postorder_of_inputs(inputs, [[100], [101], [102], []], [], 3) == [2, 1, 0]


@pytest.mark.parametrize("seed", range(40))
def test_postorder_of_inputs_on_random_blocks(seed):
    import random

    rnd = random.Random(seed)
    n = rnd.randrange(0, 12)
    result_ids = [[100 + 10 * k + j for j in range(rnd.randrange(0, 3))] for k in range(n)] + [[]]
    produced = [h for ids in result_ids for h in ids]
    outside = [1, 2, 3]

    def reads(k):  # any earlier result, an id from outside the block, repeats allowed
        pool = [h for ids in result_ids[:k] for h in ids] + outside
        return [rnd.choice(pool) for _ in range(rnd.randrange(0, 4))]

    inputs = [reads(k) for k in range(n)] + [rnd.sample(produced, min(len(produced), 3))]
    effect_at = sorted(rnd.sample(range(n), rnd.randrange(0, n + 1))) if n else []
    slow = sp.postorder_positions(n, *sp._dependencies_of(inputs, result_ids, effect_at, n))
    assert sp.postorder_of_inputs(inputs, result_ids, effect_at, n) == slow
    assert sorted(slow) == list(range(n))


def test_the_pass_orders_blocks_taken_from_the_walk():
    out, _ = run_passes(TEXT, "stablehlo-schedule-postorder")
    body = out[out.index("@f") :]
    assert body.index("stablehlo.multiply %arg0") < body.index("stablehlo.add %arg0")
    # the reduce body keeps its order (multiply, then add), and the walk read every op once
    assert body.index("stablehlo.multiply %arg3") < body.index("stablehlo.add %arg2")


def _run_checked(text: str) -> str:
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(text)
        Pipeline([step_for("stablehlo-schedule-postorder")], check_analyses=True).run(m)
        return str(m)


def test_a_wrong_dfs_answer_is_caught_by_the_checking_mode(monkeypatch):
    monkeypatch.setattr(sp, "postorder_of_inputs", lambda inputs, ids, eff, n: list(reversed(range(n))))
    with pytest.raises(AssertionError, match="the DFS over input ids differs"):
        _run_checked(TEXT)


def test_a_wrong_walk_is_caught_by_the_checking_mode(monkeypatch):
    real = sp._preorder

    def swapped(func_op):
        ops = real(func_op)
        ops[2], ops[3] = ops[3], ops[2]  # two ops of the entry block
        return ops

    monkeypatch.setattr(sp, "_preorder", swapped)
    with pytest.raises(AssertionError, match="the ops taken from the walk are not the block's"):
        _run_checked(TEXT)


def test_op_results_is_the_result_list():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(TEXT)
        ops = sp._preorder(m.body.operations[0].operation)
        for o in ops[1:]:
            got = sp.op_results(o, o.name)
            assert [hash(v) for v in got] == [hash(v) for v in o.results]
            assert len(got) == (0 if o.name in ("func.return", "stablehlo.return") else 1)
        ret = ops[-1]
        assert ret.name == "func.return" and sp.op_results(ret, ret.name) == []


def test_wrong_results_are_caught_by_the_checking_mode(monkeypatch):
    monkeypatch.setattr(sp, "op_results", lambda o, name: [])
    with pytest.raises(AssertionError, match=r"the results read of '.*' are not its result list"):
        _run_checked(TEXT)


def test_declares_no_regions_by_the_op_class():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(TEXT)
        got = {o.name: sp.declares_no_regions(o) for o in sp._preorder(m.body.operations[0].operation)}
    assert got == {
        "func.func": False,
        "stablehlo.constant": True,
        "stablehlo.add": True,
        "stablehlo.multiply": True,
        "stablehlo.reduce": False,
        "stablehlo.return": True,
        "func.return": True,
    }


#: an op of a dialect without generated Python classes gets the plain ir.OpView, which declares no region
#: for every op: shape.assuming has one, and the ops nested in it must not be taken as the block's
ASSUMING = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %w = shape.const_witness true
  %0 = shape.assuming %w -> (tensor<4xf32>) {
    %i = stablehlo.add %a, %a : tensor<4xf32>
    shape.assuming_yield %i : tensor<4xf32>
  }
  %1 = stablehlo.multiply %0, %a : tensor<4xf32>
  %2 = stablehlo.add %1, %a : tensor<4xf32>
  return %2 : tensor<4xf32>
}
"""


def test_a_plain_op_view_declares_nothing():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(ASSUMING)
        got = {o.name: sp.declares_no_regions(o) for o in sp._preorder(m.body.operations[0].operation)}
    assert got["shape.assuming"] is False  # ir.OpView's (0, True) is not the op's declaration
    assert got["shape.const_witness"] is False  # unknown: its count is read
    assert got["stablehlo.add"] is True


@pytest.mark.parametrize("check", [False, True])
def test_an_op_of_a_dialect_without_classes_keeps_its_region(check):
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(ASSUMING)
        Pipeline([step_for("stablehlo-schedule-postorder")], check_analyses=check).run(m)
        out = str(m)
    assert out.index("shape.assuming %") < out.index("stablehlo.add %arg0, %arg0") < out.index("shape.assuming_yield")
    assert out.index("shape.assuming_yield") < out.index("stablehlo.multiply")


def test_a_wrong_no_region_answer_is_caught_by_the_checking_mode(monkeypatch):
    monkeypatch.setattr(sp, "declares_no_regions", lambda o: True)  # the reduce has a region
    with pytest.raises(AssertionError, match=r"'stablehlo\.reduce' declares no region but has 1"):
        _run_checked(TEXT)


def test_the_checking_mode_passes_on_the_real_answers():
    out = _run_checked(TEXT)
    assert out.index("stablehlo.multiply %arg0") < out.index("stablehlo.add %arg0")
