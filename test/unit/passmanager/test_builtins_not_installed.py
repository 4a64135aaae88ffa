"""A fresh process that reaches the pass store without the front end: the checker and testing load the
built-in passes themselves; any other caller gets an unknown-pass error that says what to import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

MODULE = """
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)


def test_testing_run_passes_loads_the_built_in_passes():
    r = _python(f"from hilo_mlir.testing import run_passes\nprint(run_passes({MODULE!r}, 'stablehlo-widen-float-to-f64')[0])")
    assert r.returncode == 0, r.stderr
    assert "stablehlo.add %arg0, %arg0 : tensor<2xf64>" in r.stdout


def test_checker_truth_loads_the_built_in_passes():
    r = _python(f"from hilo_mlir.checker import evaluate\nprint(evaluate.widened({MODULE!r}))")
    assert r.returncode == 0, r.stderr
    assert "tensor<2xf64>" in r.stdout


def test_store_alone_says_to_import_the_front_end():
    r = _python(
        "from hilo_mlir.passmanager.pipeline import Pipeline\n"
        "from hilo_mlir.support.diagnostics import HiloError\n"
        "try:\n    Pipeline.from_text('builtin.module(fold-iota)')\n"
        "except HiloError as e:\n    print(e.message)\n"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout == (
        "unknown pass 'fold-iota'; the built-in passes are not loaded in this process: import hilo_mlir.passes first "
        "(pass pipeline column 16)\n"
    )
