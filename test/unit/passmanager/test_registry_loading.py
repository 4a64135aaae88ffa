"""The registry is a store below the passes; ``hilo_mlir.passes`` installs the built-in ones into it.

Each case runs in a fresh interpreter (the suite's own process has the built-in passes loaded).
"""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import ROOT

from hilo_mlir.passmanager import registry


def _run(code: str) -> list[str]:
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout.split()


def _built_in() -> int:
    with open(registry.MANIFEST, encoding="utf-8") as f:
        return len(json.load(f)["passes"])


def test_the_store_alone_loads_no_pass():
    code = (
        "import sys; from hilo_mlir.passmanager import registry\n"
        "print(len(registry.all_passes(plugins=False)), registry.lookup('fold-iota') is None,"
        " any(m.startswith('hilo_mlir.passes') for m in sys.modules))"
    )
    assert _run(code) == ["0", "True", "False"]


def test_importing_the_front_end_loads_the_families_on_first_lookup():
    code = (
        "import sys; from hilo_mlir import passes\n"
        "print('hilo_mlir.passes.legalization.fold_iota' in sys.modules, 'jaxlib.mlir' in sys.modules)\n"
        "from hilo_mlir.passmanager import registry\n"  # the store's own lookups now see them too
        "print(registry.lookup('fold-iota').argument, len(passes.all_passes(plugins=False)))"
    )
    assert _run(code) == ["False", "False", "fold-iota", str(_built_in())]


def test_the_public_registry_path_finds_the_built_in_passes():
    # README "Python API": ``from hilo_mlir import registry; registry.get("neuron-op-fusion")``
    code = "from hilo_mlir import registry; print(registry.get('neuron-op-fusion').class_name, len(registry.all_passes(plugins=False)))"
    assert _run(code) == ["NeuronOpFusion", str(_built_in())]


def test_a_plugin_loaded_through_the_api_sees_the_built_in_passes_first(tmp_path):
    # a plugin that imports a built-in pass module: that module's passes stay built in (origin '')
    plugin = tmp_path / "my_plugin.py"
    plugin.write_text(
        "from hilo_mlir.passes.legalization import fold_iota  # noqa: F401\n"
        "from hilo_mlir import PassInfo, register\n"
        "register(PassInfo('my-noop', 'does nothing', lambda op, ctx: None))\n"
    )
    code = (
        f"import hilo_mlir; infos = hilo_mlir.load_plugin({str(plugin)!r})\n"
        "from hilo_mlir.passmanager import registry\n"
        "print([i.argument for i in infos], repr(registry.lookup('fold-iota').origin))"
    )
    assert _run(code) == ["['my-noop']", "''"]
