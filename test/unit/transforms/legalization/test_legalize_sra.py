"""Spine step 26a legalize-sra: numbers before and after the pass (StableHLO reference interpreter, bit for bit) and API checks."""

from __future__ import annotations

import numpy as np
import pytest
from pass_semantics_util import bit_equal

from hilo_mlir.testing import evaluate, run_passes

# --------------------------------------------------------------------------- 26a legalize-sra

SRA = """func.func @main(%a: tensor<8x{t}>, %b: tensor<8x{t}>) -> tensor<8x{t}> {{
  %0 = stablehlo.shift_right_arithmetic %a, %b : tensor<8x{t}>
  return %0 : tensor<8x{t}>
}}"""


@pytest.mark.parametrize("t,dt", [("ui8", np.uint8), ("ui16", np.uint16), ("ui32", np.uint32), ("ui64", np.uint64)])
def test_legalize_sra_bit_exact(t, dt):
    text = SRA.format(t=t)
    after, stats = run_passes(text, "legalize-sra")
    assert stats == {"sra-legalized": 1}
    assert "stablehlo.shift_right_arithmetic" in after and f"tensor<8x{t}>" in after
    bits = np.dtype(dt).itemsize * 8
    top = dt(1) << dt(bits - 1)
    a = np.array([top, top | dt(1), dt(16), ~dt(0) - dt(15), dt(7), top >> dt(1), dt(0), top], dtype=dt)
    b = np.array([1, 4, 2, bits - 1, bits, bits + 1, 3, ~dt(0)], dtype=dt)
    before_v, after_v = evaluate(text, [a, b]), evaluate(after, [a, b])
    bit_equal(before_v, after_v)
    # And the expected values: the bit pattern shifted as a signed integer.
    sdt = np.dtype(f"i{bits // 8}")
    want = (a.view(sdt) >> np.minimum(b, bits - 1).astype(sdt)).view(dt)
    np.testing.assert_array_equal(after_v[0], want)
