"""Helpers shared by the per-pass semantics tests (``transforms/<family>/test_<pass>.py``; no tests here).

Each runs a pass through the real pipeline executor (verifier after the pass)
and compares ``main`` before and after with the StableHLO reference interpreter
(:func:`hilo_mlir.testing.evaluate`).
"""

from __future__ import annotations

import numpy as np

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passmanager.pipeline import Pipeline, module_to_text
from hilo_mlir.testing import evaluate, random_inputs

#: the passes of spine steps 16-25 (each also has its ``stablehlo-`` twin)
MINE = [
    "fold-iota",
    "schedule-postorder",
    "analyze-schedule",
    "replace-token-type-with-u8",
    "scatter-motion",
    "schedule-fusion",
    "hoist-compute",
    "memcast-motion",
    "prune-functions",
    "sixty-four-hack",
]


def check_same(before: str, after: str, seed: int = 0, rtol: float | None = None, inputs=None):
    """Results of ``main`` before and after: same dtypes and shapes; bit-identical (``rtol`` None) or
    within ``rtol`` (relative and absolute). Inputs: ``inputs``, else seeded random ones. Returns both."""
    ctx = make_context()
    with ctx:
        m = ir.Module.parse(before)
        ins = inputs if inputs is not None else random_inputs(m, seed)
    a = evaluate(before, ins)
    b = evaluate(after, ins)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and x.shape == y.shape
        if rtol is None:
            np.testing.assert_array_equal(x.view(np.uint8), y.view(np.uint8))
        else:
            np.testing.assert_allclose(x, y, rtol=rtol, atol=rtol)
    return a, b


def run(text: str, pipeline: str, stats: bool = False):
    """Run a textual pipeline on ``text``; returns the printed module (and the stats)."""
    with make_context():
        m = ir.Module.parse(text)
        p = Pipeline.from_text(f"builtin.module({pipeline})")
        p.run(m)
        out = module_to_text(m)
    return (out, p.stats) if stats else out


def inputs_for(text: str, seed: int = 0):
    """Seeded random inputs for ``main`` of ``text``."""
    with make_context():
        return random_inputs(ir.Module.parse(text), seed=seed)


def assert_same(before: str, after: str, seed: int = 0):
    """Reference-interpreter results of ``main`` are bit-identical before and after."""
    inp = inputs_for(before, seed)
    a, b = evaluate(before, inp), evaluate(after, inp)
    bit_equal(a, b)


def both(pass_arg: str) -> list[str]:
    """The StableHLO twin, and the MHLO pass after legalizing to mhlo."""
    return [f"stablehlo-{pass_arg}", f"stablehlo-legalize-to-hlo,{pass_arg}"]


def bit_equal(a, b):
    """Two result lists hold the same dtypes, shapes and bits."""
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_array_equal(np.ascontiguousarray(x).view(np.uint8), np.ascontiguousarray(y).view(np.uint8))
