"""Batch compilation with crash isolation (issue 6, "Batch mode").

``hilo2penguin --batch INPUTS... -o OUTDIR --jobs N --report report.json [--timeout S]``

* INPUTS are files or folders; folders are searched recursively for ``*.mlir``
  and ``*.pb`` (hidden folders skipped). The module list is sorted, so the
  order of the report and of the output folders does not depend on the file
  system or on ``--jobs``.
* Every module compiles in its own worker process: the batch process imports
  ``hilo_mlir`` once and ``fork``s one child per module (cheap; nothing is
  shared after the fork, each child makes its own ``ir.Context``). A segfault
  or an LLVM abort inside the binding ends only that child; the module is
  reported ``crashed`` with the signal and the last pass that started (the
  child announces each pass through ``Instrumentation.on_pass_start`` on a
  pipe before it runs, so the announcement survives the crash).
* Statuses: ``ok``; ``rejected`` (our :class:`~hilo_mlir.diagnostics.HiloError`,
  one line); ``crashed`` (killed by a signal, a non-zero exit, or a Python
  exception that is not a HiloError -- a bug, reported with ``internal error``);
  ``timeout`` (``--timeout S`` elapsed; the child is killed with SIGKILL).
* ``last_pass`` is the argument of the pass that was running, or one of the
  driver stages ``read``, ``parse``, ``validate-input`` (the driver's input
  checks, :func:`hilo_mlir.compiler.validate_input`) and ``write``.
* Outputs: ``OUTDIR/<relative path stem>/penguin.py`` (plus its ``.npy`` files),
  written through :func:`hilo_mlir.packaging.write_program` (staging folder,
  rename into place after everything was written). A module that fails leaves
  no staging files behind and does not touch an earlier ``penguin.py``.
  Unrelated files in OUTDIR are never touched.
* ``report.json``: ``{"modules": [{"path", "status", "diagnostic", "signal",
  "last_pass", "seconds"}], "summary": {"ok", "rejected", "crashed", "timeout"}}``
  (written atomically). Crashes by a Python exception add ``"traceback"``.

Exit status (of :func:`run_batch` / the CLI): 0 only if every module is ``ok``
or ``rejected``.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import sys
import time
from dataclasses import dataclass, field

STATUSES = ("ok", "rejected", "crashed", "timeout")
_EXTS = (".mlir", ".pb")
_MAX_DIAG = 2000


@dataclass
class BatchItem:
    """One module of a batch: its input path and the output folder below OUTDIR."""

    path: str
    rel_stem: str


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

    def to_json(self) -> dict:
        d = {
            "path": self.path,
            "status": self.status,
            "diagnostic": self.diagnostic,
            "signal": self.signal,
            "last_pass": self.last_pass,
            "seconds": round(self.seconds, 3),
        }
        if self.traceback:
            d["traceback"] = self.traceback
        return d


# --------------------------------------------------------------------------- discovery


def _stem(rel: str) -> str:
    base, ext = os.path.splitext(rel)
    return base if ext in _EXTS else rel


def discover(inputs: list[str]) -> list[BatchItem]:
    """Expand files and folders into a sorted list of modules.

    A folder contributes every ``*.mlir`` / ``*.pb`` below it (hidden folders
    and files skipped), named by its path relative to that folder; a file is
    named by its base name. Two modules with the same stem (``a.mlir`` and
    ``a.pb``) get their extension appended (``a_mlir``, ``a_pb``) so that no
    output overwrites another.

    Raises:
        HiloError: an input that does not exist.
    """
    from .diagnostics import HiloError

    found: list[tuple[str, str]] = []
    for inp in inputs:
        if os.path.isdir(inp):
            for dirpath, dirnames, filenames in os.walk(inp):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                for fn in sorted(filenames):
                    if fn.startswith(".") or not fn.endswith(_EXTS):
                        continue
                    p = os.path.join(dirpath, fn)
                    found.append((p, os.path.relpath(p, inp)))
        elif os.path.exists(inp):
            found.append((inp, os.path.basename(inp)))
        else:
            raise HiloError(f"cannot open input '{inp}': no such file or folder")
    seen_paths = set()
    uniq = []
    for p, rel in found:
        key = os.path.realpath(p)
        if key in seen_paths:
            continue
        seen_paths.add(key)
        uniq.append((p, rel))
    stems: dict[str, int] = {}
    for _, rel in uniq:
        stems[_stem(rel)] = stems.get(_stem(rel), 0) + 1
    items = []
    for p, rel in uniq:
        st = _stem(rel)
        if stems[st] > 1:
            base, ext = os.path.splitext(rel)
            st = base + "_" + ext.lstrip(".")
        items.append(BatchItem(p, st))
    items.sort(key=lambda it: (it.rel_stem, it.path))
    return items


# --------------------------------------------------------------------------- the child


def _one_line(text: str) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= _MAX_DIAG else s[: _MAX_DIAG - 3] + "..."


def _child_main(item: BatchItem, outdir: str, config, allow_unregistered: bool, wfd: int) -> None:
    """Compile one module in the forked child; report through ``wfd``; never returns."""
    import traceback

    def send(obj) -> None:
        data = (json.dumps(obj) + "\n").encode("utf-8")
        while data:
            n = os.write(wfd, data)
            data = data[n:]

    code = 0
    try:
        from . import compiler
        from .diagnostics import HiloError
        from .io_utils import read_input
        from .packaging import write_program
        from .pipeline import Instrumentation

        try:
            send({"pass": "read"})
            data = read_input(item.path)
            send({"pass": "parse"})
            loaded = compiler.load_module(data, item.path, allow_unregistered=allow_unregistered)
            instr = Instrumentation(on_pass_start=lambda arg: send({"pass": arg}))
            src = compiler.compile_loaded(loaded, config, instrumentation=instr)
            send({"pass": "write"})
            write_program(os.path.join(outdir, item.rel_stem), src)
            send({"status": "ok"})
        except HiloError as e:
            send({"status": "rejected", "diagnostic": _one_line(e.format(item.path))})
        except Exception as e:  # noqa: BLE001 - a bug in our code: reported, never a traceback on the console
            send(
                {
                    "status": "crashed",
                    "diagnostic": _one_line(f"internal error: {type(e).__name__}: {e}"),
                    "traceback": traceback.format_exc()[-8000:],
                }
            )
    except BaseException:  # noqa: BLE001 - e.g. KeyboardInterrupt: the parent reports the exit
        code = 3
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:  # noqa: BLE001
            pass
        os._exit(code)


# --------------------------------------------------------------------------- the parent


@dataclass
class _Running:
    item: BatchItem
    pid: int
    msg_fd: int
    err_fd: int
    start: float
    buf: bytes = b""
    err: bytes = b""
    last_pass: str | None = None
    final: dict | None = None
    open_fds: set = field(default_factory=set)
    timed_out: bool = False


def _signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


def _crash_text(err: bytes) -> str | None:
    lines = [ln.strip() for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()]
    for ln in lines:
        if ln.startswith(("LLVM ERROR", "Fatal Python error")) or "Assertion" in ln:
            return _one_line(ln)
    return _one_line(lines[-1]) if lines else None


class _Progress:
    """A progress bar on a TTY, plain lines otherwise (stderr by default)."""

    def __init__(self, total: int, stream=None, tty: bool | None = None):
        self.total = total
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.done = 0
        self.counts = {s: 0 for s in STATUSES}
        self.width = len(str(total))

    def update(self, r: ModuleResult) -> None:
        self.done += 1
        self.counts[r.status] += 1
        if self.tty:
            frac = self.done / max(1, self.total)
            n = int(30 * frac)
            bar = "#" * n + "." * (30 - n)
            c = self.counts
            self.stream.write(
                f"\r[{bar}] {self.done}/{self.total}  ok {c['ok']}  rejected {c['rejected']}  "
                f"crashed {c['crashed']}  timeout {c['timeout']}"
            )
            if self.done == self.total:
                self.stream.write("\n")
        else:
            extra = ""
            if r.status == "crashed":
                extra = f" ({r.signal or 'exception'} in {r.last_pass})"
            elif r.status == "timeout":
                extra = f" (in {r.last_pass})"
            elif r.status == "rejected" and r.diagnostic:
                extra = f": {r.diagnostic}"
            self.stream.write(f"[{self.done:>{self.width}}/{self.total}] {r.status:<8} {r.path}{extra}\n")
        self.stream.flush()


def _cleanup_staging(outdir: str, rel_stem: str) -> None:
    d = os.path.join(outdir, rel_stem)
    if not os.path.isdir(d):
        return
    for name in os.listdir(d):
        if name.startswith(".hilo-staging-"):
            shutil.rmtree(os.path.join(d, name), ignore_errors=True)
    try:
        os.rmdir(d)  # only if the failed child left it empty (never touches existing files)
    except OSError:
        pass


def _preload() -> None:
    """Import everything the children need once, before forking."""
    from . import compiler  # noqa: F401
    from . import ir, registry

    registry._load()
    ir._register_passes_once()


def compile_batch(
    items: list[BatchItem],
    outdir: str,
    config,
    jobs: int = 1,
    timeout: float | None = None,
    allow_unregistered: bool = False,
    progress: _Progress | None = None,
) -> list[ModuleResult]:
    """Compile ``items`` with at most ``jobs`` children at a time; results in ``items`` order."""
    _preload()
    os.makedirs(outdir, exist_ok=True)
    jobs = max(1, int(jobs))
    pending = list(enumerate(items))
    pending.reverse()
    running: dict[int, _Running] = {}  # pid -> job
    index_of: dict[int, int] = {}
    results: list[ModuleResult | None] = [None] * len(items)

    def start(idx: int, item: BatchItem) -> None:
        mr, mw = os.pipe()
        er, ew = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # child
            try:
                os.close(mr)
                os.close(er)
                os.dup2(ew, 1)
                os.dup2(ew, 2)
                os.close(ew)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                import faulthandler

                if faulthandler.is_enabled():  # e.g. under pytest: point it at our stderr pipe
                    faulthandler.disable()
                    faulthandler.enable(file=sys.__stderr__ or sys.stderr)
            except BaseException:  # noqa: BLE001
                os._exit(4)
            _child_main(item, outdir, config, allow_unregistered, mw)
        os.close(mw)
        os.close(ew)
        job = _Running(item, pid, mr, er, time.monotonic())
        job.open_fds = {mr, er}
        running[pid] = job
        index_of[pid] = idx

    def finish(job: _Running, status_code: int) -> None:
        secs = time.monotonic() - job.start
        item = job.item
        if job.timed_out:
            r = ModuleResult(item.path, "timeout", f"no result after {timeout:g} s (killed)", "SIGKILL", job.last_pass, secs)
        elif os.WIFSIGNALED(status_code):
            sig = _signal_name(os.WTERMSIG(status_code))
            diag = _crash_text(job.err) or f"killed by {sig}"
            r = ModuleResult(item.path, "crashed", diag, sig, job.last_pass, secs)
        elif job.final is not None and os.WEXITSTATUS(status_code) == 0:
            f = job.final
            st = f["status"]
            lp = None if st == "ok" else job.last_pass
            r = ModuleResult(item.path, st, f.get("diagnostic"), None, lp, secs, f.get("traceback"))
        else:
            code = os.WEXITSTATUS(status_code) if os.WIFEXITED(status_code) else status_code
            diag = _crash_text(job.err) or f"worker exited with status {code} without a result"
            r = ModuleResult(item.path, "crashed", diag, None, job.last_pass, secs)
        if r.status != "ok":
            _cleanup_staging(outdir, item.rel_stem)
        results[index_of.pop(job.pid)] = r
        if progress:
            progress.update(r)

    def on_message(job: _Running, data: bytes) -> None:
        job.buf += data
        while b"\n" in job.buf:
            line, job.buf = job.buf.split(b"\n", 1)
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if "pass" in msg:
                job.last_pass = msg["pass"]
            if "status" in msg:
                job.final = msg

    try:
        while pending or running:
            while pending and len(running) < jobs:
                idx, item = pending.pop()
                start(idx, item)
            fds = {}
            for job in running.values():
                for fd in job.open_fds:
                    fds[fd] = job
            wait = 0.2
            if timeout:
                now = time.monotonic()
                wait = min([wait] + [max(0.0, job.start + timeout - now) for job in running.values()])
            ready = select.select(list(fds), [], [], wait)[0] if fds else []
            if not fds:
                time.sleep(wait)
            for fd in ready:
                job = fds[fd]
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    data = b""
                if not data:
                    os.close(fd)
                    job.open_fds.discard(fd)
                    continue
                if fd == job.msg_fd:
                    on_message(job, data)
                else:
                    job.err = (job.err + data)[-65536:]
            now = time.monotonic()
            for pid, job in list(running.items()):
                if timeout and not job.timed_out and now - job.start > timeout and job.final is None:
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
                del running[pid]
                finish(job, status)
    except BaseException:
        for pid, job in running.items():
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            for fd in job.open_fds:
                os.close(fd)
            _cleanup_staging(outdir, job.item.rel_stem)
        raise
    return [r for r in results if r is not None]


# --------------------------------------------------------------------------- report


def summarize(results: list[ModuleResult]) -> dict:
    """``{"ok": n, "rejected": n, "crashed": n, "timeout": n}``."""
    s = {k: 0 for k in STATUSES}
    for r in results:
        s[r.status] += 1
    return s


def report_dict(results: list[ModuleResult]) -> dict:
    """The ``report.json`` document."""
    return {"modules": [r.to_json() for r in results], "summary": summarize(results)}


def write_report(path: str, results: list[ModuleResult]) -> None:
    """Write ``report.json`` atomically (temporary name, then rename)."""
    from .io_utils import atomic_write_text

    atomic_write_text(path, json.dumps(report_dict(results), indent=2, sort_keys=False) + "\n")


def summary_table(results: list[ModuleResult]) -> str:
    """The end-of-run table: counts per status, then every crashed/timed-out module."""
    s = summarize(results)
    lines = ["", "status      modules", "----------  -------"]
    for k in STATUSES:
        lines.append(f"{k:<10}  {s[k]:>7}")
    lines.append(f"{'total':<10}  {len(results):>7}")
    bad = [r for r in results if r.status in ("crashed", "timeout")]
    if bad:
        lines.append("")
        lines.append("crashed / timed out:")
        for r in bad:
            lines.append(f"  {r.path}: {r.status} ({r.signal or 'no signal'}, last pass '{r.last_pass}'): {r.diagnostic}")
    return "\n".join(lines) + "\n"


def exit_code(results: list[ModuleResult]) -> int:
    """0 if every module is ``ok`` or ``rejected``, else 1."""
    return 0 if all(r.status in ("ok", "rejected") for r in results) else 1


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
) -> int:
    """Discover, compile, report; returns the exit status (0 only if nothing crashed or timed out).

    Raises:
        HiloError: an input that does not exist; no module found.
    """
    from .diagnostics import HiloError

    stdout = stdout or sys.stdout
    items = discover(inputs)
    if not items:
        raise HiloError("no input modules (*.mlir, *.pb) found in " + ", ".join(repr(i) for i in inputs))
    progress = _Progress(len(items), stderr or sys.stderr, tty)
    results = compile_batch(items, outdir, config, jobs, timeout, allow_unregistered, progress)
    if report:
        write_report(report, results)
    stdout.write(summary_table(results))
    stdout.flush()
    return exit_code(results)
