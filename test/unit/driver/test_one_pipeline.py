"""One configuration, one pipeline: ``CompileConfig`` becomes steps in one function
(:func:`hilo_mlir.driver.spine.build_spine`), spine edits operate on that list, and the main job runs
exactly the pipeline ``--dump-pass-pipeline`` prints (its import step included)."""

from __future__ import annotations

import contextlib
import dataclasses
import io

import pytest

from hilo_mlir.driver import compiler, spine
from hilo_mlir.driver.config import CompileConfig
from hilo_mlir.passmanager.instrumentation import Instrumentation
from hilo_mlir.passmanager.pipeline_parser import parse_pipeline
from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.tools import hilo2penguin

MODULE = """
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mhlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def _variants() -> list[tuple[str, CompileConfig]]:
    """One config per flag of CompileConfig (each field moved off its default), on both spines."""
    out = []
    for base_name, base in (("default", CompileConfig()), ("all", CompileConfig.preset("all"))):
        for stablehlo in (False, True):
            b = base.replace(stablehlo=stablehlo)
            out.append((f"{base_name}-{stablehlo}", b))
            for f in dataclasses.fields(CompileConfig):
                if f.name in ("stablehlo", "pass_edits"):
                    continue
                if f.name == "model_type":
                    for mt in ("transformer", "unet-inference"):
                        out.append((f"{base_name}-{stablehlo}-{mt}", b.replace(model_type=mt)))
                elif f.name == "input_types":
                    out.append((f"{base_name}-{stablehlo}-input_types", b.with_input_types(["tensor<4xf32>", "tensor<2x3xf32>"])))
                else:
                    out.append((f"{base_name}-{stablehlo}-{f.name}", b.replace(**{f.name: not getattr(b, f.name)})))
    return out


def _text(e) -> str:
    inner = "(" + ",".join(_text(c) for c in e.children) + ")" if e.children else ""
    return e.name + ("{" + e.options + "}" if e.options else "") + inner


def _elements(cfg: CompileConfig) -> list[str]:
    """The dumped pipeline's top-level elements, as text."""
    (root,) = parse_pipeline(spine.pipeline_text(cfg))
    return [_text(e) for e in root.children]


def test_model_type_survives_a_spine_edit():
    """The bug of issue 28: an edit rebuilt the steps by a second translation that dropped model-type."""
    cfg = CompileConfig(model_type="transformer")
    assert "model-type=transformer" in spine.pipeline_text(cfg)
    edited = cfg.insert_pass_after("25", "canonicalize")
    text = spine.pipeline_text(edited)
    assert "model-type=transformer" in text and "model-type=generic" not in text
    assert "sixty-four-hack,canonicalize{" in text


def test_model_type_survives_a_spine_edit_on_the_command_line():
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = hilo2penguin.run(["--dump-pass-pipeline", "--model-type", "transformer", "--insert-pass-after", "25=canonicalize"])
    assert rc == 0
    assert "model-type=transformer" in buf.getvalue() and "model-type=generic" not in buf.getvalue()


def test_a_no_op_edit_changes_nothing_for_every_flag():
    """For every flag of CompileConfig: replacing a step by its own dumped text, or inserting a pass and
    comparing the rest, leaves the dumped pipeline as it was."""
    for name, cfg in _variants():
        base = _elements(cfg)
        steps = spine.build_spine(cfg)
        printer = steps[-1]
        same = _elements(cfg.replace_pass(printer.argument, printer.text(full=True)))
        assert same == base, name
        first = next(e for e in spine.spine_entries(cfg) if e.enabled and e.label != "pre")
        inserted = _elements(cfg.insert_pass_after(first.label, "cse"))
        i = base.index(next(b for b in base if first.argument in b)) + 1
        assert inserted[i] == "cse", name
        assert inserted[:i] + inserted[i + 1 :] == base, name


def test_every_step_replaced_by_itself_is_the_same_pipeline():
    for cfg in (CompileConfig.preset("all"), CompileConfig.preset("all").replace(stablehlo=True, model_type="transformer")):
        base = _elements(cfg)
        for e in spine.spine_entries(cfg):
            if not e.enabled:
                continue
            where = e.argument if e.label == "pre" else e.label
            own = next(s for s in spine.build_spine(cfg) if s.argument == e.argument)
            if own.info is not None and own.info.terminal:  # the printer: it cannot be disabled (nothing would print)
                with pytest.raises(HiloError, match=f"--disable-pass {where}: step {where} '{e.argument}' is the printer"):
                    spine.build_spine(cfg.disable_pass(where))
            else:
                step = spine.build_spine(cfg.disable_pass(where))  # the step exists
                assert len(step) == len(base) - 2
            assert _elements(cfg.replace_pass(where, own.text(full=True))) == base, e.argument


def test_the_main_job_runs_the_dumped_pipeline():
    """The passes the compile starts are the dumped pipeline's, in order (the import step first)."""
    for cfg in (CompileConfig(), CompileConfig.preset("all").replace(stablehlo=True, model_type="transformer")):
        seen: list[str] = []
        compiler.compile_loaded(compiler.load_module(MODULE, "m.mlir"), cfg, Instrumentation(on_pass_start=seen.append))
        (root,) = parse_pipeline(spine.pipeline_text(cfg))
        dumped = [e.name if e.name != "func.func" else e.children[0].name for e in root.children]
        ran = [p for p in seen if p != "validate-input"]  # the import step's own stage
        assert ran == dumped


DYNAMIC = """
func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = mhlo.add %a, %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""


def test_input_types_are_the_first_step_of_the_dumped_pipeline():
    """--input-types is ``refine-shapes{input-types=...}`` before the import step, in the dump and in what runs."""
    cfg = CompileConfig().with_input_types(["tensor<4x32xf32>", "tensor<32x16xf32>"])
    assert cfg.input_types == "tensor<4x32xf32>,tensor<32x16xf32>"
    assert _elements(cfg)[:2] == ["refine-shapes{input-types='tensor<4x32xf32>,tensor<32x16xf32>'}", "hilo-import"]
    assert _elements(cfg)[1:] == _elements(CompileConfig())
    assert CompileConfig().with_input_types(None) == CompileConfig() == CompileConfig().with_input_types([])
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = hilo2penguin.run(["--dump-pass-pipeline", "--input-types=tensor<4xf32>", "--model-type", "transformer"])
    assert rc == 0
    assert buf.getvalue().startswith("builtin.module(refine-shapes{input-types=tensor<4xf32>},hilo-import,call-inliner,")
    seen: list[str] = []

    instr = Instrumentation(on_pass_start=seen.append)
    src = compiler.compile_loaded(compiler.load_module(DYNAMIC, "d.mlir"), CompileConfig(), instr, input_types="tensor<4xf32>")
    (root,) = parse_pipeline(spine.pipeline_text(CompileConfig(input_types="tensor<4xf32>")))
    assert [p for p in seen if p != "validate-input"][:2] == ["refine-shapes", "hilo-import"]
    assert [p for p in seen if p not in ("validate-input", "stablehlo-legalize-to-hlo")] == [
        e.name if e.name != "func.func" else e.children[0].name for e in root.children
    ]
    assert "shape=(4,)" in src and "?" not in src


def test_max_pass_index_counts_the_refinement():
    """--max-pass-index 1 with input types runs refine-shapes (0) and hilo-import (1), then only the printer."""
    src = compiler.compile_loaded(compiler.load_module(DYNAMIC, "d.mlir"), CompileConfig(max_pass_index=1), input_types="tensor<4xf32>")
    bisect = [line for line in src.log if line.startswith("BISECT")]
    assert bisect[:3] == [
        "BISECT: running pass (0) refine-shapes",
        "BISECT: running pass (1) hilo-import",
        "BISECT: NOT running pass (2) call-inliner",
    ]
    assert bisect[-1] == f"BISECT: running pass ({len(bisect) - 1}) mhlo-to-py-penguin" and "shape=(4,)" in src


@pytest.mark.parametrize("flag", ["--model-type", "--spine"])
def test_list_spine_and_dump_agree(flag):
    value = "transformer" if flag == "--model-type" else "stablehlo"
    cfg = hilo2penguin.config_from_args(hilo2penguin.build_parser().parse_args(["x", flag, value, "--disable-pass", "remove-dead-values"]))
    listed = [line.split()[1] for line in spine.list_spine(cfg).splitlines()[1:] if not line.split()[1].startswith("(")]
    dumped = _elements(cfg)[1:]
    assert [d.split("{")[0].removeprefix("func.func(") for d in dumped] == [x.split("{")[0] for x in listed]


def _derived_variants() -> list[tuple[str, CompileConfig]]:
    """Configs where a CompileConfig field gives a step options: model-type (printer), the two fusion
    options (step 15), the StableHLO spine (step 1a's allow-xla-features), on the default and "all" presets."""
    out = []
    for base_name, base in (("default", CompileConfig(op_fusion=True)), ("all", CompileConfig.preset("all"))):
        for stablehlo in (False, True):
            b = base.replace(stablehlo=stablehlo)
            out.append((f"{base_name}-{stablehlo}", b))
            for mt in ("transformer", "unet-inference"):
                out.append((f"{base_name}-{stablehlo}-{mt}", b.replace(model_type=mt)))
            for f in ("fuse_dot_logistic", "general_elementwise_fusion"):
                out.append((f"{base_name}-{stablehlo}-{f}", b.replace(**{f: not getattr(b, f)})))
    return out


def test_a_step_replaced_by_its_bare_pass_keeps_the_configured_options():
    """``--replace-pass STEP=<its own pass>`` with no options is the configured step, for every step and every
    config-derived option (issue 28: ``--replace-pass X=X`` wrote the default model-type)."""
    derived = 0
    for name, cfg in _derived_variants():
        base = _elements(cfg)
        configured = {s.argument: s for s in spine.build_spine(cfg)}
        for e in spine.spine_entries(cfg):
            if not e.enabled:
                continue
            where = e.argument if e.label == "pre" else e.label
            assert _elements(cfg.replace_pass(where, e.argument)) == base, (name, e.argument)
            derived += configured[e.argument].text() != e.argument  # the step has non-default options
    assert derived >= 20  # model-type, fusion options and 1a were among them


def test_a_bare_replacement_keeps_model_type_and_written_options_are_exact():
    cfg = CompileConfig(model_type="transformer")
    assert "model-type=transformer" in spine.pipeline_text(cfg.replace_pass("32", "mhlo-to-py-penguin"))
    written = spine.pipeline_text(cfg.replace_pass("mhlo-to-py-penguin", "mhlo-to-py-penguin{root=my.backend}"))
    assert "mhlo-to-py-penguin{inline-constant-max-elements=256 model-type=generic output= root=my.backend}" in written
    shlo = CompileConfig(stablehlo=True, op_fusion=True, fuse_dot_logistic=True)
    assert _elements(shlo.replace_pass("1a", "hlo-legalize-to-stablehlo")) == _elements(shlo)
    assert "allow-xla-features=false" in spine.pipeline_text(shlo.replace_pass("1a", "hlo-legalize-to-stablehlo{allow-xla-features=false}"))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = hilo2penguin.run(["--dump-pass-pipeline", "--model-type", "transformer", "--replace-pass", "32=mhlo-to-py-penguin"])
    assert rc == 0 and "model-type=transformer" in buf.getvalue() and "model-type=generic" not in buf.getvalue()
