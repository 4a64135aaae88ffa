"""Small reads of the IR that every layer needs, written once.

Nothing here mutates IR (mutations go through :mod:`hilo_mlir.rewrite.rewriter`) and
nothing names an op of a particular HLO dialect (that is
:mod:`hilo_mlir.ir.dialects`).

Identities: the binding creates a new Python wrapper per access, so ops,
values and blocks are keyed by the address of their C++ object
(:func:`op_key`, :func:`value_key`, :func:`block_key`). ``hash(ir.Value)``
and ``hash(ir.Block)`` are that address already (cheap); ``hash(ir.Operation)``
is not (it follows operands and attributes), hence :func:`op_key`. A key is
reused once its object is freed: drop it from any table before erasing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Literal, overload

from hilo_mlir.ir.binding import identity_key, ir

if TYPE_CHECKING:
    from hilo_mlir.ir.dialects import DialectTable
    from hilo_mlir.ir.handles import Op, Value

# --------------------------------------------------------------------------- identities


@overload
def as_op(x: None) -> None: ...
@overload
def as_op(x: Op) -> ir.Operation: ...
@overload
def as_op(x: Op | None) -> ir.Operation | None: ...
def as_op(x: Op | None) -> ir.Operation | None:
    """The generic ``ir.Operation`` of an OpView or Operation (None stays None)."""
    if x is None:
        return None
    return x if isinstance(x, ir.Operation) else x.operation


def op_key(op: Op) -> int:
    """The address of the C++ ``Operation`` of ``op`` (stable while it lives)."""
    return identity_key(op)


def value_key(v: Value) -> int:
    """The address of the C++ value behind ``v`` (``hash(v)``, cheap)."""
    return hash(v)


def block_key(block: ir.Block) -> int:
    """The address of the C++ ``Block`` (``hash(block)``, cheap)."""
    return hash(block)


# --------------------------------------------------------------------------- values and ops


def defining_op(v: Value) -> ir.Operation | None:
    """The ``ir.Operation`` producing ``v`` (``getDefiningOp``); None for a block argument."""
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation


def terminator(block: ir.Block) -> ir.Operation:
    """The last op of ``block`` (its terminator in a well-formed block).

    O(1) when that op is a terminator (the binding's insertion point before it; counting
    ``block.operations`` walks the whole block: ~9 ms on a 30k-op ``main``), else the count.
    """
    try:
        ref = ir.InsertionPoint.at_block_terminator(block).ref_operation
        if ref is not None:
            term: ir.Operation = ref.operation
            return term
    except ValueError:  # empty, or the last op is not a terminator (unverified IR)
        pass
    ops = block.operations
    last: ir.Operation = ops[len(ops) - 1].operation
    return last


def class_declares_no_regions(cls: type) -> bool:
    """True if the op class ``cls`` (``type(op.opview)``) is a generated class whose ODS declaration has no
    region and no variadic one (``_ODS_REGIONS == (0, True)``): every op of its name then has none.

    False when that is not known: the declaration is taken from the nearest class of ``cls``'s MRO that
    defines ``_ODS_REGIONS``, and the plain ``ir.OpView`` -- what an op of a dialect without generated
    Python classes (``shape``, ``sdy``, an unregistered op) gets -- declares ``(0, True)`` for every op, so
    its word is not taken. The caller then reads ``len(op.regions)``.
    """
    for c in cls.__mro__:
        declared = c.__dict__.get("_ODS_REGIONS")
        if declared is not None:
            return c is not ir.OpView and declared == (0, True)
    return False


def block_ops(block: ir.Block) -> list[ir.Operation]:
    """The ops of ``block`` as ``ir.Operation`` s, in order."""
    return [o.operation for o in block.operations]


def only_block_ops(op: Op) -> list[ir.Operation] | None:
    """The ops of the one block of ``op`` (one region holding one block) as ``ir.Operation`` s, in order;
    None when ``op`` has another number of regions or blocks.

    :func:`block_ops` of that block, from one walk of ``op`` that does not enter the regions
    of the ops it lists: no op view is made per op (~0.4 us less per op than ``block.operations``).
    """
    operation = op.operation
    regions = operation.regions
    if len(regions) != 1 or len(regions[0].blocks) != 1:
        return None
    out: list[ir.Operation] = []
    append = out.append
    skip, advance = ir.WalkResult.SKIP, ir.WalkResult.ADVANCE

    def visit(o: ir.Operation) -> ir.WalkResult:
        append(o)
        return skip if len(out) > 1 else advance  # the first is ``op`` itself: enter its region

    operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    del out[0]
    return out


# --------------------------------------------------------------------------- functions


def top_funcs(module_op: Op) -> list[ir.Operation]:
    """The ``func.func`` ops directly in the module's body, in order."""
    return [o.operation for o in module_op.regions[0].blocks[0].operations if o.operation.name == "func.func"]


def func_name(f: Op) -> str:
    """``sym_name`` of a ``func.func``."""
    return ir.StringAttr(f.attributes["sym_name"]).value


def is_public(f: Op) -> bool:
    """True unless the function is ``private`` or ``nested``."""
    attrs = f.attributes
    return "sym_visibility" not in attrs or ir.StringAttr(attrs["sym_visibility"]).value == "public"


@overload
def find_main(module_op: Op | ir.Module, required: Literal[True] = ...) -> ir.Operation: ...
@overload
def find_main(module_op: Op | ir.Module, required: bool) -> ir.Operation | None: ...
def find_main(module_op: Op | ir.Module, required: bool = True) -> ir.Operation | None:
    """``func.func @main`` of the module (the entry the Penguin program is built from).

    Args:
        module_op: a ``builtin.module`` (``ir.Operation`` or ``ir.Module``'s operation).
        required: raise when absent (else return None).

    Raises:
        HiloError: no ``@main`` and ``required``; names the functions found.
    """
    mop = module_op.operation  # Operation, OpView and Module all have it (an Operation's is itself)
    try:  # the symbol table (built in C++): no Python read per top-level op; symbols are unique in valid IR
        found = ir.SymbolTable(mop)["main"].operation
        if found.name == "func.func":
            return found
    except (KeyError, TypeError, ValueError, RuntimeError):  # no @main, or not a symbol table: the scan says so
        pass
    funcs = top_funcs(mop)
    for f in funcs:
        if func_name(f) == "main":
            return f
    if required:
        from hilo_mlir.support.diagnostics import HiloError

        names = ", ".join("@" + func_name(f) for f in funcs) or "none"
        raise HiloError(
            f"module has no 'func.func @main' (the entry function the Penguin program is built from; functions: {names})",
            loc=funcs[0].location if funcs else mop.location,
        )
    return None


def func_type(f: Op) -> ir.FunctionType:
    """The ``function_type`` of a ``func.func``."""
    return ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)


def num_inputs(f: Op) -> int:
    """The number of inputs of the ``func.func`` ``f``: its entry block's argument count (O(1); the
    verifier holds it to the ``function_type``), or the type's for a declaration. ``len(func_type(f).inputs)``
    builds a list of every input type (~8 ms for the 3,585 parameters of L512's ``main``)."""
    blocks = f.regions[0].blocks
    if len(blocks):
        n: int = len(blocks[0].arguments)
        return n
    return len(func_type(f).inputs)


def entry_block(f: Op) -> ir.Block:
    """The first block of the function's body."""
    block: ir.Block = f.regions[0].blocks[0]
    return block


# --------------------------------------------------------------------------- attributes


def int_list(attr: ir.Attribute) -> list[int]:
    """The integers of an integer-list attribute in any spelling, flattened row-major.

    Accepts ``array<i64: ...>`` (``DenseI64ArrayAttr``), a dense integer
    tensor (splats expanded), an ``IntegerAttr`` (one element) and an
    ``ArrayAttr`` of ``IntegerAttr``.

    Raises:
        ValueError: any other attribute.
    """
    if isinstance(attr, ir.DenseI64ArrayAttr):
        return [int(v) for v in attr]
    if isinstance(attr, ir.IntegerAttr):
        return [int(attr.value)]
    if isinstance(attr, ir.DenseIntElementsAttr):
        import numpy as np

        return [int(v) for v in np.array(attr).reshape(-1)]
    if isinstance(attr, ir.ArrayAttr):
        return [int(ir.IntegerAttr(a).value) for a in attr]
    for cast in (ir.DenseI64ArrayAttr, ir.DenseIntElementsAttr, ir.IntegerAttr, ir.ArrayAttr):
        try:
            return int_list(cast(attr))
        except (ValueError, TypeError):
            continue
    raise ValueError(f"not an integer list attribute: {attr}")


def int_list_of(attrs: ir.OpAttributeMap | Mapping[str, ir.Attribute], key: str, default: Iterable[int] = ()) -> list[int]:
    """:func:`int_list` of ``attrs[key]`` (an op's attribute map), or ``list(default)`` when absent."""
    if key not in attrs:
        return list(default)
    return int_list(attrs[key])


def attr_is(op: Op, name: str, attr: ir.Attribute) -> bool:
    """True if ``op`` holds attribute ``name`` and it equals ``attr`` (attributes are uniqued).

    Write an attribute only when this is False, so that a pass with nothing to
    change records no change.
    """
    attrs = op.attributes
    return name in attrs and attrs[name] == attr


# --------------------------------------------------------------------------- function argument and result attributes


def dict_list(f: Op, key: str, n: int) -> list[ir.DictAttr]:
    """``arg_attrs`` / ``res_attrs`` of the ``func.func`` ``f`` as ``n`` ``DictAttr`` s (empty dicts when absent)."""
    if key in f.attributes:
        arr = ir.ArrayAttr(f.attributes[key])
        return [ir.DictAttr(arr[i]) for i in range(len(arr))]
    return [ir.DictAttr.get({}) for _ in range(n)]


def dict_items(d: ir.Attribute) -> dict[str, ir.Attribute]:
    """``{name: attribute}`` of a ``DictAttr``."""
    da = ir.DictAttr(d)
    return {da[i].name: da[i].attr for i in range(len(da))}


def is_block_arg_of(value: Value, func_op: Op) -> bool:
    """True if ``value`` is an argument of the entry block of ``func_op``."""
    owner = value.owner
    return isinstance(owner, ir.Block) and owner.owner == func_op and owner == entry_block(func_op)


# --------------------------------------------------------------------------- type sizes


def element_bits(t: ir.Type) -> int:
    """Bit width of an element type (complex: both parts; index: 64; anything else: 0)."""
    if isinstance(t, (ir.IntegerType, ir.FloatType)):
        return t.width
    if isinstance(t, ir.ComplexType):
        return 2 * element_bits(t.element_type)
    if isinstance(t, ir.IndexType):
        return 64
    return 0


def type_bytes(t: ir.Type) -> int | None:
    """Bytes of a value of type ``t``.

    Ranked static tensor: elements x ceil(bits/8) (``i1`` is one byte, as XLA's
    PRED); tuple: the sum of its elements; token and other non-shaped types:
    0. None for a dynamic or unranked tensor (size unknown).
    """
    if isinstance(t, ir.RankedTensorType):
        if not t.has_static_shape:
            return None
        n = 1
        for s in t.shape:
            n *= s
        return n * ((element_bits(t.element_type) + 7) // 8)
    if isinstance(t, ir.TupleType):
        total = 0
        for i in range(t.num_types):
            b = type_bytes(t.get_type(i))
            if b is None:
                return None
            total += b
        return total
    if isinstance(t, ir.ShapedType):  # unranked
        return None
    return 0


def all_blocks(op: Op) -> list[ir.Block]:
    """Every block of ``op``'s regions, nested ones included (pre-order walk order)."""
    blocks: list[ir.Block] = []

    def visit(o: ir.Operation) -> ir.WalkResult:
        for r in o.regions:
            for b in r.blocks:
                blocks.append(b)
        return ir.WalkResult.ADVANCE

    op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return blocks


# --------------------------------------------------------------------------- appended: uses, ancestry, reductions


def has_one_use(op: Op | None) -> bool:
    """``op`` has exactly one result and that result exactly one use (``hasOneUse``).

    Reads at most two use-list entries (a shared constant may have thousands);
    False for None.
    """
    if op is None:
        return False
    try:
        r = op.result  # one binding call; raises unless the op has exactly one result
    except ValueError:
        return False
    it = iter(r.uses)
    return next(it, None) is not None and next(it, None) is None


def num_uses(v: Value) -> int:
    """Number of use-list entries of value ``v`` (an op using it twice counts twice)."""
    n = 0
    for _ in v.uses:
        n += 1
    return n


def has_more_uses(v: Value, n: int) -> bool:
    """``v`` has more than ``n`` use-list entries (reads at most ``n + 1`` of them, never their owners)."""
    i = 0
    for _ in v.uses:
        i += 1
        if i > n:
            return True
    return False


def enclosing_module(op: Op | None) -> ir.Operation | None:
    """The ``builtin.module`` ``ir.Operation`` holding ``op`` (``op`` itself if it is one); None if detached."""
    o = as_op(op)
    while o is not None and o.name != "builtin.module":
        p = o.parent
        o = as_op(p) if p is not None else None
    return o


#: The reducers :func:`reducer_kind` recognises (short op names).
REDUCERS = ("add", "multiply", "maximum", "minimum", "and", "or")


def reducer_kind(reduce_op: Op, d: DialectTable) -> str | None:
    """Short name of a ``reduce``'s body op when the body is ``return(op(arg0, arg1))`` (either
    operand order) and ``op`` is one of :data:`REDUCERS`; else None.

    Args:
        reduce_op: a ``reduce`` op (one region with one two-argument block).
        d: the :class:`~hilo_mlir.ir.dialects.DialectTable` of its dialect.
    """
    if len(reduce_op.regions) != 1 or len(reduce_op.regions[0].blocks) != 1:
        return None
    block = reduce_op.regions[0].blocks[0]
    ops = [o.operation for o in block.operations]
    if len(ops) != 2 or len(block.arguments) != 2:
        return None
    bin_op, ret = ops
    kind = d.short(bin_op)
    if kind not in REDUCERS or len(bin_op.operands) != 2 or len(ret.operands) != 1:
        return None
    a0, a1 = block.arguments[0], block.arguments[1]
    if not ((bin_op.operands[0] == a0 and bin_op.operands[1] == a1) or (bin_op.operands[0] == a1 and bin_op.operands[1] == a0)):
        return None
    if ret.operands[0] != bin_op.results[0]:
        return None
    return kind


def is_reduction_identity(v: Value, kind: str) -> bool:
    """``v`` is a splat ``constant`` holding the identity of reducer ``kind`` (:data:`REDUCERS`).

    Floats: 0 (add), 1 (multiply), -inf (maximum), +inf (minimum). Integers of
    width w: 0 (add, or), 1 (multiply), all ones (and), the type's minimum
    (maximum) and maximum (minimum); ``i1`` as booleans. Anything else: False.
    """
    import math

    c = defining_op(v)
    if c is None or c.name.split(".", 1)[-1] != "constant":
        return False
    try:
        dense = ir.DenseElementsAttr(c.attributes["value"])
    except (ValueError, TypeError, KeyError):
        return False
    if not dense.is_splat:
        return False
    sv = dense.get_splat_value()
    et = ir.ShapedType(c.results[0].type).element_type
    if isinstance(sv, ir.FloatAttr) or sv.type.typeid in (
        ir.F32Type.static_typeid,
        ir.F64Type.static_typeid,
        ir.F16Type.static_typeid,
        ir.BF16Type.static_typeid,
    ):
        f = ir.FloatAttr(sv).value
        return {"add": f == 0.0, "multiply": f == 1.0, "maximum": math.isinf(f) and f < 0, "minimum": math.isinf(f) and f > 0}.get(
            kind, False
        )
    try:
        it = ir.IntegerType(et)
        val = ir.IntegerAttr(sv).value
    except (ValueError, TypeError):
        return False
    w = it.width
    if w == 1:
        val &= 1
        return {"and": val == 1, "or": val == 0, "add": val == 0, "maximum": val == 0, "minimum": val == 1, "multiply": val == 1}.get(
            kind, False
        )
    if it.is_unsigned:
        val %= 1 << w
        lo, hi = 0, (1 << w) - 1
    else:
        lo, hi = -(1 << (w - 1)), (1 << (w - 1)) - 1
    ones = -1 if not it.is_unsigned else hi
    return {"add": val == 0, "or": val == 0, "multiply": val == 1, "and": val == ones, "maximum": val == lo, "minimum": val == hi}.get(
        kind, False
    )
