"""Spine step 28: ``tensorizer-legalization`` (and ``stablehlo-tensorizer-legalization``).

Every output of ``main`` becomes its own, freshly computed tensor, and the
names the printer uses are stamped (see :func:`run_tensorizer_legalization`).
Seed 004 step 28 ("output no-aliasing"), seed 002 sections 5-6
(TensorizerLegalization stamps ``output_names``/``neuron.symName``; the
StableHLO twin's two extra stages); the copy op and the naming are ours
(DESIGN.md decision 8).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.interface_attrs import name_list
from hilo_mlir.ir.utils import attr_is, defining_op, entry_block, find_main, is_block_arg_of, op_key, terminator
from hilo_mlir.passmanager.options import option
from hilo_mlir.passmanager.registry import PassInfo, register
from hilo_mlir.support.diagnostics import HiloError

if TYPE_CHECKING:
    from hilo_mlir.passmanager.pass_context import PassContext


def _stamp(ctx, op, key, attr) -> bool:
    """Set attribute ``key`` of ``op`` to ``attr`` unless it already holds it; True if set."""
    if attr_is(op, key, attr):
        return False
    ctx.rewriter.set_attr(op, key, attr)
    return True


#: The op that copies an output: ``mhlo.copy``; StableHLO has no copy op, so its
#: twin uses ``custom_call @AliasingCopy`` with ONE operand and no
#: ``output_operand_aliases`` (a plain copy; the printers map it to ``CopyOp``).
COPY_TARGET = "AliasingCopy"


def make_copy(d, value, rw, before):
    """Insert a copy of ``value`` (see :data:`COPY_TARGET`) before ``before``, at its location; returns the copy's result."""
    if d.has_copy_op:
        return rw.create(d.name("copy"), results=[value.type], operands=[value], before=before).results[0]
    attrs = {"call_target_name": ir.StringAttr.get(COPY_TARGET)}
    return rw.create(d.name("custom_call"), results=[value.type], operands=[value], attributes=attrs, before=before).results[0]


def _output_names(module_op, main, n):
    if "output_names" in main.attributes:
        names = name_list(main, "output_names") or []
        where = main
    elif "neuron.output_names" in module_op.attributes:
        names = name_list(module_op, "neuron.output_names") or []
        where = module_op
    else:
        return [f"output_{j}" for j in range(n)]
    if len(names) != n:
        raise HiloError(f"'output_names' has {len(names)} names but @main has {n} results", loc=where.location)
    return names


def _numel(t):
    n = 1
    for x in t.shape:
        n *= x
    return n


def _zero_sized_outputs(main, ret, d, ctx):
    rw = ctx.rewriter
    for j, v in enumerate(list(ret.operands)):
        t = v.type
        if not isinstance(t, ir.RankedTensorType) or not t.has_static_shape or _numel(t) != 0:
            continue
        p = defining_op(v)
        if p is not None and d.is_op(p, "constant"):
            continue
        loc = p.location if p is not None else ret.location
        if isinstance(t.element_type, ir.ComplexType):
            # The binding cannot hand a complex dense attribute to Python, so an
            # empty complex constant is built as complex(empty re, empty im).
            part = ir.RankedTensorType.get(t.shape, t.element_type.element_type)
            empty = ir.Attribute.parse(f"dense<> : {part}")
            re, im = (rw.create(d.name("constant"), results=[part], attributes={"value": empty}, loc=loc, before=ret) for _ in range(2))
            c = rw.create(d.name("complex"), results=[t], operands=[re.results[0], im.results[0]], loc=loc, before=ret)
        else:
            empty = ir.Attribute.parse(f"dense<> : {t}")
            c = rw.create(d.name("constant"), results=[t], attributes={"value": empty}, loc=loc, before=ret)
        rw.set_operand(ret, j, c.results[0])
        ctx.stats["zero-sized-outputs"] += 1


def _broadcast_large_splats(module_op, d, threshold, ctx):
    name = d.name("constant")
    left = ctx.op_counts().get(name, 0)  # the census's count of them in the module: stop once all are found
    found: list = []
    if left:
        for top in module_op.regions[0].blocks[0].operations:  # the constants from the census (each rewrite is local: any order)
            ops = ctx.ops_named(top.operation, name, any_order=True)
            if ops:
                found.extend(ops)
                left -= len(ops)
                if left <= 0:
                    break
    rw = ctx.rewriter
    small: dict = {}  # type -> too small / not a static ranked tensor (types are uniqued)
    for op in found:
        t = op.results[0].type
        skip = small.get(t)
        if skip is None:
            skip = small[t] = not isinstance(t, ir.RankedTensorType) or t.rank == 0 or not t.has_static_shape or _numel(t) < threshold
        if skip:
            continue
        try:
            attr = ir.DenseElementsAttr(op.attributes["value"])
        except (ValueError, TypeError):  # resource / non-dense literal
            continue
        if not attr.is_splat:
            continue
        scalar_t = ir.RankedTensorType.get([], t.element_type)
        value = ir.DenseElementsAttr.get_splat(scalar_t, attr.get_splat_value())
        sc = rw.create(d.name("constant"), results=[scalar_t], attributes={"value": value}, before=op)
        b = rw.create(
            d.name("broadcast_in_dim"),
            results=[t],
            operands=[sc.results[0]],
            attributes={"broadcast_dimensions": ir.DenseI64ArrayAttr.get([])},
            before=op,
        )
        rw.replace_op(op, [b.results[0]])
        ctx.stats["large-splats-broadcast"] += 1


def _stablehlo_stages(module_op, ctx: PassContext[StableHLOTensorizerLegalizationOptions]) -> None:
    """The StableHLO twin's two extra stages (zero-sized outputs, large splats); see
    :func:`run_tensorizer_legalization`."""
    main = find_main(module_op)
    with module_op.context, module_op.location:
        _zero_sized_outputs(main, terminator(entry_block(main)), ctx.d, ctx)
        if ctx.options.splat_threshold > 0:
            _broadcast_large_splats(module_op, ctx.d, ctx.options.splat_threshold, ctx)


def run_stablehlo_tensorizer_legalization(module_op, ctx) -> None:
    """StableHLOTensorizerLegalization: :func:`run_tensorizer_legalization` after its two extra stages."""
    _stablehlo_stages(module_op, ctx)
    run_tensorizer_legalization(module_op, ctx)


def _copy_shared_outputs(main, ret, d, ctx) -> list:
    """Copy every output that is an entry argument or repeats an earlier output; returns the outputs."""
    vals = list(ret.operands)
    seen = set()
    for j, v in enumerate(vals):
        if is_block_arg_of(v, main) or op_key(v) in seen:
            why = "an entry argument" if is_block_arg_of(v, main) else "a repeated output"
            c = make_copy(d, v, ctx.rewriter, ret)
            ctx.rewriter.set_operand(ret, j, c)
            vals[j] = c
            ctx.stats["outputs-copied"] += 1
            ctx.debug(f"output #{j} is {why}: copied")
        seen.add(op_key(vals[j]))
    return vals


def _stamp_names(module_op, main, vals, ctx) -> None:
    """``output_names`` on main, ``neuron.symName`` on the op defining each output."""
    names = _output_names(module_op, main, len(vals))
    _stamp(ctx, main, "output_names", ir.ArrayAttr.get([ir.StringAttr.get(s) for s in names]))
    per_op: dict[int, tuple[ir.Operation, dict[int, str]]] = {}  # op_key -> (op, {result number: output name})
    for j, v in enumerate(vals):
        p = defining_op(v)
        if p is None:  # a block argument of a nested region cannot be returned by main
            continue
        per_op.setdefault(op_key(p), (p, {}))[1][v.result_number] = names[j]
    for p, by_result in per_op.values():
        if len(p.results) == 1:
            _stamp(ctx, p, "neuron.symName", ir.StringAttr.get(by_result[0]))
        else:
            _stamp(ctx, p, "neuron.symName", ir.ArrayAttr.get([ir.StringAttr.get(by_result.get(i, "")) for i in range(len(p.results))]))
        ctx.stats["ops-named"] += 1


def run_tensorizer_legalization(module_op, ctx) -> None:
    """TensorizerLegalization: every output of ``main`` is its own, freshly computed tensor.

    * An output that is an entry argument of ``main``, or the same value as an
      earlier output, is replaced by a copy inserted just before the return:
      ``copy`` on MHLO, ``custom_call @AliasingCopy`` with one operand on
      StableHLO (the dialect has no copy op). Statistic ``outputs-copied``.
    * ``output_names`` (strings) is stamped on ``main``: kept if already there,
      else taken from the module's ``neuron.output_names``, else ``output_<j>``.
    * ``neuron.symName`` is stamped on the op that defines each output: a
      string for a single-result op, else an array with one string per result
      (``""`` for results that are not outputs).

    The StableHLO twin (:func:`run_stablehlo_tensorizer_legalization`) is
    strictly richer: it "adds large-constant-splat + zero-sized-tensor stages"
    and its factory takes an extra ``long``, our ``splat-threshold`` option.
    Before the stages above it

    * replaces every zero-sized output of ``main`` (a static shape with a 0
      dimension) that is not already a constant by ``constant dense<>`` of its
      type (there is no data to compute; statistic ``zero-sized-outputs``);
    * rewrites every splat ``constant`` (any function) with at least
      ``splat-threshold`` elements into a scalar ``constant`` and a
      ``broadcast_in_dim`` (the backend never materialises the large literal;
      statistic ``large-splats-broadcast``; 0 turns the stage off).

    Linear in the number of ops. Raises HiloError when ``main`` is missing
    or ``output_names`` has the wrong length. Source: seed 004 step 28 ("output
    no-aliasing"), seed 002 sections 5-6; the copy op and the naming are ours.
    """
    d = ctx.d
    with module_op.context, module_op.location:
        main = find_main(module_op)
        ret = terminator(entry_block(main))
        vals = _copy_shared_outputs(main, ret, d, ctx)
        _stamp_names(module_op, main, vals, ctx)


# One implementation, registered for both dialects by hand: the StableHLO twin
# has two more stages and an option (the binary's extra ``long`` constructor argument) the MHLO pass lacks.
_TL_SUMMARY = "No output of main is an entry argument or repeats another output (copies inserted); stamp output_names and neuron.symName"
_TL_SOURCE = "seed 004 step 28; seed 002 sections 5-6; copy op, names and the StableHLO stages: our interpretation"
_TL_STATS = ("outputs-copied", "ops-named")
register(
    PassInfo(
        "tensorizer-legalization",
        _TL_SUMMARY,
        run_tensorizer_legalization,
        anchor="builtin.module",
        dialect="mhlo",
        class_name="TensorizerLegalization",
        statistics=_TL_STATS,
        source=_TL_SOURCE,
    )
)


@dataclass(frozen=True)
class StableHLOTensorizerLegalizationOptions:
    """The options of ``stablehlo-tensorizer-legalization``."""

    splat_threshold: int = option(4096, "splat constants with at least this many elements become scalar + broadcast_in_dim (0 = off)")


register(
    PassInfo(
        "stablehlo-tensorizer-legalization",
        _TL_SUMMARY + "; zero-sized outputs become constants, large splat constants become scalar + broadcast_in_dim (StableHLO twin)",
        run_stablehlo_tensorizer_legalization,
        anchor="builtin.module",
        dialect="stablehlo",
        options_type=StableHLOTensorizerLegalizationOptions,
        class_name="StableHLOTensorizerLegalization",
        statistics=_TL_STATS + ("zero-sized-outputs", "large-splats-broadcast"),
        source=_TL_SOURCE,
    )
)
