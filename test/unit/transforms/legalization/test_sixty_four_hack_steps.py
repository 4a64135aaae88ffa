"""Spine step 25 sixty-four-hack: semantics before and after the pass (StableHLO reference interpreter, bit for bit), exact analysis values."""

from __future__ import annotations

import numpy as np
import pytest
from pass_semantics_util import both, inputs_for, run

from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.testing import evaluate

# --------------------------------------------------------------------------- 25 sixty-four-hack

I64 = """
func.func @main(%a: tensor<6xi64>, %u: tensor<6xui64>) -> (tensor<6xi64>, tensor<i64>, tensor<6xui64>, tensor<6xi1>) {
  %c = stablehlo.constant dense<[1, -2, 3, 100000, -7, 2147483]> : tensor<6xi64>
  %i = stablehlo.iota dim = 0 : tensor<6xi64>
  %0 = stablehlo.multiply %a, %c : tensor<6xi64>
  %1 = stablehlo.add %0, %i : tensor<6xi64>
  %z = stablehlo.constant dense<0> : tensor<i64>
  %r = stablehlo.reduce(%1 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<6xi64>, tensor<i64>) -> tensor<i64>
  %m = stablehlo.constant dense<4000000000> : tensor<6xui64>
  %uu = stablehlo.add %u, %m : tensor<6xui64>
  %cmp = stablehlo.compare LT, %1, %i : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi1>
  return %1, %r, %uu, %cmp : tensor<6xi64>, tensor<i64>, tensor<6xui64>, tensor<6xi1>
}"""


@pytest.mark.parametrize("pipeline", both("sixty-four-hack"))
def test_sixty_four_hack_values(pipeline):
    out = run(I64, pipeline)
    assert "i64>" not in out.replace("iota_dimension = 0 : i64", "")
    inp = inputs_for(I64)
    before, after = evaluate(I64, inp), evaluate(out, [inp[0].astype(np.int32), inp[1].astype(np.uint32)])
    assert [a.dtype for a in after] == [np.int32, np.int32, np.uint32, np.bool_]
    for x, y in zip(before, after):  # in-range computations give the same numbers
        assert np.array_equal(x.astype(np.int64), y.astype(np.int64))


def test_sixty_four_hack_out_of_range_is_one_error():
    src = I64.replace("dense<4000000000> : tensor<6xui64>", "dense<4294967296> : tensor<6xui64>")
    with pytest.raises(HiloError) as e:
        run(src, "stablehlo-sixty-four-hack")
    assert "ui64 constant value 4294967296 does not fit in ui32" in e.value.message
    assert e.value.line == 9  # the %m constant
