import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The test-only passes (test-fusion-cluster, ...) live in test/lib, not in the package.
sys.path.insert(0, str(ROOT / "test" / "lib"))
import test_passes  # noqa: E402,F401
EXAMPLES = ROOT / "examples"
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"


def corpus_path(*parts) -> pathlib.Path:
    """Path under ../shared/corpus, or skip the test with a reason when it is absent."""
    p = CORPUS.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"../shared/corpus not available ({p} missing): run from the project checkout beside shared/")
    return p


@pytest.fixture
def examples():
    return EXAMPLES
