"""Batch on a Dask cluster: ``hilo2penguin --batch INPUTS... -o OUTDIR --scheduler tcp://HOST:PORT``.

Needs the optional extra ``hilo-mlir[distributed]`` (Dask ``distributed``) on
the client and on every worker, and hilo_mlir importable on the workers.

* The client reads each module's bytes and submits one task per module
  (:func:`run_module`, at most ``in_flight`` at a time, so a corpus of
  thousands of dumps is never all in memory). The workers need not see the
  inputs; the path travels with the bytes (``penguin.py`` records it in its
  ``DebugLocation``\\ s, so the output equals the local pool's).
* The task runs the same isolated single-module worker as the local pool:
  :class:`~hilo_mlir.tools.batch.pool.WorkerPool` forks one child running
  :func:`~hilo_mlir.tools.batch.worker.compile_one`, which publishes into a
  temporary folder on the Dask worker; the task returns what the pool
  observed (:class:`~hilo_mlir.tools.batch.classify.WorkerOutcome`'s fields)
  and the published files. A crash, an abort or a timeout ends that child
  only, and is classified by the client with the same
  :func:`~hilo_mlir.tools.batch.classify.classify` as a local batch: same
  statuses, same diagnostics, same order in the report.
* Outputs are written by the client, through
  :func:`hilo_mlir.support.packaging.write_published` (the same staging,
  rename and lock as a local compile). A file whose name is not its content's
  hash is refused (``write-failed``).
* A Dask worker that dies (killed, out of memory) takes its task with it:
  the scheduler reruns the task on another worker (``distributed``'s
  ``allowed-failures``, default 3 reruns); after that the module is reported
  ``crashed`` (``the Dask worker running it died ...``). No module is lost.
* Connecting waits ``HILO_MLIR_DASK_CONNECT_TIMEOUT`` seconds (default 30).
* The compile cache given to the batch (``--cache-dir``,
  ``HILO_MLIR_CACHE_URL``) is used on the workers: the same local folder path
  on each node, backed by the shared tier.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time

from hilo_mlir.tools.batch.classify import ModuleResult, WorkerOutcome, classify


def _require_distributed():
    from hilo_mlir.support.diagnostics import HiloError

    try:
        import distributed
    except ImportError:
        raise HiloError("--scheduler needs Dask distributed: pip install 'hilo-mlir[distributed]'") from None
    return distributed


def run_module(path: str, data: bytes | None, config, allow_unregistered: bool, timeout: float | None, cache) -> dict:
    """The task of one module on a Dask worker: compile it in a forked child, return the outcome and the files.

    Returns:
        ``{"outcome": {WorkerOutcome fields}, "program": bytes or None, "files": {content name: bytes}}``.
    """
    from hilo_mlir.tools.batch.pool import WorkerPool
    from hilo_mlir.tools.batch.prepare import preload
    from hilo_mlir.tools.batch.worker import WorkerJob, compile_one

    class _Item:
        pass

    item = _Item()
    item.path = path  # type: ignore[attr-defined]
    preload([item])
    target = tempfile.mkdtemp(prefix="hilo-dask-")
    try:
        job = WorkerJob(path, os.path.join(target, "out"), config, allow_unregistered, cache=cache, data=data)
        box: dict = {}
        WorkerPool(1, timeout, lambda i, o: box.update(outcome=o)).run([(path, lambda send: compile_one(job, send))])
        o: WorkerOutcome = box["outcome"]
        program, files = None, {}
        out = os.path.join(target, "out")
        if o.final is not None and o.final.get("status") == "ok" and os.path.isdir(out):
            for name in os.listdir(out):
                with open(os.path.join(out, name), "rb") as f:
                    blob = f.read()
                if name == "penguin.py":
                    program = blob
                else:
                    files[name] = blob
        return {"outcome": {k: getattr(o, k) for k in WorkerOutcome.__dataclass_fields__}, "program": program, "files": files}
    finally:
        shutil.rmtree(target, ignore_errors=True)


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None  # the worker reads it and says why it cannot


def _publish(result: dict, outdir: str, item, r: ModuleResult) -> ModuleResult:
    from hilo_mlir.support.packaging import publish_error, write_published

    target = os.path.join(outdir, item.rel_stem)
    try:
        if result["program"] is None:
            raise ValueError("the worker returned no penguin.py")
        write_published(target, result["program"], result["files"])
    except (OSError, ValueError) as e:
        msg = publish_error(target, e)
        return ModuleResult(r.path, "write-failed", msg, None, "write", r.seconds)
    return r


def _lost(item, exc: BaseException, seconds: float) -> ModuleResult:
    """A task that never came back: its Dask worker died on every try (``KilledWorker``), or another failure."""
    name = type(exc).__name__
    if name == "KilledWorker":
        text = "the Dask worker running it died on every try (killed, or out of memory)"
    else:
        text = f"the Dask task failed: {name}: {' '.join(str(exc).split())}"
    return ModuleResult(item.path, "crashed", text, None, None, seconds)


def compile_batch_on_cluster(
    items,
    outdir: str,
    config,
    scheduler: str,
    timeout: float | None = None,
    allow_unregistered: bool = False,
    progress=None,
    stop=None,
    cache=None,
    in_flight: int | None = None,
    client=None,
) -> list[ModuleResult]:
    """Compile ``items`` on the Dask cluster at ``scheduler``; results in ``items`` order (as :func:`compile_batch`).

    ``in_flight``: tasks submitted at a time (default: twice the cluster's
    worker threads). ``client``: an existing ``distributed.Client`` (tests).

    Raises:
        HiloError: Dask distributed is not installed; the scheduler cannot be reached.
    """
    from hilo_mlir.support.diagnostics import HiloError
    from hilo_mlir.tools.batch.prepare import prepare_outdir

    distributed = _require_distributed()
    prepare_outdir(outdir, create=False)  # a folder that cannot be used is the first error
    own = client is None
    if own:
        try:
            wait = float(os.environ.get("HILO_MLIR_DASK_CONNECT_TIMEOUT", "30"))
            client = distributed.Client(scheduler, timeout=wait, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as e:
            raise HiloError(f"cannot reach the Dask scheduler '{scheduler}': {' '.join(str(e).split())}") from None
    prepare_outdir(outdir)  # created once the cluster answers: a failed connection leaves no empty folder
    try:
        if in_flight is None:
            threads = sum((client.nthreads() or {}).values()) or 1
            in_flight = 2 * threads
        return _run(client, distributed, items, outdir, config, timeout, allow_unregistered, progress, stop, cache, max(1, in_flight))
    finally:
        if own:
            client.close()


def _run(client, distributed, items, outdir, config, timeout, allow_unregistered, progress, stop, cache, in_flight):
    results: list[ModuleResult | None] = [None] * len(items)
    pending = list(enumerate(items))
    pending.reverse()
    started: dict = {}
    running: dict = {}  # future -> index

    def submit() -> None:
        while pending and len(running) < in_flight and not (stop is not None and stop.requested):
            index, item = pending.pop()
            fut = client.submit(
                run_module,
                item.path,
                _read(item.path),
                config,
                allow_unregistered,
                timeout,
                cache,
                key=f"hilo2penguin-{index}-{os.getpid()}-{time.monotonic_ns()}",
                pure=False,
            )
            running[fut] = index
            started[index] = time.monotonic()

    submit()
    while running:
        if stop is not None and stop.requested:
            client.cancel(list(running))
            break
        try:
            done, _ = distributed.wait(list(running), timeout=0.5, return_when="FIRST_COMPLETED")
        except TimeoutError:
            continue
        for fut in sorted(done, key=lambda f: running[f]):
            index = running.pop(fut)
            item = items[index]
            try:
                result = fut.result()
            except Exception as e:  # noqa: BLE001 - a task that died with its worker: reported, not lost
                r = _lost(item, e, time.monotonic() - started[index])
            else:
                r = classify(WorkerOutcome(**result["outcome"]))
                if r.status == "ok":
                    r = _publish(result, outdir, item, r)
            r.output = item.rel_stem
            results[index] = r
            if progress:
                progress.update(r)
        submit()
    return [r for r in results if r is not None]
