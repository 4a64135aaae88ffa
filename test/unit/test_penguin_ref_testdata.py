"""The StableHLO interpreter test-suite modules, printed and run by the reference backend.

Each ``../shared/corpus/third_party/stablehlo_testdata`` module computes a result from constant inputs
and checks it against JAX's expected values with ``check.expect_eq`` / ``expect_almost_eq`` /
``expect_close`` custom calls, which print as ``CheckOp`` statements; the backend raises when a check
fails. So running ``penguin.py`` to completion is the test. Modules the printers reject (dynamic shapes,
``chlo`` ops, fft, ...) are skipped here (the printers' own tests cover the rejection).

A sample of every 40th module runs by default (both printer twins); all ~2,000 printable modules run
with ``-m slow`` (measured: 1990 of 1990 pass with either printer).
"""

from __future__ import annotations

import glob
import os

import pytest

from conftest import CORPUS

TESTDATA = CORPUS / "third_party" / "stablehlo_testdata"
ALL = sorted(os.path.basename(p) for p in glob.glob(str(TESTDATA / "*.mlir")))
SAMPLE = ALL[::40]


def run_module(name: str, dialect: str) -> None:
    from hilo_mlir import HiloError, penguin_ref
    from hilo_mlir.compiler import load_module, to_mhlo
    from hilo_mlir.printers import print_program

    path = TESTDATA / name
    lm = load_module(path.read_bytes(), str(path))
    try:
        if dialect == "mhlo":
            to_mhlo(lm)
        with lm.context:
            src, files = print_program(lm.module, dialect, filename=name)
    except HiloError as e:
        pytest.skip(f"not printable: {e.message[:120]}")
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
        try:
            run_module(name, dialect)
        except pytest.skip.Exception:
            continue
        except HiloError as e:
            failures.append(f"{name}: {e.message[:200]}")
    assert not failures, f"{len(failures)} modules failed:\n" + "\n".join(failures[:20])
