"""The test infrastructure tells the user what did not run: the pytest summary counts the tests
skipped because ../shared is absent; the CMake targets run with VERBATIM."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from conftest import ROOT


def test_pytest_summary_counts_tests_skipped_without_shared(tmp_path):
    checkout = tmp_path / "checkout"  # no ../shared beside it
    unit = checkout / "test" / "unit"
    unit.mkdir(parents=True)
    shutil.copy(ROOT / "test" / "unit" / "conftest.py", unit / "conftest.py")
    shutil.copytree(ROOT / "test" / "lib", checkout / "test" / "lib")  # the test-only passes conftest imports
    (unit / "test_x.py").write_text(
        "from conftest import corpus_path\n"
        "def test_needs_corpus():\n    corpus_path('jax', 'a.mlir')\n"
        "def test_needs_corpus_too():\n    corpus_path('third_party')\n"
        "def test_plain():\n    assert True\n"
    )
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(unit)], capture_output=True, text=True, cwd=checkout
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 test(s) skipped because ../shared is absent" in r.stdout
    assert "1 passed, 2 skipped" in r.stdout


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake not installed")
def test_cmake_lit_target_command_is_verbatim(tmp_path):
    build = tmp_path / "build"
    r = subprocess.run(
        ["cmake", "-S", str(ROOT), "-B", str(build), f"-DPython3_EXECUTABLE={sys.executable}"], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stdout + r.stderr
    # The generated rule keeps `-c "import lit.main; lit.main.main()"` as one argument.
    rules = "".join(
        p.read_text(errors="replace")
        for p in build.rglob("*")
        if p.is_file() and p.suffix in ("", ".make", ".ninja") and p.stat().st_size < 2_000_000
    )
    assert '"import lit.main; lit.main.main()"' in rules or "'import lit.main; lit.main.main()'" in rules
