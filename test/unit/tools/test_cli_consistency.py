"""The console scripts behave alike on the command line (README "Errors and exit codes"): a command-line
mistake is one ``<tool>: error: ...`` line and exit 1 in every tool (hilo-check: 2, its "cannot check"), every
tool has ``--version`` in one format, and a list flag never swallows the positional argument after it."""

from __future__ import annotations

import numpy as np
import pytest

from hilo_mlir.tools import cache, check, hilo2penguin, opt, penguin_run
from hilo_mlir.tools.common import run_main

SMALL = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

RUNS = {
    "hilo2penguin": hilo2penguin.run,
    "hilo-opt": opt.run,
    "hilo-check": check.run,
    "hilo-penguin-run": penguin_run.run,
    "hilo-cache": cache.run,
}


def _run(tool: str, argv: list[str], capfd) -> tuple[int, str, str]:
    """Run ``tool`` as its console script does: exit code, stdout, stderr."""
    capfd.readouterr()
    with pytest.raises(SystemExit) as info:
        run_main(tool, RUNS[tool], argv)
    out, err = capfd.readouterr()
    return int(info.value.code or 0), out, err


@pytest.mark.parametrize("tool", sorted(RUNS))
def test_an_unknown_flag_exits_1_in_every_tool_but_hilo_check(tool, capfd):
    rc, out, err = _run(tool, ["--no-such-flag"], capfd)
    assert (rc, out) == (2 if tool == "hilo-check" else 1, "")
    assert err == f"{tool}: error: unrecognized arguments: --no-such-flag (see '{tool} --help')\n"


@pytest.mark.parametrize("tool", sorted(RUNS))
def test_every_tool_has_version(tool, capfd):
    rc, out, err = _run(tool, ["--version"], capfd)
    assert (rc, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith(f"{tool} (hilo_mlir ") and lines[0].endswith(")")
    assert lines[1].startswith("  jaxlib ") and lines[2].startswith("  StableHLO ")
    assert len(lines) == 3


@pytest.fixture
def program(tmp_path):
    src = tmp_path / "s.mlir"
    src.write_text(SMALL)
    assert hilo2penguin.run([str(src), "-o", str(tmp_path / "p")]) == 0
    x = tmp_path / "x.npy"
    np.save(x, np.arange(4, dtype=np.float32))
    return str(tmp_path / "p" / "penguin.py"), str(x)


@pytest.mark.parametrize("spelling", ["file", "folder"])
def test_penguin_run_inputs_do_not_swallow_the_program(program, tmp_path, capfd, spelling):
    prog, x = program
    if spelling == "folder":
        prog = str(tmp_path / "p")
    capfd.readouterr()
    rc, out, err = _run("hilo-penguin-run", ["--inputs", x, prog, "--out", str(tmp_path / "o")], capfd)
    assert (rc, out, err) == (0, "", "")
    assert np.load(tmp_path / "o" / "out0.npy").tolist() == [0.0, 2.0, 4.0, 6.0]


def test_penguin_run_without_a_program_or_anything_to_do(program, tmp_path, capfd):
    prog, x = program
    capfd.readouterr()
    rc, _, err = _run("hilo-penguin-run", ["--inputs", x, "--out", str(tmp_path / "o")], capfd)
    assert rc == 1
    assert err == ("hilo-penguin-run: error: no program given (penguin.py, or the folder that holds it) (see 'hilo-penguin-run --help')\n")
    rc, _, err = _run("hilo-penguin-run", [prog, "--inputs", x], capfd)
    assert rc == 1
    assert err == (
        "hilo-penguin-run: error: nothing to do: give --out DIR (writes out0.npy, ...), --print, or both (see 'hilo-penguin-run --help')\n"
    )
    assert not (tmp_path / "o").exists()


def test_penguin_run_print_alone_writes_nothing(program, tmp_path, capfd, monkeypatch):
    prog, x = program
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    capfd.readouterr()
    rc, out, err = _run("hilo-penguin-run", [prog, "--inputs", x, "--print"], capfd)
    assert (rc, out, err) == (0, "out0: float32 (4,) [0.0, 2.0, 4.0, 6.0]\n", "")
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_list_flag_gives_back_a_positional_it_cannot_hold():
    from hilo_mlir.tools.flags import reclaim_positional

    values = ["a.npy", "prog.py"]
    assert reclaim_positional(values, lambda v: not v.endswith(".py")) == "prog.py" and values == ["a.npy"]
    values = ["a.npy", "b.npy"]
    assert reclaim_positional(values, lambda v: not v.endswith(".py")) is None and values == ["a.npy", "b.npy"]
    assert reclaim_positional([], lambda v: False) is None


GOOD_MHLO = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mhlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["--pass-pipeline=builtin.module(mhlo-to-py-penguin{output=-},cse)"],
            "--pass-pipeline: 'mhlo-to-py-penguin' is a printer pass: nothing can run after it; put 'cse' before it",
        ),
        (
            ["--pass-pipeline=builtin.module(mhlo-to-py-penguin,func.func(canonicalize))"],
            "--pass-pipeline: 'mhlo-to-py-penguin' is a printer pass: nothing can run after it; put 'canonicalize' before it",
        ),
        (
            ["--pass-pipeline=builtin.module(mhlo-to-py-penguin,mhlo-to-py-penguin)"],
            "--pass-pipeline: 'mhlo-to-py-penguin' is a printer pass: nothing can run after it; a pipeline runs one printer pass, last",
        ),
        (
            ["--mhlo-to-py-penguin", "--cse"],
            "--mhlo-to-py-penguin: 'mhlo-to-py-penguin' is a printer pass: nothing can run after it; put 'cse' before it",
        ),
    ],
)
def test_hilo_opt_refuses_a_pass_after_the_printer(tmp_path, capfd, argv, message):
    """The spine edits' rule (``--insert-pass-after 32=cse``), for a pipeline written by hand: refused before the
    input is read (a missing input is not the error), nothing printed."""
    rc, out, err = _run("hilo-opt", [str(tmp_path / "missing.mlir"), *argv], capfd)
    assert (rc, out, err) == (1, "", f"hilo-opt: error: {message}\n")


def test_hilo_opt_runs_a_pipeline_that_ends_in_its_printer(tmp_path, capfd):
    src = tmp_path / "a.mlir"
    src.write_text(GOOD_MHLO)
    rc, out, err = _run("hilo-opt", [str(src), "--pass-pipeline=builtin.module(func.func(cse),mhlo-to-py-penguin{output=-})"], capfd)
    assert (rc, err) == (0, "") and "v1 = m1.AddOp(srcs=[input_0, input_0]" in out


MALFORMED = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def _stdin(monkeypatch, text: str) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))


@pytest.mark.parametrize(
    "tool, argv",
    [("hilo2penguin", ["-", "-o", "out"]), ("hilo-opt", ["-"]), ("hilo-opt", []), ("hilo-check", ["-"])],
)
def test_stdin_is_named_stdin_in_every_tool(tmp_path, monkeypatch, capfd, tool, argv):
    """As mlir-opt: a diagnostic in standard input is at ``<stdin>:line:col``, with the line quoted."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_text("a file named '-' is not standard input\n")
    _stdin(monkeypatch, MALFORMED)
    rc, out, err = _run(tool, argv, capfd)
    assert (rc, out) == (2 if tool == "hilo-check" else 1, "")
    assert err == "<stdin>:2:24: error: expected ','\n  %0 = stablehlo.add %a : tensor<4xf32>\n                       ^\n"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("tool, argv", [("hilo2penguin", ["-", "-o", "out"]), ("hilo-check", ["-"])])
def test_empty_stdin_is_named_stdin(tmp_path, monkeypatch, capfd, tool, argv):
    monkeypatch.chdir(tmp_path)
    _stdin(monkeypatch, " \n")
    rc, out, err = _run(tool, argv, capfd)
    assert (rc, out, err) == (2 if tool == "hilo-check" else 1, "", "<stdin>: error: input file '<stdin>' is empty\n")


def test_empty_stdin_is_the_empty_module_in_hilo_opt(monkeypatch, capfd):
    _stdin(monkeypatch, "")
    assert _run("hilo-opt", [], capfd) == (0, "module {\n}\n", "")


def test_stdin_program_records_the_path_as_given(tmp_path, monkeypatch, capfd):
    """Only the diagnostics name stdin ``<stdin>``: penguin.py's DebugLocations keep ``-`` (its bytes do not change)."""
    monkeypatch.chdir(tmp_path)
    _stdin(monkeypatch, SMALL)
    rc, out, err = _run("hilo2penguin", ["-", "-o", "out"], capfd)
    assert (rc, out, err) == (0, "wrote out/penguin.py\n", "")
    assert "DebugLocation(file='-', line=2, col=8" in (tmp_path / "out" / "penguin.py").read_text()
