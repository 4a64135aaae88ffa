"""Ops with regions: each region a Python function, passed to the op's statement (format section 7).

``reduce``, ``sort``, ``while``, ``case``, ... print as

    def v5(v6, v7):
        v8 = m1.AddOp(srcs=[v6, v7], ..., dl=m2.DebugLocation(..., parent='v4'))
        return [v8]
    v4 = m1.ReduceOp(srcs=[...], ..., regions=[v5], reducer='add', xla_op=..., dl=...)

The function's parameters are the region's block arguments; it returns the
terminator's operands. Every region function is a module-level ``def``, also
for a region nested in another region's body: a name such a function reads
from an enclosing region function is passed to it after the block arguments
(``regions=[lambda v10: v9(v10, v7)]``), so the program's indentation never
exceeds one level, whatever the nesting depth. ``reducer=`` names the body when it is one
commutative binary op of the two arguments (or, for ``scatter``, the
update returned unchanged).
"""

from __future__ import annotations

from hilo_mlir.printers import supported as _sup
from hilo_mlir.printers.records import statement_parts
from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.support.pysource import py_literal

#: reducer bodies recognised for the ``reducer=`` hint
REDUCER_HINTS = {
    "add": "add",
    "multiply": "multiply",
    "maximum": "maximum",
    "minimum": "minimum",
    "and": "and",
    "or": "or",
    "xor": "xor",
}
_REDUCE_LIKE = ("reduce", "reduce_window", "all_reduce", "reduce_scatter", "scatter", "map")


def print_region_op(p, rec, py_op: str | None = None, attrs=None, skip=()):
    """Walk generator: an op with regions -- result names first, one ``def`` per region, then the statement.

    Raises:
        HiloError: a region with more than one block.
    """
    op = rec.op
    results = p.fresh_names(len(rec.results))
    handle = results[0] if results else p.fresh()
    fnames = []
    snaps = []
    for region in op.regions:
        blocks = list(region.blocks)
        if len(blocks) != 1:
            raise HiloError(f"'{op.name}' op: regions with {len(blocks)} blocks are not supported", loc=op.location)
        fname, snap = yield print_region_function(p, blocks[0], handle)
        fnames.append(fname)
        snaps.append(snap)
    short = _sup.hlo_short(rec.name)
    hint = reducer_hint(snaps[0], short) if len(snaps) == 1 and short in _REDUCE_LIKE else None
    regions = "[" + ", ".join(fnames) + "]"
    key = _memo_key(p, rec, hint) if py_op is None and attrs is None and not skip else None
    parts = p.region_stmts.get(key) if key is not None else None
    if parts is not None:
        _statement_from_parts(p, rec, results, parts, regions)
        return
    items = list(attrs) if attrs is not None else p.attr_items(rec, skip=skip)
    items.append(("regions", regions))
    if hint:
        items.append(("reducer", py_literal(hint)))
    p.statement(rec, py_op, items, result_names=results)
    if key is not None:
        p.region_stmts[key] = _statement_parts(p, rec, items)


def _memo_key(p, rec, hint: str | None):
    """The key of a region op's statement parts (:attr:`~.emit.Emitter.region_stmts`), or None (not memoised).

    Around its operand names and its ``regions=[...]`` list, the statement of an op printed
    with its own attributes is a function of the op name, the result types, the location,
    the attributes and the ``reducer=`` hint alone (the fast printer only).
    """
    if rec.items is None or not p.fast_paths:
        return None
    return (rec.name, rec.tkeys, rec.lkey, tuple(rec.items), hint)


#: stands for the ``regions=[...]`` text while a region op's statement is cut into parts (never in rendered text:
#: every input-derived text is quoted by py_literal, which escapes control characters)
_REGIONS_CUT = "\x02"


def _statement_parts(p, rec, items) -> tuple[str, str, str]:
    """``(head, mid, tail)`` of the statement :meth:`~.emit.Emitter.statement` just wrote for ``rec`` with ``items``.

    The statement is ``<indent><results> = `` + head + operand names + mid + the ``regions=[...]`` list +
    tail + the location's close + ``)`` (as :func:`~.records.statement_parts` cuts it, with the regions list
    cut out too). Every part was rendered (and every import alias allocated) by the statement already.
    """
    cut = [(k, _REGIONS_CUT if k == "regions" else v) for k, v in items]
    keywords = p.keywords_text(cut, rec.name)
    callee = f"{p.mod('ir')}.{p.py_op_name(rec.name)}"
    head, rest = statement_parts(callee, p.dsts_of(rec), keywords, p.location_base(rec))
    mid, tail = rest.split(_REGIONS_CUT)
    return head, mid, tail


def _statement_from_parts(p, rec, results, parts, regions: str) -> None:
    """Write ``rec``'s statement from memoised parts (:func:`_statement_parts`), as :meth:`~.emit.Emitter.statement` does."""
    name = rec.name
    p.per_op_counter[name] = p.per_op_counter.get(name, 0) + 1
    p.bind_results(rec.results, results)
    src = p.names_of(rec)
    if p.scopes:
        p.refs(src)
    head, mid, tail = parts
    close = p.location_close(p.parent_stack[-1] if p.parent_stack else None)
    lhs = f"{', '.join(results)} = " if results else ""
    p.lines.append(f"{p.indent}{lhs}{head}{', '.join(src)}{mid}{regions}{tail}{close})")


def print_region_function(p, block, parent: str):
    """Walk generator: ``def v<N>(<block args>[, <captures>]): <body>; return [<terminator operands>]``.

    The function is printed at the module level (:meth:`~.emit.Emitter.close_function`).
    Returns ``(what regions=[...] lists for it, snapshot)``: the snapshot is
    ``(argument ids, records, terminator record)`` of the block, for :func:`reducer_hint`.
    """
    fname = p.fresh()
    args = p.block_args(block)
    scope = p.open_function(fname)
    scope.params = p.fresh_names(len(args))
    p.bind_args(block, args, scope.params)
    p.parent_stack.append(parent)
    snapshot = p.read_block(block)
    try:
        ret = yield p.print_block(block, snapshot)
        rets = p.names_of(ret)
        p.refs(rets)
        p.write(f"return [{', '.join(rets)}]")
    finally:
        p.parent_stack.pop()
        use = p.close_function(scope)
    return use, (args,) + snapshot


def reducer_hint(snapshot, short: str) -> str | None:
    """The ``reducer=`` hint: the body is one commutative binary op of the two block args, returned.

    ``snapshot`` is ``(argument ids, records, terminator record)`` of the region's block.
    """
    args, recs, term = snapshot
    if len(args) != 2 or len(recs) > 1 or term.op is None or len(term.srcs) != 1:
        return None
    if not recs:
        if short == "scatter" and term.srcs[0] == args[1]:
            return "replace"
        return None
    body = recs[0]
    bshort = _sup.hlo_short(body.name)
    if bshort not in REDUCER_HINTS or len(body.srcs) != 2 or len(body.results) != 1:
        return None
    if term.srcs[0] != body.results[0]:
        return None
    a, b = body.srcs
    if (a == args[0] and b == args[1]) or (a == args[1] and b == args[0]):
        return REDUCER_HINTS[bshort]
    return None
