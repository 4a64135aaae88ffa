"""The console scripts behave alike on the command line (README "Errors and exit codes"): a command-line
mistake is one ``<tool>: error: ...`` line and exit 1 in every tool (hilo-check: 2, its "cannot check"), every
tool has ``--version`` in one format, and a list flag never swallows the positional argument after it."""

from __future__ import annotations

import contextlib
import io

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
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as info:
        run_main(tool, RUNS[tool], argv)
    return int(info.value.code or 0), out.getvalue(), capfd.readouterr().err


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
    assert err == (
        "hilo-penguin-run: error: no program given (penguin.py, or the folder that holds it) (see 'hilo-penguin-run --help')\n"
    )
    rc, _, err = _run("hilo-penguin-run", [prog, "--inputs", x], capfd)
    assert rc == 1
    assert err == (
        "hilo-penguin-run: error: nothing to do: give --out DIR (writes out0.npy, ...), --print, or both "
        "(see 'hilo-penguin-run --help')\n"
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
