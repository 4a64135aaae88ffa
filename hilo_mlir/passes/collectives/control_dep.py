"""Spine step 2: ``neuron-control-dep-tuple-simplifier`` (twin ``stablehlo-neuron-control-dep-tuple-simplifier``).

Source: seed 004 step 2 ("flatten AwsNeuronControlDep tuples", gate cfg[0x200],
``createNeuronControlDepTupleSimplifierPass``); behaviour from DESIGN.md
"Pass catalogue" row 2 (our definition: the seed only names the pass).

Match: ``custom_call @AwsNeuronControlDep(..., %t, ...)`` where an operand
``%t`` is produced by a ``tuple`` op (element types any tensor/token type).
Rewrite:

* the tuple operand is replaced by the tuple's elements, in place (one level:
  a tuple element that is itself a tuple is kept as one operand);
* if the custom call returns exactly one ``tuple<T0, ..., Tn>``, the new call
  returns ``T0, ..., Tn`` directly: every ``get_tuple_element %r[i]`` user is
  rewired to result ``i`` and erased; any other user of the old tuple result
  gets a fresh ``tuple`` of the new results (so nothing else changes);
* other results are kept with their types.

The old custom call is erased (replaced, not deleted: the new call keeps its
target, attributes and location, so the side effect stays in place); the
tuple op is erased when nothing else uses it (tuples are pure).
Calls whose operands are not tuples, or tuple-typed operands that are not
produced by a ``tuple`` op (block arguments), are left alone (a ``--debug`` line).
"""

from __future__ import annotations

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.utils import defining_op
from hilo_mlir.passmanager.registry import register_twins
from hilo_mlir.rewrite.pattern import RewritePattern, apply_patterns_once

TARGET = "AwsNeuronControlDep"


def _target(op) -> str | None:
    a = op.attributes["call_target_name"] if "call_target_name" in op.attributes else None
    return ir.StringAttr(a).value if a is not None else None


def _flat_operands(call, d) -> tuple[list, list]:
    """The call's operands with each ``tuple``-produced operand replaced by its elements,
    and the tuple ops read (empty if there is none)."""
    new_operands: list[ir.Value] = []
    tuples = []
    for v in call.operands:
        p = defining_op(v)
        if p is not None and d.is_op(p, "tuple"):
            new_operands.extend(p.operands)
            tuples.append(p)
        else:
            new_operands.append(v)
    return new_operands, tuples


def _rewire_tuple_result(call, new, d, rw) -> None:
    """The old call returned one tuple, ``new`` returns its elements: ``get_tuple_element``
    users read the element directly; any other user gets a fresh ``tuple`` of them."""
    old = call.results[0]
    rest = []
    for use in list(old.uses):
        user = use.owner.operation
        if d.is_op(user, "get_tuple_element"):
            idx = ir.IntegerAttr(user.attributes["index"]).value
            rw.replace_op(user, [new.results[idx]])
        else:
            rest.append(user)
    if rest:
        tup = rw.create(d.name("tuple"), results=[old.type], operands=list(new.results), loc=call.location, after=new)
        rw.replace_all_uses_with(old, tup.results[0])


class FlattenControlDep(RewritePattern):
    """One ``custom_call @AwsNeuronControlDep`` with a tuple operand, flattened (see the module doc)."""

    name, statistic, roots = "control-dep-tuple-simplifier", "control-deps-flattened", ("custom_call",)

    def match(self, op, rw):
        if _target(op) != TARGET:
            return False  # another custom call: not ours to explain
        d = rw.d
        found = False
        for i, v in enumerate(op.operands):
            p = defining_op(v)
            if p is not None and d.is_op(p, "tuple"):
                found = True
            elif isinstance(v.type, ir.TupleType) or str(v.type).startswith("tuple<"):
                rw.notify_match_failure(op, f"operand #{i} is a tuple not produced by a tuple op; left alone")
        return found or rw.notify_match_failure(op, "no tuple operand")

    def rewrite(self, call, prw):
        d = prw.d
        rw = prw.rewriter
        new_operands, tuples = _flat_operands(call, d)
        results = list(call.results)
        flatten_result = len(results) == 1 and str(results[0].type).startswith("tuple<")
        if flatten_result:
            tt = ir.TupleType(results[0].type)
            res_types = [tt.get_type(i) for i in range(tt.num_types)]
        else:
            res_types = [r.type for r in results]
        attrs = {na.name: na.attr for na in (call.attributes[i] for i in range(len(call.attributes)))}
        with call.context:
            new = rw.create(call.name, results=res_types, operands=new_operands, attributes=attrs, loc=call.location, before=call)
            if flatten_result:
                _rewire_tuple_result(call, new, d, rw)
            else:
                for r_old, r_new in zip(results, new.results):
                    rw.replace_all_uses_with(r_old, r_new)
        rw.erase_op(call)
        for t in tuples:
            if not any(True for r in t.results for _ in r.uses):
                rw.erase_op(t)


#: one sequence for every call (the drivers resolve its roots once per pass run)
_PATTERNS = (FlattenControlDep(),)


def _run(func_op, ctx):
    apply_patterns_once(func_op, _PATTERNS, ctx)


register_twins(
    "neuron-control-dep-tuple-simplifier",
    "Flatten tuple operands/results of custom_call @AwsNeuronControlDep",
    _run,
    class_name="NeuronControlDepTupleSimplifier",
    statistics=("control-deps-flattened",),
    source="seed 004 step 2 (gate cfg[0x200]); DESIGN.md catalogue row 2 (our definition)",
)
