"""The tools' errors read alike: ``<tool>: error: ...`` for the command line and files, ``file:line:col: error: ...``
with the source line and a caret for the input (every blocking op of it), one message, a non-zero exit."""

from __future__ import annotations

import contextlib
import io
import os
import re

import pytest

from hilo_mlir.tools import check, hilo2penguin, opt, penguin_run
from hilo_mlir.tools.common import run_main

GOOD = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

MALFORMED = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32
  return %0 : tensor<4xf32>
}
"""

# two ops the printer cannot emit, both runnable on XLA (so hilo-check reaches the compile)
BLOCKERS = """func.func @main(%key: tensor<2xui64>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %k, %bits = stablehlo.rng_bit_generator %key, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  %f = stablehlo.convert %bits : (tensor<4xui32>) -> tensor<4xf32>
  %e = stablehlo.einsum %x, %f, config = "i,i->i" : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %e : tensor<4xf32>
}
"""

RUNS = {
    "hilo2penguin": lambda argv: hilo2penguin.run(argv),
    "hilo-opt": lambda argv: opt.run(argv),
    "hilo-check": lambda argv: check.run(argv),
    "hilo-penguin-run": lambda argv: penguin_run.run(argv),
}


#: XLA's own log lines (the in-process hilo-check may start the CPU client after something set its log level)
_XLA_LOG = re.compile(r"^[IWE]\d{4} .*\n", re.M)


def _run(tool: str, argv: list[str], capfd) -> tuple[int, str]:
    """Run ``tool`` as its console script does (:func:`hilo_mlir.tools.common.run_main`): exit code, stderr."""
    with contextlib.redirect_stdout(io.StringIO()), pytest.raises(SystemExit) as info:
        run_main(tool, RUNS[tool], argv)
    return int(info.value.code or 0), _XLA_LOG.sub("", capfd.readouterr().err)


def _write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_check_quotes_the_line_of_a_malformed_input_as_hilo2penguin(tmp_path, capfd):
    src = _write(tmp_path, "bad.mlir", MALFORMED)
    rc1, h2p = _run("hilo2penguin", [src, "-o", str(tmp_path / "out")], capfd)
    rc2, chk = _run("hilo-check", [src], capfd)
    assert (rc1, rc2) == (1, 2)
    assert (
        h2p == chk == (f"{src}:2:43: error: expected '>' in tensor type\n  %0 = stablehlo.add %a, %a : tensor<4xf32\n" + " " * 42 + "^\n")
    )


def test_check_reports_every_blocking_op_as_hilo2penguin(tmp_path, capfd):
    src = _write(tmp_path, "blockers.mlir", BLOCKERS)
    rc1, h2p = _run("hilo2penguin", [src, "-o", str(tmp_path / "out")], capfd)
    rc2, chk = _run("hilo-check", [src, "--spine", "stablehlo"], capfd)
    rng = "'stablehlo.rng_bit_generator': random number generation has no Penguin equivalent (results would differ from XLA)"
    expected = [
        f"{src}:2:15: error: {rng}",
        "  %k, %bits = stablehlo.rng_bit_generator %key, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)",
        " " * 14 + "^",
        f"{src}:4:8: error: 'stablehlo.einsum': einsum must be lowered to dot_general before printing",
        '  %e = stablehlo.einsum %x, %f, config = "i,i->i" : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>',
        " " * 7 + "^",
    ]
    assert (rc1, rc2) == (1, 2)
    assert h2p.splitlines() == expected
    # hilo-check: the same lines, the first saying it is the compile that failed
    expected[0] = f"{src}:2:15: error: the compile failed: {rng} (in pass 'hilo-import')"
    assert chk.splitlines() == expected


@pytest.mark.parametrize("tool", list(RUNS))
@pytest.mark.parametrize("where,reason", [("missing.mlir", "no such file"), ("afile/in.mlir", "'{tmp}/afile' is not a directory")])
def test_a_missing_input_reads_the_same_in_every_tool(tmp_path, capfd, tool, where, reason):
    (tmp_path / "afile").write_text("")
    path = str(tmp_path / where)
    argv = [path, "--out" if tool == "hilo-penguin-run" else "-o", str(tmp_path / "out")]
    rc, err = _run(tool, argv, capfd)
    assert rc != 0
    assert err == f"{tool}: error: cannot open input file '{path}': {reason.format(tmp=tmp_path)}\n"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("tool", ["hilo2penguin", "hilo-check"])
@pytest.mark.parametrize(
    "flags,message",
    [
        (
            ["--insert-pass-after", "99=cse"],
            "--insert-pass-after 99=cse: unknown spine step '99' (did you mean '9'?); steps are pass arguments or numbers, "
            "see --list-spine",
        ),
        (
            ["--insert-pass-after", "15=cse"],
            "--insert-pass-after 15=cse: step 15 'neuron-op-fusion' does not run: its gate op-fusion is off "
            "(turn it on with --enable-op-fusion or --preset all)",
        ),
        (
            ["--input-types", "tensor<4xf32>,nonsense"],
            "--input-types: input type #1 'nonsense' is not an MLIR type (expected e.g. tensor<4x32xf32>)",
        ),
    ],
)
def test_a_bad_flag_is_blamed_on_the_command_line_before_the_input_is_read(tmp_path, capfd, tool, flags, message):
    src = _write(tmp_path, "bad.mlir", MALFORMED)  # its parse error must not be what is reported
    rc, err = _run(tool, [src, "-o", str(tmp_path / "out"), *flags], capfd)
    assert rc != 0
    assert err == f"{tool}: error: {message}\n"


@pytest.mark.parametrize(
    "flags,message",
    [
        (
            ["--insert-pass-after", "32=cse"],
            "--insert-pass-after 32=cse: step 32 'mhlo-to-py-penguin' is the printer, the spine's last step: "
            "nothing can run after it; insert after a step from 1 to 31 or before step 32",
        ),
        (
            ["--insert-pass-after", "mhlo-to-py-penguin=cse"],
            "--insert-pass-after mhlo-to-py-penguin=cse: step 32 'mhlo-to-py-penguin' is the printer, the spine's last step: "
            "nothing can run after it; insert after a step from 1 to 31 or before step 32",
        ),
        (
            ["--spine", "stablehlo", "--insert-pass-after", "32=cse"],
            "--insert-pass-after 32=cse: step 32 'stablehlo-to-py-penguin' is the printer, the spine's last step: "
            "nothing can run after it; insert after a step from 1 to 31 or before step 32",
        ),
        (
            ["--disable-pass", "32"],
            "--disable-pass 32: step 32 'mhlo-to-py-penguin' is the printer, the spine's last step: it cannot be disabled",
        ),
        (
            ["--replace-pass", "32=cse"],
            "--replace-pass 32=cse: step 32 'mhlo-to-py-penguin' is the printer, the spine's last step: "
            "it can be replaced only by passes that end in a printer pass",
        ),
        (
            ["--insert-pass-before", "32=mhlo-to-py-penguin{root=x.y},cse"],
            "--insert-pass-before 32=mhlo-to-py-penguin{root=x.y},cse: 'mhlo-to-py-penguin' is a printer pass: nothing can "
            "run after it, so the edited spine must end in one printer; a printer pass can only replace step 32 'mhlo-to-py-penguin', as the last pass of the replacement",
        ),
        (
            ["--replace-pass", "32=mhlo-to-py-penguin,cse,mhlo-to-py-penguin"],
            "--replace-pass 32=mhlo-to-py-penguin,cse,mhlo-to-py-penguin: 'mhlo-to-py-penguin' is a printer pass: nothing can "
            "run after it, so the edited spine must end in one printer; a printer pass can only replace step 32 'mhlo-to-py-penguin', as the last pass of the replacement",
        ),
        (
            ["--enable-canonicalize", "--insert-pass-after", "1=mhlo-to-py-penguin"],
            "--insert-pass-after 1=mhlo-to-py-penguin: 'mhlo-to-py-penguin' is a printer pass: nothing can "
            "run after it, so the edited spine must end in one printer; a printer pass can only replace step 32 'mhlo-to-py-penguin', as the last pass of the replacement",
        ),
    ],
)
def test_nothing_is_placed_after_the_printer(tmp_path, capfd, flags, message):
    src = _write(tmp_path, "in.mlir", GOOD)
    rc, err = _run("hilo2penguin", [src, "-o", str(tmp_path / "out"), *flags], capfd)
    assert rc == 1 and err == f"hilo2penguin: error: {message}\n"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("flags", [["--insert-pass-before", "32=cse"], ["--replace-pass", "32=cse,mhlo-to-py-penguin"]])
def test_edits_that_keep_the_printer_last_compile(tmp_path, capfd, flags):
    src = _write(tmp_path, "in.mlir", GOOD)
    rc, err = _run("hilo2penguin", [src, "-o", str(tmp_path / "out"), *flags], capfd)
    assert rc == 0, err
    assert (tmp_path / "out" / "penguin.py").exists()


def test_an_output_folder_under_a_file_is_refused_before_compiling(tmp_path, capfd):
    src = _write(tmp_path, "in.mlir", MALFORMED)  # never parsed: the folder is the first error
    (tmp_path / "afile").write_text("")
    out = str(tmp_path / "afile" / "out")
    rc, err = _run("hilo2penguin", [src, "-o", out], capfd)
    assert rc == 1 and err == f"hilo2penguin: error: cannot create output folder '{out}': '{tmp_path / 'afile'}' is not a directory\n"


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs procfs (a folder no one can create in)")
def test_an_output_folder_that_cannot_be_created_is_named(tmp_path, capfd):
    src = _write(tmp_path, "in.mlir", GOOD)
    rc, err = _run("hilo2penguin", [src, "-o", "/proc/hilo-no-such-folder"], capfd)
    assert rc == 1
    assert err == "hilo2penguin: error: cannot create output folder '/proc/hilo-no-such-folder': no such file or directory\n"


def test_printer_output_under_a_file(tmp_path, capfd):
    src = _write(tmp_path, "in.mlir", GOOD.replace("stablehlo.add", "mhlo.add"))
    (tmp_path / "afile").write_text("")
    out = str(tmp_path / "afile" / "p.py")
    rc, err = _run("hilo-opt", [src, f"--mhlo-to-py-penguin=output={out}"], capfd)
    assert rc == 1
    assert err == f"hilo-opt: error: cannot write output file '{out}': '{tmp_path / 'afile'}' is not a directory\n"


def test_penguin_run_flag_errors_are_one_line(tmp_path, capfd):
    rc, err = _run("hilo-penguin-run", ["p.py", "--out", str(tmp_path), "--zzz"], capfd)
    assert rc == 1
    assert err == "hilo-penguin-run: error: unrecognized arguments: --zzz (see 'hilo-penguin-run --help')\n"


def test_weights_before_the_input_do_not_swallow_it(tmp_path, capfd):
    import numpy as np

    src = tmp_path / "a.mlir"
    src.write_text(GOOD)
    w = tmp_path / "w.npy"
    np.save(w, np.ones(4, np.float32))
    out = tmp_path / "o"
    # --weights takes one or more values: the input after it is still the input
    assert hilo2penguin.run(["--weights", f"0={w}", str(src), "-o", str(out)]) == 0
    assert "is_parameter_tensor=True" in (out / "penguin.py").read_text()
    capfd.readouterr()
    # a repeated --weights adds to the first (an index given twice is an error, not "the last one wins")
    assert hilo2penguin.run([str(src), "-o", str(tmp_path / "o2"), "--weights", f"0={w}", "--weights", f"0={w}"]) == 1
    assert capfd.readouterr().err == "hilo2penguin: error: --weights: input 0 is given twice\n"
    # a bad value before the input is still the --weights error, not "several inputs"
    assert hilo2penguin.run(["--weights", "zz", str(src), "-o", str(tmp_path / "o3")]) == 1
    assert capfd.readouterr().err == (
        "hilo2penguin: error: --weights: expected INDEX=FILE.npy (an input index and a .npy file), got 'zz'\n"
    )


@pytest.fixture
def linked(tmp_path, monkeypatch):
    """cwd = tmp_path with ``real/sub``, ``real/x``, ``lnk -> real/sub``, a file ``x`` and ``dl -> /nonexist/zz``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "real" / "sub").mkdir(parents=True)
    (tmp_path / "real" / "x").mkdir()
    os.symlink("real/sub", "lnk")
    (tmp_path / "x").write_text("")
    os.symlink("/nonexist/zz", "dl")
    return tmp_path


def test_an_output_folder_through_dotdot_after_a_link_is_written(linked, capfd):
    """``lnk/../x`` is ``real/x`` for the OS (``..`` after a link is the folder above its target): every tool writes
    there, never refusing it because ``x`` in the current folder is a file."""
    from hilo_mlir.checker.core import _make_dir

    src = _write(linked, "in.mlir", GOOD)
    rc, err = _run("hilo2penguin", [src, "-o", "lnk/../x/out"], capfd)
    assert rc == 0, err
    assert (linked / "real" / "x" / "out" / "penguin.py").exists()
    rc, err = _run("hilo-penguin-run", ["missing.py", "--out", "lnk/../x/run"], capfd)  # the folder passes, the program not
    assert rc == 1 and err == "hilo-penguin-run: error: cannot open input file 'missing.py': no such file\n"
    _make_dir("lnk/../x/check")  # hilo-check -o
    assert (linked / "real" / "x" / "check").is_dir()


def test_a_dangling_link_as_output_folder_is_named(linked, capfd):
    src = _write(linked, "in.mlir", GOOD)
    rc, err = _run("hilo2penguin", [src, "-o", "dl"], capfd)
    assert rc == 1
    assert err == "hilo2penguin: error: cannot create output folder 'dl': 'dl' is a symbolic link to '/nonexist/zz', which does not exist\n"
    rc, err = _run("hilo-penguin-run", ["missing.py", "--out", "dl"], capfd)
    assert rc == 1
    assert (
        err
        == "hilo-penguin-run: error: cannot write the outputs to 'dl': 'dl' is a symbolic link to '/nonexist/zz', which does not exist\n"
    )


@pytest.mark.parametrize(
    "tool,argv",
    [
        ("hilo2penguin", ["in.mlir", "-o", "out"]),
        ("hilo-opt", ["in.mlir"]),
        ("hilo-check", ["in.mlir"]),
        ("hilo-penguin-run", ["p.py", "--out", "out"]),
    ],
)
def test_an_unrecognized_argument_is_echoed_escaped(tmp_path, monkeypatch, capfd, tool, argv):
    monkeypatch.chdir(tmp_path)
    rc, err = _run(tool, [*argv, "--zz\x1b[31m\nq"], capfd)
    assert rc == (2 if tool == "hilo-check" else 1)
    assert err == f"{tool}: error: unrecognized arguments: --zz\\x1b[31m\\nq (see '{tool} --help')\n"


def test_paths_in_errors_are_escaped(tmp_path, monkeypatch, capfd):
    """A path with an escape sequence or a line break is shown escaped in every error that names it, located ones
    too: one line, no control character reaches the terminal."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("")
    rc, err = _run("hilo2penguin", ["in\x1b[2J\nput.mlir", "-o", "out"], capfd)
    assert rc == 1 and err == "hilo2penguin: error: cannot open input file 'in\\x1b[2J\\nput.mlir': no such file\n"
    src = _write(tmp_path, "in.mlir", GOOD)
    rc, err = _run("hilo2penguin", [src, "-o", "afile/a\nb\x1b"], capfd)
    assert rc == 1 and err == "hilo2penguin: error: cannot create output folder 'afile/a\\nb\\x1b': 'afile' is not a directory\n"
    rc, err = _run("hilo-penguin-run", ["p.py", "--out", "afile/o\nut"], capfd)
    assert rc == 1 and err == "hilo-penguin-run: error: cannot write the outputs to 'afile/o\\nut': 'afile' is not a directory\n"
    _write(tmp_path, "b\nad\x1b.mlir", MALFORMED)
    rc, err = _run("hilo2penguin", ["b\nad\x1b.mlir", "-o", "out"], capfd)
    assert rc == 1 and err.startswith("b\\nad\\x1b.mlir:2:43: error: expected '>' in tensor type\n")


def test_a_fusion_report_folder_that_cannot_be_made_is_a_command_line_error(tmp_path, capfd):
    src = tmp_path / "a.mlir"
    src.write_text(GOOD)
    (tmp_path / "afile").write_text("")
    out = tmp_path / "o"
    assert hilo2penguin.run([str(src), "-o", str(out), "--fusion-report", str(tmp_path / "afile" / "rep")]) == 1
    assert capfd.readouterr().err == (
        f"hilo2penguin: error: --fusion-report: cannot create folder '{tmp_path / 'afile' / 'rep'}': "
        f"'{tmp_path / 'afile'}' is not a directory\n"
    )
    assert hilo2penguin.run([str(src), "-o", str(out), "--fusion-report", str(tmp_path / "afile")]) == 1
    assert (
        capfd.readouterr().err
        == f"hilo2penguin: error: --fusion-report: cannot write to '{tmp_path / 'afile'}': it is a file, not a folder\n"
    )
    assert not out.exists()  # said before compiling: nothing written
