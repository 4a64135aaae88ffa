"""Spine step 26: ``penguinize-io`` / ``stablehlo-penguinize-io`` (class ``PenguinizeFunctions``).

Seed 002 section 4 ("Five sequential actions"), issue 4 item 3. One
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

from ..diagnostics import HiloError, op_error
from ..ir import identity_key, ir
from ..registry import register_twins

MARKER = "AwsNeuronTransferWithStaticRing"

# --------------------------------------------------------------------------- shared helpers
# (also used by tensorizer.py and alias.py)


def ir_key(obj) -> int:
    """A stable dict key for an ``Operation``/``OpView``/``Value`` (``hilo_mlir.ir.identity_key``).

    Python ``Operation`` wrappers are not reliable dict keys across IR mutation
    in this binding (their hash changes when operands change); the C++ address
    is stable for the object's lifetime.
    """
    return identity_key(obj.operation if hasattr(obj, "operation") else obj)


def top_funcs(module_op) -> list:
    """The top-level ``func.func`` operations of a module, in order."""
    return [o.operation for o in module_op.regions[0].blocks[0].operations if o.operation.name == "func.func"]


def find_main(module_op, required: bool = True):
    """``func.func @main`` of ``module_op`` (seed 002 action 2); HiloError if absent and ``required``."""
    for f in top_funcs(module_op):
        if ir.StringAttr(f.attributes["sym_name"]).value == "main":
            return f
    if required:
        funcs = top_funcs(module_op)
        names = ", ".join("@" + ir.StringAttr(f.attributes["sym_name"]).value for f in funcs) or "none"
        raise HiloError(
            f"module has no 'func.func @main' (the entry function the Penguin program is built from; functions: {names})",
            loc=funcs[0].location if funcs else module_op.location,
        )
    return None


def func_type(f) -> ir.FunctionType:
    return ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)


def set_func_type(f, inputs, results) -> None:
    f.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(list(inputs), list(results)))


def entry_block(f):
    return f.regions[0].blocks[0]


def terminator(block):
    ops = block.operations
    return ops[len(ops) - 1].operation


def dict_list(f, key: str, n: int) -> list:
    """``arg_attrs``/``res_attrs`` of ``f`` as a list of ``n`` ``DictAttr`` (empty dicts when absent)."""
    if key in f.attributes:
        arr = ir.ArrayAttr(f.attributes[key])
        return [ir.DictAttr(arr[i]) for i in range(len(arr))]
    return [ir.DictAttr.get({}) for _ in range(n)]


def dict_items(d) -> dict:
    d = ir.DictAttr(d)
    return {d[i].name: d[i].attr for i in range(len(d))}


def is_block_arg_of(value, func_op) -> bool:
    """True if ``value`` is an argument of ``func_op``'s entry block."""
    return isinstance(value.owner, ir.Block) and value.owner.owner == func_op and value.owner == entry_block(func_op)


def i32_dense(values) -> ir.DenseElementsAttr:
    """``dense<[...]> : tensor<Nxi32>`` (``dense<> : tensor<0xi32>`` for no values)."""
    import numpy as np

    i32 = ir.IntegerType.get_signless(32)
    t = ir.RankedTensorType.get([len(values)], i32)
    return ir.DenseElementsAttr.get(np.asarray(list(values), dtype=np.int32), type=t)


def int_list(attrs, key) -> list[int]:
    """Integers of a dense or array attribute ``attrs[key]`` ([] when absent)."""
    if key not in attrs:
        return []
    a = attrs[key]
    try:
        import numpy as np

        return [int(x) for x in np.array(ir.DenseElementsAttr(a)).reshape(-1)]
    except (ValueError, TypeError):
        pass
    try:
        return [int(x) for x in ir.DenseI64ArrayAttr(a)]
    except (ValueError, TypeError):
        pass
    return [ir.IntegerAttr(x).value for x in ir.ArrayAttr(a)]


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


# --------------------------------------------------------------------------- marker protection


def protect_markers(module_op, custom_calls=None) -> int:
    """Set ``has_side_effect = true`` on every ``custom_call @AwsNeuronTransferWithStaticRing``.

    A marker spelled ``has_side_effect = false`` whose result is unused (the
    usual form: the marker only tags the parameter) is deleted by the spine's
    upstream ``canonicalize`` (step 1) and ``remove-dead-values`` (step 13)
    before step 26 can record it. ``compiler.compile_loaded`` calls this on
    the input before the spine runs; markers without the attribute are
    already kept by those passes. ``custom_calls``: every custom_call op of
    the module, if the caller has them (a census); default: one walk.
    Returns the number of markers changed.
    """
    found = []

    def visit(op):
        if op.name.endswith(".custom_call") and "call_target_name" in op.attributes:
            if ir.StringAttr(op.attributes["call_target_name"]).value == MARKER:
                found.append(op.operation)
        return ir.WalkResult.ADVANCE

    if custom_calls is None:
        module_op.walk(visit)
    else:
        for op in custom_calls:
            visit(op)
    n = 0
    with module_op.context:
        for op in found:
            cur = op.attributes["has_side_effect"] if "has_side_effect" in op.attributes else None
            if cur is None or not ir.BoolAttr(cur).value:
                op.attributes["has_side_effect"] = ir.BoolAttr.get(True)
                n += 1
    return n


# --------------------------------------------------------------------------- the pass


def _input_names(module_op, main, n_args):
    src = None
    for holder, key in ((main, "input_names"), (module_op, "neuron.input_names")):
        if key in holder.attributes:
            src = holder
            break
    if src is None:
        return [f"input_{i}" for i in range(n_args)]
    arr = ir.ArrayAttr(src.attributes[key])
    names = [ir.StringAttr(arr[i]).value for i in range(len(arr))]
    if len(names) != n_args:
        raise HiloError(
            f"'{key}' has {len(names)} names but @main has {n_args} arguments",
            loc=src.location,
        )
    return names


def _return_positions(d, ret, out_types):
    """Map (ir_key(operation), operand number) -> flattened output position, for the return tree of main."""
    pos = {}
    offs = _leaf_offsets(out_types)

    def visit(owner, idx, value, base):
        pos[(ir_key(owner), idx)] = base
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
    # The custom calls of main from the census (walk order; one walk without a pipeline).
    markers = [op for op in ctx.ops_named(main, d.name("custom_call"))
               if ir.StringAttr(op.attributes["call_target_name"]).value == MARKER]
    if not markers:
        return set(), set()
    ret = terminator(entry_block(main))
    out_types = list(func_type(main).results)
    positions = _return_positions(d, ret, out_types)
    slow_ins, slow_outs = set(), set()
    for cc in markers:
        operands = list(cc.operands)
        for i, r in enumerate(cc.results):
            if i < len(operands) and operands[i].type == r.type:
                r.replace_all_uses_with(operands[i])
            elif list(r.uses):
                raise op_error(cc, f"@{MARKER} result #{i} ({r.type}) has no operand of the same type to forward the loaded value")
        if operands:
            v = operands[0]
            if is_block_arg_of(v, main):
                slow_ins.add(v.arg_number)
            else:
                for use in list(v.uses):
                    key = (ir_key(use.owner), use.operand_number)
                    if key in positions and not isinstance(v.type, ir.TupleType):
                        slow_outs.add(positions[key])
        cc.erase()
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
    with ir.InsertionPoint(ret), ret.location:

        def flatten(v):
            if not isinstance(v.type, ir.TupleType):
                flat_vals.append(v)
                return
            prod = v.owner if not isinstance(v.owner, ir.Block) else None
            if prod is not None and d.is_op(prod, "tuple"):
                if ir_key(prod) not in seen:
                    seen.add(ir_key(prod))
                    visited_tuples.append(prod.operation)
                for o in prod.operands:
                    flatten(o)
                return
            tt = v.type
            i32 = ir.IntegerType.get_signless(32)
            for j in range(tt.num_types):
                gte = ir.Operation.create(
                    d.name("get_tuple_element"),
                    results=[tt.get_type(j)],
                    operands=[v],
                    attributes={"index": ir.IntegerAttr.get(i32, j)},
                )
                ctx.stats["get-tuple-elements-created"] += 1
                flatten(gte.result)

        for v in ret.operands:
            start = len(flat_vals)
            flatten(v)
            leaves_of.append(list(range(start, len(flat_vals))))
        new_ret = ir.Operation.create("func.return", operands=flat_vals)
    ret.erase()
    # Tuples the return alone used are now dead; outer tuples were visited first.
    for t in visited_tuples:
        if not list(t.results[0].uses):
            t.erase()
            ctx.stats["tuples-erased"] += 1
    del new_ret  # never keep a handle across later erasures
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
    set_func_type(main, ft.inputs, [v.type for v in flat_vals])
    if "res_attrs" in main.attributes or any(len(a) for a in new_res_attrs):
        main.attributes["res_attrs"] = ir.ArrayAttr.get(new_res_attrs)
    ctx.stats["results-flattened"] += len(old_types)
    return leaves_of, old_types, len(flat_vals)


def _remap_aliases(module_op, main, flat_info):
    leaves_of, old_types, n_flat = flat_info

    def one_leaf(path, where):
        # Resolve a path into the old result structure (root = the single result, or the result list).
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
            raise HiloError(f"{where}: output {list(path)} is a tuple of {_leaf_count(t)} leaves and cannot alias one input", loc=module_op.location)
        return base

    n_args = len(func_type(main).inputs)
    arg_attrs = dict_list(main, "arg_attrs", n_args) if "arg_attrs" in main.attributes else None
    if arg_attrs is not None:
        changed = False
        new = []
        for i, a in enumerate(arg_attrs):
            items = dict_items(a)
            if "tf.aliasing_output" in items:
                k = ir.IntegerAttr(items["tf.aliasing_output"]).value
                if not 0 <= k < len(old_types):
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
            main.attributes["arg_attrs"] = ir.ArrayAttr.get(new)
    key = "mhlo.input_output_alias"
    if key in module_op.attributes:
        entries = ir.ArrayAttr(module_op.attributes[key])
        out = []
        for e in entries:
            items = dict_items(e)
            path = int_list(items, "output_index") if "output_index" in items else []
            flat = one_leaf(path, f"'{key}' entry {e}")
            items["output_index"] = ir.DenseI64ArrayAttr.get([flat] if n_flat > 1 else [])
            out.append(ir.DictAttr.get(items))
        module_op.attributes[key] = ir.ArrayAttr.get(out)


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


def _stamp(op, key, attr) -> bool:
    """Set ``op.attributes[key] = attr``; False if it already held that (uniqued) attribute."""
    if key in op.attributes and op.attributes[key] == attr:
        return False
    op.attributes[key] = attr
    return True


def _run(module_op, d, ctx) -> None:
    main = find_main(module_op)  # action 2 (needed by action 1 to count arguments)
    n_args = len(func_type(main).inputs)
    names = _input_names(module_op, main, n_args)  # action 1
    stamped = _stamp(main, "input_names", ir.ArrayAttr.get([ir.StringAttr.get(s) for s in names]))
    if any(isinstance(t, ir.TupleType) for t in func_type(main).results):
        calls = callee_uses(module_op, "main")
        if calls:
            raise op_error(calls[0], "calls @main, whose result tuple penguinize-io flattens")
    stripped = ctx.stats["markers-stripped"]
    slow_ins, slow_outs = _strip_markers(main, d, ctx)  # action 3
    stripped = ctx.stats["markers-stripped"] != stripped
    flat_info = _flatten_results(main, d, ctx)  # action 5 (positions were fixed before it)
    if flat_info is not None:
        _remap_aliases(module_op, main, flat_info)
    # action 4: the indices were computed in action 3 (before the return was
    # rewritten); writing the two attributes after action 5 changes nothing else.
    slow_ins |= set(int_list(main.attributes, "slowChangingIns"))
    slow_outs |= set(int_list(main.attributes, "slowChangingOuts"))
    stamped |= _stamp(main, "slowChangingIns", i32_dense(sorted(slow_ins)))
    stamped |= _stamp(main, "slowChangingOuts", i32_dense(sorted(slow_outs)))
    if not (stripped or flat_info is not None):
        if stamped:
            ctx.mark_census_preserved()  # attributes of main only: no op created, erased or retyped
        else:
            ctx.mark_all_preserved()  # a re-run: every attribute already as stamped


register_twins(
    "penguinize-io",
    "Package main for the printer: input_names, strip AwsNeuronTransferWithStaticRing into slowChangingIns/Outs, flatten result tuples",
    run_penguinize_io,
    anchor="builtin.module",
    class_name="PenguinizeFunctions",
    source="seed 002 section 4 (PenguinizeFunctions::runOnOperation @0x20881f0); seed 004 step 26",
)
