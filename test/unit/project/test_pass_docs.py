"""docs/passes.md is generated from the registry's declarations (scripts/gen_passes.py) and current."""

import subprocess
import sys

from conftest import ROOT


def test_pass_reference_is_current():
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_passes.py"), "--check"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_pass_is_described_by_its_declaration():
    from hilo_mlir.passmanager import registry

    info = registry.get("canonicalize-for-tensorizer")
    assert info.doc.startswith("CanonicalizeForTensorizer: eight semantics-preserving rewrites")  # its function's docstring
    text = (ROOT / "docs" / "passes.md").read_text()
    section = text.split("## `canonicalize-for-tensorizer`\n", 1)[1].split("\n## ", 1)[0]
    assert "Runs at: MHLO step 27." in section and info.summary in section and info.doc in section
    assert "`slice-full`" in section  # a declared statistic
