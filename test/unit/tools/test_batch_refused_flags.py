"""--batch refuses the single-compile instrumentation flags instead of ignoring them."""

from __future__ import annotations

from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "decoder_layer.stablehlo.mlir"


@pytest.mark.parametrize(
    "flags, named",
    [
        (["--mlir-timing"], "--mlir-timing"),
        (["--mlir-pass-statistics"], "--mlir-pass-statistics"),
        (["--mlir-print-ir-before-all"], "--mlir-print-ir-before-all"),
        (["--mlir-print-ir-after-all"], "--mlir-print-ir-after-all"),
        (["--mlir-print-ir-before=canonicalize"], "--mlir-print-ir-before"),
        (["--mlir-print-ir-after=canonicalize"], "--mlir-print-ir-after"),
        (["--mlir-print-ir-after-failure"], "--mlir-print-ir-after-failure"),
        (["--mlir-pass-pipeline-crash-reproducer", "REPRO"], "--mlir-pass-pipeline-crash-reproducer"),
    ],
)
def test_batch_refuses_instrumentation_flag(tmp_path, capsys, flags, named):
    from hilo_mlir.tools import hilo2penguin

    out = tmp_path / "out"
    flags = [str(tmp_path / "repro.mlir") if f == "REPRO" else f for f in flags]
    rc = hilo2penguin.run([str(EXAMPLE), "-o", str(out), "--batch", *flags])
    assert rc == 1
    assert capsys.readouterr().err == f"hilo2penguin: error: {named} needs a single input, not --batch\n"
    assert not out.exists() and not (tmp_path / "repro.mlir").exists()
