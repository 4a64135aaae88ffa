"""The version from git tags, with a fallback for a clone without tags (hilo_mlir/support/version.py)."""

from hilo_mlir.support import version


def test_describe_is_read_as_pep440():
    assert version.parse_describe("v0.2.0-0-gabc1234") == "0.2.0"
    assert version.parse_describe("v0.2.0-3-gabc1234") == "0.2.0.post3+gabc1234"
    assert version.parse_describe("v1.10-12-g0123456789ab") == "1.10.post12+g0123456789ab"
    assert version.parse_describe("release-3") is None
    assert version.parse_describe("") is None


def test_no_checkout_falls_back(tmp_path):
    assert version.from_git(str(tmp_path)) is None  # no .git: a wheel, an sdist
    assert version.__version__ == (version.from_git() or version.FALLBACK)
