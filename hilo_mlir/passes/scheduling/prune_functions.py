"""``prune-functions`` (spine step 24, ``PruneFunctions``; twin ``stablehlo-prune-functions``).

Dead-function elimination: every top-level ``func.func`` that is not
reachable from ``main`` is erased. Reachability follows every symbol
reference in the reachable functions' ops — ``func.call`` callees, the
``decomposition`` of ``stablehlo.composite`` ops, ``called_computations`` of
custom calls, and any other ``SymbolRefAttr`` nested in arrays or
dictionaries of an op's attributes (the root of a nested reference counts).

A module without a ``main`` function is left unchanged (nothing anchors the
reachability; one debug line says so). Non-function symbols are never
erased. Runs once per module, linear in the number of ops and attributes;
when calls, decompositions and called computations alone (the census's
lists of those ops) reach every function, nothing else is read.

Source: seed 004 step 24 (unconditional, "dead-function elimination");
DESIGN.md catalogue step 24.
"""

from __future__ import annotations

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import TABLES
from hilo_mlir.ir.utils import func_name, top_funcs
from hilo_mlir.passmanager.registry import register_twins

#: (op name, attribute name) pairs whose value the op's verifier fixes to a kind
#: that never holds a symbol reference (integer arrays, enums, strings, struct
#: attributes of integers): not printed to look for ``@`` (printing every
#: attribute dominated the pass on a 30k-op module).
_NO_SYMBOLS = frozenset(
    (t.name(op), attr)
    for t in TABLES.values()
    for op, attr in (
        ("dot_general", "dot_dimension_numbers"),
        ("broadcast_in_dim", "broadcast_dimensions"),
        ("reduce", "dimensions"),
        ("transpose", "permutation"),
        ("slice", "start_indices"),
        ("slice", "limit_indices"),
        ("slice", "strides"),
        ("iota", "iota_dimension"),
        ("concatenate", "dimension"),
        ("compare", "comparison_direction"),
        ("composite", "name"),
        ("composite", "version"),
        ("custom_call", "call_target_name"),
    )
)


def _named_attrs(op):
    """The op's attribute values that may hold a symbol reference.

    The binding aborts the process (not a Python exception) when it downcasts
    some attributes, e.g. complex dense elements, so an attribute is only
    downcast when its printed form contains ``@``; ``constant`` ops (only a
    ``value``) are skipped outright, and so are the attributes in
    :data:`_NO_SYMBOLS`.
    """
    name = op.name
    if name.endswith(".constant"):
        return
    attrs = op.attributes
    for i in range(len(attrs)):
        na = attrs[i]
        if (name, na.name) in _NO_SYMBOLS:
            continue
        if "@" in str(na):
            yield na.attr


def _symbol_refs(attr, out: list) -> None:
    if isinstance(attr, ir.FlatSymbolRefAttr):
        out.append(attr.value)
    elif isinstance(attr, ir.SymbolRefAttr):
        text = str(attr)  # @root::@nested
        out.append(text[1:].split("::", 1)[0].strip('"'))
    elif isinstance(attr, ir.ArrayAttr):
        for i in range(len(attr)):
            _symbol_refs(attr[i], out)
    elif isinstance(attr, ir.DictAttr):
        for i in range(len(attr)):
            na = attr[i]
            if "@" in str(na):
                _symbol_refs(na.attr, out)


def reachable_functions(module_op, root: str = "main") -> set[str] | None:
    """Names of the functions reachable from ``root`` (None if there is no ``root``)."""
    funcs = {func_name(f): f for f in top_funcs(module_op)}
    if root not in funcs:
        return None
    seen = {root}
    work = [root]
    while work:
        f = funcs[work.pop()]
        refs: list = []
        nested: list = []

        def visit(op):  # no attribute access here: an exception in a walk callback aborts
            nested.append(op)
            return ir.WalkResult.ADVANCE

        f.walk(visit)
        for op in nested[:-1]:  # post-order: the function itself is last
            for a in _named_attrs(op):
                _symbol_refs(a, refs)
        for r in refs:
            if r in funcs and r not in seen:
                seen.add(r)
                work.append(r)
    return seen


#: (op name, attribute) pairs that hold the usual symbol references to functions: calls, composite
#: decompositions, custom calls' called computations (each attribute's kind fixed by the op's verifier)
_DIRECT_REFS = (("func.call", "callee"),) + tuple(
    (t.name(op), attr) for t in TABLES.values() for op, attr in (("composite", "decomposition"), ("custom_call", "called_computations"))
)


def _all_reached_directly(funcs: dict, ctx) -> bool:
    """True if every function of ``funcs`` (``{name: func.func}``, ``main`` among them) is reachable
    from ``main`` through :data:`_DIRECT_REFS` alone (ops listed by the census, one attribute read each).

    Those references are a subset of what :func:`reachable_functions` follows, so when they reach
    every function nothing is unreachable and the scan of every attribute of every op (the pass's
    cost on a module of many decompositions) is not needed.
    """
    by_name = dict(_DIRECT_REFS)
    names = [n for n in by_name if ctx.module_may_contain(n)]
    census = ctx.census
    seen = {"main"}
    work = ["main"]
    while work and len(seen) < len(funcs):
        for op in census.ops_named(funcs[work.pop()], *names, any_order=True):
            attrs = op.attributes
            attr = by_name[op.name]
            if attr not in attrs:
                continue
            refs: list = []
            _symbol_refs(attrs[attr], refs)
            for r in refs:
                if r in funcs and r not in seen:
                    seen.add(r)
                    work.append(r)
    return len(seen) == len(funcs)


def _run(module_op, ctx):
    funcs = top_funcs(module_op)
    names = [func_name(f) for f in funcs]
    if names == ["main"]:  # nothing else to prune: skip the reachability scan
        ctx.stats["functions-erased"] += 0
        ctx.stats["functions-kept"] += 1
        return
    by_name = dict(zip(names, funcs))
    if "main" in by_name and len(by_name) == len(funcs) and _all_reached_directly(by_name, ctx):
        ctx.stats["functions-erased"] += 0
        ctx.stats["functions-kept"] += len(funcs)
        return
    live = reachable_functions(module_op)
    if live is None:
        ctx.debug("no 'main' function: module left unchanged")
        return
    dead = [f for f in funcs if func_name(f) not in live]
    for f in dead:
        ctx.debug(f"erasing unreachable function @{func_name(f)}")
        ctx.rewriter.erase_op(f)
    ctx.stats["functions-erased"] += len(dead)
    ctx.stats["functions-kept"] += len(live)


register_twins(
    "prune-functions",
    "Erase functions unreachable from main (calls, composite decompositions, any symbol reference)",
    _run,
    anchor="builtin.module",
    class_name="PruneFunctions",
    statistics=("functions-erased", "functions-kept"),
    source="seed 004 step 24 (unconditional); DESIGN.md catalogue step 24",
)
