"""Groups: fusions, composites and calls printed as header, body, ``setResults`` (format section 6).

A group is an op whose meaning is a block printed in place: the region of an
``mhlo.fusion``, the decomposition of a ``stablehlo.composite``, the callee
of a ``func.call``. :func:`print_group` writes

1. the header statement (``NeuronTensorOp``, ``CompositeOp`` or ``CallOp``
   from ``<root>.frontend.XlaFE``), whose handle becomes the ``parent=`` of
   the body ops -- unless the group is transparent (``ScheduleFusion``);
2. the body, with the block's arguments bound to the group's operand names;
3. ``<handle>.setResults([...])`` with the names the body returns, which
   from then on *are* the group's results.

:func:`print_kind_group` adds the summary keywords of a FusionKind /
CompositeKind (the tables are in :mod:`.supported`; the dispatch on the
kind attribute is in :mod:`.mhlo` and :mod:`.stablehlo`).
"""

from __future__ import annotations

from ..diagnostics import HiloError
from . import supported as _sup
from .emit import format_statement, keyword_text


def print_group(p, op, header: str | None, attrs, block, xla_op: str) -> None:
    """Header statement (unless ``header`` is None: transparent), body, ``setResults``.

    The body block's arguments are bound to the group's operand names (a
    body without arguments captures the operands implicitly); the group's
    results are bound to the names the body returns.

    Raises:
        HiloError: operand/argument or result/return count mismatch.
    """
    operand_names = p.names_of(op.operands)
    args = list(block.arguments)
    # A body without arguments reads the operands by implicit capture (XLA-style fusions).
    if args and len(args) != len(operand_names):
        raise HiloError(f"'{op.name}' op has {len(operand_names)} operands but its body takes {len(args)} arguments",
                        loc=op.location)
    handle = None
    if header is not None:
        handle = _write_header(p, op, header, attrs, operand_names, xla_op)
        p.parent_stack.append(handle)
    try:
        if args:
            p.bind_args(block, args, operand_names)
        rets = p.print_block(block)
    finally:
        if handle is not None:
            p.parent_stack.pop()
    if len(rets) != len(op.results):
        raise HiloError(f"'{op.name}' op has {len(op.results)} results but its body returns {len(rets)} values",
                        loc=op.location)
    ret_names = p.names_of(rets)
    if handle is not None:
        p.write(f"{handle}.setResults([{', '.join(ret_names)}])")
    p.bind_results(op.results, ret_names)


def _write_header(p, op, header: str, attrs, operand_names, xla_op: str) -> str:
    """The group's header statement; returns its handle name."""
    p.per_op_counter[op.name] = p.per_op_counter.get(op.name, 0) + 1
    handle = p.fresh()
    dsts = p.dsts_of(tuple(op.results.types))
    keywords = keyword_text(attrs) + f", xla_op={xla_op!r}"
    dl = p.debug_location(op.location)
    callee = f"{p.mod('frontend.XlaFE')}.{header}"
    p.lines.append(format_statement(p.indent, [handle], callee, operand_names, dsts, keywords, dl))
    return handle


def print_call(p, op) -> None:
    """``func.call``: the callee inlined at the call site behind a ``CallOp`` header (section 6).

    Raises:
        HiloError: an unknown callee; a recursive call (naming the call chain).
    """
    from ..ir import ir

    callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
    if callee in p.call_stack:
        raise HiloError(f"recursive call to @{callee} cannot be printed (call chain: "
                        + " -> ".join("@" + c for c in p.call_stack + [callee]) + ")", loc=op.location)
    f = p.lookup_function(op, callee)
    p.call_stack.append(callee)
    try:
        print_group(p, op, "CallOp", [("callee", repr(callee))], f.regions[0].blocks[0], "func.call")
    finally:
        p.call_stack.pop()


def print_kind_group(p, op, py_name, hilo_fusion_op, kind, block) -> None:
    """The summary ``NeuronTensorOp`` (``op=``, ``hilo_fusion_op=``, ``reduce_dims=``) then the body.

    ``py_name`` None is the transparent ScheduleFusion (no header).

    Raises:
        HiloError: a MulRedSqrt group without a ``reduce`` in its body.
    """
    if py_name is None:  # ScheduleFusion: transparent
        print_group(p, op, None, (), block, "mhlo.fusion")
        return
    items = [("op", repr(py_name))]
    if hilo_fusion_op is not None:
        items.append(("hilo_fusion_op", repr(hilo_fusion_op)))
    if kind == "MulRedSqrt":
        red = None
        for o in block.operations:
            if _sup.hlo_short(o.operation.name) == "reduce":
                red = o.operation
                break
        if red is None:
            raise HiloError(f"MulRedSqrt '{op.name}' has no reduce in its body (reduce_dims)", loc=op.location)
        items.append(("reduce_dims", p.attr_value(red.attributes["dimensions"])))
    print_group(p, op, "NeuronTensorOp", items, block, "mhlo.fusion")
