"""Collective rewrites of the spines: steps 3 and 11 and the StableHLO insertion 1b.

* ``collective-broadcast-to-all-gather`` (step 3; one name for both dialects,
  as the binary's ``CollectiveBroadcastToAllGatherPattern`` matches
  ``{mhlo,stablehlo}.CollectiveBroadcastOp``; seed 004 step 3 and "Class
  hierarchy"; behaviour: DESIGN.md catalogue row 3).
* ``coalesce-collective-ops`` (step 11, twin ``stablehlo-coalesce-collective-ops``;
  seed 004 step 11 and "CoalesceCollectiveOps (step 11)"; DESIGN.md row 11).
* ``convert-custom-call-to-all-reduce`` (StableHLO step 1b; seed 004 "The five
  StableHLO-only insertions"; DESIGN.md row 1b).
"""

from __future__ import annotations

import numpy as np

from ..dialects import ALL_REDUCE_CALL_TARGET, MHLO, MHLO_ATTRIBUTES_ATTR, STABLEHLO, TABLES, table_for
from ..diagnostics import op_error
from ..effects import EffectOracle
from ..ir import ir
from ..ir_utils import dict_items, func_name, top_funcs, type_bytes
from ..registry import Option, PassInfo, register, register_twins


# --------------------------------------------------------------------------- step 3


def _channel_id(op) -> int:
    import re

    m = re.search(r"handle\s*=\s*(-?\d+)", str(op.attributes["channel_handle"]))
    return int(m.group(1)) if m else 0


def _replica_groups(op) -> np.ndarray | None:
    if "replica_groups" not in op.attributes:
        return None
    return np.array(ir.DenseIntElementsAttr(op.attributes["replica_groups"])).astype(np.int64)


def _broadcast_to_all_gather(module_op, ctx):
    """Rewrite every ``collective_broadcast`` (mhlo or stablehlo) in the module.

    ``%r = collective_broadcast(%x) {replica_groups = G (k x n)}`` with
    ``%x : tensor<d0 x ...>`` becomes::

        %g = all_gather(%x') {all_gather_dim = 0, replica_groups = G, channel_handle}
             : tensor<(n*d0') x ...>          # %x' = %x reshaped to 1-D-leading for rank 0
        %r = slice %g [0:d0', ...]            # the part of G[i][0], the source replica
        (reshape back for rank 0)

    StableHLO semantics: every process of group ``G[i]`` receives the operand
    of ``G[i][0]``; ``all_gather`` concatenates the group members' operands in
    group order, so the first ``d0`` rows are exactly the source's operand.

    With a ``channel_handle`` (id > 0) the broadcast is cross-partition; the
    all_gather gets ``use_global_device_ids`` so its groups are read as device
    ids, which equal partition ids when ``num_replicas = 1``.

    Left alone (debug line): no or empty ``replica_groups`` (a process in no
    group gets zeros from collective_broadcast, but all_gather would gather
    everyone), groups padded with ``-1``, dynamic shapes.
    """
    if not ctx.module_may_contain(*[t.name("collective_broadcast") for t in TABLES.values()]):
        return  # no collective_broadcast in the module
    found = []

    def visit(op):
        d = table_for(op)
        if d is not None and d.is_op(op, "collective_broadcast"):
            found.append(op.operation)
        return ir.WalkResult.ADVANCE

    module_op.walk(visit)
    for op in found:
        groups = _replica_groups(op)
        if groups is None or groups.size == 0:
            ctx.debug(f"collective_broadcast at {op.location}: empty replica_groups; left alone")
            continue
        if (groups < 0).any():
            ctx.debug(f"collective_broadcast at {op.location}: replica_groups padded with -1; left alone")
            continue
        t = op.results[0].type
        if t.typeid != ir.RankedTensorType.static_typeid or not ir.RankedTensorType(t).has_static_shape:
            ctx.debug(f"collective_broadcast at {op.location}: dynamic shape; left alone")
            continue
        with op.context, op.location:
            out = _gather_and_slice(op, table_for(op), int(groups.shape[1]), ctx.rewriter)
        ctx.rewriter.replace_op(op, [out])
        ctx.stats["broadcasts-rewritten"] += 1


def _gather_and_slice(op, d, n: int, rw):
    """Build the all_gather + slice (+ reshapes for rank 0) replacing ``collective_broadcast``
    ``op`` over groups of ``n`` before it; returns the value replacing its result."""
    rt = ir.RankedTensorType(op.results[0].type)
    shape = list(rt.shape)
    loc = op.location
    x = op.operands[0]
    if not shape:
        one = ir.RankedTensorType.get([1], rt.element_type)
        x = rw.create(d.name("reshape"), results=[one], operands=[x], loc=loc, before=op).results[0]
        g_shape = [1]
    else:
        g_shape = shape
    gathered_t = ir.RankedTensorType.get([n * g_shape[0]] + g_shape[1:], rt.element_type)
    attrs = {
        "all_gather_dim": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0),
        "replica_groups": op.attributes["replica_groups"],
    }
    if "channel_handle" in op.attributes:
        # collective_broadcast with a channel is cross-partition (groups are
        # partition ids); all_gather with a channel and use_global_device_ids
        # reads groups as flattened device ids: the same ids when
        # num_replicas = 1 (the Neuron case).
        attrs["channel_handle"] = op.attributes["channel_handle"]
        if _channel_id(op) > 0:
            attrs["use_global_device_ids"] = ir.UnitAttr.get()
    ag = rw.create(d.name("all_gather"), results=[gathered_t], operands=[x], attributes=attrs, loc=loc, before=op)
    part_t = ir.RankedTensorType.get(g_shape, rt.element_type)
    sl = rw.create(
        d.name("slice"), results=[part_t], operands=[ag.results[0]],
        attributes={
            "start_indices": d.i64_array([0] * len(g_shape)),
            "limit_indices": d.i64_array(g_shape),
            "strides": d.i64_array([1] * len(g_shape)),
        },
        loc=loc, before=op,
    )
    out = sl.results[0]
    if not shape:
        out = rw.create(d.name("reshape"), results=[rt], operands=[out], loc=loc, before=op).results[0]
    return out


register(
    PassInfo(
        "collective-broadcast-to-all-gather",
        "collective_broadcast -> all_gather over the same groups + slice of the source replica's part (both dialects)",
        _broadcast_to_all_gather,
        anchor="builtin.module",
        dialect=None,
        class_name="CollectiveBroadcastToAllGather",
        statistics=("broadcasts-rewritten",),
        ported=True,
        source="seed 004 step 3 (CollectiveBroadcastToAllGatherPattern, one pass for both dialects); DESIGN.md row 3",
    )
)


# --------------------------------------------------------------------------- step 11

#: Collective kinds the coalescer groups (short names, both dialects).
_COALESCED = ("all_gather", "all_reduce", "reduce_scatter")
_PLURAL = {"all_gather": "AllGathers", "all_reduce": "AllReduces", "reduce_scatter": "ReduceScatters"}


def _coalesce(func_op, ctx):
    """Move same-kind collectives with equal groups next to each other (per block).

    Key: (kind, ``replica_groups``, ``use_global_device_ids``, ``channel_handle``
    type). A collective ``C`` moves up to just after the last member ``W`` of the
    open window of its key when every operand of ``C`` is defined at or before
    ``W`` (dominance, from an order index per block) and no other side-effecting
    op (custom_call, send/recv, optimization_barrier, a collective of a kind
    this pass does not coalesce, ...) lies between ``W`` and ``C``: collectives
    of the coalesced kinds may pass each other (that is this pass's job),
    nothing else may. A window is also closed when its result bytes would pass
    the kind's cap (``*-max-bytes`` options: independent per-kind byte caps).
    Linear in the block size (one pass, dict of open windows).

    Short-circuit: a kind with a variadic (already combined) op in the
    function is not coalesced: debug line
    ``Not Coalescing AllGathers as we have partially coalesced AllGathers in input.``
    """
    d = ctx.d
    if not ctx.module_may_contain(*[d.name(k) for k in _COALESCED]):
        ctx.stats["collectives-moved"] += 0  # the statistic is reported even when nothing moved
        return  # no collective of a coalesced kind in the module
    caps = {
        "all_gather": ctx.options.all_gather_max_bytes,
        "all_reduce": ctx.options.all_reduce_max_bytes,
        "reduce_scatter": ctx.options.reduce_scatter_max_bytes,
    }
    blocks, partial = [], set()

    def visit(op):
        if d.is_op(op, *_COALESCED) and len(op.operands) > 1:
            partial.add(d.short(op))
        for r in op.regions:
            for b in r.blocks:
                blocks.append(b)
        return ir.WalkResult.ADVANCE

    func_op.walk(visit)
    for kind in sorted(partial):
        ctx.debug(f"Not Coalescing {_PLURAL[kind]} as we have partially coalesced {_PLURAL[kind]} in input.")
    moved = 0
    effects = EffectOracle(func_op)
    for block in blocks:
        ops = [o.operation for o in block.operations]
        if sum(1 for o in ops if d.is_op(o, *_COALESCED)) >= 2:
            moved += _coalesce_block(block, ops, caps, partial, effects, ctx)
    ctx.stats["collectives-moved"] += moved


def _window_key(o, kind: str) -> tuple:
    return (
        kind,
        str(o.attributes["replica_groups"]) if "replica_groups" in o.attributes else "",
        "use_global_device_ids" in o.attributes,
        _channel_type(o),
    )


def _coalesce_block(block, ops: list, caps: dict, partial: set, effects, ctx) -> int:
    """One sweep of ``block`` (its ``ops``) with a dict of open windows; returns the ops moved."""
    d = ctx.d
    pos = {o: (i, 0) for i, o in enumerate(ops)}
    windows: dict = {}  # key -> [last op of the window, bytes]
    last_barrier = (-1, 0)
    tail = None  # the last visited op in the current order
    moved = 0
    for o in ops:
        kind = d.short(o)
        if kind not in _COALESCED or kind in partial:
            if effects(o):  # the one side-effect model: regions, composites, func.call
                last_barrier = pos[o]
            tail = o
            continue
        key = _window_key(o, kind)
        size = sum(type_bytes(r.type) or 0 for r in o.results)
        w = windows.get(key)
        if w is not None:
            end = w[0]
            deps_ok = all((p := _ancestor_in(v, block)) is None or pos[p] <= pos[end] for v in o.operands)
            if deps_ok and last_barrier < pos[end] and w[1] + size <= caps[kind]:
                if end != tail:
                    ctx.rewriter.move_after(o, end)
                    moved += 1
                    ctx.debug(f"moved {o.name} at {o.location} next to its window")
                else:
                    tail = o
                pos[o] = (pos[end][0], pos[end][1] + 1)
                w[0], w[1] = o, w[1] + size
                continue
            why = ("an operand is defined after the window" if not deps_ok else
                   "a side-effecting op lies in between" if last_barrier >= pos[end] else "byte cap reached")
            ctx.debug(f"{o.name} at {o.location} starts a new window ({why})")
        windows[key] = [o, size]
        tail = o
    return moved


def _ancestor_in(v, block):
    """The op of ``block`` that defines ``v`` or contains its definition; None for
    block arguments and values from enclosing regions (they dominate the block)."""
    if isinstance(v.owner, ir.Block):
        return None
    op = v.owner.operation
    while op is not None:
        if op.block == block:
            return op
        parent = op.parent
        op = parent.operation if parent is not None else None
        if op is not None and op.name in ("func.func", "builtin.module"):
            return None
    return None


def _channel_type(op) -> str:
    if "channel_handle" not in op.attributes:
        return ""
    return str(op.attributes["channel_handle"]).split("type", 1)[-1]


register_twins(
    "coalesce-collective-ops",
    "Move same-kind collectives with equal replica_groups next to each other where dominance allows",
    _coalesce,
    class_name="CoalesceCollectiveOps",
    statistics=("collectives-moved",),
    ported=True,
    options=(
        Option("all-gather-max-bytes", int, 1 << 30, "byte cap of one all_gather window"),
        Option("all-reduce-max-bytes", int, 1 << 30, "byte cap of one all_reduce window"),
        Option("reduce-scatter-max-bytes", int, 1 << 30, "byte cap of one reduce_scatter window"),
    ),
    source="seed 004 step 11 and 'CoalesceCollectiveOps (step 11)' (@0x20931d0, message @0x348e00); DESIGN.md row 11",
)


# --------------------------------------------------------------------------- step 1b


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
    funcs = {func_name(f): f for f in top_funcs(module_op)}
    calls = []
    custom_call = STABLEHLO.name("custom_call")

    def visit(op):
        if op.name == custom_call and "call_target_name" in op.attributes and \
                ir.StringAttr(op.attributes["call_target_name"]).value == ALL_REDUCE_CALL_TARGET:
            calls.append(op.operation)
        return ir.WalkResult.ADVANCE

    module_op.walk(visit)
    if not calls:
        return
    rw = ctx.rewriter
    used_reducers = set()
    for call in calls:
        fname, attrs = _all_reduce_call_parts(call, funcs)
        with call.context, call.location:
            ar = rw.create(STABLEHLO.name("all_reduce"), results=[r.type for r in call.results],
                           operands=list(call.operands), attributes=attrs, regions=1, loc=call.location, before=call)
            _clone_reducer(funcs[fname], ar.regions[0], call.location, rw)
        rw.replace_op(call, list(ar.results))
        used_reducers.add(fname)
        ctx.stats["all-reduces-converted"] += 1
    _erase_unused_reducers(module_op, funcs, used_reducers, rw)


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
    still_used = set()

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
        ported=True,
        source="seed 004 'The five StableHLO-only insertions' (1b); DESIGN.md row 1b",
    )
)
