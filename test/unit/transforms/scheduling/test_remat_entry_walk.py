"""rematerialize lists the entry block's ops from one walk (:func:`~hilo_mlir.ir.utils.only_block_ops`);
the checking mode compares that list with ``block.operations`` and catches a wrong one."""

from __future__ import annotations

import pytest

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passes.scheduling import cross_pass
from hilo_mlir.passmanager.pipeline import Pipeline, step_for

TEXT = """
func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {
  %c = stablehlo.constant dense<0.5> : tensor<8xf32>
  %0 = stablehlo.multiply %a, %c : tensor<8xf32>
  %1 = stablehlo.exponential %0 : tensor<8xf32>
  %2 = stablehlo.sine %1 : tensor<8xf32>
  %3 = stablehlo.cosine %2 : tensor<8xf32>
  %4 = stablehlo.add %3, %c : tensor<8xf32>
  return %4 : tensor<8xf32>
}
"""


def _run(check: bool) -> tuple[str, dict]:
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(TEXT)
        p = Pipeline([step_for("stablehlo-rematerialize", distance=2)], check_analyses=check)
        p.run(m)
        return str(m), dict(p.stats["StableHLORematerialize"])


def test_the_walk_gives_the_far_user_its_clone():
    text, stats = _run(check=True)
    assert stats["clones"] == 1  # the add (position 5) is 5 ops after the constant: one clone before it
    body = text[text.index("@main") :]
    assert body.count("stablehlo.constant") == 2
    assert body.index("stablehlo.cosine") < body.rindex("stablehlo.constant") < body.index("stablehlo.add")


def test_a_wrong_walk_is_caught_by_the_checking_mode(monkeypatch):
    real = cross_pass.only_block_ops
    monkeypatch.setattr(cross_pass, "only_block_ops", lambda op: list(reversed(real(op) or [])))
    with pytest.raises(AssertionError, match="the walk's ops are not the entry block's"):
        _run(check=True)
