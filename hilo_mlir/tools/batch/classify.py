"""From what a worker did to one row of the report: a pure function of the observations.

:func:`classify` takes a :class:`WorkerOutcome` (the wait status, the last
pass the worker announced, its final message, the tail of its stderr, whether
it was killed for the timeout) and returns the :class:`ModuleResult`. No
process, file or clock is touched here, so every rule is testable alone.
"""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass

from hilo_mlir.driver.frontend.binary import READERS as _READERS
from hilo_mlir.support.diagnostics import shown_text

STATUSES = ("ok", "rejected", "write-failed", "crashed", "timeout")
_MAX_DIAG = 2000


@dataclass
class ModuleResult:
    """The outcome of one module (one row of ``report.json``)."""

    path: str
    status: str
    diagnostic: str | None = None
    signal: str | None = None
    last_pass: str | None = None
    seconds: float = 0.0
    traceback: str | None = None
    #: every error line when the rejection has several (one per blocking op); else None
    diagnostics: list[str] | None = None
    #: the module's output folder below OUTDIR (batch mode; distinct for every module)
    output: str | None = None
    #: the compile cache's answer: "hit", "hit-shared", "miss", "checked" (a hit compared with a compile); None: no cache
    cache: str | None = None

    def to_json(self) -> dict:
        d: dict[str, object] = {
            "path": self.path,
            "status": self.status,
            "diagnostic": self.diagnostic,
            "signal": self.signal,
            "last_pass": self.last_pass,
            "seconds": round(self.seconds, 3),
        }
        if self.output is not None:
            d["output"] = self.output
        if self.traceback:
            d["traceback"] = self.traceback
        if self.diagnostics:
            d["diagnostics"] = self.diagnostics
        if self.cache:
            d["cache"] = self.cache
        return d


@dataclass
class WorkerOutcome:
    """What the pool observed of one finished worker.

    Attributes:
        path: the module's input path.
        wait_status: the ``os.waitpid`` status.
        seconds: wall time from fork to reaping.
        last_pass: the last stage or pass the worker announced (None: none).
        final: the worker's final message (``{"status": ..., "diagnostic": ...}``) or None.
        stderr: the tail of the worker's stdout/stderr.
        timed_out: the pool killed it for the timeout.
        timeout: the timeout in seconds (for the diagnostic).
        input_kind: ``"text"``, ``"bytecode"`` or ``"proto"`` once the worker read the input.
        cache: what the compile cache answered (``"hit"``, ``"hit-shared"``, ``"miss"``, ``"checked"``), None without a cache.
    """

    path: str
    wait_status: int
    seconds: float
    last_pass: str | None = None
    final: dict | None = None
    stderr: bytes = b""
    timed_out: bool = False
    timeout: float | None = None
    input_kind: str | None = None
    cache: str | None = None


def one_line(text: str) -> str:
    """``text`` on one line, at most 2000 characters: whitespace runs as one space, other non-printable characters
    escaped (:func:`~hilo_mlir.support.diagnostics.shown_text`, as the one-line error form shows them)."""
    s = shown_text(" ".join(str(text).split()))
    return s if len(s) <= _MAX_DIAG else s[: _MAX_DIAG - 3] + "..."


def signal_name(num: int) -> str:
    """``"SIGSEGV"`` for 11 (``"signal N"`` for a number without a name)."""
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


def crash_text(err: bytes) -> str | None:
    """The line of a dead worker's output that explains it (LLVM ERROR, Fatal Python error, an assertion), else its last line."""
    lines = [ln.strip() for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()]
    for ln in lines:
        if ln.startswith(("LLVM ERROR", "Fatal Python error")) or "Assertion" in ln:
            return one_line(ln)
    return one_line(lines[-1]) if lines else None


_OUT_OF_MEMORY = (b"std::bad_alloc", b"LLVM ERROR: out of memory", b"MemoryError")
_STAGES = {
    "read": "reading the input",
    "cache-wait": "waiting for the compile cache (another process compiling the same module)",
    "parse": "parsing the input",
    "validate-input": "validating the input",
    "write": "writing the output",
    "clean-up": "removing the previous program's files (the new penguin.py was already in place)",
    None: "starting",
}
#: a worker's exit status for a MemoryError outside the stages that report it (worker.EXIT_OUT_OF_MEMORY)
_EXIT_OUT_OF_MEMORY = 5


def phase(last_pass: str | None) -> str:
    """What a worker was doing: ``"parsing the input"``, ``"running pass 'cse'"`` ..."""
    return _STAGES.get(last_pass) or f"running pass '{last_pass}'"


def _ran_out_of_memory(o: WorkerOutcome) -> bool:
    st = o.wait_status
    if o.final is None and os.WIFEXITED(st) and os.WEXITSTATUS(st) == _EXIT_OUT_OF_MEMORY:
        return True
    died = os.WIFSIGNALED(st) or (os.WIFEXITED(st) and os.WEXITSTATUS(st) != 0)
    return died and o.final is None and any(m in o.stderr for m in _OUT_OF_MEMORY)


def classify(o: WorkerOutcome) -> ModuleResult:
    """The report row of one worker (see the module doc).

    * killed for the timeout: ``timeout``; but while reading a binary input
      (the upstream reader looping on a corrupt file): ``rejected``, as
      :mod:`hilo_mlir.driver.frontend.binary` says it in single-file mode;
    * died of a failed allocation (``std::bad_alloc``, LLVM's "out of
      memory"): ``rejected``, ``file: error: out of memory while <phase>``;
    * killed by a signal: ``crashed`` with the signal and the explaining line;
    * exited 0 with a final message: that message's status (``last_pass``
      only when not ``ok``);
    * anything else (a non-zero exit, no final message): ``crashed``.
    """
    st = o.wait_status
    if o.timed_out and o.last_pass == "parse" and o.input_kind in _READERS:
        who, what = _READERS[o.input_kind]
        return ModuleResult(
            o.path,
            "rejected",
            f"{o.path}: error: {who} did not finish in {o.timeout:g} s on this input; the file is corrupt or {what}",
            "SIGKILL",
            o.last_pass,
            o.seconds,
        )
    if o.timed_out:
        return ModuleResult(o.path, "timeout", f"no result after {o.timeout:g} s (killed)", "SIGKILL", o.last_pass, o.seconds)
    if _ran_out_of_memory(o):
        sig = signal_name(os.WTERMSIG(st)) if os.WIFSIGNALED(st) else None
        return ModuleResult(o.path, "rejected", f"{o.path}: error: out of memory while {phase(o.last_pass)}", sig, o.last_pass, o.seconds)
    if os.WIFSIGNALED(st):
        sig = signal_name(os.WTERMSIG(st))
        return ModuleResult(o.path, "crashed", crash_text(o.stderr) or f"killed by {sig}", sig, o.last_pass, o.seconds)
    if o.final is not None and os.WEXITSTATUS(st) == 0:
        f = o.final
        status = f["status"]
        lp = None if status == "ok" else o.last_pass
        cached = o.cache if status == "ok" else None
        return ModuleResult(
            o.path, status, f.get("diagnostic"), None, lp, o.seconds, f.get("traceback"), f.get("diagnostics"), cache=cached
        )
    code = os.WEXITSTATUS(st) if os.WIFEXITED(st) else st
    diag = crash_text(o.stderr) or f"worker exited with status {code} without a result"
    return ModuleResult(o.path, "crashed", diag, None, o.last_pass, o.seconds)
