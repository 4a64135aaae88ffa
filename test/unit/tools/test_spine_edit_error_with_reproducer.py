"""A bad spine edit with --mlir-pass-pipeline-crash-reproducer: the edit's own one-line error (a command-line
error, never blamed on the input), no reproducer.

Writing the reproducer needs the pipeline, which the bad edit cannot build; that second failure once
replaced the real error with "the compiler ended without a result while parsing the input"."""

from __future__ import annotations

import pytest

SMALL = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.tanh %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


@pytest.mark.parametrize(
    "edit, message",
    [
        (["--replace-pass", "14=nosuchpass"], "--replace-pass 14=nosuchpass: unknown pass 'nosuchpass' (pass pipeline column 1)"),
        (
            ["--insert-pass-after", "neuron-inst-combin=cse"],
            "--insert-pass-after neuron-inst-combin=cse: unknown spine step 'neuron-inst-combin' (did you mean 'neuron-inst-combine'?); "
            "steps are pass arguments or numbers, see --list-spine",
        ),
    ],
)
def test_bad_edit_reports_itself_with_a_reproducer_asked(tmp_path, capfd, edit, message):
    from hilo_mlir.tools import hilo2penguin

    src = tmp_path / "small.mlir"
    src.write_text(SMALL)
    out, repro = tmp_path / "out", tmp_path / "repro.mlir"
    rc = hilo2penguin.run([str(src), "-o", str(out), *edit, f"--mlir-pass-pipeline-crash-reproducer={repro}"])
    assert rc == 1
    assert capfd.readouterr().err == f"hilo2penguin: error: {message}\n"
    assert not out.exists() and not repro.exists()
