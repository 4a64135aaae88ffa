"""raise-logistic (ours, issue 3) and the op-fusion gates through the compiler API and CLI."""

import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
from conftest import corpus_path
from test_op_fusion_helpers import bits, run_pipeline, same_numbers

import hilo_mlir
from hilo_mlir.driver.config import CompileConfig

SIG = """func.func @main(%x: tensor<16xDT>) -> tensor<16xDT> {
  %one = P.constant dense<1.000000e+00> : tensor<DT>
  %0 = P.negate %x : tensor<16xDT>
  %1 = P.exponential %0 : tensor<16xDT>
  %b = "P.broadcast_in_dim"(%one) {broadcast_dimensions = BD} : (tensor<DT>) -> tensor<16xDT>
  %2 = P.add %b, %1 : tensor<16xDT>
  %3 = P.divide %b, %2 : tensor<16xDT>
  return %3 : tensor<16xDT>
}"""


def _src(dialect, dt):
    bd = "dense<> : tensor<0xi64>" if dialect == "mhlo" else "array<i64>"
    return SIG.replace("P.", dialect + ".").replace("DT", dt).replace("BD", bd)


@pytest.mark.parametrize("dt,npdt", [("f32", np.float32), ("bf16", ml_dtypes.bfloat16), ("f16", np.float16)])
@pytest.mark.parametrize("dialect", ["mhlo", "stablehlo"])
def test_raised_logistic_is_bit_exact_including_extremes(dialect, dt, npdt):
    src = _src(dialect, dt)
    out, st = run_pipeline(src, "builtin.module(raise-logistic)")
    assert st["raised-logistic"] == 1
    assert f"{dialect}.logistic %arg0" in out
    for gone in ("negate", "exponential", "divide", "broadcast_in_dim", "constant"):
        assert f"{dialect}.{gone}" not in out  # the dead chain and the 1.0 producers are erased
    x = np.array(
        [0.0, -0.0, 1.0, -1.0, 30.0, -30.0, 100.0, -100.0, 1e-3, -1e-3, np.inf, -np.inf, np.nan, 5.5, -7.25, 0.5], np.float32
    ).astype(npdt)
    (a,), (b,) = same_numbers(src, out, [x], exact=True)
    assert bits(a) == bits(b)
    assert float(a[0]) == 0.5 and float(a[10]) == 1.0 and float(a[11]) == 0.0


def test_shared_one_constant_survives_when_still_used():
    src = """func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %one = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>
      %0 = stablehlo.negate %x : tensor<4xf32>
      %1 = stablehlo.exponential %0 : tensor<4xf32>
      %2 = stablehlo.add %1, %one : tensor<4xf32>
      %3 = stablehlo.divide %one, %2 : tensor<4xf32>
      %4 = stablehlo.add %x, %one : tensor<4xf32>
      return %3, %4 : tensor<4xf32>, tensor<4xf32>
    }"""
    out, st = run_pipeline(src, "builtin.module(raise-logistic)")
    assert st["raised-logistic"] == 1 and "stablehlo.constant dense<1.000000e+00>" in out
    same_numbers(src, out, [np.linspace(-3, 3, 4).astype(np.float32)], exact=True)


@pytest.mark.parametrize(
    "num,addend",
    [
        ("%one", "%b"),  # the numerator is the 1.0 the addend broadcasts: erased after its user, one depth later
        ("%b", "%one"),
        ("%b", "%c"),  # two broadcasts of one 1.0 (JAX's form): one batch, then the constant
    ],
)
def test_the_one_producers_are_erased_whatever_their_sharing(num, addend):
    src = f"""func.func @main(%x: tensor<f32>) -> tensor<f32> {{
      %one = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %b = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> tensor<f32>
      %c = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> tensor<f32>
      %0 = stablehlo.negate %x : tensor<f32>
      %1 = stablehlo.exponential %0 : tensor<f32>
      %2 = stablehlo.add {addend}, %1 : tensor<f32>
      %3 = stablehlo.divide {num}, %2 : tensor<f32>
      return %3 : tensor<f32>
    }}"""
    out, st = run_pipeline(src, "builtin.module(raise-logistic)")
    assert st["raised-logistic"] == 1
    body = [ln.strip().split(" = ", 1)[-1].split(" ")[0] for ln in out.splitlines() if "stablehlo." in ln]
    if "%c" in (num, addend):  # every 1.0 producer was the chain's: all erased
        assert body == ["stablehlo.logistic"]
    else:  # %c, the chain's neither, stays, and so does the 1.0 it broadcasts
        assert body == ["stablehlo.constant", "stablehlo.broadcast_in_dim", "stablehlo.logistic"]
    same_numbers(src, out, [np.array(0.75, np.float32)], exact=True)


@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
def test_compile_gates_and_statistics_through_the_api(spine):
    """CompileConfig.raise_logistic + the two fusion gates; statistics come back on PenguinSource."""
    src = corpus_path("jax", "swiglu_mlp_bf16.stablehlo.mlir").read_text()
    cfg = CompileConfig(op_fusion=True, fuse_dot_logistic=True, general_elementwise_fusion=True, raise_logistic=True)
    out = hilo_mlir.compile_module(src, cfg, spine=spine)
    fusion = "NeuronOpFusion" if spine == "mhlo" else "StableHLONeuronOpFusion"
    assert out.statistics["RaiseLogistic"] == {"raised-logistic": 1}
    assert out.statistics[fusion]["clusters-DotLogistic"] == 1
    assert out.statistics[fusion]["ops-absorbed-DotLogistic"] == 3
    assert "op='DotFusion'" in out
    off = hilo_mlir.compile_module(src, cfg.replace(raise_logistic=False), spine=spine)
    assert "clusters-DotLogistic" not in off.statistics.get(fusion, {})


def test_cli_flags_enable_the_pass(tmp_path):
    src = corpus_path("jax", "swiglu_mlp_bf16.stablehlo.mlir")
    cmd = [
        sys.executable,
        "-m",
        "hilo_mlir.tools.hilo2penguin",
        str(src),
        "-o",
        str(tmp_path / "out"),
        "--enable-op-fusion",
        "--enable-fuse-dot-logistic",
        "--enable-raise-logistic",
        "--mlir-pass-statistics",
    ]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "(raised-logistic) 1" in r.stderr and "(clusters-DotLogistic) 1" in r.stderr
