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

from ..dialects import STABLEHLO, table_for
from ..effects import EffectOracle
from ..diagnostics import op_error
from ..ir import ir
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
    if not ctx.module_may_contain("mhlo.collective_broadcast", "stablehlo.collective_broadcast"):
        ctx.mark_all_preserved()  # no collective_broadcast in the module
        return
    found = []

    def visit(op):
        d = table_for(op)
        if d is not None and d.is_op(op, "collective_broadcast"):
            found.append(op.operation)
        return ir.WalkResult.ADVANCE

    module_op.walk(visit)
    changed = False
    for op in found:
        d = table_for(op)
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
        rt = ir.RankedTensorType(t)
        n = int(groups.shape[1])
        shape = list(rt.shape)
        loc = op.location
        with op.context, loc:
            ip = ir.InsertionPoint(op)
            x = op.operands[0]
            if not shape:
                one = ir.RankedTensorType.get([1], rt.element_type)
                x = ir.Operation.create(d.name("reshape"), results=[one], operands=[x], ip=ip).results[0]
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
            ag = ir.Operation.create(d.name("all_gather"), results=[gathered_t], operands=[x], attributes=attrs, ip=ip)
            part_t = ir.RankedTensorType.get(g_shape, rt.element_type)
            sl = ir.Operation.create(
                d.name("slice"), results=[part_t], operands=[ag.results[0]],
                attributes={
                    "start_indices": d.i64_array([0] * len(g_shape)),
                    "limit_indices": d.i64_array(g_shape),
                    "strides": d.i64_array([1] * len(g_shape)),
                },
                ip=ip,
            )
            out = sl.results[0]
            if not shape:
                out = ir.Operation.create(d.name("reshape"), results=[rt], operands=[out], ip=ip).results[0]
        op.results[0].replace_all_uses_with(out)
        op.erase()
        ctx.stats["broadcasts-rewritten"] += 1
        changed = True
    if not changed:
        ctx.mark_all_preserved()


register(
    PassInfo(
        "collective-broadcast-to-all-gather",
        "collective_broadcast -> all_gather over the same groups + slice of the source replica's part (both dialects)",
        _broadcast_to_all_gather,
        anchor="builtin.module",
        dialect=None,
        class_name="CollectiveBroadcastToAllGather",
        source="seed 004 step 3 (CollectiveBroadcastToAllGatherPattern, one pass for both dialects); DESIGN.md row 3",
    )
)


# --------------------------------------------------------------------------- step 11

#: Collective kinds the coalescer groups (short names, both dialects).
_COALESCED = ("all_gather", "all_reduce", "reduce_scatter")
_PLURAL = {"all_gather": "AllGathers", "all_reduce": "AllReduces", "reduce_scatter": "ReduceScatters"}


def _nbytes(t) -> int:
    try:
        rt = ir.RankedTensorType(t)
    except (ValueError, TypeError):
        return 0
    if not rt.has_static_shape:
        return 0
    width = getattr(rt.element_type, "width", None)
    if width is None:
        try:
            width = ir.ComplexType(rt.element_type).element_type.width * 2
        except (ValueError, TypeError, AttributeError):
            width = 32
    n = 1
    for s in rt.shape:
        n *= s
    return n * max(1, width // 8)


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
    the kind's cap (``*-max-bytes`` options, seed: "independent per-kind byte
    caps"). Linear in the block size (one pass, dict of open windows).

    Short-circuit (seed @0x348e00): a kind with a variadic (already combined)
    op in the function is not coalesced: debug line
    ``Not Coalescing AllGathers as we have partially coalesced AllGathers in input.``
    """
    d = ctx.d
    if not ctx.module_may_contain(*[d.name(k) for k in _COALESCED]):
        ctx.stats["collectives-moved"] += 0  # the statistic is reported even when nothing moved
        ctx.mark_all_preserved()  # no collective of a coalesced kind in the module
        return
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
        if sum(1 for o in ops if d.is_op(o, *_COALESCED)) < 2:
            continue
        pos = {o: (i, 0) for i, o in enumerate(ops)}
        windows: dict = {}  # key -> [last op of the window, bytes]
        last_barrier = (-1, 0)
        tail = None  # the last visited op in the current order
        for o in ops:
            kind = d.short(o)
            if kind in _COALESCED and kind not in partial:
                key = (
                    kind,
                    str(o.attributes["replica_groups"]) if "replica_groups" in o.attributes else "",
                    "use_global_device_ids" in o.attributes,
                    _channel_type(o),
                )
                size = sum(_nbytes(r.type) for r in o.results)
                w = windows.get(key)
                if w is not None:
                    end = w[0]
                    deps_ok = all((p := _ancestor_in(v, block)) is None or pos[p] <= pos[end] for v in o.operands)
                    if deps_ok and last_barrier < pos[end] and w[1] + size <= caps[kind]:
                        if end != tail:
                            o.move_after(end)
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
            elif effects(o):  # the one side-effect model: regions, composites, func.call
                last_barrier = pos[o]
            tail = o
    ctx.stats["collectives-moved"] += moved
    if not moved:
        ctx.mark_all_preserved()


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
    module = module_op
    calls, funcs = [], {}

    for op in module.regions[0].blocks[0].operations:
        o = op.operation
        if o.name == "func.func":
            funcs[ir.StringAttr(o.attributes["sym_name"]).value] = o

    def visit(op):
        if op.name == "stablehlo.custom_call" and "call_target_name" in op.attributes and \
                ir.StringAttr(op.attributes["call_target_name"]).value == "mhlo.all_reduce":
            calls.append(op.operation)
        return ir.WalkResult.ADVANCE

    module.walk(visit)
    used_reducers = set()
    for call in calls:
        if "called_computations" not in call.attributes:
            raise op_error(call, "@mhlo.all_reduce needs called_computations = [@reducer]")
        cc = ir.ArrayAttr(call.attributes["called_computations"])
        if len(cc) != 1:
            raise op_error(call, "@mhlo.all_reduce needs exactly one called computation")
        fname = ir.FlatSymbolRefAttr(cc[0]).value
        reducer = funcs.get(fname)
        if reducer is None:
            raise op_error(call, f"@mhlo.all_reduce reducer @{fname} not found")
        if "mhlo.attributes" not in call.attributes:
            raise op_error(call, "@mhlo.all_reduce needs mhlo.attributes = {replica_groups = ...}")
        mattrs = ir.DictAttr(call.attributes["mhlo.attributes"])
        attrs = {}
        for i in range(len(mattrs)):
            na = mattrs[i]
            attrs[na.name] = na.attr
        if "replica_groups" not in attrs:
            raise op_error(call, "@mhlo.all_reduce mhlo.attributes has no replica_groups")
        if "channel_handle" in attrs and str(attrs["channel_handle"]).startswith("#mhlo."):
            attrs["channel_handle"] = ir.Attribute.parse(str(attrs["channel_handle"]).replace("#mhlo.", "#stablehlo.", 1))
        src_block = reducer.regions[0].blocks[0]
        with call.context, call.location:
            ar = ir.Operation.create(
                STABLEHLO.name("all_reduce"), results=[r.type for r in call.results],
                operands=list(call.operands), attributes=attrs, regions=1, ip=ir.InsertionPoint(call),
            )
            blk = ir.Block.create_at_start(ar.regions[0], [a.type for a in src_block.arguments])
            mapping = {a: b for a, b in zip(src_block.arguments, blk.arguments)}
            ip = ir.InsertionPoint(blk)
            body = [o.operation for o in src_block.operations]
            for o in body[:-1]:
                c = o.clone(ip)
                for old_r, new_r in zip(o.results, c.results):
                    mapping[old_r] = new_r
                for i, v in enumerate(c.operands):
                    if v in mapping:
                        c.operands[i] = mapping[v]
            term = body[-1]
            ir.Operation.create(STABLEHLO.ret, operands=[mapping.get(v, v) for v in term.operands], ip=ip)
        for r_old, r_new in zip(call.results, ar.results):
            r_old.replace_all_uses_with(r_new)
        call.erase()
        used_reducers.add(fname)
        ctx.stats["all-reduces-converted"] += 1
    if not calls:
        ctx.mark_all_preserved()
        return
    # Erase reducers nobody else references (linear: one walk collects symbol uses).
    still_used = set()

    def refs(op):
        for i in range(len(op.attributes)):
            _collect_symbols(op.attributes[i].attr, still_used)
        return ir.WalkResult.ADVANCE

    module.walk(refs)
    for fname in used_reducers:
        f = funcs[fname]
        vis = ir.StringAttr(f.attributes["sym_visibility"]).value if "sym_visibility" in f.attributes else "public"
        # Public reducers are part of the module's interface: prune-functions
        # (step 24) drops them later if unreachable from main.
        if fname not in still_used and vis == "private":
            f.erase()


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
        "stablehlo.custom_call @mhlo.all_reduce -> stablehlo.all_reduce (StableHLO spine step 1b)",
        _custom_call_to_all_reduce,
        anchor="builtin.module",
        dialect="stablehlo",
        class_name="ConvertCustomCallToAllReduce",
        source="seed 004 'The five StableHLO-only insertions' (1b); DESIGN.md row 1b",
    )
)
