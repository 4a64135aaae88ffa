"""Which value types the compiler can carry to a Penguin program: the one type-legality checker.

:func:`type_problem` classifies a type (an ``ir.Type``) into the first
:class:`TypeProblem` it has, or ``None``. Two callers phrase the same verdict
for their audience:

* the driver's input check (:mod:`hilo_mlir.passes.importing.validation`), before any
  rewrite, with :meth:`TypeProblem.explain` ("has dynamic shape ...: dynamic
  shapes are not supported (every dimension must be static)"); complex and
  token types are problems there only when the spine has no pass that lowers
  them;
* the printers' table (:func:`hilo_mlir.printers.supported.type_reason`, used by
  the printers and ``verify-supported-ops``) with :meth:`TypeProblem.reason`
  ("dynamic shape ... is not supported"), which also requires every element
  type to have a Penguin dtype.

Rules, in the order they are checked (the first that applies wins; a tuple's
verdict is that of its first bad component):

========================  ==========  =======================================
type                      kind        a problem when
========================  ==========  =======================================
ranked tensor, a ``?``    dynamic     always
ranked tensor, too big    overflow    its element count, or its size in
                                      bytes, does not fit in 63 bits
ranked tensor of quant    quantized   always
ranked tensor of complex  complex     ``allow_complex`` is False
ranked tensor, other      element     ``element_types`` is given and lacks it
memref (ranked/unranked)  buffer      always
unranked tensor           unranked    always
``!mhlo/stablehlo.token`` token       ``allow_token`` is False
``!quant.*``              quantized   always
anything else (scalar,    other       ``element_types`` is given and lacks it
vector, index ...)
========================  ==========  =======================================
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

from hilo_mlir.ir.binding import ir

DYNAMIC, OVERFLOW, QUANTIZED, COMPLEX, ELEMENT, BUFFER, UNRANKED, TOKEN, OTHER = (
    "dynamic",
    "overflow",
    "quantized",
    "complex",
    "element",
    "buffer",
    "unranked",
    "token",
    "other",
)

#: Element counts and byte sizes from here on do not fit in MLIR's int64 arithmetic.
SIZE_LIMIT = 2**63

TOKEN_TYPES = ("!mhlo.token", "!stablehlo.token")

_RANKED = ir.RankedTensorType.static_typeid
_UNRANKED = ir.UnrankedTensorType.static_typeid
_TUPLE = ir.TupleType.static_typeid
_COMPLEX = ir.ComplexType.static_typeid
_MEMREFS = (ir.MemRefType.static_typeid, ir.UnrankedMemRefType.static_typeid)

_DYNAMIC_NOTE = "dynamic shapes are not supported (every dimension must be static)"


class TypeProblem(NamedTuple):
    """Why a type cannot be compiled.

    Attributes:
        kind: one of ``dynamic overflow quantized complex element buffer unranked token other``.
        type: the offending type as printed (for a tuple: its bad component).
        element: the element type as printed, for problems of a tensor's
            element type (``quantized`` in a tensor, ``complex``, ``element``);
            else None.
    """

    kind: str
    type: str
    element: str | None = None

    def reason(self) -> str:
        """The printers' phrasing: ``"dynamic shape tensor<?xf32> is not supported"``."""
        if self.kind == DYNAMIC:
            return f"dynamic shape {self.type} is not supported"
        if self.kind == OVERFLOW:
            return f"shape {self.type} is too large (its size overflows a 64-bit integer)"
        if self.kind == UNRANKED:
            return f"unranked type {self.type} is not supported"
        if self.element is not None:
            return f"element type {self.element} is not supported"
        return f"type {self.type} is not supported"

    def explain(self, complex_why: str = "the pass is not available") -> str:
        """The input check's phrasing, after "'<op>' op result #0 " (or the like).

        ``complex_why``: why complex types are not lowered (the gate is off, or
        the pass is missing).
        """
        k = self.kind
        if k == DYNAMIC:
            return f"has dynamic shape {self.type}: {_DYNAMIC_NOTE}"
        if k == OVERFLOW:
            return f"has shape {self.type}, whose element count or size in bytes overflows a 64-bit integer"
        if k == UNRANKED:
            return f"has unranked type {self.type}: {_DYNAMIC_NOTE}"
        if k == QUANTIZED:
            if self.element is not None:
                return f"has quantized element type {self.element}: quantized types are not supported"
            return f"has quantized type {self.type}: quantized types are not supported"
        if k == COMPLEX:
            return f"has complex element type {self.type}: complex types need the lower-complex pass ({complex_why})"
        if k == BUFFER:
            return f"has buffer type {self.type}: memref types are not supported (tensors only)"
        if k == TOKEN:
            return f"has token type {self.type}: token values need the replace-token-type-with-u8 pass, which is not available"
        if k == ELEMENT:
            return f"has element type {self.element}, which has no Penguin dtype"
        return f"has type {self.type}, which is not supported"


class ElementSet(Protocol):
    """What ``type_problem``'s ``element_types`` must do: answer ``"f32" in element_types``."""

    def __contains__(self, element_type: str, /) -> bool: ...


def _too_big(shape: Sequence[int], et: ir.Type) -> bool:
    n = 1
    for d in shape:
        n *= d
    if n < 2**40:  # the common case: no need to look at the element type
        return False
    width = getattr(et, "width", None) or 128  # complex and other types: at most 16 bytes
    return n >= SIZE_LIMIT or n * max(1, width // 8) >= SIZE_LIMIT


def type_problem(
    t: ir.Type, element_types: ElementSet | None = None, allow_complex: bool = True, allow_token: bool = True
) -> TypeProblem | None:
    """The first problem of type ``t`` (an ``ir.Type``), or None (see the module table).

    Args:
        t: the type.
        element_types: the element types (as printed: ``"f32"``, ``"ui8"``,
            ``"complex<f32>"``) that are accepted, or None to accept any
            non-quantized element type and any non-tensor type.
        allow_complex: complex element types are fine (a pass lowers them).
        allow_token: token types are fine (a pass replaces them).
    """
    tid = t.typeid
    if tid == _RANKED:
        rt = ir.RankedTensorType(t)
        if not rt.has_static_shape:
            return TypeProblem(DYNAMIC, str(t))
        et = rt.element_type
        if _too_big(rt.shape, et):
            return TypeProblem(OVERFLOW, str(t))
        es = str(et)
        if es.startswith("!quant"):
            return TypeProblem(QUANTIZED, str(t), es)
        if not allow_complex and et.typeid == _COMPLEX:
            return TypeProblem(COMPLEX, str(t), es)
        if element_types is not None and es not in element_types:
            return TypeProblem(ELEMENT, str(t), es)
        return None
    if tid == _TUPLE:
        tt = ir.TupleType(t)
        for i in range(tt.num_types):
            p = type_problem(tt.get_type(i), element_types, allow_complex, allow_token)
            if p is not None:
                return p
        return None
    if tid in _MEMREFS:
        return TypeProblem(BUFFER, str(t))
    if tid == _UNRANKED:
        return TypeProblem(UNRANKED, str(t))
    s = str(t)
    if s in TOKEN_TYPES:
        return None if allow_token else TypeProblem(TOKEN, s)
    if s.startswith("!quant"):
        return TypeProblem(QUANTIZED, s)
    if element_types is None or s in element_types:
        return None
    return TypeProblem(OTHER, s)
