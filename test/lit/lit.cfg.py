# lit configuration for hilo_mlir regression tests (MLIR's mlir/test style).
import os
import shutil
import sys

import lit.formats

config.name = "hilo_mlir"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(os.path.dirname(__file__), "Output")
config.excludes = ["Inputs", "Output", "lit.cfg.py"]

python = sys.executable
root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
config.environment["PYTHONPATH"] = root + os.pathsep + os.environ.get("PYTHONPATH", "")
for var in ("HOME", "PATH", "TMPDIR", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "HILO_MLIR_CHECK_ANALYSES"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# Tools run with the configured Python (no reliance on console scripts on PATH).
config.substitutions.append(("%python", python))
# hilo-opt plus the test-only passes of test/lib (as mlir-opt links mlir/test/lib)
config.substitutions.append(("hilo-test-opt", f"{python} {os.path.join(root, 'test', 'lib', 'hilo_test_opt.py')}"))
config.substitutions.append(("hilo-opt", f"{python} -m hilo_mlir.tools.opt"))
config.substitutions.append(("hilo2penguin", f"{python} -m hilo_mlir.tools.hilo2penguin"))
config.substitutions.append(("hilo-penguin-run", f"{python} -m hilo_mlir.tools.penguin_run"))
# `FileCheck` (and `filecheck`) in RUN lines: the Python filecheck package installed
# beside this Python (pip puts its script next to sys.executable, also in a venv
# that is not on PATH), else one on PATH, else the package run as a module.
_bindir = os.path.dirname(python)
filecheck = (
    next((p for p in (os.path.join(_bindir, "filecheck"), os.path.join(_bindir, "FileCheck")) if os.path.exists(p)), None)
    or shutil.which("filecheck")
    or shutil.which("FileCheck")
    or f"{python} -m filecheck"
)
config.substitutions.append(("FileCheck", filecheck))
config.substitutions.append(("%examples", os.path.join(root, "examples")))
# The example pass plugins (examples/plugins/), loaded by path in their tests.
config.substitutions.append(("%plugins", os.path.join(root, "examples", "plugins")))
# Tests that read ../shared/corpus say `REQUIRES: shared-corpus` (they are then
# reported UNSUPPORTED, not failed, in a checkout without ../shared); everything
# else, including what only needs examples/, always runs.
shared = os.path.abspath(os.path.join(root, "..", "shared"))
if os.path.isdir(os.path.join(shared, "corpus")):
    config.available_features.add("shared-corpus")
    config.substitutions.append(("%corpus", os.path.join(shared, "corpus")))
