"""Spine step 19 replace-token-type-with-u8: semantics before and after the pass (StableHLO reference interpreter, bit for bit), exact analysis values."""

from __future__ import annotations

import numpy as np
import pytest
from pass_semantics_util import both, run

from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.testing import evaluate

# --------------------------------------------------------------------------- 19 replace-token-type-with-u8

TOKENS = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = stablehlo.after_all : !stablehlo.token
  %t2 = stablehlo.after_all %t, %t : !stablehlo.token
  %p = stablehlo.tuple %x, %t2 : tuple<tensor<4xf32>, !stablehlo.token>
  %y = stablehlo.get_tuple_element %p[0] : (tuple<tensor<4xf32>, !stablehlo.token>) -> tensor<4xf32>
  %z = func.call @pass_through(%y, %t2) : (tensor<4xf32>, !stablehlo.token) -> tensor<4xf32>
  return %z : tensor<4xf32>
}
func.func private @pass_through(%x: tensor<4xf32>, %t: !stablehlo.token) -> tensor<4xf32> {
  %0 = stablehlo.exponential %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}"""


@pytest.mark.parametrize("pipeline", both("replace-token-type-with-u8"))
def test_token_to_u8_semantics(pipeline):
    out, stats = run(TOKENS, pipeline, stats=True)
    assert ".token" not in out
    assert "(tensor<4xf32>, tensor<ui8>) -> tensor<4xf32>" in out
    assert sum(c["token-producers-replaced"] for c in stats.values()) == 2
    # The reference interpreter cannot run tokens through tuples/calls: XLA CPU
    # runs the original, the interpreter and XLA the rewritten module.
    from hilo_mlir.testing import evaluate_xla

    x = np.linspace(-1, 1, 4).astype(np.float32)
    want = evaluate_xla(TOKENS, [x])[0]
    assert np.array_equal(evaluate_xla(out, [x])[0], want)
    assert np.array_equal(evaluate(out, [x])[0], np.exp(x.astype(np.float64)).astype(np.float32))


def test_token_required_op_is_an_error():
    src = """
func.func @main(%t: !stablehlo.token) -> !stablehlo.token {
  %0 = "stablehlo.send"(%t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true} : (!stablehlo.token) -> !stablehlo.token
  return %0 : !stablehlo.token
}"""
    with pytest.raises(HiloError) as e:
        run(src, "stablehlo-replace-token-type-with-u8")
    assert "'stablehlo.send' op requires a token operand or result" in e.value.message
    assert e.value.line == 3
