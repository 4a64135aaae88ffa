"""The reference backend's program-level behaviour (issue 5 item 8; docs/penguin_format.md).

Hand-written Penguin programs exercise what the per-op tests cannot pick
out: groups (header, transparent body, setResults), region functions with
captured values, custom-call statements, ``NpyFile`` constants from a folder
or from memory, a configurable module root, the legacy
``BlockArgument``/``RegionReturn`` region form, and the errors.
"""

from __future__ import annotations

import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

from hilo_mlir import penguin_ref
from hilo_mlir.penguin_ref import PenguinRefError

HEAD = """import neuronxcc.starfish.penguin as m0
import neuronxcc.starfish.penguin.ir as m1
import neuronxcc.starfish.penguin.support as m2
import neuronxcc.starfish.penguin.frontend.XlaFE as m3
function = m0.Function(id_=0, batch_ids=[], attrs=())
"""


def spec(shape, dtype="float32"):
    return f"m1.TensorSpec(shape={tuple(shape)!r}, dtype={dtype!r})"


def dl(line=1, parent=None):
    p = f", parent={parent!r}" if parent else ""
    return f"m2.DebugLocation(file='model.py', line={line}, col=3, name='jit(f)/op'{p})"


def inp(i, shape, dtype="float32"):
    return f"input_{i} = m1.Tensor(name='x{i}', spec={spec(shape, dtype)}).markInput(function, index={i}, is_parameter_tensor=False)\n"


def test_group_header_body_set_results():
    src = (
        HEAD
        + inp(0, (2, 3))
        + inp(1, (3, 4))
        + f"""
v0 = m3.NeuronTensorOp(srcs=[input_0, input_1], dsts=[{spec((2, 4))}], xla_op='mhlo.fusion', op='DotFusion', hilo_fusion_op='DotLogistic', dl={dl(2)})
v1 = m1.DotGeneralOp(srcs=[input_0, input_1], dsts=[{spec((2, 4))}], dot_dimension_numbers=dict(lhs_batching_dimensions=[], rhs_batching_dimensions=[], lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0]), xla_op='mhlo.dot_general', dl={dl(3, "v0")})
v2 = m1.LogisticOp(srcs=[v1], dsts=[{spec((2, 4))}], xla_op='mhlo.logistic', dl={dl(4, "v0")})
v3 = m1.MultiplyOp(srcs=[v1, v2], dsts=[{spec((2, 4))}], xla_op='mhlo.multiply', dl={dl(5, "v0")})
v0.setResults([v3])
function.markOutput(v3, index=0, name='y', is_slow_changing=False)
function.markOutput(input_0, index=1, name='x', is_slow_changing=False)
"""
    )
    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 7
    w = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    y, x_out = penguin_ref.run(src, [x, w])
    d = x.astype(np.float64) @ w.astype(np.float64)
    np.testing.assert_allclose(y, d / (1 + np.exp(-d)), rtol=1e-6)
    assert y.dtype == np.float32 and np.array_equal(x_out, x)


def test_set_results_checks_header_shapes():
    src = (
        HEAD
        + inp(0, (2,))
        + f"""
v0 = m3.NeuronTensorOp(srcs=[input_0], dsts=[{spec((3,))}], xla_op='mhlo.fusion', op='Elementwise', dl={dl(2)})
v1 = m1.ExponentialOp(srcs=[input_0], dsts=[{spec((2,))}], xla_op='mhlo.exponential', dl={dl(3, "v0")})
v0.setResults([v1])
function.markOutput(v1, index=0)
"""
    )
    with pytest.raises(PenguinRefError, match=r"NeuronTensorOp.*header declares \(3,\)"):
        penguin_ref.run(src, [np.zeros(2, np.float32)])


def test_region_function_captures_outer_value_and_runs_vectorised():
    # reduce with a body that reads a value defined outside the region: max(acc, x) + 0*c
    src = (
        HEAD
        + inp(0, (3, 4))
        + f"""
v0 = m1.ConstantOp(srcs=[], dsts=[{spec(())}], value=float('-inf'), xla_op='stablehlo.constant', dl={dl(2)})
v1 = m1.ConstantOp(srcs=[], dsts=[{spec(())}], value=0.0, xla_op='stablehlo.constant', dl={dl(3)})
def v3(v4, v5):
    v6 = m1.MaximumOp(srcs=[v4, v5], dsts=[{spec(())}], xla_op='stablehlo.maximum', dl={dl(4, "v2")})
    v7 = m1.AddOp(srcs=[v6, v1], dsts=[{spec(())}], xla_op='stablehlo.add', dl={dl(5, "v2")})
    return [v7]
v2 = m1.ReduceOp(srcs=[input_0, v0], dsts=[{spec((3,))}], dimensions=[1], regions=[v3], xla_op='stablehlo.reduce', dl={dl(6)})
function.markOutput(v2, index=0)
"""
    )
    x = np.array([[1, 5, 2, 0], [-1, -2, -3, -4], [7, 7, 8, 1]], np.float32)
    (out,) = penguin_ref.run(src, [x])
    assert out.tolist() == [5.0, -1.0, 8.0]


def test_legacy_block_argument_region_form():
    # the first driver's form: regions after the op as BlockArgument ... RegionReturn
    src = (
        HEAD
        + inp(0, (2, 3))
        + f"""
v0 = m1.ConstantOp(srcs=[], dsts=[{spec(())}], value=0.0, xla_op='mhlo.constant', dl={dl(2)})
v1 = m1.ReduceOp(srcs=[input_0, v0], dsts=[{spec((2,))}], dimensions='dense<1> : tensor<1xi64>', xla_op='mhlo.reduce', dl={dl(3)})
v2 = m1.BlockArgument(index=0, parent='v1')
v3 = m1.BlockArgument(index=1, parent='v1')
v4 = m1.MultiplyOp(srcs=[v2, v3], dsts=[{spec(())}], xla_op='mhlo.multiply', dl={dl(4, "v1")})
v5 = m1.AddOp(srcs=[v4, v3], dsts=[{spec(())}], xla_op='mhlo.add', dl={dl(4, "v1")})
m1.RegionReturn(srcs=[v5], parent='v1')
v1.markOutput(function, index=0)
"""
    )
    x = np.array([[1, 2, 3], [2, 0, 1]], np.float32)
    (out,) = penguin_ref.run(src, [x])
    # acc' = acc*x + x, left to right from 0: row 0 -> 1, 1*2+2=4, 4*3+3=15
    assert out.tolist() == [15.0, 1.0]  # row 1: 0*2+2=2, 2*0+0=0, 0*1+1=1


def test_custom_call_statements():
    src = (
        HEAD
        + inp(0, (2, 3))
        + f"""
v0 = m1.SoftmaxOp(srcs=[input_0], dsts=[{spec((2, 3))}], dim=1, target_name='AwsFSPattern5', xla_op='mhlo.custom_call', dl={dl(2)})
v1 = m1.CopyOp(srcs=[v0], dsts=[{spec((2, 3))}], target_name='AliasingCopy', xla_op='mhlo.custom_call', dl={dl(3)})
v2 = m1.DevicePrintOp(srcs=[v1], dsts=[{spec((2, 3))}], prefix='dbg', target_name='AwsNeuronDevicePrint', xla_op='mhlo.device_print', dl={dl(4)})
v3 = m1.ControlDepOp(srcs=[v2, input_0], dsts=[{spec((2, 3))}], target_name='AwsNeuronControlDep', xla_op='stablehlo.custom_call', dl={dl(5)})
function.markOutput(v3, index=0)
"""
    )
    x = np.array([[1, 2, 3], [0, 0, np.log(2)]], np.float32)
    (out,) = penguin_ref.run(src, [x])
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(out[1], [0.25, 0.25, 0.5], rtol=1e-6)


def test_scaled_dot_statement():
    src = (
        HEAD
        + inp(0, (2, 4))
        + inp(1, (3, 4))
        + inp(2, (2, 2))
        + inp(3, (3, 2))
        + f"""
v0 = m1.DotOp(srcs=[input_0, input_1, input_2, input_3], dsts=[{spec((2, 3))}], lhs_batch_dimensions=[], rhs_batch_dimensions=[], lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[1], element_dtype='float32', op='mhlo.scaled_dot', target_name='__op$block_scaled_dot', xla_op='stablehlo.custom_call', dl={dl(2)})
function.markOutput(v0, index=0)
"""
    )
    a = np.arange(8, dtype=np.float32).reshape(2, 4)
    b = np.ones((3, 4), np.float32)
    sa = np.array([[1, 2], [4, 8]], np.float32)
    sb = np.array([[1, 1], [2, 2], [0.5, 1]], np.float32)
    (out,) = penguin_ref.run(src, [a, b, sa, sb])
    want = (a * np.repeat(sa, 2, axis=1)) @ (b * np.repeat(sb, 2, axis=1)).T
    np.testing.assert_array_equal(out, want)


def test_npy_constants_from_folder_and_from_memory(tmp_path):
    c = (np.arange(300, dtype=np.float32) * 0.25).astype(ml_dtypes.bfloat16)
    src = (
        HEAD
        + inp(0, (300,), "bfloat16")
        + f"""
v0 = m1.ConstantOp(srcs=[], dsts=[{spec((300,), "bfloat16")}], value=m1.NpyFile('const_0.npy'), xla_op='mhlo.constant', dl={dl(2)})
v1 = m1.AddOp(srcs=[input_0, v0], dsts=[{spec((300,), "bfloat16")}], xla_op='mhlo.add', dl={dl(3)})
function.markOutput(v1, index=0)
"""
    )
    import io

    buf = io.BytesIO()
    np.save(buf, c.view(np.uint16))  # bf16 stored as its bit pattern (format section 5a)
    x = np.ones(300, ml_dtypes.bfloat16)
    (mem,) = penguin_ref.run(src, [x], files={"const_0.npy": buf.getvalue()})
    (tmp_path / "penguin.py").write_text(src)
    (tmp_path / "const_0.npy").write_bytes(buf.getvalue())
    (disk,) = penguin_ref.run(str(tmp_path / "penguin.py"), [x])
    (folder,) = penguin_ref.run(tmp_path, [x])
    want = (c.astype(np.float32) + 1).astype(ml_dtypes.bfloat16)
    for got in (mem, disk, folder):
        assert got.dtype == ml_dtypes.bfloat16
        assert np.array_equal(got.view(np.uint16), want.view(np.uint16))
    with pytest.raises(PenguinRefError, match=r"const_0.npy' not found"):
        penguin_ref.run(src, [x])


def test_module_root_is_read_from_the_imports():
    src = """import acme.penguin as m0
import acme.penguin.ir as m1
import acme.penguin.support as m2
function = m0.Function(id_=0, batch_ids=[], attrs=())
input_0 = m1.Tensor(name='x', spec=m1.TensorSpec(shape=(3,), dtype='int8')).markInput(function, index=0, is_parameter_tensor=False)
v0 = m1.AddOp(srcs=[input_0, input_0], dsts=[m1.TensorSpec(shape=(3,), dtype='int8')], xla_op='stablehlo.add', dl=m2.DebugLocation(file='', line=0, col=0, name=''))
function.markOutput(v0, index=0)
"""
    (out,) = penguin_ref.run(src, [np.array([100, -100, 3], np.int8)])
    assert out.dtype == np.int8 and out.tolist() == [-56, 56, 6]  # wraps
    assert "acme" not in sys.modules  # nothing installed process-wide


def test_outputs_follow_index_not_statement_order():
    src = (
        HEAD
        + inp(0, (2,))
        + f"""
v0 = m1.NegateOp(srcs=[input_0], dsts=[{spec((2,))}], xla_op='mhlo.negate', dl={dl(2)})
function.markOutput(v0, index=1)
function.markOutput(input_0, index=0)
function.markOutput(v0, index=2)
"""
    )
    a, b, c = penguin_ref.run(src, [np.array([1, 2], np.float32)])
    assert a.tolist() == [1, 2] and b.tolist() == [-1, -2] and c.tolist() == [-1, -2]


@pytest.mark.parametrize(
    "body,inputs,pattern",
    [
        (
            f"v0 = m1.FrobnicateOp(srcs=[input_0], dsts=[{spec((2,))}], xla_op='stablehlo.frobnicate', dl={dl(7)})\n",
            [np.zeros(2, np.float32)],
            r"model.py:7:3: error: penguin_ref: cannot execute 'stablehlo.frobnicate' \(FrobnicateOp -> v0\).*no numpy implementation",
        ),
        (
            f"v0 = m1.AddOp(srcs=[input_0, input_0], dsts=[{spec((3,))}], xla_op='stablehlo.add', dl={dl(8)})\n",
            [np.zeros(2, np.float32)],
            r"model.py:8:3: .*'stablehlo.add'.*computed shape \(2,\), the statement declares \(3,\)",
        ),
        (
            f"v0 = m1.TransposeOp(srcs=[input_0], dsts=[{spec((2,))}], xla_op='stablehlo.transpose', dl={dl(9)})\n",
            [np.zeros(2, np.float32)],
            r"model.py:9:3: .*'stablehlo.transpose'.*missing attribute 'permutation'",
        ),
        ("", [np.zeros(2, np.float32), np.zeros(2, np.float32)], r"the program has 1 inputs, 2 given"),
        ("", [np.zeros(3, np.float32)], r"input 0 has shape \(3,\), the program expects \(2,\)"),
        ("v0 = = 1\n", [np.zeros(2, np.float32)], r"is not valid Python"),
        # the allow-list (support/pysource.py) refuses anything but the printer's shapes before it runs
        ("v0 = undefined_name + 1\n", [np.zeros(2, np.float32)], r"penguin.py:7:\d+: .*not a Penguin program.*BinOp"),
        ("v0 = m1.NegateOp(srcs=[undefined_name])\n", [np.zeros(2, np.float32)], r"penguin.py:7:\d+: .*the name 'undefined_name'"),
        ("v0 = m1.TensorSpec.__class__\n", [np.zeros(2, np.float32)], r"penguin.py:7:\d+: .*the attribute '.__class__'"),
    ],
)
def test_errors_are_one_clear_message(body, inputs, pattern):
    src = HEAD + inp(0, (2,)) + body + "function.markOutput(input_0, index=0)\n"
    with pytest.raises(PenguinRefError, match=pattern) as ei:
        penguin_ref.run(src, inputs)
    assert "\n" not in ei.value.format()


def test_unexecutable_group_result_names_the_header():
    # a header whose results are used but never bound (no setResults) is reported, naming the header
    src = (
        HEAD
        + inp(0, (2,))
        + f"""
v0 = m3.NeuronTensorOp(srcs=[input_0], dsts=[{spec((2,))}], xla_op='mhlo.fusion', op='Elementwise', dl={dl(2)})
v1 = m1.NegateOp(srcs=[v0], dsts=[{spec((2,))}], xla_op='mhlo.negate', dl={dl(3)})
function.markOutput(v1, index=0)
"""
    )
    with pytest.raises(
        PenguinRefError, match=r"operand v0 has no value \('mhlo.fusion' \(NeuronTensorOp -> v0\) is a fusion/composite summary"
    ):
        penguin_ref.run(src, [np.zeros(2, np.float32)])


def test_call_without_body_is_an_error():
    src = (
        HEAD
        + inp(0, (2,))
        + f"""
v0 = m3.CallOp(srcs=[input_0], dsts=[{spec((2,))}], callee='silu', xla_op='func.call', dl={dl(2)})
function.markOutput(v0, index=0)
"""
    )
    with pytest.raises(PenguinRefError, match=r"func.call to @silu: the program does not contain the callee's body"):
        penguin_ref.run(src, [np.zeros(2, np.float32)])


def test_backend_does_not_import_jax():
    code = (
        "import sys, numpy as np; from hilo_mlir import penguin_ref; "
        "import hilo_mlir.tools.penguin_run; assert 'jax' not in sys.modules, 'jax imported'; print('ok')"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=os.path.dirname(__file__))
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_quantize_mx_x4_packed_with_e8m0_scales():
    src = """import r as m0
import r.ir as m1
import r.ir.Intrinsics as m4
import r.support as m2
function = m0.Function(id_=0, batch_ids=[], attrs=())
input_0 = m1.Tensor(name='x', spec=m1.TensorSpec(shape=(2, 8), dtype='float32')).markInput(function, index=0, is_parameter_tensor=False)
v0, v1 = m4.QuantizeMXTensorOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(2, 2), dtype='float8_e4m3fn_x4'), m1.TensorSpec(shape=(2, 2), dtype='float8_e8m0fnu')], mx_dtype='float8_e4m3fn', dim=1, block_size=4, scale_method='EMAX', target_name='QuantizeMX', dl=m2.DebugLocation(file='', line=0, col=0, name=''))
function.markOutput(v0, index=0)
function.markOutput(v1, index=1)
"""
    x = np.array([[1, 2, 3, 4, 0, 0, 0, 0], [100, -0.5, 0.25, 1000, 3, 3, 3, 3]], np.float32)
    data, scale = penguin_ref.run(src, [x])
    # block [1,2,3,4]: amax 4 -> 2^(2-8); codes of 64,128,192,256 = 0x68,0x70,0x74,0x78 (element k at bits 8k)
    # block [100,-.5,.25,1000]: amax 1000 -> 2^(9-8) = 2; 50 -> 48 (ties to even) 0x64, -0.25 0xa8,
    # 0.125 0x20, 500 saturates to 448 0x7e; an all-zero block gets 2^-127
    assert data.dtype == np.uint32
    assert [hex(v) for v in data.reshape(-1)] == ["0x78747068", "0x0", "0x7e20a864", "0x7c7c7c7c"]
    assert scale.dtype == ml_dtypes.float8_e8m0fnu
    assert scale.astype(np.float64).tolist() == [[2.0**-6, 2.0**-127], [2.0, 2.0**-7]]


def test_large_sort_recognises_a_single_compare_comparator():
    # the comparator function is traced (not run) and recognised as compare(GT, TOTALORDER): one argsort
    src = (
        HEAD
        + inp(0, (20000,))
        + f"""
def v1(v2, v3):
    v4 = m1.CompareOp(srcs=[v2, v3], dsts=[{spec((), "bool")}], comparison_direction='GT', compare_type='TOTALORDER', xla_op='stablehlo.compare', dl={dl(2, "v0")})
    return [v4]
v0 = m1.SortOp(srcs=[input_0], dsts=[{spec((20000,))}], dimension=0, is_stable=True, regions=[v1], xla_op='stablehlo.sort', dl={dl(3)})
function.markOutput(v0, index=0)
"""
    )
    x = (np.abs(np.random.default_rng(0).standard_normal(20000)) + 1).astype(np.float32)
    x[:3] = [np.nan, -0.0, 0.0]
    (y,) = penguin_ref.run(src, [x])
    assert np.isnan(y[0]) and y[-2:].view(np.uint32).tolist() == [0x00000000, 0x80000000]  # +0 before -0
    np.testing.assert_array_equal(y[1:-2], np.sort(x[3:])[::-1])
