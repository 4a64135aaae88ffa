"""Batch compilation with crash isolation.

``hilo2penguin --batch INPUTS... -o OUTDIR --jobs N --report report.json [--timeout S]``

* INPUTS are files or folders; folders are searched recursively for ``*.mlir``
  and ``*.pb`` (hidden folders skipped). The module list is sorted, so the
  order of the report and of the output folders does not depend on the file
  system or on ``--jobs`` (:mod:`.discovery`).
* Every module compiles in its own worker process (:mod:`.pool`, running
  :mod:`.worker`'s task). A segfault or an LLVM abort inside the binding ends
  only that child; the module is reported ``crashed`` with the signal and the
  last pass that started (the child announces each pass on a pipe before it
  runs, so the announcement survives the crash).
* Statuses (:mod:`.classify`, a pure function of what the pool observed):
  ``ok``; ``rejected`` (our :class:`~hilo_mlir.support.diagnostics.HiloError`, one
  line); ``crashed`` (killed by a signal, a non-zero exit, or a Python
  exception that is not a HiloError -- a bug, reported with ``internal
  error``); ``timeout`` (``--timeout S`` elapsed; the child is killed with
  SIGKILL).
* ``last_pass`` is the argument of the pass that was running, or one of the
  driver stages ``read``, ``parse``, ``validate-input`` (the driver's input
  checks, :func:`hilo_mlir.passes.importing.validation.validate_input`) and ``write``.
* Outputs: ``OUTDIR/<relative path stem>/penguin.py`` (plus its ``.npy``
  files), written through :func:`hilo_mlir.support.packaging.write_program` (staging
  folder, rename into place after everything was written). A module that
  fails leaves no staging files behind and does not touch an earlier
  ``penguin.py``. Unrelated files in OUTDIR are never touched.
* ``report.json``: ``{"modules": [{"path", "status", "diagnostic", "signal",
  "last_pass", "seconds", "output"[, "cache"]}], "summary": {"ok", "rejected", "crashed",
  "timeout"}}`` (written atomically; ``output``: the module's folder below OUTDIR). Crashes by a Python exception add
  ``"traceback"`` (:mod:`.report`).

Exit status (of :func:`run_batch` / the CLI): 0 only if every module is ``ok``
or ``rejected``.
"""

from __future__ import annotations

import os
import sys

from hilo_mlir.tools.batch.classify import STATUSES, ModuleResult, WorkerOutcome, classify  # noqa: F401 (public API)
from hilo_mlir.tools.batch.discovery import BatchItem, discover  # noqa: F401 (public API)
from hilo_mlir.tools.batch.prepare import preload as _preload
from hilo_mlir.tools.batch.prepare import prepare_outdir
from hilo_mlir.tools.batch.report import Progress, exit_code, report_dict, summarize, summary_table, write_report  # noqa: F401

_Progress = Progress  # the name the tests and older callers use


def _cleanup_staging(outdir: str, rel_stem: str) -> None:
    """After a failed or killed worker: remove staging folders nobody owns, and the module's folder if it is left empty."""
    from hilo_mlir.support.packaging import remove_dead_staging

    d = os.path.join(outdir, rel_stem)
    if not os.path.isdir(d):
        return
    remove_dead_staging(d)  # the worker is dead: its staging folder is no longer locked
    try:
        os.rmdir(d)  # only if the failed child left it empty (never touches existing files)
    except OSError:
        pass


def compile_batch(
    items: list[BatchItem],
    outdir: str,
    config,
    jobs: int = 1,
    timeout: float | None = None,
    allow_unregistered: bool = False,
    progress: Progress | None = None,
    stop=None,
    cache=None,
) -> list[ModuleResult]:
    """Compile ``items`` with at most ``jobs`` children at a time; results in ``items`` order.

    ``stop``: a :class:`~hilo_mlir.tools.batch.pool.StopRequest`; when it fires the
    running workers are killed and only the modules that finished are
    returned (their order kept). ``cache``: a
    :class:`~hilo_mlir.driver.cache.CompileCache` (None: every module compiles).

    Raises:
        HiloError: OUTDIR is a file or cannot be created.
    """
    from hilo_mlir.tools.batch.pool import WorkerPool
    from hilo_mlir.tools.batch.worker import WorkerJob, compile_one

    _preload(items)
    prepare_outdir(outdir)
    results: list[ModuleResult | None] = [None] * len(items)

    def done(index: int, outcome: WorkerOutcome) -> None:
        r = classify(outcome)
        r.output = items[index].rel_stem
        if r.status != "ok":
            _cleanup_staging(outdir, items[index].rel_stem)
        results[index] = r
        if progress:
            progress.update(r)

    def abandon(index: int) -> None:
        _cleanup_staging(outdir, items[index].rel_stem)

    def task(item):
        job = WorkerJob(item.path, os.path.join(outdir, item.rel_stem), config, allow_unregistered, cache=cache)
        return lambda send: compile_one(job, send)

    WorkerPool(jobs, timeout, done, abandon, stop).run([(it.path, task(it)) for it in items])
    return [r for r in results if r is not None]


def run_batch(
    inputs: list[str],
    outdir: str,
    config,
    jobs: int = 1,
    report: str | None = None,
    timeout: float | None = None,
    allow_unregistered: bool = False,
    stdout=None,
    stderr=None,
    tty: bool | None = None,
    cache=None,
    scheduler: str | None = None,
    jobs_given: int | None = None,
) -> int:
    """Discover, compile, report; returns the exit status.

    0 if every module is ``ok`` or ``rejected``; 1 if one is not, or the
    report cannot be written (the summary is printed anyway, then the error
    on stderr); 130 when SIGINT or SIGTERM stopped the batch (the workers are
    killed, the report lists the modules that finished with
    ``"interrupted": true``, and the summary is printed).

    ``scheduler``: a Dask scheduler address (``tcp://HOST:PORT``): one task
    per module on that cluster (:mod:`.cluster`), ``jobs`` then bounds the
    tasks in flight only when ``jobs_given``.

    Raises:
        HiloError: an input that does not exist; no module found; OUTDIR is a file;
            the scheduler cannot be reached or Dask distributed is missing.
    """
    from hilo_mlir.support.diagnostics import HiloError
    from hilo_mlir.support.signals import EXIT_INTERRUPTED, StopRequest

    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    with StopRequest() as stop:
        items = discover(inputs)
        if not items:
            raise HiloError("no input modules (*.mlir, *.pb, *.hlo, HLO text *.txt) found in " + ", ".join(repr(i) for i in inputs))
        progress = Progress(len(items), stderr, tty)
        if scheduler:
            from hilo_mlir.tools.batch.cluster import compile_batch_on_cluster

            results = compile_batch_on_cluster(
                items, outdir, config, scheduler, timeout, allow_unregistered, progress, stop, cache, in_flight=jobs_given
            )
        else:
            results = compile_batch(items, outdir, config, jobs, timeout, allow_unregistered, progress, stop, cache)
        interrupted = stop.requested
        if interrupted and progress.tty and progress.done:
            stderr.write("\n")
        report_error = None
        written = None  # the "interrupted" the report on disk says
        while report and written != stop.requested:  # a signal while writing: write it again, saying so
            interrupted = stop.requested
            try:
                write_report(report, results, interrupted, len(items))
                written = interrupted
            except HiloError as e:
                report_error = e
                break
        interrupted = stop.requested
        stdout.write(summary_table(results, interrupted, len(items)))
        stdout.flush()
        if report_error is not None:
            stderr.write(" ".join(report_error.render(tool="hilo2penguin").split()) + "\n")
            stderr.flush()
        if report and report_error is None and stop.requested and not written:
            try:  # the signal came while the summary was printed
                write_report(report, results, True, len(items))
            except HiloError:
                pass
        interrupted = stop.requested
    if interrupted:
        return EXIT_INTERRUPTED
    return 1 if report_error is not None else exit_code(results)
