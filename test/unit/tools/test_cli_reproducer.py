"""Crash reproducers: every kind of failure writes one, and replaying it fails the same way.

Kinds: an error the pass reports, a verifier failure after the pass, an
exception in the pass (a bug), and, in ``hilo2penguin``, a failure of the
import step before the spine (the reproducer is then the input and the whole
dumped pipeline).
"""

from __future__ import annotations

import contextlib
import io

import pytest

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passmanager import registry
from hilo_mlir.passmanager.instrumentation import Instrumentation
from hilo_mlir.passmanager.pipeline import Pipeline, steps_from_text
from hilo_mlir.passmanager.registry import PassInfo
from hilo_mlir.passmanager.reproducer import read_reproducer, reproducer_text
from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.tools import hilo2penguin, opt

MODULE = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def _break_ir(func_op, ctx):
    """Makes the add's result type wrong (the verifier fails after the pass)."""
    with ir.Location.unknown():
        for op in func_op.regions[0].blocks[0].operations:
            if op.operation.name == "stablehlo.add":
                ctx.rewriter.set_type(op.operation.results[0], ir.RankedTensorType.get([2], ir.F32Type.get()))


def _crash(func_op, ctx):
    raise ZeroDivisionError("a bug in the pass")


@pytest.fixture
def test_passes():
    infos = [PassInfo("test-break-ir", "test: breaks the IR", _break_ir), PassInfo("test-crash", "test: raises", _crash)]
    for i in infos:
        registry.register(i)
    yield
    for i in infos:
        registry.unregister(i.argument)


def _fail(pipeline: str, path):
    with make_context():
        m = ir.Module.parse(MODULE)
        p = Pipeline(steps_from_text(pipeline), instrumentation=Instrumentation(reproducer=str(path)))
        with pytest.raises(Exception) as info:
            p.run(m)
    return info.value


def _replay(path, capsys) -> tuple[int, str]:
    rc = opt.run([str(path), "--run-reproducer", "-o", str(path) + ".out"])
    return rc, capsys.readouterr().err


def test_verifier_failure_after_a_pass(tmp_path, test_passes, capsys):
    repro = tmp_path / "r.mlir"
    err = _fail("builtin.module(func.func(cse),test-break-ir,canonicalize)", repro)
    assert isinstance(err, HiloError) and "verifier failed after pass 'test-break-ir'" in err.message
    assert any("reproducer generated at" in n.message for n in err.notes)
    body, entries = read_reproducer(repro.read_text())
    assert entries == {"pipeline": "builtin.module(test-break-ir)", "disable_threading": True, "verify_each": True}
    assert "tensor<4xf32>" in body  # the IR before the pass
    rc, stderr = _replay(repro, capsys)
    assert rc == 1 and "verifier failed after pass 'test-break-ir'" in stderr


def test_exception_in_a_pass(tmp_path, test_passes, capsys):
    repro = tmp_path / "r.mlir"
    err = _fail("builtin.module(test-crash)", repro)
    assert isinstance(err, ZeroDivisionError)
    assert "reproducer generated at" in capsys.readouterr().err
    assert read_reproducer(repro.read_text())[1]["pipeline"] == "builtin.module(test-crash)"
    with pytest.raises(ZeroDivisionError):  # replaying it meets the same bug
        opt.run([str(repro), "--run-reproducer"])


def test_hilo2penguin_import_failure_reproduces_with_the_whole_pipeline(tmp_path, capsys):
    src = tmp_path / "in.mlir"
    src.write_text(MODULE.replace("@main", "@entry"))  # no main: refused by the import step
    repro = tmp_path / "r.mlir"
    with contextlib.redirect_stdout(io.StringIO()):
        rc = hilo2penguin.run([str(src), "-o", str(tmp_path / "out"), f"--mlir-pass-pipeline-crash-reproducer={repro}"])
    first = capsys.readouterr().err
    assert rc == 1 and "no 'main' function" in first and "reproducer generated at" in first
    _body, entries = read_reproducer(repro.read_text())
    assert entries["pipeline"].startswith("builtin.module(hilo-import,call-inliner,")
    rc, stderr = _replay(repro, capsys)
    assert rc == 1
    assert stderr.splitlines()[0] == first.splitlines()[0]  # the same error at the same place


def test_reproducer_block_round_trips_quotes():
    text = reproducer_text("module {}\n", 'builtin.module(p{s="a b"})', verify_each=False)
    body, entries = read_reproducer(text)
    assert entries == {"pipeline": 'builtin.module(p{s="a b"})', "disable_threading": True, "verify_each": False}
    assert body.strip() == "module {}"


def test_unwritable_reproducer_does_not_hide_the_error(tmp_path):
    with make_context():
        m = ir.Module.parse(MODULE.replace("return %0", "%1 = func.call @main(%0) : (tensor<4xf32>) -> tensor<4xf32>\n  return %1"))
        p = Pipeline(
            steps_from_text("builtin.module(call-inliner)"),
            instrumentation=Instrumentation(reproducer=str(tmp_path / "missing" / "r.mlir")),
        )
        with pytest.raises(HiloError, match="recursive") as info:
            p.run(m)
    assert any(n.severity == "warning" and "could not write the crash reproducer" in n.message for n in info.value.notes)


RECURSIVE = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @loop(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @loop(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @loop(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


@pytest.mark.parametrize("replay_from", ["same folder", "elsewhere"])
def test_replay_quotes_the_line_as_the_normal_path(tmp_path, monkeypatch, capsys, replay_from):
    """The reproducer's locations name the compile's input (here relative): its line and caret are quoted, found from
    the current folder, else beside the reproducer."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "rec.mlir").write_text(RECURSIVE)
    monkeypatch.chdir(work)
    rc = opt.run(["rec.mlir", "--pass-pipeline=builtin.module(call-inliner)", "--mlir-pass-pipeline-crash-reproducer=repro.mlir"])
    normal = capsys.readouterr().err.splitlines()
    assert rc == 1 and normal[1:3] == ["  %0 = func.call @loop(%a) : (tensor<4xf32>) -> tensor<4xf32>", " " * 7 + "^"]
    if replay_from == "elsewhere":
        monkeypatch.chdir(tmp_path)
    rc = opt.run([str(work / "repro.mlir"), "--run-reproducer"])
    assert rc == 1
    assert capsys.readouterr().err.splitlines() == normal[:3]


def test_an_unwritable_reproducer_is_warned_about_once(tmp_path, capfd):
    src = tmp_path / "a.mlir"
    src.write_text(
        "func.func @main(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
        "  %0 = stablehlo.cholesky %a : tensor<2x2xf32>\n"
        "  return %0 : tensor<2x2xf32>\n}\n"
    )
    (tmp_path / "afile").write_text("")
    argv = [str(src), "-o", str(tmp_path / "o"), f"--mlir-pass-pipeline-crash-reproducer={tmp_path / 'afile' / 'r.mlir'}"]
    assert hilo2penguin.run(argv) == 1
    err = capfd.readouterr().err
    assert err.count("could not write the crash reproducer") == 1
    assert "error: 'stablehlo.cholesky'" in err


@pytest.mark.parametrize("named", ["/etc/passwd", "../secret.mlir", "SECRET_ABS", "link.mlir", "notes.txt"])
def test_replay_never_quotes_a_file_the_user_did_not_name(tmp_path, monkeypatch, capsys, named):
    """A reproducer is untrusted: a location naming a file outside the reproducer's folder (absolute, ``../``, a
    link leading out of it) or not an ``.mlir`` file is never read, so none of its lines reaches the output."""
    work = tmp_path / "work"
    work.mkdir()
    secret = tmp_path / "secret.mlir"
    secret.write_text("SECRET LINE ONE with enough text to be quoted\n" * 3)
    (work / "notes.txt").write_text("SECRET LINE ONE with enough text to be quoted\n" * 3)
    (work / "link.mlir").symlink_to(secret)
    (work / "rec.mlir").write_text(RECURSIVE)
    monkeypatch.chdir(work)
    rc = opt.run(["rec.mlir", "--pass-pipeline=builtin.module(call-inliner)", "--mlir-pass-pipeline-crash-reproducer=repro.mlir"])
    assert rc == 1
    capsys.readouterr()
    name = str(secret) if named == "SECRET_ABS" else named
    repro = work / "repro.mlir"
    text = repro.read_text().replace('loc("rec.mlir":', f'loc("{name}":')
    repro.write_text(text.replace(f'loc("{name}":5:', f'loc("{name}":1:'))  # line 1 of each exists
    assert f'loc("{name}":' in repro.read_text()
    rc = opt.run([str(repro), "--run-reproducer"])
    err = capsys.readouterr().err
    assert rc == 1 and f"{name}:" in err
    assert "SECRET" not in err
    passwd = open("/etc/passwd").read().splitlines()
    assert not [line for line in err.splitlines() if line.strip() and line.strip() in passwd]
