"""The custom-call dispatch table of both printers (docs/penguin_format.md section 8).

``custom_call`` ops are dispatched by ``call_target_name`` through
:data:`EMITTERS` (the same keys as :data:`.supported.CUSTOM_CALL_TARGETS`,
checked at import): one emitter per target family.

* ``QuantizeMX`` -> ``Intrinsics.QuantizeMXTensorOp``: ``mx_dtype`` /
  ``dim`` / ``block_size`` (default 32) / ``scale_method`` (default
  ``'EMAX'``) from the backend config; a negative ``dim`` is normalised with
  the operand rank; a ``ui32`` data result gets the x4-packed FP8 container
  dtype (``<support>.dtype.float8_e4m3fn_x4``). A missing or malformed config
  is ``NCC_EVRF036``.
* ``__op$block_scaled_dot`` (scaled matmul) -> the ordinary ``DotOp`` of
  :func:`.dots.print_dot_op` with srcs ``[lhs, rhs, lhs_scale, rhs_scale]``,
  the four dimension lists from ``scaled_dot_backend_config``,
  ``op='mhlo.scaled_dot'`` and ``element_dtype``.
* ``AwsNeuronDevicePrint`` -> ``DevicePrintOp`` with
  ``xla_op='mhlo.device_print'`` then ``prefix=`` the backend config text.
* ``AwsFSPattern5`` -> ``SoftmaxOp(dim=)`` (the softmax that ``convert-fs-pattern-to-custom-calls`` matched).
* ``AliasingCopy``, ``AwsNeuronTransferWithStaticRing`` and the sharding
  markers -> ``CopyOp`` (identity); ``AwsNeuronControlDep`` ->
  ``ControlDepOp`` (result ``i`` is operand ``i``; the rest are ordering
  dependencies).
* ``check.expect_*`` (the StableHLO interpreter test suite) -> ``CheckOp``.
* ``mhlo.<op>`` (an mhlo op without a StableHLO equivalent, as
  ``hlo-legalize-to-stablehlo`` writes it) -> the op's own statement with
  the ``mhlo.attributes`` as keyword arguments and ``called_computations``
  as region functions.

Backend configs are read from ``backend_config`` (a JSON string, or a
dictionary with ``api_version = 4``) or ``mhlo.backend_config`` (a
dictionary); dictionaries keep their integers as ``int``. Unknown targets are
rejected by :func:`.supported.unsupported_reason` before any emitter runs.
"""

from __future__ import annotations

import json

from hilo_mlir.printers import supported as _sup
from hilo_mlir.printers.attr_text import dtype_name
from hilo_mlir.printers.dots import print_dot_op
from hilo_mlir.printers.regions import print_region_function, reducer_hint
from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.support.pysource import py_literal


def _target(op) -> str:
    return _sup.custom_call_target(op)


def attr_to_python(attr):
    """An MLIR attribute as a Python object (for configs): int/float/bool/str/list/dict, nested to any depth.

    Arrays and dictionaries are converted without recursion (a config may nest
    as deep as the parser allows).
    """
    root: list = [None]
    stack = [(attr, root, 0)]  # (attribute, container to fill, key or index in it)
    while stack:
        a, into, where = stack.pop()
        value, children = _scalar_or_container(a)
        into[where] = value
        for child, key in children:
            stack.append((child, value, key))
    return root[0]


def _scalar_or_container(attr):
    """``(python value, [(child attribute, key)])``: a scalar with no children, or an empty list/dict to fill."""
    from hilo_mlir.ir.binding import ir

    a = attr.maybe_downcast()
    if isinstance(a, ir.BoolAttr):
        return bool(a.value), ()
    if isinstance(a, ir.IntegerAttr):
        return int(a.value), ()
    if isinstance(a, ir.FloatAttr):
        return float(a.value), ()
    if isinstance(a, ir.StringAttr):
        return a.value, ()
    if isinstance(a, ir.ArrayAttr):
        items = list(a)
        return [None] * len(items), [(x, i) for i, x in enumerate(items)]
    if isinstance(a, (ir.DenseI64ArrayAttr, ir.DenseI32ArrayAttr)):
        return [int(x) for x in a], ()
    if isinstance(a, ir.DictAttr):
        named = [a[i] for i in range(len(a))]
        return {na.name: None for na in named}, [(na.attr, na.name) for na in named]
    if isinstance(a, (ir.DenseIntElementsAttr, ir.DenseFPElementsAttr)):
        from hilo_mlir.printers.literals import dense_to_numpy

        return dense_to_numpy(attr).tolist(), ()
    return str(attr), ()


def config_attr(op):
    """The raw backend config attribute of a custom call (``backend_config`` or ``mhlo.backend_config``), or None."""
    attrs = op.attributes
    for key in ("backend_config", "mhlo.backend_config"):
        if key in attrs:
            return attrs[key]
    return None


def json_config(op, required: bool) -> dict:
    """The backend config as a dict.

    A JSON string is parsed; a dictionary attribute is converted (integers
    stay ``int``). An empty or absent config gives ``{}`` unless ``required``.

    Raises:
        HiloError: ``NCC_EVRF036`` when the config is required and missing, or
            is not a JSON object / dictionary.
    """
    from hilo_mlir.ir.binding import ir

    a = config_attr(op)
    target = _target(op)
    if a is None or (a.typeid == ir.StringAttr.static_typeid and not ir.StringAttr(a).value.strip()):
        if required:
            raise HiloError(f"custom_call @{target}: backend_config is missing", loc=op.location, code="NCC_EVRF036")
        return {}
    if a.typeid == ir.StringAttr.static_typeid:
        text = ir.StringAttr(a).value
        try:
            cfg = json.loads(text)
        except RecursionError:
            raise HiloError(
                f"custom_call @{target}: backend_config JSON nests too deeply to be read", loc=op.location, code="NCC_EVRF036"
            ) from None
        except ValueError as e:
            raise HiloError(f"custom_call @{target}: malformed JSON backend_config ({e})", loc=op.location, code="NCC_EVRF036") from None
    else:
        cfg = attr_to_python(a)
    if not isinstance(cfg, dict):
        raise HiloError(f"custom_call @{target}: backend_config is not a JSON object", loc=op.location, code="NCC_EVRF036")
    return cfg


def _rank(v) -> int:
    from hilo_mlir.ir.binding import ir

    return ir.RankedTensorType(v.type).rank


def _elem(v) -> str:
    from hilo_mlir.ir.binding import ir

    return str(ir.RankedTensorType(v.type).element_type)


def _shown(v) -> str:
    """A config value for an error message: its literal (no recursion, any nesting), at most 80 characters."""
    try:
        text = py_literal(v)
    except TypeError:
        text = type(v).__name__
    return text if len(text) <= 80 else text[:77] + "..."


def _cfg_int(op, cfg, key, default) -> int:
    v = cfg.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int):
        try:
            if isinstance(v, (str, float)):
                return int(str(v), 10)
        except ValueError:
            pass
        raise HiloError(
            f"custom_call @{_target(op)}: backend_config '{key}' must be an integer, got {_shown(v)}", loc=op.location, code="NCC_EVRF036"
        )
    return v


def _cfg_list(op, cfg, key, default) -> list[int]:
    v = cfg.get(key, default)
    if not isinstance(v, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise HiloError(
            f"custom_call @{_target(op)}: backend_config '{key}' must be a list of integers, got {_shown(v)}",
            loc=op.location,
            code="NCC_EVRF036",
        )
    return list(v)


def _meta(target: str) -> tuple[str, str]:
    return ("target_name", py_literal(target))


def _dict_config_items(p, op) -> list[tuple[str, str]]:
    """``backend_config={...}`` when the config is a dictionary (api_version 4): a Python dict, integers as ``int``."""
    from hilo_mlir.ir.binding import ir

    a = config_attr(op)
    if a is not None and a.typeid == ir.DictAttr.static_typeid:
        return [("backend_config", p.attr_value(a))]
    return []


# -- emitters --------------------------------------------------------------------------------

#: the FP8 ``dtype`` of a QuantizeMX config -> the container dtype of its ``ui32`` (x4-packed) data result
_X4_CONTAINERS = {"float8_e5m2": "float8_e5m2_x4", "float8_e4m3fn": "float8_e4m3fn_x4"}


def emit_quantize_mx(p, rec, target) -> None:
    """``QuantizeMX`` -> ``QuantizeMXTensorOp``.

    Raises:
        HiloError: ``NCC_EVRF036`` for a missing/malformed config, a non-string
            ``dtype``, a ``dim`` out of range.

    A ``ui32`` data result with an FP8 ``dtype`` gets the x4-packed container
    dtype ``<support>.dtype.float8_*_x4``; with any other ``dtype`` it keeps
    its own (``uint32``).
    """
    op = rec.op
    cfg = json_config(op, required=True)
    if len(op.operands) < 1 or len(op.results) < 1:
        raise HiloError(f"custom_call @{target} needs an operand and a result", loc=op.location)
    dtype = cfg.get("dtype", "")
    if not isinstance(dtype, str):
        raise HiloError(f"custom_call @{target}: backend_config 'dtype' must be a string", loc=op.location, code="NCC_EVRF036")
    rank = _rank(op.operands[0])
    dim = _cfg_int(op, cfg, "dim", 0)
    if dim < 0:
        dim += rank
    if not 0 <= dim < max(rank, 1):
        raise HiloError(f"custom_call @{target}: dim {cfg.get('dim')} is out of range for rank {rank}", loc=op.location, code="NCC_EVRF036")
    block_size = _cfg_int(op, cfg, "block_size", 32)
    scale_method = cfg.get("scale_method", "EMAX")
    from hilo_mlir.ir.binding import ir

    dsts = [p.spec(t) for t in rec.types]
    packed = _X4_CONTAINERS.get(dtype)
    if packed is not None and str(ir.RankedTensorType(rec.types[0]).element_type) == "ui32":
        rt = ir.RankedTensorType(rec.types[0])  # four FP8 codes per word: the packed container dtype
        dsts[0] = f"{p.mod('ir')}.TensorSpec(shape={py_literal(tuple(int(d) for d in rt.shape))}, dtype={p.mod('support')}.dtype.{packed})"
    attrs = [
        ("mx_dtype", py_literal(dtype)),
        ("dim", str(dim)),
        ("block_size", str(block_size)),
        ("scale_method", py_literal(str(scale_method))),
        _meta(target),
    ]
    # the binary's form: target_name then the debug location, no xla_op tag
    p.statement(rec, "QuantizeMXTensorOp", attrs, dst_specs=dsts, module_sub="ir.Intrinsics", with_xla=False)


def emit_scaled_dot(p, rec, target) -> None:
    """Scaled matmul -> ``DotOp`` with the four dimension lists and ``op='mhlo.scaled_dot'``.

    Raises:
        HiloError: not 4 operands and 1 result; ``NCC_EVRF036`` for a malformed ``scaled_dot_backend_config``.
    """
    op = rec.op
    if len(op.operands) != 4 or len(op.results) != 1:
        raise HiloError(f"custom_call @{target} needs 4 operands (lhs, rhs, lhs_scale, rhs_scale) and 1 result", loc=op.location)
    cfg = json_config(op, required=False)
    inner = cfg.get("scaled_dot_backend_config", {})
    if not isinstance(inner, dict):
        raise HiloError(f"custom_call @{target}: 'scaled_dot_backend_config' must be an object", loc=op.location, code="NCC_EVRF036")
    r = _rank(op.operands[0])
    batch = list(range(max(r - 2, 0)))
    lb = _cfg_list(op, inner, "lhs_batch_dimensions", batch)
    rb = _cfg_list(op, inner, "rhs_batch_dimensions", batch)
    lc = _cfg_list(op, inner, "lhs_contracting_dimensions", [r - 1])
    rc = _cfg_list(op, inner, "rhs_contracting_dimensions", [_rank(op.operands[1]) - 1])
    for key, dims, rank in (
        ("lhs_batch_dimensions", lb, r),
        ("rhs_batch_dimensions", rb, _rank(op.operands[1])),
        ("lhs_contracting_dimensions", lc, r),
        ("rhs_contracting_dimensions", rc, _rank(op.operands[1])),
    ):
        if any(not 0 <= d < rank for d in dims):
            raise HiloError(f"custom_call @{target}: {key} {dims} is out of range for rank {rank}", loc=op.location, code="NCC_EVRF036")
    elem = inner.get("element_dtype", dtype_name(_elem(op.results[0])))
    print_dot_op(p, rec, (lb, rb, lc, rc), "mhlo.scaled_dot", [("element_dtype", py_literal(str(elem)))])


def emit_device_print(p, rec, target) -> None:
    """Device print -> ``DevicePrintOp(srcs, dsts, xla_op='mhlo.device_print', prefix='<text>', dl=...)``, nothing else."""
    op = rec.op
    from hilo_mlir.ir.binding import ir

    a = config_attr(op)
    if a is not None and a.typeid == ir.DictAttr.static_typeid:
        v = attr_to_python(a).get("prefix", "")
        prefix = v if isinstance(v, str) else py_literal(v)  # py_literal: no recursion, whatever the nesting
    else:
        prefix = ir.StringAttr(a).value if a is not None and a.typeid == ir.StringAttr.static_typeid else ""
    p.statement(rec, "DevicePrintOp", [("prefix", py_literal(prefix))], xla_op="mhlo.device_print", xla_first=True)


#: the memo tag of the softmax statements (:meth:`~.emit.Emitter.operand_memo_key`), the only memoised custom calls
SOFTMAX_MEMO_TAG = "softmax"


def emit_softmax(p, rec, target) -> None:
    """``AwsFSPattern5`` -> ``SoftmaxOp(dim=)`` (config ``{"dim": <int>}``).

    Raises:
        HiloError: not one operand and one result; ``NCC_EVRF036`` for a missing or out-of-range ``dim``.
    """
    key = _softmax_memo_key(p, rec)
    if key is not None and p.statement_from_memo(rec, key):
        return
    op = rec.op
    cfg = json_config(op, required=True)
    if len(op.operands) != 1 or len(op.results) != 1:
        raise HiloError(f"custom_call @{target} needs one operand and one result", loc=op.location)
    rank = _rank(op.operands[0])
    if "dim" not in cfg:
        raise HiloError(f"custom_call @{target}: backend_config has no 'dim'", loc=op.location, code="NCC_EVRF036")
    dim = _cfg_int(op, cfg, "dim", 0)
    if dim < 0:
        dim += rank
    if not 0 <= dim < rank:
        raise HiloError(f"custom_call @{target}: dim {cfg['dim']} is out of range for rank {rank}", loc=op.location, code="NCC_EVRF036")
    p.statement(rec, "SoftmaxOp", [("dim", str(dim)), _meta(target)], memo=(key, 0) if key is not None else None)


def _softmax_memo_key(p, rec):
    """The key of a softmax's statement memo (:meth:`~.emit.Emitter.statement_from_memo`), or None (not memoised).

    What :func:`emit_softmax` prints, and whether it refuses the op, is a function of the op
    name, the attributes (target, backend config), the result types, the location, the operand
    count and the operand's type alone (the printer's fast paths only: the checking printer
    keeps no memo).
    """
    if len(rec.srcs) != 1:
        return None
    return p.operand_memo_key(SOFTMAX_MEMO_TAG, rec)


def emit_copy(p, rec, target) -> None:
    """Copies and identity markers -> ``CopyOp``: result ``i`` is operand ``i``.

    ``AliasingCopy`` comes in two forms: one operand (a plain copy,
    tensorizer-legalization's StableHLO twin) or ``(value, donated input)``
    (legalize-alias: the value written into the input's buffer; operand 1
    only names the buffer and ``output_operand_aliases`` is printed).
    ``AwsNeuronTransferWithStaticRing`` and the sharding markers take one
    operand.
    """
    op = rec.op
    n = len(op.results)
    if n == 0 or n > len(op.operands) or any(a.type != r.type for a, r in zip(op.operands, op.results)):
        raise HiloError(f"custom_call @{target}: result i must have the type of operand i (it is printed as a copy)", loc=op.location)
    if target != "AliasingCopy" and len(op.operands) != n:
        raise HiloError(f"custom_call @{target} must have as many operands as results", loc=op.location)
    items = [_meta(target)]
    if "output_operand_aliases" in op.attributes:
        items.append(("output_operand_aliases", p.attr_value(op.attributes["output_operand_aliases"])))
    p.statement(rec, "CopyOp", items + _dict_config_items(p, op))


def emit_control_dep(p, rec, target) -> None:
    """``AwsNeuronControlDep`` -> ``ControlDepOp``: result ``i`` is operand ``i``, later operands order it."""
    op = rec.op
    if len(op.results) > len(op.operands) or any(a.type != r.type for a, r in zip(op.operands, op.results)):
        raise HiloError(f"custom_call @{target}: result i must have the type of operand i", loc=op.location)
    p.statement(rec, "ControlDepOp", [_meta(target)] + _dict_config_items(p, op))


def emit_check(p, rec, target) -> None:
    """``check.expect_*`` (interpreter test suite) -> ``CheckOp(check='expect_eq', ...)``."""
    op = rec.op
    items = [("check", py_literal(target.split(".", 1)[1])), _meta(target)]
    items.extend(_dict_config_items(p, op))
    p.statement(rec, "CheckOp", items)


def emit_mhlo_op(p, rec, target):
    """``custom_call @mhlo.<op>`` -> the op's own statement (``mhlo.attributes`` as kwargs); a walk generator."""
    op = rec.op
    from hilo_mlir.ir.binding import ir

    attrs = op.attributes
    items = []
    used: set = set()
    if "mhlo.attributes" in attrs:
        d = ir.DictAttr(attrs["mhlo.attributes"])
        for i in range(len(d)):
            items.append((p.key(d[i].name, used), p.attr_value(d[i].attr)))
    py = _sup.custom_call_py_op(target)
    if "called_computations" in attrs:
        names = [ir.FlatSymbolRefAttr(x).value for x in ir.ArrayAttr(attrs["called_computations"])]
        if names:
            results = p.fresh_names(len(rec.results))
            handle = results[0] if results else p.fresh()
            fnames = []
            hint = None
            for n in names:
                f = p.lookup_function(op, n)
                fname, snap = yield print_region_function(p, f.regions[0].blocks[0], handle)
                fnames.append(fname)
                if len(names) == 1:
                    hint = reducer_hint(snap, target.split(".", 1)[1])
            items.append(("regions", "[" + ", ".join(fnames) + "]"))
            if hint:
                items.append(("reducer", py_literal(hint)))
            p.statement(rec, py, items, xla_op=target, result_names=results)
            return
    p.statement(rec, py, items, xla_op=target)


_BY_PY_OP = {
    "QuantizeMXTensorOp": emit_quantize_mx,
    "DotOp": emit_scaled_dot,
    "DevicePrintOp": emit_device_print,
    "SoftmaxOp": emit_softmax,
    "CopyOp": emit_copy,
    "ControlDepOp": emit_control_dep,
    "CheckOp": emit_check,
}

#: target -> emitter; the same keys as supported.CUSTOM_CALL_TARGETS (checked below).
EMITTERS = {t: _BY_PY_OP[py] for t, py in _sup.CUSTOM_CALL_TARGETS.items()}
assert set(EMITTERS) == set(_sup.CUSTOM_CALL_TARGETS)


def emit_custom_call(p, rec):
    """Dispatch one custom call by target (the printer already checked the target is known).

    Returns the emitter's walk generator (``mhlo.<op>`` targets with called computations) or None.
    """
    op = rec.op
    target = _target(op)
    fn = EMITTERS.get(target)
    if fn is None:
        if _sup.custom_call_py_op(target) is None:  # pragma: no cover - check_supported ran first
            raise HiloError(f"unsupported custom_call target '{target}'", loc=op.location)
        fn = emit_mhlo_op
    return fn(p, rec, target)


emit_custom_call.memo_tag = SOFTMAX_MEMO_TAG  # type: ignore[attr-defined]  # the walker writes memo hits
