"""No ``"mhlo.*"`` / ``"stablehlo.*"`` op-name literal outside the dialect table.

The MHLO and StableHLO twins share one implementation through
:mod:`hilo_mlir.ir.dialects` (``d.name("add")``, ``d.fusion``, named constants
for attribute names). A string literal that starts with ``mhlo.`` or
``stablehlo.`` anywhere else in the package is a new op name spelled by hand:
this test fails on it. Comments are not looked at (only string tokens).
"""

from __future__ import annotations

import io
import pathlib
import re
import tokenize

PACKAGE = pathlib.Path(__file__).resolve().parents[3] / "hilo_mlir"

#: a string token whose text starts with a twin dialect's prefix and a name (or an f-string field)
_LITERAL = re.compile(r"^[rRbBuUfF]{0,2}(?:'''|\"\"\"|'|\")(?:mhlo|stablehlo)\.[A-Za-z_{]")

#: files (relative to the package) that may hold such literals, and why
ALLOWED = {
    "ir/dialects.py": "the dialect table itself",
    "testing/fuzz.py": "the fuzz generator writes MLIR text of both dialects",
    "passes/importing/sharding.py": "attribute names (mhlo.sharding), not op names",
    "driver/frontend/hlo.py": "XLA's import: attribute names of its layouts and shardings, and the mhlo ops only XLA's "
    "import emits (copy, bitcast, fusion of XLA's own), normalised before the bridge",
    "passes/upstream.py": "one-line help of upstream passes (mhlo.dot -> mhlo.dot_general)",
    "penguin_ref/ops/custom_calls.py": "custom-call targets and attribute names the reference backend matches",
    "printers/prologue.py": "module attribute names (mhlo.num_partitions, mhlo.num_replicas)",
    "printers/custom_calls.py": "printed xla_op tags of the binary ('mhlo.scaled_dot', 'mhlo.device_print') "
    "and attribute names (mhlo.backend_config, mhlo.attributes)",
    "printers/supported.py": "attribute names (mhlo.sharding), not op names",
}


def literals(path: pathlib.Path) -> list[tuple[int, str]]:
    """``[(line, token text)]`` of the op-name literals in the Python file ``path``."""
    src = path.read_text()
    return [
        (tok.start[0], tok.string)
        for tok in tokenize.generate_tokens(io.StringIO(src).readline)
        if tok.type == tokenize.STRING and _LITERAL.match(tok.string)
    ]


def _modules():
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_no_op_name_literal_outside_the_dialect_table():
    offenders = []
    for p in _modules():
        rel = p.relative_to(PACKAGE).as_posix()
        if rel in ALLOWED:
            continue
        offenders += [f"hilo_mlir/{rel}:{line}: {text}" for line, text in literals(p)]
    assert not offenders, (
        "op-name literals outside hilo_mlir/ir/dialects.py (use the dialect table: d.name(...), "
        "d.fusion, a named constant):\n" + "\n".join(offenders)
    )


def test_allow_list_names_files_that_still_need_it():
    stale = [rel for rel in ALLOWED if rel != "dialects.py" and (not (PACKAGE / rel).exists() or not literals(PACKAGE / rel))]
    assert not stale, f"no op-name literal left in {stale}: remove them from ALLOWED"


def test_the_check_sees_literals_and_ignores_comments(tmp_path):
    p = tmp_path / "m.py"
    p.write_text(
        'a = "mhlo.add"\n'
        "# b = 'stablehlo.add' in a comment\n"
        "c = f'stablehlo.{short}'\n"
        'd = "mhlo." + x  # a prefix, not a name\n'
        'e = "the mhlo.add op"\n'
        "f = '''stablehlo.custom_call'''\n"
    )
    assert [line for line, _ in literals(p)] == [1, 3, 6]
