"""The unit tests mirror the package (README "Layout"): a pass's tests in ``transforms/<family>/``
(a family of ``hilo_mlir/passes/``), a layer's in ``<layer>/`` (a subpackage of ``hilo_mlir``), and
``api/``, ``e2e/``, ``project/``; only helpers (no tests) in ``test/unit`` itself."""

import ast
import collections

from conftest import ROOT

UNIT = ROOT / "test" / "unit"
PACKAGE = ROOT / "hilo_mlir"
OTHER = {"api", "e2e", "project"}


def _subpackages(path):
    return {p.name for p in path.iterdir() if (p / "__init__.py").exists()}


def _has_tests(path) -> bool:
    tree = ast.parse(path.read_text(), str(path))
    return any(isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name.lower().startswith("test") for n in tree.body)


def test_every_test_file_sits_where_its_code_is():
    families, layers = _subpackages(PACKAGE / "passes"), _subpackages(PACKAGE) - {"passes"}
    misplaced = []
    for f in sorted(UNIT.rglob("test_*.py")):
        parts = f.relative_to(UNIT).parts
        if len(parts) == 1:
            ok = not _has_tests(f)  # a helper other tests import
        elif parts[0] == "transforms":
            ok = len(parts) == 2 or (len(parts) == 3 and parts[1] in families)
        else:
            ok = len(parts) == 2 and parts[0] in layers | OTHER
        if not ok:
            misplaced.append(str(f.relative_to(UNIT)))
    assert misplaced == [], f"move these under test/unit/transforms/<family>/ or test/unit/<layer>/: {misplaced}"


def test_test_file_names_are_unique():
    # pytest imports a test file by its base name (no __init__.py in test/unit): two of one name collide.
    names = collections.Counter(f.name for f in UNIT.rglob("test_*.py"))
    assert [n for n, c in names.items() if c > 1] == []


def test_the_transforms_folders_are_pass_families():
    families = _subpackages(PACKAGE / "passes")
    folders = {p.name for p in (UNIT / "transforms").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders <= families, folders - families
    assert {"legalization", "collectives", "fusion", "scheduling", "penguin_io", "verification"} <= folders


#: lit folders that are not a pass family: the tools, the printer and its reference backend, plugins, reliability
LIT_OTHER = {"driver", "tools", "printer", "penguin_ref", "plugins", "reliability"}


def test_the_lit_folders_are_pass_families():
    """test/lit/<family>/ uses the names of hilo_mlir/passes/<family>/ (no op_fusion/ beside passes/fusion/)."""
    families = _subpackages(PACKAGE / "passes")
    lit = UNIT.parent / "lit"
    folders = {p.name for p in lit.iterdir() if p.is_dir() and p.name not in ("Output", "__pycache__")}
    assert folders - LIT_OTHER <= families, (folders - LIT_OTHER) - families
    assert families <= folders, families - folders
