"""The public API surface of ``hilo_mlir``: its names, presets by name, outputs in the function's structure."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT

import hilo_mlir
from hilo_mlir import CompileConfig, HiloError


def test_dir_lists_the_public_names():
    names = dir(hilo_mlir)
    for n in ("compile_file", "compile_module", "CompileConfig", "HiloError", "PenguinSource"):
        assert n in names and n in hilo_mlir.__all__
        assert getattr(hilo_mlir, n) is not None
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        hilo_mlir.nope  # noqa: B018


def test_import_is_lazy():
    code = "import sys, hilo_mlir; print(sorted(m for m in sys.modules if m.startswith(('jax', 'hilo_mlir.'))))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr


MODULE = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}"""


def test_config_may_be_a_preset_name():
    assert hilo_mlir.compile_module(MODULE, config="all") == hilo_mlir.compile_module(MODULE, config=CompileConfig.preset("all"))
    with pytest.raises(HiloError, match="unknown preset 'everything' \\(known: default, all\\)"):
        hilo_mlir.compile_module(MODULE, config="everything")
    with pytest.raises(HiloError, match="config must be a CompileConfig or a preset name"):
        hilo_mlir.compile_module(MODULE, config=3)


jax = pytest.importorskip("jax")


def test_jax_compile_takes_a_preset_name_and_run_returns_the_pytree():
    import jax.numpy as jnp

    from hilo_mlir import jax as hj

    def f(x, w):
        h = x @ w
        return {"act": jnp.tanh(h), "parts": (h, jnp.sum(h))}

    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
    w = np.linspace(-0.5, 0.5, 12, dtype=np.float32).reshape(4, 3)
    prog = hj.compile(f, x, w, config="all")
    got, want = prog.run(x, w), prog.reference(x, w)
    assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(f(x, w))
    assert set(got) == {"act", "parts"} and isinstance(got["parts"], tuple)
    for g, r in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6)
    single = hj.compile(jnp.sin, x).run(x)
    assert isinstance(single, np.ndarray) and single.shape == (2, 4)
    with pytest.raises(HiloError, match="unknown preset 'max'"):
        hj.compile(f, x, w, config="max")
