"""Helpers shared by the NeuronOpFusion tests (no tests here).

``run_pipeline`` runs a textual pipeline the way ``hilo-opt`` does (verifier
after every pass); ``kinds`` counts fused ops by FusionKind/CompositeKind;
``same_numbers`` evaluates before/after with the StableHLO reference
interpreter and compares bit for bit (or within a tolerance).
"""

import collections

import numpy as np

from hilo_mlir import testing
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passmanager.pipeline import Pipeline

BOTH = "{fuse-dot-logistic=true general-elementwise-fusion=true}"


def run_pipeline(text: str, pipeline: str):
    """Parse ``text``, run ``pipeline``, verify; return (printed module, stats)."""
    ctx = make_context()
    with ctx:
        m = ir.Module.parse(text)
        p = Pipeline.from_text(pipeline)
        p.run(m)
        m.operation.verify()
        out = str(m)
    stats = collections.Counter()
    for c in p.stats.values():
        stats.update(c)
    return out, stats


def to_mhlo(text: str) -> str:
    return run_pipeline(text, "builtin.module(stablehlo-legalize-to-hlo)")[0]


def fuse(text: str, dialect: str, pre: str = "", gates: str = BOTH):
    """Run (pre,) the op-fusion twin for ``dialect`` with ``gates``; returns (text, stats)."""
    arg = "neuron-op-fusion" if dialect == "mhlo" else "stablehlo-neuron-op-fusion"
    pipe = f"builtin.module({pre + ',' if pre else ''}{arg}{gates})"
    return run_pipeline(text, pipe)


def kinds(text: str) -> collections.Counter:
    """Count ``mhlo.fusion`` ops by FusionKind and ``neuron.*`` composites by CompositeKind."""
    ctx = make_context()
    out = collections.Counter()
    with ctx:
        m = ir.Module.parse(text)

        def visit(op):
            if op.name == "mhlo.fusion" and "FusionKind" in op.attributes:
                out[ir.StringAttr(op.attributes["FusionKind"]).value] += 1
            elif op.name == "stablehlo.composite" and "CompositeKind" in op.attributes:
                out[ir.StringAttr(op.attributes["CompositeKind"]).value] += 1
            return ir.WalkResult.ADVANCE

        m.operation.walk(visit)
    return out


def op_histogram(text: str, flatten: bool = True) -> collections.Counter:
    """Ops of every function after inlining fusions/composites (no op lost or duplicated check)."""
    ctx = make_context()
    hist = collections.Counter()
    with ctx:
        m = testing.to_evaluable(text, ctx) if flatten else ir.Module.parse(text)

        def visit(op):
            if op.name not in ("builtin.module", "func.func", "func.return"):
                hist[op.name.split(".", 1)[-1]] += 1
            return ir.WalkResult.ADVANCE

        m.operation.walk(visit)
    return hist


def bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


def same_numbers(before: str, after: str, inputs, exact: bool = True, rtol: float = 0.0, atol: float = 0.0):
    """Evaluate both modules on ``inputs``; bit-exact when ``exact``, else allclose(rtol, atol) with equal NaN lanes."""
    a = testing.evaluate(before, inputs)
    b = testing.evaluate(after, inputs)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and x.shape == y.shape
        if exact:
            assert bits(x) == bits(y), f"not bit-exact: max |diff| = {np.nanmax(np.abs(x.astype(np.float64) - y.astype(np.float64)))}"
        else:
            np.testing.assert_allclose(x.astype(np.float64), y.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
    return a, b


def inline_private_calls(text: str) -> str:
    """Inline every ``func.call`` of a single-block private function (test-side; the binding's
    ``inline`` pass does not inline ``func.call`` here: no func inliner interface is registered).
    Calls are inlined until none is left; the callees are then dropped by ``symbol-dce``."""
    from hilo_mlir.ir.utils import value_key

    ctx = make_context()
    with ctx, ir.Location.unknown():
        m = ir.Module.parse(text)
        funcs = {
            ir.StringAttr(o.operation.attributes["sym_name"]).value: o.operation
            for o in m.body.operations
            if o.operation.name == "func.func"
        }
        while True:
            calls = []

            def visit(op):
                if op.name == "func.call":
                    calls.append(op.operation)
                return ir.WalkResult.ADVANCE

            m.operation.walk(visit)
            if not calls:
                break
            call = calls[0]
            callee = funcs[str(call.attributes["callee"]).lstrip("@")]
            body = callee.regions[0].blocks[0]
            vmap = {value_key(a): v for a, v in zip(body.arguments, call.operands)}
            ops = [o.operation for o in body.operations]
            for o in ops[:-1]:
                c = o.clone(ip=ir.InsertionPoint(call))
                for i, v in enumerate(c.operands):
                    k = value_key(v)
                    if k in vmap:
                        c.operands[i] = vmap[k]
                for r_old, r_new in zip(o.results, c.results):
                    vmap[value_key(r_old)] = r_new
            for r, v in zip(call.results, ops[-1].operands):
                r.replace_all_uses_with(vmap.get(value_key(v), v))
            call.erase()
        from hilo_mlir.ir.binding import passmanager

        passmanager.PassManager.parse("builtin.module(symbol-dce)").run(m.operation)
        return str(m)
