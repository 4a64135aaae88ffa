"""StableHLO spine step 1b: ``convert-custom-call-to-all-reduce`` (StableHLO only).

``stablehlo.custom_call @mhlo.all_reduce`` (what the MHLO -> StableHLO
legalization emits for an all_reduce it cannot express) becomes
``stablehlo.all_reduce`` (:func:`_custom_call_to_all_reduce`). Seed 004 "The
five StableHLO-only insertions"; DESIGN.md catalogue row 1b.
"""

from __future__ import annotations

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import ALL_REDUCE_CALL_TARGET, MHLO, MHLO_ATTRIBUTES_ATTR, STABLEHLO
from hilo_mlir.ir.utils import dict_items, func_name, top_funcs
from hilo_mlir.passmanager.registry import PassInfo, register
from hilo_mlir.rewrite.pattern import RewritePattern, apply_patterns_once
from hilo_mlir.support.diagnostics import op_error


def _custom_call_to_all_reduce(module_op, ctx):
    """``stablehlo.custom_call @mhlo.all_reduce`` -> ``stablehlo.all_reduce``.

    The mhlo -> stablehlo legalization emits this custom call for an
    ``mhlo.all_reduce`` it cannot express: operands/results are the all-reduce's,
    ``called_computations = [@f]`` names the reducer function and
    ``mhlo.attributes = {replica_groups, channel_handle?, use_global_device_ids?}``
    holds the op's attributes. The reducer body (``func.return`` or
    ``stablehlo.return`` terminator) is cloned into the all_reduce region with a
    ``stablehlo.return``; a private reducer function is erased when no other
    symbol use remains (public ones are left to ``prune-functions``).

    Errors: a missing/ill-formed ``called_computations`` or ``mhlo.attributes``
    without ``replica_groups`` -> op_error naming the op.
    """
    pattern = CustomCallToAllReduce({func_name(f): f for f in top_funcs(module_op)})
    if apply_patterns_once(module_op, (pattern,), ctx):
        _erase_unused_reducers(module_op, pattern.funcs, pattern.used_reducers, ctx.rewriter)


class CustomCallToAllReduce(RewritePattern):
    """One ``stablehlo.custom_call @mhlo.all_reduce`` -> ``stablehlo.all_reduce`` (see :func:`_custom_call_to_all_reduce`).

    Args:
        funcs: the module's top-level functions by name (the reducers).

    Attributes:
        used_reducers: the reducers cloned so far (erased afterwards when private and unused).
    """

    name, statistic, roots = "custom-call-to-all-reduce", "all-reduces-converted", (STABLEHLO.name("custom_call"),)

    def __init__(self, funcs: dict):
        self.funcs = funcs
        self.used_reducers: set = set()

    def match(self, op, rw):
        attrs = op.attributes
        return "call_target_name" in attrs and ir.StringAttr(attrs["call_target_name"]).value == ALL_REDUCE_CALL_TARGET

    def rewrite(self, call, prw):
        rw = prw.rewriter
        fname, attrs = _all_reduce_call_parts(call, self.funcs)  # a malformed call is an error here, in walk order
        with call.context, call.location:
            ar = rw.create(
                STABLEHLO.name("all_reduce"),
                results=[r.type for r in call.results],
                operands=list(call.operands),
                attributes=attrs,
                regions=1,
                loc=call.location,
                before=call,
            )
            _clone_reducer(self.funcs[fname], ar.regions[0], call.location, rw)
        rw.replace_op(call, list(ar.results))
        self.used_reducers.add(fname)


def _all_reduce_call_parts(call, funcs: dict) -> tuple[str, dict]:
    """The reducer's name and the all_reduce's attributes of a ``custom_call @mhlo.all_reduce``.

    Raises:
        HiloError: at the call: no single ``called_computations`` reducer that
            exists, or no ``mhlo.attributes`` with ``replica_groups``.
    """
    target = "@" + ALL_REDUCE_CALL_TARGET
    if "called_computations" not in call.attributes:
        raise op_error(call, f"{target} needs called_computations = [@reducer]")
    cc = ir.ArrayAttr(call.attributes["called_computations"])
    if len(cc) != 1:
        raise op_error(call, f"{target} needs exactly one called computation")
    fname = ir.FlatSymbolRefAttr(cc[0]).value
    if fname not in funcs:
        raise op_error(call, f"{target} reducer @{fname} not found")
    if MHLO_ATTRIBUTES_ATTR not in call.attributes:
        raise op_error(call, f"{target} needs {MHLO_ATTRIBUTES_ATTR} = {{replica_groups = ...}}")
    attrs = dict_items(call.attributes[MHLO_ATTRIBUTES_ATTR])
    if "replica_groups" not in attrs:
        raise op_error(call, f"{target} {MHLO_ATTRIBUTES_ATTR} has no replica_groups")
    mhlo_attr, stablehlo_attr = f"#{MHLO.prefix}.", f"#{STABLEHLO.prefix}."
    if "channel_handle" in attrs and str(attrs["channel_handle"]).startswith(mhlo_attr):
        attrs["channel_handle"] = ir.Attribute.parse(str(attrs["channel_handle"]).replace(mhlo_attr, stablehlo_attr, 1))
    return fname, attrs


def _clone_reducer(reducer, region, loc, rw) -> None:
    """Clone the body of the function ``reducer`` into the empty ``region``, ending in ``stablehlo.return``."""
    src_block = reducer.regions[0].blocks[0]
    blk = rw.create_block(region, [a.type for a in src_block.arguments], [loc] * len(src_block.arguments))
    mapping = {a: b for a, b in zip(src_block.arguments, blk.arguments)}
    body = [o.operation for o in src_block.operations]
    for o in body[:-1]:
        c = rw.clone(o, at_end=blk)
        for old_r, new_r in zip(o.results, c.results):
            mapping[old_r] = new_r
        for i, v in enumerate(c.operands):
            if v in mapping:
                rw.set_operand(c, i, mapping[v])
    rw.create(STABLEHLO.ret, operands=[mapping.get(v, v) for v in body[-1].operands], loc=loc, at_end=blk)


def _erase_unused_reducers(module_op, funcs: dict, used: set, rw) -> None:
    """Erase the private reducers in ``used`` nothing references any more (one walk collects symbol uses)."""
    still_used: set[str] = set()

    def refs(op):
        for i in range(len(op.attributes)):
            _collect_symbols(op.attributes[i].attr, still_used)
        return ir.WalkResult.ADVANCE

    module_op.walk(refs)
    for fname in used:
        f = funcs[fname]
        # Public reducers are part of the module's interface: prune-functions
        # (step 24) drops them later if unreachable from main.
        vis = ir.StringAttr(f.attributes["sym_visibility"]).value if "sym_visibility" in f.attributes else "public"
        if fname not in still_used and vis == "private":
            rw.erase_op(f)


def _collect_symbols(attr, out: set) -> None:
    s = str(attr)
    if "@" not in s:
        return
    import re

    for m in re.finditer(r'@"?([\w.$\-]+)"?', s):
        out.add(m.group(1))


register(
    PassInfo(
        "convert-custom-call-to-all-reduce",
        "custom_call @mhlo.all_reduce -> all_reduce (StableHLO spine step 1b)",
        _custom_call_to_all_reduce,
        anchor="builtin.module",
        dialect="stablehlo",
        class_name="ConvertCustomCallToAllReduce",
        statistics=("all-reduces-converted",),
        source="seed 004 'The five StableHLO-only insertions' (1b); DESIGN.md row 1b",
    )
)
