"""Ops with regions: each region a Python function, passed to the op's statement (format section 7).

``reduce``, ``sort``, ``while``, ``case``, ... print as

    def v5(v6, v7):
        v8 = m1.AddOp(srcs=[v6, v7], ..., dl=m2.DebugLocation(..., parent='v4'))
        return [v8]
    v4 = m1.ReduceOp(srcs=[...], ..., regions=[v5], reducer='add', xla_op=..., dl=...)

The function's parameters are the region's block arguments; it returns the
terminator's operands. ``reducer=`` names the body when it is one
commutative binary op of the two arguments (or, for ``scatter``, the
update returned unchanged).
"""

from __future__ import annotations

from ..diagnostics import HiloError
from . import supported as _sup
from .driver import TERMINATORS

#: reducer bodies recognised for the ``reducer=`` hint
REDUCER_HINTS = {
    "add": "add", "multiply": "multiply", "maximum": "maximum", "minimum": "minimum",
    "and": "and", "or": "or", "xor": "xor",
}
_REDUCE_LIKE = ("reduce", "reduce_window", "all_reduce", "reduce_scatter", "scatter", "map")


def print_region_op(p, op, py_op: str | None = None, attrs=None, skip=()) -> None:
    """An op with regions: result names first, one ``def`` per region, then the statement.

    Raises:
        HiloError: a region with more than one block.
    """
    results = p.fresh_names(len(op.results))
    handle = results[0] if results else p.fresh()
    fnames = []
    hint = None
    for region in op.regions:
        blocks = list(region.blocks)
        if len(blocks) != 1:
            raise HiloError(f"'{op.name}' op: regions with {len(blocks)} blocks are not supported", loc=op.location)
        fnames.append(print_region_function(p, blocks[0], handle))
    short = _sup.hlo_short(op.name)
    if len(op.regions) == 1 and short in _REDUCE_LIKE:
        hint = reducer_hint(list(op.regions[0].blocks)[0], short)
    items = list(attrs) if attrs is not None else p.attr_items(op, skip=skip)
    items.append(("regions", "[" + ", ".join(fnames) + "]"))
    if hint:
        items.append(("reducer", repr(hint)))
    p.statement(op, py_op, items, result_names=results)


def print_region_function(p, block, parent: str) -> str:
    """``def v<N>(<block args>): <body>; return [<terminator operands>]``; returns the function name."""
    fname = p.fresh()
    args = list(block.arguments)
    params = p.fresh_names(len(args))
    p.bind_args(block, args, params)
    p.write(f"def {fname}({', '.join(params)}):")
    outer = p.indent
    p.indent = outer + "    "
    p.parent_stack.append(parent)
    try:
        rets = p.print_block(block)
        p.write(f"return [{', '.join(p.names_of(rets))}]")
    finally:
        p.parent_stack.pop()
        p.indent = outer
    return fname


def reducer_hint(block, short: str) -> str | None:
    """The ``reducer=`` hint: the body is one commutative binary op of the two block args, returned."""
    ops = [o.operation for o in block.operations]
    args = list(block.arguments)
    if len(args) != 2 or len(ops) not in (1, 2):
        return None
    term = ops[-1]
    if term.name not in TERMINATORS or len(term.operands) != 1:
        return None
    if len(ops) == 1:
        if short == "scatter" and term.operands[0] == args[1]:
            return "replace"
        return None
    body = ops[0]
    bshort = _sup.hlo_short(body.name)
    if bshort not in REDUCER_HINTS or len(body.operands) != 2 or len(body.results) != 1:
        return None
    if term.operands[0] != body.results[0]:
        return None
    a, b = body.operands[0], body.operands[1]
    if (a == args[0] and b == args[1]) or (a == args[1] and b == args[0]):
        return REDUCER_HINTS[bshort]
    return None
