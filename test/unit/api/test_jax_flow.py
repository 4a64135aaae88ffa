"""The JAX export flow (issue 5 item 9): ``hilo_mlir.jax.compile`` -> PenguinProgram -> numbers equal to JAX's."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from hilo_mlir import CompileConfig, HiloError, penguin_ref  # noqa: E402
from hilo_mlir import jax as hj  # noqa: E402

#: The spine tests run with the analysis checking mode on (see conftest.py).
pytestmark = pytest.mark.check_analyses


def mlp(x, w1, w2):
    h = jax.nn.silu(x @ w1)
    return jnp.tanh(h @ w2), jnp.sum(h * h, axis=-1)


def _args(seed=0):
    r = np.random.default_rng(seed)
    return (
        r.standard_normal((4, 16)).astype(np.float32),
        (r.standard_normal((16, 32)) / 4).astype(np.float32),
        (r.standard_normal((32, 8)) / 6).astype(np.float32),
    )


@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
@pytest.mark.parametrize("preset", ["default", "all"])
def test_compile_run_equals_jax(spine, preset):
    args = _args()
    prog = hj.compile(mlp, *args, spine=spine, config=CompileConfig.preset(preset))
    assert isinstance(prog.source, str) and "markInput" in prog.source and prog.spine == spine
    got = prog.run(*args)
    want = [np.asarray(o) for o in jax.jit(mlp)(*args)]
    assert [g.shape for g in got] == [(4, 8), (4,)]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    for g, w in zip(got, prog.reference(*args)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_compile_from_exported_and_shape_dtype_structs():
    specs = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in _args()]
    exp = jax.export.export(jax.jit(mlp))(*specs)
    prog = hj.compile(exp, spine="stablehlo")
    assert prog.exported is exp
    args = _args(3)
    for g, w in zip(prog.run(*args), jax.jit(mlp)(*args)):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-5, atol=1e-6)
    prog2 = hj.compile(mlp, *specs)
    assert str(prog2.source) == str(hj.compile(mlp, *specs).source)  # deterministic


def test_pytree_arguments_and_bf16():
    def f(params, x):
        return (x @ params["w"]).astype(jnp.bfloat16) * params["b"]

    params = {"w": np.ones((3, 2), np.float32) * 0.5, "b": np.array([1.5, -2.0], jnp.bfloat16)}
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    prog = hj.compile(f, params, x)
    got = prog.run(params, x)  # f returns one array: so does run
    want = np.asarray(jax.jit(f)(params, x))
    assert got.dtype == want.dtype and np.array_equal(got.astype(np.float32), want.astype(np.float32))


def test_write_then_run_from_disk_with_npy_constants(tmp_path):
    table = np.linspace(-3, 3, 1024, dtype=np.float32).reshape(32, 32)  # > 256 elements: an .npy file

    def f(x):
        return jnp.exp(x @ table) / 100

    x = np.random.default_rng(1).standard_normal((2, 32)).astype(np.float32) / 8
    prog = hj.compile(f, x)
    assert prog.files, "the large constant should be a file beside penguin.py"
    path = prog.write(tmp_path / "out")
    assert os.path.basename(path) == "penguin.py"
    # published under content names: const_<K>.<16 hex digits of the bytes' SHA-256>.npy
    on_disk = sorted(re.sub(r"\.[0-9a-f]{16}\.", ".", n) for n in os.listdir(tmp_path / "out"))
    assert on_disk == sorted(["penguin.py", *prog.files])
    (from_disk,) = penguin_ref.run(path, [x])
    in_memory = prog.run(x)
    np.testing.assert_array_equal(from_disk, in_memory)
    np.testing.assert_allclose(from_disk, np.asarray(jax.jit(f)(x)), rtol=1e-5, atol=1e-6)
    # and through the CLI
    np.save(tmp_path / "x.npy", x)
    r = subprocess.run(
        [sys.executable, "-m", "hilo_mlir.tools.penguin_run", path, "--inputs", str(tmp_path / "x.npy"), "--out", str(tmp_path / "res")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "res" / "out0.npy"), in_memory)


def test_errors():
    with pytest.raises(HiloError, match=r"expects a function or a jax.export.Exported"):
        hj.compile(42)
    exp = jax.export.export(jax.jit(jnp.sin))(jax.ShapeDtypeStruct((2,), np.float32))
    with pytest.raises(HiloError, match="example arguments are not used"):
        hj.compile(exp, np.zeros(2, np.float32))
    prog = hj.compile(exp)
    with pytest.raises(HiloError, match="takes 1 input arrays, 2 given"):
        prog.run(np.zeros(2, np.float32), np.zeros(2, np.float32))
    with pytest.raises(HiloError, match="unknown spine"):
        hj.compile(exp, spine="tosa")


def test_compiler_path_never_imports_jax(tmp_path):
    src = tmp_path / "m.mlir"
    src.write_text("""
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}""")
    code = (
        "import sys; import hilo_mlir; from hilo_mlir import penguin_ref; import numpy as np; "
        f"s = hilo_mlir.compile_file({str(src)!r}, spine='stablehlo'); "
        "print(penguin_ref.run(s, [np.zeros(4, np.float32)])[0].tolist()); "
        "assert 'jax' not in sys.modules, 'jax was imported'"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[1.0, 1.0, 1.0, 1.0]"
