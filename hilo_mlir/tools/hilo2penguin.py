"""``hilo2penguin``: the main job (seed 004 ``HiloCompileInternal``).

Usage::

    hilo2penguin INPUT -o OUTDIR [--spine mhlo|stablehlo] [--preset default|all]
                 [--model-type generic|transformer|unet-inference] [--weights INDEX=FILE.npy ...]
                 [--input-types TYPES] [--fusion-report DIR] [--debug] [--timeout S]
                 [--enable-<gate> | --disable-<gate> ...] [--dump-pass-pipeline] [--list-spine]
                 [--mlir-timing] [--mlir-pass-statistics] [--mlir-print-ir-{before,after}[-all]...]
                 [--mlir-pass-pipeline-crash-reproducer=FILE] [--verify-each] [--version]
                 [--load-pass-plugin=PATH_OR_MODULE] [--insert-pass-after STEP=PASS] [--insert-pass-before STEP=PASS]
                 [--replace-pass STEP=PASS] [--disable-pass STEP]
    hilo2penguin --batch INPUTS... -o OUTDIR [--jobs N] [--report report.json] [--timeout S]
    [--cache-dir DIR | --no-cache]   (either mode: the compile cache, :mod:`hilo_mlir.driver.cache`)

Batch mode (:mod:`hilo_mlir.tools.batch`): INPUTS are files or folders (recursively
``*.mlir``, ``*.pb``); every module compiles in its own worker process and
goes to ``OUTDIR/<relative path stem>/penguin.py``; statuses ok / rejected /
crashed / timeout; exit 0 only if every module is ok or rejected.

INPUT is a ``.mlir`` file (stablehlo or mhlo, detected; text, bytecode, or a
StableHLO portable artifact such as ``jax.export``'s ``mlir_module_serialized``,
detected by content) or a serialized ``HloModuleProto`` (``.pb``).
``--input-types`` specializes a shape-polymorphic module. The compile runs in
a forked worker process (a crash or a hang there is one line). The Penguin
program goes to ``OUTDIR/penguin.py``
(written to a temporary name and renamed into place only after everything
succeeded). Exit 0 on success, 1 on any error (``file:line:col: error: ...``
with the source line on stderr).
"""

from __future__ import annotations

import os
import re
import sys

from hilo_mlir.driver.config import CompileConfig
from hilo_mlir.support.diagnostics import HiloError, printable, shown_path
from hilo_mlir.tools.flags import (
    ArgumentParser,
    UsageError,
    add_bisect_flags,
    add_ir_printing_flags,
    add_plugin_flag,
    check_pass_filters,
    instrumentation_from_args,
    load_plugins,
    render_error,
    wants_help,
)
from hilo_mlir.tools.opt_help import gate_help

TOOL = "hilo2penguin"


def _kebab(name: str) -> str:
    return name.replace("_", "-")


def _plugin_epilog() -> str | None:
    if "hilo_mlir.passmanager.registry" not in sys.modules:
        return None  # nothing loaded a plugin (none named, none installed): the bindings stay unimported
    from hilo_mlir.passmanager import registry

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
        description=(
            "Compile an mhlo/stablehlo module (MLIR text, bytecode or a portable artifact), an HloModuleProto or HLO text "
            "to a Penguin Python program (penguin.py)."
        ),
        epilog=_plugin_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument(
        "inputs",
        nargs="*",
        metavar="INPUT",
        help=(
            "a .mlir file (mhlo or stablehlo: text, bytecode or a portable artifact), an HloModuleProto (.pb) "
            "or HLO text (.hlo, .txt); with --batch: files or folders"
        ),
    )
    ap.add_argument("-o", "--output-dir", dest="outdir", default=None, help="output folder for penguin.py")
    ap.add_argument("--spine", choices=("mhlo", "stablehlo"), default="mhlo", help="which pipeline spine (default mhlo)")
    ap.add_argument("--preset", choices=("default", "all"), default="default", help="'all' turns every gate on")
    ap.add_argument(
        "--model-type",
        choices=("generic", "transformer", "unet-inference"),
        default="generic",
        help="the model-type the program's Function prologue records (default generic)",
    )
    ap.add_argument(
        "--weights",
        nargs="+",
        action="extend",
        default=[],
        metavar="INDEX=FILE.npy",
        help="make input INDEX of main a parameter loaded from FILE.npy: the weight is written beside "
        "penguin.py as input_<INDEX>.<content hash>.npy, in the input's dtype",
    )
    ap.add_argument(
        "--input-types",
        default=None,
        metavar="TYPES",
        help="static types of main's arguments, e.g. 'tensor<4x32xf32>,tensor<32x16xf32>': specializes a "
        "shape-polymorphic module and refines every shape (JAX's shape assertions are checked)",
    )
    ap.add_argument(
        "--fusion-report",
        metavar="DIR",
        default=None,
        help="write DIR/fusion_report.json and DIR/fusion_report.html: every cluster the fusion passes "
        "formed and every candidate they refused, with the rule that refused it",
    )
    ap.add_bool_flag(
        "--debug", help="print the passes' debug lines to stderr (e.g. the 64-bit values sixty-four-hack narrowed without a proof)"
    )
    ap.add_argument("--version", action="store_true", help="print the versions of hilo_mlir, jaxlib and StableHLO and exit")
    ap.add_bool_flag(
        "--dump-pass-pipeline",
        help="print the whole pipeline (import step, spine, every option) as one "
        "'builtin.module(...)' that hilo-opt --pass-pipeline accepts, and exit",
    )
    ap.add_bool_flag("--list-spine", help="print the spine, one step per line with its number and gate, and exit")
    ap.add_bool_flag("--allow-unregistered-dialect", help="accept ops of unknown dialects")
    add_ir_printing_flags(ap, verify_each_default=False)
    add_bisect_flags(ap)
    e = ap.add_argument_group(
        "plugins and spine edits (STEP: a spine pass argument such as neuron-op-fusion, "
        "or a step number such as 15 or 14a; see --list-spine)"
    )
    add_plugin_flag(e)
    for flag, kind, meta, text in (
        ("--insert-pass-after", "insert-after", "STEP=PASS", "run PASS[{options}] right after STEP (repeatable)"),
        ("--insert-pass-before", "insert-before", "STEP=PASS", "run PASS[{options}] right before STEP (repeatable)"),
        (
            "--replace-pass",
            "replace",
            "STEP=PASS",
            "run PASS[{options}] instead of STEP; STEP's own pass without options keeps the options the other flags give it "
            "(e.g. --model-type), with options it runs with exactly those",
        ),
        ("--disable-pass", "disable", "STEP", "do not run STEP"),
    ):
        e.add_argument(flag, dest="pass_edits", action="append", default=[], type=_edit(kind), metavar=meta, help=text)
    c = ap.add_argument_group(
        "compile cache (off by default; HILO_MLIR_CACHE_DIR turns it on too; HILO_MLIR_CACHE_URL: a shared tier, a folder)"
    )
    c.add_argument(
        "--cache-dir",
        metavar="DIR",
        default=None,
        help="keep every compiled program in DIR and publish it from there when the same input is compiled with the same flags",
    )
    ap.add_bool_flag("--no-cache", group=c, help="compile even if a cache folder is set (HILO_MLIR_CACHE_DIR)")
    b = ap.add_argument_group("batch mode")
    b.add_argument(
        "--batch",
        action="store_true",
        help="compile every module of INPUTS (files or folders, recursively *.mlir, *.pb, *.hlo and HLO-text *.txt) into "
        "OUTDIR/<stem>/penguin.py; the per-compile flags --debug, --input-types, --weights, --fusion-report, --mlir-timing, "
        "--mlir-pass-statistics, --mlir-print-ir-* and the crash reproducer need a single input",
    )
    b.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=None,
        help="worker processes at a time (default: CPUs; with --scheduler: tasks in flight)",
    )
    b.add_argument(
        "--scheduler",
        metavar="tcp://HOST:PORT",
        default=None,
        help="run one task per module on this Dask cluster (needs hilo-mlir[distributed] here and on the workers)",
    )
    b.add_argument("--report", default=None, help="write the per-module report (JSON) here")
    b.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds the compile (per module with --batch) may take before it is killed; binary inputs "
        "are read within this bound too (default 300 s for the read)",
    )
    defaults = CompileConfig()
    on = [_kebab(n) for n in CompileConfig.gate_names() if getattr(defaults, n)]
    g = ap.add_argument_group(f"gates (defaults as the binary: {', '.join(on[:-1])} and {on[-1]} on, the rest off)")
    for name in CompileConfig.gate_names():
        g.add_argument(
            f"--enable-{_kebab(name)}",
            dest=f"gate_{name}",
            action="store_const",
            const=True,
            default=None,
            help=gate_help(name, getattr(defaults, name)),
        )
        g.add_argument(
            f"--disable-{_kebab(name)}", dest=f"gate_{name}", action="store_const", const=False, help=f"turn '{_kebab(name)}' off"
        )
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
    cfg.max_pass_index = args.max_pass_index
    cfg.fusion_fuel = args.fusion_fuel
    cfg.input_types = args.input_types or None
    from hilo_mlir.driver.spine_edits import PassEdit

    cfg.pass_edits = tuple(PassEdit.parse(kind, text) for kind, text in args.pass_edits)
    return cfg


def _parse(argv: list[str]):
    from hilo_mlir.tools.flags import long_options, reclaim_positional

    argv = long_options(argv)  # -dump-pass-pipeline as --dump-pass-pipeline (LLVM's cl)
    # first: the parser's help lists the plugins' passes; installed ones are loaded
    # for --help, else only when a pass name is not built in (registry.get)
    load_plugins(argv, entry_points=wants_help(argv))
    ap = build_parser()
    args = ap.parse_args(argv)
    check_pass_filters(args)
    if not args.inputs:
        # `--weights 1=w.npy model.mlir -o out`: its last value, when not INDEX=FILE, is the input file
        # (a bad value before it stays a --weights error)
        swallowed = reclaim_positional(args.weights, lambda v: bool(_WEIGHT_SPEC.match(v)))
        if swallowed is not None:
            args.inputs = [swallowed]
    return args


#: a ``--weights`` value: an input index, ``=``, a file
_WEIGHT_SPEC = re.compile(r"\s*\d+=.")


def run(argv: list[str]) -> int:
    try:
        args = _parse(argv)
    except UsageError as e:
        sys.stderr.write(printable(f"{TOOL}: error: {e} (see 'hilo2penguin --help')") + "\n")
        return 1
    except HiloError as e:
        sys.stderr.write(render_error(e, TOOL) + "\n")
        return 1
    if args.version:
        from hilo_mlir.tools.flags import version_text

        sys.stdout.write(version_text(TOOL))
        return 0
    try:
        cfg = config_from_args(args)
        check_config(cfg)
        if args.dump_pass_pipeline or args.list_spine:
            from hilo_mlir.driver import spine

            sys.stdout.write(spine.pipeline_text(cfg) + "\n" if args.dump_pass_pipeline else spine.list_spine(cfg))
            return 0
        problem = _check_inputs(args)
        if problem:
            sys.stderr.write(printable(f"{TOOL}: error: {problem}") + "\n")
            return 1
        if args.batch:
            return _run_batch(args, cfg)
        return _compile_one(args, cfg)
    except HiloError as e:
        sys.stderr.write(e.render(tool=TOOL) + "\n")
        return 1


def check_config(cfg) -> None:
    """Check what the flags ask of the compile before any input is read, so that a mistake in them is a
    command-line error (``<tool>: error: --insert-pass-after 99=cse: ...``), never one blamed on the input:
    the spine edits (``--insert-pass-after`` ...) are applied to the spine once, ``--input-types`` is parsed.

    Raises:
        HiloError: without a location (:mod:`hilo_mlir.driver.spine_edits`; ``--input-types: input type #i ...``).
    """
    if cfg.pass_edits:
        from hilo_mlir.driver import spine

        spine.build_spine(cfg)
    if cfg.input_types:
        from hilo_mlir.driver.config import input_types_text
        from hilo_mlir.ir.binding import make_context
        from hilo_mlir.passes.importing.refine_shapes import parse_input_types

        with make_context():
            try:
                parse_input_types(input_types_text(cfg.input_types) or "")
            except HiloError as e:
                raise HiloError(f"--input-types: {e.message}") from None


def _check_inputs(args) -> str | None:
    if not args.inputs:
        return "no input file (see 'hilo2penguin --help')"
    if not args.outdir:
        return "no output folder: pass -o OUTDIR"
    if args.timeout is not None and args.timeout <= 0:
        return "--timeout must be positive"
    if args.batch:
        for flag, given in (
            ("--input-types", args.input_types is not None),
            ("--weights", bool(args.weights)),
            ("--fusion-report", args.fusion_report is not None),
            ("--debug", args.debug),
            ("--mlir-timing", args.mlir_timing),
            ("--mlir-pass-statistics", args.mlir_pass_statistics),
            ("--mlir-print-ir-before-all", args.mlir_print_ir_before_all),
            ("--mlir-print-ir-after-all", args.mlir_print_ir_after_all),
            ("--mlir-print-ir-before", bool(args.mlir_print_ir_before)),
            ("--mlir-print-ir-after", bool(args.mlir_print_ir_after)),
            ("--mlir-print-ir-after-failure", args.mlir_print_ir_after_failure),
            ("--mlir-pass-pipeline-crash-reproducer", args.mlir_pass_pipeline_crash_reproducer is not None),
        ):
            if given:
                return f"{flag} needs a single input, not --batch"
        return None
    for flag, given in (("--jobs", args.jobs is not None), ("--report", args.report), ("--scheduler", args.scheduler)):
        if given:
            return f"{flag} needs --batch"
    if len(args.inputs) > 1:
        return "several inputs given: pass one input, or use --batch"
    from hilo_mlir.support.io import check_input_file, folder_problem

    check_input_file(args.inputs[0])  # before the worker forks: the same error as hilo-opt's and hilo-check's
    if os.path.exists(args.outdir) and not os.path.isdir(args.outdir):
        return f"cannot write to output folder '{shown_path(args.outdir)}': it is a file, not a folder"
    problem = folder_problem(args.outdir, create=True)
    if problem is not None:
        return f"cannot create output folder '{shown_path(args.outdir)}': {problem}"
    if args.fusion_report:
        if os.path.exists(args.fusion_report) and not os.path.isdir(args.fusion_report):
            return f"--fusion-report: cannot write to '{shown_path(args.fusion_report)}': it is a file, not a folder"
        problem = folder_problem(args.fusion_report, create=True)
        if problem is not None:  # said before compiling, as the command line's error (not the input's)
            return f"--fusion-report: cannot create folder '{shown_path(args.fusion_report)}': {problem}"
    return None


def cache_from_args(args, single: bool = False):
    """The :class:`~hilo_mlir.driver.cache.CompileCache` the flags and environment ask for, or None.

    On with ``--cache-dir``, ``HILO_MLIR_CACHE_DIR`` or ``HILO_MLIR_CACHE_URL``
    (then in the default folder; ``HILO_MLIR_CACHE=0`` ignores both variables); off with ``--no-cache``, and for a single
    compile that must show the compile itself (``--debug``, ``--fusion-report``,
    IR printing, a crash reproducer).
    """
    if args.no_cache:
        return None
    if args.cache_dir:
        # a cache folder from the environment that cannot be written is skipped quietly (the compile
        # needs no cache); one named on the command line is a mistake the user can fix
        from hilo_mlir.support.io import folder_problem

        if os.path.exists(args.cache_dir) and not os.path.isdir(args.cache_dir):
            raise HiloError(f"cannot use cache folder '{shown_path(args.cache_dir)}': it is a file, not a folder")
        problem = folder_problem(args.cache_dir, create=True)
        if problem is not None:
            raise HiloError(f"cannot use cache folder '{shown_path(args.cache_dir)}': {problem}")
    env_off = os.environ.get("HILO_MLIR_CACHE", "").strip().lower() in ("0", "false", "no", "off")
    if not (args.cache_dir or (not env_off and (os.environ.get("HILO_MLIR_CACHE_DIR") or os.environ.get("HILO_MLIR_CACHE_URL")))):
        return None
    if single and (
        args.debug
        or args.fusion_report
        or args.mlir_print_ir_before_all
        or args.mlir_print_ir_after_all
        or args.mlir_print_ir_before
        or args.mlir_print_ir_after
        or args.mlir_print_ir_after_failure
        or args.mlir_pass_pipeline_crash_reproducer
    ):
        return None
    from hilo_mlir.driver.cache import CompileCache

    return CompileCache.from_env(args.cache_dir)


def _compile_one(args, cfg) -> int:
    """Compile one input into OUTDIR in a forked worker (:mod:`hilo_mlir.tools.batch.single`)."""
    from hilo_mlir.support.io import input_name, read_input
    from hilo_mlir.tools.batch.single import run_single
    from hilo_mlir.tools.batch.worker import WorkerJob

    path = args.inputs[0]
    name = input_name(path)  # `<stdin>` for `-`, in every diagnostic (penguin.py records the path as given)
    stdin = read_input(path, allow_empty=True) if path == "-" else None  # read once, here: its lines are quoted
    instr = instrumentation_from_args(args, out=sys.stderr)
    instr.debug = bool(args.debug)
    sources: dict = {}

    def source_of() -> dict:  # the input's text, for the source line under a diagnostic
        if name not in sources:
            try:
                if stdin is None:
                    with open(path, "rb") as fh:
                        data = fh.read()
                else:
                    data = stdin
                sources[name] = None if data.startswith(b"ML\xefR") else data.decode("utf-8")
            except (OSError, UnicodeDecodeError):
                sources[name] = None
        return {k: v for k, v in sources.items() if v is not None}

    def warn(d) -> str:
        from hilo_mlir.support.diagnostics import render

        return render(d.severity, d.message, d.raw if d.raw is not None else d.loc, filename=name, sources=source_of(), tool=TOOL)

    def render_rejection(e: HiloError, before: str | None) -> str:
        if before is not None:
            _import_reproducer(e, instr.reproducer, before, cfg)
        e.message = _one_line(e.message)
        return render_error(e, TOOL, name, source_of())

    job = WorkerJob(
        path,
        args.outdir,
        cfg,
        allow_unregistered=args.allow_unregistered_dialect,
        read_timeout=args.timeout,
        timing=args.mlir_timing,
        statistics=args.mlir_pass_statistics,
        input_types=args.input_types,
        fusion_report=args.fusion_report,
        debug=args.debug,
        instrumentation=instr,
        render=render_rejection,
        warn=warn,
        cache=cache_from_args(args, single=True),
        data=stdin,
    )
    job.weights = _read_weights(args.weights)  # read before compiling: a bad file fails fast
    forward = bool(
        instr.print_before_all
        or instr.print_after_all
        or instr.print_before
        or instr.print_after
        or instr.print_after_change
        or instr.print_after_failure
        or args.mlir_timing
        or args.mlir_pass_statistics
        or args.debug
    )
    return run_single(job, timeout=args.timeout, forward=forward)


def _read_weights(specs) -> dict:
    """``--weights INDEX=FILE.npy ...`` -> ``{index: array}``.

    Raises:
        HiloError: a malformed spec, a missing or unreadable file.
    """
    if not specs:
        return {}
    from hilo_mlir.driver.weights import load_weight, parse_weight_args

    return {i: load_weight(path, i) for i, path in parse_weight_args(specs).items()}


def _import_reproducer(e: HiloError, path: str, before: str, cfg) -> None:
    """A failure before the spine (validation, the bridge): the reproducer is the input and the
    whole pipeline, whose import step fails the same way."""
    if any("reproducer generated at" in n.message or "could not write the crash reproducer" in n.message for n in e.notes):
        return  # the spine's pipeline wrote the local reproducer of the failing pass (or tried to: said once)
    from hilo_mlir.driver import spine
    from hilo_mlir.passmanager.reproducer import write_reproducer

    try:
        pipeline = spine.pipeline_text(cfg)
    except HiloError:  # the pipeline itself cannot be built (a bad spine edit): that is the error, nothing to replay
        return
    e.notes = list(e.notes) + [write_reproducer(path, before, pipeline, verify_each=cfg.verify_each, failing=e.pass_name or "HiloImport")]


def _one_line(text: str) -> str:
    """A diagnostic on one line (MLIR messages may carry newlines)."""
    return " ".join(text.split())


def _run_batch(args, cfg) -> int:
    from hilo_mlir.tools.batch import run_batch

    if args.jobs is not None and args.jobs < 1:
        sys.stderr.write(f"{TOOL}: error: --jobs must be at least 1\n")
        return 1
    jobs = args.jobs or os.cpu_count() or 1
    try:
        return run_batch(
            args.inputs,
            args.outdir,
            cfg,
            jobs=jobs,
            report=args.report,
            timeout=args.timeout,
            allow_unregistered=args.allow_unregistered_dialect,
            cache=cache_from_args(args),
            scheduler=args.scheduler,
            jobs_given=args.jobs,
        )
    except HiloError as e:
        sys.stderr.write(_one_line(e.render(tool=TOOL)) + "\n")
        return 1


def main() -> None:
    """Console-script entry point."""
    from hilo_mlir.tools.common import run_main

    run_main(TOOL, run)


if __name__ == "__main__":
    main()
