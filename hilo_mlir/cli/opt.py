"""``hilo-opt``: an ``mlir-opt``-style driver for our passes and the binding's upstream passes.

Usage::

    hilo-opt [INPUT|-] [-o OUT] [--pass-pipeline='builtin.module(...)'] [--<pass>[=<options>] ...]
             [--split-input-file] [--verify-diagnostics] [--allow-unregistered-dialect]
             [--mlir-print-ir-before-all] [--mlir-print-ir-after-all] [--mlir-timing]
             [--mlir-pass-statistics] [--mlir-print-op-generic] [--mlir-print-debuginfo] [--debug]

Exit status 0 on success, 1 on any parse, pass or verifier failure (one
``file:line:col: error: ...`` line on stderr, no traceback, no output file).
"""

from __future__ import annotations

import argparse
import io
import re
import sys

from ..diagnostics import Diagnostic, HiloError, from_mlir_error, location_line, location_to_str
from .common import bool_flag

_FLAGS_HELP = [
    ("-o FILE", "output file (default: stdout)"),
    ("--pass-pipeline=PIPELINE", "textual pass pipeline, e.g. 'builtin.module(func.func(neuron-op-fusion{fuse-dot-logistic=true}),canonicalize)'"),
    ("--split-input-file", "split the input on '// -----' and process each chunk; outputs re-joined with '// -----'"),
    ("--verify-diagnostics", "check diagnostics against 'expected-error@+N {{...}}' annotations in the input"),
    ("--verify-each[=<bool>]", "run the verifier after each pass (default true; --verify-each=false turns it off)"),
    ("--allow-unregistered-dialect", "accept ops of unknown dialects"),
    ("--mlir-print-ir-before-all", "print the IR before every pass (stderr)"),
    ("--mlir-print-ir-after-all", "print the IR after every pass (stderr)"),
    ("--mlir-timing", "print per-pass wall time (stderr)"),
    ("--mlir-pass-statistics", "print pass statistics (stderr)"),
    ("--mlir-print-op-generic", "print the output in generic op form"),
    ("--mlir-print-debuginfo", "print locations in the output"),
    ("--debug", "print the passes' debug lines (match/reject reasons) to stderr"),
    ("--timeout=S", "seconds reading an MLIR bytecode input may take (read in a separate process; default 300)"),
]


def _py_repr(v) -> str:
    return repr(v)


def _help_text() -> str:
    from .. import registry

    buf = io.StringIO()
    buf.write("OVERVIEW: hilo_mlir optimizer driver (mlir-opt style)\n\n")
    buf.write("USAGE: hilo-opt [options] <input file|->\n\nOPTIONS:\n")
    for flag, text in _FLAGS_HELP:
        buf.write(f"  {flag:<34} {text}\n")
    buf.write("\nPASSES (each also a flag: --<pass>[=<options>]; in a pipeline: <pass>{opt=value ...}):\n")
    for p in registry.descriptions():
        tag = "upstream" if p["upstream"] else (p["dialect"] or "mhlo+stablehlo")
        buf.write(f"  --{p['argument']:<40} {p['summary']} [{tag}; anchor {p['anchor']}]\n")
        for o in p["options"]:
            buf.write(f"      {o['name']}={o['type']:<6} (default {_py_repr(o['default'])}) {o['help']}\n")
    return buf.getvalue()


# --------------------------------------------------------------------------- verify-diagnostics

_EXPECT = re.compile(r"expected-(error|warning|remark|note)\s*(?:@([+-]\d+|above|below))?\s*\{\{(.*?)\}\}")


def _expectations(text: str, line_offset: int) -> list[dict]:
    out = []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        for m in _EXPECT.finditer(line):
            lineno = i + 1 + line_offset
            where = m.group(2)
            if where in (None, ""):
                target = lineno
            elif where == "above":
                target = lineno - 1
            elif where == "below":
                target = lineno + 1
            else:
                target = lineno + int(where)
            out.append({"severity": m.group(1), "line": target, "text": m.group(3), "at": lineno, "seen": False})
    return out


def _check_expectations(expected: list[dict], diags: list[Diagnostic], filename: str) -> list[str]:
    problems = []
    for d in diags:
        hit = None
        for e in expected:
            if not e["seen"] and e["severity"] == d.severity and e["line"] == d.line and e["text"] in d.message:
                hit = e
                break
        if hit:
            hit["seen"] = True
        else:
            where = f"{filename}:{d.line}" if d.line else filename
            problems.append(f"{where}: error: unexpected {d.severity}: {d.message}")
    for e in expected:
        if not e["seen"]:
            problems.append(f"{filename}:{e['at']}: error: expected {e['severity']} \"{e['text']}\" was not produced")
    return problems


# --------------------------------------------------------------------------- driver


def _split_chunks(text: str) -> list[tuple[str, int]]:
    """Split on ``// -----`` lines; returns (chunk padded to its original line numbers, offset)."""
    lines = text.split("\n")
    chunks, cur, start = [], [], 0
    for i, line in enumerate(lines):
        if re.match(r"^\s*// -----", line):
            chunks.append(("\n" * start + "\n".join(cur), start))
            cur, start = [], i + 1
        else:
            cur.append(line)
    chunks.append(("\n" * start + "\n".join(cur), start))
    return chunks


def _collect_pass_flags(argv: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """Pull ``--<registered pass>[=<opts>]`` flags out of argv, keeping their order."""
    from .. import registry

    known = {p.argument for p in registry.all_passes()}
    rest, passes = [], []
    for a in argv:
        if a.startswith("--") and not a.startswith("--mlir-"):
            name, _, val = a[2:].partition("=")
            if name in known:
                passes.append((name, val))
                continue
        rest.append(a)
    return rest, passes


def _process_chunk(text: str, args, steps_text: str | None, pass_flags, filename: str, out: io.StringIO, diags: list) -> bool:
    from .. import pipeline as pl
    from ..ir import ir, make_context

    ctx = make_context(args.allow_unregistered_dialect)
    captured: list[Diagnostic] = []

    def handler(d):
        sev = str(d.severity).rsplit(".", 1)[-1].lower()
        captured.append(Diagnostic(sev, d.message, location_to_str(d.location, filename), location_line(d.location)))
        for n in d.notes:
            captured.append(Diagnostic("note", n.message, location_to_str(n.location, filename), location_line(n.location)))
        return True

    handle = ctx.attach_diagnostic_handler(handler)
    try:
        with ctx:
            try:
                module = ir.Module.parse(text)
            except ir.MLIRError as e:
                err = from_mlir_error(e, filename)
                if "not found for custom op" in err.message:
                    err.message += " (use --allow-unregistered-dialect to accept unknown dialects)"
                diags.append(Diagnostic("error", err.message, err.format(filename).split(": error:")[0], err.line))
                return False
            steps = []
            if steps_text:
                steps.extend(pl.steps_from_text(steps_text))
            for name, val in pass_flags:
                steps.extend(pl.build_steps([pl.Element(name, val)]))
            instr = pl.Instrumentation(
                print_before_all=args.mlir_print_ir_before_all,
                print_after_all=args.mlir_print_ir_after_all,
                print_generic=args.mlir_print_op_generic,
                print_debuginfo=args.mlir_print_debuginfo,
                out=sys.stderr,
            )
            extras = {"filename": filename, "debug": args.debug}
            pipe = pl.Pipeline(steps, instrumentation=instr, extras=extras, verify_each=args.verify_each)
            ok = True
            try:
                pipe.run(module)
            except HiloError as e:
                ok = False
                errs = [c for c in captured if c.severity == "error"]
                if not errs:
                    diags.append(Diagnostic("error", (f"{e.code}: " if e.code else "") + e.message, location_to_str(e.loc, filename) if e.loc is not None else None, e.line))
            finally:
                diags.extend(captured)
                captured.clear()
                if args.debug:
                    for line in pipe.log:
                        sys.stderr.write(line + "\n")
                if args.mlir_timing:
                    sys.stderr.write(pipe.timing_report())
                if args.mlir_pass_statistics:
                    sys.stderr.write(pipe.statistics_report())
            if not ok:
                return False
            printer_outputs = [s.options.get("output") for s in steps if s.info and s.info.argument.endswith("py-penguin")]
            if "-" in printer_outputs:
                pass  # the printer already wrote penguin.py to stdout: do not append the module
            elif "penguin_source" in extras and not any(printer_outputs):
                out.write(extras["penguin_source"])
            else:
                out.write(pl.module_to_text(module, args.mlir_print_op_generic, args.mlir_print_debuginfo))
            return True
    finally:
        handle.detach()


def run(argv: list[str]) -> int:
    """Entry point body; returns the exit code."""
    if any(a in ("-h", "--help", "-help") for a in argv):
        sys.stdout.write(_help_text())
        return 0
    from .. import registry, signals

    registry._load()  # the heavy imports, while SIGINT is still deferred
    signals.resume()
    try:
        argv, pass_flags = _collect_pass_flags(argv)
    except HiloError as e:
        sys.stderr.write(e.format() + "\n")
        return 1
    ap = argparse.ArgumentParser(prog="hilo-opt", add_help=False)
    ap.add_argument("input", nargs="?", default="-")
    ap.add_argument("-o", dest="output", default="-")
    ap.add_argument("--pass-pipeline", default=None)
    ap.add_argument("--verify-each", nargs="?", const=True, default=True, type=bool_flag)
    ap.add_argument("--timeout", type=float, default=None)
    for flag in (
        "split-input-file",
        "verify-diagnostics",
        "allow-unregistered-dialect",
        "mlir-print-ir-before-all",
        "mlir-print-ir-after-all",
        "mlir-timing",
        "mlir-pass-statistics",
        "mlir-print-op-generic",
        "mlir-print-debuginfo",
        "debug",
    ):
        ap.add_argument("--" + flag, action="store_true")

    class _Err(Exception):
        pass

    def _error(msg):
        raise _Err(msg)

    ap.error = _error
    try:
        args = ap.parse_args(argv)
    except _Err as e:
        sys.stderr.write(f"hilo-opt: error: {e} (see 'hilo-opt --help')\n")
        return 1

    from ..frontend.binary import read_binary
    from ..frontend.loading import BYTECODE_MAGIC, input_kind
    from ..io_utils import atomic_write_text, decode_text, read_input

    filename = "<stdin>" if args.input == "-" else args.input
    from .. import pipeline as pl

    try:
        # Validate the pipeline once up front: a bad pipeline fails before any input is read.
        if args.pass_pipeline is not None:
            pl.steps_from_text(args.pass_pipeline)
        for name, val in pass_flags:
            pl.build_steps([pl.Element(name, val)])
        if pass_flags and args.pass_pipeline is not None:
            raise HiloError("--pass-pipeline cannot be combined with individual pass flags (--" + pass_flags[0][0] + "); put every pass in the pipeline")
        if args.timeout is not None and args.timeout <= 0:
            raise HiloError("--timeout must be positive")
        raw = read_input(args.input, allow_empty=True)  # empty file and empty stdin: both the empty module (mlir-opt)
        # MLIR bytecode is read in a child process first (a corrupt file cannot
        # crash or hang the tool); text must be UTF-8.
        if raw.startswith(BYTECODE_MAGIC):  # MLIR bytecode or a StableHLO portable artifact (read as stablehlo)
            text = read_binary(raw, filename, input_kind(filename, raw), args.allow_unregistered_dialect, args.timeout)
        else:
            from ..frontend.limits import check_dim_numbers

            text = decode_text(raw, filename)
            check_dim_numbers(text, filename)  # before the parser allocates by them
    except HiloError as e:
        sys.stderr.write(e.format(filename if "cannot open" in e.message or "empty" in e.message else None) + "\n")
        return 1

    if isinstance(text, bytes) and args.split_input_file:
        sys.stderr.write(f"{filename}: error: --split-input-file needs a text input, not MLIR bytecode\n")
        return 1
    chunks = _split_chunks(text) if args.split_input_file else [(text, 0)]
    outputs, failed, problems = [], False, []
    for chunk, offset in chunks:
        buf = io.StringIO()
        diags: list[Diagnostic] = []
        try:
            ok = _process_chunk(chunk, args, args.pass_pipeline, pass_flags, filename, buf, diags)
        except HiloError as e:
            ok = False
            diags.append(Diagnostic("error", (f"{e.code}: " if e.code else "") + e.message, location_to_str(e.loc, filename) if e.loc is not None else None, e.line))
        if args.verify_diagnostics:
            problems.extend(_check_expectations(_expectations(chunk, 0) if isinstance(chunk, str) else [], diags, filename))
            if ok:
                outputs.append(buf.getvalue())
        else:
            for d in diags:
                if d.severity == "error" or d.severity in ("warning", "remark", "note"):
                    sys.stderr.write(d.format() + "\n")
            if not ok:
                failed = True
                outputs.append("")  # as mlir-opt: a failed chunk still has its place between the markers
            else:
                outputs.append(buf.getvalue())
    if args.verify_diagnostics:
        for p in problems:
            sys.stderr.write(p + "\n")
        failed = bool(problems)
    result = "// -----\n".join(outputs) if args.split_input_file else "".join(outputs)
    if failed:
        # As mlir-opt: with --split-input-file the chunks that succeeded still
        # print to stdout; an output file is never written on failure.
        if args.split_input_file and args.output == "-" and not args.verify_diagnostics:
            sys.stdout.write(result)
        return 1
    if args.output == "-":
        sys.stdout.write(result)
    else:
        try:
            atomic_write_text(args.output, result)
        except HiloError as e:
            sys.stderr.write(e.format() + "\n")
            return 1
    return 0


def main() -> None:
    """Console-script entry point."""
    from .common import run_main

    run_main("hilo-opt", run)


if __name__ == "__main__":
    main()
