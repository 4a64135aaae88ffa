"""convert-fs-pattern-to-custom-calls erases a matched softmax in four batches (``fs_pattern._erase``):
the ops without regions in two ``erase_ops`` batches, each reduce alone by ``erase_op``, every op
after its users; the function is left with the custom call alone."""

from __future__ import annotations

import pytest

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.ir.dialects import STABLEHLO
from hilo_mlir.passes.legalization import fs_pattern
from hilo_mlir.rewrite.rewriter import Rewriter

SOFTMAX = """func.func @main(%x: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<5x3xf32>, tensor<f32>) -> tensor<3xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [1] : (tensor<3xf32>) -> tensor<5x3xf32>
  %s = stablehlo.subtract %x, %mb : tensor<5x3xf32>
  %e = stablehlo.exponential %s : tensor<5x3xf32>
  %t = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [0] : (tensor<5x3xf32>, tensor<f32>) -> tensor<3xf32>
  %tb = stablehlo.broadcast_in_dim %t, dims = [1] : (tensor<3xf32>) -> tensor<5x3xf32>
  %r = stablehlo.divide %e, %tb : tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}"""


@pytest.fixture(autouse=True)
def _fresh_attribute_memo():
    """fs-pattern memoises attribute reads by pointer for one run: clear it around each test (as ``_run`` does)."""
    fs_pattern._INTS.clear()
    fs_pattern._IDENTITY.clear()
    yield
    fs_pattern._INTS.clear()
    fs_pattern._IDENTITY.clear()


def _body(m) -> list:
    f = list(m.body.operations)[0]
    return [o.operation for o in f.regions[0].blocks[0].operations]


def _short(ops) -> list[str]:
    return [o.name.split(".")[1] for o in ops]


def test_the_erase_batches_put_each_reduce_alone_and_every_op_after_its_users():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SOFTMAX)
        div = [o for o in _body(m) if o.name == "stablehlo.divide"][0]
        found, refusal = fs_pattern._match(div, STABLEHLO, None)
        assert refusal is None
        batches = found[3]
        assert [_short(b) for b in batches] == [
            ["divide", "broadcast_in_dim"],
            ["reduce"],
            ["exponential", "subtract", "broadcast_in_dim"],
            ["reduce"],
        ]
        flat = [o for b in batches for o in b]
        assert sorted(map(hash, flat)) == sorted(map(hash, found[2]))  # the subgraph, each op once


class _Recording(Rewriter):
    """A rewriter that records which erase call each op came through."""

    def __init__(self, module_op):
        super().__init__(module_op)
        self.calls: list[tuple[str, list[str]]] = []

    def erase_op(self, op):
        self.calls.append(("erase_op", _short([op])))
        super().erase_op(op)

    def erase_ops(self, ops):
        ops = list(ops)
        self.calls.append(("erase_ops", _short(ops)))
        super().erase_ops(ops)


@pytest.mark.parametrize("check", [False, True], ids=["fast", "checking-mode"])
def test_erase_takes_single_ops_through_erase_op_and_leaves_no_subgraph_op(check):
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SOFTMAX)
        div = [o for o in _body(m) if o.name == "stablehlo.divide"][0]
        found, _ = fs_pattern._match(div, STABLEHLO, None)
        rw = _Recording(m.operation)
        rw.check_erasures = check
        ret = _body(m)[-1]
        rw.replace_all_uses_with(div.result, found[0])  # as the pass does with the custom call's result
        fs_pattern._erase(rw, found[3])
        assert rw.calls == [
            ("erase_ops", ["divide", "broadcast_in_dim"]),
            ("erase_op", ["reduce"]),
            ("erase_ops", ["exponential", "subtract", "broadcast_in_dim"]),
            ("erase_op", ["reduce"]),
        ]
        assert _short(_body(m)) == ["constant", "constant", "return"]
        assert ret.operands[0] == found[0]
