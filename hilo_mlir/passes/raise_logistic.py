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


def _uses(v) -> int:
    return sum(1 for _ in v.uses)


def _one_use(op) -> bool:
    return op is not None and len(op.results) == 1 and _uses(op.results[0]) == 1


def _splat_one(v) -> bool:
    op = _def(v)
    for _ in range(8):
        if op is None:
            return False
        s = hlo_short_name(op)
        if s == "constant":
            try:
                dense = ir.DenseElementsAttr(op.attributes["value"])
                return dense.is_splat and ir.FloatAttr(dense.get_splat_value()).value == 1.0
            except (ValueError, TypeError):
                return False
        if s in ("broadcast_in_dim", "reshape", "broadcast"):
            op = _def(op.operands[0])
            continue
        return False
    return False


def _is_float(v) -> bool:
    try:
        return isinstance(ir.ShapedType(v.type).element_type, ir.FloatType)
    except (ValueError, TypeError):
        return False


def match_logistic(div):
    """If ``div`` is ``1 / (1 + exp(-x))``: ``(x, [negate, exponential, add], [one producers])``; else None."""
    pfx = div.name.split(".", 1)[0]
    d = TABLES.get(pfx)
    if d is None or not d.is_op(div, "divide") or not _is_float(div.results[0]):
        return None
    num, den = div.operands[0], div.operands[1]
    if not _splat_one(num):
        return None
    add = _def(den)
    if not d.is_op(add, "add") or not _one_use(add):
        return None
    for ev, cv in ((add.operands[0], add.operands[1]), (add.operands[1], add.operands[0])):
        e = _def(ev)
        if not d.is_op(e, "exponential") or not _one_use(e) or not _splat_one(cv):
            continue
        n = _def(e.operands[0])
        if not d.is_op(n, "negate") or not _one_use(n):
            continue
        x = n.operands[0]
        if x.type != div.results[0].type:
            continue
        return x, [n, e, add], [_def(num), _def(cv)]
    return None


def _erase_dead_consts(op) -> None:
    while op is not None and hlo_short_name(op) in _CONST_CHAIN and _uses(op.results[0]) == 0:
        nxt = _def(op.operands[0]) if len(op.operands) else None
        op.erase()
        op = nxt


def _run(anchor, ctx) -> None:
    divs = []

    def visit(op):
        if hlo_short_name(op) == "divide":
            divs.append(op.operation)
        return ir.WalkResult.ADVANCE

    anchor.walk(visit)
    raised = 0
    for div in divs:
        m = match_logistic(div)
        if m is None:
            continue
        x, chain, ones = m
        pfx = div.name.split(".", 1)[0]
        with div.context, div.location:
            lg = ir.Operation.create(f"{pfx}.logistic", results=[div.results[0].type], operands=[x],
                                     loc=div.location, ip=ir.InsertionPoint(div))
        div.results[0].replace_all_uses_with(lg.result)
        div.erase()
        for o in reversed(chain):  # add, exponential, negate: each now unused
            o.erase()
        seen = set()
        for o in ones:
            if o is not None and op_key(o) not in seen:
                seen.add(op_key(o))
                _erase_dead_consts(o)
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
