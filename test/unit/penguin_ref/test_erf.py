"""``ErfOp`` in the reference backend (custom_call @mhlo.erf, printed as the op itself on the StableHLO spine).

``erf`` goes through a ``numpy.frompyfunc`` ufunc, which returns a bare Python float (not an array)
for a rank-0 operand; the result must still be an array of the result dtype.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from hilo_mlir import penguin_ref

HEAD = """import neuronxcc.starfish.penguin as m0
import neuronxcc.starfish.penguin.ir as m1
import neuronxcc.starfish.penguin.support as m2
function = m0.Function(id_=0, batch_ids=[], attrs=())
"""


def _erf_program(shape: tuple[int, ...], dtype: str) -> str:
    spec = f"m1.TensorSpec(shape={shape!r}, dtype={dtype!r})"
    return (
        HEAD
        + f"input_0 = m1.Tensor(name='x', spec={spec}).markInput(function, index=0, is_parameter_tensor=False)\n"
        + f"v0 = m1.ErfOp(srcs=[input_0], dsts=[{spec}], xla_op='mhlo.erf')\n"
        + "function.markOutput(v0, index=0)\n"
    )


@pytest.mark.parametrize("shape", [(), (3,), (2, 2)])
def test_erf_f32_any_rank_is_an_array_of_the_result_dtype(shape):
    x = np.full(shape, 0.5, np.float32)
    (out,) = penguin_ref.run(_erf_program(shape, "float32"), [x])
    assert isinstance(out, np.ndarray)
    assert out.dtype == np.float32 and out.shape == shape
    # f32 is computed in f64 and rounded once
    assert out.tolist() == np.full(shape, np.float32(math.erf(0.5))).tolist()


def test_erf_bf16_rank0_rounds_once_to_bf16():
    x = np.asarray(-1.25, ml_dtypes.bfloat16)
    (out,) = penguin_ref.run(_erf_program((), "bfloat16"), [x])
    assert out.dtype == ml_dtypes.bfloat16 and out.shape == ()
    assert float(out) == float(np.asarray(math.erf(-1.25), ml_dtypes.bfloat16))
