"""``replace-token-type-with-u8`` (spine step 19, ``ReplaceTokenTypeWithU8``; twin ``stablehlo-replace-token-type-with-u8``).

The backend has no token type: every ``!mhlo.token`` / ``!stablehlo.token``
becomes ``tensor<ui8>`` — in function signatures (``function_type``), op
results, block arguments of every region, and inside tuple types (nested
tuples included). Both token spellings are replaced by either twin (a module
may mix them after a partial legalization).

Token producers: ``after_all`` and ``create_token`` only order side effects
through their token; each becomes a ``constant dense<0> : tensor<ui8>`` of its
own dialect (its token operands are dropped with it). Ops that only pass
tokens along (``custom_call``, ``tuple``, ``get_tuple_element``, ``while``,
``if``, ``case``, ``optimization_barrier``, ``func.call``, returns) accept
``tensor<ui8>`` and are retyped in place.

Ops whose verifier requires a token (``infeed``, ``outfeed``, ``send``,
``recv``, ``add_dependency``) cannot be retyped legally: the pass fails with
one error at the first such op, naming it, before changing anything.

Source: seed 004 step 19 (unconditional, "!mhlo.token -> tensor<ui8>");
DESIGN.md catalogue step 19; the treatment of token-requiring ops is our
interpretation.
"""

from __future__ import annotations

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import TABLES, hlo_short_name, table_for
from hilo_mlir.passmanager.registry import register_twins
from hilo_mlir.rewrite.retype import may_need_retype, retype_op
from hilo_mlir.support.diagnostics import op_error

TOKEN_TYPES = frozenset(t.token_type for t in TABLES.values())

#: Ops whose verifier demands a token operand or result.
TOKEN_REQUIRED = frozenset({"infeed", "outfeed", "send", "recv", "add_dependency"})

#: Token producers replaced by a ui8 constant.
TOKEN_PRODUCERS = frozenset({"after_all", "create_token"})


def convert_type(t, u8):
    """``t`` with every token (also inside tuples) replaced by ``u8``; None if unchanged."""
    if str(t) in TOKEN_TYPES:
        return u8
    if isinstance(t, ir.TupleType):
        elems, changed = [], False
        for i in range(t.num_types):
            e = t.get_type(i)
            n = convert_type(e, u8)
            changed |= n is not None
            elems.append(n if n is not None else e)
        return ir.TupleType.get_tuple(elems) if changed else None
    return None


#: Full names of the ops the pass rejects or replaces whatever the types say.
_ACTING_OPS = tuple(t.name(s) for t in TABLES.values() for s in sorted(TOKEN_REQUIRED | TOKEN_PRODUCERS))


def _run(module_op, ctx):
    with module_op.context:
        u8 = ir.RankedTensorType.get([], ir.IntegerType.get_unsigned(8), loc=module_op.location)
        # No token type and no token op anywhere (census, no walk): nothing to do.
        if not may_need_retype(ctx, module_op, lambda t: convert_type(t, u8), TOKEN_TYPES, _ACTING_OPS):
            return
    ops = []

    def visit(op):
        ops.append(op)
        return ir.WalkResult.ADVANCE

    module_op.walk(visit, ir.WalkOrder.PRE_ORDER)
    # 1. Refuse ops that cannot hold a ui8 before touching anything.
    for op in ops:
        if hlo_short_name(op.name) in TOKEN_REQUIRED:
            raise op_error(
                op,
                "requires a token operand or result and cannot be retyped to tensor<ui8> "
                "(replace-token-type-with-u8: lower or remove it before this pass)",
            )
    rw = ctx.rewriter
    memo: dict = {}  # type -> converted type or None (types hash by their uniqued pointer)

    def convert(t):
        try:
            return memo[t]
        except KeyError:
            n = memo[t] = convert_type(t, u8)
            return n

    with module_op.context:
        u8 = ir.RankedTensorType.get([], ir.IntegerType.get_unsigned(8), loc=module_op.location)
        zero = ir.DenseElementsAttr.get_splat(u8, ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), 0))
        # 2. Token producers -> ui8 constants.
        live = []
        for op in ops:
            short = hlo_short_name(op.name)
            if short in TOKEN_PRODUCERS:
                cst = rw.create(table_for(op).name("constant"), results=[u8], attributes={"value": zero}, loc=op.location, before=op)
                rw.replace_op(op, [cst.results[0]])
                ctx.stats["token-producers-replaced"] += 1
            else:
                live.append(op)
        # 3. Retype results, block arguments and function signatures.
        for op in live:
            retype_op(op, convert, ctx.stats, "values-retyped", "signatures-rewritten", rw)


register_twins(
    "replace-token-type-with-u8",
    "Replace every token type by tensor<ui8> (signatures, results, block arguments, after_all/create_token)",
    _run,
    anchor="builtin.module",
    class_name="ReplaceTokenTypeWithU8",
    statistics=("token-producers-replaced", "values-retyped", "signatures-rewritten"),
    source="seed 004 step 19 (unconditional); DESIGN.md catalogue step 19",
)
