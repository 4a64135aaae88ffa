"""The attributes that describe a program's interface, read with one located error each.

Input modules are untrusted data: an attribute the spine reads may hold any
attribute kind. Every pass and printer that reads one of these reads it here,
so a malformed value is ``file:line:col: error: '<name>' must be ...`` at the
op that holds it, never an internal error:

=========================  ===========================  ==========================================
attribute                  where                        must be
=========================  ===========================  ==========================================
``slowChangingIns``,       ``main``                     argument / result indices: dense integer
``slowChangingOuts``                                    elements of rank <= 1, ``array<i32|i64: ...>``
                                                        or ``[1 : i32, ...]``; each in [0, 2^31)
``input_names``,           ``main``                     ``["a", "b"]`` (an array of strings)
``output_names``
``neuron.input_names``,    the module                   the same
``neuron.output_names``
``jax.result_info``        a result of ``main``         a string
``tf.aliasing_output``     an argument of ``main``      an integer in [0, 2^31)
=========================  ===========================  ==========================================

:func:`check_interface` checks every one of them at once (the driver runs it
before the spine; the passes and the printer that read them read through
:func:`index_list` / :func:`name_list` / :func:`arg_res_value`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

from hilo_mlir.support.diagnostics import HiloError

if TYPE_CHECKING:
    from hilo_mlir.ir.binding import ir
    from hilo_mlir.ir.handles import Op

INDEX_LISTS = ("slowChangingIns", "slowChangingOuts")
NAME_LISTS = ("input_names", "output_names")
MODULE_NAME_LISTS = ("neuron.input_names", "neuron.output_names")
#: argument / result attributes: name -> (``arg_attrs`` or ``res_attrs``, kind)
ARG_RES = {"jax.result_info": ("res_attrs", "string"), "tf.aliasing_output": ("arg_attrs", "index")}

_MAX_INDEX = 2**31


def _shown(attr: ir.Attribute) -> str:

    text = str(attr)
    return text if len(text) <= 80 else text[:77] + "..."


def _int_value(a: ir.Attribute) -> int | None:
    """The value of an integer attribute, or None for any other kind (or a value the binding cannot read)."""
    from hilo_mlir.ir.binding import ir

    if a.typeid != ir.IntegerAttr.static_typeid:
        return None
    try:
        return int(ir.IntegerAttr(a).value)
    except (ValueError, TypeError, OverflowError):
        return None


def index_list(op: Op, key: str) -> list[int]:
    """The indices of ``op``'s attribute ``key`` (``[]`` when absent).

    Raises:
        HiloError: located at ``op``: not one of the accepted forms (module
            docstring), or an index outside [0, 2^31).
    """
    from hilo_mlir.ir.binding import ir

    attrs = op.attributes
    if key not in attrs:
        return []
    a = attrs[key]
    values: list[int | None] | None = None
    try:
        down = a.maybe_downcast()
        if isinstance(down, (ir.DenseI64ArrayAttr, ir.DenseI32ArrayAttr)):
            values = [int(x) for x in down]
        elif isinstance(down, ir.ArrayAttr):
            values = [_int_value(x) for x in down]
        elif isinstance(down, ir.DenseIntElementsAttr):
            t = ir.RankedTensorType(down.type)
            if t.rank <= 1 and isinstance(t.element_type, ir.IntegerType) and ir.IntegerType(t.element_type).width <= 64:
                import numpy as np

                values = [int(x) for x in np.array(ir.DenseElementsAttr(a)).reshape(-1)]
    except (ValueError, TypeError, OverflowError, IndexError):
        values = None
    if values is None or any(v is None or not 0 <= v < _MAX_INDEX for v in values):
        raise HiloError(
            f"'{key}' must be a list of indices in [0, 2^31) (dense<[0, 2]> : tensor<2xi32>, array<i64: 0, 2> or [0 : i32, 2 : i32]), "
            f"got {_shown(a)}",
            loc=op.location,
        )
    return [v for v in values if v is not None]  # none is None (checked above)


def name_list(op: Op, key: str) -> list[str] | None:
    """The strings of ``op``'s attribute ``key`` (None when absent).

    Raises:
        HiloError: located at ``op``: not an array of strings.
    """
    from hilo_mlir.ir.binding import ir

    attrs = op.attributes
    if key not in attrs:
        return None
    a = attrs[key]
    if a.typeid == ir.ArrayAttr.static_typeid:
        arr = ir.ArrayAttr(a)
        items = [arr[i] for i in range(len(arr))]
        if all(x.typeid == ir.StringAttr.static_typeid for x in items):
            return [ir.StringAttr(x).value for x in items]
    raise HiloError(f'\'{key}\' must be an array of strings (["a", "b"]), got {_shown(a)}', loc=op.location)


def _dicts(f: Op, key: str) -> list[ir.DictAttr]:
    """The ``arg_attrs`` / ``res_attrs`` dictionaries of ``f`` ([] when absent; the verifier checked their form)."""
    from hilo_mlir.ir.binding import ir

    if key not in f.attributes:
        return []
    arr = ir.ArrayAttr(f.attributes[key])
    return [ir.DictAttr(arr[i]) for i in range(len(arr))]


def arg_res_value(f: Op, name: str, d: ir.DictAttr | Mapping[str, ir.Attribute]) -> str | int | None:
    """The value of attribute ``name`` (a key of :data:`ARG_RES`) in the argument/result dictionary ``d`` of ``f``, or None.

    Raises:
        HiloError: located at ``f``: a ``jax.result_info`` that is not a string, a
            ``tf.aliasing_output`` that is not an integer in [0, 2^31).
    """
    from hilo_mlir.ir.binding import ir

    if name not in d:
        return None
    a = d[name]
    kind = ARG_RES[name][1]
    if kind == "string":
        if a.typeid == ir.StringAttr.static_typeid:
            return ir.StringAttr(a).value
        raise HiloError(f"'{name}' must be a string, got {_shown(a)}", loc=f.location)
    v = _int_value(a)
    if v is None or not 0 <= v < _MAX_INDEX:
        raise HiloError(f"'{name}' must be an integer in [0, 2^31), got {_shown(a)}", loc=f.location)
    return v


def aliasing_output(f: Op, d: ir.DictAttr | Mapping[str, ir.Attribute]) -> int | None:
    """``tf.aliasing_output`` of one argument dictionary ``d`` of ``f`` (the result index it aliases), or None.

    Raises:
        HiloError: located at ``f``: not an integer in [0, 2^31).
    """
    v = arg_res_value(f, "tf.aliasing_output", d)
    assert v is None or isinstance(v, int)  # an integer kind: arg_res_value raised otherwise
    return v


def result_infos(f: Op) -> list[str | None]:
    """``jax.result_info`` of each result of ``f`` (None where absent)."""

    return [cast("str | None", arg_res_value(f, "jax.result_info", d)) for d in _dicts(f, "res_attrs")]  # a string kind


def check_interface(module_op: Op, main: Op) -> None:
    """Check every interface attribute of the module and of ``main`` (the table in the module docstring).

    Raises:
        HiloError: the first malformed one, located at the op that holds it.
    """

    for key in INDEX_LISTS:
        index_list(main, key)
    for key in NAME_LISTS:
        name_list(main, key)
    for key in MODULE_NAME_LISTS:
        name_list(module_op, key)
    for name, (holder, _kind) in ARG_RES.items():
        for d in _dicts(main, holder):
            arg_res_value(main, name, d)
