"""``hilo-check``: does a compile keep the model's numbers? (README "Checking a compile").

:func:`check` compiles a model, runs ``penguin.py`` on the reference backend,
the input module on XLA CPU and an f64 truth (the module widened to f64 by
``stablehlo-widen-float-to-f64``), and judges every output: as accurate as
XLA, or less accurate (:mod:`hilo_mlir.checker.verdict`). A less-accurate
output is bisected to the spine pass, then the fusion cluster, that caused it
(:mod:`hilo_mlir.checker.bisect`). This package imports ``jax`` (XLA is one of
its oracles); the compiler path never imports it.
"""

from hilo_mlir.checker.core import CheckResult, check, check_data
from hilo_mlir.checker.errors import CheckError

__all__ = ["CheckError", "CheckResult", "check", "check_data"]
