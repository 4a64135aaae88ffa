"""The reliability suite (scripts/reliability.py): a sample in every run, the full campaign behind ``-m slow``."""

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT

SCRIPT = ROOT / "scripts" / "reliability.py"
ENV = dict(os.environ, PYTHONPATH=str(ROOT))


def _run(tmp_path, *args, timeout):
    out = tmp_path / "rel.json"
    r = subprocess.run(
        [sys.executable, str(SCRIPT), "--json", str(out), *args], capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=timeout
    )
    rows = json.loads(out.read_text())
    return r, {row["case"]: row for row in rows}


def _assert_clean(r, rows, skip=()):
    for name, row in rows.items():
        if name in skip:
            continue
        assert row["tried"] > 0, name
        assert row["clean"] == row["tried"], (name, row, r.stdout)


def test_reliability_sample(tmp_path):
    """Mutants (text, bytecode, .pb; batch, single-file, hilo-opt), two writers, SIGKILLs, SIGINTs: all clean."""
    r, rows = _run(tmp_path, "--quick", "--seed", "1", timeout=900)
    _assert_clean(r, rows)
    assert r.returncode == 0
    assert "| text mutants (batch)" in r.stdout and "| total" in r.stdout


@pytest.mark.slow
def test_reliability_campaign(tmp_path):
    """The issue's bar: >= 3,000 text and >= 1,000 binary mutants, 0 tracebacks, signals, hangs, inconsistent outputs."""
    r, rows = _run(tmp_path, "--depths", "", timeout=6 * 3600)
    _assert_clean(r, rows)
    assert rows["text mutants (batch)"]["tried"] >= 3000
    assert rows["bytecode mutants (batch)"]["tried"] + rows[".pb mutants (batch)"]["tried"] >= 1000


@pytest.mark.slow
@pytest.mark.xfail(reason="the printer's depth limit (one indentation level per region) is fixed on the printer's branch", strict=False)
def test_deep_nesting_compiles_to_a_program_python_loads(tmp_path):
    r, rows = _run(
        tmp_path,
        "--text",
        "0",
        "--binary",
        "0",
        "--single",
        "0",
        "--writers",
        "0",
        "--kills",
        "0",
        "--sigints",
        "0",
        "--parent-kills",
        "0",
        timeout=3600,
    )
    _assert_clean(r, {k: v for k, v in rows.items() if k.startswith("while")})
