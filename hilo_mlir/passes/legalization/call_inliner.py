"""``call-inliner``: inline every ``func.call`` into its caller (runs before the spine).

Why it exists: in the real compiler the MLIR pipeline only sees HLO after the
B-strand's HLO passes (seed 004, "The B-strand -> C-strand Handoff"), which
include XLA's CallInliner, so ``main`` has no calls left. JAX exports and
HLO-proto imports do keep private functions (``jax.nn.silu`` becomes
``func.call @silu``; each HLO computation becomes a ``func.func``), which would
hide idioms from NeuronOpFusion. The binding's upstream ``inline`` pass does
nothing here (jaxlib registers no func inliner interface), so this pass does
the same job: each call site gets a copy of the callee's single-block body with
the arguments replaced by the call operands and the results by the returned
values; callees left without uses are erased.

Errors: a recursive call chain, a callee that is only a declaration, or a
callee with more than one block is reported at the call site.
Source: our interpretation (CompileConfig.call_inliner, default on).
"""

from __future__ import annotations

from hilo_mlir.ir.binding import identity_key, ir
from hilo_mlir.ir.utils import func_name, top_funcs
from hilo_mlir.passmanager.registry import PassInfo, register
from hilo_mlir.support.diagnostics import op_error


def _symbol_table(module_op) -> dict:
    return {func_name(f): f for f in top_funcs(module_op)}


def _calls_in(func_op) -> list:
    calls = []

    def visit(op):
        if op.name == "func.call":
            calls.append(op)
        return ir.WalkResult.ADVANCE

    func_op.walk(visit)
    return calls


def _remap_operands(op, mapping: dict, rw) -> None:
    """Point every operand of ``op`` (and of ops nested in it) that is a key of ``mapping`` at its image."""
    found = []

    def visit(inner):
        for i, v in enumerate(inner.operands):
            new = mapping.get(identity_key(v))
            if new is not None:
                found.append((inner, i, new))
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    for inner, i, new in found:  # rewired after the walk (never mutate inside a walk callback)
        rw.set_operand(inner, i, new)


def _at_call_site(op, call_loc) -> None:
    """Give ``op`` and every op nested in it ``callsite(<its location> at <call location>)``,
    as MLIR's inliner does, so diagnostics and ``DebugLocation`` name the user's call."""

    nested = []

    def visit(inner):
        nested.append(inner)
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    for inner in nested:  # set after the walk (never mutate inside a walk callback)
        inner.location = ir.Location.callsite(inner.location, [call_loc])


def _inline_call(call, callee, rw) -> None:
    body = callee.regions[0].blocks[0]
    mapping = {identity_key(a): v for a, v in zip(body.arguments, call.operands)}
    ops = [o.operation for o in body.operations]
    term = ops[-1]
    for o in ops[:-1]:
        clone = rw.clone(o, before=call)
        _at_call_site(clone, call.location)  # part of creating the clone: no change of its own to record
        _remap_operands(clone, mapping, rw)
        for old, new in zip(o.results, clone.results):
            mapping[identity_key(old)] = new
    rw.replace_op(call, [mapping.get(identity_key(ret), ret) for ret in term.operands])


def _run(module_op, ctx) -> None:
    if not ctx.module_may_contain("func.call"):  # census: no call anywhere, nothing to inline
        return
    funcs = _symbol_table(module_op)
    inlined = 0
    # Callers first, callees later: repeat until no call is left (bounded by the call depth).
    for _depth in range(len(funcs) + 1):
        pending = []
        for f in funcs.values():
            pending.extend(_calls_in(f))
        if not pending:
            break
        for call in pending:
            _inline_call(call, _inlinable_callee(call, funcs), ctx.rewriter)
            inlined += 1
    else:
        raise op_error(module_op, "call-inliner: call graph is recursive")
    if not inlined:
        return
    ctx.stats["calls-inlined"] += inlined
    _erase_unreferenced_private(funcs, ctx)


def _inlinable_callee(call, funcs: dict):
    """The ``func.func`` ``call`` calls.

    Raises:
        HiloError: the callee is missing or a declaration, has more than one block, or calls itself.
    """
    name = ir.FlatSymbolRefAttr(call.attributes["callee"]).value
    callee = funcs.get(name)
    if callee is None or len(callee.regions[0].blocks) == 0:
        raise op_error(call, f"cannot inline call to '@{name}': no function body")
    if len(callee.regions[0].blocks) != 1:
        raise op_error(call, f"cannot inline call to '@{name}': callee has more than one block")
    if any(ir.FlatSymbolRefAttr(c.attributes["callee"]).value == name for c in _calls_in(callee)):
        raise op_error(call, f"cannot inline recursive call to '@{name}'")
    return callee


def _erase_unreferenced_private(funcs: dict, ctx) -> None:
    """Erase the private functions nothing refers to any more (after inlining)."""
    text_refs = set()
    for f in funcs.values():

        def visit(op):
            # Constants hold no symbol references; reading a complex dense
            # attribute through the binding aborts the process, so skip them.
            if op.name.endswith(".constant"):
                return ir.WalkResult.ADVANCE
            for i in range(len(op.attributes)):
                a = op.attributes[i].attr
                if isinstance(a, ir.FlatSymbolRefAttr):
                    text_refs.add(a.value)
            return ir.WalkResult.ADVANCE

        f.walk(visit)
    for name, f in funcs.items():
        vis = f.attributes["sym_visibility"].value if "sym_visibility" in f.attributes else "public"
        if vis == "private" and name not in text_refs:
            ctx.rewriter.erase_op(f)
            ctx.stats["functions-erased"] += 1


register(
    PassInfo(
        "call-inliner",
        "Inline every func.call into its caller (as XLA's CallInliner); erase private callees left unused",
        _run,
        anchor="builtin.module",
        class_name="CallInliner",
        statistics=("calls-inlined", "functions-erased"),
        source="our interpretation (seed 004 B-strand handoff); CompileConfig.call_inliner",
    )
)
