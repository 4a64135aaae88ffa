"""Which entry point is compiling, so that a hint names that entry point's spelling (no binding imported here).

``ENTRY_POINT``: ``"hilo2penguin"`` (the default), ``"api"``
(:func:`hilo_mlir.compile_module` / ``compile_file``), ``"jax"``
(``hj.compile``) or ``"hilo-opt"``; set with :func:`entry_point` around a
compile. Read by the hint on a shape-polymorphic ``main``
(:mod:`hilo_mlir.driver.frontend.validation`).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

ENTRY_POINT: contextvars.ContextVar[str] = contextvars.ContextVar("hilo_mlir_entry_point", default="hilo2penguin")


@contextlib.contextmanager
def entry_point(name: str) -> Iterator[None]:
    """``with entry_point("jax"): ...``: the hints of the compile inside speak that entry point's language."""
    token = ENTRY_POINT.set(name)
    try:
        yield
    finally:
        ENTRY_POINT.reset(token)
