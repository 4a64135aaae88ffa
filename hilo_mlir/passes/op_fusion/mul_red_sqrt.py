"""fuseMulRedSqrt: the RMSNorm core (seed 000 driver order; DESIGN.md decision 5).

Root: ``sqrt`` or ``rsqrt`` (not inside a fusion). Walking up its operand
through single-use links -- ``add`` of a constant (epsilon),
``multiply``/``divide`` by a constant (the mean's 1/N; a divide only as the
dividend), and ``reshape``/``broadcast_in_dim`` that only insert size-1
dimensions (``keepdims``) -- it must reach a single-use add-``reduce`` (one
input, body ``return(add(acc, x))``) of a single-use ``multiply(x, x)``. The
chain (multiply, reduce, links, root) becomes one ``MulRedSqrt`` fusion;
constants, their broadcasts and ``x`` stay live-ins. This is what
``jnp.mean(x*x, -1, keepdims=True) + eps`` then ``rsqrt`` lowers to.
"""

from __future__ import annotations

from ...ir import ir
from .common import FusionRun, collect, defining_op, has_one_use, inside_fusion, is_constant_like, same_block


def _int_list(attr) -> list[int] | None:
    for conv in (lambda a: list(ir.DenseI64ArrayAttr(a)), lambda a: [int(x) for x in ir.DenseIntElementsAttr(a)]):
        try:
            return conv(attr)
        except (ValueError, TypeError):
            continue
    return None


def _shape(v):
    try:
        rt = ir.RankedTensorType(v.type)
    except (ValueError, TypeError):
        return None
    return list(rt.shape) if rt.has_static_shape else None


def only_inserts_unit_dims(run: FusionRun, op) -> bool:
    """``reshape``/``broadcast_in_dim`` whose result is its operand with size-1 dimensions inserted."""
    src, dst = _shape(op.operands[0]), _shape(op.results[0])
    if src is None or dst is None or len(dst) < len(src):
        return False
    if run.d.is_op(op, "reshape"):
        return [x for x in src if x != 1] == [x for x in dst if x != 1]
    if "broadcast_dimensions" not in op.attributes:
        return False
    dims = _int_list(op.attributes["broadcast_dimensions"])
    if dims is None or len(dims) != len(src) or any(b <= a for a, b in zip(dims, dims[1:])):
        return False
    mapped = set(dims)
    if any(dst[d] != s for d, s in zip(dims, src)):
        return False
    return all(dst[i] == 1 for i in range(len(dst)) if i not in mapped)


def is_add_reduce(run: FusionRun, op) -> bool:
    """A one-input ``reduce`` whose body is ``return(add(arg0, arg1))`` (either order)."""
    d = run.d
    if not d.is_op(op, "reduce") or len(op.operands) != 2 or len(op.regions) != 1:
        return False
    blocks = list(op.regions[0].blocks)
    if len(blocks) != 1:
        return False
    b = blocks[0]
    body = [o.operation for o in b.operations]
    if len(body) != 2 or len(b.arguments) != 2:
        return False
    add, ret = body
    if not d.is_op(add, "add") or not d.is_op(ret, "return"):
        return False
    a0, a1 = b.arguments[0], b.arguments[1]
    ops = list(add.operands)
    if not ((ops[0] == a0 and ops[1] == a1) or (ops[0] == a1 and ops[1] == a0)):
        return False
    return len(ret.operands) == 1 and ret.operands[0] == add.results[0]


def _match(run: FusionRun, root):
    d = run.d
    chain = [root]
    v = root.operands[0]
    for _ in range(64):  # links are few; bound the walk
        p = defining_op(v)
        if p is None or not same_block(p, root) or not has_one_use(p):
            return None
        if d.is_op(p, "reduce"):
            if not is_add_reduce(run, p):
                return None
            mul = defining_op(p.operands[0])
            if not d.is_op(mul, "multiply") or not same_block(mul, root) or not has_one_use(mul):
                return None
            if mul.operands[0] != mul.operands[1]:
                return None
            return [mul, p] + chain[::-1]
        if d.is_op(p, "add"):
            a, b = p.operands[0], p.operands[1]
            if is_constant_like(b):
                v = a
            elif is_constant_like(a):
                v = b
            else:
                return None
        elif d.is_op(p, "multiply"):
            a, b = p.operands[0], p.operands[1]
            if is_constant_like(b):
                v = a
            elif is_constant_like(a):
                v = b
            else:
                return None
        elif d.is_op(p, "divide"):
            if not is_constant_like(p.operands[1]):
                return None
            v = p.operands[0]
        elif d.is_op(p, "reshape", "broadcast_in_dim"):
            if not only_inserts_unit_dims(run, p):
                return None
            v = p.operands[0]
        else:
            return None
        chain.append(p)
    return None


def fuse_mul_red_sqrt(run: FusionRun) -> None:
    """Decision 5: ``(r)sqrt(links(reduce_add(x*x)))`` -> one ``MulRedSqrt`` fusion."""
    d = run.d
    for root in collect(run.func, names=[d.name("sqrt"), d.name("rsqrt")]):
        if root.block is None or inside_fusion(root):
            continue
        ops = _match(run, root)
        if ops is None:
            continue
        run.emit(ops, "MulRedSqrt")
