"""``raise-logistic`` (ours; issue 3): ``1 / (1 + exp(-x))`` -> ``logistic(x)``.

Modern JAX lowers ``jax.nn.sigmoid`` / ``jax.nn.silu`` to
``divide(1, add(1, exponential(negate(x))))`` (see
``corpus/jax/swiglu_mlp_nn_silu.stablehlo.mlir``), so NeuronOpFusion's
DotLogistic matcher, which keys on ``logistic``, would never fire on real JAX
code. This pass raises the idiom back to one ``logistic`` op.

Match (both dialects, element type float, any static or dynamic shape):
``divide(c1, add(c1', exponential(negate(x))))`` where ``c1``/``c1'`` are splat
1.0 constants (possibly through ``broadcast_in_dim``/``reshape``) and the add's
operands are in either order; ``negate``, ``exponential`` and ``add`` must each
have exactly one use (else their values are needed anyway and nothing is
saved). The divide is replaced by ``logistic(x)`` at the divide's location; the
dead chain is erased, and so are the 1.0 producers if nothing else uses them.

Gate: ``CompileConfig.raise_logistic`` (``hilo2penguin --enable-raise-logistic``)
runs it before the spine (``compiler.build_spine``). Numerics: ``logistic``
is the same function; the reference interpreter evaluates it as
``1/(1+exp(-x))`` (measured bit-exact in ``test/unit/test_fusion_raise_logistic.py``).
"""

from __future__ import annotations

from ..cluster import op_key
from ..dialects import TABLES, hlo_short_name
from ..ir import ir
from ..registry import PassInfo, register

_CONST_CHAIN = ("constant", "broadcast_in_dim", "reshape", "broadcast", "convert")


def _def(v):
    o = v.owner
    return None if isinstance(o, ir.Block) else o.operation


def _one_use(op) -> bool:
    """``op`` has one result with exactly one use (reads at most two use-list entries)."""
    if op is None:
        return False
    try:
        r = op.result  # raises unless the op has exactly one result
    except ValueError:
        return False
    it = iter(r.uses)
    return next(it, None) is not None and next(it, None) is None


def _unused(v) -> bool:
    """``v`` has no use (reads at most one use-list entry: a shared 1.0 may have thousands)."""
    return next(iter(v.uses), None) is None


def _splat_one(v, memo: dict | None = None) -> bool:
    """``v`` is a splat 1.0 constant, possibly through ``broadcast_in_dim``/``reshape``/``broadcast``.

    ``memo`` (:func:`value_key` of a constant's result -> answer) saves
    re-reading a 1.0 that every sigmoid of the module shares; the caller
    drops it whenever it erases a constant (its address may be reused).
    """
    for _ in range(8):
        if memo is not None:
            k = hash(v)  # == value_key(v)
            hit = memo.get(k)
            if hit is not None:
                return hit
        op = _def(v)
        if op is None:
            return False
        s = hlo_short_name(op)
        if s == "constant":
            try:
                dense = ir.DenseElementsAttr(op.attributes["value"])
                res = dense.is_splat and ir.FloatAttr(dense.get_splat_value()).value == 1.0
            except (ValueError, TypeError):
                res = False
            if memo is not None:
                memo[k] = res
            return res
        if s in ("broadcast_in_dim", "reshape", "broadcast"):
            v = op.operands[0]
            continue
        return False
    return False


def _is_float(v) -> bool:
    try:
        return isinstance(ir.ShapedType(v.type).element_type, ir.FloatType)
    except (ValueError, TypeError):
        return False


def match_logistic(div, memo: dict | None = None):
    """If ``div`` is ``1 / (1 + exp(-x))``: ``(x, [negate, exponential, add], [one producers])``; else None.

    ``memo``: see :func:`_splat_one`.
    """
    pfx = div.name.split(".", 1)[0]
    d = TABLES.get(pfx)
    if d is None or not d.is_op(div, "divide"):
        return None
    # the checks are pure: the cheapest and most selective (is the denominator a one-use add?) first
    ops = div.operands
    num, den = ops[0], ops[1]
    add = _def(den)
    if not d.is_op(add, "add") or not _one_use(add):
        return None
    if not _is_float(div.result) or not _splat_one(num, memo):
        return None
    aops = add.operands
    a0, a1 = aops[0], aops[1]
    for ev, cv in ((a0, a1), (a1, a0)):
        e = _def(ev)
        if not d.is_op(e, "exponential") or not _one_use(e) or not _splat_one(cv, memo):
            continue
        n = _def(e.operands[0])
        if not d.is_op(n, "negate") or not _one_use(n):
            continue
        x = n.operands[0]
        if x.type != div.result.type:
            continue
        return x, [n, e, add], [_def(num), _def(cv)]
    return None


def _erase_dead_consts(op, memo: dict, erased: set) -> None:
    """Erase ``op`` and its constant-chain producers while each is unused; add their keys to ``erased``."""
    while op is not None:
        short = hlo_short_name(op)
        if short not in _CONST_CHAIN or not _unused(op.results[0]):
            return
        nxt = _def(op.operands[0]) if len(op.operands) else None
        if short == "constant":
            memo.clear()  # its address may be reused by an op created later
        erased.add(op_key(op))
        op.erase()
        op = nxt


def _divides(anchor, ctx) -> list:
    """The divides of ``anchor`` in walk (post-)order: from the census, or one walk."""
    names = [f"{d.prefix}.divide" for d in TABLES.values()]
    found = [n for n in names if ctx.module_may_contain(n)]
    if not found:
        return []
    if len(found) == 1:  # one dialect: the census list is in walk order (no walk)
        return ctx.ops_named(anchor, found[0])
    divs = []  # both dialects in one module: keep the walk's interleaving

    def visit(op):
        if hlo_short_name(op) == "divide":
            divs.append(op.operation)
        return ir.WalkResult.ADVANCE

    anchor.walk(visit)
    return divs


def _run(anchor, ctx) -> None:
    divs = _divides(anchor, ctx)
    raised = 0
    memo: dict = {}
    for div in divs:
        m = match_logistic(div, memo)
        if m is None:
            continue
        x, chain, ones = m
        pfx = div.name.split(".", 1)[0]
        res = div.result
        loc = div.location
        with div.context, loc:
            lg = ir.Operation.create(f"{pfx}.logistic", results=[res.type], operands=[x],
                                     loc=loc, ip=ir.InsertionPoint(div))
        res.replace_all_uses_with(lg.result)
        div.erase()
        for o in reversed(chain):  # add, exponential, negate: each now unused
            o.erase()
        # Keys first: erasing one producer chain may erase the other producer
        # (numerator broadcast(c) and the add's own c), which must then not be touched.
        keyed = [(op_key(o), o) for o in ones if o is not None]
        erased: set = set()
        for k, o in keyed:
            if k not in erased:
                _erase_dead_consts(o, memo, erased)
        ctx.stats["raised-logistic"] += 1
        raised += 1
    if not raised:
        ctx.mark_all_preserved()


register(
    PassInfo(
        "raise-logistic",
        "Raise 1/(1+exp(-x)) (how JAX lowers jax.nn.sigmoid/silu) to logistic(x) so DotLogistic can match",
        _run,
        anchor="func.func",
        dialect=None,
        class_name="RaiseLogistic",
        source="ours (issue 3); runs before the spine when CompileConfig.raise_logistic is set",
    )
)
