#!/usr/bin/env python3
"""``hilo-test-opt``: ``hilo-opt`` with the test-only passes of ``test/lib`` registered (as MLIR's
``mlir-opt`` links ``mlir/test/lib``). Same flags and exit codes as ``hilo-opt``."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import test_passes  # noqa: E402,F401  (registers the test passes)

from hilo_mlir.tools.opt import main  # noqa: E402

if __name__ == "__main__":
    main()
