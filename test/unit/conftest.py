import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The test-only passes (test-fusion-cluster, ...) live in test/lib, not in the package.
sys.path.insert(0, str(ROOT / "test" / "lib"))
import test_passes  # noqa: E402,F401

# As in the tools, the registry's lookups see the built-in passes (hilo_mlir.passes installs them).
import hilo_mlir.passes  # noqa: E402,F401

# The compile cache (on by default in the JAX flow) stays off in the suite: a test compiles what it
# tests, and nothing is written to ~/.cache. The cache's own tests turn it on in their temporary folders.
os.environ["HILO_MLIR_CACHE"] = "0"
for _var in ("HILO_MLIR_CACHE_DIR", "HILO_MLIR_CACHE_URL"):
    os.environ.pop(_var, None)

EXAMPLES = ROOT / "examples"
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"


#: the start of the skip reason of every test that needs ../shared (counted by the summary below)
SHARED_MISSING = "../shared/corpus not available"


def corpus_path(*parts) -> pathlib.Path:
    """Path under ../shared/corpus, or skip the test with a reason when it is absent."""
    p = CORPUS.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"{SHARED_MISSING} ({p} missing): run from the project checkout beside shared/")
    return p


def pytest_terminal_summary(terminalreporter):
    """Say how many tests were skipped because ../shared is absent (they are not failures,
    but they did not run)."""
    skipped = terminalreporter.stats.get("skipped", [])
    marks = ("../shared", "corpus not available", str(SHARED))
    n = sum(1 for r in skipped if any(m in str(getattr(r, "longrepr", "")) for m in marks))
    if n:
        terminalreporter.write_sep(
            "-", f"{n} test(s) skipped because ../shared is absent (expected at {SHARED}); they need the project checkout beside shared/"
        )


@pytest.fixture
def examples():
    return EXAMPLES


@pytest.fixture(autouse=True)
def _verify_after_every_pass(request, monkeypatch):
    """Every pipeline a test runs verifies after each pass (``--verify-each``), so no
    pass can leave broken IR unnoticed; tests of the main job's own policy opt out
    with ``@pytest.mark.binary_verification``. Tests marked ``check_analyses`` (the
    spine tests) also run the analysis checking mode."""
    if request.node.get_closest_marker("check_analyses"):
        monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "1")
    if request.node.get_closest_marker("no_check_analyses"):  # the checking mode walks and re-matches on purpose
        monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)
    if request.node.get_closest_marker("binary_verification"):
        return
    from hilo_mlir.passmanager import pipeline

    original = pipeline.Pipeline.__init__

    def init(self, *args, **kw):
        kw["verify_each"] = True
        original(self, *args, **kw)

    monkeypatch.setattr(pipeline.Pipeline, "__init__", init)
