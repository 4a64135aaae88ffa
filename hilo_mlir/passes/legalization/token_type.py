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

Patterns (:mod:`hilo_mlir.rewrite.pattern`): ``ReplaceTokenProducer``
(roots ``after_all``, ``create_token``) and ``RetypeTokens`` (every op kind
the census lists), one pre-order sweep. Cost: nothing when the module has no
token -- the census's type set (taken in its one walk), its op names and the
signatures of bodiless functions say so without a walk.

Source: seed 004 step 19 (unconditional, "!mhlo.token -> tensor<ui8>");
DESIGN.md catalogue step 19; the treatment of token-requiring ops is our
interpretation.
"""

from __future__ import annotations

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import TABLES, hlo_short_name, table_for
from hilo_mlir.passmanager.registry import register_twins
from hilo_mlir.rewrite.pattern import PatternRewriter, RewritePattern, apply_patterns_once
from hilo_mlir.rewrite.retype import retype_op
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
_REQUIRED_OPS = tuple(t.name(s) for t in TABLES.values() for s in sorted(TOKEN_REQUIRED))
_PRODUCER_OPS = tuple(t.name(s) for t in TABLES.values() for s in sorted(TOKEN_PRODUCERS))


class _Converter:
    """``type -> type with tokens replaced by tensor<ui8>``, or None (memoised per uniqued type)."""

    def __init__(self, u8):
        self.u8 = u8
        self.memo: dict = {}

    def __call__(self, t):
        try:
            return self.memo[t]
        except KeyError:
            n = self.memo[t] = convert_type(t, self.u8)
            return n

    def changes(self, op) -> bool:
        """Some result, region argument or (``func.func``) signature type of ``op`` holds a token."""
        if any(self(t) is not None for t in op.results.types):
            return True
        for reg in op.regions:
            for b in reg.blocks:
                if any(self(t) is not None for t in b.arguments.types):
                    return True
        if op.name == "func.func":
            ft = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            return any(self(t) is not None for t in ft.inputs) or any(self(t) is not None for t in ft.results)
        return False


class ReplaceTokenProducer(RewritePattern):
    """``after_all`` / ``create_token`` -> ``constant dense<0> : tensor<ui8>`` of the op's dialect (either dialect)."""

    name, roots, statistic = "replace-token-producer", _PRODUCER_OPS, "token-producers-replaced"

    def __init__(self, u8, zero):
        self.u8, self.zero = u8, zero

    def rewrite(self, op, rw: PatternRewriter) -> None:
        d = table_for(op)
        assert d is not None, "a root of this pattern is an mhlo or stablehlo op"
        cst = rw.create(d.name("constant"), results=[self.u8], attributes={"value": self.zero}, loc=op.location, before=op)
        rw.replace_op(op, [cst.results[0]])


class RetypeTokens(RewritePattern):
    """Any op with a token in a result, region argument or signature type: retyped in place."""

    name, counts = "retype-tokens", False

    def __init__(self, roots: tuple[str, ...], convert: _Converter):
        self.roots = roots
        self.convert = convert

    def match(self, op, rw: PatternRewriter) -> bool:
        return self.convert.changes(op) or rw.notify_match_failure(op, "no token type")

    def rewrite(self, op, rw: PatternRewriter) -> None:
        retype_op(op, self.convert, rw.stats, "values-retyped", "signatures-rewritten", rw.rewriter)


def _first_required(module_op):
    """The first op (pre-order) whose verifier requires a token, or None."""
    found: list = []

    def visit(op):
        if not found and hlo_short_name(op.name) in TOKEN_REQUIRED:
            found.append(op)
        return ir.WalkResult.ADVANCE

    module_op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found[0] if found else None


def _run(module_op, ctx):
    census = ctx.census
    with module_op.context:
        u8 = ir.RankedTensorType.get([], ir.IntegerType.get_unsigned(8), loc=module_op.location)
        convert = _Converter(u8)
        acting = ctx.module_may_contain(*_REQUIRED_OPS, *_PRODUCER_OPS)
        # No token type, no token op and no bodiless function with a token in its signature
        # (census, no walk): nothing to do.
        if (
            not acting
            and not census.may_hold_type(*TOKEN_TYPES)
            and not any(convert.changes(f) for f in census.signature_only_functions(ctx.analyses.checking))
        ):
            return
    # 1. Refuse ops that cannot hold a ui8 before touching anything.
    if ctx.module_may_contain(*_REQUIRED_OPS):
        op = _first_required(module_op)
        if op is not None:
            raise op_error(
                op,
                "requires a token operand or result and cannot be retyped to tensor<ui8> "
                "(replace-token-type-with-u8: lower or remove it before this pass)",
            )
    with module_op.context:
        zero = ir.DenseElementsAttr.get_splat(u8, ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), 0))
        # 2. Token producers -> ui8 constants; 3. every other op retyped (results, block arguments, signatures).
        others = tuple(sorted(n for n in census.names if n not in _PRODUCER_OPS))
        patterns = (ReplaceTokenProducer(u8, zero), RetypeTokens(others, convert))
        apply_patterns_once(module_op, patterns, ctx)


register_twins(
    "replace-token-type-with-u8",
    "Replace every token type by tensor<ui8> (signatures, results, block arguments, after_all/create_token)",
    _run,
    anchor="builtin.module",
    class_name="ReplaceTokenTypeWithU8",
    statistics=("token-producers-replaced", "values-retyped", "signatures-rewritten"),
    source="seed 004 step 19 (unconditional); DESIGN.md catalogue step 19",
)
