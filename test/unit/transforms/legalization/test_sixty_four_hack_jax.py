"""Dropout with JAX's default PRNG (threefry, partitionable) through hilo2penguin under the default gates.

The counter threefry splits is a ``ui64`` built from iotas and split with
``shift_right_logical(ctr, 32)``; the range analysis proves it below 2^32, so
``sixty-four-hack`` (on by default) narrows it instead of refusing. A small
MLP training step with dropout (``jax.value_and_grad``, exported with
``jax.export``) then compiles on both spines and its ``penguin.py``, run by
the reference backend, equals JAX on the same key: the dropout mask exactly,
the loss and updated parameters to float rounding.
"""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from hilo_mlir import CompileConfig  # noqa: E402
from hilo_mlir import jax as hj  # noqa: E402

RATE = 0.25


def loss(params, x, y, key):
    w1, b1, w2, b2 = params
    h = jax.nn.relu(x @ w1 + b1)
    keep = jax.random.bernoulli(key, 1.0 - RATE, h.shape)
    h = jnp.where(keep, h / (1.0 - RATE), 0.0)
    return jnp.mean((h @ w2 + b2 - y) ** 2)


def train_step(params, x, y, key_data):
    key = jax.random.wrap_key_data(key_data)  # the default implementation: threefry2x32
    value, grads = jax.value_and_grad(loss)(params, x, y, key)
    return value, tuple(p - 0.1 * g for p, g in zip(params, grads))


def dropout_mask(key_data):
    return jax.random.bernoulli(jax.random.wrap_key_data(key_data), 1.0 - RATE, (8, 16))


def _args(seed=0):
    r = np.random.default_rng(seed)
    params = (
        (r.standard_normal((8, 16)) / 3).astype(np.float32),
        np.zeros(16, np.float32),
        (r.standard_normal((16, 4)) / 4).astype(np.float32),
        np.zeros(4, np.float32),
    )
    return params, r.standard_normal((4, 8)).astype(np.float32), r.standard_normal((4, 4)).astype(np.float32)


def _key(seed):
    return np.asarray(jax.random.key_data(jax.random.key(seed)))


def test_the_prng_is_threefry_partitionable():
    assert str(jax.random.key_impl(jax.random.key(0))) == "threefry2x32"
    text = jax.export.export(jax.jit(dropout_mask))(_key(0)).mlir_module()
    assert "stablehlo.shift_right_logical" in text and "xui64>" in text  # the 64-bit counter split


@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
def test_dropout_mask_equals_jax_exactly(spine):
    exp = jax.export.export(jax.jit(dropout_mask))(_key(0))
    prog = hj.compile(exp, spine=spine, config=CompileConfig())
    proven = sum(s.get("width-dependent-ops-proven", 0) for s in prog.statistics.values())
    assert proven >= 1
    for seed in (0, 1, 7):
        got = prog.run(_key(seed))  # one array, as dropout_mask returns
        want = np.asarray(dropout_mask(_key(seed)))
        assert got.dtype == np.bool_ and np.array_equal(got, want)
        assert 0.5 < want.mean() < 0.95  # a real mask


@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
def test_training_step_with_dropout_equals_jax(spine):
    params, x, y = _args()
    exp = jax.export.export(jax.jit(train_step))(params, x, y, _key(0))
    prog = hj.compile(exp, spine=spine, config=CompileConfig())
    for seed in (0, 3):
        got = jax.tree_util.tree_leaves(prog.run(params, x, y, _key(seed)))  # run keeps train_step's structure
        want = [np.asarray(w) for w in jax.tree_util.tree_leaves(jax.jit(train_step)(params, x, y, _key(seed)))]
        assert len(got) == len(want) == 5
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    # Another key gives another mask, hence another loss: the key really flows through.
    loss = [jax.tree_util.tree_leaves(prog.run(params, x, y, _key(k)))[0] for k in (0, 3)]
    assert not np.allclose(loss[0], loss[1])


@pytest.mark.parametrize("spine", [pytest.param("mhlo", marks=pytest.mark.slow), "stablehlo"])
def test_hilo2penguin_cli_compiles_the_exported_step(spine, tmp_path):
    """The user's path: ``hilo2penguin step.mlir -o out [--spine stablehlo]`` with the default gates, then penguin.py."""
    import subprocess
    import sys

    from hilo_mlir import penguin_ref

    params, x, y = _args(1)
    src = tmp_path / "step.mlir"
    src.write_text(jax.export.export(jax.jit(train_step))(params, x, y, _key(0)).mlir_module())
    r = subprocess.run(
        [sys.executable, "-m", "hilo_mlir.tools.hilo2penguin", str(src), "-o", str(tmp_path / "out"), "--spine", spine],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    got = penguin_ref.run(str(tmp_path / "out" / "penguin.py"), [*params, x, y, _key(5)])
    want = jax.tree_util.tree_leaves(jax.jit(train_step)(params, x, y, _key(5)))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-5, atol=1e-6)
