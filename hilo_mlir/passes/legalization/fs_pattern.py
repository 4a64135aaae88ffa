"""Spine step 12: ``convert-fs-pattern-to-custom-calls`` (twin ``stablehlo-convert-fs-pattern-to-custom-calls``).

"FS" names a subgraph the backend runs as one custom call; the only one is
``AwsFSPattern5``: the softmax subgraph over one dimension (provenance:
``PassInfo.source``).

Matched (the form ``jax.nn.softmax`` lowers to, see
``corpus/jax/attention.stablehlo.mlir``), ``x : tensor<S x fT>``, ``D`` one
dimension::

    %m  = reduce(%x init: -inf) applies maximum across dimensions = [D]
    %m' = maximum(broadcast(-inf), %m)              # optional (JAX emits it)
    %b  = broadcast_in_dim / reshape chain of %m' back to S (re-inserting D)
    %e  = exponential(subtract(%x, %b))
    %s  = reduce(%e init: 0) applies add across dimensions = [D]
    %r  = divide(%e, <broadcast chain of %s back to S>)

Every intermediate value must be used only inside the subgraph (``%e`` twice).
Rewrite: ``%r = custom_call @AwsFSPattern5(%x) {backend_config = "{\\"dim\\": D}"}``
with ``%r``'s type; the subgraph ops are erased. The printer emits it as a
``SoftmaxOp(dim=D)``. Custom calls are not evaluable by the reference
interpreter, so this rewrite is tested structurally (lit), not numerically.
"""

from __future__ import annotations

import math

from hilo_mlir.fusion import report as fusion_report
from hilo_mlir.fusion.report.vocabulary import SOFTMAX
from hilo_mlir.ir.binding import checking_mode_enabled, identity_key, ir
from hilo_mlir.ir.utils import has_more_uses, int_list, is_reduction_identity, reducer_kind
from hilo_mlir.passmanager.registry import Statistic, register_twins

TARGET = "AwsFSPattern5"
RULE = "ConvertFSPatternToCustomCalls"

#: i64_list of an attribute, memoised by the attribute's uniqued pointer for one run
#: of the pass (the softmaxes of a model share their dimension lists); cleared per run.
_INTS: dict = {}


def _ints(attr) -> list[int]:
    key = identity_key(attr)
    hit = _INTS.get(key)
    if hit is None:
        hit = _INTS[key] = int_list(attr)
    return hit


#: reduction-identity answers of the reduce inits that are constants, by value key (the pass erases no
#: constant, so such a key cannot be reused by another value while it runs); cleared per run.
_IDENTITY: dict = {}

#: "the producer was not read" (a producer is an ``ir.Operation`` or None for a block argument)
_UNREAD = object()


def _producer(v):
    """The ``ir.Operation`` defining ``v``, or None for a block argument (one binding call: the owner)."""
    owner = v.owner  # an OpView, or a Block for a block argument
    if isinstance(owner, ir.Block):
        return None
    return owner.operation


def _def(v, d, *shorts):
    op = _producer(v)
    return op if op is not None and d.is_op(op, *shorts) else None


def _unbroadcast(v, d, chain):
    """Follow broadcast_in_dim / size-1 reshape producers back from ``v``.

    Returns ``(source value, mapping, its producer)``: ``mapping[i]`` is the dimension of
    ``v`` that dimension ``i`` of the source becomes (None for a size-1 source
    dimension that was dropped or broadcast); the producer of the source value as
    :func:`_producer` gives it, or :data:`_UNREAD`. ``chain`` collects the ops.
    """
    vt = v.type  # builtin types come downcast: isinstance is the typeid test without a call
    if not isinstance(vt, ir.RankedTensorType):
        return v, [], _UNREAD
    mapping = list(range(vt.rank))
    vshape = None  # the shape of v once read (the previous step's source shape): read once per value
    while True:
        op = _producer(v)
        short = d.short(op) if op is not None else None
        if short != "broadcast_in_dim" and short != "reshape":
            return v, mapping, op
        src = op.operands[0]
        st = src.type
        if not isinstance(st, ir.RankedTensorType):
            return v, mapping, op
        sshape = st.shape  # one binding call (each .shape builds a new list)
        if vshape is None:
            vshape = vt.shape
        if short == "broadcast_in_dim":
            new = _through_broadcast(op, sshape, vshape, mapping)
        else:
            new = _through_reshape(sshape, vshape, mapping)
            if new is None:
                return v, mapping, op  # a real reshape: stop here
        mapping = new
        chain.append(op)
        v, vshape = src, sshape


def _through_broadcast(op, sshape, rshape, mapping: list) -> list:
    """The mapping of ``op``'s operand (shape ``sshape``) from the mapping of its result (shape ``rshape``)."""
    bd = _ints(op.attributes["broadcast_dimensions"])
    new = []
    for i in range(len(sshape)):
        if sshape[i] != 1:
            new.append(mapping[bd[i]])
            continue
        new.append(mapping[bd[i]] if rshape[bd[i]] == 1 else None)
    return new


def _through_reshape(sshape, rshape, mapping: list):
    """As :func:`_through_broadcast` for a reshape (operand shape ``sshape``, result shape ``rshape``) that only
    adds or drops size-1 dimensions; None otherwise."""
    src_big = [i for i in range(len(sshape)) if sshape[i] != 1]
    res_big = [i for i in range(len(rshape)) if rshape[i] != 1]
    if [sshape[i] for i in src_big] != [rshape[i] for i in res_big]:
        return None
    new = [None] * len(sshape)
    for si, ri in zip(src_big, res_big):
        new[si] = mapping[ri]
    return new


def _is_neg_inf_splat(v, d) -> bool:
    while True:
        c = _producer(v)
        if c is None:
            return False
        short = d.short(c)
        if short != "broadcast_in_dim":
            break
        v = c.operands[0]
    if short != "constant":
        return False
    try:
        dense = ir.DenseElementsAttr(c.attributes["value"])
        if not dense.is_splat:
            return False
        f = ir.FloatAttr(dense.get_splat_value()).value
    except (ValueError, TypeError):
        return False
    return math.isinf(f) and f < 0


def _is_identity(v, d, kind: str, check: bool) -> bool:
    """:func:`is_reduction_identity` of ``v``, memoised in :data:`_IDENTITY` when ``v`` is a constant's
    result (``check``: the checking mode compares a memoised answer with the function)."""
    key = (hash(v), kind)
    hit = _IDENTITY.get(key)
    if hit is not None:
        if check and hit != is_reduction_identity(v, kind):
            raise AssertionError(f"convert-fs-pattern-to-custom-calls: stale reduction-identity memo for a '{kind}' init")
        return hit
    ok = is_reduction_identity(v, kind)
    if _def(v, d, "constant") is not None:
        _IDENTITY[key] = ok
    return ok


def _reduce_over(v, d, kind, dim_x, x=None, r=_UNREAD, check: bool = False):
    """``v`` is a single-operand ``kind``-reduce over exactly ``[dim_x]`` (of ``x`` if given).
    ``r``: the producer of ``v`` when already read (:func:`_unbroadcast`)."""
    if r is _UNREAD:
        r = _producer(v)
    if r is None or not d.is_op(r, "reduce"):
        return None
    operands = r.operands
    if len(operands) != 2 or len(r.results) != 1:
        return None
    if _ints(r.attributes["dimensions"]) != [dim_x]:
        return None
    if reducer_kind(r, d) != kind or not _is_identity(operands[1], d, kind, check):
        return None
    if x is not None and operands[0] != x:
        return None
    return r


def _shift_source(v, d, p=_UNREAD):
    """Strip the optional ``maximum(-inf, m)`` from the shift's source: ``(m, maximum op or None, m's producer
    or _UNREAD)``, or ``(None, maximum op, _UNREAD)`` when it is a maximum against anything but a splat -inf.
    ``p``: the producer of ``v`` when already read."""
    if p is _UNREAD:
        p = _producer(v)
    if p is None or not d.is_op(p, "maximum"):
        return v, None, p
    operands = p.operands
    a, b = operands[0], operands[1]
    if _is_neg_inf_splat(a, d):
        return b, p, _UNREAD
    if _is_neg_inf_splat(b, d):
        return a, p, _UNREAD
    return None, p, _UNREAD


def _reduced_dim(map_s, map_m, n: int, div, ctx):
    """The one dimension of rank-``n`` x both broadcasts re-insert, or ``(None, reason code)``."""
    if len(map_s) != n - 1 or len(map_m) != n - 1 or None in map_s or None in map_m:
        ctx.debug(f"divide at {div.location}: denominator/shift is not a broadcast of a rank-{n - 1} reduce")
        return None, "not-rank-reducing-broadcast"
    missing = sorted(set(range(n)) - set(map_s))
    if len(missing) != 1 or map_s != [i for i in range(n) if i != missing[0]] or map_m != map_s:
        ctx.debug(f"divide at {div.location}: broadcasts do not re-insert one reduced dimension")
        return None, "broadcast-dims-mismatch"
    return missing[0], None


def _match(div, d, ctx, check: bool = False):
    """``((x, dim, ops of the subgraph, the same in erasure order as batches for :func:`_erase`), None)``;
    ``(None, (reason code, culprit))`` for a candidate (a divide of an exponential) that fails a check;
    ``(None, None)`` for any other divide. ``check``: the checking mode (memoised answers are compared with the slow truth)."""
    operands = div.operands
    e = operands[0]
    exp = _def(e, d, "exponential")  # the cheapest test first
    if exp is None:
        return None, None
    den = operands[1]
    rtype = div.result.type
    if not isinstance(rtype, ir.RankedTensorType) or not rtype.has_static_shape:  # builtin types come downcast
        return None, ("dynamic-shape", None)
    if not isinstance(rtype.element_type, ir.FloatType):
        return None, ("dtype-not-float", None)
    n = rtype.rank
    chain_s: list = []
    s_val, map_s, s_producer = _unbroadcast(den, d, chain_s)
    sub = _def(exp.operands[0], d, "subtract")
    if sub is None:
        ctx.debug(f"divide at {div.location}: exponential operand is not a subtract")
        return None, ("exp-operand-not-subtract", exp)
    sub_operands = sub.operands
    x = sub_operands[0]
    if x.type != rtype:
        return None, ("type-mismatch", sub)
    chain_m: list = []
    m_val, map_m, m_producer = _unbroadcast(sub_operands[1], d, chain_m)
    m_val, maxop, m_producer = _shift_source(m_val, d, m_producer)
    if m_val is None:
        return None, ("max-not-against-neg-inf", maxop)
    if maxop is not None:
        chain_m.append(maxop)  # the -inf constant and its broadcast stay (dead code is step 13's job)
    dim, code = _reduced_dim(map_s, map_m, n, div, ctx)
    if dim is None:
        return None, (code, None)
    rsum = _reduce_over(s_val, d, "add", dim, e, s_producer, check)
    rmax = _reduce_over(m_val, d, "maximum", dim, x, m_producer, check)
    if rsum is None or rmax is None:
        ctx.debug(f"divide at {div.location}: not sum(exp(x - max(x))) over one dimension")
        return None, ("not-softmax-reduces", None)
    # the subgraph from the root up, and the same ops with every op after its users (the
    # erasure order, in batches: see _erase): exp feeds both div and rsum; each chain lists
    # an op before its producer
    ops = [div, exp, *chain_s, rsum, sub, *chain_m, rmax]
    return (x, dim, ops, [[div, *chain_s], [rsum], [exp, sub, *chain_m], [rmax]]), None


def _user_outside(ops, root, exp=None, check: bool = False):
    """A user, outside ``ops``, of a result of an op of ``ops`` other than ``root``; None if there is none.

    ``exp`` (the matched ``exponential``; the others of ``ops`` but ``root`` have one result
    each): the fast test. :func:`_match` saw every op of ``ops`` but ``root`` feed an operand
    of another op of ``ops`` (``exp`` two: the divide and the sum), so an op whose result has
    no more uses than that has no user outside; the owners of the uses (and the slow scan
    below, the truth) are read only when some result has more. ``check`` (the checking
    mode, ``HILO_MLIR_CHECK_ANALYSES=1``): run the slow scan too and compare.
    """
    if exp is not None:
        fast = True
        for op in ops:
            if op is not root and has_more_uses(op.result, 2 if op is exp else 1):
                fast = False
                break
        if fast:
            if check:
                slow = _user_outside(ops, root)
                if slow is not None:
                    raise AssertionError(f"convert-fs-pattern-to-custom-calls: the use-count test missed the user '{slow.name}'")
            return None
    members = {identity_key(m) for m in ops}  # the subgraph has ~10 ops: one pointer read each
    for op in ops:
        if op == root:
            continue
        for r in op.results:
            for use in r.uses:
                owner = use.owner
                if identity_key(owner) not in members:
                    return owner.operation
    return None


def _run(func_op, ctx):
    rec = fusion_report.recorder(ctx, func_op)
    d = ctx.d
    # The candidates, from the census (walk order, no walk of the function).
    divs = ctx.ops_named(func_op, d.name("divide"))
    _INTS.clear()
    _IDENTITY.clear()
    try:
        _rewrite(divs, d, ctx, rec)
    finally:
        _INTS.clear()  # attribute pointers are only stable while their context lives
        _IDENTITY.clear()  # value keys only while the run erases no constant
        fusion_report.function_done(ctx, func_op)


def _refuse(rec, div, code: str, culprit=None) -> None:
    if rec is not None:
        detail = culprit.name if culprit is not None else (str(div.results[0].type) if code == "dtype-not-float" else None)
        if code == "intermediate-used-outside":
            detail = f"{culprit.name}@{rec.loc(culprit)}"
        rec.refused(RULE, SOFTMAX, div, code, detail, culprit)


def _rewrite(divs, d, ctx, rec) -> int:
    n = 0
    rw = ctx.rewriter
    check = checking_mode_enabled()
    call_name = d.name("custom_call")
    attributes_of: dict = {}  # dim -> the custom call's attributes (uniqued by the context: made once per run)
    # A divide can only be erased as the root of its own match, so handles stay valid.
    for div in divs:
        m, refusal = _match(div, d, ctx, check)
        if m is None:
            if refusal is not None:
                _refuse(rec, div, *refusal)
            continue
        x, dim, ops, erase_order = m
        outside = _user_outside(ops, div, ops[1], check)  # ops[1]: the exponential
        if outside is not None:
            ctx.debug(f"divide at {div.location}: a softmax intermediate has users outside the pattern")
            _refuse(rec, div, "intermediate-used-outside", outside)
            continue
        if rec is not None:
            rec.formed(RULE, SOFTMAX, list(reversed(ops)))
        attributes = attributes_of.get(dim)
        if attributes is None:
            with div.context:
                attributes = attributes_of[dim] = {
                    "call_target_name": ir.StringAttr.get(TARGET),
                    "backend_config": ir.StringAttr.get('{"dim": %d}' % dim),  # noqa: UP031 - %d as the binary prints it
                }
        res = div.result  # a divide has one result
        call = rw.create(call_name, results=[res.type], operands=[x], attributes=attributes, loc=div.location, before=div)
        rw.replace_all_uses_with(res, call.result)
        # every op is listed after its users and _user_outside found no user outside the subgraph, so each has
        # no use left when its turn comes (the rewriter's checking mode checks it)
        _erase(rw, erase_order)
        n += 1
        ctx.stats["softmax-patterns"] += 1
    return n


def _erase(rw, batches: list[list]) -> None:
    """Erase the matched subgraph: ``batches`` (from :func:`_match`), in order, each op after its users.

    The two reduces (the only ops with regions) come as batches of their own, erased by
    ``erase_op``: a batch that mixes an op with regions and others makes the rewriter read the
    parent chain of every op of the batch (an op view per parent) to rule out nesting. The same
    erasures in the same order as one ``erase_ops`` of the concatenation.
    """
    for batch in batches:
        if len(batch) == 1:
            rw.erase_op(batch[0])
        else:
            rw.erase_ops(batch)


class _FSPatternState(fusion_report.ReportRun):
    """Per-run state of convert-fs-pattern-to-custom-calls (only the report's)."""


register_twins(
    "convert-fs-pattern-to-custom-calls",
    "Softmax subgraph exp(x - max(x)) / sum(exp(x - max(x))) -> custom_call @AwsFSPattern5",
    _run,
    class_name="ConvertFSPatternToCustomCalls",
    options_type=fusion_report.ReportOptions,
    state=_FSPatternState,
    statistics=(Statistic("softmax-patterns", "softmax subgraphs replaced by one custom_call"),),
    source="seed 004 step 12 and 'FS is an unresolved opaque label'; DESIGN.md decision 7 (our interpretation)",
)
