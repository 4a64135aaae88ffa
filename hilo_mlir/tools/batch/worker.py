"""The task of one worker: read, parse, compile and write one module, announcing each stage.

Runs in a forked child (:class:`hilo_mlir.tools.batch.pool.WorkerPool`; batch mode
runs one per module, single-file mode one for its input). Every stage is
announced (``{"pass": "read"}``, ``parse``, then ``validate-input``, the
bridge's and the spine's passes through ``Instrumentation.on_pass_start``,
then ``write``) before it runs, so the announcement survives a crash in it;
the last message is the result: ``{"status": "ok", "path": ...}``,
``{"status": "rejected", "diagnostic": ...}`` (a
:class:`~hilo_mlir.support.diagnostics.HiloError`), ``{"status": "write-failed",
"diagnostic": "cannot write ...: <OS error>"}`` (the output could not be
written: a full disk, no permission) or ``{"status": "crashed",
"diagnostic": "internal error: ...", "traceback": ...}`` (any other Python
exception: a bug, reported, never printed). Binary inputs are read in a
further child (:mod:`hilo_mlir.driver.frontend.binary`), so a reader crash is a
one-line rejection.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field

from hilo_mlir.tools.batch.classify import one_line


@dataclass
class WorkerJob:
    """What one worker compiles and where it writes.

    Attributes:
        path: the input module.
        target: the output folder (``penguin.py`` goes there).
        config: the :class:`~hilo_mlir.driver.config.CompileConfig`.
        allow_unregistered: accept ops of unknown dialects.
        read_timeout: seconds a binary input may take to read (None: the default).
        print_before_all / print_after_all: IR dumps on stderr.
        timing / statistics: the ``--mlir-timing`` / ``--mlir-pass-statistics`` reports on stderr.
        input_types: static types of ``main``'s arguments (``--input-types``), or None.
        fusion_report: a folder for the fusion report (``--fusion-report``), or None.
        debug: the passes' debug lines on stderr (``--debug``).
        instrumentation: the :class:`~hilo_mlir.passmanager.instrumentation.Instrumentation`
            the tool built from its flags (IR printing, reproducer, warnings), or
            None for the plain one; its ``on_pass_start`` is the worker's.
        render: ``render(error, reproducer_snapshot) -> str``: the rejection as
            the tool prints it (source line, notes), or None for one line.
        weights: ``{main input index: array}`` (``--weights``): those inputs
            print as parameters and their arrays are written beside ``penguin.py``.
    """

    path: str
    target: str
    config: object
    allow_unregistered: bool = False
    read_timeout: float | None = None
    print_before_all: bool = False
    print_after_all: bool = False
    timing: bool = False
    statistics: bool = False
    input_types: object = None
    fusion_report: str | None = None
    debug: bool = False
    weights: dict = field(default_factory=dict)
    instrumentation: object = None
    render: object = None
    warn: object = None  # warn(diagnostic) -> str: a warning as the tool prints it (sent to the parent)
    snapshot: str | None = None  # the input as parsed, for a crash reproducer (set in the worker)


class WriteFailed(Exception):
    """The program was compiled but could not be written (``str``: the one-line reason)."""


#: the exit status of a worker that ran out of memory outside a stage that reports it itself
EXIT_OUT_OF_MEMORY = 5


def _reports(job: WorkerJob, src, parse_s: float = 0.0, compile_s: float = 0.0) -> None:
    if job.timing:
        from hilo_mlir.passmanager.instrumentation import timing_report

        spine = sum(t for _, t in src.timings)
        before = max(0.0, compile_s - spine - src.verify_seconds)
        rows = [("Parser", parse_s), ("Input checks and bridge (before the spine)", before), *src.timings, ("Verifier", src.verify_seconds)]
        sys.stderr.write(timing_report(rows))
    if job.statistics:
        for name, stats in src.statistics.items():
            sys.stderr.write(f"{name}\n")
            for k in sorted(stats):
                sys.stderr.write(f"  ({k}) {stats[k]}\n")


def _compile_and_write(job: WorkerJob, send) -> tuple[str, list[str]]:
    """Compile and write ``job``: the ``penguin.py`` path and the fusion report's lines for stdout."""
    from hilo_mlir.driver import compiler
    from hilo_mlir.driver.packaging import write_program
    from hilo_mlir.passmanager.pipeline import Instrumentation
    from hilo_mlir.support.diagnostics import HiloError, out_of_memory
    from hilo_mlir.support.io import read_input

    send({"pass": "read"})
    with out_of_memory("reading the input"):
        data = read_input(job.path)
    from hilo_mlir.driver.frontend.loading import input_kind

    send({"pass": "parse", "input": input_kind(job.path, data)})
    t0 = time.perf_counter()
    with out_of_memory("parsing the input"):
        loaded = compiler.load_module(data, job.path, allow_unregistered=job.allow_unregistered, isolate=True, timeout=job.read_timeout)
    parse_s = time.perf_counter() - t0
    del data
    if job.weights:
        from hilo_mlir.driver.weights import mark_parameters

        with loaded.context:
            mark_parameters(loaded.module, job.weights, job.path)
    instr = job.instrumentation
    if instr is None:
        instr = Instrumentation(print_before_all=job.print_before_all, print_after_all=job.print_after_all, out=sys.stderr, debug=job.debug)
    instr.on_pass_start = lambda arg: send({"pass": arg})
    if job.warn is not None:
        instr.on_diagnostic = lambda d: send({"warning": job.warn(d)})
    if getattr(instr, "reproducer", None):
        from hilo_mlir.passmanager.reproducer import snapshot

        with loaded.context:
            job.snapshot = snapshot(loaded.module, job.path)
    t0 = time.perf_counter()
    try:
        src = compiler.compile_loaded(
            loaded, job.config, instrumentation=instr, input_types=job.input_types, fusion_report=job.fusion_report
        )
    except HiloError as e:
        if job.debug:
            sys.stderr.writelines(line + "\n" for line in getattr(e, "log", ()))
        raise
    if job.debug:
        sys.stderr.writelines(line + "\n" for line in src.log)
    if job.weights:
        from hilo_mlir.driver.weights import weight_files

        src.files.update(weight_files(src, job.weights))
    _reports(job, src, parse_s, time.perf_counter() - t0)
    send({"pass": "write"})
    try:
        with out_of_memory("writing the output"):
            path = write_program(job.target, src, on_published=lambda: send({"pass": "clean-up"}))
    except OSError as e:
        raise WriteFailed(f"cannot write '{os.path.join(job.target, 'penguin.py')}': {e.strerror or e}") from None
    return path, _fusion_report_lines(job, src)


def _fusion_report_lines(job: WorkerJob, src) -> list[str]:
    """What ``--fusion-report`` prints after ``wrote``: its two files and one line per kind."""
    if src.fusion_report is None:
        return []
    from hilo_mlir.fusion.report import HTML_NAME, JSON_NAME

    lines = [f"wrote {os.path.join(job.fusion_report, JSON_NAME)}", f"wrote {os.path.join(job.fusion_report, HTML_NAME)}"]
    return lines + (src.fusion_report.summary_lines() or ["fusion report: no fusion candidates"])


def compile_one(job: WorkerJob, send) -> None:
    """Compile ``job``; report through ``send``; never returns (``os._exit``)."""
    import traceback

    code = 0
    try:
        from hilo_mlir.support.diagnostics import HiloError

        try:
            path, lines = _compile_and_write(job, send)
            send({"status": "ok", "path": path, "report": lines})
        except HiloError as e:
            msg = {"status": "rejected", "diagnostic": one_line(e.format(job.path))}
            if job.render is not None:
                msg["rendered"] = job.render(e, job.snapshot)
            lines = e.lines(job.path) if hasattr(e, "lines") else []
            if len(lines) > 1:  # several independent errors (one per blocking op): each its own line
                msg["diagnostics"] = [one_line(x) for x in lines]
            send(msg)
        except WriteFailed as e:
            send({"status": "write-failed", "diagnostic": one_line(str(e))})
        except MemoryError:
            raise  # outside an out_of_memory(...) stage: the exit status says it (EXIT_OUT_OF_MEMORY)
        except Exception as e:  # noqa: BLE001 - a bug in our code: reported, never a traceback on the console
            send(
                {
                    "status": "crashed",
                    "diagnostic": one_line(f"internal error: {type(e).__name__}: {e}"),
                    "traceback": traceback.format_exc()[-8000:],
                }
            )
    except MemoryError:
        code = EXIT_OUT_OF_MEMORY
    except BaseException:  # noqa: BLE001 - e.g. KeyboardInterrupt: the parent reports the exit
        code = 3
    finally:
        from hilo_mlir.support.isolation import exit_child

        exit_child(code)
