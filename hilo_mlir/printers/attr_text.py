"""MLIR attributes as Python literal text (docs/penguin_format.md section 5, the attribute table).

:func:`attr_text` is the one conversion; the printer caches its result per
attribute (attributes are uniqued, so the cache hashes by pointer). It is
split by attribute family:

* builtin scalars and containers (bool, integer, float, string, symbol
  reference, unit, type, dense arrays, dense elements, array, dictionary);
* the mhlo/stablehlo structured attributes (dot, convolution, gather and
  scatter dimension numbers, channel handles, output-operand aliases) as
  ``dict(...)`` calls with one keyword per field;
* enum attributes (comparison direction and type, precision, transpose, rng
  algorithm and distribution, fft type, fusion kind) as their keyword string;
* anything else as its MLIR text in a ``str``.

The functions take the printer (``p``) for what depends on its state:
``p.spec`` (tensor types as ``TensorSpec``); arrays and dictionaries are
rendered by ``p.attr_value`` from :func:`container_parts`, without recursion.
Every string is quoted by :func:`~hilo_mlir.support.pysource.py_literal`.
"""

from __future__ import annotations

import re

from hilo_mlir.printers.literals import dense_to_numpy, python_literal
from hilo_mlir.printers.supported import DTYPES
from hilo_mlir.support.pysource import py_literal

_ENUM_TEXT = re.compile(r"^#\w+<\s*[\w.]+\s+(\w+)\s*>$")
_ENUM_CLASSES = (
    "ComparisonDirectionAttr",
    "ComparisonTypeAttr",
    "PrecisionAttr",
    "TransposeAttr",
    "RngAlgorithmAttr",
    "RngDistributionAttr",
    "FftTypeAttr",
    "FusionKindAttr",
)


def dtype_name(elem_type) -> str:
    """Penguin dtype string for an MLIR element type (``f32`` -> ``'float32'``); unknown types keep their text."""
    s = str(elem_type)
    return DTYPES.get(s, s)


def dict_call(**kw) -> str:
    """``dict(k=<literal of v>, ...)`` in keyword order (the keywords are this module's own field names)."""
    return "dict(" + ", ".join(f"{k}={py_literal(v)}" for k, v in kw.items()) + ")"


def container_parts(attr):
    """``("array", elements, None)`` / ``("dict", values, names)`` for an array or dictionary attribute, else None.

    :meth:`Emitter.attr_value` renders containers from these without recursion.
    """
    from hilo_mlir.ir.binding import ir

    tid = attr.typeid
    if tid == ir.ArrayAttr.static_typeid:
        return ("array", list(ir.ArrayAttr(attr)), None)
    if tid == ir.DictAttr.static_typeid:
        d = ir.DictAttr(attr)
        named = [d[i] for i in range(len(d))]
        return ("dict", [na.attr for na in named], [na.name for na in named])
    return None


def nesting_depth(text: str) -> int:
    """The deepest bracket nesting of Python source ``text``, outside string literals (``repr`` quoting)."""
    if "(" not in text and "[" not in text and "{" not in text:
        return 0
    depth = best = 0
    quote = None
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if quote is not None:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c == "'" or c == '"':
            quote = c
        elif c in "([{":
            depth += 1
            best = max(best, depth)
        elif c in ")]}":
            depth -= 1
        i += 1
    return best


def attr_text(p, attr) -> str:
    """An MLIR attribute as Python source (uncached; :meth:`Emitter.attr_value` caches it)."""
    from hilo_mlir.ir.binding import ir

    a = attr.maybe_downcast() if hasattr(attr, "maybe_downcast") else attr
    text = _builtin_text(p, a, attr, ir)
    if text is not None:
        return text
    text = _dialect_text(attr)
    if text is not None:
        return text
    text = str(attr)
    m = _ENUM_TEXT.match(text)
    if m:
        return py_literal(m.group(1))
    return py_literal(text)


def _builtin_text(p, a, attr, ir) -> str | None:
    """Builtin attributes (``a`` is ``attr`` downcast), or None for any other kind."""
    if isinstance(a, ir.BoolAttr):
        return "True" if a.value else "False"
    if isinstance(a, ir.IntegerAttr):
        return str(int(a.value))  # the binding already reads unsigned types as unsigned
    if isinstance(a, ir.FloatAttr):
        return python_literal(float(a.value))
    if isinstance(a, (ir.StringAttr, ir.FlatSymbolRefAttr)):
        return py_literal(a.value)
    if isinstance(a, ir.UnitAttr):
        return "True"
    if isinstance(a, ir.TypeAttr):
        t = a.value
        if t.typeid == ir.RankedTensorType.static_typeid or t.typeid == ir.TupleType.static_typeid:
            return p.spec(t)
        return py_literal(dtype_name(t))
    if isinstance(a, (ir.DenseI64ArrayAttr, ir.DenseI32ArrayAttr)):
        return py_literal([int(x) for x in a])
    if isinstance(a, ir.DenseBoolArrayAttr):
        return py_literal([bool(x) for x in a])
    if isinstance(a, (ir.DenseIntElementsAttr, ir.DenseFPElementsAttr, ir.DenseElementsAttr)):
        return python_literal(dense_to_numpy(attr))
    if isinstance(a, (ir.ArrayAttr, ir.DictAttr)):  # pragma: no cover - Emitter.attr_value renders containers
        raise AssertionError("containers are rendered by Emitter.attr_value")
    return None


def _dialect_text(attr) -> str | None:
    """The mhlo/stablehlo structured and enum attributes, or None."""
    from hilo_mlir.ir.binding import mhlo, stablehlo

    for dialect in (stablehlo, mhlo):
        text = _struct_text(dialect, attr)
        if text is not None:
            return text
        for cls in _ENUM_CLASSES:
            c = getattr(dialect, cls, None)
            if c is not None and c.isinstance(attr):
                return py_literal(str(c(attr).value))
    return None


def _struct_text(dialect, attr) -> str | None:
    """Dimension numbers, channel handles and output-operand aliases of one dialect as ``dict(...)``."""
    if dialect.DotDimensionNumbers.isinstance(attr):
        d = dialect.DotDimensionNumbers(attr)
        return dict_call(
            lhs_batching_dimensions=list(d.lhs_batching_dimensions),
            rhs_batching_dimensions=list(d.rhs_batching_dimensions),
            lhs_contracting_dimensions=list(d.lhs_contracting_dimensions),
            rhs_contracting_dimensions=list(d.rhs_contracting_dimensions),
        )
    if dialect.ConvDimensionNumbers.isinstance(attr):
        d = dialect.ConvDimensionNumbers(attr)
        return dict_call(
            input_batch_dimension=d.input_batch_dimension,
            input_feature_dimension=d.input_feature_dimension,
            input_spatial_dimensions=list(d.input_spatial_dimensions),
            kernel_input_feature_dimension=d.kernel_input_feature_dimension,
            kernel_output_feature_dimension=d.kernel_output_feature_dimension,
            kernel_spatial_dimensions=list(d.kernel_spatial_dimensions),
            output_batch_dimension=d.output_batch_dimension,
            output_feature_dimension=d.output_feature_dimension,
            output_spatial_dimensions=list(d.output_spatial_dimensions),
        )
    if dialect.GatherDimensionNumbers.isinstance(attr):
        d = dialect.GatherDimensionNumbers(attr)
        return dict_call(
            offset_dims=list(d.offset_dims),
            collapsed_slice_dims=list(d.collapsed_slice_dims),
            operand_batching_dims=list(d.operand_batching_dims),
            start_indices_batching_dims=list(d.start_indices_batching_dims),
            start_index_map=list(d.start_index_map),
            index_vector_dim=d.index_vector_dim,
        )
    if dialect.ScatterDimensionNumbers.isinstance(attr):
        d = dialect.ScatterDimensionNumbers(attr)
        return dict_call(
            update_window_dims=list(d.update_window_dims),
            inserted_window_dims=list(d.inserted_window_dims),
            input_batching_dims=list(d.input_batching_dims),
            scatter_indices_batching_dims=list(d.scatter_indices_batching_dims),
            scatter_dims_to_operand_dims=list(d.scattered_dims_to_operand_dims),
            index_vector_dim=d.index_vector_dim,
        )
    if dialect.ChannelHandle.isinstance(attr):
        d = dialect.ChannelHandle(attr)
        return dict_call(handle=d.handle, type=d.channel_type)
    if dialect.OutputOperandAlias.isinstance(attr):
        d = dialect.OutputOperandAlias(attr)
        return dict_call(
            output_tuple_indices=list(d.output_tuple_indices),
            operand_index=d.operand_index,
            operand_tuple_indices=list(d.operand_tuple_indices),
        )
    return None
