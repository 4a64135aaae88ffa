"""--run-reproducer of a pipeline naming a plugin's pass: without the plugin, one error that says to load it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PLUGIN = ROOT / "examples" / "plugins" / "dissolve_small_fusions.py"

REPRO = """module {
  func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.tanh %a : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

{-#
  external_resources: {
    mlir_reproducer: {
      pipeline: "builtin.module(stablehlo-dissolve-small-fusions{max-ops=2})",
      disable_threading: true,
      verify_each: true
    }
  }
#-}
"""


def _opt(*argv):
    return subprocess.run([sys.executable, "-m", "hilo_mlir.tools.opt", *argv], capture_output=True, text=True, cwd=ROOT)


def test_unknown_plugin_pass_in_reproducer_says_load_the_plugin(tmp_path):
    f = tmp_path / "repro.mlir"
    f.write_text(REPRO)
    r = _opt(str(f), "--run-reproducer")
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.count("\n") == 1
    assert r.stderr.startswith("hilo-opt: error: --run-reproducer: unknown pass 'stablehlo-dissolve-small-fusions' ")
    assert r.stderr.endswith("(pass pipeline column 16); if a plugin registers it, add --load-pass-plugin=PATH_OR_MODULE\n")


def test_reproducer_replays_with_the_plugin_loaded(tmp_path):
    f = tmp_path / "repro.mlir"
    f.write_text(REPRO)
    r = _opt(str(f), "--run-reproducer", f"--load-pass-plugin={PLUGIN}")
    assert r.returncode == 0, r.stderr
    assert "stablehlo.tanh %arg0 : tensor<4xf32>" in r.stdout and "mlir_reproducer" not in r.stdout
