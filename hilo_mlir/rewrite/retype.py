"""Type-rewriting shared by the passes that change element types everywhere
(``sixty-four-hack`` step 25, ``replace-token-type-with-u8`` step 19)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, MutableMapping
from typing import TYPE_CHECKING, Protocol

from hilo_mlir.ir.binding import checking_mode_enabled, ir
from hilo_mlir.support.diagnostics import HiloError

if TYPE_CHECKING:
    from hilo_mlir.ir.handles import Op
    from hilo_mlir.rewrite.rewriter import Rewriter

#: ``type -> new type``, or None to keep the type
TypeConverter = Callable[[ir.Type], ir.Type | None]


class RetypeCheckError(HiloError):
    """The checking mode found :func:`may_need_retype`'s census answer different from reading every signature."""


class CensusQueries(Protocol):
    """What :func:`may_need_retype` asks of the running pass's context
    (:class:`~hilo_mlir.passmanager.pass_context.PassContext`, answered from the op census)."""

    def module_has_element_type(self, *type_strings: str) -> bool: ...

    def module_may_contain(self, *op_names: str) -> bool: ...

    def ops_named(self, top: ir.Operation, *op_names: str) -> list[ir.Operation]: ...


def retype_op(
    op: Op,
    convert: TypeConverter,
    stats: MutableMapping[str, int],
    value_stat: str,
    signature_stat: str,
    rewriter: Rewriter | None = None,
) -> bool:
    """Give ``op``'s results, region arguments and (for ``func.func``) signature their converted types.

    Args:
        op: an ``ir.Operation``.
        convert: ``type -> new type or None`` (None: keep).
        stats: the pass's statistics counter.
        value_stat / signature_stat: statistic names to count retyped values / signatures.
        rewriter: the :class:`~hilo_mlir.rewrite.rewriter.Rewriter` that performs and records the
            changes (a pass passes ``ctx.rewriter``); None: a rewriter of its own (recorded, unscoped).

    Returns:
        True if anything changed.
    """
    if rewriter is None:
        from hilo_mlir.rewrite.rewriter import Rewriter

        rewriter = Rewriter()
    set_type, set_attr = rewriter.set_type, rewriter.set_attr

    changed = False
    for r in op.results:
        n = convert(r.type)
        if n is not None:
            set_type(r, n)
            changed = True
            stats[value_stat] += 1
    for reg in op.regions:
        for b in reg.blocks:
            for a in b.arguments:
                n = convert(a.type)
                if n is not None:
                    set_type(a, n)
                    changed = True
                    stats[value_stat] += 1
    if op.name == "func.func":
        ft = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
        ins = [convert(t) or t for t in ft.inputs]
        outs = [convert(t) or t for t in ft.results]
        if ins != list(ft.inputs) or outs != list(ft.results):
            set_attr(op, "function_type", ir.TypeAttr.get(ir.FunctionType.get(ins, outs)))
            changed = True
            stats[signature_stat] += 1
    return changed


def may_need_retype(
    ctx: CensusQueries, module_op: Op, convert: TypeConverter, element_types: Iterable[str], op_names: Collection[str] = ()
) -> bool:
    """False only when a retyping pass surely has nothing to do on ``module_op`` (no walk).

    Answered from the pipeline's census: no value of the module has
    an element type in ``element_types`` (strings as in
    :meth:`registry.PassContext.module_element_types`, e.g. ``"i64"``; asked with
    :meth:`~registry.PassContext.module_has_element_type`), none
    of ``op_names`` (full op names the pass rewrites or rejects whatever the
    types) occurs, and no ``func.func`` has a ``function_type`` that
    ``convert`` changes (a declaration's signature is not a value type).

    Args:
        ctx: the running pass's :class:`~hilo_mlir.passmanager.registry.PassContext`.
        module_op: the ``builtin.module`` the pass runs on.
        convert: ``type -> new type or None``, as given to :func:`retype_op`.
        element_types: element type strings the pass rewrites: every type ``convert`` changes must have
            one of them as its element type string (looking through shaped and tuple types, as
            :meth:`~hilo_mlir.analysis.census.Census.element_type_strings` does: ``"complex<f32>"``, not
            ``"f32"``, for ``tensor<2xcomplex<f32>>``), else the answer may be a wrong "nothing to do".
        op_names: op names that make the pass act on their own.
    """
    if ctx.module_has_element_type(*element_types):
        return True
    if op_names and ctx.module_may_contain(*op_names):
        return True
    if not ctx.module_may_contain("func.func"):
        return False
    # A function with a body has its signature's types as value types (entry-block arguments, the
    # return's operands), already asked above: only the census's signature-only functions (declarations)
    # are read, not the signature of each of the StableHLO spine's 1,536 decomposition functions.
    census = getattr(ctx, "census", None)
    signature_only = getattr(census, "signature_only_functions", None)
    if signature_only is None:
        return _changes_a_signature(_all_functions(ctx, module_op), convert)
    answer = _changes_a_signature(signature_only(), convert)
    if not answer and checking_mode_enabled() and _changes_a_signature(_all_functions(ctx, module_op), convert):
        raise RetypeCheckError("may_need_retype check failed: a signature changes that the census's signature-only functions do not show")
    return answer


def _all_functions(ctx: CensusQueries, module_op: Op) -> Iterable[ir.Operation]:
    for top in module_op.regions[0].blocks[0].operations:
        yield from ctx.ops_named(top.operation, "func.func")


def _changes_a_signature(funcs: Iterable[ir.Operation], convert: TypeConverter) -> bool:
    """True if ``convert`` changes a type of the ``function_type`` of any of ``funcs``."""
    for f in funcs:
        ft = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
        if any(convert(t) is not None for t in ft.inputs) or any(convert(t) is not None for t in ft.results):
            return True
    return False


class ElementTypeMapper:
    """Maps a type to the same type with its element types replaced (memoised per uniqued type).

    Subclasses define :meth:`elem` (an element type -> its replacement, or None to keep it).
    Calling the mapper on a ranked or unranked tensor type, or a tuple of them (nested),
    returns the new type, or None when no element type in it changes.
    """

    def __init__(self) -> None:
        self.memo: dict[ir.Type, ir.Type | None] = {}

    def elem(self, e: ir.Type) -> ir.Type | None:
        raise NotImplementedError

    def __call__(self, t: ir.Type) -> ir.Type | None:
        if t in self.memo:  # types are uniqued: they hash and compare by their C++ pointer
            return self.memo[t]
        res: ir.Type | None = None
        if isinstance(t, ir.RankedTensorType):
            e = self.elem(t.element_type)
            if e is not None:
                res = ir.RankedTensorType.get(list(t.shape), e, t.encoding)
        elif isinstance(t, ir.UnrankedTensorType):
            e = self.elem(t.element_type)
            if e is not None:
                res = ir.UnrankedTensorType.get(e)
        elif isinstance(t, ir.TupleType):
            elems: list[ir.Type] = []
            changed = False
            for i in range(t.num_types):
                x = t.get_type(i)
                n = self(x)
                changed |= n is not None
                elems.append(n if n is not None else x)
            if changed:
                res = ir.TupleType.get_tuple(elems)
        self.memo[t] = res
        return res
