"""The one place that imports the MLIR Python bindings (DESIGN.md, "The stack").

Everything else in ``hilo_mlir`` imports ``ir``, ``passmanager`` and the dialect
modules from here, so a different MLIR wheel can be swapped in at one spot.
Only ``jaxlib.mlir.*`` is imported; never ``jax`` (it costs ~0.4 s of start-up).

``make_context()`` mirrors the binary's ``initializeMLIRContext`` (seed 004,
"Class hierarchy"): dialects are loaded mhlo -> stablehlo -> func, then chlo and
sdy so that sharded JAX exports parse. Upstream passes (canonicalize, cse,
inline, symbol-dce, remove-dead-values, the stablehlo passes) and the mhlo
passes (``hlo-legalize-to-stablehlo``, ``stablehlo-legalize-to-hlo``) are
registered once per process.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from typing import Protocol

from jaxlib.mlir import ir, passmanager  # noqa: F401  (re-exported)
from jaxlib.mlir._mlir_libs import _chlo, _jax_mlir_ext, _mlirHlo, _sdy, _stablehlo
from jaxlib.mlir.dialects import func, mhlo, stablehlo  # noqa: F401

__all__ = [
    "func",
    "ir",
    "make_context",
    "mhlo",
    "passmanager",
    "stablehlo",
    "stablehlo_ext",
]

# chlo and sdy ops are parsed, walked and printed but never built from Python: their dialects are
# registered from the extension modules alone (``_chlo``, ``_sdy``), without the generated Python op
# classes of ``jaxlib.mlir.dialects.chlo`` / ``.sdy`` (~15 ms of every process's start-up). Their ops
# come back as plain ``ir.OpView`` objects, which is all the code here reads.

#: The StableHLO extension module (reference interpreter ``eval_module``,
#: attribute helpers). Tests use it as the semantic oracle.
stablehlo_ext = _stablehlo

_registered = False


class _HasCapsule(Protocol):
    """A binding object (``ir.Location``, ``ir.Type``, ``ir.Operation``, ...): its C API capsule."""

    @property
    def _CAPIPtr(self) -> object: ...


_lock = threading.Lock()


def _register_passes_once() -> None:
    global _registered
    with _lock:
        if not _registered:
            _mlirHlo.register_mhlo_passes()
            _stablehlo.register_stablehlo_passes()
            _registered = True


def make_context(allow_unregistered_dialects: bool = False) -> ir.Context:
    """Return a fresh ``ir.Context`` with mhlo, stablehlo, func, chlo and sdy loaded.

    Args:
        allow_unregistered_dialects: accept ops of unknown dialects (the
            ``--allow-unregistered-dialect`` flag of ``hilo-opt``).

    Returns:
        A context that is not entered; use ``with ctx:``.

    Source: seed 004 (initializeMLIRContext loads mhlo -> stablehlo -> func),
    DESIGN.md "The stack".
    """
    _register_passes_once()
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)
    ctx = ir.Context()
    ctx.append_dialect_registry(registry)
    # Load order as in initializeMLIRContext: mhlo -> stablehlo -> func.
    mhlo.register_mhlo_dialect(ctx)
    stablehlo.register_dialect(ctx)
    ctx.dialects["func"]
    _chlo.register_dialect(ctx)
    _sdy.register_dialect(ctx)
    ctx.load_all_available_dialects()
    ctx.allow_unregistered_dialects = allow_unregistered_dialects
    # One compile at a time per context; keep the C++ side single-threaded so
    # diagnostics arrive in order and runs are deterministic.
    ctx.enable_multithreading(False)
    return ctx


def _capsule_functions() -> tuple[Callable[[object, bytes | None], int], Callable[[object], bytes | None]]:
    """``PyCapsule_GetPointer`` and ``PyCapsule_GetName`` through ctypes (a pointer as an int: a binding capsule never
    holds NULL, which ctypes would return as None; a name as bytes)."""
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    name = ctypes.pythonapi.PyCapsule_GetName
    name.restype = ctypes.c_char_p
    name.argtypes = [ctypes.py_object]
    return get, name


_GET_POINTER, _GET_NAME = _capsule_functions()


def capsule_pointer_checked(cap: object) -> int:
    """The pointer a ``PyCapsule`` holds, read through ``PyCapsule_GetPointer`` (~0.9 us a call)."""
    return _GET_POINTER(cap, _GET_NAME(cap))


def _capsule_offset() -> int | None:
    """Where a capsule's pointer sits in the object, or None when that cannot be relied on here.

    CPython lays a capsule out as the object header, then the pointer; the
    direct read (~0.25 us, against ~0.9 us for :func:`capsule_pointer_checked`)
    is used only if that holds for capsules made here and now (one check at
    import), else :func:`capsule_pointer_checked` is the only path. The
    checking mode (``HILO_MLIR_CHECK_ANALYSES=1``) also compares the two on
    every call of :func:`identity_key`.
    """
    import sys

    if sys.implementation.name != "cpython":
        return None
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    offset = object.__basicsize__  # the header: reference count and type pointer
    for ptr in (0x1000, 0x7FFF_1234_5670, 0xDEAD_BEE8):
        cap = new(ptr, b"hilo_mlir.probe", None)
        if _AT(id(cap) + offset).value != ptr or capsule_pointer_checked(cap) != ptr:
            return None
    return offset


_AT = ctypes.c_void_p.from_address
_OFFSET = _capsule_offset()


def checking_mode_enabled() -> bool:
    """True when ``HILO_MLIR_CHECK_ANALYSES`` is set to anything but ``""``/``0``/``false``/``no``/``off``
    (the checking mode, :mod:`hilo_mlir.analysis.check`; read when asked, except by :func:`identity_key`,
    which is chosen once at import)."""
    import os

    return os.environ.get("HILO_MLIR_CHECK_ANALYSES", "").strip().lower() not in ("", "0", "false", "no", "off")


def identity_key(obj: _HasCapsule) -> int:
    """A stable integer identity for a uniqued MLIR object (``ir.Location``, ``ir.Type``, ``ir.Attribute``).

    The binding's wrappers are created afresh on every access; ``ir.Location``
    (and ``ir.Operation``, whose hash follows its operands and attributes)
    cannot key a cache by ``hash``, while values, blocks and types hash by
    their C++ pointer. This returns the pointer for any of them; a uniqued
    object (type, attribute, location) keeps it for the context's life. Valid while the context lives. Used to
    cache ``str(location)`` / ``str(type)`` in the printer (10x faster on
    large modules).
    """
    cap = obj._CAPIPtr  # held while it is read
    return _AT(id(cap) + _OFFSET).value  # type: ignore[operator,return-value]  # never NULL: a binding capsule wraps an object


def _identity_key_checked(obj: _HasCapsule) -> int:
    cap = obj._CAPIPtr
    key = capsule_pointer_checked(cap)
    if _OFFSET is not None and _AT(id(cap) + _OFFSET).value != key:
        raise AssertionError(f"identity_key: the direct capsule read disagrees with PyCapsule_GetPointer on {type(obj).__name__}")
    return key


if _OFFSET is None or checking_mode_enabled():
    identity_key = _identity_key_checked  # noqa: F811 (the slow truth; in the checking mode it also checks the fast read)
