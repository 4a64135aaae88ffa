"""The crash reproducer (``--mlir-pass-pipeline-crash-reproducer``) as an instrument.

Before each pass the module is kept as text; when the pass fails (an error,
an exception, or its output failing to verify) the reproducer -- that IR and
the failing pass (:mod:`hilo_mlir.passmanager.reproducer`) -- is written once.
A pass that reads the steps after it (``PassInfo.reads_pipeline``: the import
step) gets the rest of the pipeline in its reproducer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from hilo_mlir.passmanager.instrumentation.base import PassInstrumentation
from hilo_mlir.support.diagnostics import HiloError

if TYPE_CHECKING:
    from hilo_mlir.passmanager.steps import Step


class CrashReproducer(PassInstrumentation):
    """Writes the local crash reproducer of the first failure of a run to ``path``.

    Args:
        path: where to write it.
        steps: the run's steps.
        filename: the input's name (written into locations instead of ``-``).
        verify_each: recorded in the reproducer (the replay verifies the same way).
        stream: where the note goes when the failure is not a diagnostic.

    Attributes:
        written: the path once written (None: no failure, or writing failed).
    """

    def __init__(self, path: str, steps: Sequence[Step], filename: str | None, verify_each: bool, stream: TextIO):
        self.path = path
        self.steps = list(steps)
        self.filename = filename
        self.verify_each = verify_each
        self.stream = stream
        self.written: str | None = None
        self._done = False
        self._snapshot: str | None = None

    def run_before_pass(self, step: Step, op: Any) -> None:
        from hilo_mlir.passmanager.reproducer import snapshot

        self._snapshot = snapshot(op, self.filename)

    def run_after_pass_failed(self, step: Step, op: Any, error: BaseException) -> None:
        if step.info is not None and step.info.reads_pipeline and step in self.steps:
            steps = self.steps[self.steps.index(step) :]  # what the pass reads belongs to its reproducer
        else:
            steps = [step]
        self._write(steps, step.pass_name, error)

    def run_after_pipeline_failed(self, step: Step | None, op: Any, error: BaseException) -> None:
        if step is not None:  # the verification before a terminal pass: the module is as that pass gets it
            from hilo_mlir.passmanager.reproducer import snapshot

            self._snapshot = snapshot(op, self.filename)
            self._write([step], step.pass_name, error)
        else:
            self._write(self.steps, None, error)

    def _write(self, steps: Sequence[Step], failing: str | None, error: BaseException) -> None:
        if self._done or self._snapshot is None:
            return
        from hilo_mlir.passmanager.reproducer import write_reproducer

        self._done = True
        text = "builtin.module(" + ",".join(s.text() for s in steps) + ")"
        note = write_reproducer(self.path, self._snapshot, text, verify_each=self.verify_each, failing=failing)
        self.written = self.path if note.severity == "note" else None
        if isinstance(error, HiloError):
            error.notes = list(error.notes) + [note]
        else:
            self.stream.write(note.format() + "\n")
