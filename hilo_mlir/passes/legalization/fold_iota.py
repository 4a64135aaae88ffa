"""``fold-iota`` (spine step 16, ``FoldIota``; twin ``stablehlo-fold-iota``).

Folds the geometric ramp ``power(broadcast_in_dim(c), multiply(iota, s))``
(the RoPE inverse-frequency table ``base ** (i * -2/d)``) into one dense
constant. Seed 004 "Misc Pass Reference": the root is ``power``; ``iota``
only appears as the multiplicand of the exponent; the matcher's reject
reasons are, verbatim, "powOp arg0 is not a BroadcastInDimOp",
"powOp arg1 is not a MulOp" and "mulOp arg0 is not a IotaOp" (emitted here
through ``notify_match_failure``, printed by ``hilo-opt --debug``).

Match (operand positions as in the seed): ``power`` operand 0 is a
``broadcast_in_dim`` of a ``constant`` ``c``; operand 1 is a ``multiply``
whose operand 0 is an ``iota`` and whose operand 1 is a ``constant`` or a
``broadcast_in_dim`` of one (the scale ``s``). Element type: a float type
(f16, bf16, f32, f64, f8 variants); shapes static; at most ``max-elements``
elements.

Numerics (bit-exact with the StableHLO reference interpreter): every
intermediate is rounded to the element type as the unfused ops would round
it — ``iota`` values converted to the type, the product computed in the type
(numpy / ml_dtypes; a product of two values of the type is exact in float64
and is rounded once), and ``power`` computed in float64 with the C library's
``pow`` then rounded to the type, which is what the interpreter does.

The folded ops that have no other users are erased.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.utils import defining_op, int_list
from hilo_mlir.passmanager.options import option
from hilo_mlir.passmanager.registry import register_twins
from hilo_mlir.rewrite.pattern import PatternRewriter, RewritePattern, apply_patterns_once

if TYPE_CHECKING:
    from typing_extensions import Buffer

    from hilo_mlir.ir.dialects import DialectTable
    from hilo_mlir.passmanager.pass_context import PassContext

_FLOAT_DTYPES: dict[str, np.dtype] = {"f16": np.dtype(np.float16), "f32": np.dtype(np.float32), "f64": np.dtype(np.float64)}
_NARROW_FLOATS = {"bf16": "bfloat16", "f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2"}


def _float_dtype(elem: ir.Type) -> np.dtype | None:
    """The numpy dtype that computes in ``elem``; ``ml_dtypes`` (~1 s to import) only for bf16 / f8."""
    es = str(elem)
    dt = _FLOAT_DTYPES.get(es)
    if dt is None and es in _NARROW_FLOATS:
        import ml_dtypes

        dt = _FLOAT_DTYPES[es] = np.dtype(getattr(ml_dtypes, _NARROW_FLOATS[es]))
    return dt


_NUM = re.compile(r"0x[0-9A-Fa-f]+|[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan)")


def float_attr_to_numpy(attr, dtype: np.dtype) -> np.ndarray:
    """Values of a float DenseElementsAttr as a numpy array of ``dtype`` (shape of its type).

    The binding's buffer protocol does not cover bf16/f8, so those are read from
    the attribute's text (hex literals are bit patterns of the type).
    """
    shape = tuple(ir.ShapedType(attr.type).shape)
    if dtype in (np.float16, np.float32, np.float64):
        a = np.array(attr)
        return np.broadcast_to(a.astype(dtype), shape).copy() if a.shape != shape else a.astype(dtype)
    text = str(attr)
    body = text[text.index("<") + 1 : text.rindex(">")]
    if body.startswith('"0x'):
        raw = bytes.fromhex(body[3 : body.index('"', 1)])
        vals = np.frombuffer(raw, dtype=dtype)
    else:
        toks = _NUM.findall(body.split(":")[0] if not body.startswith("[") else body[: body.rindex("]") + 1])
        out = []
        uint = np.uint16 if dtype.itemsize == 2 else np.uint8
        for t in toks:
            if t.startswith("0x"):
                out.append(np.array(int(t, 16), dtype=uint).view(dtype))
            else:
                out.append(np.array(float(t)).astype(dtype))
        vals = np.array(out, dtype=dtype)
    if vals.size == 1:
        return np.full(shape, vals.reshape(-1)[0], dtype=dtype)
    return vals.reshape(shape)


def numpy_to_attr(a: np.ndarray, t: ir.Type) -> ir.DenseElementsAttr:
    """A DenseElementsAttr of tensor type ``t`` holding ``a`` (bf16/f8 passed as raw bits)."""
    a = np.ascontiguousarray(a)
    if a.dtype.itemsize in (1, 2) and a.dtype not in (np.float16, np.int8, np.uint8, np.int16, np.uint16, np.bool_):
        a = a.view(np.uint16 if a.dtype.itemsize == 2 else np.uint8)
    return ir.DenseElementsAttr.get(cast("Buffer", a), type=t)  # an ndarray is a buffer (numpy's stubs: Python >= 3.12)


def _constant_values(op, d, dtype):
    if d.is_op(op, "constant"):
        return float_attr_to_numpy(op.attributes["value"], dtype)
    return None


def _broadcast(values: np.ndarray, dims: list[int], shape: tuple) -> np.ndarray:
    """broadcast_in_dim semantics: operand dim i maps to result dim dims[i] (size equal or 1)."""
    view_shape = [1] * len(shape)
    for i, dd in enumerate(dims):
        view_shape[dd] = values.shape[i]
    return np.broadcast_to(values.reshape(view_shape), shape)


def _const_or_broadcast(v, d, dtype, shape):
    op = defining_op(v)
    if op is None:
        return None
    c = _constant_values(op, d, dtype)
    if c is not None:
        return np.broadcast_to(c, shape)
    if d.is_op(op, "broadcast_in_dim"):
        inner = defining_op(op.operands[0])
        c = _constant_values(inner, d, dtype) if inner is not None else None
        if c is not None:
            return _broadcast(c, int_list(op.attributes["broadcast_dimensions"]), shape)
    return None


def _iota(op, dtype, shape) -> np.ndarray:
    dim = int_list(op.attributes["iota_dimension"])[0]
    ramp = np.arange(shape[dim], dtype=np.float64).astype(dtype)
    view = [1] * len(shape)
    view[dim] = shape[dim]
    return np.broadcast_to(ramp.reshape(view), shape)


def _safe_pow(base: np.ndarray, exp: np.ndarray) -> np.ndarray:
    def one(b, e):
        try:
            return math.pow(b, e)
        except (OverflowError, ValueError):
            return float(np.power(np.float64(b), np.float64(e)))

    return np.frompyfunc(one, 2, 1)(base, exp).astype(np.float64)


def match_fold_iota(pow_op: Any, d: DialectTable, rw: PatternRewriter, max_elements: int) -> np.ndarray | None:
    """Check the seed's pattern at a ``power`` op; return the folded values or None.

    Returns:
        The values of the folded constant (numpy array of the result's shape
        and element type), or None. Every rejection is one
        ``notify_match_failure`` (the seed's wording for the three structural checks).
    """
    base_op = defining_op(pow_op.operands[0])
    if not d.is_op(base_op, "broadcast_in_dim"):
        return _refuse(rw, pow_op, "powOp arg0 is not a BroadcastInDimOp")
    mul_op = defining_op(pow_op.operands[1])
    if not d.is_op(mul_op, "multiply"):
        return _refuse(rw, pow_op, "powOp arg1 is not a MulOp")
    iota_op = defining_op(mul_op.operands[0])
    if not d.is_op(iota_op, "iota"):
        return _refuse(rw, pow_op, "mulOp arg0 is not a IotaOp")
    rt = pow_op.results[0].type
    if not isinstance(rt, ir.RankedTensorType) or not rt.has_static_shape:
        return _refuse(rw, pow_op, "powOp result is not a static tensor")
    dtype = _float_dtype(rt.element_type)
    if dtype is None:
        return _refuse(rw, pow_op, f"powOp element type {rt.element_type} is not a float type")
    shape = tuple(rt.shape)
    if int(np.prod(shape, dtype=np.int64)) > max_elements:
        return _refuse(rw, pow_op, f"powOp has more than max-elements={max_elements} elements")
    inner = defining_op(base_op.operands[0])
    c = _constant_values(inner, d, dtype) if inner is not None else None
    if c is None:
        return _refuse(rw, pow_op, "broadcastOp operand is not a ConstantOp")
    base = _broadcast(c, int_list(base_op.attributes["broadcast_dimensions"]), shape)
    scale = _const_or_broadcast(mul_op.operands[1], d, dtype, shape)
    if scale is None:
        return _refuse(rw, pow_op, "mulOp arg1 is not a constant")
    with np.errstate(all="ignore"):
        expo = (_iota(iota_op, dtype, shape).astype(np.float64) * scale.astype(np.float64)).astype(dtype)
        vals = _safe_pow(base.astype(np.float64), expo.astype(np.float64)).astype(dtype)
    return vals.reshape(shape)


def _refuse(rw: PatternRewriter, op: Any, reason: str) -> np.ndarray | None:
    """Say why ``op`` is not folded; None (``return _refuse(...)`` in :func:`match_fold_iota`)."""
    rw.notify_match_failure(op, reason)
    return None


def _erase_if_dead(op: Any, rw: PatternRewriter) -> None:
    """Erase ``op`` and then its producers that became dead (pure ops of the folded chain)."""
    work = [op]
    while work:
        o = work.pop()
        if any(True for r in o.results for _ in r.uses):
            continue
        prods = [defining_op(v) for v in o.operands]
        rw.erase_op(o)
        work.extend(p for p in prods if p is not None)


class FoldIotaPattern(RewritePattern):
    """``power(broadcast_in_dim(c), multiply(iota, s))`` -> one dense ``constant`` (see the module docstring).

    Root: ``power``. The folded values of a match are kept for the rewrite
    (the drivers' look-ahead and the sweep ask about the same op in a row, and
    nothing mutates the IR between a match and its rewrite).
    """

    name, statistic, roots = "fold-iota", "folded", ("power",)

    def __init__(self, max_elements: int):
        self.max_elements = max_elements
        self._folded: tuple[Any, np.ndarray] | None = None  # (power op, its values) of the last match

    def match(self, op: Any, rw: PatternRewriter) -> bool:
        if self._folded is not None and self._folded[0] == op:
            return True
        assert rw.d is not None, "a dialect's pass"
        vals = match_fold_iota(op, rw.d, rw, self.max_elements)
        if vals is None:
            return False
        self._folded = (op, vals)
        return True

    def rewrite(self, op: Any, rw: PatternRewriter) -> None:
        assert self._folded is not None and self._folded[0] == op, "matched"
        vals = self._folded[1]
        self._folded = None
        assert rw.d is not None, "a dialect's pass"
        t = op.results[0].type
        cst = rw.create(rw.d.name("constant"), results=[t], attributes={"value": numpy_to_attr(vals, t)}, before=op)
        rw.rewriter.replace_all_uses_with(op.results[0], cst.results[0])
        _erase_if_dead(op, rw)


def _run_fold_iota(func_op: Any, ctx: PassContext[FoldIotaOptions]) -> None:
    assert ctx.d is not None, "registered for one dialect"
    power = ctx.d.name("power")
    if not ctx.module_may_contain(power):  # no seed op in the module: nothing to do
        return
    candidates = len(ctx.ops_named(func_op, power))  # census, no walk
    folded = apply_patterns_once(func_op, (FoldIotaPattern(ctx.options.max_elements),), ctx)
    if candidates > folded:
        ctx.stats["rejected"] += candidates - folded


@dataclass(frozen=True)
class FoldIotaOptions:
    """The options of ``fold-iota`` and ``stablehlo-fold-iota``."""

    max_elements: int = option(1 << 20, "largest result (elements) folded into a constant")


register_twins(
    "fold-iota",
    "Fold power(broadcast_in_dim(c), multiply(iota, s)) into a dense constant",
    _run_fold_iota,
    class_name="FoldIota",
    options_type=FoldIotaOptions,
    statistics=("folded", "rejected"),
    source="seed 004 'Misc Pass Reference' (FoldIota) and step 16 (gate cfg[0x118]); DESIGN.md catalogue step 16",
)
