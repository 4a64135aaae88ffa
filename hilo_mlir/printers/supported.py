"""What the Penguin printers can emit: the one table behind the printers and ``verify-supported-ops``.

``unsupported_reason(op)`` returns ``None`` when the printers (both
``mhlo-to-py-penguin`` and ``stablehlo-to-py-penguin``) can emit ``op`` and a
one-line reason otherwise. The printers apply it to every op they print and
the ``verify-supported-ops`` pass (spine step 4) to every
op of the module, so the two can never disagree. Both use it in parts where
that is cheaper: :func:`name_reason` (cached per op name), :func:`op_reason`
for the :func:`attribute_dependent` kinds, :func:`type_reason` per type.

The tables are data (short op names shared by both dialects):

* :data:`SUPPORTED_OPS`: ops printed by the generic statement assembler or a
  dedicated emitter (docs/penguin_format.md sections 5-7).
* :data:`UNSUPPORTED_OPS`: ops rejected with a specific reason.
* :data:`CUSTOM_CALL_TARGETS`: the custom-call dispatch table (section 8),
  target name -> Python op; ``mhlo.<op>`` targets (mhlo ops without a
  StableHLO equivalent, as ``hlo-legalize-to-stablehlo`` writes them) are
  accepted when ``<op>`` is in :data:`SUPPORTED_OPS`.
* :data:`FUSION_KINDS` / :data:`COMPOSITE_KINDS`: the FusionKind /
  CompositeKind dispatch tables, kind -> (Python op name,
  ``hilo_fusion_op`` or None); ``None`` as Python name = transparent
  (ScheduleFusion).
* :data:`DTYPES`: MLIR element type -> Penguin dtype string.
"""

from __future__ import annotations

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.type_legality import type_problem

#: MLIR element type (its text) -> Penguin dtype string (docs/penguin_format.md section 5).
DTYPES = {
    "f32": "float32",
    "f16": "float16",
    "bf16": "bfloat16",
    "f64": "float64",
    "f8E4M3FN": "float8_e4m3fn",
    "f8E5M2": "float8_e5m2",
    "f8E4M3FNUZ": "float8_e4m3fnuz",
    "f8E5M2FNUZ": "float8_e5m2fnuz",
    "f8E8M0FNU": "float8_e8m0fnu",
    "i1": "bool",
    "i4": "int4",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "ui4": "uint4",
    "ui8": "uint8",
    "ui16": "uint16",
    "ui32": "uint32",
    "ui64": "uint64",
    "complex<f32>": "complex64",
    "complex<f64>": "complex128",
}

#: Ops the printers emit (short names; the same set in mhlo and stablehlo).
SUPPORTED_OPS = frozenset(
    """
    abs add and atan2 bitcast_convert cbrt ceil clamp compare complex convert
    cosine count_leading_zeros divide exponential exponential_minus_one floor imag
    is_finite log log_plus_one logistic maximum minimum multiply negate not or popcnt
    power real reduce_precision remainder round_nearest_afz round_nearest_even rsqrt
    select shift_left shift_right_arithmetic shift_right_logical sign sine sqrt
    subtract tan tanh xor
    acos acosh asin asinh atanh cosh sinh erf
    constant iota broadcast broadcast_in_dim reshape transpose slice dynamic_slice
    dynamic_update_slice concatenate pad reverse gather scatter select_and_scatter
    reduce reduce_window sort dot dot_general convolution torch_index_select topk
    get_dimension_size tuple get_tuple_element while case if map
    optimization_barrier copy after_all create_token
    all_reduce all_gather reduce_scatter all_to_all collective_permute
    collective_broadcast partition_id replica_id
    custom_call fusion composite return
    """.split()
)

#: Ops rejected with a specific reason (anything else not in SUPPORTED_OPS gets a generic one).
UNSUPPORTED_OPS = {
    **{
        k: "dynamic shapes are not supported by the Penguin printers"
        for k in (
            "dynamic_broadcast_in_dim",
            "dynamic_reshape",
            "dynamic_iota",
            "dynamic_pad",
            "dynamic_gather",
            "dynamic_conv",
            "real_dynamic_slice",
            "set_dimension_size",
            "compute_reshape_shape",
            "cstr_reshapable",
            "dynamic_top_k",
            "dynamic_reduce_window",
            "dynamic_rng_bit_generator",
            "dynamic_approx_top_k",
        )
    },
    **{k: "host I/O has no Penguin equivalent" for k in ("infeed", "outfeed", "send", "recv")},
    **{k: "random number generation has no Penguin equivalent (results would differ from XLA)" for k in ("rng", "rng_bit_generator")},
    **{k: "quantized types are not supported by the Penguin printers" for k in ("uniform_quantize", "uniform_dequantize")},
    **{k: "asynchronous ops are not supported by the Penguin printers" for k in ("async_start", "async_update", "async_done")},
    "batch_norm_training": "batch normalisation must be decomposed before printing",
    "batch_norm_inference": "batch normalisation must be decomposed before printing",
    "batch_norm_grad": "batch normalisation must be decomposed before printing",
    "cholesky": "linear-algebra solvers have no Penguin equivalent",
    "triangular_solve": "linear-algebra solvers have no Penguin equivalent",
    "fft": "FFT has no Penguin equivalent",
    "einsum": "einsum must be lowered to dot_general before printing",
    "unary_einsum": "einsum must be lowered to dot_general before printing",
    "ragged_dot": "ragged_dot has no Penguin equivalent",
    "stochastic_convert": "stochastic_convert has no Penguin equivalent",
    "domain": "sharding domains are not supported by the Penguin printers",
    "add_dependency": "add_dependency is not supported by the Penguin printers",
    "bitcast": "layout bitcasts are not supported by the Penguin printers",
    "xla.rng_get_and_update_state": "random number generation has no Penguin equivalent",
}

#: Custom-call dispatch table (docs/penguin_format.md section 8): target -> Python op name.
CUSTOM_CALL_TARGETS = {
    "QuantizeMX": "QuantizeMXTensorOp",
    "__op$block_scaled_dot": "DotOp",
    "AwsNeuronDevicePrint": "DevicePrintOp",
    "AwsFSPattern5": "SoftmaxOp",
    "AliasingCopy": "CopyOp",
    "AwsNeuronTransferWithStaticRing": "CopyOp",
    "AwsNeuronControlDep": "ControlDepOp",
    # identity markers JAX / XLA emit around sharded values
    "Sharding": "CopyOp",
    "SPMDFullToShardShape": "CopyOp",
    "SPMDShardToFullShape": "CopyOp",
    "annotate_device_placement": "CopyOp",
    "mhlo.sharding": "CopyOp",
    # the StableHLO interpreter test-suite's checks (third_party corpus)
    "check.expect_eq": "CheckOp",
    "check.expect_almost_eq": "CheckOp",
    "check.expect_close": "CheckOp",
    "check.expect_eq_const": "CheckOp",
    "check.expect_almost_eq_const": "CheckOp",
    "check.expect_close_const": "CheckOp",
    "check.expect_serialized_eq": "CheckOp",
}

#: FusionKind -> (Python op name, hilo_fusion_op) for the MHLO printer; None = transparent.
FUSION_KINDS = {
    "DotLogistic": ("DotFusion", None),
    "MulRedSqrt": ("MulRedSqrt", None),
    "Elementwise": ("Elementwise", None),
    "Expm1": ("Expm1", None),
    "Log1p": ("Log1p", None),
    "DotSoftmax": ("DotSoftmax", None),
    "ScheduleFusion": (None, None),
}

#: CompositeKind -> (Python op name, hilo_fusion_op): the seven-way table of the StableHLO printer.
COMPOSITE_KINDS = {
    "ScheduleFusion": (None, None),
    "MulRedSqrt": ("MulRedSqrt", "MulRedSqrt"),
    "DotLogistic": ("DotFusion", "DotLogistic"),
    "Expm1": ("Elementwise", "Expm1"),
    "Log1p": ("Elementwise", "Log1p"),
    "Elementwise": ("Elementwise", "Elementwise"),
    "DotSoftmax": ("DotSoftmax", "DotSoftmax"),
}

#: the dialect prefixes of the op names both printers accept (:func:`hlo_short` strips them)
HLO_PREFIXES = ("mhlo.", "stablehlo.")
_FUNC_OK = frozenset({"func.return", "func.call"})


#: Custom-call targets only the StableHLO printer emits: seed 002 calls the MX path (QuantizeMX and the
#: scaled matmul) "genuinely StableHLO-exclusive output" with "no MHLO twin for this path".
STABLEHLO_ONLY_TARGETS = frozenset({"QuantizeMX", "__op$block_scaled_dot"})


def stablehlo_only_reason(target: str) -> str:
    """Why the MHLO printer refuses a :data:`STABLEHLO_ONLY_TARGETS` custom call."""
    return (
        f"custom_call @{target} is printed on the StableHLO spine only (the MX path has no MHLO printer); "
        "compile with --spine stablehlo (printer stablehlo-to-py-penguin)"
    )


def hlo_short(name: str) -> str | None:
    for p in HLO_PREFIXES:
        if name.startswith(p):
            return name[len(p) :]
    return None


def custom_call_target(op, items=None) -> str:
    """The ``call_target_name`` of a custom_call op ('' if absent); ``items``: ``op.attributes.items()`` if read already."""
    a = _attr_named(op, VERDICT_ATTRIBUTES["custom_call"], items)
    return "" if a is None else ir.StringAttr(a).value


def custom_call_py_op(target: str) -> str | None:
    """Python op name for a custom-call target, or None when the target is unknown."""
    py = CUSTOM_CALL_TARGETS.get(target)
    if py is not None:
        return py
    short = hlo_short(target)
    if target.startswith("mhlo.") and short in SUPPORTED_OPS and short not in ("custom_call", "fusion", "composite", "return"):
        return "".join(p[:1].upper() + p[1:] for p in short.split("_")) + "Op"
    return None


def type_reason(t, _cache: dict | None = None) -> str | None:
    """Why a value type cannot be printed (dynamic shape, unranked, unknown element type), or None.

    ``_cache`` is keyed by the type's id (``hash``: types are uniqued and live as long as the context).
    """
    if _cache is not None:
        k = hash(t)
        hit = _cache.get(k, False)
        if hit is not False:
            return hit
        reason = _cache[k] = _type_reason(t, ir)
        return reason
    return _type_reason(t, ir)


def _type_reason(t, ir) -> str | None:
    p = type_problem(t, element_types=DTYPES)  # the one type-legality checker (hilo_mlir.ir.type_legality)
    return None if p is None else p.reason()


def name_reason(name: str) -> str | None:
    """The part of :func:`op_reason` that depends on the op name only.

    For ops whose kind is :func:`attribute_dependent` (custom_call, fusion,
    composite) :func:`op_reason` also reads the op's attributes; for every
    other op ``op_reason(op) == name_reason(op.name)``. Not cached here (no state outlives a
    compile): callers that ask per op cache per name (the printer's ``_op_info``).
    """
    short = hlo_short(name)
    if short is None:
        if name in _FUNC_OK:
            r = None
        elif name.startswith("chlo."):
            r = f"'{name}' must be legalized to stablehlo/mhlo before printing (chlo-legalize-to-stablehlo)"
        else:
            r = f"'{name}' is not an mhlo/stablehlo op; the Penguin printers cannot emit it"
    elif short in UNSUPPORTED_OPS:
        r = f"'{name}': {UNSUPPORTED_OPS[short]}"
    elif short not in SUPPORTED_OPS:
        r = f"'{name}' has no Penguin statement"
    else:
        r = None
    return r


def attribute_dependent(name: str) -> bool:
    """True for the op kinds whose verdict also reads attributes (custom-call target, FusionKind, CompositeKind)."""
    return hlo_short(name) in _ATTR_DEPENDENT


def op_reason(op, printer: str | None = None, items=None) -> str | None:
    """The op-level part of :func:`unsupported_reason` (no type checks); ``printer``: as there.

    ``items``: ``op.attributes.items()`` when the caller read them already (the printer's op record), else None.
    """
    name = op.name
    r = name_reason(name)
    if r is not None:
        return r
    short = hlo_short(name)
    if short == "custom_call":
        target = custom_call_target(op, items)
        if custom_call_py_op(target) is None:
            return f"unsupported custom_call target '{target}'"
        if printer == "mhlo" and target in STABLEHLO_ONLY_TARGETS:
            return stablehlo_only_reason(target)
    elif short == "fusion":
        kind = _str_attr(op, VERDICT_ATTRIBUTES["fusion"], items)
        if kind not in FUSION_KINDS:
            return f"unknown FusionKind '{kind or ''}' on '{name}'"
    elif short == "composite":
        kind = _str_attr(op, VERDICT_ATTRIBUTES["composite"], items)
        if kind is not None and kind not in COMPOSITE_KINDS:
            return f"unknown CompositeKind '{kind}' on '{name}'"
    return None


#: op kinds whose :func:`op_reason` reads attributes (target / FusionKind / CompositeKind)
_ATTR_DEPENDENT = frozenset({"custom_call", "fusion", "composite"})
#: the one attribute :func:`op_reason` reads of each attribute-dependent op kind: with the op name
#: (and the printer) it decides the verdict
VERDICT_ATTRIBUTES = {"custom_call": "call_target_name", "fusion": "FusionKind", "composite": "CompositeKind"}


def unsupported_reason(op, _type_cache: dict | None = None, printer: str | None = None) -> str | None:
    """None if the printers can emit ``op``, else a one-line reason.

    Args:
        op: an ``ir.Operation`` / OpView (any dialect).
        _type_cache: optional dict reused across calls (speeds up big modules).
        printer: ``"mhlo"`` for the MHLO printer, which also refuses
            :data:`STABLEHLO_ONLY_TARGETS`; ``"stablehlo"`` or None for the StableHLO one.

    Checks, in order: the op name against :data:`SUPPORTED_OPS` /
    :data:`UNSUPPORTED_OPS` (``func.return``/``func.call`` are fine, other
    dialects are not); custom-call targets against
    :data:`CUSTOM_CALL_TARGETS`; FusionKind / CompositeKind against their
    tables; then every operand and result type (static shape, known element
    type, tuples of those, tokens).
    """
    name = op.name
    r = op_reason(op, printer) if hlo_short(name) in _ATTR_DEPENDENT else name_reason(name)
    if r:
        return r
    for v in op.operands:
        r = type_reason(v.type, _type_cache)
        if r:
            return f"'{name}' operand: {r}"
    for v in op.results:
        r = type_reason(v.type, _type_cache)
        if r:
            return f"'{name}' result: {r}"
    return None


def _attr_named(op, key: str, items=None):
    """The attribute ``key`` of ``op`` (read from ``items``, ``op.attributes.items()``, when given), or None."""
    if items is not None:
        for k, a in items:
            if k == key:
                return a
        return None
    attrs = op.attributes
    return attrs[key] if key in attrs else None


def _str_attr(op, key: str, items=None) -> str | None:
    a = _attr_named(op, key, items)
    if a is None:
        return None
    if a.typeid == ir.StringAttr.static_typeid:
        return ir.StringAttr(a).value
    return str(a)
