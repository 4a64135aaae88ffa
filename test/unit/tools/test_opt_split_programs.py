"""hilo-opt --split-input-file with a printer pipeline: stdout carries every chunk's program, -o FILE refuses."""

from __future__ import annotations

from hilo_mlir.tools import opt

CHUNK = "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {{\n  %0 = mhlo.{op} %a, %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}}\n"
TWO = CHUNK.format(op="add") + "// -----\n" + CHUNK.format(op="multiply")
PIPELINE = "--pass-pipeline=builtin.module(mhlo-to-py-penguin)"


def test_two_programs_to_one_file_is_refused(tmp_path, capfd):
    src = tmp_path / "two.mlir"
    src.write_text(TWO)
    out = tmp_path / "penguin.py"
    assert opt.run([str(src), "--split-input-file", PIPELINE, "-o", str(out)]) == 1
    err = capfd.readouterr().err
    assert err == (
        f"{src}: error: -o {out}: the pipeline printed 2 Penguin programs (one per --split-input-file chunk) "
        "and a file holds one; print them to stdout, or compile each module on its own\n"
    )
    assert not out.exists()


def test_two_programs_to_stdout_and_one_to_a_file(tmp_path, capfd):
    src = tmp_path / "two.mlir"
    src.write_text(TWO)
    assert opt.run([str(src), "--split-input-file", PIPELINE]) == 0
    printed = capfd.readouterr().out
    assert printed.count("markOutput(") == 2 and printed.count("// -----") == 1
    one = tmp_path / "one.mlir"
    one.write_text(CHUNK.format(op="add"))
    out = tmp_path / "p.py"
    assert opt.run([str(one), "--split-input-file", PIPELINE, "-o", str(out)]) == 0
    assert out.read_text().count("m1.AddOp(") == 1
