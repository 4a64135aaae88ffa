"""``--help`` lists what is accepted, fast, and user-facing text has no internal references.

* every upstream pass the binding registers is in ``hilo-opt --help`` with its
  options (the table in ``hilo_mlir/passes/upstream_passes.json`` is held equal
  to the binding here; ``-m slow`` also re-discovers the binding's passes);
* ``--help`` imports neither a pass nor the bindings;
* ``--help`` of both tools, their usage errors and the README's usage sections
  show no binary addresses, issue, decision or seed numbers.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT

from hilo_mlir.passes import upstream
from hilo_mlir.passmanager import registry, upstream_catalog

ENV = dict(os.environ, PYTHONPATH=str(ROOT))


def _run(*args):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=ENV, cwd=ROOT)


@pytest.fixture(scope="module")
def opt_help() -> str:
    r = _run("-m", "hilo_mlir.tools.opt", "--help")
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_every_upstream_pass_is_listed_with_its_options(opt_help):
    entries = upstream.load_entries()
    assert len(entries) > 90
    for e in entries:
        assert f"--{e['argument']} " in opt_help, e["argument"]
    for required in (
        "canonicalize",
        "cse",
        "inline",
        "symbol-dce",
        "sccp",
        "chlo-legalize-to-stablehlo",
        "hlo-legalize-to-stablehlo",
        "stablehlo-legalize-to-hlo",
        "stablehlo-legalize-to-vhlo",
        "vhlo-legalize-to-stablehlo",
        "stablehlo-refine-shapes",
        "stablehlo-refine-arguments",
        "stablehlo-canonicalize-dynamism",
    ):
        assert f"--{required} " in opt_help
    block = opt_help.split("--canonicalize ", 1)[1].split("\n  --", 1)[0]
    assert "max-iterations=int" in block and "(default 10)" in block and "region-simplify=str" in block


def test_the_upstream_table_is_what_the_binding_says():
    """Checking mode of the generated table: anchor, scalar options and defaults, class name."""
    for e in upstream.load_entries():
        live = upstream_catalog.probe(e["argument"])
        assert live is not None, f"{e['argument']}: no longer registered by the binding"
        assert live["anchor"] == e["anchor"], e["argument"]
        opts = upstream_catalog.scalar_options(live["printed"], e["argument"], e["anchor"])
        assert (opts is None) == e["pipeline"], e["argument"]
        if opts is not None:
            assert opts == e["options"], e["argument"]


def test_declared_list_options_are_accepted_by_the_binding():
    from hilo_mlir.ir.binding import make_context, passmanager

    samples = {"op-pipelines": "func.func(cse)", "types": "tensor<f32>"}
    with make_context():
        for arg, opts in upstream.LIST_OPTIONS.items():
            anchor = next(e["anchor"] for e in upstream.load_entries() if e["argument"] == arg)
            for name, _help in opts:
                text = f"{arg}{{{name}={{{samples.get(name, 'x')}}}}}"
                passmanager.PassManager.parse(f"builtin.module({text if anchor == 'builtin.module' else f'func.func({text})'})")


def test_class_names_are_the_binding_ir_printer_names():
    for arg in ("cse", "canonicalize", "chlo-legalize-to-stablehlo"):
        entry = next(e for e in upstream.load_entries() if e["argument"] == arg)
        assert entry["class_name"] == upstream_catalog.class_name(arg, entry["anchor"])


@pytest.mark.slow
def test_no_upstream_pass_of_the_binding_is_missing():
    found = {e["argument"] for e in upstream_catalog.discover()}
    assert found == {e["argument"] for e in upstream.load_entries()}


def test_bad_option_names_the_valid_ones():
    r = _run("-m", "hilo_mlir.tools.opt", "--pass-pipeline=builtin.module(canonicalize{max-iteration=3})", "-")
    assert r.returncode == 1
    assert (
        "pass 'canonicalize' has no option 'max-iteration' (options: cse-between-iterations, disable-patterns, "
        "enable-patterns, max-iterations,"
    ) in r.stderr
    r = _run("-m", "hilo_mlir.tools.opt", "--pass-pipeline=builtin.module(fold-iota{max=3})", "-")
    assert "pass 'fold-iota' has no option 'max' (options: max-elements)" in r.stderr


def test_help_imports_no_pass_and_no_binding():
    code = (
        "import sys, io, contextlib\nfrom hilo_mlir.tools import opt\nbuf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf): opt.run(['--help'])\n"
        "bad = sorted(m for m in sys.modules if m.startswith(('jaxlib', 'jax', 'hilo_mlir.passes', 'numpy')))\n"
        "print(bad)"
    )
    r = _run("-c", code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


_INTERNAL = re.compile(r"@0x[0-9a-fA-F]+|\bissue \d+|\bdecision \d+|\bseed \d+|\bqword_|\bcfg\[0x", re.I)


def test_help_and_usage_errors_have_no_internal_references(opt_help):
    texts = {"hilo-opt --help": opt_help}
    r = _run("-m", "hilo_mlir.tools.hilo2penguin", "--help")
    texts["hilo2penguin --help"] = r.stdout
    texts["usage error"] = _run("-m", "hilo_mlir.tools.hilo2penguin", "--enable-op").stderr
    texts["list-spine"] = _run("-m", "hilo_mlir.tools.hilo2penguin", "--list-spine").stdout
    for name, text in texts.items():
        assert text.strip(), name
        assert not _INTERNAL.search(text), f"{name}: {_INTERNAL.search(text).group(0)!r}"


def test_readme_usage_sections_have_no_internal_references():
    readme = (ROOT / "README.md").read_text()
    start = readme.index("## Using it")
    end = readme.index("## Layout")
    section = readme[start:end]
    assert not _INTERNAL.search(section), _INTERNAL.search(section).group(0)


def test_pass_summaries_and_options_have_no_internal_references():
    for p in registry.descriptions():
        text = json.dumps([p["summary"], [o["help"] for o in p["options"]]])
        assert not _INTERNAL.search(text), (p["argument"], _INTERNAL.search(text).group(0))
