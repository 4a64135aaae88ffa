"""The pass manifest (hilo_mlir/passes/manifest.json) is what the live registry says.

``hilo-opt --help`` lists the passes from the manifest so that it does not
import every pass and the MLIR bindings; this test is its checking mode.
"""

import json
import subprocess
import sys

from hilo_mlir.passmanager import registry


def test_manifest_equals_the_live_registry():
    with open(registry.MANIFEST, encoding="utf-8") as f:
        stored = json.load(f)["passes"]
    live = json.loads(json.dumps([registry.describe(p) for p in registry.all_passes() if not p.origin]))
    assert stored == live, "hilo_mlir/passes/manifest.json is stale: run 'python3 -m hilo_mlir.passes'"


def test_help_lists_every_pass_without_importing_the_bindings():
    code = (
        "import sys, io, contextlib; from hilo_mlir.tools import opt; buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf): opt.run(['--help'])\n"
        "print('jaxlib.mlir' in sys.modules); print(buf.getvalue())"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    first, _, text = r.stdout.partition("\n")
    assert first == "False"
    for p in registry.all_passes():
        if p.origin:  # the test-only passes of test/lib are not built in
            continue
        assert f"--{p.argument} " in text
