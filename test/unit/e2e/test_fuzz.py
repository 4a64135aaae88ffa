"""Fuzzing the whole spine with --preset all (issue 6): no crash, verifier clean, output parses, numbers agree.

The strategy is :func:`hilo_mlir.testing.fuzz.modules` (random elementwise / reduce /
dot_general / concatenate / transpose / broadcast / slice / select graphs with
random dtypes and fan-out, in stablehlo and in mhlo). Each example is compiled
by both spines with every gate on; the Penguin program must be valid Python
and, run by the numpy reference backend (``hilo_mlir.penguin_ref``), give the
numbers the StableHLO reference interpreter gives on the input module.

Sizes: the default suite runs ``HILO_FUZZ_CI`` examples (default 60, about a
minute on 2 cores); ``-m slow`` runs ``HILO_FUZZ_NIGHTLY`` (default 400).
Regression cases found by the fuzzer are pinned below (``REGRESSIONS``).
"""

import ast
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hilo_mlir import testing
from hilo_mlir.driver import compiler
from hilo_mlir.driver.config import CompileConfig
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.testing import fuzz

try:
    from hilo_mlir import penguin_ref
except ImportError:  # pragma: no cover - the reference backend is built by another issue
    penguin_ref = None

CI_EXAMPLES = int(os.environ.get("HILO_FUZZ_CI", "60"))
NIGHTLY_EXAMPLES = int(os.environ.get("HILO_FUZZ_NIGHTLY", "400"))
COMBOS = [(d, s) for d in ("stablehlo", "mhlo") for s in ("stablehlo", "mhlo")]


def _inputs(text, seed=0):
    with make_context():
        m = ir.Module.parse(text)
        return testing.random_inputs(m, seed)


def _as_float(a):
    a = np.asarray(a)
    return a.astype(np.float64) if a.dtype.kind == "f" or "float" in str(a.dtype) else a


def check(case_text_stablehlo: str, text: str, spine: str, seed: int = 0) -> None:
    """The properties for one input text (``case_text_stablehlo`` is the oracle's input).

    1. ``--preset all`` compiles (no crash, no rejection, the verifier is
       clean after every pass) and the program is valid Python;
    2. the reference backend's numbers equal the StableHLO interpreter's on the
       input module (exact for integers, :func:`hilo_mlir.testing.fuzz.tolerance` for floats);
    3. the ``--preset all`` program gives bit-identical numbers to the
       ``--preset default`` program (the gated rewrites keep the math).
    """
    cfg = CompileConfig.preset("all")
    src = compiler.compile_module(text, cfg, spine=spine, filename="fuzz.mlir")  # raises on crash / verifier failure
    ast.parse(src)
    if penguin_ref is None:
        return
    inputs = _inputs(case_text_stablehlo, seed)
    expected = testing.evaluate(case_text_stablehlo, inputs)
    got = penguin_ref.run(src, inputs, files=src.files)
    base_src = compiler.compile_module(text, CompileConfig(), spine=spine, filename="fuzz.mlir")
    base = penguin_ref.run(base_src, inputs, files=base_src.files)
    for i, (g, b) in enumerate(zip(got, base)):
        np.testing.assert_array_equal(_as_float(g), _as_float(b), err_msg=f"result #{i}: --preset all differs from the defaults")
    assert len(got) == len(expected)
    for i, (g, e) in enumerate(zip(got, expected)):
        g, e = np.asarray(g), np.asarray(e)
        assert g.shape == e.shape, f"result #{i}: shape {g.shape} != {e.shape}"
        rtol, atol = fuzz.tolerance(e.dtype, case_text_stablehlo)
        if rtol == 0:
            np.testing.assert_array_equal(g, e, err_msg=f"result #{i}")
        else:
            np.testing.assert_allclose(_as_float(g), _as_float(e), rtol=rtol, atol=atol, equal_nan=True, err_msg=f"result #{i}")


def _property(case, combo):
    dialect, spine = combo
    check(case.stablehlo, case.text(dialect), spine)


@settings(max_examples=CI_EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None)
@given(case=fuzz.modules(max_ops=12), combo=st.sampled_from(COMBOS))
def test_fuzz_spine_ci(case, combo):
    _property(case, combo)


@pytest.mark.slow
@settings(max_examples=NIGHTLY_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(case=fuzz.modules(max_ops=24), combo=st.sampled_from(COMBOS))
def test_fuzz_spine_nightly(case, combo):
    _property(case, combo)


def test_strategy_covers_every_kind_and_dtype():
    """The strategy really produces what it promises (over a fixed sample)."""
    kinds, dtypes = set(), set()

    @settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None)
    @given(fuzz.modules())
    def collect(case):
        kinds.update(case.ops)
        dtypes.update(case.dtypes)
        assert "mhlo." in case.mhlo and "stablehlo." not in case.mhlo
        assert case.stablehlo.count("func.func @main") == 1

    collect()
    assert kinds == set(fuzz.KINDS)
    assert dtypes == set(fuzz.DTYPES)


# Inputs the fuzzer found that once failed (each fixed in our code, or kept
# here as the reproducer of a failure in another pass family; see the report).
REGRESSIONS_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "lit", "reliability", "Inputs", "fuzz")
REGRESSIONS = sorted(f for f in os.listdir(REGRESSIONS_DIR) if f.endswith(".mlir")) if os.path.isdir(REGRESSIONS_DIR) else []


@pytest.mark.parametrize("name", REGRESSIONS)
@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
def test_fuzz_regressions(name, spine):
    text = open(os.path.join(REGRESSIONS_DIR, name)).read()
    check(text, text, spine)
