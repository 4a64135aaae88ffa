"""Running work in a forked child, so that a crash or hang there cannot take the tool with it.

Two users: reading untrusted binary inputs (:mod:`hilo_mlir.driver.frontend.binary`,
one child, :func:`run_in_child`) and the batch worker pool
(:mod:`hilo_mlir.tools.batch.pool`, many children). Both fork a process that has
already imported ``hilo_mlir`` (cheap; nothing is shared after the fork: each
child makes its own ``ir.Context``), and both use :func:`child_setup`:

* the child dies with its parent (``PR_SET_PDEATHSIG`` = SIGKILL; if the
  parent is already gone when that is set, the child exits at once), so a
  killed tool never leaves workers writing behind it;
* SIGINT and SIGTERM get their default action in the child (a Ctrl-C to the
  process group ends the children; the parent decides what to report);
* the child's stdout and stderr go to a pipe the parent reads (a dying LLVM
  prints its reason there; XLA's and protobuf's log lines never reach the
  user's terminal).
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import signal
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

_PR_SET_PDEATHSIG = 1

#: What :func:`run_in_child` runs in the child: ``() -> (JSON header, payload bytes)``.
ChildFn = Callable[[], tuple[dict[str, Any], bytes]]
_TAIL = 65536


def _prctl_pdeathsig(sig: int) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def child_setup(parent_pid: int, out_fd: int | None, close_fds: Iterable[int] = ()) -> None:
    """In a child right after ``fork()``: die with the parent, default signals, stdout/stderr into ``out_fd``."""
    _prctl_pdeathsig(signal.SIGKILL)
    if os.getppid() != parent_pid:  # the parent died before the line above
        os._exit(1)
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    for fd in close_fds:
        os.close(fd)
    if out_fd is not None:
        os.dup2(out_fd, 1)
        os.dup2(out_fd, 2)
        os.close(out_fd)
    import faulthandler

    if faulthandler.is_enabled():  # e.g. under pytest: point it at our stderr pipe
        faulthandler.disable()
        faulthandler.enable(file=sys.__stderr__ or sys.stderr)


class fork_guard:
    """Block SIGINT/SIGTERM around ``fork()`` so that neither process is interrupted half-way through it.

    A signal that arrives meanwhile stays pending and is delivered in the
    parent when the block ends (the child unblocks it in :func:`child_setup`,
    after restoring the default action).
    """

    def __enter__(self) -> fork_guard:
        self._old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        return self

    def __exit__(self, *exc: object) -> None:
        signal.pthread_sigmask(signal.SIG_SETMASK, self._old)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def signal_name(num: int) -> str:
    """``"SIGSEGV"`` for 11 (``"signal N"`` for a number without a name)."""
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


def explaining_line(err: bytes) -> str | None:
    """The line of a dead child's output that explains it (LLVM ERROR, a failed check or assertion, a fatal error), else None."""
    for ln in err.decode("utf-8", "replace").splitlines():
        ln = ln.strip()
        if ln.startswith("Fatal Python error: ") and ln.split(": ", 1)[1] in _SIGNAL_WORDS:
            continue  # faulthandler naming the signal again
        if ln.startswith(("LLVM ERROR", "Fatal Python error", "terminate called")) or "Assertion" in ln or "Check failed" in ln:
            return " ".join(ln.split())[:500]
    return None


_SIGNAL_WORDS = ("Segmentation fault", "Aborted", "Bus error", "Floating point exception", "Illegal instruction")


@dataclass
class ChildResult:
    """What :func:`run_in_child` observed.

    Attributes:
        header: the child's JSON header (``{"ok": ...}`` or ``{"error": ...}``), None if none arrived.
        payload: the bytes that followed the header.
        signal: the signal that killed the child ("SIGSEGV"), or None.
        exit_code: its exit status if it exited.
        timed_out: it was killed after ``timeout`` seconds.
        stderr: the tail of its stdout/stderr.
    """

    header: dict[str, Any] | None
    payload: bytes
    signal: str | None
    exit_code: int | None
    timed_out: bool
    stderr: bytes


def _child_main(fn: ChildFn, wfd: int) -> None:
    code = 0
    try:
        header, payload = fn()
        write_all(wfd, (json.dumps(header) + "\n").encode("utf-8") + payload)
    except BaseException:  # noqa: BLE001 - reported by the exit status
        code = 3
    finally:
        exit_child(code)


def exit_child(code: int) -> None:
    """End a forked child: flush its output, then ``os._exit(code)`` (no atexit handlers, no parent cleanup)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - a closed stream must not keep the child alive
        pass
    os._exit(code)


def _drain(fds: dict[int, str], bufs: dict[str, list[bytes]], deadline: float | None) -> bool:
    """Read both pipes until EOF; False if the deadline passed first."""
    while fds:
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        if wait == 0.0:
            return False
        try:
            ready = select.select(list(fds), [], [], wait)[0]
        except InterruptedError:
            continue
        for fd in ready:
            data = os.read(fd, 1 << 20)
            if not data:
                os.close(fd)
                del fds[fd]
            else:
                bufs[fds[fd]].append(data)
    return True


def _limit_address_space(extra: int) -> None:
    """In the child: allow ``extra`` bytes of address space beyond what is mapped now (never raising a lower limit)."""
    import resource

    try:
        with open("/proc/self/status") as f:
            used = next(int(ln.split()[1]) * 1024 for ln in f if ln.startswith("VmSize:"))
    except (OSError, StopIteration, ValueError):
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    want = used + extra
    if soft != resource.RLIM_INFINITY and soft <= want:
        return
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (want, hard))
    except (ValueError, OSError):
        pass


def run_in_child(fn: ChildFn, timeout: float | None, memory: int | None = None) -> ChildResult:
    """Run ``fn() -> (header: dict, payload: bytes)`` in a forked child; at most ``timeout`` seconds.

    ``memory``: bytes the child may map beyond what it inherits (its address
    space is limited to that, so a reader that sizes a buffer by a corrupt
    count fails at once instead of filling the machine's memory).

    The child's result travels back as one JSON line plus raw bytes. A child
    killed by a signal, hung past the timeout (then SIGKILLed) or exiting
    without a result is reported in the :class:`ChildResult`; this function
    itself never raises for what the child did. If the parent is interrupted
    (KeyboardInterrupt) meanwhile, the child is killed and reaped first.
    """
    rfd, wfd = os.pipe()
    erfd, ewfd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    parent = os.getpid()
    with fork_guard():
        pid = os.fork()
        if pid == 0:
            try:
                child_setup(parent, ewfd, close_fds=(rfd, erfd))
                if memory is not None:
                    _limit_address_space(memory)
            except BaseException:  # noqa: BLE001
                os._exit(4)
            _child_main(fn, wfd)
    os.close(wfd)
    os.close(ewfd)
    bufs: dict[str, list[bytes]] = {"out": [], "err": []}
    fds = {rfd: "out", erfd: "err"}
    reaped = False
    try:
        deadline = None if timeout is None else time.monotonic() + timeout
        finished = _drain(fds, bufs, deadline)
        if not finished:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        reaped = True
    finally:
        for fd in fds:
            os.close(fd)
        if not reaped:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
    out = b"".join(bufs["out"])
    header, payload = None, b""
    if b"\n" in out:
        line, payload = out.split(b"\n", 1)
        try:
            header = json.loads(line)
        except ValueError:
            header = None
    sig = signal_name(os.WTERMSIG(status)) if os.WIFSIGNALED(status) else None
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    return ChildResult(header, payload, sig, code, not finished, b"".join(bufs["err"])[-_TAIL:])
