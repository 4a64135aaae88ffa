"""Never lose data (issue 6): temporary names then rename, read-only input, unrelated files untouched."""

import fcntl
import hashlib
import json
import os
import pathlib
import re
import signal
import subprocess
import sys

import pytest
from conftest import EXAMPLES, ROOT

from hilo_mlir.support import io as io_utils
from hilo_mlir.support import packaging
from hilo_mlir.support.packaging import write_program


def test_write_program_stages_then_renames_penguin_last(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    renames = []
    real = os.replace

    def spy(src, dst):
        renames.append((os.path.relpath(src, out), os.path.relpath(dst, out)))
        return real(src, dst)

    monkeypatch.setattr(packaging.os, "replace", spy)
    src = "a = m1.NpyFile('const_0.npy')\nb = m1.NpyFile('const_1.npy')\n"
    path = write_program(str(out), src, {"const_1.npy": b"b", "const_0.npy": b"a"})
    assert path == str(out / "penguin.py")
    staged = {os.path.dirname(s) for s, _ in renames}
    assert len(staged) == 1 and staged.pop().startswith(".hilo-staging-")
    # the constants are published under names carrying their content's hash, penguin.py last
    h0, h1 = hashlib.sha256(b"a").hexdigest()[:16], hashlib.sha256(b"b").hexdigest()[:16]
    assert [d for _, d in renames] == [f"const_0.{h0}.npy", f"const_1.{h1}.npy", "penguin.py"]
    assert sorted(p.name for p in out.iterdir()) == [f"const_0.{h0}.npy", f"const_1.{h1}.npy", "keep.txt", "penguin.py"]
    assert (out / "penguin.py").read_text() == f"a = m1.NpyFile('const_0.{h0}.npy')\nb = m1.NpyFile('const_1.{h1}.npy')\n"
    assert (out / "keep.txt").read_text() == "mine"


def test_recompile_removes_the_earlier_program_but_keeps_foreign_files(tmp_path):
    out = tmp_path / "out"
    write_program(str(out), "v = m1.NpyFile('const_0.npy')\n", {"const_0.npy": b"first"})
    first = {p.name for p in out.iterdir()}
    (out / "notes.txt").write_text("mine")
    (out / "data.0123456789abcdef.npy").write_bytes(b"looks like ours, is not: its hash does not match")
    write_program(
        str(out), "v = m1.NpyFile('const_0.npy')\nw = m1.NpyFile('const_1.npy')\n", {"const_0.npy": b"second", "const_1.npy": b"x"}
    )
    names = {p.name for p in out.iterdir()}
    assert not (first - {"penguin.py"}) & names  # no file of the earlier program remains
    assert {"notes.txt", "data.0123456789abcdef.npy", "penguin.py"} <= names and len(names) == 5
    for ref in re.findall(r"NpyFile\('([^']+)'\)", (out / "penguin.py").read_text()):
        assert (out / ref).is_file()
    write_program(str(out), "print(1)\n", {})
    assert sorted(p.name for p in out.iterdir()) == ["data.0123456789abcdef.npy", "notes.txt", "penguin.py"]


def test_staging_of_a_dead_writer_is_removed_by_the_next_write(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    dead = out / ".hilo-staging-dead"
    dead.mkdir()
    (dead / "const_0.npy").write_bytes(b"x" * 100)
    # a live writer's staging folder (its owner holds the lock) is left alone
    live = out / ".hilo-staging-live"
    live.mkdir()
    fd = os.open(live, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        write_program(str(out), "print(1)\n", {})
        assert not dead.exists() and live.exists()
    finally:
        os.close(fd)
    assert sorted(p.name for p in out.iterdir()) == [".hilo-staging-live", "penguin.py"]


def test_a_rename_that_fails_midway_keeps_the_old_program_whole(tmp_path, monkeypatch):
    out = tmp_path / "out"
    write_program(str(out), "v = m1.NpyFile('const_0.npy')\n", {"const_0.npy": b"old"})
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    real = os.replace
    calls = []

    def failing(src, dst):
        calls.append(dst)
        if len(calls) == 3:  # after two new constants went in
            raise OSError(13, "Permission denied")
        return real(src, dst)

    monkeypatch.setattr(packaging.os, "replace", failing)
    files = {f"const_{i}.npy": bytes([i]) * 10 for i in range(4)}
    src = "".join(f"v{i} = m1.NpyFile('const_{i}.npy')\n" for i in range(4))
    with pytest.raises(OSError):
        write_program(str(out), src, files)
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_write_program_failure_keeps_old_output_and_leaves_no_temporaries(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    (out / "penguin.py").write_text("old\n")
    (out / "keep.txt").write_text("mine")
    real_open = open
    calls = []

    def failing_open(path, mode="r", *a, **k):
        if "w" in mode and os.path.basename(str(path)) == "penguin.py":
            calls.append(path)
            raise OSError(28, "No space left on device")
        return real_open(path, mode, *a, **k)

    monkeypatch.setattr("builtins.open", failing_open)
    with pytest.raises(OSError):
        write_program(str(out), "new\n", {"const_0.npy": b"x"})
    monkeypatch.undo()
    assert calls and ".hilo-staging-" in str(calls[0])
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt", "penguin.py"]  # no staging folder left
    assert (out / "penguin.py").read_text() == "old\n"


@pytest.mark.parametrize("bad", ["../escape.npy", "sub/x.npy", ".hidden", "penguin.py"])
def test_write_program_refuses_file_names_outside_the_folder(tmp_path, bad):
    with pytest.raises(ValueError, match="invalid output file name"):
        write_program(str(tmp_path), "x\n", {bad: b"x"})
    assert list(tmp_path.iterdir()) == []


def test_atomic_write_text_uses_a_temporary_in_the_same_folder(tmp_path, monkeypatch):
    seen = []
    real = os.replace

    def spy(src, dst):
        seen.append((os.path.dirname(src), os.path.basename(src), dst))
        return real(src, dst)

    monkeypatch.setattr(io_utils.os, "replace", spy)
    io_utils.atomic_write_text(str(tmp_path / "r.json"), "{}\n")
    ((d, name, dst),) = seen
    assert d == str(tmp_path) and name.startswith(".tmp-") and dst == str(tmp_path / "r.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_read_input_opens_read_only(tmp_path, monkeypatch):
    f = tmp_path / "m.mlir"
    f.write_text("module {}\n")
    os.chmod(f, 0o444)
    modes = []
    real = open

    def spy(path, mode="r", *a, **k):
        modes.append(mode)
        return real(path, mode, *a, **k)

    monkeypatch.setattr("builtins.open", spy)
    assert io_utils.read_input(str(f)) == b"module {}\n"
    assert modes == ["rb"]


def test_cli_output_folder_that_is_a_file_is_a_clear_error(tmp_path):
    target = tmp_path / "out"
    target.write_text("a file, not a folder")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run(
        [sys.executable, "-m", "hilo_mlir.tools.hilo2penguin", str(EXAMPLES / "decoder_layer.stablehlo.mlir"), "-o", str(target)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 1
    assert r.stderr == f"hilo2penguin: error: cannot write to output folder '{target}': it is a file, not a folder\n"
    assert "Traceback" not in r.stderr
    assert target.read_text() == "a file, not a folder"


def test_batch_input_files_are_not_modified(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    good = src / "good.mlir"
    good.write_text(
        "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.abs %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n"
    )
    os.chmod(good, 0o444)
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in src.iterdir()}
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run(
        [sys.executable, "-m", "hilo_mlir.tools.hilo2penguin", "--batch", str(src), "-o", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in src.iterdir()} == before


# --------------------------------------------------------------------------- one whole program per OUTDIR

WRITER = ROOT / "test" / "lit" / "reliability" / "Inputs" / "patched_writer.py"


def _model(tag: int, n_constants: int = 6) -> str:
    """A module whose program has ``n_constants`` .npy files (distinct per ``tag``)."""
    rng = __import__("random").Random(tag)
    lines = ["func.func @main(%a: tensor<1024xf32>) -> tensor<1024xf32> {"]
    prev = "%a"
    for i in range(n_constants):
        hexdata = "".join(f"{rng.getrandbits(32):08X}" for _ in range(1024))
        lines.append(f'  %k{i} = stablehlo.constant dense<"0x{hexdata}"> : tensor<1024xf32>')
        lines.append(f"  %s{i} = stablehlo.add {prev}, %k{i} : tensor<1024xf32>")
        prev = f"%s{i}"
    lines += [f"  return {prev} : tensor<1024xf32>", "}", ""]
    return "\n".join(lines)


def whole_program_problem(outdir) -> str | None:
    """None if OUTDIR holds exactly one whole program (penguin.py, its files, nothing of another); else what is wrong."""
    names = set(os.listdir(outdir))
    if "penguin.py" not in names:
        return "no penguin.py"
    refs = set(re.findall(r"NpyFile\('([^']+)'\)", (pathlib.Path(outdir) / "penguin.py").read_text()))
    for r in refs:
        if r not in names:
            return f"penguin.py references the missing {r}"
        if not packaging.is_tool_file(str(outdir), r):
            return f"{r} does not hold the bytes its name says"
    stale = {n for n in names if packaging.is_tool_file(str(outdir), n)} - refs
    if stale:
        return f"files of another program remain: {sorted(stale)}"
    if any(n.startswith(".hilo-staging-") for n in names):
        return "a staging folder remains"
    return None


def _writer(mode, seconds, src, out):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, str(WRITER), mode, str(seconds), str(src), "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


@pytest.mark.parametrize("slow", [False, True])
def test_two_writers_into_one_outdir_leave_one_whole_program(tmp_path, slow):
    a, b = tmp_path / "a.mlir", tmp_path / "b.mlir"
    a.write_text(_model(1))
    b.write_text(_model(2))
    out = tmp_path / "out"
    for _ in range(2):
        pa = _writer("sleep", 1.5 if slow else 0.0, a, out)
        pb = _writer("sleep", 0.0, b, out)
        for p in (pa, pb):
            _, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
        assert whole_program_problem(out) is None, whole_program_problem(out)
        # and it is one of the two programs, as compiled alone
        from hilo_mlir.driver import compiler

        alone = []
        for m in (a, b):
            ref = tmp_path / f"ref_{m.stem}"
            write_program(str(ref), compiler.compile_file(str(m)))
            alone.append({n: (ref / n).read_bytes() for n in os.listdir(ref)})
        assert {n: (out / n).read_bytes() for n in os.listdir(out)} in alone


def test_sigkill_at_the_penguin_rename_keeps_the_old_program_and_the_next_run_cleans_up(tmp_path):
    old, new = tmp_path / "old.mlir", tmp_path / "new.mlir"
    old.write_text(_model(3))
    new.write_text(_model(4))
    out = tmp_path / "out"
    p = _writer("sleep", 0, old, out)
    assert p.wait(timeout=120) == 0
    before = (out / "penguin.py").read_text()
    for mode in ("kill", "kill-early"):
        p = _writer(mode, 0, new, out)
        p.wait(timeout=120)
        assert p.returncode == -signal.SIGKILL
        assert (out / "penguin.py").read_text() == before
        refs = re.findall(r"NpyFile\('([^']+)'\)", before)
        assert all(packaging.is_tool_file(str(out), r) for r in refs)  # the old program is whole
    assert any(n.startswith(".hilo-staging-") for n in os.listdir(out))  # the killed writers' staging
    p = _writer("sleep", 0, new, out)
    assert p.wait(timeout=120) == 0
    assert whole_program_problem(out) is None, whole_program_problem(out)
    assert (out / "penguin.py").read_text() != before


def test_batch_output_that_cannot_be_written_is_write_failed(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.mlir").write_text(_model(5, 1))
    (src / "b.mlir").write_text(_model(6, 1))
    out = tmp_path / "out"
    out.mkdir()
    (out / "b").write_text("a file where the module's folder goes")
    report = tmp_path / "r.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run(
        [sys.executable, "-m", "hilo_mlir.tools.hilo2penguin", "--batch", str(src), "-o", str(out), "--report", str(report)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 1
    doc = json.loads(report.read_text())
    rows = {os.path.basename(m["path"]): m for m in doc["modules"]}
    assert rows["a.mlir"]["status"] == "ok"
    assert rows["b.mlir"]["status"] == "write-failed"
    assert rows["b.mlir"]["diagnostic"] == f"cannot write to output folder '{out / 'b'}': it is a file, not a folder"
    assert doc["summary"]["write-failed"] == 1 and doc["summary"]["crashed"] == 0
    assert f"{src / 'b.mlir'}: write-failed: cannot write" in r.stdout
    assert (out / "b").read_text() == "a file where the module's folder goes"


def test_batch_summary_is_printed_when_the_report_cannot_be_written(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.mlir").write_text(_model(7, 1))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    report = tmp_path / "missing" / "r.json"
    r = subprocess.run(
        [sys.executable, "-m", "hilo_mlir.tools.hilo2penguin", "--batch", str(src), "-o", str(tmp_path / "out"), "--report", str(report)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 1
    assert "ok                  1" in r.stdout and "total               1" in r.stdout
    assert r.stderr.splitlines()[-1] == f"hilo2penguin: error: cannot write output file '{report}': no such directory '{report.parent}'"
    assert "Traceback" not in r.stderr


def test_batch_outdir_that_is_a_file_is_one_line(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.mlir").write_text(_model(8, 1))
    target = tmp_path / "out"
    target.write_text("not a folder")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run(
        [sys.executable, "-m", "hilo_mlir.tools.hilo2penguin", "--batch", str(src), "-o", str(target)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 1
    assert r.stderr == f"hilo2penguin: error: cannot use output folder '{target}': it is a file, not a folder\n"
