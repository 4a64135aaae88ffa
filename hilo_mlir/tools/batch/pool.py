"""A pool of forked workers, one per task, at most ``jobs`` at a time.

The batch process imports ``hilo_mlir`` once and ``fork``s one child per task
(cheap; nothing is shared after the fork, each child makes its own
``ir.Context``; :func:`hilo_mlir.support.isolation.child_setup`: the child dies with
the pool's process). A child talks to the pool through a pipe of JSON lines
(``send(obj)``); its stdout and stderr go to a second pipe whose tail is kept
(a dying LLVM prints its reason there). A segfault or an abort ends only that
child. A child still running ``timeout`` seconds after its fork is killed
with SIGKILL.

Interruption: :class:`hilo_mlir.support.signals.StopRequest` turns SIGINT and SIGTERM into a flag the
pool's loop checks (never an exception, so a signal that arrives anywhere --
inside ``fork()`` too, which runs with both signals blocked -- is never
lost); the pool then starts no new task, kills and reaps its children and
returns, leaving the tasks that finished.

The pool knows nothing about compiling: :mod:`hilo_mlir.tools.batch.worker` is the
task, :func:`hilo_mlir.tools.batch.classify.classify` turns what the pool observed
(:class:`~hilo_mlir.tools.batch.classify.WorkerOutcome`) into a report row.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time
from dataclasses import dataclass, field

from hilo_mlir.support.isolation import child_setup, fork_guard
from hilo_mlir.support.signals import SIGNALS, StopRequest  # noqa: F401 (StopRequest: re-exported for callers)
from hilo_mlir.tools.batch.classify import WorkerOutcome

_STDERR_TAIL = 65536


@dataclass
class _Running:
    index: int
    path: str
    pid: int
    msg_fd: int
    err_fd: int
    start: float
    buf: bytes = b""
    err: bytes = b""
    last_pass: str | None = None
    input_kind: str | None = None
    cache: str | None = None
    final: dict | None = None
    open_fds: set = field(default_factory=set)
    timed_out: bool = False


def _sender(wfd: int):
    def send(obj) -> None:
        data = (json.dumps(obj) + "\n").encode("utf-8")
        while data:
            n = os.write(wfd, data)
            data = data[n:]

    return send


class WorkerPool:
    """Run tasks in forked children; ``on_done(outcome)`` hears each one as it finishes.

    Args:
        jobs: children at a time (at least 1).
        timeout: seconds from fork until a child is killed (None: no limit).
        on_done: called in the parent with ``(index, WorkerOutcome)``.
        on_abandon: called with ``index`` for each task whose child was
            killed because the pool itself was interrupted.
        stop: a :class:`StopRequest` (or anything with ``requested``) the
            loop checks; when set, the pool kills its children and returns.
        forward: a binary stream that also gets everything the children
            print (single-file mode with IR dumps or reports); default: kept
            only as the tail that explains a crash.
    """

    def __init__(self, jobs: int, timeout: float | None, on_done, on_abandon=None, stop=None, forward=None):
        self.forward = forward
        self.jobs = max(1, int(jobs))
        self.timeout = timeout
        self.on_done = on_done
        self.on_abandon = on_abandon
        self.stop = stop
        self.running: dict[int, _Running] = {}  # pid -> job

    def _start(self, index: int, path: str, task) -> None:
        """Fork one child running ``task(send)``; the child never returns."""
        mr, mw = os.pipe()
        er, ew = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        parent = os.getpid()
        with fork_guard():
            pid = os.fork()
            if pid == 0:  # child
                try:
                    child_setup(parent, ew, close_fds=(mr, er))
                    for other in self.running.values():  # the siblings' pipes are not ours
                        for fd in other.open_fds:
                            os.close(fd)
                except BaseException:  # noqa: BLE001
                    os._exit(4)
                task(_sender(mw))  # never returns (os._exit)
                os._exit(5)
        os.close(mw)
        os.close(ew)
        job = _Running(index, path, pid, mr, er, time.monotonic())
        job.open_fds = {mr, er}
        self.running[pid] = job

    @staticmethod
    def _on_message(job: _Running, data: bytes) -> None:
        job.buf += data
        while b"\n" in job.buf:
            line, job.buf = job.buf.split(b"\n", 1)
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if "pass" in msg:
                job.last_pass = msg["pass"]
            if "input" in msg:
                job.input_kind = msg["input"]
            if "cache" in msg:
                job.cache = msg["cache"]
            if "warning" in msg:  # a diagnostic the tool prints as it comes (single-file mode)
                sys.stderr.write(str(msg["warning"]).rstrip("\n") + "\n")
                sys.stderr.flush()
            if "status" in msg:
                job.final = msg

    def _wait_time(self) -> float:
        wait = 0.2
        if self.timeout:
            now = time.monotonic()
            wait = min([wait] + [max(0.0, job.start + self.timeout - now) for job in self.running.values()])
        return wait

    def _read_ready(self) -> None:
        fds = {fd: job for job in self.running.values() for fd in job.open_fds}
        wait = self._wait_time()
        if not fds:
            time.sleep(wait)
            return
        try:
            ready = select.select(list(fds), [], [], wait)[0]
        except InterruptedError:
            return
        for fd in ready:
            job = fds[fd]
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            if not data:
                os.close(fd)
                job.open_fds.discard(fd)
            elif fd == job.msg_fd:
                self._on_message(job, data)
            else:
                job.err = (job.err + data)[-_STDERR_TAIL:]
                if self.forward is not None:
                    self._forward(data)

    def _forward(self, data: bytes) -> None:
        """Pass a child's output on; once the reader of :attr:`forward` is gone (``2>&1 | head``), stop
        passing it on and let the compile finish (its result, not a dump nobody reads, decides the exit)."""
        try:
            self.forward.write(data)
            self.forward.flush()
        except (BrokenPipeError, ValueError):  # a closed pipe, or a stream closed in this process
            self.forward = None

    def _reap(self) -> None:
        """Kill children past the timeout; reap every child whose pipes are closed (or that was killed)."""
        now = time.monotonic()
        for pid, job in list(self.running.items()):
            if self.timeout and not job.timed_out and now - job.start > self.timeout and job.final is None:
                job.timed_out = True
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if job.open_fds and not job.timed_out:
                continue
            wpid, status = os.waitpid(pid, 0 if not job.open_fds else os.WNOHANG)
            if wpid == 0:
                continue
            for fd in list(job.open_fds):
                os.close(fd)
            job.open_fds.clear()
            del self.running[pid]
            if os.WIFSIGNALED(status) and os.WTERMSIG(status) in SIGNALS and self._stop_soon():
                # the Ctrl-C that reached the pool reached the child too: not its crash
                if self.on_abandon:
                    self.on_abandon(job.index)
                continue
            outcome = WorkerOutcome(
                job.path,
                status,
                time.monotonic() - job.start,
                job.last_pass,
                job.final,
                job.err,
                job.timed_out,
                self.timeout,
                job.input_kind,
                job.cache,
            )
            self.on_done(job.index, outcome)

    def _stopping(self) -> bool:
        return bool(self.stop is not None and self.stop.requested)

    def _stop_soon(self) -> bool:
        """True if a stop request has arrived or arrives within 0.5 s (its handler may not have run yet)."""
        deadline = time.monotonic() + 0.5
        while not self._stopping() and self.stop is not None and time.monotonic() < deadline:
            time.sleep(0.01)
        return self._stopping()

    def _kill_all(self) -> None:
        for pid, job in self.running.items():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
            for fd in job.open_fds:
                os.close(fd)
            if self.on_abandon:
                self.on_abandon(job.index)
        self.running.clear()

    def run(self, tasks: list[tuple[str, object]]) -> bool:
        """Run every ``(path, task)``; ``task(send)`` runs in a child and must end with ``os._exit``.

        Returns:
            True if every task ran; False if the stop request ended the run
            (the unfinished tasks were abandoned).
        """
        pending = list(enumerate(tasks))
        pending.reverse()
        try:
            while (pending or self.running) and not self._stopping():
                while pending and len(self.running) < self.jobs and not self._stopping():
                    index, (path, task) = pending.pop()
                    self._start(index, path, task)
                self._read_ready()
                self._reap()
        except BaseException:
            self._kill_all()
            raise
        if self._stopping():
            self._kill_all()
            return False
        return True
