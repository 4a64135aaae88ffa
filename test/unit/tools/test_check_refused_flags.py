"""hilo-check refuses hilo2penguin's batch-mode flags and does not offer them in --help."""

from __future__ import annotations

from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "decoder_layer.stablehlo.mlir"


def test_help_does_not_offer_batch_flags(capsys):
    from hilo_mlir.tools import check

    with pytest.raises(SystemExit) as e:
        check.run(["--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    for flag in ("--batch", "--jobs", "--report", "--scheduler", "batch mode:"):
        assert flag + " " not in text and flag + "\n" not in text and f"[{flag}" not in text, flag
    assert "--timeout TIMEOUT" in text and "--fusion-report DIR" in text


@pytest.mark.parametrize(
    "flags, named",
    [
        (["--batch"], "--batch"),
        (["--jobs", "2"], "--jobs"),
        (["--report", "r.json"], "--report"),
        (["--scheduler", "tcp://h:1"], "--scheduler"),
    ],
)
def test_batch_flag_is_refused(tmp_path, capsys, flags, named):
    from hilo_mlir.tools import check

    out = tmp_path / "out"
    assert check.run([str(EXAMPLE), "-o", str(out), *flags]) == 2
    assert capsys.readouterr().err == f"hilo-check: error: {named} is not supported by hilo-check\n"
    assert not out.exists()
