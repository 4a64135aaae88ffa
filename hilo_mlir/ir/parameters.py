"""Which entry arguments of ``main`` are parameters (weights): one answer for every pass that asks.

Two sources name a parameter (seed 002 section 4, "Where the weight/parameter
distinction comes from"):

* the ``slowChangingIns`` attribute of the function (``dense<[...]> :
  tensor<Nxi32>``, or an ``i32``/``i64`` array): written by
  ``hilo2penguin --weights`` / ``hilo_mlir.jax.compile(params=...)`` before
  the spine runs, and by ``penguinize-io`` (step 26);
* a ``custom_call @AwsNeuronTransferWithStaticRing`` (either dialect) whose
  operand 0 is an argument of ``main``'s entry block: the marker the HLO side
  puts on a loaded parameter. ``penguinize-io`` strips the markers and records
  their argument numbers in ``slowChangingIns``; passes that run before it
  (``hoist-compute``, step 22) read the markers through
  :func:`marker_parameters` -- the same rule penguinize-io applies.

Only ``main`` has parameters from markers: the seed's PenguinizeFunctions
walks ``main`` alone, so a marker in another function names nothing here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from hilo_mlir.ir.binding import ir

if TYPE_CHECKING:
    from hilo_mlir.ir.handles import Op

#: the call target of the slow-changing-input (parameter) marker
MARKER = "AwsNeuronTransferWithStaticRing"
#: attribute on ``main`` listing the parameter argument numbers
PARAMS_ATTR = "slowChangingIns"


def is_marker(op: Op) -> bool:
    """True for a ``custom_call @AwsNeuronTransferWithStaticRing`` (mhlo or stablehlo)."""
    o = op.operation
    if not o.name.endswith(".custom_call") or "call_target_name" not in o.attributes:
        return False
    return ir.StringAttr(o.attributes["call_target_name"]).value == MARKER


def is_main(func_op: Op) -> bool:
    """True for ``func.func @main``."""
    attrs = func_op.attributes
    return "sym_name" in attrs and ir.StringAttr(attrs["sym_name"]).value == "main"


def marker_argument(marker: Op, func_op: Op) -> int | None:
    """The argument number of ``func_op``'s entry block that ``marker``'s operand 0 is, else None."""
    operands = marker.operation.operands
    if len(operands) == 0:
        return None
    v = operands[0]
    owner = v.owner
    if isinstance(owner, ir.Block) and owner.owner == func_op and owner == func_op.regions[0].blocks[0]:
        return ir.BlockArgument(v).arg_number
    return None


def marker_parameters(func_op: Op, markers: Iterable[Op]) -> set[int]:
    """Argument numbers the markers among ``markers`` name (empty unless ``func_op`` is ``main``).

    Args:
        func_op: the ``func.func`` the ops belong to.
        markers: ops of ``func_op`` (any; those that are not markers are skipped).
    """
    if not is_main(func_op):
        return set()
    out: set[int] = set()
    for op in markers:
        if is_marker(op):
            i = marker_argument(op, func_op)
            if i is not None:
                out.add(i)
    return out


def attribute_parameters(func_op: Op) -> set[int]:
    """The indices in the function's ``slowChangingIns`` (dense int elements or i32/i64 array); empty if absent.

    Raises:
        HiloError: located at the function: the attribute is not a list of indices.
    """
    from hilo_mlir.ir.interface_attrs import index_list

    return set(index_list(func_op, PARAMS_ATTR))


def parameter_indices(func_op: Op, markers: Iterable[Op] = ()) -> set[int]:
    """``slowChangingIns`` of the function plus the arguments the markers among ``markers`` name."""
    return attribute_parameters(func_op) | marker_parameters(func_op, markers)
