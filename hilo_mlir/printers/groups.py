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

from hilo_mlir.ir.dialects import MHLO
from hilo_mlir.printers import supported as _sup
from hilo_mlir.printers.records import format_statement, keyword_text, statement_parts
from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.support.pysource import py_literal

#: the op names :func:`.supported.hlo_short` calls ``reduce``
_REDUCE_NAMES = frozenset(prefix + "reduce" for prefix in _sup.HLO_PREFIXES)


def print_group(p, rec, header: str | None, attrs, block, xla_op: str, snapshot=None):
    """Walk generator: header statement (unless ``header`` is None: transparent), body, ``setResults``.

    The body block's arguments are bound to the group's operand names (a
    body without arguments captures the operands implicitly); the group's
    results are bound to the names the body returns. ``snapshot``: the
    body's :meth:`~.driver.PenguinPrinter.read_block` when the caller read it already.

    Raises:
        HiloError: operand/argument or result/return count mismatch.
    """
    op = rec.op
    operand_names = p.names_of(rec)
    args = p.block_args(block)
    # A body without arguments reads the operands by implicit capture (XLA-style fusions).
    if args and len(args) != len(operand_names):
        raise HiloError(f"'{rec.name}' op has {len(operand_names)} operands but its body takes {len(args)} arguments", loc=op.location)
    handle = None
    if header is not None:
        handle = _write_header(p, rec, header, attrs, operand_names, xla_op)
        p.parent_stack.append(handle)
    try:
        if args:
            p.bind_args(block, args, operand_names)
        ret = yield p.print_block(block, snapshot)
    finally:
        if handle is not None:
            p.parent_stack.pop()
    if len(ret.srcs) != len(rec.results):
        raise HiloError(f"'{rec.name}' op has {len(rec.results)} results but its body returns {len(ret.srcs)} values", loc=op.location)
    ret_names = p.names_of(ret)
    if handle is not None:
        p.refs(ret_names)
        p.write(f"{handle}.setResults([{', '.join(ret_names)}])")
    p.bind_results(rec.results, ret_names)


def _write_header(p, rec, header: str, attrs, operand_names, xla_op: str) -> str:
    """The group's header statement; returns its handle name.

    Its text around the operand names is a function of the header, ``xla_op``,
    ``attrs``, the result types and the location alone: memoised on them
    (:attr:`~.emit.Emitter.header_parts`; not by the checking printer).
    """
    p.per_op_counter[rec.name] = p.per_op_counter.get(rec.name, 0) + 1
    p.refs(operand_names)
    handle = p.fresh()
    key = (header, xla_op, tuple(attrs), rec.tkeys, rec.lkey) if p.fast_paths else None
    parts = p.header_parts.get(key) if key is not None else None
    if parts is None:
        dsts = p.dsts_of(rec)
        keywords = f", xla_op={p.xla_repr(xla_op)}" + keyword_text(attrs)  # headers: xla_op first, then their own keywords
        base = p.location_base(rec)
        dl = p.with_parent(base)
        callee = f"{p.mod('frontend.XlaFE')}.{header}"
        p.lines.append(format_statement(p.indent, [handle], callee, operand_names, dsts, keywords, dl))
        if key is not None:
            p.header_parts[key] = statement_parts(callee, dsts, keywords, base)
        return handle
    head, tail = parts
    close = p.location_close(p.parent_stack[-1] if p.parent_stack else None)
    p.lines.append(f"{p.indent}{handle} = {head}{', '.join(operand_names)}{tail}{close})")  # statement_parts' assembly
    return handle


def print_call(p, rec):
    """Walk generator: ``func.call``, the callee inlined at the call site behind a ``CallOp`` header (section 6).

    Raises:
        HiloError: an unknown callee; a callee that is only a declaration (no body
            to inline); a recursive call (naming the call chain).
    """
    from hilo_mlir.ir.binding import ir

    op = rec.op
    callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
    if callee in p.call_stack:
        raise HiloError(
            f"recursive call to @{callee} cannot be printed (call chain: " + " -> ".join("@" + c for c in p.call_stack + [callee]) + ")",
            loc=op.location,
        )
    f = p.lookup_function(op, callee)
    if not len(f.regions[0].blocks):
        raise HiloError(
            f"call to @{callee} cannot be printed: @{callee} is a declaration without a body "
            "(the printer inlines every callee at its call site)",
            loc=op.location,
        )
    p.call_stack.append(callee)
    try:
        yield print_group(p, rec, "CallOp", [("callee", py_literal(callee))], f.regions[0].blocks[0], "func.call")
    finally:
        p.call_stack.pop()


def print_kind_group(p, rec, py_name, hilo_fusion_op, kind, block):
    """The summary ``NeuronTensorOp`` (``op=``, ``hilo_fusion_op=``, ``reduce_dims=``) then the body; returns the walk.

    ``py_name`` None is the transparent ScheduleFusion (no header).

    Raises:
        HiloError: a MulRedSqrt group without a ``reduce`` in its body.
    """
    if py_name is None:  # ScheduleFusion: transparent
        return print_group(p, rec, None, (), block, MHLO.fusion)
    items = [("op", py_literal(py_name))]
    if hilo_fusion_op is not None:
        items.append(("hilo_fusion_op", py_literal(hilo_fusion_op)))
    snapshot = None
    if kind == "MulRedSqrt":
        if p.fast_paths:  # the first reduce, found by name (the walk stops there): the body is read as it is printed
            red_op = next((o.operation for o in block.operations if o.operation.name in _REDUCE_NAMES), None)
        else:  # the checking printer: the body is read once, here for its reduce, then printed from the snapshot
            snapshot = p.read_block(block)
            red = next((r for r in snapshot[0] if _sup.hlo_short(r.name) == "reduce"), None)
            red_op = red.op if red is not None else None
        if red_op is None:
            raise HiloError(f"MulRedSqrt '{rec.name}' has no reduce in its body (reduce_dims)", loc=rec.op.location)
        items.append(("reduce_dims", p.attr_value(red_op.attributes["dimensions"])))
    return print_group(p, rec, "NeuronTensorOp", items, block, MHLO.fusion, snapshot)
