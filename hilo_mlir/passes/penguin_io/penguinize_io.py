"""Spine step 26: ``penguinize-io`` / ``stablehlo-penguinize-io`` (class ``PenguinizeFunctions``).

Seed 002 section 4 ("Five sequential actions"). One
module-anchored implementation serves both dialects through the dialect table
(the seed: the StableHLO twin "differs ONLY in the mhlo:: <-> stablehlo:: op
names for CustomCallOp, TupleOp and GetTupleElementOp").

The five actions, in order, on ``main``:

1. **Input names.** ``input_names`` (an ``ArrayAttr`` of strings) is taken
   from ``main`` if present, else from the module attribute
   ``neuron.input_names`` (a ``builtin.module`` only accepts dialect-prefixed
   attribute names, so the seed's module-level ``input_names`` is spelled
   that way here), else generated as ``input_<i>``. Its length must equal
   main's argument count. Stamped on ``main`` as ``input_names``.
2. **Find main.** The top-level ``func.func @main``; none is an error.
3. **Strip ``custom_call @AwsNeuronTransferWithStaticRing``** (every one in
   main, nested regions included). Result ``#i`` of the marker is replaced by
   its operand ``#i`` (the loaded value stays; the seed's GOTCHA), then the
   marker is erased. With ``v`` = operand 0: a block argument of main records
   its argument number in ``slowChangingIns``; otherwise each use of ``v`` by
   the returned tuple (any nesting depth) or directly by ``func.return``
   records the *flattened* output position in ``slowChangingOuts``. (The seed
   records the tuple operand number; for the one flat returned tuple of an HLO
   import that is the same number. Using the flattened position keeps the
   index right for nested tuples. Our interpretation.) A marker on a value
   that is neither (e.g. a ``reduce`` result that is not returned) is
   stripped and records nothing.
4. **Stamp** ``slowChangingIns`` / ``slowChangingOuts`` on main as
   ``dense<[...]> : tensor<Nxi32>`` (sorted, unique; ``tensor<0xi32>`` when
   empty; merged with values an earlier run stamped, so the pass is
   idempotent).
5. **Flatten the results of main.** Each tuple-typed return operand is
   replaced by its leaves, depth-first: a tuple built by a ``tuple`` op
   contributes that op's operands; any other tuple value (an argument, a call
   result) is taken apart with ``get_tuple_element``. One-element tuples give
   one leaf, empty tuples none. The function type is rewritten (inputs
   verbatim). Result attributes (``jax.result_info``, ``tf.aliasing_output``,
   ...) move with their result to its flattened position; a tuple result with
   exactly one leaf hands its attributes to that leaf; the attributes of a
   tuple result with several leaves cannot be split and are dropped (counted
   in the ``dropped-result-attrs`` statistic). Output indices that name the
   old results are remapped to flattened positions: the argument attribute
   ``tf.aliasing_output`` and the ``output_index`` of each entry of the module
   attribute ``mhlo.input_output_alias`` (a path into the old result
   structure; rewritten to ``[flat]``, or ``[]`` when main has one result).
   A tuple op that other ops also use stays; only the return is rewritten;
   a tuple op left without users is erased.

Errors (``HiloError`` at the op): no ``main``; ``main`` called by another
function (its type changes); ``input_names`` of the wrong length; a marker
result whose type differs from its operand's; an alias naming a tuple output
with several leaves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import INPUT_OUTPUT_ALIAS_ATTR
from hilo_mlir.ir.interface_attrs import aliasing_output, check_interface, index_list, name_list
from hilo_mlir.ir.parameters import MARKER, is_marker, marker_argument
from hilo_mlir.ir.utils import (
    attr_is,
    dict_items,
    dict_list,
    entry_block,
    find_main,
    func_type,
    int_list_of,
    num_inputs,
    op_key,
    terminator,
)
from hilo_mlir.passmanager.registry import register_twins
from hilo_mlir.support.diagnostics import HiloError, op_error

if TYPE_CHECKING:
    # cast("Buffer", array): numpy's stubs give ndarray the buffer protocol only for Python >= 3.12
    from typing_extensions import Buffer

# --------------------------------------------------------------------------- helpers


def i32_dense(values) -> ir.DenseElementsAttr:
    """``dense<[...]> : tensor<Nxi32>`` (``dense<> : tensor<0xi32>`` for no values)."""
    import numpy as np

    i32 = ir.IntegerType.get_signless(32)
    t = ir.RankedTensorType.get([len(values)], i32)
    return ir.DenseElementsAttr.get(cast("Buffer", np.asarray(list(values), dtype=np.int32)), type=t)


def callee_uses(module_op, name: str) -> list:
    """``func.call`` ops (anywhere in the module) whose callee is ``@name``."""
    found = []

    def visit(op):
        if op.name == "func.call" and ir.FlatSymbolRefAttr(op.attributes["callee"]).value == name:
            found.append(op)
        return ir.WalkResult.ADVANCE

    module_op.walk(visit)
    return found


def _leaf_count(t) -> int:
    if isinstance(t, ir.TupleType):
        return sum(_leaf_count(t.get_type(i)) for i in range(t.num_types))
    return 1


def _leaf_offsets(types) -> list[int]:
    offs, n = [], 0
    for t in types:
        offs.append(n)
        n += _leaf_count(t)
    return offs


# --------------------------------------------------------------------------- the pass


def _input_names(module_op, main, n_args):
    src = None
    for holder, key in ((main, "input_names"), (module_op, "neuron.input_names")):
        if key in holder.attributes:
            src = holder
            break
    if src is None:
        return [f"input_{i}" for i in range(n_args)]
    names = name_list(src, key) or []
    if len(names) != n_args:
        raise HiloError(
            f"'{key}' has {len(names)} names but @main has {n_args} arguments",
            loc=src.location,
        )
    return names


def _return_positions(d, ret, out_types):
    """Map (op_key(operation), operand number) -> flattened output position, for the return tree of main."""
    pos = {}
    offs = _leaf_offsets(out_types)

    def visit(owner, idx, value, base):
        pos[(op_key(owner), idx)] = base
        if not isinstance(value.type, ir.TupleType):
            return
        prod = value.owner if not isinstance(value.owner, ir.Block) else None
        if prod is not None and d.is_op(prod, "tuple"):
            prod = prod.operation
            sub = _leaf_offsets([o.type for o in prod.operands])
            for j, o in enumerate(prod.operands):
                visit(prod, j, o, base + sub[j])

    for i, v in enumerate(ret.operands):
        visit(ret, i, v, offs[i])
    return pos


def _strip_markers(main, d, ctx):
    # The custom calls of main from the census (one walk without a pipeline). "Any marker?" needs no
    # order; the markers are then taken in walk order (the first bad one is the one reported).
    if not any(is_marker(op) for op in ctx.ops_named(main, d.name("custom_call"), any_order=True)):
        return set(), set()
    markers = [op for op in ctx.ops_named(main, d.name("custom_call")) if is_marker(op)]
    ret = terminator(entry_block(main))
    out_types = list(func_type(main).results)
    positions = _return_positions(d, ret, out_types)
    slow_ins, slow_outs = set(), set()
    rw = ctx.rewriter
    for cc in markers:
        operands = list(cc.operands)
        for i, r in enumerate(cc.results):
            if i < len(operands) and operands[i].type == r.type:
                rw.replace_all_uses_with(r, operands[i])
            elif list(r.uses):
                raise op_error(cc, f"@{MARKER} result #{i} ({r.type}) has no operand of the same type to forward the loaded value")
        if operands:
            v = operands[0]
            arg = marker_argument(cc, main)  # the rule hoist-compute reads markers by (hilo_mlir.ir.parameters)
            if arg is not None:
                slow_ins.add(arg)
            else:
                for use in list(v.uses):
                    key = (op_key(use.owner), use.operand_number)
                    if key in positions and not isinstance(v.type, ir.TupleType):
                        slow_outs.add(positions[key])
        rw.erase_op(cc)
        ctx.stats["markers-stripped"] += 1
    return slow_ins, slow_outs


def _flatten_results(main, d, ctx):
    """Action 5. Returns (old result index -> list of flat positions) or None if nothing changed."""
    block = entry_block(main)
    ret = terminator(block)
    ft = func_type(main)
    old_types = list(ft.results)
    if not any(isinstance(t, ir.TupleType) for t in old_types):
        return None
    flat_vals, visited_tuples, seen = [], [], set()
    leaves_of = []
    rw = ctx.rewriter
    with ret.location:

        def flatten(v):
            if not isinstance(v.type, ir.TupleType):
                flat_vals.append(v)
                return
            prod = v.owner if not isinstance(v.owner, ir.Block) else None
            if prod is not None and d.is_op(prod, "tuple"):
                if op_key(prod) not in seen:
                    seen.add(op_key(prod))
                    visited_tuples.append(prod.operation)
                for o in prod.operands:
                    flatten(o)
                return
            tt = v.type
            i32 = ir.IntegerType.get_signless(32)
            for j in range(tt.num_types):
                gte = rw.create(
                    d.name("get_tuple_element"),
                    results=[tt.get_type(j)],
                    operands=[v],
                    attributes={"index": ir.IntegerAttr.get(i32, j)},
                    before=ret,
                )
                ctx.stats["get-tuple-elements-created"] += 1
                flatten(gte.result)

        for v in ret.operands:
            start = len(flat_vals)
            flatten(v)
            leaves_of.append(list(range(start, len(flat_vals))))
        rw.create("func.return", operands=flat_vals, before=ret)
    rw.erase_op(ret)
    # Tuples the return alone used are now dead; outer tuples were visited first.
    for t in visited_tuples:
        if not list(t.results[0].uses):
            rw.erase_op(t)
            ctx.stats["tuples-erased"] += 1
    old_res_attrs = dict_list(main, "res_attrs", len(old_types))
    new_res_attrs = []
    for i, leaves in enumerate(leaves_of):
        if len(leaves) == 1:
            new_res_attrs.append(old_res_attrs[i])
        else:
            if len(old_res_attrs[i]):
                ctx.stats["dropped-result-attrs"] += 1
                ctx.debug(f"result #{i} is a tuple of {len(leaves)} leaves: its attributes {old_res_attrs[i]} cannot be split")
            new_res_attrs.extend(ir.DictAttr.get({}) for _ in leaves)
    _set_attr(rw, main, "function_type", ir.TypeAttr.get(ir.FunctionType.get(list(ft.inputs), [v.type for v in flat_vals])))
    if "res_attrs" in main.attributes or any(len(a) for a in new_res_attrs):
        _set_attr(rw, main, "res_attrs", ir.ArrayAttr.get(new_res_attrs))
    ctx.stats["results-flattened"] += len(old_types)
    return leaves_of, old_types, len(flat_vals)


def _alias_leaf(module_op, old_types, leaves_of, path, where) -> int:
    """The flat result index ``path`` names in @main's old result structure (root: the single result, or
    the result list).

    Raises:
        HiloError: an empty or out-of-range path, a path through a non-tuple, or one naming a tuple.
    """
    if len(old_types) == 1:
        t, base, rest = old_types[0], 0, list(path)
    else:
        if not path:
            raise HiloError(f"{where}: empty output_index but @main has {len(old_types)} results", loc=module_op.location)
        if not 0 <= path[0] < len(old_types):
            raise HiloError(f"{where}: output index {path[0]} out of range", loc=module_op.location)
        t, base, rest = old_types[path[0]], leaves_of[path[0]][0] if leaves_of[path[0]] else 0, list(path[1:])
    for k in rest:
        if not isinstance(t, ir.TupleType) or not 0 <= k < t.num_types:
            raise HiloError(f"{where}: output index path {list(path)} does not name a result of @main", loc=module_op.location)
        base += _leaf_offsets([t.get_type(j) for j in range(t.num_types)])[k]
        t = t.get_type(k)
    if _leaf_count(t) != 1:
        raise HiloError(
            f"{where}: output {list(path)} is a tuple of {_leaf_count(t)} leaves and cannot alias one input", loc=module_op.location
        )
    return base


def _remap_aliases(module_op, main, flat_info, rw):
    leaves_of, old_types, n_flat = flat_info

    n_args = len(func_type(main).inputs)
    arg_attrs = dict_list(main, "arg_attrs", n_args) if "arg_attrs" in main.attributes else None
    if arg_attrs is not None:
        changed = False
        new = []
        for i, a in enumerate(arg_attrs):
            items = dict_items(a)
            if "tf.aliasing_output" in items:
                k = aliasing_output(main, a)
                if k is None or not 0 <= k < len(old_types):
                    raise HiloError(f"argument #{i} of @main: tf.aliasing_output = {k} is out of range", loc=main.location)
                if len(leaves_of[k]) != 1:
                    raise HiloError(
                        f"argument #{i} of @main: tf.aliasing_output = {k} names a tuple output with {len(leaves_of[k])} leaves",
                        loc=main.location,
                    )
                old = ir.IntegerAttr(items["tf.aliasing_output"])
                items["tf.aliasing_output"] = ir.IntegerAttr.get(old.type, leaves_of[k][0])
                changed = True
            new.append(ir.DictAttr.get(items))
        if changed:
            _set_attr(rw, main, "arg_attrs", ir.ArrayAttr.get(new))
    key = INPUT_OUTPUT_ALIAS_ATTR
    if key in module_op.attributes:
        entries = ir.ArrayAttr(module_op.attributes[key])
        out = []
        for e in entries:
            items = dict_items(e)
            path = int_list_of(items, "output_index")
            flat = _alias_leaf(module_op, old_types, leaves_of, path, f"'{key}' entry {e}")
            items["output_index"] = ir.DenseI64ArrayAttr.get([flat] if n_flat > 1 else [])
            out.append(ir.DictAttr.get(items))
        _set_attr(rw, module_op, key, ir.ArrayAttr.get(out))


def run_penguinize_io(module_op, ctx) -> None:
    """PenguinizeFunctions::runOnOperation (seed 002 section 4): the five actions on ``main``.

    Args:
        module_op: the ``builtin.module``.
        ctx: pass context; ``ctx.d`` selects the mhlo/stablehlo op names.

    Raises:
        HiloError: see the module docstring.
    """
    with module_op.context, module_op.location:
        _run(module_op, ctx.d, ctx)


def _set_attr(rw, op, key, attr) -> None:
    """Set attribute ``key`` of ``op`` to ``attr`` through ``rw`` unless it already holds it."""
    if not attr_is(op, key, attr):
        rw.set_attr(op, key, attr)


def _run(module_op, d, ctx) -> None:
    rw = ctx.rewriter
    main = find_main(module_op)  # action 2 (needed by action 1 to count arguments)
    check_interface(module_op, main)  # every attribute read below: one located error if malformed
    n_args = num_inputs(main)
    names = _input_names(module_op, main, n_args)  # action 1
    _set_attr(rw, main, "input_names", ir.ArrayAttr.get([ir.StringAttr.get(s) for s in names]))
    if any(isinstance(t, ir.TupleType) for t in func_type(main).results):
        calls = callee_uses(module_op, "main")
        if calls:
            raise op_error(calls[0], "calls @main, whose result tuple penguinize-io flattens")
    slow_ins, slow_outs = _strip_markers(main, d, ctx)  # action 3
    flat_info = _flatten_results(main, d, ctx)  # action 5 (positions were fixed before it)
    if flat_info is not None:
        _remap_aliases(module_op, main, flat_info, rw)
    # action 4: the indices were computed in action 3 (before the return was
    # rewritten); writing the two attributes after action 5 changes nothing else.
    slow_ins |= set(index_list(main, "slowChangingIns"))
    slow_outs |= set(index_list(main, "slowChangingOuts"))
    _set_attr(rw, main, "slowChangingIns", i32_dense(sorted(slow_ins)))
    _set_attr(rw, main, "slowChangingOuts", i32_dense(sorted(slow_outs)))


register_twins(
    "penguinize-io",
    "Package main for the printer: input_names, strip AwsNeuronTransferWithStaticRing into slowChangingIns/Outs, flatten result tuples",
    run_penguinize_io,
    anchor="builtin.module",
    class_name="PenguinizeFunctions",
    statistics=("markers-stripped", "get-tuple-elements-created", "tuples-erased", "dropped-result-attrs", "results-flattened"),
    source="seed 002 section 4 (PenguinizeFunctions::runOnOperation @0x20881f0); seed 004 step 26",
)
