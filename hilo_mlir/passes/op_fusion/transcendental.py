"""fuseSubExp, fuseExpm1Op, fuseLog1pOp: the transcendental-idiom sub-passes.

* ``fuse_sub_exp`` encapsulates the stable log-add-exp tree
  ``add(max(a,b), log(add(exp(a-max), exp(b-max))))`` -- eight ops, no math
  change -- into one ``Elementwise`` fusion (the ``log`` is the root's other
  operand; either operand order of the root add and of the inner add).
* ``fuse_expm1`` / ``fuse_log1p`` expand a single-use float
  ``exponential_minus_one`` / ``log_plus_one`` into ``exp(x) - 1`` /
  ``log(x + 1)`` with the constant 1.0 built in the op's exact element type
  (no convert), ``result_accuracy`` copied onto the exp/log, and wrap the three
  new ops in an ``Expm1`` / ``Log1p`` fusion; the original op is erased.
"""

from __future__ import annotations

from ...dialects import FusionKind
from ...ir import ir
from ...ir_utils import as_op, defining_op, has_one_use
from .common import inside_fusion, same_block
from .run import FusionRun

#: the op kinds each sub-pass seeds from (fuseSubExp needs all five to match anything)
SUB_EXP_ANCHORS = ("add", "log", "maximum", "exponential", "subtract")
EXPM1_ANCHORS = ("exponential_minus_one",)
LOG1P_ANCHORS = ("log_plus_one",)


def _match_sub_exp(run: FusionRun, root):
    d = run.d
    a0, a1 = root.operands[0], root.operands[1]
    for mv, lv in ((a0, a1), (a1, a0)):
        m, lg = defining_op(mv), defining_op(lv)
        if not (d.is_op(m, "maximum") and d.is_op(lg, "log")):
            continue
        inn = defining_op(lg.operands[0])
        if not d.is_op(inn, "add"):
            continue
        e1, e2 = defining_op(inn.operands[0]), defining_op(inn.operands[1])
        if not (d.is_op(e1, "exponential") and d.is_op(e2, "exponential")):
            continue
        if e1 == e2 or not has_one_use(e1) or not has_one_use(e2):
            continue
        s1, s2 = defining_op(e1.operands[0]), defining_op(e2.operands[0])
        if not (d.is_op(s1, "subtract") and d.is_op(s2, "subtract")) or s1 == s2:
            continue
        mres = m.results[0]
        if not (s1.operands[1] == mres and s2.operands[1] == mres):
            continue
        a, b = m.operands[0], m.operands[1]
        # the two subtracts take a and b (in either order of the inner add)
        if not ((s1.operands[0] == a and s2.operands[0] == b) or (s1.operands[0] == b and s2.operands[0] == a)):
            continue
        ops = [root, lg, inn, m, s2, e2, s1, e1]
        if not all(same_block(o, root) for o in ops):
            continue
        return ops
    return None


def fuse_sub_exp(run: FusionRun) -> None:
    """``fuseSubExp`` (always on): 8-op log-add-exp tree -> one ``Elementwise`` fusion."""
    if not run.has_all("log", "maximum", "exponential", "subtract"):
        return  # the tree needs all four kinds: nothing can match
    for root in run.anchors("add"):
        if root.block is None or inside_fusion(root):
            continue
        ops = _match_sub_exp(run, root)
        if ops is None:
            continue
        run.emit(ops, FusionKind.ELEMENTWISE)


def _static_float_tensor(t):
    try:
        rt = ir.RankedTensorType(t)
    except (ValueError, TypeError):
        return None
    if not rt.has_static_shape or not isinstance(rt.element_type, ir.FloatType):
        return None
    return rt


def _expand(run: FusionRun, op, kind: str) -> None:
    d = run.d
    if not has_one_use(op):
        run.ctx.debug(f"{kind}: {op.name} at {op.location} has more than one use")
        return
    res = op.results[0]
    rt = _static_float_tensor(res.type)
    if rt is None:
        run.ctx.debug(f"{kind}: {op.name} at {op.location} is not a static float tensor")
        return
    x = op.operands[0]
    loc = op.location
    acc = {}
    if "result_accuracy" in op.attributes:
        acc["result_accuracy"] = op.attributes["result_accuracy"]
    with op.context, loc:
        one = ir.DenseElementsAttr.get_splat(rt, ir.FloatAttr.get(rt.element_type, 1.0))
        c = run.create(d.name("constant"), results=[rt], attributes={"value": one}, loc=loc, before=op)
        if kind == FusionKind.EXPM1:
            e = run.create(d.name("exponential"), results=[rt], operands=[x], attributes=acc, loc=loc, before=op)
            out = run.create(d.name("subtract"), results=[rt], operands=[e.result, c.result], loc=loc, before=op)
            new = [c, e, out]
        else:
            a = run.create(d.name("add"), results=[rt], operands=[x, c.result], loc=loc, before=op)
            out = run.create(d.name("log"), results=[rt], operands=[a.result], attributes=acc, loc=loc, before=op)
            new = [c, a, out]
    for use in list(res.uses):
        run.set_operand(as_op(use.owner), use.operand_number, out.result)
    run.erase(op)
    run.ctx.stats[f"expanded-{kind}"] += 1
    run.emit(new, kind)


def fuse_expm1(run: FusionRun) -> None:
    """``fuseExpm1Op``: ``expm1(x)`` -> ``Expm1`` fusion of ``{1.0, exp(x), exp(x) - 1.0}``."""
    for op in run.anchors(*EXPM1_ANCHORS):
        if not inside_fusion(op):
            _expand(run, op, FusionKind.EXPM1)


def fuse_log1p(run: FusionRun) -> None:
    """``fuseLog1pOp``: ``log1p(x)`` -> ``Log1p`` fusion of ``{1.0, x + 1.0, log(x + 1.0)}``."""
    for op in run.anchors(*LOG1P_ANCHORS):
        if not inside_fusion(op):
            _expand(run, op, FusionKind.LOG1P)
