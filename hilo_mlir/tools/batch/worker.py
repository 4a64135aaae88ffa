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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hilo_mlir.tools.batch.classify import one_line

if TYPE_CHECKING:
    import numpy as np

    from hilo_mlir.driver.cache import CacheEntry, CacheKey, CompileCache, _KeyLock
    from hilo_mlir.driver.config import CompileConfig
    from hilo_mlir.passmanager.instrumentation import Instrumentation
    from hilo_mlir.support.diagnostics import Diagnostic, HiloError


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
        cache: the compile cache (:class:`~hilo_mlir.driver.cache.CompileCache`)
            or None: a hit publishes the entry instead of compiling (the
            worker sends ``{"cache": "hit" | "hit-shared" | "miss" | "checked"}``).
    """

    path: str
    target: str
    config: CompileConfig
    allow_unregistered: bool = False
    read_timeout: float | None = None
    print_before_all: bool = False
    print_after_all: bool = False
    timing: bool = False
    statistics: bool = False
    input_types: str | Sequence[str] | None = None
    fusion_report: str | None = None
    debug: bool = False
    weights: dict[int, np.ndarray] = field(default_factory=dict)
    instrumentation: Instrumentation | None = None
    render: Callable[[HiloError, str | None], str] | None = None
    warn: Callable[[Diagnostic], str] | None = None  # a warning as the tool prints it (sent to the parent)
    snapshot: str | None = None  # the input as parsed, for a crash reproducer (set in the worker)
    cache: CompileCache | None = None  # None: no cache
    data: bytes | None = None  # the input's bytes, read by someone else (a Dask client); None: read ``path``
    # set in the worker:
    collected_warnings: list[dict[str, Any]] = field(default_factory=list)  # each warning as Diagnostic fields
    cached_statistics: dict[str, dict[str, int]] = field(default_factory=dict)
    parse_seconds: float = 0.0
    compile_seconds: float = 0.0


class WriteFailed(Exception):
    """The program was compiled but could not be written (``str``: the one-line reason)."""


#: the exit status of a worker that ran out of memory outside a stage that reports it itself
EXIT_OUT_OF_MEMORY = 5


def _reports(job: WorkerJob, src, parse_s: float = 0.0, compile_s: float = 0.0, cache_rows=()) -> None:
    if job.timing:
        from hilo_mlir.passmanager.instrumentation import timing_report

        if src is None:  # a cache hit: the lookup (and the publication) is all that ran
            sys.stderr.write(timing_report(list(cache_rows)))
        else:
            spine = sum(t for _, t in src.timings)
            before = max(0.0, compile_s - spine - src.verify_seconds)
            rows = [
                *cache_rows[:1],
                ("Parser", parse_s),
                ("Input checks and bridge (before the spine)", before),
                *src.timings,
                ("Verifier", src.verify_seconds),
                *cache_rows[1:],
            ]
            sys.stderr.write(timing_report(rows))
    if job.statistics:
        stats = src.statistics if src is not None else job.cached_statistics
        for name, counts in stats.items():
            sys.stderr.write(f"{name}\n")
            for k in sorted(counts):
                sys.stderr.write(f"  ({k}) {counts[k]}\n")


def _cache_key(job: WorkerJob, data: bytes) -> CacheKey:
    """The compile cache's key of ``job`` on the input's bytes ``data``."""
    import hashlib

    from hilo_mlir.driver import spine
    from hilo_mlir.driver.cache import make_key

    # the input's name is part of the key: penguin.py records it in every op's DebugLocation
    extra: dict = {"allow-unregistered-dialect": bool(job.allow_unregistered), "input-name": job.path}
    if job.input_types is not None:
        extra["input-types"] = str(job.input_types)
    if job.weights:
        import numpy as np

        extra["weights"] = tuple(
            (int(i), str(np.asarray(a).dtype), tuple(np.asarray(a).shape), hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest())
            for i, a in sorted(job.weights.items())
        )
    return make_key(data, spine.pipeline_text(job.config), job.path, extra)


def _cache_lookup(job: WorkerJob, cache: CompileCache, data: bytes, send) -> tuple[CacheKey, CacheEntry | None, _KeyLock | None, float]:
    """``(key, entry or None, held lock or None, seconds)``: the lookup in ``cache`` (``job.cache``);
    on a miss the key's lock is held (bounded wait)."""
    t = time.perf_counter()
    key = _cache_key(job, data)
    entry = cache.lookup(key)
    lock = None
    if entry is None:
        send({"pass": "cache-wait"})
        lock = cache.lock(key)
        if lock.held:
            entry = cache.lookup(key)  # another process compiled it while we waited
    if entry is not None and lock is not None:
        lock.release()
        lock = None
    return key, entry, lock, time.perf_counter() - t


def _publish(job: WorkerJob, source, files, send) -> str:
    from hilo_mlir.support.diagnostics import out_of_memory
    from hilo_mlir.support.packaging import publish_error, write_program

    try:
        with out_of_memory("writing the output"):
            return write_program(job.target, source, files, on_published=lambda: send({"pass": "clean-up"}))
    except OSError as e:
        raise WriteFailed(publish_error(job.target, e)) from None


def _publish_hit(job: WorkerJob, entry, lookup_s: float, send) -> tuple[str, list[str]]:
    """A cache hit: replay the compile's warnings, publish the entry's program, report."""
    from hilo_mlir.driver.cache import touch
    from hilo_mlir.support.diagnostics import Diagnostic

    send({"cache": "hit" if entry.tier == "local" else "hit-shared"})
    if job.warn is not None:
        for w in entry.warnings:
            send({"warning": job.warn(Diagnostic(**w))})
    send({"pass": "write"})
    t = time.perf_counter()
    path = _publish(job, entry.source, entry.files, send)
    touch(entry)
    job.cached_statistics = entry.statistics
    _reports(job, None, cache_rows=[("Cache lookup (hit)", lookup_s), ("Publication", time.perf_counter() - t)])
    return path, []


def _compile_and_write(job: WorkerJob, send) -> tuple[str, list[str]]:
    """Compile and write ``job`` (or publish its cache entry): the ``penguin.py`` path and the fusion report's lines for stdout."""
    from hilo_mlir.driver import compiler
    from hilo_mlir.passmanager.pipeline import Instrumentation
    from hilo_mlir.support.diagnostics import HiloError, out_of_memory
    from hilo_mlir.support.io import empty_input_error, read_input

    send({"pass": "read"})
    with out_of_memory("reading the input"):
        data = job.data if job.data is not None else read_input(job.path)
    job.data = None
    if not data.strip():  # bytes a client read (read_input says the same of a file)
        raise empty_input_error(job.path)
    cache = job.cache
    key: CacheKey | None = None
    entry: CacheEntry | None = None
    lock: _KeyLock | None = None
    lookup_s = 0.0
    if cache is not None:
        key, entry, lock, lookup_s = _cache_lookup(job, cache, data, send)
        if entry is not None:
            from hilo_mlir.driver.cache import check_mode

            if not check_mode():
                return _publish_hit(job, entry, lookup_s, send)
    input_bytes = data if cache is not None else b""
    box = [data]
    del data  # the compile holds the only reference (a large proto is freed once parsed)
    try:
        src = _compile(job, box, send, compiler, Instrumentation, HiloError, out_of_memory)
        if cache is not None and key is not None:  # the lookup sets both
            send({"cache": "miss" if entry is None else "checked"})
            t = time.perf_counter()
            if entry is not None:
                from hilo_mlir.driver.cache import check_hit

                check_hit(entry, src, src.files)
            else:
                cache.store(key, input_bytes, src, src.files, src.statistics, job.collected_warnings)
            cache_rows = [("Cache lookup (miss)", lookup_s), ("Cache store" if entry is None else "Cache check", time.perf_counter() - t)]
        else:
            cache_rows = []
    finally:
        if lock is not None:
            lock.release()
    _reports(job, src, job.parse_seconds, job.compile_seconds, cache_rows)
    send({"pass": "write"})
    path = _publish(job, src, src.files, send)
    return path, _fusion_report_lines(job, src)


def _compile(job: WorkerJob, box: list, send, compiler, Instrumentation, HiloError, out_of_memory):
    """Parse and compile the input's bytes (``box``: a list holding them, emptied once parsed);
    the :class:`~hilo_mlir.driver.compiler.PenguinSource` (weights' files added)."""
    from hilo_mlir.driver.frontend.loading import input_kind

    data = box.pop()
    send({"pass": "parse", "input": input_kind(job.path, data)})
    t0 = time.perf_counter()
    with out_of_memory("parsing the input"):
        loaded = compiler.load_module(data, job.path, allow_unregistered=job.allow_unregistered, isolate=True, timeout=job.read_timeout)
    job.parse_seconds = time.perf_counter() - t0
    del data
    if job.weights:
        from hilo_mlir.driver.weights import mark_parameters

        with loaded.context:
            mark_parameters(loaded.module, job.weights, job.path)
    instr = job.instrumentation
    if instr is None:
        instr = Instrumentation(print_before_all=job.print_before_all, print_after_all=job.print_after_all, out=sys.stderr, debug=job.debug)
    instr.on_pass_start = lambda arg: send({"pass": arg})

    def on_diagnostic(d) -> None:
        import dataclasses

        job.collected_warnings.append(dataclasses.asdict(d) | {"raw": None if d.raw is None else str(d.raw)})
        if job.warn is not None:
            send({"warning": job.warn(d)})

    instr.on_diagnostic = on_diagnostic
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
    job.compile_seconds = time.perf_counter() - t0
    return src


def _fusion_report_lines(job: WorkerJob, src) -> list[str]:
    """What ``--fusion-report`` prints after ``wrote``: its two files and one line per kind."""
    if src.fusion_report is None or job.fusion_report is None:
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
            from hilo_mlir.support.diagnostics import render_every
            from hilo_mlir.support.io import input_name

            name = input_name(job.path)  # `<stdin>` for `-`
            msg: dict[str, object] = {"status": "rejected", "diagnostic": one_line(e.format(name))}
            rest, summary = e.also(name)
            if rest or summary:  # several independent errors (one per blocking op): each its own line
                msg["diagnostics"] = [one_line(x.format(name)) for x in [e, *rest]] + [one_line(x) for x in summary]
            if job.render is not None:  # each with its source line and caret (the first with the reproducer's note)
                render, first = job.render, e
                msg["rendered"] = render_every(e, lambda x: render(x, job.snapshot if x is first else None), name)
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
