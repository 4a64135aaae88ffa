"""``hilo2penguin``: the main job (seed 004 ``HiloCompileInternal``).

Usage::

    hilo2penguin INPUT -o OUTDIR [--spine mhlo|stablehlo] [--preset default|all]
                 [--enable-<gate> | --disable-<gate> ...] [--dump-pass-pipeline] [--list-spine]
                 [--mlir-timing] [--mlir-pass-statistics] [--mlir-print-ir-{before,after}[-all]...]
                 [--mlir-pass-pipeline-crash-reproducer=FILE] [--verify-each] [--version]
                 [--load-pass-plugin=PATH_OR_MODULE] [--insert-pass-after STEP=PASS] [--insert-pass-before STEP=PASS]
                 [--replace-pass STEP=PASS] [--disable-pass STEP]
    hilo2penguin --batch INPUTS... -o OUTDIR [--jobs N] [--report report.json] [--timeout S]

Batch mode (:mod:`hilo_mlir.batch`): INPUTS are files or folders (recursively
``*.mlir``, ``*.pb``); every module compiles in its own worker process and
goes to ``OUTDIR/<relative path stem>/penguin.py``; statuses ok / rejected /
crashed / timeout; exit 0 only if every module is ok or rejected.

INPUT is a ``.mlir`` file (stablehlo or mhlo, detected) or a serialized
``HloModuleProto`` (``.pb``). The Penguin program goes to ``OUTDIR/penguin.py``
(written to a temporary name and renamed into place only after everything
succeeded). Exit 0 on success, 1 on any error (``file:line:col: error: ...``
with the source line on stderr).
"""

from __future__ import annotations

import os
import sys

from ..config import CompileConfig
from ..diagnostics import HiloError
from .flags import (
    ArgumentParser,
    UsageError,
    add_ir_printing_flags,
    add_plugin_flag,
    check_pass_filters,
    instrumentation_from_args,
    load_plugins,
    render_error,
)

TOOL = "hilo2penguin"


def _kebab(name: str) -> str:
    return name.replace("_", "-")


def _plugin_epilog() -> str | None:
    from .. import registry

    passes = registry.plugin_passes()
    if not passes:
        return None
    lines = ["plugin passes (for --insert-pass-after/--insert-pass-before/--replace-pass):"]
    lines += [f"  {p.argument}: {p.summary} (plugin: {p.origin})" for p in passes]
    return "\n".join(lines)


def _edit(kind: str):
    def parse(text: str):
        return kind, text

    return parse


def build_parser() -> ArgumentParser:
    import argparse

    ap = ArgumentParser(
        prog=TOOL,
        description="Compile an mhlo/stablehlo module or an HloModuleProto to a Penguin Python program (penguin.py).",
        epilog=_plugin_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("inputs", nargs="*", metavar="INPUT",
                    help="a .mlir file (mhlo or stablehlo) or an HloModuleProto (.pb); with --batch: files or folders")
    ap.add_argument("-o", "--output-dir", dest="outdir", default=None, help="output folder for penguin.py")
    ap.add_argument("--spine", choices=("mhlo", "stablehlo"), default="mhlo", help="which pipeline spine (default mhlo)")
    ap.add_argument("--preset", choices=("default", "all"), default="default", help="'all' turns every gate on")
    ap.add_argument("--version", action="store_true", help="print the versions of hilo_mlir, jaxlib and StableHLO and exit")
    ap.add_bool_flag("--dump-pass-pipeline",
                     help="print the whole pipeline (import step, spine, every option) as one "
                          "'builtin.module(...)' that hilo-opt --pass-pipeline accepts, and exit")
    ap.add_bool_flag("--list-spine", help="print the spine, one step per line with its number and gate, and exit")
    ap.add_bool_flag("--allow-unregistered-dialect", help="accept ops of unknown dialects")
    add_ir_printing_flags(ap, verify_each_default=False)
    e = ap.add_argument_group("plugins and spine edits (STEP: a spine pass argument such as neuron-op-fusion, "
                              "or a step number such as 15 or 14a; see --list-spine)")
    add_plugin_flag(e)
    for flag, kind, meta, text in (
        ("--insert-pass-after", "insert-after", "STEP=PASS", "run PASS[{options}] right after STEP (repeatable)"),
        ("--insert-pass-before", "insert-before", "STEP=PASS", "run PASS[{options}] right before STEP (repeatable)"),
        ("--replace-pass", "replace", "STEP=PASS", "run PASS[{options}] instead of STEP"),
        ("--disable-pass", "disable", "STEP", "do not run STEP"),
    ):
        e.add_argument(flag, dest="pass_edits", action="append", default=[], type=_edit(kind), metavar=meta, help=text)
    b = ap.add_argument_group("batch mode")
    b.add_argument("--batch", action="store_true",
                   help="compile every module of INPUTS (files or folders, recursively *.mlir/*.pb) into OUTDIR/<stem>/penguin.py")
    b.add_argument("--jobs", "-j", type=int, default=None, help="worker processes at a time (default: number of CPUs)")
    b.add_argument("--report", default=None, help="write the per-module report (JSON) here")
    b.add_argument("--timeout", type=float, default=None, help="seconds per module before it is killed (status 'timeout')")
    g = ap.add_argument_group("gates (defaults as the binary: lower-complex and sixty-four-hack on, the rest off)")
    defaults = CompileConfig()
    for name in CompileConfig.gate_names():
        g.add_argument(f"--enable-{_kebab(name)}", dest=f"gate_{name}", action="store_const", const=True, default=None,
                       help=f"turn '{_kebab(name)}' on (default {'on' if getattr(defaults, name) else 'off'})")
        g.add_argument(f"--disable-{_kebab(name)}", dest=f"gate_{name}", action="store_const", const=False,
                       help=f"turn '{_kebab(name)}' off")
    return ap


def config_from_args(args) -> CompileConfig:
    cfg = CompileConfig.preset(args.preset)
    for name in CompileConfig.gate_names():
        v = getattr(args, f"gate_{name}")
        if v is not None:
            setattr(cfg, name, v)
    cfg.stablehlo = args.spine == "stablehlo"
    cfg.verify_each = bool(args.verify_each)
    from ..spine_edits import PassEdit

    cfg.pass_edits = tuple(PassEdit.parse(kind, text) for kind, text in args.pass_edits)
    return cfg


def _parse(argv: list[str]):
    load_plugins(argv)  # first: the parser's help lists the plugins' passes
    ap = build_parser()
    args = ap.parse_args(argv)
    check_pass_filters(args)
    return args


def run(argv: list[str]) -> int:
    try:
        args = _parse(argv)
    except UsageError as e:
        sys.stderr.write(f"{TOOL}: error: {e} (see 'hilo2penguin --help')\n")
        return 1
    except HiloError as e:
        sys.stderr.write(render_error(e, TOOL) + "\n")
        return 1
    if args.version:
        from .flags import version_text

        sys.stdout.write(version_text(TOOL))
        return 0
    try:
        cfg = config_from_args(args)
        if args.dump_pass_pipeline or args.list_spine:
            from .. import spine

            sys.stdout.write(spine.pipeline_text(cfg) + "\n" if args.dump_pass_pipeline else spine.list_spine(cfg))
            return 0
        problem = _check_inputs(args)
        if problem:
            sys.stderr.write(f"{TOOL}: error: {problem}\n")
            return 1
        if args.batch:
            return _run_batch(args, cfg)
        return _compile_one(args, cfg)
    except HiloError as e:
        sys.stderr.write(e.render(tool=TOOL) + "\n")
        return 1


def _check_inputs(args) -> str | None:
    if not args.inputs:
        return "no input file (see 'hilo2penguin --help')"
    if not args.outdir:
        return "no output folder: pass -o OUTDIR"
    if args.batch:
        return None
    for flag, given in (("--jobs", args.jobs is not None), ("--report", args.report), ("--timeout", args.timeout is not None)):
        if given:
            return f"{flag} needs --batch"
    if len(args.inputs) > 1:
        return "several inputs given: pass one input, or use --batch"
    return None


def _compile_one(args, cfg) -> int:
    from .. import compiler
    from ..io_utils import read_input
    from ..packaging import write_program

    path = args.inputs[0]
    instr = instrumentation_from_args(args, out=sys.stderr)
    sources: dict = {}

    def warn(d):
        from ..diagnostics import render

        sys.stderr.write(render(d.severity, d.message, d.raw if d.raw is not None else d.loc, filename=path,
                                sources=sources, tool=TOOL) + "\n")

    instr.on_diagnostic = warn
    before = None
    try:
        data = read_input(path)
        if not data.startswith(b"ML\xefR"):
            try:
                sources[path] = data.decode("utf-8")
            except UnicodeDecodeError:
                pass
        loaded = compiler.load_module(data, path, allow_unregistered=args.allow_unregistered_dialect)
        if instr.reproducer:
            from ..reproducer import snapshot

            with loaded.context:
                before = snapshot(loaded.module, path)
        src = compiler.compile_loaded(loaded, cfg, instrumentation=instr)
    except HiloError as e:
        if before is not None:
            _import_reproducer(e, instr.reproducer, before, cfg)
        e.message = _one_line(e.message)
        sys.stderr.write(render_error(e, TOOL, path, sources) + "\n")
        return 1
    _reports(args, src)
    try:
        out = write_program(args.outdir, src)
    except OSError as e:
        sys.stderr.write(f"{TOOL}: error: cannot write to output folder '{args.outdir}': {e.strerror or e}\n")
        return 1
    sys.stdout.write(f"wrote {out}\n")
    return 0


def _import_reproducer(e: HiloError, path: str, before: str, cfg) -> None:
    """A failure before the spine (validation, the bridge): the reproducer is the input and the
    whole pipeline, whose import step fails the same way."""
    if any("reproducer generated at" in n.message for n in e.notes):
        return  # the spine's pipeline wrote the local reproducer of the failing pass
    from .. import spine
    from ..reproducer import write_reproducer

    e.notes = list(e.notes) + [write_reproducer(path, before, spine.pipeline_text(cfg), verify_each=cfg.verify_each,
                                                failing=e.pass_name or "HiloImport")]


def _reports(args, src) -> None:
    from ..instrumentation import statistics_report, timing_report

    if args.mlir_timing:
        sys.stderr.write(timing_report(src.timings))
    if args.mlir_pass_statistics:
        sys.stderr.write(statistics_report(src.statistics))


def _one_line(text: str) -> str:
    """A diagnostic on one line (MLIR messages may carry newlines)."""
    return " ".join(text.split())


def _run_batch(args, cfg) -> int:
    from ..batch import run_batch

    if args.jobs is not None and args.jobs < 1:
        sys.stderr.write(f"{TOOL}: error: --jobs must be at least 1\n")
        return 1
    if args.timeout is not None and args.timeout <= 0:
        sys.stderr.write(f"{TOOL}: error: --timeout must be positive\n")
        return 1
    jobs = args.jobs or os.cpu_count() or 1
    try:
        return run_batch(args.inputs, args.outdir, cfg, jobs=jobs, report=args.report, timeout=args.timeout,
                         allow_unregistered=args.allow_unregistered_dialect)
    except HiloError as e:
        sys.stderr.write(_one_line(e.format()) + "\n")
        return 1


def main() -> None:
    """Console-script entry point."""
    from .common import run_main

    run_main(TOOL, run)


if __name__ == "__main__":
    main()
