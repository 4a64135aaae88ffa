"""Spine step 5: ``canonicalize-conv`` (twin ``stablehlo-canonicalize-conv``).

Source: seed 004 step 5 (``createCanonicalizeConvPass``, gate cfg[0x12F],
"conv pad/stride normalize"; a global-namespace class per the census);
behaviour: DESIGN.md catalogue row 5 (our definition).

Two rewrites on every ``convolution`` of the function:

1. **Pad folding.** ``convolution(pad(x, c), w)`` where ``c`` is a scalar
   ``constant`` equal to +0 (float or integer), the pad has no interior
   padding, no padding on the batch and feature dimensions of the input and no
   negative edge padding: the conv reads ``x`` directly and its ``padding``
   row of each spatial dimension ``i`` grows by ``(low_i * d_i, high_i * d_i)``
   where ``d_i`` is the conv's ``lhs_dilation`` (a padded input dilated by
   ``d`` equals the dilated input padded by ``p*d`` zeros). The pad is erased
   when it has no other user.
2. **Explicit window attributes.** ``window_strides``, ``padding``,
   ``lhs_dilation`` and ``rhs_dilation`` are set to their defaults (ones /
   zeros, one entry per spatial dimension) when absent, so later passes and
   the printer never need the defaults.

Both rewrites keep the numbers bit for bit (the same products are summed in
the same order). Convolutions whose shapes are dynamic are left alone.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, cast

import numpy as np

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import i64_list
from hilo_mlir.ir.utils import defining_op
from hilo_mlir.passmanager.registry import register_twins

if TYPE_CHECKING:
    # cast("Buffer", array): numpy's stubs give ndarray the buffer protocol only for Python >= 3.12
    from typing_extensions import Buffer


def _zero_scalar(v) -> bool:
    if isinstance(v.owner, ir.Block):
        return False
    c = v.owner.operation
    if c.name.split(".", 1)[-1] != "constant" or "value" not in c.attributes:
        return False
    attr = c.attributes["value"]
    try:
        dense = ir.DenseElementsAttr(attr)
    except (ValueError, TypeError):
        return False
    if not dense.is_splat:
        return False
    sv = dense.get_splat_value()
    try:
        f = ir.FloatAttr(sv).value
        return f == 0.0 and math.copysign(1.0, f) > 0
    except (ValueError, TypeError):
        pass
    try:
        return ir.IntegerAttr(sv).value == 0
    except (ValueError, TypeError):
        return False


def _dims(op, d):
    dn = d.bindings.ConvDimensionNumbers(op.attributes["dimension_numbers"])
    return dn.input_batch_dimension, dn.input_feature_dimension, list(dn.input_spatial_dimensions)


def _padding_rows(op, n):
    if "padding" not in op.attributes:
        return [[0, 0] for _ in range(n)]
    flat = i64_list(op.attributes["padding"])
    return [[flat[2 * i], flat[2 * i + 1]] for i in range(n)]


def _padding_attr(rows):
    arr = np.array(rows, dtype=np.int64).reshape(len(rows), 2)
    return ir.DenseIntElementsAttr.get(cast("Buffer", arr))


def _run(func_op, ctx):
    d = ctx.d
    if not ctx.module_may_contain(d.name("convolution")):  # no convolution in the module: nothing to do
        return
    convs = []

    def visit(op):
        if d.is_op(op, "convolution"):
            convs.append(op.operation)
        return ir.WalkResult.ADVANCE

    func_op.walk(visit)
    rw = ctx.rewriter
    with func_op.context, func_op.location:
        for conv in convs:
            _, _, spatial = _dims(conv, d)
            n = len(spatial)
            # 2. explicit defaults
            for name, default in (("window_strides", 1), ("lhs_dilation", 1), ("rhs_dilation", 1)):
                if name not in conv.attributes:
                    rw.set_attr(conv, name, d.i64_array([default] * n))
                    ctx.stats["attributes-made-explicit"] += 1
            if "padding" not in conv.attributes:
                rw.set_attr(conv, "padding", _padding_attr([[0, 0]] * n))
                ctx.stats["attributes-made-explicit"] += 1
            # 1. pad folding
            _fold_pad(conv, d, spatial, ctx)


def _fold_pad(conv, d, spatial, ctx) -> bool:
    pad = defining_op(conv.operands[0])
    if pad is None or not d.is_op(pad, "pad"):
        return False
    if not _zero_scalar(pad.operands[1]):
        ctx.debug(f"pad feeding the convolution at {conv.location} does not pad with +0")
        return False
    lo = i64_list(pad.attributes["edge_padding_low"])
    hi = i64_list(pad.attributes["edge_padding_high"])
    interior = i64_list(pad.attributes["interior_padding"])
    if any(interior):
        ctx.debug(f"pad feeding the convolution at {conv.location} has interior padding")
        return False
    if min(lo + hi, default=0) < 0:
        ctx.debug(f"pad feeding the convolution at {conv.location} has negative padding")
        return False
    spatial_set = set(spatial)
    if any((lo[i] or hi[i]) for i in range(len(lo)) if i not in spatial_set):
        ctx.debug(f"pad feeding the convolution at {conv.location} pads a batch/feature dimension")
        return False
    for t in (pad.operands[0].type, conv.results[0].type):
        if t.typeid != ir.RankedTensorType.static_typeid or not ir.RankedTensorType(t).has_static_shape:
            return False
    n = len(spatial)
    rows = _padding_rows(conv, n)
    dil = i64_list(conv.attributes["lhs_dilation"]) if "lhs_dilation" in conv.attributes else [1] * n
    for i, sd in enumerate(spatial):
        rows[i][0] += lo[sd] * dil[i]
        rows[i][1] += hi[sd] * dil[i]
    rw = ctx.rewriter
    rw.set_attr(conv, "padding", _padding_attr(rows))
    rw.set_operand(conv, 0, pad.operands[0])
    if not list(pad.results[0].uses):
        rw.erase_op(pad)
    ctx.stats["pads-folded"] += 1
    return True


register_twins(
    "canonicalize-conv",
    "Fold a zero, interior-free pad into the convolution's padding; make default window attributes explicit",
    _run,
    class_name="CanonicalizeConv",
    statistics=("attributes-made-explicit", "pads-folded"),
    source="seed 004 step 5 (gate cfg[0x12F], 'conv pad/stride normalize'); DESIGN.md row 5 (our definition)",
)
