"""Our ``stablehlo.composite "neuron.<Kind>"`` ops and their private decompositions.

A StableHLO fusion is a composite whose cluster lives in a private
``func.func @neuron.<Kind>.impl[.N]`` (its *decomposition*) appended to the
module; the composite carries ``CompositeKind = "<Kind>"``. Both makers of
composites -- the codegen (:mod:`hilo_mlir.fusion.codegen`) and
``fusion-to-composite`` -- build them with these helpers, so the attribute
set and the naming are written once:

* :class:`SymbolNamer` -- unique, deterministic decomposition names per module;
* :func:`new_decomposition` -- the private function, through the rewriter
  (:func:`new_decomposition_returning`: with its ``func.return``, in one rewriter call);
* :func:`composite_attributes` -- the composite's attribute dictionary.
"""

from __future__ import annotations

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import COMPOSITE_KIND_ATTR, COMPOSITE_NAMESPACE, COMPOSITE_VERSION, DECOMPOSITION_ATTR
from hilo_mlir.ir.utils import as_op

__all__ = ["SymbolNamer", "composite_attributes", "decomposition_base", "new_decomposition", "new_decomposition_returning"]


class SymbolNamer:
    """Unique, deterministic symbol names in one module (``neuron.<Kind>.impl``, ``.impl.1``, ...).

    Args:
        module_op: the ``builtin.module``; the ``sym_name`` of its top-level
            ops are taken at construction (names handed out later are
            remembered).

    Attributes:
        attributes: a memo of uniqued attributes of the module's context for
            :func:`composite_attributes` and :func:`new_decomposition` (the
            attributes every composite of one kind shares are made once).
        leaf_effects: None, or the :class:`~hilo_mlir.analysis.entry_block.LeafEffects`
            the codegen asks about the ops it moves into decompositions of this module.
    """

    def __init__(self, module_op):
        self.module_op = as_op(module_op)
        self.attributes: dict = {}
        self.leaf_effects = None  # the codegen's own-effect memo (a LeafEffects), once asked
        self._body = None  # the module's body block, once asked (module_body)
        self.taken = set()
        for o in self.module_op.regions[0].blocks[0].operations:
            if "sym_name" in o.operation.attributes:
                self.taken.add(ir.StringAttr(o.operation.attributes["sym_name"]).value)
        self._next: dict[str, int] = {}

    def module_body(self):
        """The module's body block (where decompositions are appended; read once)."""
        if self._body is None:
            self._body = self.module_op.regions[0].blocks[0]
        return self._body

    def fresh(self, base: str) -> str:
        """``base`` if free, else ``base.N`` with the smallest free N >= 1."""
        if base not in self.taken:
            self.taken.add(base)
            return base
        n = self._next.get(base, 1)
        while f"{base}.{n}" in self.taken:
            n += 1
        self._next[base] = n + 1
        name = f"{base}.{n}"
        self.taken.add(name)
        return name


def decomposition_base(kind: str) -> str:
    """``neuron.<kind>.impl``: the name a decomposition of ``kind`` gets (plus ``.N`` when taken)."""
    return f"{COMPOSITE_NAMESPACE}.{kind}.impl"


def composite_attributes(kind: str, sym: str, memo: dict | None = None) -> dict:
    """The attributes of ``stablehlo.composite "neuron.<kind>"`` calling decomposition ``@sym``.

    ``{name = "neuron.<kind>", composite_attributes = {}, decomposition = @sym,
    version = 1 : i32, CompositeKind = "<kind>"}``. Needs an active context.
    ``memo``: :attr:`SymbolNamer.attributes` of the module (the attributes that only
    depend on ``kind`` are then made once per kind).
    """
    fixed = memo.get(kind) if memo is not None else None
    if fixed is None:
        fixed = (
            ir.StringAttr.get(f"{COMPOSITE_NAMESPACE}.{kind}"),
            ir.DictAttr.get({}),
            ir.IntegerAttr.get(ir.IntegerType.get_signless(32), COMPOSITE_VERSION),
            ir.StringAttr.get(kind),
        )
        if memo is not None:
            memo[kind] = fixed
    name, attrs, version, kind_attr = fixed
    return {
        "name": name,
        "composite_attributes": attrs,
        DECOMPOSITION_ATTR: ir.FlatSymbolRefAttr.get(sym),
        "version": version,
        COMPOSITE_KIND_ATTR: kind_attr,
    }


def _decomposition_attributes(sym: str, in_types, out_types, memo: dict | None) -> dict:
    """The attributes of a private ``func.func @sym(in_types) -> out_types`` (see :func:`new_decomposition`)."""
    private = memo.get("private") if memo is not None else None
    if private is None:
        private = ir.StringAttr.get("private")
        if memo is not None:
            memo["private"] = private
    sig = ("function_type", tuple(map(hash, in_types)), tuple(map(hash, out_types)))
    fn_type = memo.get(sig) if memo is not None else None
    if fn_type is None:
        fn_type = ir.TypeAttr.get(ir.FunctionType.get(in_types, out_types))
        if memo is not None:
            memo[sig] = fn_type
    return {
        "sym_name": ir.StringAttr.get(sym),
        "function_type": fn_type,
        "sym_visibility": private,
    }


def new_decomposition(rewriter, module_body, sym: str, in_types, out_types, loc, arg_locs, memo: dict | None = None):
    """Append a private ``func.func @sym(in_types) -> out_types`` to ``module_body`` through ``rewriter``.

    Returns ``(the func.func op, its entry block)`` (the block empty, one argument per input
    type, at ``arg_locs``).
    ``memo``: as for :func:`composite_attributes` (also keeps the ``function_type`` attribute of
    each signature: types are uniqued, so they key it by their hash, the C++ pointer).
    """
    fn = rewriter.create(
        "func.func",
        attributes=_decomposition_attributes(sym, in_types, out_types, memo),
        regions=1,
        loc=loc,
        at_end=module_body,
    )
    return fn, rewriter.create_block(fn.regions[0], in_types, arg_locs, owner=fn)


def new_decomposition_returning(rewriter, module_body, sym: str, in_types, out_types, loc, arg_locs, returned, memo: dict | None = None):
    """:func:`new_decomposition` whose entry block already ends in ``func.return`` of ``returned``
    (values of ``out_types``, at ``loc``), built in one rewriter call
    (:meth:`~hilo_mlir.rewrite.rewriter.Rewriter.create_with_block`: one change recorded).

    Returns ``(the func.func op, its entry block, the func.return)``.
    """
    return rewriter.create_with_block(
        "func.func",
        arg_types=in_types,
        arg_locs=arg_locs,
        terminator="func.return",
        terminator_operands=returned,
        attributes=_decomposition_attributes(sym, in_types, out_types, memo),
        loc=loc,
        at_end=module_body,
    )
