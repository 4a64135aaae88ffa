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

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import FusionKind
from hilo_mlir.ir.utils import as_op, defining_op, has_one_use, num_uses
from hilo_mlir.passes.fusion.op_fusion.common import inside_fusion, same_block
from hilo_mlir.passes.fusion.op_fusion.run import FusionRun

#: the op kinds each sub-pass seeds from (fuseSubExp needs all five to match anything)
SUB_EXP_ANCHORS = ("add", "log", "maximum", "exponential", "subtract")
EXPM1_ANCHORS = ("exponential_minus_one",)
LOG1P_ANCHORS = ("log_plus_one",)
SUB_EXP_RULE = "fuseSubExp"


def _sub_exp_candidate(d, root):
    """``(max, log)`` operand pairs of ``root`` (either order) that could head a log-sum-exp tree."""
    a0, a1 = root.operands[0], root.operands[1]
    out = []
    for mv, lv in ((a0, a1), (a1, a0)):
        m, lg = defining_op(mv), defining_op(lv)
        if d.is_op(m, "maximum") and d.is_op(lg, "log"):
            out.append((m, lg))
    return out


def _check_subtracts(d, m, e1, e2, s1, s2):
    """None if ``s1``, ``s2`` (the exponentials' operands) are ``a - max`` and ``b - max`` (either
    order) for ``max = m = maximum(a, b)``; else the refusal."""
    for e, s in ((e1, s1), (e2, s2)):
        if not d.is_op(s, "subtract"):
            return "exp-operand-not-subtract", e
    if s1 == s2:
        return "minuends-not-max-operands", s1
    mres = m.results[0]
    if not (s1.operands[1] == mres and s2.operands[1] == mres):
        return "subtrahend-not-max", s1 if s1.operands[1] != mres else s2
    a, b = m.operands[0], m.operands[1]
    # the two subtracts take a and b (in either order of the inner add)
    if not ((s1.operands[0] == a and s2.operands[0] == b) or (s1.operands[0] == b and s2.operands[0] == a)):
        return "minuends-not-max-operands", s1
    return None


def _match_tree(d, root, m, lg):
    """The 8 ops of ``max + log(exp(a - max) + exp(b - max))`` at ``root``, or ``(None, refusal)``."""
    inn = defining_op(lg.operands[0])
    if inn is None or not d.is_op(inn, "add"):
        return None, ("log-operand-not-add", inn)
    e1, e2 = defining_op(inn.operands[0]), defining_op(inn.operands[1])
    if e1 is None or e2 is None or not (d.is_op(e1, "exponential") and d.is_op(e2, "exponential")):
        return None, ("add-operands-not-exp", inn)
    for e in (e1,) if e1 == e2 else (e1, e2):
        if e1 == e2 or not has_one_use(e):
            return None, ("exp-multi-use", e)
    s1, s2 = defining_op(e1.operands[0]), defining_op(e2.operands[0])
    refusal = _check_subtracts(d, m, e1, e2, s1, s2)
    if refusal is not None:
        return None, refusal
    ops = [root, lg, inn, m, s2, e2, s1, e1]
    for o in ops:
        if not same_block(o, root):
            return None, ("not-one-block", o)
    return ops, None


def _match_sub_exp(run: FusionRun, root):
    """``(ops, None)``; ``(None, refusal)`` for a candidate (the first order that had a max and a log);
    ``(None, None)`` for an add that is no candidate."""
    first = None
    for m, lg in _sub_exp_candidate(run.d, root):
        ops, refusal = _match_tree(run.d, root, m, lg)
        if ops is not None:
            return ops, None
        first = first or refusal
    return None, first


def fuse_sub_exp(run: FusionRun) -> None:
    """``fuseSubExp`` (always on): 8-op log-add-exp tree -> one ``Elementwise`` fusion."""
    if not run.listening and not run.has_all("log", "maximum", "exponential", "subtract"):
        return  # the tree needs all four kinds: nothing can match (refusals, when heard, list the candidates anyway)
    kind = FusionKind.ELEMENTWISE
    for root in run.anchors("add"):
        if root.block is None:
            continue
        if inside_fusion(root):
            if run.listening and _sub_exp_candidate(run.d, root):
                run.refuse(SUB_EXP_RULE, kind, root, "inside-fusion")
            continue
        ops, refusal = _match_sub_exp(run, root)
        if ops is None:
            if refusal is not None:
                run.refuse(SUB_EXP_RULE, kind, root, refusal[0], refusal[1])
            continue
        run.emit(ops, kind, SUB_EXP_RULE, anchor=root)


def _static_float_tensor(t):
    """``(ranked tensor type, None)``, or ``(None, reason)``: ``dtype-not-float`` / ``dynamic-shape``."""
    try:
        rt = ir.RankedTensorType(t)
    except (ValueError, TypeError):
        return None, "dynamic-shape"
    if not isinstance(rt.element_type, ir.FloatType):
        return None, "dtype-not-float"
    if not rt.has_static_shape:
        return None, "dynamic-shape"
    return rt, None


_EXPAND_RULE = {FusionKind.EXPM1: "fuseExpm1Op", FusionKind.LOG1P: "fuseLog1pOp"}


def _expand(run: FusionRun, op, kind: str) -> None:
    d = run.d
    rule = _EXPAND_RULE[kind]
    if not has_one_use(op):
        if run.listening:
            run.refuse(rule, kind, op, "op-multi-use", detail=f"{num_uses(op.results[0])} uses")
        return
    res = op.results[0]
    rt, why = _static_float_tensor(res.type)
    if rt is None:
        if run.listening:
            run.refuse(rule, kind, op, why, detail=str(res.type) if why == "dtype-not-float" else None)
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
    run.emit(new, kind, rule, anchor=out)


def fuse_expm1(run: FusionRun) -> None:
    """``fuseExpm1Op``: ``expm1(x)`` -> ``Expm1`` fusion of ``{1.0, exp(x), exp(x) - 1.0}``."""
    for op in run.anchors(*EXPM1_ANCHORS):
        if inside_fusion(op):
            run.refuse("fuseExpm1Op", FusionKind.EXPM1, op, "inside-fusion")
        else:
            _expand(run, op, FusionKind.EXPM1)


def fuse_log1p(run: FusionRun) -> None:
    """``fuseLog1pOp``: ``log1p(x)`` -> ``Log1p`` fusion of ``{1.0, x + 1.0, log(x + 1.0)}``."""
    for op in run.anchors(*LOG1P_ANCHORS):
        if inside_fusion(op):
            run.refuse("fuseLog1pOp", FusionKind.LOG1P, op, "inside-fusion")
        else:
            _expand(run, op, FusionKind.LOG1P)
