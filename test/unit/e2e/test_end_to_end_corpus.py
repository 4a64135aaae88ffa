"""Issue 5 "Done when": every JAX corpus module, compiled in both spines with the default gates and with
``--preset all``, gives ``penguin.py`` whose numbers (run by the numpy reference backend) equal JAX's.

* Modules: ``../shared/corpus/jax/*.stablehlo.mlir`` and ``*.hlo.pb`` except ``decoder_stack_L64`` /
  ``decoder_stack_L512`` (size); one test id per (module, spine, preset).
* JAX's output: the input module run on XLA CPU (``hilo_mlir.testing.evaluate_xla``), which is what
  ``jax.jit`` of the exported function runs.
* Inputs: ``hilo_mlir.testing.random_inputs(seed=0)`` (floats N(0, 1)), with rank-2 float inputs (the
  weight matrices of these models) scaled by 1/sqrt(fan-in) as initialised models are. Without the
  scaling the 64-wide decoder's activations reach ~3e3 and f32 round-off alone breaks the tolerance:
  XLA and the StableHLO reference interpreter then differ from each other by 0.04.
* Tolerances (measured; see TOLERANCES): f32 ``|d| <= 1e-6 + 1e-5 |ref|`` (the issue's), except
  decoder_stack_L4 where the atol is 1e-5: four stacked layers put XLA's own f32 summation order at
  ~2e-6 from any other (XLA vs the StableHLO interpreter: up to 1.7e-6 over the atol on seeds 1-3).
  bf16: ``|d| <= 2^-6 * max|ref|`` (four bf16 ulps of the largest output); measured worst over 30 seeds
  0.0011 * max|ref| with the default gates and 0.0095 * max|ref| with ``--preset all`` (raise-logistic
  turns JAX's ``1/(1+exp(-x))`` into one ``logistic``: one bf16 rounding instead of three, which the
  final 256-term bf16 dot amplifies). Against XLA run on the *compiled* IR the backend is within
  0.0003 * max|ref| (checked too, with 2^-8).
"""

from __future__ import annotations

import functools
import glob
import os

import numpy as np
import pytest
from conftest import CORPUS

#: The spine tests run with the analysis checking mode on (see conftest.py).
pytestmark = pytest.mark.check_analyses

JAX_DIR = CORPUS / "jax"
SKIP = ("decoder_stack_L64", "decoder_stack_L512")


def _modules() -> list[str]:
    names = sorted(
        os.path.basename(p) for p in glob.glob(str(JAX_DIR / "*")) if p.endswith((".mlir", ".pb")) and not any(s in p for s in SKIP)
    )
    return names or ["<corpus missing>"]


MODULES = _modules()
F32_TOL = (1e-5, 1e-6)
TOLERANCES = {"decoder_stack_L4.stablehlo.mlir": (1e-5, 1e-5)}
BF16_REL_MAX = 2.0**-6


def scaled_inputs(module, seed: int = 0) -> list:
    from hilo_mlir.testing import random_inputs

    out = []
    for a in random_inputs(module, seed=seed):
        if a.ndim == 2 and (a.dtype.kind == "f" or a.dtype.name == "bfloat16"):
            a = (a.astype(np.float32) / np.sqrt(a.shape[0])).astype(a.dtype)
        out.append(a)
    return out


@functools.cache
def reference(name: str):
    """(inputs, JAX/XLA outputs) for a corpus module, computed once per session."""
    from hilo_mlir.driver.compiler import load_module
    from hilo_mlir.testing import evaluate_xla

    path = JAX_DIR / name
    lm = load_module(path.read_bytes(), str(path))
    ins = scaled_inputs(lm.module)
    return ins, evaluate_xla(str(lm.module), ins)


def assert_matches(got, want, name, what):
    assert len(got) == len(want), f"{what}: {len(got)} outputs, JAX has {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype and g.shape == w.shape, f"{what} output {i}: {g.dtype}{g.shape} vs {w.dtype}{w.shape}"
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        d = np.abs(g64 - w64)
        if w.dtype.name == "bfloat16":
            bound = BF16_REL_MAX * np.max(np.abs(w64))
            assert np.nanmax(d) <= bound, f"{what} output {i}: max |d| {np.nanmax(d)} > {bound}"
        else:
            rtol, atol = TOLERANCES.get(name, F32_TOL)
            bad = ~(d <= atol + rtol * np.abs(w64)) & ~(np.isnan(g64) & np.isnan(w64))
            assert not bad.any(), f"{what} output {i}: {int(bad.sum())} elements outside rtol={rtol} atol={atol}; max |d| {np.nanmax(d)}"


@pytest.mark.parametrize("preset", ["default", "all"])
@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
@pytest.mark.parametrize("name", MODULES)
def test_penguin_equals_jax(name, spine, preset):
    if name == "<corpus missing>" or not (JAX_DIR / name).exists():
        pytest.skip(f"../shared/corpus/jax not available ({JAX_DIR})")
    from hilo_mlir import CompileConfig, compile_file, penguin_ref

    ins, want = reference(name)
    src = compile_file(JAX_DIR / name, config=CompileConfig.preset(preset), spine=spine)
    got = penguin_ref.run(src, ins, files=src.files)
    assert_matches(got, want, name, f"{name} [{spine}, {preset}]")


@pytest.mark.parametrize("preset", ["default", "all"])
@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
def test_bf16_program_equals_xla_on_the_compiled_ir(spine, preset):
    """The backend executes what the compiled MLIR means: bf16 within 2^-8 * max|ref| of XLA on that IR."""
    name = "swiglu_mlp_bf16.stablehlo.mlir"
    if not (JAX_DIR / name).exists():
        pytest.skip("corpus not available")
    from hilo_mlir import CompileConfig, penguin_ref
    from hilo_mlir.driver.compiler import compile_loaded, load_module
    from hilo_mlir.testing import evaluate_xla

    ins, _ = reference(name)
    lm = load_module((JAX_DIR / name).read_bytes(), name)
    src = compile_loaded(lm, CompileConfig.preset(preset).replace(stablehlo=spine == "stablehlo"))
    with lm.context:
        final = str(lm.module)
    want = evaluate_xla(final, ins)
    (got,) = penguin_ref.run(src, ins, files=src.files)
    d = np.abs(got.astype(np.float64) - want[0].astype(np.float64))
    assert got.dtype == want[0].dtype and d.max() <= 2.0**-8 * np.abs(want[0].astype(np.float64)).max()
