"""StableHLO spine step 26b: ``legalize-scatter`` (class ``LegalizeScatter``; StableHLO only, no twin).

Seed 004 ("LegalizeScatter walks stablehlo.scatter ... Its action is F32
up-cast + canonical body regeneration, not a dim-numbers normalization or a
multi-op decomposition: the scatter is rebuilt in place with its
ScatterDimensionNumbersAttr threaded through unchanged").
"""

from __future__ import annotations

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import STABLEHLO
from hilo_mlir.passmanager.registry import PassInfo, register

#: Reducer kinds the canonical body can be regenerated for (binary ops on (current, update)).
BINARY_REDUCERS = ("add", "multiply", "maximum", "minimum", "subtract", "divide")


def _narrow_float(t):
    if not isinstance(t, ir.RankedTensorType):
        return False
    e = t.element_type
    return isinstance(e, ir.FloatType) and e.width < 32


def classify_reducer(region, d=STABLEHLO):
    """The reducer of a one-input scatter body: ``("replace",)``, ``("keep",)``,
    ``(op, swapped)`` for ``op(current, update)`` (``swapped``: written as
    ``op(update, current)``), or None when the body is not one of these."""
    blocks = list(region.blocks)
    if len(blocks) != 1:
        return None
    b = blocks[0]
    if len(b.arguments) != 2:
        return None
    cur, upd = b.arguments[0], b.arguments[1]
    ops = [o.operation for o in b.operations]
    term = ops[-1]
    if not d.is_op(term, "return") or len(term.operands) != 1:
        return None
    r = term.operands[0]
    if len(ops) == 1:
        if r == upd:
            return ("replace",)
        if r == cur:
            return ("keep",)
        return None
    if len(ops) != 2:
        return None
    op = ops[0]
    short = d.short(op.name)
    if short not in BINARY_REDUCERS or r != op.results[0] or len(op.operands) != 2:
        return None
    a, b2 = op.operands[0], op.operands[1]
    if a == cur and b2 == upd:
        return (short, False)
    if a == upd and b2 == cur:
        return (short, True)
    return None


def run_legalize_scatter(func_op, ctx) -> None:
    """Compute narrow-float ``stablehlo.scatter`` in f32 with a canonical reducer body.

    A one-input scatter whose input and updates are floats narrower than f32
    (f16, bf16, the f8 types) and whose body is a recognised reducer
    (``replace`` = return the update, ``keep`` = return the current value, or
    one of add/multiply/maximum/minimum/subtract/divide of (current, update) in
    either operand order) is rebuilt as::

        %i32 = convert %input   : -> f32        %u32 = convert %updates : -> f32
        %s   = scatter(%i32, %indices, %u32)  (same scatter_dimension_numbers,
               indices_are_sorted, unique_indices; body regenerated on tensor<f32>:
               ^bb0(%cur, %upd): return op(%cur, %upd) / %upd / %cur)
        %r   = convert %s : f32 -> original type

    Semantics: where each output element receives at most one update the
    result is bit-exact (one f32 operation on two narrow values rounded once
    equals the narrow operation: f32 has more than twice the precision bits
    of f16/bf16); where updates collide the accumulation runs in f32 and is
    rounded once at the end (more accurate than the narrow accumulation; that
    is the point of the pass).

    Left alone (debug line says why): integer and f32/f64 element types (ints
    are exact; f32 is already the target; going through f32 would lose f64
    precision), variadic scatters (several inputs), and bodies that are not
    one recognised reducer. Statistic ``scatters-legalized``.
    """
    d = STABLEHLO
    ops = ctx.ops_named(func_op, d.name("scatter")) if ctx.module_may_contain(d.name("scatter")) else []
    with func_op.context, func_op.location:
        for op in ops:  # from the census (walk order, no walk); one walk without a pipeline
            operands = list(op.operands)
            if len(operands) != 3:
                ctx.debug(f"{op.name} at {op.location}: variadic scatter ({len(operands)} operands), left alone")
                continue
            inp, _, upd = operands
            if not (_narrow_float(inp.type) and _narrow_float(upd.type)):
                ctx.debug(f"{op.name} at {op.location}: element type {inp.type} is not a float narrower than f32, left alone")
                continue
            kind = classify_reducer(op.regions[0], d)
            if kind is None:
                ctx.debug(f"{op.name} at {op.location}: reducer body is not a single recognised op, left alone")
                continue
            _rebuild_in_f32(op, kind, d, ctx.rewriter)
            ctx.stats["scatters-legalized"] += 1


def _rebuild_in_f32(op, kind: tuple, d, rw) -> None:
    """Replace the scatter ``op`` by converts to f32, an f32 scatter with the canonical
    body of ``kind`` (see :func:`classify_reducer`) and a convert back."""
    inp, idx, upd = list(op.operands)
    f32 = ir.F32Type.get()
    ti = ir.RankedTensorType.get(list(inp.type.shape), f32)
    tu = ir.RankedTensorType.get(list(upd.type.shape), f32)
    out_t = op.results[0].type
    to = ir.RankedTensorType.get(list(out_t.shape), f32)
    loc = op.location
    ci = rw.create(d.name("convert"), results=[ti], operands=[inp], loc=loc, before=op).results[0]
    cu = rw.create(d.name("convert"), results=[tu], operands=[upd], loc=loc, before=op).results[0]
    attrs = {a.name: a.attr for a in (op.attributes[i] for i in range(len(op.attributes)))}
    new = rw.create(d.name("scatter"), results=[to], operands=[ci, idx, cu], attributes=attrs, regions=1, loc=loc, before=op)
    scalar = ir.RankedTensorType.get([], f32)
    body_loc = op.regions[0].blocks[0].operations[0].location
    block = rw.create_block(new.regions[0], [scalar, scalar], [body_loc, body_loc])
    cur, new_upd = block.arguments[0], block.arguments[1]
    if kind[0] == "replace":
        r = new_upd
    elif kind[0] == "keep":
        r = cur
    else:
        a, b = (new_upd, cur) if kind[1] else (cur, new_upd)
        r = rw.create(d.name(kind[0]), results=[scalar], operands=[a, b], loc=body_loc, at_end=block).results[0]
    rw.create(d.name("return"), operands=[r], loc=body_loc, at_end=block)
    back = rw.create(d.name("convert"), results=[out_t], operands=[new.results[0]], loc=loc, before=op).results[0]
    rw.replace_op(op, [back])


register(
    PassInfo(
        "legalize-scatter",
        "Narrow-float stablehlo.scatter computed in f32 (up-cast input/updates, down-cast result), reducer body regenerated",
        run_legalize_scatter,
        dialect="stablehlo",
        class_name="LegalizeScatter",
        statistics=("scatters-legalized",),
        source="seed 004 StableHLO insertion 26b and 'Misc Pass Reference' (createLegalizeScatterPass)",
    )
)
