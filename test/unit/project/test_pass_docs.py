"""The pass documentation is generated from the registry's declarations (as MLIR's from ``Passes.td``) and current:
``docs/passes.md`` and the README's pass table (``scripts/gen_passes.py``), and ``hilo-opt --help``'s pass
list (through the manifest, ``passmanager/test_pass_manifest.py``)."""

import dataclasses
import io
import re
import subprocess
import sys
from contextlib import redirect_stdout

from conftest import ROOT

from hilo_mlir.passmanager import registry


def _gen_passes():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import gen_passes
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    return gen_passes


def _readme_block() -> str:
    text = (ROOT / "README.md").read_text()
    return text.split("<!-- BEGIN GENERATED: passes -->\n", 1)[1].split("<!-- END GENERATED: passes -->", 1)[0]


def test_pass_reference_is_current():
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_passes.py"), "--check"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_pass_is_described_by_its_declaration():
    info = registry.get("canonicalize-for-tensorizer")
    assert info.doc.startswith("CanonicalizeForTensorizer: eight semantics-preserving rewrites")  # its function's docstring
    text = (ROOT / "docs" / "passes.md").read_text()
    section = text.split("## `canonicalize-for-tensorizer`\n", 1)[1].split("\n## ", 1)[0]
    assert "Runs at: MHLO step 27." in section and info.summary in section and info.doc in section
    assert "`slice-full`" in section  # a declared statistic


def test_readme_rows_are_the_declarations():
    rows = [line for line in _readme_block().splitlines() if line.startswith("| `")]
    by_arg = {re.match(r"\| `([^`]+)`", r).group(1): r for r in rows}  # type: ignore[union-attr]
    assert by_arg["fold-iota"] == f"| `fold-iota` | 16 (`fold-iota`) | {registry.get('fold-iota').summary} |"
    assert by_arg["call-inliner"].startswith("| `call-inliner` | pre (`call-inliner`, on) | ")
    assert by_arg["legalize-sra"].startswith("| `legalize-sra` | 26a | ")
    assert by_arg["remove-opt-barriers"].startswith("| `remove-opt-barriers` (alias `remove-optimization-barriers`) | 8 (")
    assert by_arg["canonicalize-for-tensorizer"].startswith("| `canonicalize-for-tensorizer` (twin `canonicalize-for-penguin`) | 27 |")
    assert "| 15 (`op-fusion`; options `fuse-dot-logistic`, `general-elementwise-fusion`) |" in by_arg["neuron-op-fusion"]
    # Every built-in pass of ours is a row, or the StableHLO twin of one.
    named = set(by_arg) | {t for r in rows for t in re.findall(r"twin `([^`]+)`", r)}
    for p in registry.all_passes(plugins=False):
        if p.origin or p.upstream:
            continue
        assert p.argument in named or p.argument.removeprefix("stablehlo-") in named, p.argument


def test_a_changed_summary_makes_the_pages_stale(monkeypatch):
    gen = _gen_passes()
    info = registry.get("fold-iota")
    monkeypatch.setitem(registry._REGISTRY, "fold-iota", dataclasses.replace(info, summary="Fold something else"))
    table = gen.readme_table()
    assert "| `fold-iota` | 16 (`fold-iota`) | Fold something else |" in table
    assert table + "\n" != _readme_block()
    assert gen.render() != (ROOT / "docs" / "passes.md").read_text()


def test_opt_help_shows_the_declared_summaries():
    from hilo_mlir.tools import opt

    buf = io.StringIO()
    with redirect_stdout(buf):
        assert opt.run(["--help"]) in (0, None)
    for argument in ("fold-iota", "stablehlo-fold-iota", "neuron-op-fusion", "hilo-import", "canonicalize"):
        assert f"  --{argument:<40} {registry.get(argument).summary} [" in buf.getvalue(), argument


def test_hilo2penguin_gate_help_shows_what_each_gate_turns_on():
    from hilo_mlir.tools.opt_help import gate_help

    fold = registry.get("fold-iota").summary
    assert gate_help("fold_iota", False) == f"turn 'fold-iota' on (default off): step 16, fold-iota: {fold}"
    remat = registry.get("rematerialize").summary
    assert gate_help("cross_pass_tensors", False).endswith(f"; step 10, rematerialize: {remat}")
    fusion = registry.get("neuron-op-fusion").summary
    assert gate_help("fuse_dot_logistic", False) == (
        f"turn 'fuse-dot-logistic' on (default off): step 15, neuron-op-fusion option fuse-dot-logistic: {fusion}"
    )
    assert gate_help("call_inliner", True).startswith("turn 'call-inliner' on (default on): before the spine, call-inliner: ")
