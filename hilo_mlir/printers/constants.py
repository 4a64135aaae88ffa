"""The ``constant`` handler: ``ConstantOp(..., value=<literal | NpyFile>)`` (format section 5a).

A splat constant prints its one element; a non-splat constant with at most
``inline_limit`` elements a nested list; a larger one goes to
``const_<K>.npy`` beside ``penguin.py`` (``m<ir>.NpyFile('const_<K>.npy')``,
one file per constant op). A value holding a NaN with a payload (a
signalling NaN, or any NaN but the one ``float('nan')`` gives) prints its
elements' bit patterns, ``m<ir>.Bits(0x7f800001)`` / ``m<ir>.Bits([...])``. Inline renderings are cached per attribute
(attributes are uniqued), and the printer's inline path reuses them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hilo_mlir.printers.literals import (
    NarrowBits,
    bits_literal,
    dense_text_to_numpy,
    dense_to_numpy,
    has_nan_payload,
    npy_bytes,
    python_literal,
)
from hilo_mlir.support.pysource import py_literal


def print_constant(p, rec) -> None:
    """Print one constant op.

    Raises:
        HiloError: an element type without a numpy dtype, a dynamic shape, a
            value that is not a dense elements attribute.
    """
    if rec.items is not None:
        attr = next((a for k, a in rec.items if k == "value"), None)
    else:  # some attribute cannot be handed to Python (dense complex): if it is the value, read the text
        try:
            attr = rec.op.attributes["value"]
        except TypeError:
            attr = None
    value = p.const_cache.get(hash(attr)) if attr is not None else None  # one rendering per distinct value
    if value is None:
        value, cacheable = _render(p, rec.op, attr)
        if cacheable:
            p.const_cache[hash(attr)] = value
    p.statement(rec, "ConstantOp", [("value", value)] + p.attr_items(rec, skip=("value",)))


def _render(p, op, attr) -> tuple[str, bool]:
    """``(value text, cacheable)``: cacheable unless the value is a ``.npy`` reference or the attribute unreadable."""
    from hilo_mlir.ir.binding import ir

    dense: Any = None
    splat = False
    if attr is not None:
        try:
            dense = ir.DenseElementsAttr(attr)
            splat = dense.is_splat
        except (ValueError, TypeError):
            dense = None
    if splat:
        value = _splat_literal(dense.get_splat_value().maybe_downcast(), ir)
        if value is not None:
            return value, True
    if attr is None:
        arr = dense_text_to_numpy(str(op), op.results[0].type, op)
        rows = np.ascontiguousarray(arr).reshape(-1).view(np.uint8).reshape(arr.size, -1)
        splat = arr.size > 0 and bool((rows == rows[0]).all())  # bit for bit: keeps -0.0 and NaN payloads
    else:
        arr = dense_to_numpy(attr, op)
    if arr.ndim == 0 or splat:
        arr = arr.reshape(-1)[:1].reshape(())
    elif arr.size > p.inline_limit:
        fname = f"const_{len(p.files)}.npy"  # one .npy file per constant op (not cached)
        p.files[fname] = npy_bytes(arr)
        return f"{p.mod('ir')}.NpyFile({py_literal(fname)})", False
    if has_nan_payload(arr):  # NaN payloads have no float literal: the bit patterns instead
        return f"{p.mod('ir')}.Bits({bits_literal(arr)})", attr is not None
    return python_literal(arr if arr.ndim or isinstance(arr, NarrowBits) else arr[()]), attr is not None


def _splat_literal(sv, ir) -> str | None:
    if isinstance(sv, ir.BoolAttr):
        return python_literal(bool(sv.value))
    if isinstance(sv, ir.IntegerAttr):
        return python_literal(int(sv.value))
    if isinstance(sv, ir.FloatAttr):
        v = float(sv.value)
        return None if math.isnan(v) else python_literal(v)  # a NaN: its payload is read from the array
    return None
