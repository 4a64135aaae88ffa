"""Single-file mode (``hilo2penguin INPUT -o OUTDIR``): a batch of one whose output folder is OUTDIR itself.

The module is compiled in one forked worker (:mod:`.pool`, :mod:`.worker`),
so nothing the input can make the binding do -- a segfault, an LLVM abort,
``std::bad_alloc``, a hang past ``--timeout`` -- takes the tool down
without a word: :func:`message` turns the worker's outcome into the one line
the user sees, and the exit status is 0 only for ``ok``.
"""

from __future__ import annotations

import sys

from hilo_mlir.support.signals import EXIT_INTERRUPTED, StopRequest
from hilo_mlir.tools.batch.classify import ModuleResult, classify, phase
from hilo_mlir.tools.batch.pool import WorkerPool
from hilo_mlir.tools.batch.worker import WorkerJob, compile_one


def message(r: ModuleResult, job: WorkerJob, timeout: float | None = None, tool: str = "hilo2penguin") -> str:
    """The one line for a result that is not ``ok`` (pure)."""
    from hilo_mlir.support.diagnostics import shown_path
    from hilo_mlir.support.io import input_name

    name = shown_path(input_name(job.path))
    if r.status == "rejected":
        return r.diagnostic or f"{name}: error: rejected"
    if r.status == "write-failed":
        return f"{tool}: error: {r.diagnostic}"
    if r.status == "timeout":
        return f"{name}: error: the compile did not finish in {timeout:g} s (killed while {phase(r.last_pass)})"
    if r.last_pass == "clean-up":  # penguin.py was renamed into place: the new program is there
        return (
            f"{tool}: error: killed ({r.signal or 'exited'}) after writing {job.target}/penguin.py, while removing "
            "the previous program's files (the new program is complete; a file of the previous one may remain)"
        )
    if r.signal:
        return f"{name}: error: the compiler crashed ({r.signal}) while {phase(r.last_pass)} on this input; this is a bug" + (
            f" ({r.diagnostic})" if r.diagnostic and not r.diagnostic.startswith("killed by") else ""
        )
    if r.diagnostic and r.diagnostic.startswith("internal error"):
        return f"{tool}: {r.diagnostic} (while {phase(r.last_pass)})"
    return f"{tool}: error: the compiler ended without a result while {phase(r.last_pass)}: {r.diagnostic}"


def run_single(job: WorkerJob, timeout: float | None = None, forward: bool = False, stdout=None, stderr=None) -> int:
    """Compile ``job`` in a worker; print ``wrote <path>`` or the one-line error; returns the exit status.

    Args:
        job: the input, OUTDIR and options.
        timeout: seconds the whole compile may take (None: no limit).
        forward: pass the worker's own output (IR dumps, timing and
            statistics reports) through to ``stderr`` as it comes.
    """
    from hilo_mlir.tools import batch

    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    batch._preload([job])
    box: dict = {}
    with StopRequest() as stop:
        pool = WorkerPool(
            1, timeout, lambda i, o: box.update(outcome=o), None, stop, forward=getattr(stderr, "buffer", None) if forward else None
        )
        pool.run([(job.path, lambda send: compile_one(job, send))])
    if stop.requested or "outcome" not in box:
        stderr.write("hilo2penguin: interrupted\n")  # the worker was killed; OUTDIR keeps what it had
        stderr.flush()
        return EXIT_INTERRUPTED
    o = box["outcome"]
    r = classify(o)
    if r.status == "ok":
        final = o.final or {}
        stdout.write(f"wrote {final.get('path')}\n")
        stdout.write("".join(line + "\n" for line in final.get("report") or ()))
        return 0
    rendered = (o.final or {}).get("rendered")
    if r.status == "rejected" and rendered:
        stderr.write(rendered.rstrip("\n") + "\n")
    elif r.status == "rejected" and r.diagnostics:
        stderr.write("".join(line + "\n" for line in r.diagnostics))
    else:
        stderr.write(" ".join(message(r, job, timeout).split()) + "\n")
    return 1
