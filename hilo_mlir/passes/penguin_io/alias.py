"""Spine steps 29 and 30: ``legalize-alias`` and ``verify-aliasing`` (+ StableHLO twins).

Seed 004 (step 29 "insert AliasingCopy", step 30 "RAW alias check", gated by
``cfg[0x13C]``; LegalizeAlias is one of the chapter's misc leaf passes, the
MLIR-side materialisation of the HLO input/output alias config of seed part
4.17). The exact op form is ours (DESIGN.md decision 8).

Declared aliases of ``main`` (an input buffer the output is written into) come
from two places, both read by :func:`declared_aliases`:

* the argument attribute ``tf.aliasing_output = k`` (argument -> flat output
  ``k``; jax's donation and the XLA importer use it);
* the module attribute ``mhlo.input_output_alias`` (XLA's alias config:
  entries ``{alias = {parameter_number = i, parameter_index = [], kind = ...},
  output_index = [k]}``; ``output_index`` is ``[]`` when main has one result).
  Entries with a non-empty ``parameter_index`` (an alias into a tuple
  parameter) are not supported: main's parameters are flat by step 26.

The ``AliasingCopy`` form: ``%o = custom_call @AliasingCopy(%value, %argI)``
with ``output_operand_aliases`` saying result 0 aliases operand 1 (the
donated input buffer): "write ``%value`` into ``%argI``'s buffer; the result
is that buffer".
"""

from __future__ import annotations

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import INPUT_OUTPUT_ALIAS_ATTR
from hilo_mlir.ir.interface_attrs import aliasing_output
from hilo_mlir.ir.utils import (
    defining_op,
    dict_items,
    entry_block,
    find_main,
    func_type,
    int_list_of,
    is_block_arg_of,
    num_inputs,
    op_key,
    terminator,
)
from hilo_mlir.passmanager.registry import register_twins
from hilo_mlir.support.diagnostics import HiloError, op_error

ALIASING_COPY = "AliasingCopy"


def declared_aliases(module_op, main) -> list[tuple[int, int]]:
    """Sorted unique ``(argument number, flat output index)`` pairs declared for ``main``.

    Raises:
        HiloError: an index out of range, an alias into a tuple parameter,
            argument and output types that differ, or two arguments aliasing
            one output.
    """
    n_in, n_out = num_inputs(main), len(func_type(main).results)  # not a list of every input type
    pairs = set()
    if "arg_attrs" in main.attributes:
        # one name lookup per argument; the dictionary is read only when it holds the alias (thousands of
        # parameters, a few donated)
        for i, a in enumerate(ir.ArrayAttr(main.attributes["arg_attrs"])):
            da = ir.DictAttr(a)
            if "tf.aliasing_output" in da:
                k = aliasing_output(main, da)
                if k is None or not 0 <= k < n_out:
                    raise HiloError(f"argument #{i} of @main: tf.aliasing_output = {k} but @main has {n_out} results", loc=main.location)
                pairs.add((i, k))
    key = INPUT_OUTPUT_ALIAS_ATTR
    if key in module_op.attributes:
        for e in ir.ArrayAttr(module_op.attributes[key]):
            items = dict_items(e)
            out = int_list_of(items, "output_index")
            alias = dict_items(items["alias"]) if "alias" in items else {}
            if "parameter_number" not in alias:
                raise HiloError(f"'{key}' entry {e} has no alias.parameter_number", loc=main.location)
            i = ir.IntegerAttr(alias["parameter_number"]).value
            if int_list_of(alias, "parameter_index"):
                raise HiloError(f"'{key}' entry {e}: aliasing into a tuple parameter is not supported", loc=main.location)
            if len(out) > 1 or (not out and n_out != 1):
                raise HiloError(f"'{key}' entry {e}: output_index must name one flat result of @main", loc=main.location)
            k = out[0] if out else 0
            if not (0 <= i < n_in and 0 <= k < n_out):
                raise HiloError(f"'{key}' entry {e}: parameter {i} / output {k} out of range", loc=main.location)
            pairs.add((i, k))
    _check_pairs(main, pairs)
    return sorted(pairs)


def _check_pairs(main, pairs: set[tuple[int, int]]) -> None:
    """No output aliases two arguments; each aliased argument has its output's type (the types read only then).

    Raises:
        HiloError: two arguments aliasing one output, or differing types.
    """
    by_output: dict[int, int] = {}  # output index -> the argument it aliases
    for i, k in sorted(pairs):
        if k in by_output:
            raise HiloError(f"@main output {k} is declared to alias both argument #{by_output[k]} and argument #{i}", loc=main.location)
        by_output[k] = i
    if not pairs:
        return
    ft = func_type(main)
    inputs, results = ft.inputs, ft.results
    for i, k in pairs:
        if inputs[i] != results[k]:
            raise HiloError(
                f"@main argument #{i} ({inputs[i]}) is declared to alias output {k} of a different type ({results[k]})",
                loc=main.location,
            )


def is_aliasing_copy(op) -> bool:
    """True for a ``custom_call @AliasingCopy`` with two operands (the legalize-alias form)."""
    return (
        op is not None
        and op.name.endswith(".custom_call")
        and ir.StringAttr(op.attributes["call_target_name"]).value == ALIASING_COPY
        and len(op.operands) == 2
    )


def run_legalize_alias(module_op, ctx) -> None:
    """LegalizeAlias: materialise each declared input/output alias of ``main`` as an ``AliasingCopy``.

    For an alias (argument ``i`` -> output ``k``): the return operand ``k``
    (``%v``) is replaced by ``custom_call @AliasingCopy(%v, %argI)`` inserted
    just before the return, whose result aliases operand 1
    (``output_operand_aliases``). Nothing is inserted when output ``k`` is
    ``%argI`` itself (the buffer is returned unchanged) or is already an
    ``AliasingCopy`` into ``%argI`` (idempotent). A ``neuron.symName`` string
    on ``%v``'s single-result producer moves to the copy (the copy is now the
    output tensor). Statistic ``aliasing-copies``.

    Raises:
        HiloError: see :func:`declared_aliases`.

    Source: seed 004 step 29 (createLegalizeAliasPass @0x209c380); op form ours.
    """
    d = ctx.d
    rw = ctx.rewriter
    with module_op.context, module_op.location:
        main = find_main(module_op)
        pairs = declared_aliases(module_op, main)
        if not pairs:
            return
        args = entry_block(main).arguments
        ret = terminator(entry_block(main))
        for i, k in pairs:
            v, a = ret.operands[k], args[i]
            if v == a:
                continue
            p = defining_op(v)
            if p is not None and is_aliasing_copy(p) and p.operands[1] == a:
                continue
            alias = ir.Attribute.parse(
                f"#{d.prefix}.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>"
            )
            attrs = {
                "call_target_name": ir.StringAttr.get(ALIASING_COPY),
                "output_operand_aliases": ir.ArrayAttr.get([alias]),
            }
            if (
                p is not None
                and len(p.results) == 1
                and "neuron.symName" in p.attributes
                and isinstance(p.attributes["neuron.symName"], ir.StringAttr)
            ):
                attrs["neuron.symName"] = p.attributes["neuron.symName"]  # the copy is now the output tensor
                rw.remove_attr(p, "neuron.symName")
            c = rw.create(d.name("custom_call"), results=[v.type], operands=[v, a], attributes=attrs, loc=ret.location, before=ret)
            rw.set_operand(ret, k, c.results[0])
            ctx.stats["aliasing-copies"] += 1


register_twins(
    "legalize-alias",
    "Insert custom_call @AliasingCopy for each declared input/output alias of main (tf.aliasing_output, mhlo.input_output_alias)",
    run_legalize_alias,
    anchor="builtin.module",
    class_name="LegalizeAlias",
    statistics=("aliasing-copies",),
    source="seed 004 step 29 and 'Misc Pass Reference'; op form: our interpretation",
)


def run_verify_aliasing(module_op, ctx) -> None:
    """VerifyAliasing: an aliased input may not be read after its output is written (read-after-write).

    For each declared alias (argument ``i`` -> output ``k``) the *writer* is
    the op in main's entry block that defines output ``k`` (the
    ``AliasingCopy`` after step 29, else the producer itself). Every other use
    of ``%argI`` whose enclosing op in the entry block comes after the writer
    (``func.return`` included, i.e. the input also returned elsewhere) would
    read the overwritten buffer: the first such reader is an error at its
    location. Outputs that are ``%argI`` itself write nothing. One order index
    per entry block; linear in ops + uses.

    Raises:
        HiloError: the read-after-write, naming the reader, the argument, the
            output and the writer.

    Source: seed 004 step 30 ("RAW alias check", gate ``cfg[0x13C]``).
    """
    with module_op.context, module_op.location:
        main = find_main(module_op)
        pairs = declared_aliases(module_op, main)
        if not pairs:
            return
        block = entry_block(main)
        order = {op_key(op): n for n, op in enumerate(block.operations)}
        ret = terminator(block)

        def top(op):
            """(position in the entry block, op) of ``op``'s ancestor in main's entry block."""
            op = op.operation if hasattr(op, "operation") else op
            while op is not None and op_key(op) not in order:
                parent = op.parent
                op = parent.operation if parent is not None else None
            return (order[op_key(op)], op) if op is not None else None

        args = block.arguments
        for i, k in pairs:
            v, a = ret.operands[k], args[i]
            if is_block_arg_of(v, main):
                continue
            wpos, writer = top(defining_op(v))
            late = []
            for use in list(a.uses):
                found = top(use.owner)
                if found is None or found[0] == wpos:
                    continue
                if found[0] > wpos:
                    late.append(found)
            ctx.stats["aliases-checked"] += 1
            if late:
                reader = min(late, key=lambda t: t[0])[1]
                raise op_error(
                    reader,
                    f"reads argument #{i} of @main after output {k}, which aliases it, is written by "
                    f"'{writer.name}' (the input buffer is overwritten in place)",
                )


register_twins(
    "verify-aliasing",
    "Error when an aliased input of main is read after its output is written",
    run_verify_aliasing,
    anchor="builtin.module",
    class_name="VerifyAliasing",
    statistics=("aliases-checked",),
    source="seed 004 step 30 (RAW alias check)",
)
