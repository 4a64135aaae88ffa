"""Errors and locations (DESIGN.md "Rules of the IR"; the brief's "Bad input").

Every failure the user can cause ends as one :class:`HiloError`: a message, an
optional error code from the seeds (``NCC_DRV001``, ``NCC_ISPP054``,
``NCC_EVRF036``), and a location rendered as ``file:line:col``. The CLIs turn it
into one line on stderr and exit code 1; nothing else prints a traceback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_FILE_LOC = re.compile(r'"([^"]*)":(\d+):(\d+)')


def location_to_str(loc, filename: str | None = None) -> str | None:
    """Render an MLIR location as ``file:line:col`` (first file location found).

    Args:
        loc: an ``ir.Location`` or its string form.
        filename: substituted for the ``-`` buffer name the parser uses.

    Returns:
        ``"file:line:col"``, or the name of a NameLoc (``"x"``), or ``None`` for
        an unknown location.
    """
    text = str(loc)
    m = _FILE_LOC.search(text)
    if m:
        f = m.group(1)
        if f == "-" and filename:
            f = filename
        return f"{f}:{m.group(2)}:{m.group(3)}"
    m = re.search(r'loc\("([^"]*)"', text)
    if m:
        return m.group(1)
    return None


def location_line(loc) -> int | None:
    """The line number of the first file location in ``loc`` (or None)."""
    m = _FILE_LOC.search(str(loc))
    return int(m.group(2)) if m else None


@dataclass
class Diagnostic:
    """One diagnostic: severity (error/warning/remark/note), message, location."""

    severity: str
    message: str
    loc: str | None = None  # "file:line:col"
    line: int | None = None

    def format(self) -> str:
        where = f"{self.loc}: " if self.loc else ""
        return f"{where}{self.severity}: {self.message}"


@dataclass
class HiloError(Exception):
    """A user-facing failure: one clear line, exit code 1.

    Attributes:
        message: what went wrong, naming the op where there is one.
        loc: an ``ir.Location`` (or string) where it went wrong, or None.
        code: a seed error code (``NCC_DRV001`` ...) or None.
        notes: extra diagnostics (e.g. the MLIR parser's notes).
    """

    message: str
    loc: object = None
    code: str | None = None
    notes: list = field(default_factory=list)
    filename: str | None = None
    #: the pass that failed, when a pipeline step raised it
    pass_name: str | None = None

    def __post_init__(self):
        super().__init__(self.message)

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.format()

    def format(self, filename: str | None = None) -> str:
        fname = filename or self.filename
        where = location_to_str(self.loc, fname) if self.loc is not None else None
        code = f"{self.code}: " if self.code else ""
        head = f"{where}: " if where else (f"{fname}: " if fname else "")
        return f"{head}error: {code}{self.message}"

    @property
    def line(self) -> int | None:
        return location_line(self.loc) if self.loc is not None else None


class PassFailure(HiloError):
    """Raised inside a pass; the pipeline adds the pass name."""


def op_error(op, message: str, code: str | None = None) -> HiloError:
    """Build a :class:`HiloError` located at ``op`` and naming its op name."""
    return HiloError(f"'{op.name}' op {message}", loc=op.location, code=code)


def from_mlir_error(exc, filename: str | None = None) -> HiloError:
    """Convert the binding's ``MLIRError`` into a :class:`HiloError`.

    The first error diagnostic becomes the message and location; the others
    (and their notes) are kept as notes.
    """
    diags = list(getattr(exc, "error_diagnostics", []) or [])
    if not diags:
        text = str(exc).strip().splitlines()
        msg = text[-1] if text else "unknown MLIR error"
        msg = re.sub(r'^error: ("[^"]*":\d+:\d+: )?', "", msg.strip())
        m = _FILE_LOC.search(str(exc))
        loc = f'loc("{m.group(1)}":{m.group(2)}:{m.group(3)})' if m else None
        return HiloError(msg, loc=loc, filename=filename)
    first = diags[0]
    notes = []
    for d in diags:
        for n in getattr(d, "notes", []) or []:
            notes.append(Diagnostic("note", n.message.strip(), location_to_str(n.location, filename)))
    for d in diags[1:]:
        notes.append(Diagnostic("error", d.message.strip(), location_to_str(d.location, filename)))
    return HiloError(first.message.strip(), loc=first.location, notes=notes, filename=filename)


def internal_error(tool: str, exc: BaseException) -> int:
    """Report an unexpected exception as one line (traceback only with HILO_MLIR_TRACEBACK=1); returns 1."""
    import os
    import sys
    import traceback

    if os.environ.get("HILO_MLIR_TRACEBACK"):
        traceback.print_exc()
    sys.stderr.write(f"{tool}: internal error: {type(exc).__name__}: {exc} (set HILO_MLIR_TRACEBACK=1 for details)\n")
    return 1


class capture_diagnostics:
    """Collect the MLIR diagnostics emitted in ``context`` (instead of MLIR printing them raw).

    Usage::

        with capture_diagnostics(ctx, filename) as diags:
            ...                      # diags: list[Diagnostic], formatted with ``filename``
    """

    def __init__(self, context, filename: str | None = None):
        self.context = context
        self.filename = filename
        self.diags: list[Diagnostic] = []
        self._handle = None

    def _handler(self, d) -> bool:
        sev = str(d.severity).rsplit(".", 1)[-1].lower()
        self.diags.append(Diagnostic(sev, d.message.strip(), location_to_str(d.location, self.filename), location_line(d.location)))
        for n in d.notes:
            self.diags.append(Diagnostic("note", n.message.strip(), location_to_str(n.location, self.filename), location_line(n.location)))
        return True

    def __enter__(self) -> list:
        self._handle = self.context.attach_diagnostic_handler(self._handler)
        return self.diags

    def __exit__(self, *exc) -> None:
        self._handle.detach()


class out_of_memory:
    """Turn a ``MemoryError`` inside the block into ``HiloError("out of memory while <phase>")``.

    Usage: ``with out_of_memory("parsing the input"): ...``; the CLIs print
    it as ``error: out of memory while parsing the input`` (exit 1).
    """

    def __init__(self, phase: str):
        self.phase = phase

    def __enter__(self):
        return self

    def __exit__(self, tp, value, tb):
        if tp is not None and issubclass(tp, MemoryError):
            raise HiloError(f"out of memory while {self.phase}") from None
        return False
