"""``hilo2penguin``: the main job (seed 004 ``HiloCompileInternal``).

Usage::

    hilo2penguin INPUT -o OUTDIR [--spine mhlo|stablehlo] [--preset default|all]
                 [--model-type generic|transformer|unet-inference] [--weights INDEX=FILE.npy ...]
                 [--enable-<gate> | --disable-<gate> ...] [--dump-pass-pipeline]
                 [--mlir-timing] [--mlir-pass-statistics] [--mlir-print-ir-after-all]
                 [--allow-unregistered-dialect] [--debug]
    hilo2penguin --batch INPUTS... -o OUTDIR [--jobs N] [--report report.json] [--timeout S]

Batch mode (:mod:`hilo_mlir.batch`): INPUTS are files or folders (recursively
``*.mlir``, ``*.pb``); every module compiles in its own worker process and
goes to ``OUTDIR/<relative path stem>/penguin.py``; statuses ok / rejected /
crashed / timeout; exit 0 only if every module is ok or rejected.

INPUT is a ``.mlir`` file (stablehlo or mhlo, detected; text, bytecode, or a
StableHLO portable artifact such as ``jax.export``'s ``mlir_module_serialized``,
detected by content) or a serialized ``HloModuleProto`` (``.pb``).
``--input-types`` specializes a shape-polymorphic module. The Penguin program goes to ``OUTDIR/penguin.py``
(written to a temporary name and renamed into place only after everything
succeeded). Exit 0 on success, 1 on any error (one line on stderr).
"""

from __future__ import annotations

import argparse
import os
import sys

from ..config import CompileConfig
from .common import bool_flag
from ..diagnostics import HiloError


def _kebab(name: str) -> str:
    return name.replace("_", "-")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="hilo2penguin",
        description="Compile an mhlo/stablehlo module or an HloModuleProto to a Penguin Python program (penguin.py).",
    )
    ap.add_argument("inputs", nargs="*", metavar="INPUT",
                    help="a .mlir file (mhlo or stablehlo) or an HloModuleProto (.pb); with --batch: files or folders")
    ap.add_argument("-o", "--output-dir", dest="outdir", default=None, help="output folder for penguin.py")
    ap.add_argument("--spine", choices=("mhlo", "stablehlo"), default="mhlo", help="which pipeline spine (default mhlo)")
    ap.add_argument("--preset", choices=("default", "all"), default="default", help="'all' turns every gate on")
    ap.add_argument("--model-type", choices=("generic", "transformer", "unet-inference"), default="generic",
                    help="the model-type the program's Function prologue records (default generic)")
    ap.add_argument("--weights", nargs="+", default=[], metavar="INDEX=FILE.npy",
                    help="make input INDEX of main a parameter loaded from FILE.npy: the weight is written beside "
                         "penguin.py as input_<INDEX>.npy, in the input's dtype")
    ap.add_argument("--dump-pass-pipeline", action="store_true", help="print the assembled spine, one pass per line, and exit")
    ap.add_argument("--mlir-timing", action="store_true", help="per-pass wall time on stderr")
    ap.add_argument("--mlir-pass-statistics", action="store_true", help="pass statistics on stderr")
    ap.add_argument("--mlir-print-ir-after-all", action="store_true", help="IR after every pass on stderr")
    ap.add_argument("--mlir-print-ir-before-all", action="store_true", help="IR before every pass on stderr")
    ap.add_argument("--allow-unregistered-dialect", action="store_true", help="accept ops of unknown dialects")
    ap.add_argument("--verify-each", nargs="?", const=True, default=False, type=bool_flag, metavar="BOOL",
                    help="run the verifier after every pass and name the pass that broke the IR "
                         "(default false: the module is verified once, before printing)")
    ap.add_argument("--fusion-report", metavar="DIR", default=None,
                    help="write DIR/fusion_report.json and DIR/fusion_report.html: every cluster the fusion passes "
                         "formed and every candidate they refused, with the rule that refused it")
    ap.add_argument("--debug", action="store_true",
                    help="print the passes' debug lines to stderr (e.g. the 64-bit values sixty-four-hack narrowed without a proof)")
    ap.add_argument("--input-types", default=None, metavar="TYPES",
                    help="static types of main's arguments, e.g. 'tensor<4x32xf32>,tensor<32x16xf32>': specializes a "
                         "shape-polymorphic module and refines every shape (JAX's shape assertions are checked)")
    b = ap.add_argument_group("batch mode")
    b.add_argument("--batch", action="store_true",
                   help="compile every module of INPUTS (files or folders, recursively *.mlir/*.pb) into OUTDIR/<stem>/penguin.py")
    b.add_argument("--jobs", "-j", type=int, default=None, help="worker processes at a time (default: number of CPUs)")
    b.add_argument("--report", default=None, help="write the per-module report (JSON) here")
    b.add_argument("--timeout", type=float, default=None, metavar="S",
                   help="with --batch: seconds per module before it is killed (status 'timeout'); "
                        "also bounds reading a binary input (bytecode, .pb: default 300 s)")
    g = ap.add_argument_group("gates (defaults as the binary: lower-complex and sixty-four-hack on, the rest off)")
    defaults = CompileConfig()
    for name in CompileConfig.gate_names():
        g.add_argument(f"--enable-{_kebab(name)}", dest=f"gate_{name}", action="store_const", const=True, default=None,
                       help=f"turn '{_kebab(name)}' on (default {'on' if getattr(defaults, name) else 'off'})")
        g.add_argument(f"--disable-{_kebab(name)}", dest=f"gate_{name}", action="store_const", const=False, help=f"turn '{_kebab(name)}' off")
    return ap


def config_from_args(args) -> CompileConfig:
    cfg = CompileConfig.preset(args.preset)
    for name in CompileConfig.gate_names():
        v = getattr(args, f"gate_{name}")
        if v is not None:
            setattr(cfg, name, v)
    cfg.stablehlo = args.spine == "stablehlo"
    cfg.verify_each = bool(args.verify_each)
    cfg.model_type = args.model_type
    return cfg


def run(argv: list[str]) -> int:
    ap = build_parser()

    class _Err(Exception):
        pass

    def _error(msg):
        raise _Err(msg)

    ap.error = _error
    try:
        args = ap.parse_args(argv)
    except _Err as e:
        sys.stderr.write(f"hilo2penguin: error: {e} (see 'hilo2penguin --help')\n")
        return 1
    cfg = config_from_args(args)

    from .. import compiler

    if args.dump_pass_pipeline:
        for step in compiler.build_spine(cfg):
            sys.stdout.write(step.text() + "\n")
        return 0
    if not args.inputs:
        sys.stderr.write("hilo2penguin: error: no input file (see 'hilo2penguin --help')\n")
        return 1
    if not args.outdir:
        sys.stderr.write("hilo2penguin: error: no output folder: pass -o OUTDIR\n")
        return 1
    if args.batch:
        for flag, given in (("--input-types", args.input_types is not None), ("--weights", bool(args.weights)),
                            ("--fusion-report", args.fusion_report is not None), ("--debug", args.debug)):
            if given:
                sys.stderr.write(f"hilo2penguin: error: {flag} needs a single input, not --batch\n")
                return 1
        return _run_batch(args, cfg)
    for flag, given in (("--jobs", args.jobs is not None), ("--report", args.report)):
        if given:
            sys.stderr.write(f"hilo2penguin: error: {flag} needs --batch\n")
            return 1
    if args.timeout is not None and args.timeout <= 0:
        sys.stderr.write("hilo2penguin: error: --timeout must be positive\n")
        return 1
    if len(args.inputs) > 1:
        sys.stderr.write("hilo2penguin: error: several inputs given: pass one input, or use --batch\n")
        return 1
    args.input = args.inputs[0]
    return _run_single(args, cfg)


def _run_single(args, cfg) -> int:
    """Compile one input into OUTDIR in a worker process (a crash or hang there is one line)."""
    from ..batch.single import run_single
    from ..batch.worker import WorkerJob

    if os.path.exists(args.outdir) and not os.path.isdir(args.outdir):
        sys.stderr.write(f"hilo2penguin: error: cannot write to output folder '{args.outdir}': it is a file, not a folder\n")
        return 1
    job = WorkerJob(
        args.input, args.outdir, cfg, allow_unregistered=args.allow_unregistered_dialect, read_timeout=args.timeout,
        print_before_all=args.mlir_print_ir_before_all, print_after_all=args.mlir_print_ir_after_all,
        timing=args.mlir_timing, statistics=args.mlir_pass_statistics, input_types=args.input_types,
        fusion_report=args.fusion_report, debug=args.debug,
    )
    try:
        job.weights = _read_weights(args.weights)  # read before compiling: a bad file fails fast
    except HiloError as e:
        sys.stderr.write(_one_line(e.format(args.input)) + "\n")
        return 1
    debug = job.print_before_all or job.print_after_all or job.timing or job.statistics or job.debug
    return run_single(job, timeout=args.timeout, forward=debug)


def _read_weights(specs) -> dict:
    """``--weights INDEX=FILE.npy ...`` -> ``{index: array}`` (read before compiling: a bad file fails fast)."""
    if not specs:
        return {}
    from ..weights import load_weight, parse_weight_args

    return {i: load_weight(path, i) for i, path in parse_weight_args(specs).items()}


def _one_line(text: str) -> str:
    """A diagnostic on one line (MLIR messages may carry newlines)."""
    return " ".join(text.split())


def _run_batch(args, cfg) -> int:
    from ..batch import run_batch

    if args.jobs is not None and args.jobs < 1:
        sys.stderr.write("hilo2penguin: error: --jobs must be at least 1\n")
        return 1
    if args.timeout is not None and args.timeout <= 0:
        sys.stderr.write("hilo2penguin: error: --timeout must be positive\n")
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

    run_main("hilo2penguin", run)


if __name__ == "__main__":
    main()
