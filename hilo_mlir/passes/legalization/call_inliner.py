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


def _callee_name(call) -> str:
    return ir.FlatSymbolRefAttr(call.attributes["callee"]).value


class _Frame:
    """One callee body being copied: its ops, the next one, its values' images, the location of its call."""

    __slots__ = ("call", "i", "loc", "mapping", "ops")

    def __init__(self, ops: list, mapping: dict, loc, call) -> None:
        self.ops, self.i, self.mapping, self.loc, self.call = ops, 0, mapping, loc, call


def _expand(call, funcs: dict, bodies: dict, rw) -> tuple[list, int]:
    """Copy the fully inlined body of ``call``'s callee before ``call``; returns (the values replacing
    its results, the number of call sites expanded).

    Depth-first over the call chain with an explicit stack (a 20,000-deep chain needs no recursion):
    a call met in a callee body is not copied but expanded in its turn, from the callee's original
    ops (``bodies``: each function's ops before anything changed), so each op of the inlined program
    is created once. Every copy gets ``callsite(<its location> at <the location its call has there>)``,
    the location a copy of the call itself would have had.
    """
    name = _callee_name(call)
    args = funcs[name].regions[0].blocks[0].arguments
    stack = [_Frame(bodies[name], {identity_key(a): v for a, v in zip(args, call.operands)}, call.location, None)]
    expanded = 1
    while True:
        fr = stack[-1]
        o = fr.ops[fr.i]
        if fr.i == len(fr.ops) - 1:  # the callee's return: its operands are the call's results
            rets = [fr.mapping.get(identity_key(v), v) for v in o.operands]
            stack.pop()
            if not stack:
                return rets, expanded
            parent = stack[-1]
            for old, new in zip(fr.call.results, rets):
                parent.mapping[identity_key(old)] = new
            parent.i += 1
            continue
        if o.name == "func.call":
            inner = _callee_name(o)
            operands = [fr.mapping.get(identity_key(v), v) for v in o.operands]
            args = funcs[inner].regions[0].blocks[0].arguments
            loc = ir.Location.callsite(o.location, [fr.loc])
            stack.append(_Frame(bodies[inner], {identity_key(a): v for a, v in zip(args, operands)}, loc, o))
            expanded += 1
            continue
        clone = rw.clone(o, before=call)
        _at_call_site(clone, fr.loc)  # part of creating the clone: no change of its own to record
        _remap_operands(clone, fr.mapping, rw)
        for old, new in zip(o.results, clone.results):
            fr.mapping[identity_key(old)] = new
        fr.i += 1


def _check_acyclic(graph: dict, module_op) -> None:
    """``graph``: function -> the functions it calls. Raises HiloError at the module on a cycle."""
    state: dict = {}  # name -> 1 on the current path, 2 done
    for root in graph:
        if state.get(root):
            continue
        state[root] = 1
        path = [(root, iter(graph[root]))]
        while path:
            node, it = path[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                path.pop()
            elif state.get(nxt) == 1:
                raise op_error(module_op, "call-inliner: call graph is recursive")
            elif not state.get(nxt):
                state[nxt] = 1
                path.append((nxt, iter(graph[nxt])))


def _run(module_op, ctx) -> None:
    if not ctx.module_may_contain("func.call"):  # census: no call anywhere, nothing to inline
        return
    funcs = _symbol_table(module_op)
    calls = {name: _calls_in(f) for name, f in funcs.items()}
    checked: dict = {}
    for name in funcs:  # every call site is checked, in module order, before anything changes
        for call in calls[name]:
            callee = _callee_name(call)
            if callee not in checked:
                checked[callee] = _inlinable_callee(call, funcs, calls)
            elif checked[callee] is None:
                _inlinable_callee(call, funcs, calls)  # raises, located at this call
    top_level = all(call.parent.operation == f.operation for name, f in funcs.items() for call in calls[name])
    refs = _symbol_refs(funcs)  # the symbols that keep a private function, read before anything changes
    if not top_level:  # a call inside a region (a reduce body, a while loop): inline round by round
        inlined = _run_by_rounds(module_op, funcs, ctx)
    else:
        _check_acyclic({name: sorted({_callee_name(c) for c in cs}) for name, cs in calls.items()}, module_op)
        inlined = _run_linear(funcs, calls, refs, ctx)
    if not inlined:
        return
    ctx.stats["calls-inlined"] += inlined
    _erase_unreferenced_private(funcs, ctx, refs)


def _run_linear(funcs: dict, calls: dict, refs: set, ctx) -> int:
    """Inline every call of every function that stays (public, or referenced by a symbol other than a
    call's callee); time and memory linear in the inlined program. The functions that do not stay are
    erased afterwards without being inlined into. Returns the number of call sites expanded."""
    bodies = {name: [o.operation for o in f.regions[0].blocks[0].operations] for name, f in funcs.items()}
    done = []
    inlined = 0
    for name, f in funcs.items():
        if _visibility(f) == "private" and name not in refs:
            continue  # erased below: nothing to inline into it
        for call in calls[name]:
            values, n = _expand(call, funcs, bodies, ctx.rewriter)
            done.append((call, values))
            inlined += n
    for call, values in done:  # after every copy: the calls' bodies are read from the originals
        ctx.rewriter.replace_op(call, values)
    return inlined


def _run_by_rounds(module_op, funcs: dict, ctx) -> int:
    """Callers first, callees later: repeat until no call is left (bounded by the call depth)."""
    inlined = 0
    for _depth in range(len(funcs) + 1):
        pending = []
        for f in funcs.values():
            pending.extend(_calls_in(f))
        if not pending:
            return inlined
        for call in pending:
            _inline_call(call, funcs[_callee_name(call)], ctx.rewriter)
            inlined += 1
    raise op_error(module_op, "call-inliner: call graph is recursive")


def _visibility(f) -> str:
    return f.attributes["sym_visibility"].value if "sym_visibility" in f.attributes else "public"


def _inlinable_callee(call, funcs: dict, calls: dict):
    """The ``func.func`` ``call`` calls (``calls``: every function's calls).

    Raises:
        HiloError: the callee is missing or a declaration, has more than one block, or calls itself.
    """
    name = _callee_name(call)
    callee = funcs.get(name)
    if callee is None or len(callee.regions[0].blocks) == 0:
        raise op_error(call, f"cannot inline call to '@{name}': no function body")
    if len(callee.regions[0].blocks) != 1:
        raise op_error(call, f"cannot inline call to '@{name}': callee has more than one block")
    if any(_callee_name(c) == name for c in calls[name]):
        raise op_error(call, f"cannot inline recursive call to '@{name}'")
    return callee


def _symbol_refs(funcs: dict) -> set:
    """The symbols referred to by an attribute of an op other than a call (what keeps a private function)."""
    text_refs = set()
    for f in funcs.values():

        def visit(op):
            # Constants hold no symbol references; reading a complex dense
            # attribute through the binding aborts the process, so skip them.
            if op.name.endswith(".constant") or op.name == "func.call":
                return ir.WalkResult.ADVANCE
            for i in range(len(op.attributes)):
                a = op.attributes[i].attr
                if isinstance(a, ir.FlatSymbolRefAttr):
                    text_refs.add(a.value)
            return ir.WalkResult.ADVANCE

        f.walk(visit)
    return text_refs


def _erase_unreferenced_private(funcs: dict, ctx, refs: set | None = None) -> None:
    """Erase the private functions nothing but a call refers to (after inlining)."""
    text_refs = _symbol_refs(funcs) if refs is None else refs
    for name, f in funcs.items():
        if _visibility(f) == "private" and name not in text_refs:
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
