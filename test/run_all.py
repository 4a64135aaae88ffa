#!/usr/bin/env python3
"""Run the whole test suite: lit regression tests, then pytest (the README's test command).

Usage: python3 test/run_all.py [--slow]   (--slow adds the long corpus/fuzz runs)
Exit status: non-zero if either lit or pytest failed.
"""

import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
slow = "--slow" in sys.argv[1:]

# The lit suite runs with the analysis checking mode on: every pass's record of
# what it changed is compared with the IR (hilo_mlir/analysis/check.py).
lit_env = dict(os.environ, HILO_MLIR_CHECK_ANALYSES="1")
lit_rc = subprocess.call(
    [sys.executable, "-c", "import lit.main; lit.main.main()", "-sv", os.path.join(here, "lit")], cwd=root, env=lit_env
)
pytest_args = [sys.executable, "-m", "pytest", "-q", os.path.join(here, "unit")]
if slow:
    pytest_args += ["-m", "slow or not slow"]
py_rc = subprocess.call(pytest_args, cwd=root)
if lit_rc:
    print("lit: FAILED", file=sys.stderr)
sys.exit(lit_rc or py_rc)
