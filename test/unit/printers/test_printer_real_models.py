"""The printed forms on real JAX models and on a module with QuantizeMX, a scaled matmul and a device print,
both spines with ``--preset all`` (docs/penguin_format.md sections 2, 3, 6, 8, 9).

The mac-count is checked against a count made independently of the printer: the reference backend records
the program, and every ``DotOp`` / ``ConvolutionOp`` statement's MACs are computed from the specs of the
values it reads.
"""

from __future__ import annotations

import math
import os
import re

import pytest
from conftest import corpus_path

from hilo_mlir import penguin_ref
from hilo_mlir.driver.compiler import compile_file, compile_module
from hilo_mlir.driver.config import CompileConfig

HERE = os.path.dirname(__file__)
MODELS = ["decoder_layer", "swiglu_mlp_bf16", "rmsnorm"]

HAND = """
func.func @main(%x: tensor<4x64xf32>, %l: tensor<2x8x32xf32>, %r: tensor<2x16x32xf32>, %ls: tensor<2x8x1xf32>, %rs: tensor<2x16x1xf32>) -> (tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8x16xf32>, tensor<4x64xf32>) {
  %q:2 = stablehlo.custom_call @QuantizeMX(%x) {backend_config = "{\\"dtype\\": \\"float8_e4m3fn\\", \\"dim\\": -1, \\"block_size\\": 32}"} : (tensor<4x64xf32>) -> (tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>)
  %d = stablehlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = ""} : (tensor<2x8x32xf32>, tensor<2x16x32xf32>, tensor<2x8x1xf32>, tensor<2x16x1xf32>) -> tensor<2x8x16xf32>
  %p = stablehlo.custom_call @AwsNeuronDevicePrint(%x) {backend_config = "x is", has_side_effect = true} : (tensor<4x64xf32>) -> tensor<4x64xf32>
  return %q#0, %q#1, %d, %p : tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8x16xf32>, tensor<4x64xf32>
}
"""


def _spec_shape(value):
    st = value.stmt
    spec = st.spec if st.kind == "Tensor.markInput" else st.dsts[value.index]
    return spec.shape


def independent_mac_count(src) -> int:
    prog = penguin_ref.load(src)
    total = 0
    for st in prog.statements:
        kind = st.kind.split(".")[-1]
        if kind == "DotOp":
            lhs = _spec_shape(st.kw["srcs"][0])
            total += math.prod(st.dsts[0].shape) * math.prod(lhs[d] for d in st.kw["lhs_contracting_dimensions"])
        elif kind == "ConvolutionOp":
            kernel = _spec_shape(st.kw["srcs"][1])
            out_f = kernel[st.kw["dimension_numbers"]["kernel_output_feature_dimension"]]
            total += math.prod(st.dsts[0].shape) * (math.prod(kernel) // out_f)
    return total


def _check_common_forms(src: str):
    lines = src.splitlines()
    assert "import neuronxcc.starfish.support as m2" in lines
    assert not any(".penguin.support" in line for line in lines)
    m = re.search(r"^v0 = m0\.Function\(id_=0, batch_ids=\[\], attrs=\('model-type=generic', 'mac-count=(\d+)'", src, re.M)
    assert m, src[:400]
    assert int(m.group(1)) == independent_mac_count(src)
    assert "DotGeneralOp" not in src
    for line in lines:
        if "m1.DotOp(" in line:
            assert re.search(
                r"dsts=\[.*?\], lhs_batch_dimensions=\[[\d, ]*\], rhs_batch_dimensions=\[[\d, ]*\], "
                r"lhs_contracting_dimensions=\[[\d, ]*\], rhs_contracting_dimensions=\[[\d, ]*\], "
                r"op='[\w.]+'",
                line,
            ), line
        if "NeuronTensorOp(" in line:
            assert re.search(
                r"dsts=\[.*\], xla_op='mhlo\.fusion', op='\w+'(, hilo_fusion_op='\w+')?"
                r"(, reduce_dims=\[[\d, ]*\])?, dl=m2\.DebugLocation\(",
                line,
            ), line
    return int(m.group(1))


@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
@pytest.mark.parametrize("model", MODELS)
def test_real_models_print_the_binary_forms(model, spine):
    src = compile_file(corpus_path("jax", f"{model}.stablehlo.mlir"), CompileConfig.preset("all"), spine=spine)
    macs = _check_common_forms(str(src))
    if model != "rmsnorm":
        assert macs > 0 and "m1.DotOp(" in str(src)
    assert "NeuronTensorOp(" in str(src)  # every one of these models has a fusion with --preset all


def test_quantize_mx_scaled_dot_device_print_module():
    """The MX path prints on the StableHLO spine (the MHLO spine refuses it: test_seed_fidelity)."""
    src = str(compile_module(HAND, CompileConfig.preset("all"), spine="stablehlo", filename="hand.mlir"))
    assert _check_common_forms(src) == 2 * 8 * 16 * 32
    q = next(line for line in src.splitlines() if "QuantizeMXTensorOp(" in line)
    assert "dsts=[m1.TensorSpec(shape=(4, 16), dtype=m2.dtype.float8_e4m3fn_x4), " in q
    # the seed's form: ... scale_method=..., target_name=..., then the debug location (no xla_op tag)
    assert re.search(
        r"mx_dtype='float8_e4m3fn', dim=1, block_size=32, scale_method='EMAX', target_name='QuantizeMX', "
        r"dl=",
        q,
    )
    d = next(line for line in src.splitlines() if "m1.DotOp(" in line)
    assert (
        "lhs_batch_dimensions=[0], rhs_batch_dimensions=[0], lhs_contracting_dimensions=[2], "
        "rhs_contracting_dimensions=[2], op='mhlo.scaled_dot', element_dtype='float32', xla_op="
    ) in d
    p = next(line for line in src.splitlines() if "DevicePrintOp(" in line)
    assert re.search(r"dsts=\[.*\], xla_op='mhlo\.device_print', prefix='x is', dl=m2\.DebugLocation\([^=]*=", p)
    assert "target_name" not in p
    # and it runs: the x4 container dtype is understood by the backend
    import numpy as np

    rng = np.random.default_rng(0)
    ins = [rng.standard_normal(s).astype(np.float32) for s in [(4, 64), (2, 8, 32), (2, 16, 32)]]
    ins += [np.full((2, 8, 1), 2.0, np.float32), np.full((2, 16, 1), 0.5, np.float32)]
    outs = penguin_ref.run(src, ins)
    assert outs[0].dtype == np.uint32 and outs[0].shape == (4, 16)
    assert np.allclose(outs[2], np.einsum("bmk,bnk->bmn", ins[1], ins[2]), rtol=1e-5, atol=1e-5)
    assert np.array_equal(outs[3], ins[0])
