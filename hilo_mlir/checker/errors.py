"""The checker's one error type: the check could not be made (exit 2, distinct from 1 = numbers differ)."""

from __future__ import annotations

from hilo_mlir.support.diagnostics import HiloError


class CheckError(HiloError):
    """The model cannot be checked: unreadable input, inputs that do not match ``main``, a module XLA
    cannot run, a compile that fails. ``hilo-check`` prints it as one error line and exits 2."""


class CompileFailed(CheckError):
    """The compile of the model failed: :attr:`cause` is the compiler's error (its further errors, e.g. every op
    the printer cannot emit, are this one's too: :meth:`also`)."""

    cause: HiloError | None = None

    def also(self, filename: str | None = None) -> tuple[list[HiloError], list[str]]:
        return self.cause.also(filename) if self.cause is not None else ([], [])
