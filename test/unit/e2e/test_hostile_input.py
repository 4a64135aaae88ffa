"""Hostile shapes of input are one located error or a correct program (issue 23), never a signal or a traceback.

* nesting: attributes and tuple types nested deeper than Python's recursion
  limit (and than its parser's 200 brackets) print and run; past the parser's
  stack (2,000 levels) the text is refused, located, before parsing;
* a location used as an attribute value (the binding aborts on reading it) is
  refused before parsing; a constant of rank 65 (numpy's limit) is refused;
* ``hilo-opt`` isolates each module: a pass that dies of SIGSEGV is one line;
* a module attribute without a dialect prefix is one located error, not a dump;
* batch: colliding stems get distinct folders; a worker's MemoryError and a kill
  after the new program was published say what happened; a dangling-symlink
  OUTDIR names the link; a signal while the report is written is reported.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT

from hilo_mlir import penguin_ref
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.ir.limits import MAX_NESTING, check_location_attributes, check_nesting
from hilo_mlir.printers import print_program
from hilo_mlir.support.diagnostics import HiloError


def with_attr(attr: str) -> str:
    return (
        "func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n"
        f"  %0 = stablehlo.add %arg0, %arg0 {{foo = {attr}}} : tensor<2xf32>\n"
        "  return %0 : tensor<2xf32>\n}\n"
    )


def run_tool(tool: str, *args):
    return subprocess.run(
        [sys.executable, "-m", f"hilo_mlir.tools.{tool}", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        cwd=ROOT,
    )


@pytest.mark.parametrize(
    "attr",
    [
        "{a = " * 300 + "1 : i32" + "}" * 300,
        "[" * 300 + '"x"' + "]" * 300,
        "tuple<" * 150 + "f32" + ">" * 150,
        "[" + "{a = [" * 120 + "1.5" + "]}" * 120 + "]",
    ],
    ids=["dict300", "array300", "tuple150", "mixed240"],
)
def test_deep_attributes_print_and_run(attr):
    old = sys.getrecursionlimit()
    with make_context(False):
        m = ir.Module.parse(with_attr(attr))
        sys.setrecursionlimit(150)  # the printer and the allow-list need no recursion per level
        try:
            src, _ = print_program(m, "stablehlo")
        finally:
            sys.setrecursionlimit(old)
    assert max(len(line) - len(line.lstrip("[{(")) for line in src.splitlines()) < 100
    assert "a0 = " in src  # hoisted: no statement nests more than HOIST_DEPTH brackets
    (out,) = penguin_ref.run(src, [np.ones(2, np.float32)])
    assert out.tolist() == [2.0, 2.0]


def test_nesting_past_the_parser_stack_is_located(tmp_path):
    n = MAX_NESTING + 500
    text = with_attr("{a = " * n + "1 : i32" + "}" * n)
    with pytest.raises(HiloError, match=f"nests brackets more than {MAX_NESTING} levels deep") as ei:
        check_nesting(text, "in.mlir")
    assert ei.value.format().startswith(
        f"in.mlir:2:{len('  %0 = stablehlo.add %arg0, %arg0 {foo = ') + 5 * (MAX_NESTING - 2) + 1}:"
    )  # depth: the body, the attribute dict, then one per '{a = '
    check_nesting(with_attr("[" * 1000 + "1" + "]" * 1000) + '"' + "{" * 3000 + '"', "ok.mlir")  # strings do not count
    f = tmp_path / "deep.mlir"
    f.write_text(with_attr("{a = " * 20000 + "1 : i32" + "}" * 20000))
    for tool, args in (("opt", [str(f)]), ("hilo2penguin", [str(f), "-o", str(tmp_path / "o")])):
        r = run_tool(tool, *args)
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
        assert r.stderr.startswith(f"{f}:2:") and "nests brackets more than 2000 levels deep" in r.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "text,where",
    [
        ('#loc1 = loc("x")\n' + with_attr("#loc1"), "2:42"),
        (with_attr('[1 : i32, loc("f":1:2)]'), "1:1"),
        (with_attr('{b = loc(callsite("a" at "b"))}'), "1:1"),
    ],
)
def test_location_valued_attribute_is_located(text, where):
    with pytest.raises(HiloError, match="a location is used as an attribute value") as ei:
        check_location_attributes(text, "in.mlir")
    line = 3 if text.startswith("#") else 2
    assert ei.value.format().startswith(f"in.mlir:{line}:")


def test_locations_that_are_locations_pass():
    text = (
        '#loc1 = loc("f.py":1:2)\n#loc2 = loc(callsite(#loc1 at #loc1))\n#loc3 = loc("n"(#loc2))\n#loc4 = loc(fused[#loc1, #loc3])\n'
        'func.func @main(%a: tensor<2xf32> loc("a")) -> tensor<2xf32> {\n'
        '  %0 = stablehlo.add %a, %a {s = "= loc(x) = #loc1"} : tensor<2xf32> loc(#loc4)\n'
        "  return %0 : tensor<2xf32> loc(fused[#loc1, callsite(#loc2 at #loc3)])\n} loc(#loc1)\n// {x = #loc1}\n"
    )
    check_location_attributes(text, "ok.mlir")
    with make_context(False):
        ir.Module.parse(text)


def test_location_attribute_and_rank65_through_the_tools(tmp_path):
    loc = tmp_path / "loc.mlir"
    loc.write_text('#loc1 = loc("x")\n' + with_attr("#loc1"))
    shape = "x".join(["1"] * 65)
    r65 = tmp_path / "r65.mlir"
    r65.write_text(
        f"func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {{\n"
        f"  %c = stablehlo.constant dense<{'[' * 64}[1.0, 2.0]{']' * 64}> : tensor<{shape[:-1]}2xf32>\n"
        "  return %a : tensor<2xf32>\n}\n"
    )
    pipeline = "--pass-pipeline=builtin.module(stablehlo-legalize-to-hlo,mhlo-to-py-penguin)"
    for f, msg in ((loc, ":3:42: error: a location is used as an attribute value"), (r65, ":2:8: error: ")):
        for tool, args in (("opt", [str(f), pipeline]), ("hilo2penguin", [str(f), "-o", str(tmp_path / "o")])):
            r = run_tool(tool, *args)
            assert r.returncode == 1 and "Traceback" not in r.stderr and r.stderr.startswith(f"{f}{msg}"), r.stderr
        if f is r65:
            assert "a constant of rank 65 is not supported (at most 64 dimensions)" in r.stderr
    assert not (tmp_path / "o").exists()


def test_hilo_opt_isolates_a_crashing_pass(tmp_path):
    plugin = tmp_path / "crash.py"
    plugin.write_text(
        "import os, signal\nfrom hilo_mlir import PassInfo, register\n\n\ndef run(op, ctx):\n    os.kill(os.getpid(), signal.SIGSEGV)\n\n\n"
        'register(PassInfo("test-crash", "crash", run, anchor="builtin.module"))\n'
    )
    f = tmp_path / "in.mlir"
    f.write_text(with_attr("1 : i32"))
    r = run_tool("opt", str(f), f"--load-pass-plugin={plugin}", "--test-crash", "-o", str(tmp_path / "out.mlir"))
    assert r.returncode == 1
    assert r.stderr == "hilo-opt: error: the compiler crashed (SIGSEGV) while running pass 'test-crash' on this input; this is a bug\n"
    assert not (tmp_path / "out.mlir").exists()


def test_module_attribute_without_prefix_is_one_located_error(tmp_path):
    f = tmp_path / "m.mlir"
    f.write_text('module attributes {input_names = ["a"]} {\n' + with_attr("1 : i32") + "}\n")
    for tool, args in (("opt", [str(f)]), ("hilo2penguin", [str(f), "-o", str(tmp_path / "o")])):
        r = run_tool(tool, *args)
        assert r.returncode == 1
        lines = r.stderr.splitlines()
        assert (
            lines[0] == f"{f}:1:1: error: 'builtin.module' op can only contain attributes with dialect-prefixed names, found: 'input_names'"
        )
        assert len(lines) == 3 and lines[2].strip() == "^"  # the source line and the caret; no dump of the module


# -- batch -----------------------------------------------------------------------------------------


def test_colliding_stems_get_distinct_folders(tmp_path):
    from hilo_mlir.tools.batch.discovery import discover

    for rel in ("a/x.mlir", "b/x.mlir", "x.mlir", "x.pb", "x_mlir.mlir", "c/x_mlir_2.mlir"):
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("")
    files = [str(tmp_path / r) for r in ("a/x.mlir", "b/x.mlir", "x.mlir", "x.pb", "x_mlir.mlir", "c/x_mlir_2.mlir")]
    items = discover(files)
    stems = {os.path.relpath(it.path, tmp_path): it.rel_stem for it in items}
    assert len(set(stems.values())) == len(files)
    assert stems == {
        "a/x.mlir": "x_mlir",
        "b/x.mlir": "x_mlir_3",
        "c/x_mlir_2.mlir": "x_mlir_2",
        "x.mlir": "x_mlir_4",
        "x.pb": "x_pb",
        "x_mlir.mlir": "x_mlir_5",
    }


def test_worker_out_of_memory_and_cleanup_kill_are_named():
    from hilo_mlir.tools.batch.classify import WorkerOutcome, classify
    from hilo_mlir.tools.batch.single import message
    from hilo_mlir.tools.batch.worker import EXIT_OUT_OF_MEMORY, WorkerJob

    for stage, words in (("read", "reading the input"), ("parse", "parsing the input")):
        r = classify(WorkerOutcome("m.mlir", EXIT_OUT_OF_MEMORY << 8, 0.1, last_pass=stage))
        assert (r.status, r.diagnostic) == ("rejected", f"m.mlir: error: out of memory while {words}")
    r = classify(WorkerOutcome("m.mlir", signal.SIGKILL, 0.1, last_pass="clean-up"))
    job = WorkerJob("m.mlir", "/out", None, False)
    assert message(r, job) == (
        "hilo2penguin: error: killed (SIGKILL) after writing /out/penguin.py, while removing the previous program's files "
        "(the new program is complete; a file of the previous one may remain)"
    )


def test_dangling_symlink_outdir(tmp_path):
    from hilo_mlir.support.packaging import write_program
    from hilo_mlir.tools.batch import prepare_outdir

    link = tmp_path / "out"
    link.symlink_to(tmp_path / "gone")
    with pytest.raises(
        HiloError, match=f"cannot use output folder '{link}': it is a symbolic link to '{tmp_path / 'gone'}', which does not exist"
    ):
        prepare_outdir(str(link))
    with pytest.raises(NotADirectoryError, match=r"out. is a symbolic link to"):
        write_program(str(link / "sub"), "x = 1\n")
    assert not (tmp_path / "gone").exists()


def test_signal_while_the_report_is_written(tmp_path, monkeypatch):
    import json

    from hilo_mlir.driver.config import CompileConfig
    from hilo_mlir.tools import batch

    f = tmp_path / "bad.mlir"
    f.write_text("func.func @main(\n")
    real = batch.write_report
    calls = []

    def write_and_interrupt(path, results, interrupted, total):
        calls.append(interrupted)
        real(path, results, interrupted, total)
        if len(calls) == 1:
            os.kill(os.getpid(), signal.SIGINT)  # lands after the last module, while the report is written

    monkeypatch.setattr(batch, "write_report", write_and_interrupt)
    report = tmp_path / "r.json"
    code = batch.run_batch([str(f)], str(tmp_path / "o"), CompileConfig(), report=str(report), stdout=open(os.devnull, "w"))
    assert code == 130 and calls == [False, True]
    doc = json.loads(report.read_text())
    assert doc["interrupted"] is True and [m["status"] for m in doc["modules"]] == ["rejected"]


def test_deep_custom_call_configs_are_data_or_one_error():
    """Configs are read without recursion; a JSON config deeper than Python's decoder allows is NCC_EVRF036, located."""
    n = 1500
    call = "  %1 = stablehlo.custom_call @{t}(%arg0) {{backend_config = {c}}} : (tensor<2x4xf32>) -> tensor<2x4xf32>\n"
    head, tail = "func.func @main(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {\n", "  return %1 : tensor<2x4xf32>\n}\n"
    deep = "{a = " * n + "1" + "}" * n
    with make_context(False):
        m = ir.Module.parse(head + call.format(t="AwsNeuronDevicePrint", c=f"{{prefix = {deep}}}, api_version = 4 : i32") + tail)
        src, _ = print_program(m, "stablehlo")
        assert "prefix=\"{'a': {'a': " in src
        m = ir.Module.parse(head + call.format(t="AwsFSPattern5", c=f"{{dim = {deep}}}, api_version = 4 : i32") + tail)
        with pytest.raises(HiloError, match=r"NCC_EVRF036: .*'dim' must be an integer, got \{'a': \{'a': .*\.\.\.$"):
            print_program(m, "stablehlo")
        m = ir.Module.parse(head + call.format(t="AwsFSPattern5", c='"{\\"dim\\": ' + "[" * 100000 + "]" * 100000 + '}"') + tail)
        with pytest.raises(HiloError, match="backend_config JSON nests too deeply to be read"):
            print_program(m, "stablehlo")
