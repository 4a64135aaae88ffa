"""The console scripts end without the interpreter's teardown, with every byte of their output written."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import EXAMPLES, ROOT

from hilo_mlir.tools import common


def _run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=ROOT)


def test_long_stdout_is_complete_and_the_code_kept():
    r = _run("-m", "hilo_mlir.tools.opt", "--help")  # ~40 KB through a pipe
    assert r.returncode == 0, r.stderr
    assert len(r.stdout) > 10_000
    assert r.stdout.startswith("OVERVIEW: ") and r.stdout.endswith("\n")
    last = r.stdout.rstrip("\n").splitlines()[-1]
    full = _run("-c", "from hilo_mlir.tools import opt\ntry:\n    opt.run(['--help'])\nexcept SystemExit:\n    pass\n")
    assert full.stdout.rstrip("\n").splitlines()[-1] == last  # the same last line as a run that tears down


def test_error_code_and_message_survive(tmp_path):
    r = _run("-m", "hilo_mlir.tools.hilo2penguin", str(tmp_path / "missing.mlir"), "-o", str(tmp_path / "out"))
    assert r.returncode == 1
    assert r.stderr.strip().endswith("missing.mlir': no such file")
    assert not (tmp_path / "out").exists()


def test_a_compile_writes_its_program(tmp_path):
    r = _run("-m", "hilo_mlir.tools.hilo2penguin", str(EXAMPLES / "decoder_layer.stablehlo.mlir"), "-o", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"wrote {tmp_path / 'penguin.py'}\n"
    assert (tmp_path / "penguin.py").read_text().endswith("\n")


@pytest.mark.parametrize("mod", common._EXIT_HANDLERS)
def test_a_module_with_exit_work_keeps_the_normal_exit(monkeypatch, mod):
    monkeypatch.setitem(sys.modules, mod, sys.modules.get(mod) or type(sys)(mod))
    assert common.end_process(3) is None  # returned: the caller exits the normal way


def test_run_main_with_argv_raises_system_exit():
    with pytest.raises(SystemExit) as e:
        common.run_main("t", lambda argv: 7, argv=[])
    assert e.value.code == 7
