"""Batch mode (issue 6): crash isolation, statuses, report.json, outputs, exit codes, progress."""

import ast
import io
import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest
from conftest import EXAMPLES, ROOT

from hilo_mlir.driver import spine
from hilo_mlir.driver.config import CompileConfig
from hilo_mlir.passes.importing import stages
from hilo_mlir.passmanager.pipeline import Step
from hilo_mlir.passmanager.registry import PassInfo
from hilo_mlir.tools import batch

INPUTS = ROOT / "test" / "lit" / "reliability" / "Inputs"

GOOD = """func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  %1 = stablehlo.multiply %0, %a : tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""
BAD = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def cli(*args, env_extra=None, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT), **(env_extra or {}))
    return subprocess.run(
        [sys.executable, "-m", "hilo_mlir.tools.hilo2penguin", *args], capture_output=True, text=True, env=env, cwd=ROOT, **kw
    )


def make_tree(root: pathlib.Path) -> pathlib.Path:
    src = root / "in"
    (src / "sub").mkdir(parents=True)
    (src / "good.mlir").write_text(GOOD)
    (src / "sub" / "nested.mlir").write_text(GOOD.replace("multiply", "subtract"))
    (src / "bad.mlir").write_text(BAD)
    (src / "notes.txt").write_text("not a module")
    (src / ".hidden").mkdir()
    (src / ".hidden" / "skip.mlir").write_text(BAD)
    return src


def test_discover_sorted_relative_stems_and_collisions(tmp_path):
    src = make_tree(tmp_path)
    (src / "good.pb").write_bytes(b"junk")
    items = batch.discover([str(src)])
    assert [(pathlib.Path(i.path).relative_to(src).as_posix(), i.rel_stem) for i in items] == [
        ("bad.mlir", "bad"),
        ("good.mlir", "good_mlir"),
        ("good.pb", "good_pb"),
        ("sub/nested.mlir", "sub/nested"),
    ]
    # a file named twice (as a file and through its folder) is compiled once
    assert len(batch.discover([str(src), str(src / "bad.mlir")])) == 4


def test_discover_missing_input_is_a_clear_error(tmp_path):
    from hilo_mlir.support.diagnostics import HiloError

    with pytest.raises(HiloError, match=r"cannot open input '.*nope': no such file or folder"):
        batch.discover([str(tmp_path / "nope")])


def test_cli_batch_statuses_report_outputs_and_plain_progress(tmp_path):
    src = make_tree(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    (out / "bad").mkdir()
    (out / "bad" / "penguin.py").write_text("# an older result, must survive a failed compile\n")
    report = tmp_path / "report.json"
    r = cli("--batch", str(src), str(EXAMPLES / "decoder_layer.hlo.pb"), "-o", str(out), "--jobs", "2", "--report", str(report))
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    doc = json.loads(report.read_text())
    assert sorted(doc) == ["interrupted", "modules", "summary"] and doc["interrupted"] is False
    assert doc["summary"] == {"ok": 3, "rejected": 1, "write-failed": 0, "crashed": 0, "timeout": 0}
    rows = {pathlib.Path(m["path"]).name: m for m in doc["modules"]}
    assert set(rows) == {"bad.mlir", "good.mlir", "nested.mlir", "decoder_layer.hlo.pb"}
    for m in doc["modules"]:
        assert list(m) == ["path", "status", "diagnostic", "signal", "last_pass", "seconds", "output"]
        assert m["seconds"] >= 0
    bad = rows["bad.mlir"]
    assert bad["status"] == "rejected"
    assert bad["diagnostic"] == f"{src / 'bad.mlir'}:2:24: error: expected ','"
    assert bad["last_pass"] == "parse" and bad["signal"] is None
    assert rows["good.mlir"] == {**rows["good.mlir"], "status": "ok", "diagnostic": None, "signal": None, "last_pass": None}
    # outputs: OUTDIR/<relative path stem>/penguin.py
    for rel in ("good", "sub/nested", "decoder_layer.hlo"):
        ast.parse((out / rel / "penguin.py").read_text())
    assert (out / "keep.txt").read_text() == "mine"
    assert (out / "bad" / "penguin.py").read_text().startswith("# an older result")
    leftovers = [p for p in out.rglob("*") if p.name.startswith(".")]
    assert leftovers == []
    # plain progress lines (stderr is not a TTY), then the summary table on stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 4 and all(ln.startswith("[") and "/4] " in ln for ln in lines)
    assert any(
        ln.split("] ", 1)[1].startswith("rejected ") and ln.endswith(f"bad.mlir: {src / 'bad.mlir'}:2:24: error: expected ','")
        for ln in lines
    )
    assert "ok                  3" in r.stdout and "rejected            1" in r.stdout and "total               4" in r.stdout


def test_cli_batch_real_llvm_abort_is_isolated(tmp_path, monkeypatch):
    """mhlo.dynamic_conv aborts hlo-legalize-to-stablehlo (LLVM ERROR): only that module fails."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "a_good.mlir").write_text(GOOD)
    (src / "b_abort.mlir").write_text((INPUTS / "dynamic-conv-abort.mlir").read_text())
    (src / "c_good.mlir").write_text(GOOD.replace("add", "maximum"))
    out, report = tmp_path / "out", tmp_path / "r.json"
    # The validator (and the printability check) refuse mhlo.dynamic_conv before
    # any rewrite (test_bad_input); both switched off here (the forked workers inherit the patch) so that it
    # reaches the upstream pass that aborts the process.
    monkeypatch.setattr(stages, "validate_input", lambda *a, **k: None)
    monkeypatch.setattr(stages, "check_printable", lambda *a, **k: None)
    stdout, stderr = io.StringIO(), io.StringIO()
    cfg = CompileConfig(stablehlo=True, verify_each=True)  # the verifier aborts right after the pass that broke the IR
    rc = batch.run_batch([str(src)], str(out), cfg, jobs=1, report=str(report), stdout=stdout, stderr=stderr, tty=False)
    assert rc == 1
    doc = json.loads(report.read_text())
    assert doc["summary"] == {"ok": 2, "rejected": 0, "write-failed": 0, "crashed": 1, "timeout": 0}
    crash = [m for m in doc["modules"] if m["status"] == "crashed"][0]
    assert crash["path"].endswith("b_abort.mlir")
    assert crash["signal"] == "SIGABRT"
    assert crash["last_pass"] == "hlo-legalize-to-stablehlo"
    assert crash["diagnostic"].startswith("LLVM ERROR:")
    assert (out / "a_good" / "penguin.py").exists() and (out / "c_good" / "penguin.py").exists()
    assert not (out / "b_abort").exists()
    assert "SIGABRT in hlo-legalize-to-stablehlo" in stderr.getvalue()
    assert "last pass 'hlo-legalize-to-stablehlo'" in stdout.getvalue()


def _with_extra_step(monkeypatch, argument, fn):
    """Make every compile run ``fn`` as a pass right after the spine's first step (inherited by forked workers)."""
    real = spine.build_spine  # pipeline_steps builds the spine through it

    def build(config, skip_missing=True):
        steps = real(config, skip_missing)
        info = PassInfo(argument, "test-only", fn, anchor="builtin.module")
        return steps[:1] + [Step(info, argument, {}, anchor="builtin.module")] + steps[1:]

    monkeypatch.setattr(spine, "build_spine", build)


def _items(tmp_path, n=2):
    items = []
    for i in range(n):
        p = tmp_path / f"m{i}.mlir"
        p.write_text(GOOD)
        items.append(batch.BatchItem(str(p), f"m{i}"))
    return items


def test_segfault_in_a_pass_names_signal_and_pass(tmp_path, monkeypatch):
    def segv(op, ctx):
        os.kill(os.getpid(), signal.SIGSEGV)

    _with_extra_step(monkeypatch, "test-segfault", segv)
    res = batch.compile_batch(_items(tmp_path), str(tmp_path / "out"), CompileConfig(), jobs=2)
    assert [(r.status, r.signal, r.last_pass) for r in res] == [("crashed", "SIGSEGV", "test-segfault")] * 2
    assert batch.exit_code(res) == 1


def test_python_exception_is_crashed_with_traceback_not_printed(tmp_path, monkeypatch):
    def boom(op, ctx):
        raise KeyError("oops")

    _with_extra_step(monkeypatch, "test-raise", boom)
    res = batch.compile_batch(_items(tmp_path, 1), str(tmp_path / "out"), CompileConfig(), jobs=1)
    (r,) = res
    assert (r.status, r.signal, r.last_pass) == ("crashed", None, "test-raise")
    assert r.diagnostic == "internal error: KeyError: 'oops'"
    assert "Traceback" in r.traceback and "boom" in r.traceback
    assert batch.report_dict(res)["modules"][0]["traceback"] == r.traceback


def test_timeout_kills_the_worker(tmp_path, monkeypatch):
    def hang(op, ctx):
        time.sleep(60)

    _with_extra_step(monkeypatch, "test-hang", hang)
    t0 = time.monotonic()
    res = batch.compile_batch(_items(tmp_path), str(tmp_path / "out"), CompileConfig(), jobs=2, timeout=1.0)
    assert time.monotonic() - t0 < 20
    assert [(r.status, r.signal, r.last_pass) for r in res] == [("timeout", "SIGKILL", "test-hang")] * 2
    assert all(1.0 <= r.seconds < 20 for r in res)
    assert batch.summarize(res) == {"ok": 0, "rejected": 0, "write-failed": 0, "crashed": 0, "timeout": 2}
    assert not (tmp_path / "out" / "m0").exists()


def test_tty_progress_bar():
    buf = io.StringIO()
    p = batch._Progress(2, buf, tty=True)
    p.update(batch.ModuleResult("a.mlir", "ok"))
    p.update(batch.ModuleResult("b.mlir", "crashed", signal="SIGSEGV", last_pass="cse"))
    text = buf.getvalue()
    assert text == (
        "\r[###############...............] 1/2  ok 1  rejected 0  crashed 0  timeout 0"
        "\r[##############################] 2/2  ok 1  rejected 0  crashed 1  timeout 0\n"
    )


def test_exit_code_and_summary_table():
    res = [batch.ModuleResult("a", "ok"), batch.ModuleResult("b", "rejected", "b: error: x")]
    assert batch.exit_code(res) == 0
    res.append(batch.ModuleResult("c", "timeout", "no result", "SIGKILL", "cse", 2.0))
    assert batch.exit_code(res) == 1
    table = batch.summary_table(res)
    assert "timeout             1" in table
    assert "  c: timeout (SIGKILL, last pass 'cse'): no result" in table


@pytest.mark.parametrize(
    "args, message",
    [
        (["--jobs", "2"], "--jobs needs --batch"),
        (["--report", "r.json"], "--report needs --batch"),
        (["--batch", "--jobs", "0"], "--jobs must be at least 1"),
        (["--batch", "--timeout", "0"], "--timeout must be positive"),
    ],
)
def test_cli_batch_argument_errors(tmp_path, args, message):
    r = cli(str(EXAMPLES / "decoder_layer.stablehlo.mlir"), "-o", str(tmp_path / "o"), *args)
    assert r.returncode == 1
    assert r.stderr.strip() == f"hilo2penguin: error: {message}"


def test_cli_batch_missing_input_and_empty_folder(tmp_path):
    r = cli("--batch", str(tmp_path / "nope"), "-o", str(tmp_path / "o"))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip() == f"hilo2penguin: error: cannot open input '{tmp_path / 'nope'}': no such file or folder"
    (tmp_path / "empty").mkdir()
    r = cli("--batch", str(tmp_path / "empty"), "-o", str(tmp_path / "o"))
    assert r.returncode == 1
    assert (
        r.stderr.strip() == f"hilo2penguin: error: no input modules (*.mlir, *.pb, *.hlo, HLO text *.txt) found in '{tmp_path / 'empty'}'"
    )


def test_single_input_mode_refuses_two_inputs(tmp_path):
    r = cli(str(EXAMPLES / "decoder_layer.stablehlo.mlir"), str(EXAMPLES / "decoder_layer.hlo.pb"), "-o", str(tmp_path))
    assert r.returncode == 1
    assert r.stderr.strip() == "hilo2penguin: error: several inputs given: pass one input, or use --batch"


def test_report_diagnostics_escape_text_from_the_input(tmp_path):
    """A file name (or message) with a control character or a line break is one escaped line in report.json and in
    the progress line, as the tools' rendered errors show it."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "b\x1b[31mad.mlir").write_text(BAD)
    report = tmp_path / "r.json"
    stderr = io.StringIO()
    rc = batch.run_batch(
        [str(src)], str(tmp_path / "out"), CompileConfig(), jobs=1, report=str(report), stdout=io.StringIO(), stderr=stderr, tty=False
    )
    assert rc == 0  # rejected is a verdict, not a failure of the batch
    (row,) = json.loads(report.read_text())["modules"]
    assert row["diagnostic"] == f"{src}/b\\x1b[31mad.mlir:2:24: error: expected ','"
    assert "\x1b" not in stderr.getvalue()
