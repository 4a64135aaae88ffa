"""The :class:`~hilo_mlir.analysis.dead_ops.DeadOpCandidates` listener: which ops each rewriter mutation
makes candidates (ops that may have become dead), and which it drops."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hilo_mlir.analysis.dead_ops import DeadOpCandidates
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.rewrite.rewriter import Rewriter

TEXT = """
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %c = mhlo.constant dense<2.0> : tensor<4xf32>
  %0 = mhlo.add %a, %c : tensor<4xf32>
  %1 = mhlo.multiply %0, %0 : tensor<4xf32>
  %z = mhlo.constant dense<0.0> : tensor<f32>
  %2 = mhlo.reduce(%1 init: %z) applies mhlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %3 = mhlo.subtract %1, %b : tensor<4xf32>
  return %3 : tensor<4xf32>
}
"""


@pytest.fixture
def env() -> Iterator[tuple[ir.Module, Rewriter, DeadOpCandidates, dict]]:
    with make_context():
        m = ir.Module.parse(TEXT)
        rw = Rewriter(m.operation)
        cands = DeadOpCandidates()
        rw.add_listener(cands)
        body = m.body.operations[0].regions[0].blocks[0]
        ops = {o.operation.name.split(".")[1]: o.operation for o in body.operations}
        ops["args"] = list(body.arguments)
        yield m, rw, cands, ops


def _names(cands: DeadOpCandidates) -> list[str]:
    return sorted(o.name for o in cands.ops.values())


def test_set_operand_makes_the_old_operand_op_a_candidate(env):
    _, rw, cands, ops = env
    rw.set_operand(ops["subtract"], 0, ops["args"][0])
    assert _names(cands) == ["mhlo.multiply"]


def test_set_operands_makes_each_old_operand_op_a_candidate(env):
    _, rw, cands, ops = env
    rw.set_operands([(ops["multiply"], 0, ops["args"][0]), (ops["add"], 1, ops["args"][1])])
    assert _names(cands) == ["mhlo.add", "mhlo.constant"]


def test_set_operands_within_reads_the_old_operands_too(env):
    _, rw, cands, ops = env
    rw.set_operands([(ops["subtract"], 0, ops["args"][0])], within=ops["subtract"])
    assert _names(cands) == ["mhlo.multiply"]


def test_replace_uses_of_with(env):
    _, rw, cands, ops = env
    rw.replace_uses_of_with(ops["subtract"], ops["multiply"].result, ops["args"][0])
    assert _names(cands) == ["mhlo.multiply"]


def test_replace_all_uses_with(env):
    _, rw, cands, ops = env
    rw.replace_all_uses_with(ops["add"].result, ops["args"][0])
    assert _names(cands) == ["mhlo.add"]


def test_a_block_argument_is_not_a_candidate(env):
    _, rw, cands, ops = env
    rw.set_operand(ops["subtract"], 1, ops["multiply"].result)
    assert _names(cands) == []


def test_created_op_is_a_candidate(env):
    _, rw, cands, ops = env
    rw.create("mhlo.negate", results=[ops["args"][0].type], operands=[ops["args"][0]], before=ops["return"])
    assert _names(cands) == ["mhlo.negate"]


def test_cloned_op_and_what_it_holds_are_candidates(env):
    _, rw, cands, ops = env
    rw.clone(ops["reduce"], before=ops["return"])
    assert _names(cands) == ["mhlo.add", "mhlo.reduce", "mhlo.return"]


def test_erasure_makes_the_operand_ops_candidates_and_drops_the_erased(env):
    _, rw, cands, ops = env
    rw.set_attr(ops["reduce"], "test.mark", ir.UnitAttr.get())  # the reduce is a candidate ...
    assert _names(cands) == ["mhlo.reduce"]
    rw.erase_op(ops["reduce"])  # ... and leaves with what it held; its operands' ops come in
    assert _names(cands) == ["mhlo.constant", "mhlo.multiply"]


def test_batch_erasure_users_first(env):
    _, rw, cands, ops = env
    rw.replace_all_uses_with(ops["subtract"].result, ops["args"][1])
    rw.erase_ops([ops["subtract"], ops["reduce"]])
    assert _names(cands) == ["mhlo.constant", "mhlo.multiply"]  # subtract's and reduce's operands; not themselves


def test_attribute_change_makes_the_op_a_candidate(env):
    _, rw, cands, ops = env
    rw.set_attr(ops["add"], "test.mark", ir.UnitAttr.get())
    rw.remove_attr(ops["multiply"], "no.such")  # nothing removed: nothing told
    assert _names(cands) == ["mhlo.add"]
    rw.remove_attr(ops["add"], "test.mark")
    assert _names(cands) == ["mhlo.add"]


def test_moves_and_type_changes_make_no_candidate(env):
    _, rw, cands, ops = env
    rw.move_before(ops["subtract"], ops["reduce"])
    assert _names(cands) == []


def test_unknown_change(env):
    _, rw, cands, ops = env
    rw.set_attr(ops["add"], "test.mark", ir.UnitAttr.get())
    rw.notify_unknown_change()
    assert cands.unknown and cands.ops == {}


def test_without_the_listener_set_operand_reads_no_old_operand(env, monkeypatch):
    """Only a listener that overrides ``notify_operands_dropped`` makes the rewriter read the old operands."""
    _, rw, cands, ops = env
    rw.remove_listener(cands)
    assert rw._hook("notify_operands_dropped") == ()
    rw.set_operand(ops["subtract"], 0, ops["args"][0])
    assert cands.ops == {}
