"""What a batch tells the user: the progress lines, ``report.json``, the summary table and the exit status."""

from __future__ import annotations

import json
import sys

from hilo_mlir.support.diagnostics import shown_path
from hilo_mlir.tools.batch.classify import STATUSES, ModuleResult


class Progress:
    """A progress bar on a TTY, plain lines otherwise (stderr by default)."""

    def __init__(self, total: int, stream=None, tty: bool | None = None):
        self.total = total
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.done = 0
        self.counts = {s: 0 for s in STATUSES}
        self.width = len(str(total))

    def _bar(self) -> str:
        frac = self.done / max(1, self.total)
        n = int(30 * frac)
        c = self.counts
        wf = f"  write-failed {c['write-failed']}" if c["write-failed"] else ""
        return (
            f"\r[{'#' * n}{'.' * (30 - n)}] {self.done}/{self.total}  ok {c['ok']}  rejected {c['rejected']}{wf}  "
            f"crashed {c['crashed']}  timeout {c['timeout']}"
        )

    def _line(self, r: ModuleResult) -> str:
        extra = ""
        if r.status == "crashed":
            extra = f" ({r.signal or 'exception'} in {r.last_pass})"
        elif r.status == "timeout":
            extra = f" (in {r.last_pass})"
        elif r.status in ("rejected", "write-failed") and r.diagnostic:
            extra = f": {r.diagnostic}"
        elif r.cache:
            extra = f" (cache {r.cache})"
        return f"[{self.done:>{self.width}}/{self.total}] {r.status:<8} {shown_path(r.path)}{extra}\n"

    def update(self, r: ModuleResult) -> None:
        self.done += 1
        self.counts[r.status] += 1
        if self.tty:
            self.stream.write(self._bar())
            if self.done == self.total:
                self.stream.write("\n")
        else:
            self.stream.write(self._line(r))
        self.stream.flush()


def summarize(results: list[ModuleResult]) -> dict:
    """``{"ok": n, "rejected": n, "write-failed": n, "crashed": n, "timeout": n}``."""
    s = {k: 0 for k in STATUSES}
    for r in results:
        s[r.status] += 1
    return s


def report_dict(results: list[ModuleResult], interrupted: bool = False, total: int | None = None) -> dict:
    """The ``report.json`` document.

    ``interrupted``: the batch was stopped by SIGINT/SIGTERM; ``modules``
    then lists the modules that finished, ``"total"`` how many there were.
    """
    doc = {"modules": [r.to_json() for r in results], "summary": summarize(results), "interrupted": interrupted}
    if interrupted:
        doc["total"] = len(results) if total is None else total
    return doc


def write_report(path: str, results: list[ModuleResult], interrupted: bool = False, total: int | None = None) -> None:
    """Write ``report.json`` atomically (temporary name, then rename).

    Raises:
        HiloError: the report cannot be written (naming the path and the OS error).
    """
    from hilo_mlir.support.io import atomic_write_text

    atomic_write_text(path, json.dumps(report_dict(results, interrupted, total), indent=2, sort_keys=False) + "\n")


def summary_table(results: list[ModuleResult], interrupted: bool = False, total: int | None = None) -> str:
    """The end-of-run table: counts per status, then every module that did not end ok or rejected."""
    s = summarize(results)
    lines = [""]
    if interrupted:
        lines.append(f"interrupted: {len(results)} of {total if total is not None else len(results)} modules finished")
    lines += ["status        modules", "------------  -------"]
    for k in STATUSES:
        lines.append(f"{k:<12}  {s[k]:>7}")
    lines.append(f"{'total':<12}  {len(results):>7}")
    cached = [r.cache for r in results if r.cache]
    if cached:
        hits = sum(1 for c in cached if c.startswith("hit"))
        lines.append(f"compile cache: {hits} hit{'s' if hits != 1 else ''}, {len(cached) - hits} compiled")
    bad = [r for r in results if r.status in ("write-failed", "crashed", "timeout")]
    if bad:
        lines.append("")
        lines.append("write-failed / crashed / timed out:")
        for r in bad:
            if r.status == "write-failed":
                lines.append(f"  {shown_path(r.path)}: write-failed: {r.diagnostic}")
            else:
                lines.append(f"  {shown_path(r.path)}: {r.status} ({r.signal or 'no signal'}, last pass '{r.last_pass}'): {r.diagnostic}")
    return "\n".join(lines) + "\n"


def exit_code(results: list[ModuleResult]) -> int:
    """0 if every module is ``ok`` or ``rejected``, else 1."""
    return 0 if all(r.status in ("ok", "rejected") for r in results) else 1
