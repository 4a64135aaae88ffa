"""docs/provenance.md's generated tables (pass -> source, gate -> where the binary keeps it) match the code."""

import subprocess
import sys

from conftest import ROOT


def test_generated_provenance_tables_are_current():
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_provenance.py"), "--check"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
