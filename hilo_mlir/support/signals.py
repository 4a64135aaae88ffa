"""SIGINT and SIGTERM for the tools: deferred while Python loads the binding, then a flag or Ctrl-C.

A ``KeyboardInterrupt`` raised while a C extension module is half
initialized can crash the interpreter (seen: SIGSEGV and SIGABRT when Ctrl-C
lands inside ``import jaxlib``), and one raised inside ``fork()`` is lost
("Exception ignored ..."). So:

* :func:`defer` (called by ``hilo_mlir.tools`` as soon as a tool starts)
  replaces both handlers with one that only records the signal;
* :class:`StopRequest` (batch and single-file mode) keeps that policy for the
  whole run: a signal is a flag the worker pool checks, and one recorded
  before it was entered counts as well;
* :func:`resume` (``hilo-opt``, which compiles in-process) ends the deferral
  once the imports are done: a signal recorded meanwhile ends the tool with
  exit 130 right there, and later ones behave as usual (SIGINT raises
  ``KeyboardInterrupt``, SIGTERM terminates).

Python's own start-up (``site``, about 0.1 s) runs before any of this; a
Ctrl-C inside it is Python's to report.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: The exit status after SIGINT/SIGTERM (as a shell reports Ctrl-C).
EXIT_INTERRUPTED = 130

_pending: int | None = None

#: What ``signal.signal`` returns (typeshed's ``_HANDLER``, which is not importable).
_Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None


def _record(signum: int, frame: FrameType | None) -> None:
    global _pending
    if _pending is None:
        _pending = signum


def defer() -> None:
    """Record SIGINT/SIGTERM instead of acting on them (until :func:`resume` or a :class:`StopRequest`)."""
    for s in SIGNALS:
        if signal.getsignal(s) is not signal.SIG_IGN:  # e.g. a background job of a shell: keep ignoring
            signal.signal(s, _record)


def pending() -> int | None:
    """The first signal recorded while deferred (None if none)."""
    return _pending


def resume() -> None:
    """End the deferral: exit 130 now if a signal was recorded, else restore the usual behaviour."""
    if _pending is not None:
        sys.exit(EXIT_INTERRUPTED)
    if signal.getsignal(signal.SIGINT) is _record:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGTERM) is _record:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


class StopRequest:
    """SIGINT/SIGTERM as a flag: ``with StopRequest() as stop: ...``; ``stop.signum`` is the first signal (or None).

    A signal :func:`defer` recorded before the block counts as arriving at
    its start. The previous handlers are restored when the block ends.
    """

    def __init__(self) -> None:
        self.signum: int | None = None
        self._old: dict[int, _Handler] = {}

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is None:
            self.signum = signum

    @property
    def requested(self) -> bool:
        return self.signum is not None

    def __enter__(self) -> StopRequest:
        for s in SIGNALS:
            self._old[s] = signal.signal(s, self._handler)
        if _pending is not None:
            self.signum = _pending
        return self

    def __exit__(self, *exc: object) -> None:
        for s, h in self._old.items():
            signal.signal(s, h)
