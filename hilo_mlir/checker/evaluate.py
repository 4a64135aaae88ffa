"""The three runs ``hilo-check`` compares: XLA CPU, the f64 truth, and ``penguin.py`` on the reference backend.

* :func:`run_xla`: the module (mhlo or stablehlo; our fusions and composites
  inlined by :func:`hilo_mlir.testing.to_evaluable`) on XLA CPU through jax
  (:func:`hilo_mlir.testing.evaluate_xla`: the tests' oracle, one implementation).
* :func:`run_truth`: the same module after ``stablehlo-widen-float-to-f64``
  (every f32/bf16/f16/f8 type widened to f64, constants converted exactly), on
  XLA CPU with jax's x64 mode on, inputs converted exactly to f64.
* :func:`run_penguin`: the compile's ``penguin.py`` on :mod:`hilo_mlir.penguin_ref`.

Every failure is a :class:`~hilo_mlir.checker.errors.CheckError` (exit 2): the
check could not be made.
"""

from __future__ import annotations

import numpy as np

from hilo_mlir.checker.errors import CheckError
from hilo_mlir.support.diagnostics import HiloError


def _one_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    head = next((ln for ln in text if ln.strip()), type(e).__name__)
    return head[:400]


def evaluable(text: str) -> str:
    """``text`` as plain stablehlo (fusions and composites inlined, mhlo legalized).

    Raises:
        CheckError: a module the legalization refuses.
    """
    from hilo_mlir.ir import ir, make_context
    from hilo_mlir.testing import to_evaluable

    try:
        with make_context() as ctx, ir.Location.unknown():
            return str(to_evaluable(text, ctx))
    except (ir.MLIRError, HiloError, RuntimeError, ValueError) as e:
        raise CheckError(f"cannot bring the module to plain stablehlo for XLA: {_one_line(e)}") from None


def widened(text: str) -> str:
    """The f64 truth module of ``text`` (plain stablehlo): ``stablehlo-widen-float-to-f64`` applied.

    Raises:
        CheckError: the widening fails (e.g. an op whose verifier rejects f64).
    """
    from hilo_mlir.testing import run_passes

    try:
        out, _ = run_passes(text, "stablehlo-widen-float-to-f64")
        return out
    except (HiloError, RuntimeError, ValueError) as e:
        raise CheckError(f"cannot build the f64 truth: {_one_line(e)}") from None


def run_xla(text: str, inputs: list, what: str = "the input module") -> list[np.ndarray]:
    """Run ``text`` (plain stablehlo) on XLA CPU; returns ``main``'s results.

    Raises:
        CheckError: XLA cannot compile or run it (an unsupported custom call, ...).
    """
    from hilo_mlir.testing import evaluate_xla

    try:
        return [np.asarray(o) for o in evaluate_xla(text, inputs)]
    except Exception as e:  # noqa: BLE001 - jax raises its own runtime error types
        raise CheckError(f"XLA cannot run {what}: {_one_line(e)}") from None


def to_f64(x: np.ndarray) -> np.ndarray:
    """``x`` as f64 (complex128 for complex) when it is a float narrower than that; exact. Others unchanged."""
    x = np.asarray(x)
    if np.issubdtype(x.dtype, np.complexfloating):
        return x.astype(np.complex128)
    if np.issubdtype(x.dtype, np.floating) or x.dtype.kind == "V" or "float" in str(x.dtype):
        return x.astype(np.float64)
    return x


def run_truth(truth_text: str, inputs: list) -> list[np.ndarray]:
    """Run the widened module (see :func:`widened`) on ``inputs`` converted exactly to f64."""
    return run_xla(truth_text, [to_f64(x) for x in inputs], what="the f64 truth")


def run_penguin(source, inputs: list) -> list[np.ndarray]:
    """Run ``penguin.py`` (a :class:`~hilo_mlir.driver.compiler.PenguinSource`) on the reference backend.

    Raises:
        CheckError: the backend cannot run a statement of the program.
    """
    from hilo_mlir import penguin_ref

    try:
        return [np.asarray(o) for o in penguin_ref.run(source, list(inputs), files=getattr(source, "files", None))]
    except (HiloError, ValueError, TypeError, KeyError, NotImplementedError) as e:
        raise CheckError(f"the reference backend cannot run penguin.py: {_one_line(e)}") from None
