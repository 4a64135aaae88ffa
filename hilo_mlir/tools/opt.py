"""``hilo-opt``: an ``mlir-opt``-style driver for our passes and the binding's upstream passes.

Usage::

    hilo-opt [INPUT|-] [-o OUT] [--pass-pipeline='builtin.module(...)' | --<pass>[=<options>] ...]
             [--split-input-file] [--verify-diagnostics] [--verify-each[=false]] [--emit-bytecode]
             [--mlir-print-ir-{before,after}[-all]...] [--mlir-pass-pipeline-crash-reproducer=FILE]
             [--run-reproducer] [--load-pass-plugin=PATH_OR_MODULE] [--version] [--help]

Exit status 0 on success, 1 on any parse, pass or verifier failure: the
diagnostic is ``file:line:col: error: ...`` with the source line and a caret
(``hilo-opt: error: ...`` when it has no location), no traceback, no output
file. The parts live beside this module: :mod:`.flags` (shared flags),
:mod:`.opt_help`, :mod:`.split_input`, :mod:`.verify_diagnostics`, and
:mod:`hilo_mlir.passmanager.reproducer`.
"""

from __future__ import annotations

import io
import os
import sys
import time
from collections.abc import Callable
from typing import cast

from hilo_mlir.support.diagnostics import Diagnostic, HiloError, location_line, location_to_str, shown_path, whole_module_dump
from hilo_mlir.tools.flags import (
    ArgumentParser,
    UsageError,
    add_bisect_flags,
    add_ir_printing_flags,
    add_plugin_flag,
    check_pass_filters,
    instrumentation_from_args,
    load_plugins,
    long_options,
    render_error,
    wants_help,
)

TOOL = "hilo-opt"


def build_parser(pass_flags=()) -> ArgumentParser:
    ap = ArgumentParser(prog=TOOL, add_help=False, usage="hilo-opt [options] <input file|->", extra_flags=[f"--{p}" for p in pass_flags])
    ap.add_argument("input", nargs="?", default="-", help="input file (.mlir text or MLIR bytecode; '-' = stdin)")
    ap.add_argument("-o", dest="output", default="-", metavar="FILE", help="output file (default: stdout)")
    ap.add_argument(
        "--pass-pipeline",
        default=None,
        metavar="PIPELINE",
        help="textual pass pipeline, e.g. 'builtin.module(func.func(neuron-op-fusion{fuse-dot-logistic=true}),canonicalize)'",
    )
    ap.add_argument("-h", "--help", action="store_true", help="show this help (every flag and pass) and exit")
    ap.add_argument("--version", action="store_true", help="print the versions of hilo_mlir, jaxlib and StableHLO and exit")
    ap.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="S",
        help="seconds reading an MLIR bytecode input may take (read in a separate process; default 300)",
    )
    add_plugin_flag(ap)
    for flag, text in (
        ("--split-input-file", "split the input on '// -----' and process each chunk; outputs re-joined with '// -----'"),
        (
            "--verify-diagnostics",
            "check diagnostics against expected-error/-warning/-note/-remark[-re][@+N|@above|@below|@unknown] {{...}}",
        ),
        ("--allow-unregistered-dialect", "accept ops of unknown dialects"),
        ("--emit-bytecode", "write the output as MLIR bytecode"),
        ("--dump-pass-pipeline", "print the pipeline that will run (every option) to stderr, then run it"),
        ("--run-reproducer", "run the pipeline of the input's mlir_reproducer resource (a crash reproducer)"),
        ("--debug", "print the passes' debug lines (match/reject reasons) to stderr"),
    ):
        ap.add_bool_flag(flag, help=text)
    add_ir_printing_flags(ap, verify_each_default=True)
    add_bisect_flags(ap)
    return ap


def _collect_pass_flags(argv: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """Pull ``--<registered pass>[=<opts>]`` flags out of argv, keeping their order."""
    from hilo_mlir import passes  # the registry's lookups, with the built-in passes installed

    known = {p.argument for p in passes.all_passes(plugins=False)} | set(passes.aliases(load=False))
    flags = set(build_parser()._option_string_actions)
    for a in argv:
        name = a[2:].partition("=")[0]
        if a.startswith("--") and not a.startswith("--mlir-") and name not in known and "--" + name not in flags:
            # not built in: maybe an installed plugin's pass
            known = {p.argument for p in passes.all_passes()} | set(passes.aliases(load=False))
            break
    rest, found = [], []
    for a in argv:
        if a.startswith("--") and not a.startswith("--mlir-"):
            name, _, val = a[2:].partition("=")
            if name in known:
                found.append((name, val))
                continue
        rest.append(a)
    return rest, found


def _mlir_handler(captured: list, filename: str):
    def handler(d):
        sev = str(d.severity).rsplit(".", 1)[-1].lower()
        captured.append(
            Diagnostic(sev, d.message.strip(), location_to_str(d.location, filename), location_line(d.location), raw=str(d.location))
        )
        for n in d.notes:
            if whole_module_dump(n.message):
                continue
            captured.append(
                Diagnostic("note", n.message.strip(), location_to_str(n.location, filename), location_line(n.location), raw=str(n.location))
            )
        return True

    return handler


def _error_diag(e: HiloError, filename: str) -> Diagnostic:
    msg = (f"{e.code}: " if e.code else "") + e.message
    loc = e.loc
    return Diagnostic(
        "error",
        msg,
        location_to_str(loc, filename) if loc is not None else None,
        e.line,
        raw=str(loc) if loc is not None and str(loc).startswith("loc(") else None,
    )


class _Run:
    """One hilo-opt invocation: its flags, steps and outputs."""

    def __init__(self, args, steps_text: str | None, pass_flags, filename: str, sources: dict):
        self.args = args
        self.steps_text = steps_text
        self.pass_flags = pass_flags
        self.filename = filename
        self.sources = sources
        self.parse_s = 0.0  # wall seconds of the last chunk's parse (--mlir-timing)
        self.drop_outputs = False  # --run-reproducer with -o naming the printer's output: the program goes to -o
        self.on_phase: Callable[[str], None] | None = None  # hears "parsing the input", "running pass 'X'", ... (crash attribution)
        self.program_files: dict = {}  # the printed program's .npy files ({name: bytes}), written beside -o FILE
        self.printed_programs = 0  # chunks whose output is a Penguin program (not IR)

    def steps(self):
        from hilo_mlir.passmanager import pipeline as pl

        steps = []
        if self.steps_text:
            steps.extend(pl.steps_from_text(self.steps_text))
        for name, val in self.pass_flags:
            steps.extend(pl.build_steps([pl.Element(name, val)]))
        if self.drop_outputs:
            for s in steps:
                if s.info is not None and s.info.terminal:
                    s.options["output"] = ""
        return steps

    def process_chunk(self, text, out: io.BytesIO, diags: list) -> bool:
        """Parse and run one module; its output goes to ``out``, its diagnostics to ``diags``."""
        from hilo_mlir.ir.binding import ir, make_context
        from hilo_mlir.passmanager import pipeline as pl

        args = self.args
        ctx = make_context(args.allow_unregistered_dialect)
        captured: list[Diagnostic] = []
        # jaxlib's stub types the returned DiagnosticHandler as object
        handle = cast("ir.DiagnosticHandler", ctx.attach_diagnostic_handler(_mlir_handler(captured, self.filename)))
        try:
            with ctx:
                phase = self.on_phase or (lambda what: None)
                phase("parsing the input")
                t0 = time.perf_counter()
                try:
                    module = ir.Module.parse(text)
                except ir.MLIRError as e:
                    from hilo_mlir.support.diagnostics import from_mlir_error

                    err = from_mlir_error(e, self.filename)
                    if "not found for custom op" in err.message:
                        err.message += " (use --allow-unregistered-dialect to accept unknown dialects)"
                    diags.extend(captured)
                    if not any(c.severity == "error" for c in captured):
                        diags.append(_error_diag(err, self.filename))
                        diags.extend(err.notes)  # the parser's notes ("prior use here", ...)
                    return False
                self.parse_s = time.perf_counter() - t0
                diags.extend(captured)
                captured.clear()
                steps = self.steps()
                instr = instrumentation_from_args(args, out=sys.stderr)
                instr.on_diagnostic = captured.append
                if self.on_phase is not None:
                    instr.on_pass_start = lambda arg: phase(f"running pass '{arg}'")
                outputs = pl.CompileOutputs()
                if args.fusion_fuel is not None:
                    from hilo_mlir.fusion.fuel import FusionFuel

                    outputs.fusion_fuel = FusionFuel(args.fusion_fuel)
                env = pl.PipelineEnv(filename=self.filename, debug=bool(args.debug))
                pipe = pl.Pipeline(
                    steps, instrumentation=instr, env=env, outputs=outputs, verify_each=args.verify_each, max_pass_index=args.max_pass_index
                )
                ok = True
                try:
                    pipe.run(module)
                except HiloError as e:
                    ok = False
                    for name, text in (getattr(e, "sources", None) or {}).items():  # a plugin's lines, quoted
                        self.sources.setdefault(name, text)
                    if not any(c.severity == "error" for c in captured):
                        captured.append(_error_diag(e, self.filename))
                    seen = {c.message for c in captured}
                    captured.extend(n for n in e.notes if n.message not in seen)
                finally:
                    diags.extend(captured)
                    captured.clear()
                    self._reports(pipe)
                if not ok:
                    return False
                phase("writing the output")
                return self._write_output(module, steps, outputs, out, diags)
        finally:
            handle.detach()

    def _reports(self, pipe) -> None:
        args = self.args
        if args.debug:
            for line in pipe.log:
                sys.stderr.write(line + "\n")
        elif args.max_pass_index is not None:  # as LLVM's -opt-bisect-limit: what ran and what did not
            for line in pipe.log:
                if line.startswith("BISECT: "):
                    sys.stderr.write(line + "\n")
        if args.mlir_timing:
            from hilo_mlir.passmanager.instrumentation import timing_report

            verify = sum(t for _, t in pipe.verify_timings)  # after Python passes (upstream ones verify inside)
            sys.stderr.write(timing_report([("Parser", self.parse_s), *pipe.timings, ("Verifier", verify)]))
        if args.mlir_pass_statistics:
            sys.stderr.write(pipe.statistics_report())

    def _write_output(self, module, steps, outputs, out, diags) -> bool:
        from hilo_mlir.passmanager.instrumentation import module_to_text

        args = self.args
        printer_outputs = [s.options.get("output") for s in steps if s.info and s.info.terminal]
        if "-" in printer_outputs:
            return True  # the printer already wrote penguin.py to stdout: do not append the module
        if outputs.source is not None and not any(printer_outputs):
            if args.emit_bytecode:
                diags.append(
                    Diagnostic("error", "--emit-bytecode: the pipeline ends in a printer, whose output is a Penguin Python program, not IR")
                )
                return False
            src = outputs.source
            files = dict(outputs.files or {})
            if files and (args.output == "-" or args.split_input_file):
                diags.append(
                    Diagnostic(
                        "error",
                        f"the Penguin program references {len(files)} file{'s' if len(files) != 1 else ''} "
                        f"({', '.join(sorted(files))}: constants over the printer's inline-constant-max-elements) that "
                        "stdout cannot carry: write it with -o FILE (the files go beside FILE, named by content, "
                        "as hilo2penguin writes them)",
                    )
                )
                return False
            self.program_files = files
            self.printed_programs += 1
            out.write(src.encode("utf-8"))
            return True
        if args.emit_bytecode:
            module.operation.write_bytecode(out)
            return True
        out.write(
            module_to_text(
                module, args.mlir_print_op_generic, args.mlir_print_debuginfo, args.mlir_elide_elementsattrs_if_larger, self.filename
            ).encode("utf-8")
        )
        return True


def _usage_error(msg: str) -> int:
    sys.stderr.write(f"{TOOL}: error: {msg} (see 'hilo-opt --help')\n")
    return 1


def _print_diags(diags: list, filename: str, sources: dict) -> None:
    from hilo_mlir.support.diagnostics import render_all

    for text in render_all(diags, filename=filename, sources=sources, tool=TOOL):
        sys.stderr.write(text + "\n")


def run(argv: list[str]) -> int:
    """Entry point body; returns the exit code."""
    from hilo_mlir.support.entry_point import entry_point

    with entry_point(TOOL):  # hints name hilo-opt's flags
        return _run_argv(argv)


def _run_argv(argv: list[str]) -> int:
    argv = long_options(list(argv))  # -canonicalize, -pass-pipeline=... as mlir-opt takes them
    try:
        # first: a plugin's passes are flags and pipeline names too (installed ones: for --help,
        # else only when a flag or pipeline names a pass that is not built in)
        load_plugins(argv, entry_points=wants_help(argv))
        if wants_help(argv):
            from hilo_mlir.tools.opt_help import help_text

            sys.stdout.write(help_text(build_parser()))
            return 0
        from hilo_mlir import passes  # the registry's lookups, with the built-in passes installed
        from hilo_mlir.support import signals

        passes.load(plugins=False)  # the heavy imports, while SIGINT is still deferred
        signals.resume()
        argv, pass_flags = _collect_pass_flags(argv)
        args = build_parser([p.argument for p in passes.all_passes(plugins=False)]).parse_args(argv)
        if args.version:
            from hilo_mlir.tools.flags import version_text

            sys.stdout.write(version_text(TOOL))
            return 0
        check_pass_filters(args)
    except UsageError as e:
        return _usage_error(str(e))
    except HiloError as e:
        sys.stderr.write(render_error(e, TOOL) + "\n")
        return 1
    return _run_parsed(args, pass_flags)


def _all_passes():
    from hilo_mlir import passes  # the registry's lookups, with the built-in passes installed

    return passes.all_passes()


def _read(args) -> tuple[str, str | bytes]:
    """The input's name and text. An empty file or stdin is the empty module (as mlir-opt); MLIR
    bytecode (or a StableHLO portable artifact, read as stablehlo), a serialized ``HloModuleProto``
    (``*.pb``) and HLO text (``HloModule ...``; both imported as normalised stablehlo) are read in a
    child process first, so a corrupt file cannot crash or hang the tool; text must be UTF-8.

    Raises:
        HiloError: a missing file, bad UTF-8, a bytecode the child cannot read, a non-positive --timeout.
    """
    from hilo_mlir.driver.frontend.binary import read_binary
    from hilo_mlir.driver.frontend.loading import BYTECODE_MAGIC, HLO_KINDS, input_kind
    from hilo_mlir.ir.limits import check_dim_numbers, check_location_attributes, check_nesting, check_strings_utf8
    from hilo_mlir.support.io import decode_text, input_name, read_input

    if args.timeout is not None and args.timeout <= 0:
        raise HiloError("--timeout must be positive")
    filename = input_name(args.input)
    raw = read_input(args.input, allow_empty=True)
    kind = input_kind(filename, raw)
    if raw.startswith(BYTECODE_MAGIC) or kind in HLO_KINDS:  # HLO (proto or text) is imported as normalised stablehlo
        return filename, read_binary(raw, filename, kind, args.allow_unregistered_dialect, args.timeout)
    text = decode_text(raw, filename)
    check_dim_numbers(text, filename)  # before the parser allocates by them
    check_strings_utf8(text, filename)  # before a diagnostic or pass reads such a string
    check_nesting(text, filename)  # before the parser recurses by it
    check_location_attributes(text, filename)  # before a pass reads one (the binding aborts)
    return filename, text


def _run_parsed(args, pass_flags) -> int:
    from hilo_mlir.passmanager import pipeline as pl
    from hilo_mlir.passmanager.reproducer import read_reproducer, strip_reproducer
    from hilo_mlir.passmanager.steps import check_printer_last, is_printer
    from hilo_mlir.support.io import input_name

    filename = input_name(args.input)
    drop_outputs = False
    text: str | bytes | None = None
    try:
        if pass_flags and args.pass_pipeline is not None:
            raise HiloError(
                "--pass-pipeline cannot be combined with individual pass flags (--" + pass_flags[0][0] + "); put every pass in the pipeline"
            )
        # Validate the pipeline once up front: a bad pipeline fails before any input is read.
        if args.pass_pipeline is not None:
            check_printer_last(pl.steps_from_text(args.pass_pipeline, module_root=True), "--pass-pipeline")
        flag_steps = [(name, s) for name, val in pass_flags for s in pl.build_steps([pl.Element(name, val)])]
        printer_flag = next((f"--{name}" for name, s in flag_steps if is_printer(s)), "")
        check_printer_last([s for _name, s in flag_steps], printer_flag)  # `--mhlo-to-py-penguin --cse`
        filename, text = _read(args)
        pipeline_text = args.pass_pipeline
        if isinstance(text, str):
            found = read_reproducer(text)
            if args.run_reproducer:
                if found is None:
                    raise HiloError(
                        "--run-reproducer: the input has no mlir_reproducer resource "
                        "(write one with --mlir-pass-pipeline-crash-reproducer)",
                        filename=filename,
                    )
                if pipeline_text is not None or pass_flags:
                    raise HiloError("--run-reproducer runs the reproducer's own pipeline: do not give passes too")
                text, entries = found
                pipeline_text = str(entries["pipeline"])
                try:
                    replayed = pl.steps_from_text(pipeline_text, module_root=True)
                    check_printer_last(replayed, "--run-reproducer")
                except HiloError as e:
                    if e.message.startswith("unknown pass"):  # a plugin's pass: the reproducer does not name its plugin
                        e.message = f"--run-reproducer: {e.message}; if a plugin registers it, add --load-pass-plugin=PATH_OR_MODULE"
                    raise
                drop_outputs = _reproducer_files(replayed, args)
                args.verify_each = bool(entries.get("verify_each", True))
            else:
                text = strip_reproducer(text)
        elif args.run_reproducer:
            raise HiloError("--run-reproducer needs a text input, not MLIR bytecode", filename=filename)
    except HiloError as e:  # a located one (the input's checks, a reproducer's pipeline) quotes its line as the passes' do
        sys.stderr.write(e.render(sources={filename: text} if isinstance(text, str) else None, tool=TOOL) + "\n")
        return 1
    if args.dump_pass_pipeline:
        steps = (pl.steps_from_text(pipeline_text) if pipeline_text else []) + [
            s for n, v in pass_flags for s in pl.build_steps([pl.Element(n, v)])
        ]
        sys.stderr.write(
            f"Pass Manager with {len(steps)} passes:\n" + "builtin.module(" + ",".join(s.text(full=True) for s in steps) + ")\n\n"
        )
    sources = {filename: text} if isinstance(text, str) else {}
    if args.run_reproducer and isinstance(text, str):
        sources = LocatedFiles(sources, text, os.path.dirname(filename), filename)
    return _process(args, text, pipeline_text, pass_flags, filename, sources, drop_outputs)


class LocatedFiles(dict):
    """The sources of a reproducer's diagnostics: the reproducer itself, and the compile's input its locations name
    (whose lines the normal path quotes), read from disk when a diagnostic first needs one.

    The reproducer is untrusted input: a name from its locations is opened only
    when it is a bare ``.mlir`` file name (no folder, no ``..``) and that file is
    a regular file in the reproducer's own folder ``beside`` (also once links
    are resolved), or when it is the reproducer itself (``filename``). Any other
    name (``/etc/passwd``, ``../x``, ``/proc/...``) is never opened: its line is
    not quoted.
    """

    #: a named file larger than this (bytes) is not read for its source line
    MAX_BYTES = 1 << 28

    def __init__(self, sources: dict, text: str, beside: str = "", filename: str = ""):
        import re

        super().__init__(sources)
        self.named = set(re.findall(r'loc\("([^"\\]+)":\d+:\d+', text)) - set(sources)
        self.beside = beside
        self.filename = filename

    def _allowed(self, name: str) -> str | None:
        """The path to read for the location file ``name``, or None when it must not be opened."""
        real_beside = os.path.realpath(self.beside or ".")
        if self.filename and self.filename != "-" and os.path.isfile(self.filename):
            try:
                if os.path.samefile(os.path.join(self.beside, name) if not os.path.isabs(name) else name, self.filename):
                    return self.filename
            except OSError:
                pass
        if name != os.path.basename(name) or name in (".", "..") or "\0" in name or not name.endswith(".mlir"):
            return None
        path = os.path.join(self.beside, name)
        real = os.path.realpath(path)
        if os.path.dirname(real) != real_beside or not os.path.isfile(real):
            return None
        return real

    def get(self, name, default=None):
        if name not in self and name in self.named:
            self.named.discard(name)
            path = self._allowed(name)
            try:
                if path is not None and os.path.getsize(path) <= self.MAX_BYTES:
                    with open(path, "rb") as f:
                        self[name] = f.read().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                pass
        return super().get(name, default)


def _reproducer_files(steps, args) -> bool:
    """Refuse a reproducer whose pipeline would write a file the user did not name on the command line.

    The one file a replay may write is ``-o FILE``: a printer step whose
    ``output`` is that same path is allowed, and the program then goes to
    ``-o`` (returns True: drop the printers' ``output`` options).

    Raises:
        HiloError: naming the pass, the option and the path.
    """
    import os

    from hilo_mlir.passmanager.reproducer import written_files

    allowed = False
    for pass_arg, option, value in written_files(steps):
        info = next((s.info for s in steps if s.argument == pass_arg), None)
        if info is not None and info.terminal and option == "output" and args.output != "-":
            if os.path.abspath(value) == os.path.abspath(args.output):
                allowed = True
                continue
        raise HiloError(
            f"--run-reproducer: the reproducer's pipeline would write '{value}' (option '{option}' of '{pass_arg}'); "
            "a reproducer may only write the file named with -o"
            + (" (pass -o with that path to write the program there)" if option == "output" and info is not None and info.terminal else "")
        )
    return allowed


def _wait_child(pid: int, rfd: int) -> tuple[bytes, int]:
    """Everything the child wrote to ``rfd`` and its wait status (the child is killed if the tool is interrupted)."""
    import os

    chunks = []
    try:
        while True:
            try:
                data = os.read(rfd, 1 << 20)
            except InterruptedError:
                continue
            if not data:
                break
            chunks.append(data)
        _, status = os.waitpid(pid, 0)
    except BaseException:
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        raise
    finally:
        os.close(rfd)
    return b"".join(chunks), status


def _isolated_chunk(runner: _Run, chunk, buf: io.BytesIO, diags: list) -> bool:
    """:meth:`_Run.process_chunk` in a forked child, so that nothing the input makes the binding do kills the tool.

    The child writes to the tool's stdout directly (a printer's ``output=-``)
    and its stderr into a temporary file, passed on when it ends normally; its
    result (ok, output bytes, diagnostics) comes back pickled through a pipe,
    after one ``phase`` line per stage. A child killed by a signal is one
    error naming the signal, the stage and the line of its output that explains
    it (LLVM's reason), without the C++ stack dump. SIGINT/SIGTERM end it and
    the tool (exit 130). ``HILO_MLIR_TRACEBACK=1`` runs in-process (tracebacks).
    """
    import os
    import pickle
    import tempfile

    from hilo_mlir.support import isolation as iso

    if os.environ.get("HILO_MLIR_TRACEBACK") == "1" or not hasattr(os, "fork"):
        return runner.process_chunk(chunk, buf, diags)
    rfd, wfd = os.pipe()
    err = tempfile.TemporaryFile()
    sys.stdout.flush()
    sys.stderr.flush()
    parent = os.getpid()
    with iso.fork_guard():
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            code = 0
            try:
                iso.child_setup(parent, None, close_fds=(rfd,))
                os.dup2(err.fileno(), 2)
                runner.on_phase = lambda what: iso.write_all(wfd, b"P" + what.encode("utf-8", "replace") + b"\n")
                try:
                    result: tuple = ("ok", runner.process_chunk(chunk, buf, diags), buf.getvalue(), diags)
                except HiloError as e:
                    result = ("error", False, buf.getvalue(), diags + [_error_diag(e, runner.filename)])
                except BaseException as e:  # noqa: BLE001 - reported by the parent as an internal error
                    result = ("internal", type(e).__name__, str(e), diags)
                # what the parent needs besides the output: the printed program's files, a plugin's source lines
                extra = {"program_files": runner.program_files, "sources": runner.sources, "printed_programs": runner.printed_programs}
                data = pickle.dumps(result + (extra,))
                iso.write_all(wfd, b"R" + data)
            except BaseException:  # noqa: BLE001
                code = 3
            finally:
                iso.exit_child(code)
    os.close(wfd)
    raw, status = _wait_child(pid, rfd)
    err.seek(0)
    err_text = err.read()
    err.close()
    head, _, result_bytes = raw.partition(b"R")
    phases = [ln for ln in head.split(b"\n") if ln.startswith(b"P")]
    phase = phases[-1][1:].decode("utf-8", "replace") if phases else "starting"
    if os.WIFSIGNALED(status):
        sig = iso.signal_name(os.WTERMSIG(status))
        if sig in ("SIGINT", "SIGTERM"):
            raise KeyboardInterrupt
        reason = iso.explaining_line(err_text)
        msg = f"the compiler crashed ({sig}) while {phase} on this input; this is a bug"
        diags.append(Diagnostic("error", msg + (f" ({reason})" if reason else "")))
        return False
    if not result_bytes:
        diags.append(Diagnostic("error", f"the compiler ended without a result while {phase} (exit status {os.WEXITSTATUS(status)})"))
        return False
    if err_text:
        sys.stderr.flush()
        sys.stderr.buffer.write(err_text)
        sys.stderr.flush()
    kind, a, b, child_diags, extra = pickle.loads(result_bytes)
    diags.extend(child_diags)
    runner.program_files.update(extra["program_files"])
    runner.printed_programs = extra["printed_programs"]
    for name, text in extra["sources"].items():
        runner.sources.setdefault(name, text)
    if kind == "internal":  # the child's internal error, raised again here as its class (a built-in one) or by name
        import builtins

        cls = getattr(builtins, a, None)
        if not (isinstance(cls, type) and issubclass(cls, Exception)):
            cls = type(a, (Exception,), {})
        raise cls(b)
    buf.write(b)
    return bool(a)


def _split_input_refusal(args, text, filename: str) -> int | None:
    """The exit code of a ``--split-input-file`` run that cannot start (one error line), else None."""
    if isinstance(text, bytes) and args.split_input_file:
        sys.stderr.write(f"{filename}: error: --split-input-file needs a text input, not MLIR bytecode\n")
        return 1
    if args.emit_bytecode and args.split_input_file:
        return _usage_error("--emit-bytecode cannot be combined with --split-input-file (one module per output)")
    return None


def _many_programs_to_one_file(args, runner, filename: str) -> bool:
    """True (and one error line) when ``-o FILE`` would get several chunks' Penguin programs joined by ``// -----``."""
    if args.output in ("-", os.devnull) or runner.printed_programs <= 1:
        return False
    sys.stderr.write(
        f"{filename}: error: -o {args.output}: the pipeline printed {runner.printed_programs} Penguin programs "
        "(one per --split-input-file chunk) and a file holds one; print them to stdout, or compile each module on its own\n"
    )
    return True


def _process(args, text, pipeline_text, pass_flags, filename, sources, drop_outputs: bool = False) -> int:
    from hilo_mlir.support.io import atomic_write_bytes
    from hilo_mlir.tools.split_input import join_outputs, split_chunks
    from hilo_mlir.tools.verify_diagnostics import check, expectations

    refused = _split_input_refusal(args, text, filename)
    if refused is not None:
        return refused
    runner = _Run(args, pipeline_text, pass_flags, filename, sources)
    runner.drop_outputs = drop_outputs
    chunks = split_chunks(text) if args.split_input_file else [(text, 0)]
    outputs, failed, problems = [], False, []
    for chunk, _offset in chunks:
        buf = io.BytesIO()
        diags: list[Diagnostic] = []
        try:
            ok = _isolated_chunk(runner, chunk, buf, diags)
        except HiloError as e:
            ok = False
            diags.append(_error_diag(e, filename))
        if args.verify_diagnostics:
            # as mlir-opt, which turns off printing the op on a diagnostic under --verify-diagnostics
            diags = [d for d in diags if not (d.severity == "note" and d.message.startswith("see current operation"))]
            exp = expectations(chunk, filename) if isinstance(chunk, str) else []
            problems.extend(check(exp, diags, filename, sources))
            outputs.append(buf.getvalue() if ok else b"")  # a failed chunk keeps its place between the markers
        else:
            _print_diags(diags, filename, sources)
            if not ok:
                failed = True
                outputs.append(b"")  # as mlir-opt: a failed chunk still has its place between the markers
            else:
                outputs.append(buf.getvalue())
    if args.verify_diagnostics:
        for p in problems:
            sys.stderr.write(p + "\n")
        failed = bool(problems)
    if args.split_input_file:
        result = join_outputs([o.decode("utf-8") for o in outputs]).encode("utf-8")
    else:
        result = b"".join(outputs)
    if failed:
        # As mlir-opt: with --split-input-file the chunks that succeeded still
        # print to stdout; an output file is never written on failure.
        if args.split_input_file and args.output == "-" and not args.verify_diagnostics:
            sys.stdout.buffer.write(result)
        return 1
    if _many_programs_to_one_file(args, runner, filename):
        return 1
    if args.output == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(result)
        sys.stdout.buffer.flush()
    else:
        try:
            if runner.program_files:  # beside the program, content-named, one atomic publication (as hilo2penguin)
                _write_program_beside(args.output, result, runner.program_files)
            else:
                atomic_write_bytes(args.output, result)
        except HiloError as e:
            sys.stderr.write(e.render(tool=TOOL) + "\n")
            return 1
    return 0


def _write_program_beside(output: str, program: bytes, files: dict) -> None:
    """Publish a printed program and its files: ``output`` and ``<its folder>/<name>.<content hash>.npy``.

    Raises:
        HiloError: the folder cannot be written (:func:`~hilo_mlir.support.io.folder_problem`), naming the path and the reason.
    """
    from hilo_mlir.support.io import folder_problem
    from hilo_mlir.support.packaging import write_program

    folder = os.path.dirname(os.path.abspath(output))
    if os.path.isdir(output):
        raise HiloError(f"cannot write output file '{shown_path(output)}': is a directory")
    problem = folder_problem(os.path.dirname(output))
    if problem is not None:
        raise HiloError(f"cannot write output file '{shown_path(output)}': {problem}")
    try:
        write_program(folder, program.decode("utf-8"), files, program_name=os.path.basename(output))
    except (OSError, ValueError) as e:
        raise HiloError(f"cannot write output file '{shown_path(output)}': {getattr(e, 'strerror', None) or e}") from None


def main() -> None:
    """Console-script entry point."""
    from hilo_mlir.tools.common import run_main

    run_main(TOOL, run)


if __name__ == "__main__":
    main()
