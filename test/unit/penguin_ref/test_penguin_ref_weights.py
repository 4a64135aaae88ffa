"""Weights: ``--weights`` / ``jax.compile(params=)`` make inputs parameters whose files go beside ``penguin.py``,
and the reference backend loads a parameter from its ``np_file`` (docs/penguin_format.md sections 3, 12)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
from conftest import corpus_path

from hilo_mlir import penguin_ref
from hilo_mlir.driver.weights import parameter_inputs, parse_weight_args, weight_files
from hilo_mlir.support.diagnostics import HiloError

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))

BF16 = """func.func @main(%x: tensor<2x4xbf16>, %w: tensor<4x3xbf16>) -> tensor<2x3xbf16> {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x4xbf16>, tensor<4x3xbf16>) -> tensor<2x3xbf16>
  return %0 : tensor<2x3xbf16>
}
"""


def _cli(*args, cwd=ROOT):
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=600)


def _rms_ref(x, w):
    x64 = x.astype(np.float64)
    return x64 / np.sqrt((x64 * x64).mean(-1, keepdims=True) + 1e-6) * w


def test_cli_weights_written_and_loaded(tmp_path):
    src = corpus_path("jax", "rmsnorm.stablehlo.mlir")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 128)).astype(np.float32)
    w = rng.uniform(0.5, 1.5, 128).astype(np.float64)  # converted to the input's dtype (f32) when written
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "w.npy", w)
    out = tmp_path / "out"
    r = _cli("hilo_mlir.tools.hilo2penguin", str(src), "-o", str(out), "--preset", "all", "--weights", f"1={tmp_path / 'w.npy'}")
    assert r.returncode == 0, r.stderr
    # published under a content-named file (packaging: a name never changes meaning), which penguin.py names
    names = sorted(os.listdir(out))
    assert len(names) == 2 and names[1] == "penguin.py" and re.fullmatch(r"input_1\.[0-9a-f]{16}\.npy", names[0])
    weight = names[0]
    text = (out / "penguin.py").read_text()
    assert f"markInput(v0, index=1, is_parameter_tensor=True, weight_files=['{weight}'], np_file='{weight}')" in text
    assert "markInput(v0, index=0, is_parameter_tensor=False)" in text
    stored = np.load(out / weight)
    assert stored.dtype == np.float32 and np.array_equal(stored, w.astype(np.float32))
    r = _cli("hilo_mlir.tools.penguin_run", str(out), "--inputs", str(tmp_path / "x.npy"), "--out", str(tmp_path / "res"))
    assert r.returncode == 0, r.stderr
    y = np.load(tmp_path / "res" / "out0.npy")
    assert np.allclose(y, _rms_ref(x, w.astype(np.float32)), rtol=1e-5, atol=1e-6)
    # "-" stands for a parameter read from its file, too
    r = _cli("hilo_mlir.tools.penguin_run", str(out), "--inputs", str(tmp_path / "x.npy"), "-", "--out", str(tmp_path / "res2"))
    assert r.returncode == 0 and np.array_equal(np.load(tmp_path / "res2" / "out0.npy"), y)
    # a missing weight file is one error naming the input and the file
    os.remove(out / weight)
    r = _cli("hilo_mlir.tools.penguin_run", str(out), "--inputs", str(tmp_path / "x.npy"), "--out", str(tmp_path / "res3"))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert f"input 1 ('input_1') is a parameter loaded from '{weight}', which was not found" in r.stderr


@pytest.mark.parametrize(
    "args,message",
    [
        (["--weights", "5=W"], "weights given for input 5, but main has 2 inputs"),
        (["--weights", "0=W"], "the weight of input 0 has shape (128,), the program expects (4, 128)"),
        (["--weights", "1=missing.npy"], "--weights: cannot read the weight of input 1 from 'missing.npy'"),
        (["--weights", "one=W"], "--weights: expected INDEX=FILE.npy"),
        (["--weights", "1=W", "1=W"], "--weights: input 1 is given twice"),
    ],
)
def test_cli_weight_errors(tmp_path, args, message):
    src = corpus_path("jax", "rmsnorm.stablehlo.mlir")
    np.save(tmp_path / "w.npy", np.ones(128, np.float32))
    args = [a.replace("=W", f"={tmp_path / 'w.npy'}") for a in args]
    r = _cli("hilo_mlir.tools.hilo2penguin", str(src), "-o", str(tmp_path / "out"), *args, cwd=str(tmp_path))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert message in r.stderr
    assert not (tmp_path / "out").exists()


def test_bf16_weight_is_stored_as_bit_patterns_and_read_back_exactly():
    from hilo_mlir.driver.compiler import compile_loaded, load_module
    from hilo_mlir.driver.config import CompileConfig
    from hilo_mlir.driver.weights import mark_parameters

    loaded = load_module(BF16, "w.mlir")
    with loaded.context:
        mark_parameters(loaded.module, [1])
    src = compile_loaded(loaded, CompileConfig())
    w = (np.arange(12).reshape(4, 3) / 7.0).astype(ml_dtypes.bfloat16)
    assert parameter_inputs(src) == {1: ("input_1.npy", (4, 3), "bfloat16")}
    files = weight_files(src, {1: w})
    x = np.ones((2, 4), ml_dtypes.bfloat16)
    (y_file,) = penguin_ref.run(src, [x], files=dict(src.files, **files))
    (y_given,) = penguin_ref.run(src, [x, w], files=src.files)
    assert y_file.dtype == ml_dtypes.bfloat16 and np.array_equal(y_file.view(np.uint16), y_given.view(np.uint16))


def test_weight_files_refuse_a_non_parameter():
    from hilo_mlir.driver.compiler import compile_module

    src = compile_module(BF16, filename="w.mlir")
    with pytest.raises(HiloError, match="input 1, which is not a parameter input of the program"):
        weight_files(src, {1: np.zeros((4, 3))})
    assert parse_weight_args(["0=a.npy", "2=b.npy"]) == {0: "a.npy", 2: "b.npy"}


def test_jax_params_by_index_and_path(tmp_path):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    from hilo_mlir import CompileConfig
    from hilo_mlir import jax as hj

    def f(p, x):
        return jnp.tanh(x @ p["w1"]) @ p["w2"] + p["b"]

    rng = np.random.default_rng(1)
    p = {
        "w1": rng.standard_normal((8, 16)).astype(np.float32),
        "w2": rng.standard_normal((16, 4)).astype(np.float32),
        "b": np.ones(4, np.float32),
    }
    x = rng.standard_normal((2, 8)).astype(np.float32)
    prog = hj.compile(f, p, x, params=[0], config=CompileConfig.preset("all"), spine="stablehlo", model_type="transformer")
    assert sorted(prog.files) == ["input_0.npy", "input_1.npy", "input_2.npy"]
    assert "attrs=('model-type=transformer', 'mac-count=384'" in str(prog.source)  # 2*16*8 + 2*4*16
    prog.write(tmp_path)
    outs = penguin_ref.run(str(tmp_path), [None, None, None, x])  # the weights come from their files
    assert np.allclose(outs[0], np.asarray(jax.jit(f)(p, x)), rtol=1e-5, atol=1e-5)
    only_w2 = hj.compile(f, p, x, params=["[0]['w2']"])
    assert sorted(only_w2.files) == ["input_2.npy"]
    with pytest.raises(HiloError, match="params entry '\\[3\\]' selects no argument"):
        hj.compile(f, p, x, params=["[3]"])
    with pytest.raises(HiloError, match="weights need concrete values"):
        hj.compile(f, jax.tree_util.tree_map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), p), x, params=[0])
