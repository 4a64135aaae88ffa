"""The StableHLO interpreter test-suite modules, printed and run by the reference backend.

Each ``../shared/corpus/third_party/stablehlo_testdata`` module computes a result from constant inputs
and checks it against JAX's expected values with ``check.expect_eq`` / ``expect_almost_eq`` /
``expect_close`` custom calls, which print as ``CheckOp`` statements; the backend raises when a check
fails. So running ``penguin.py`` to completion is the test. Modules the printers reject (dynamic shapes,
``chlo`` ops, fft, ...) are skipped here (the printers' own tests cover the rejection).

A sample of every 40th module runs by default (both printer twins); all ~2,000 printable modules run
with ``-m slow``; ``KNOWN`` lists the failures whose cause is outside the backend.
"""

from __future__ import annotations

import glob
import os

import pytest
from conftest import CORPUS

TESTDATA = CORPUS / "third_party" / "stablehlo_testdata"
ALL = sorted(os.path.basename(p) for p in glob.glob(str(TESTDATA / "*.mlir")))
#: modules that fail for a reason outside the backend (reported to the owner), by (module, dialect)
KNOWN: dict = {}  # none left: the -NaN literal sign (top_k_float32_5_chlo, mhlo) is fixed in the printer
SAMPLE = ALL[::40]


def unsupported_ops(module) -> list[str]:
    """The reasons :func:`hilo_mlir.printers.supported.unsupported_reason` gives for the
    ops of ``module`` (every op but ``builtin.module``/``func.func``, nested ones too)."""
    from hilo_mlir.ir.binding import ir
    from hilo_mlir.printers.supported import unsupported_reason

    reasons: list[str] = []
    cache: dict = {}

    def visit(op):
        if op.name not in ("builtin.module", "func.func"):
            r = unsupported_reason(op, cache)
            if r:
                reasons.append(r)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return reasons


def run_module(name: str, dialect: str) -> None:
    """Print ``name`` with the ``dialect`` printer and run it on the reference backend.

    Skips only when ``unsupported_reason`` rejects some op of the module (after
    ``to_mhlo`` for the MHLO printer), i.e. when the printer is *expected* to
    refuse it. Any other ``HiloError`` -- from ``to_mhlo``, the printer or a
    failed check -- fails the test (measured: every printer error on the corpus,
    452 stablehlo / 350 mhlo modules, is predicted by ``unsupported_reason``, so
    no message allowlist is needed).
    """
    from hilo_mlir import penguin_ref
    from hilo_mlir.driver.compiler import load_module, to_mhlo
    from hilo_mlir.printers import print_program

    path = TESTDATA / name
    lm = load_module(path.read_bytes(), str(path))
    if dialect == "mhlo":
        to_mhlo(lm)
    with lm.context:
        reasons = unsupported_ops(lm.module)
        if reasons:
            pytest.skip(f"not printable ({len(reasons)} unsupported ops): {reasons[0][:120]}")
        src, files = print_program(lm.module, dialect, filename=name)
    penguin_ref.run(src, [], files=files)  # raises PenguinRefError if a check fails


@pytest.mark.parametrize("dialect", ["stablehlo", "mhlo"])
@pytest.mark.parametrize("name", SAMPLE or ["<corpus missing>"])
def test_testdata_sample(name, dialect):
    if not (TESTDATA / name).exists():
        pytest.skip(f"corpus not available ({TESTDATA})")
    run_module(name, dialect)


@pytest.mark.slow
@pytest.mark.parametrize("dialect", ["stablehlo", "mhlo"])
def test_testdata_all(dialect):
    if not ALL:
        pytest.skip(f"corpus not available ({TESTDATA})")
    from hilo_mlir import HiloError

    failures = []
    for name in ALL:
        if (name, dialect) in KNOWN:
            continue
        try:
            run_module(name, dialect)
        except pytest.skip.Exception:
            continue
        except HiloError as e:
            failures.append(f"{name}: {e.message[:200]}")
    assert not failures, f"{len(failures)} modules failed:\n" + "\n".join(failures[:20])


SUPPORTED_MODULE = "abs_bfloat16_20_20.mlir"  # printable with both printers
UNSUPPORTED_MODULE = "add_dynamic.mlir"  # dynamic_broadcast_in_dim: rejected by unsupported_reason


@pytest.mark.parametrize("dialect", ["stablehlo", "mhlo"])
def test_printer_error_on_supported_module_fails(dialect, monkeypatch):
    """A printer regression (HiloError on a module whose ops are all supported)
    must fail the test, not turn into a skip."""
    if not (TESTDATA / SUPPORTED_MODULE).exists():
        pytest.skip(f"corpus not available ({TESTDATA})")
    import hilo_mlir.printers as printers
    from hilo_mlir import HiloError

    def broken(*args, **kwargs):
        raise HiloError("injected printer regression")

    monkeypatch.setattr(printers, "print_program", broken)
    with pytest.raises(HiloError, match="injected printer regression"):
        try:
            run_module(SUPPORTED_MODULE, dialect)
        except pytest.skip.Exception as e:  # the old behaviour: every printer error was a skip
            pytest.fail(f"printer error on a supported module became a skip: {e}")


@pytest.mark.parametrize("dialect", ["stablehlo", "mhlo"])
def test_unsupported_module_is_skipped_with_the_reason(dialect):
    if not (TESTDATA / UNSUPPORTED_MODULE).exists():
        pytest.skip(f"corpus not available ({TESTDATA})")
    with pytest.raises(pytest.skip.Exception, match="dynamic shapes are not supported"):
        run_module(UNSUPPORTED_MODULE, dialect)
