"""The shared printer driver tier (seed 002 section 1; seed 004 terminal pass; DESIGN.md "The printer").

One :class:`PenguinPrinter` instance per invocation holds every piece of
state: the ``m<N>`` import aliases (numbered in first-use order), the value
names (``input_<i>``, ``v<N>``), the per-op-name counter, the nesting stack
that gives body ops their ``parent=``, the call stack (recursion check), the
``.npy`` files of large constants, and caches. Nothing is process-global, so
two prints of the same module in one process give identical text.

The output format is specified in ``docs/penguin_format.md``; the section
numbers below refer to it. Every ordinary op goes through one statement
assembler, :meth:`PenguinPrinter.statement` (section 5):
``v<N> = m<K>.<PyOp>(srcs=[...], dsts=[...], <attrs>, xla_op='<mlir op>', dl=m<S>.DebugLocation(...))``.
Groups (fusions, composites, calls; section 6), ops with regions (section 7),
constants (section 5a) and custom calls (section 8, :mod:`.custom_calls`) have
their own emitters, all built on the same assembler. The MHLO and StableHLO
printers (:mod:`.mhlo`, :mod:`.stablehlo`) add their fusion/composite
dispatch surface.

Cost: one pass over the ops, one output buffer (a list of lines), O(1)
lookups (value names in a dict, functions in a symbol dict built once,
rendered types/attributes/locations/constants cached per uniqued object).
The support check (:func:`.supported.unsupported_reason`) is applied to
every op, but in parts: the op-name verdict once per name, result types once
per distinct type tuple, and operand types not again when each operand is
bound to a value whose type was already checked (:meth:`PenguinPrinter._print_op`).
Ordinary ops are printed inline by :meth:`PenguinPrinter.print_block`
(~2x fewer instructions than the per-op path on the 34k-op decoder stack).
"""

from __future__ import annotations

import keyword
import re

from ..diagnostics import HiloError
from . import supported as _sup

DEFAULT_ROOT = "neuronxcc.starfish.penguin"
DEFAULT_INLINE_LIMIT = 256

#: Keyword names the statement itself uses; an MLIR attribute with one of these names gets a trailing ``_``.
RESERVED_KEYS = frozenset({"srcs", "dsts", "xla_op", "dl", "regions", "op", "parent", "reducer"})

_TERMINATORS = frozenset({"func.return", "mhlo.return", "stablehlo.return"})
_KEYS: dict[str, str] = {}  # attribute name -> keyword name before de-duplication (pure function of the name)
_FILE_LOC = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"(:\d)?')
_ENUM_TEXT = re.compile(r"^#\w+<\s*[\w.]+\s+(\w+)\s*>$")

#: reducer bodies recognised for the ``reducer=`` hint (section 7)
_REDUCER_HINTS = {
    "add": "add", "multiply": "multiply", "maximum": "maximum", "minimum": "minimum",
    "and": "and", "or": "or", "xor": "xor",
}


def dtype_name(elem_type) -> str:
    """Penguin dtype string for an MLIR element type (``f32`` -> ``'float32'``)."""
    s = str(elem_type)
    return _sup.DTYPES.get(s, s)


def camel(short: str) -> str:
    """``dot_general`` -> ``DotGeneral``."""
    return "".join(p[:1].upper() + p[1:] for p in short.split("_"))


def py_op_name(op_name: str) -> str:
    """The generic Python op name of an MLIR op name (``mhlo.dot_general`` -> ``DotGeneralOp``)."""
    py = _PY_OP_NAMES.get(op_name)
    if py is None:
        py = _PY_OP_NAMES[op_name] = camel(op_name.split(".", 1)[-1]) + "Op"
    return py


_PY_OP_NAMES: dict[str, str] = {}  # op name -> Python op name (a pure function of the name)
_REPRS: dict[str, str] = {}  # xla_op string -> its repr


class PenguinPrinter:
    """Print one module as a Penguin Python program (docs/penguin_format.md).

    Args:
        root: the Penguin module root (default ``neuronxcc.starfish.penguin``).
        filename: substituted for the parser's ``-`` buffer name in locations.
        inline_limit: constants with more elements than this (and not splat)
            go to ``.npy`` files (:attr:`files`).

    After :meth:`print_module`, :attr:`files` holds ``{name: bytes}`` for the
    ``.npy`` files that belong beside ``penguin.py`` and :attr:`per_op_counter`
    the number of statements printed per MLIR op name.

    The twins :class:`~.mhlo.MhloPrinter` and :class:`~.stablehlo.StableHloPrinter`
    share this whole tier (seed 002 section 1); their dispatch surfaces are
    :func:`.mhlo.print_fusion` (FusionKind) and :func:`.stablehlo.print_composite`
    (CompositeKind), reached through the shared dispatch table so both
    printers accept every form a module of either spine can contain.
    """

    dialect = "mhlo"

    def __init__(self, root: str = DEFAULT_ROOT, filename: str | None = None, inline_limit: int = DEFAULT_INLINE_LIMIT):
        self.root = root
        self.filename = filename
        self.inline_limit = inline_limit
        self.imports: dict[str, str] = {}  # module path -> alias, first-use order
        self.names: dict = {}  # ir.Value -> python name
        self.next_value = 0
        self.per_op_counter: dict[str, int] = {}
        self.parent_stack: list[str] = []
        self.call_stack: list[str] = []
        self.lines: list[str] = []
        self.indent = ""
        self.files: dict[str, bytes] = {}
        self.symbols: dict = {}
        self._spec_cache: dict = {}
        self._attr_cache: dict = {}
        self._loc_cache: dict[str, str] = {}
        self._loc_by_key: dict = {}  # location (as its LocationAttr) -> rendered prefix
        self._type_reasons: dict = {}
        self._aliases: dict[str, str] = {}  # sub -> alias, for subs already allocated by mod()
        self._const_cache: dict = {}  # dense attribute -> rendered inline value (never a .npy reference)
        self._dsts_cache: dict = {}  # tuple of result types -> rendered ``[...]`` of their specs
        self._result_reasons: dict = {}  # tuple of result types -> first type_reason (or None)
        self._ok_dsts: dict = {}  # tuple of result types that passed the check -> rendered dsts
        self._ok_dsts1: dict = {}  # the same for single results, keyed by the type
        # False once a block argument whose type fails supported.type_reason was bound:
        # then operand types are no longer implied by the checks already done (print_op).
        self._bound_types_ok = True
        self._ir = None

    # -- names -------------------------------------------------------------------------------
    def mod(self, sub: str = "") -> str:
        """Alias of ``root[.sub]``, allocating ``m<N>`` in first-use order."""
        alias = self._aliases.get(sub)
        if alias is None:
            path = self.root + ("." + sub if sub else "")
            alias = self.imports.get(path)
            if alias is None:
                alias = self.imports[path] = f"m{len(self.imports)}"
            self._aliases[sub] = alias
        return alias

    def fresh(self) -> str:
        """A new ``v<N>`` name."""
        n = f"v{self.next_value}"
        self.next_value += 1
        return n

    def name_of(self, value) -> str:
        """The Python name bound to an MLIR value (error if not bound yet)."""
        try:
            return self.names[value]
        except KeyError:
            raise HiloError(f"printer: value {value.get_name()} is used before it is defined") from None

    def _names_of(self, values) -> list[str]:
        """:meth:`name_of` of each value (one dict lookup each; the error names the first unbound one)."""
        names = self.names
        try:
            return [names[v] for v in values]
        except KeyError:
            return [self.name_of(v) for v in values]

    def _bind_args(self, block, args, arg_names) -> None:
        """:meth:`bind` each of ``args`` (``block``'s arguments) to the name at the same position."""
        names = self.names
        for a, n in zip(args, arg_names):
            names[a] = n
        if self._bound_types_ok:
            reasons = self._type_reasons
            for t in block.arguments.types[:len(arg_names)]:
                if _sup.type_reason(t, reasons):
                    self._bound_types_ok = False
                    break

    def bind(self, value, name: str) -> None:
        """Bind ``value`` (whose type was not checked yet, e.g. a block argument) to ``name``."""
        self.names[value] = name
        if self._bound_types_ok and _sup.type_reason(value.type, self._type_reasons):
            self._bound_types_ok = False

    def write(self, line: str) -> None:
        self.lines.append(self.indent + line)

    # -- rendering ---------------------------------------------------------------------------
    def spec(self, t) -> str:
        """``TensorSpec(...)`` / ``TupleSpec(...)`` for an MLIR type (cached per type)."""
        s = self._spec_cache.get(t)
        if s is None:
            s = self._spec_cache[t] = self._spec(t)
        return s

    def _spec(self, t) -> str:
        ir = self._ir
        ir_mod = self.mod("ir")
        tid = t.typeid
        if tid == ir.RankedTensorType.static_typeid:
            rt = ir.RankedTensorType(t)
            return f"{ir_mod}.TensorSpec(shape={tuple(rt.shape)!r}, dtype='{dtype_name(rt.element_type)}')"
        if tid == ir.TupleType.static_typeid:
            tt = ir.TupleType(t)
            return f"{ir_mod}.TupleSpec(elements=[{', '.join(self.spec(tt.get_type(i)) for i in range(tt.num_types))}])"
        s = str(t)
        if s.endswith(".token"):
            return f"{ir_mod}.TensorSpec(shape=(), dtype='token')"
        return f"{ir_mod}.TensorSpec(shape=(), dtype='{dtype_name(s)}')"

    def dsts(self, types) -> str:
        return "[" + ", ".join(self.spec(t) for t in types) + "]"

    def debug_location(self, loc) -> str:
        """``m<S>.DebugLocation(file=, line=, col=, name=[, parent=])`` for an MLIR location (section 5)."""
        # Locations are uniqued. ir.Location hashes by wrapper, but its LocationAttr (``loc.attr``)
        # hashes by the C++ pointer: str(loc) costs ~10 us, this lookup ~0.2 us.
        key = loc.attr
        base = self._loc_by_key.get(key)
        if base is None:
            base = self._loc_by_key[key] = self._location_base(str(loc))
        if self.parent_stack:
            return f"{base}, parent={self.parent_stack[-1]!r})"
        return base + ")"

    def _location_base(self, text: str) -> str:
        base = self._loc_cache.get(text)
        if base is None:
            f, line, col = "", 0, 0
            m = _FILE_LOC.search(text)
            if m:
                f, line, col = m.group(1), int(m.group(2)), int(m.group(3))
                if f == "-" and self.filename:
                    f = self.filename
            name = ""
            for q in _QUOTED.finditer(text):
                if q.group(2) is None:
                    name = q.group(1)
                    break
            base = f"{self.mod('support')}.DebugLocation(file={f!r}, line={line}, col={col}, name={name!r}"
            self._loc_cache[text] = base
        return base

    def attr_value(self, attr) -> str:
        """An MLIR attribute as a Python literal (section 5 table), cached per attribute (uniqued: hashes by pointer)."""
        hit = self._attr_cache.get(attr)
        if hit is not None:
            return hit
        s = self._attr_cache[attr] = self._attr_value(attr)
        return s

    def _attr_value(self, attr) -> str:
        from .constants import dense_to_numpy, python_literal
        from ..ir import mhlo, stablehlo

        ir = self._ir
        a = attr.maybe_downcast() if hasattr(attr, "maybe_downcast") else attr
        if isinstance(a, ir.BoolAttr):
            return "True" if a.value else "False"
        if isinstance(a, ir.IntegerAttr):
            return str(_int_value(a, ir))
        if isinstance(a, ir.FloatAttr):
            return python_literal(float(a.value))
        if isinstance(a, ir.StringAttr):
            return repr(a.value)
        if isinstance(a, ir.FlatSymbolRefAttr):
            return repr(a.value)
        if isinstance(a, ir.UnitAttr):
            return "True"
        if isinstance(a, ir.TypeAttr):
            t = a.value
            if t.typeid == ir.RankedTensorType.static_typeid or t.typeid == ir.TupleType.static_typeid:
                return self.spec(t)
            return repr(dtype_name(t))
        if isinstance(a, (ir.DenseI64ArrayAttr, ir.DenseI32ArrayAttr)):
            return repr([int(x) for x in a])
        if isinstance(a, ir.DenseBoolArrayAttr):
            return repr([bool(x) for x in a])
        if isinstance(a, (ir.DenseIntElementsAttr, ir.DenseFPElementsAttr, ir.DenseElementsAttr)):
            return python_literal(dense_to_numpy(attr))
        if isinstance(a, ir.ArrayAttr):
            return "[" + ", ".join(self.attr_value(x) for x in a) + "]"
        if isinstance(a, ir.DictAttr):
            items = []
            for i in range(len(a)):
                na = a[i]
                items.append(f"{na.name!r}: {self.attr_value(na.attr)}")
            return "{" + ", ".join(items) + "}"
        for dialect in (stablehlo, mhlo):
            if dialect.DotDimensionNumbers.isinstance(attr):
                d = dialect.DotDimensionNumbers(attr)
                return _dict(lhs_batching_dimensions=list(d.lhs_batching_dimensions),
                             rhs_batching_dimensions=list(d.rhs_batching_dimensions),
                             lhs_contracting_dimensions=list(d.lhs_contracting_dimensions),
                             rhs_contracting_dimensions=list(d.rhs_contracting_dimensions))
            if dialect.ConvDimensionNumbers.isinstance(attr):
                d = dialect.ConvDimensionNumbers(attr)
                return _dict(input_batch_dimension=d.input_batch_dimension,
                             input_feature_dimension=d.input_feature_dimension,
                             input_spatial_dimensions=list(d.input_spatial_dimensions),
                             kernel_input_feature_dimension=d.kernel_input_feature_dimension,
                             kernel_output_feature_dimension=d.kernel_output_feature_dimension,
                             kernel_spatial_dimensions=list(d.kernel_spatial_dimensions),
                             output_batch_dimension=d.output_batch_dimension,
                             output_feature_dimension=d.output_feature_dimension,
                             output_spatial_dimensions=list(d.output_spatial_dimensions))
            if dialect.GatherDimensionNumbers.isinstance(attr):
                d = dialect.GatherDimensionNumbers(attr)
                return _dict(offset_dims=list(d.offset_dims), collapsed_slice_dims=list(d.collapsed_slice_dims),
                             operand_batching_dims=list(d.operand_batching_dims),
                             start_indices_batching_dims=list(d.start_indices_batching_dims),
                             start_index_map=list(d.start_index_map), index_vector_dim=d.index_vector_dim)
            if dialect.ScatterDimensionNumbers.isinstance(attr):
                d = dialect.ScatterDimensionNumbers(attr)
                return _dict(update_window_dims=list(d.update_window_dims),
                             inserted_window_dims=list(d.inserted_window_dims),
                             input_batching_dims=list(d.input_batching_dims),
                             scatter_indices_batching_dims=list(d.scatter_indices_batching_dims),
                             scatter_dims_to_operand_dims=list(d.scattered_dims_to_operand_dims),
                             index_vector_dim=d.index_vector_dim)
            if dialect.ChannelHandle.isinstance(attr):
                d = dialect.ChannelHandle(attr)
                return _dict(handle=d.handle, type=d.channel_type)
            if dialect.OutputOperandAlias.isinstance(attr):
                d = dialect.OutputOperandAlias(attr)
                return _dict(output_tuple_indices=list(d.output_tuple_indices), operand_index=d.operand_index,
                             operand_tuple_indices=list(d.operand_tuple_indices))
            for cls in ("ComparisonDirectionAttr", "ComparisonTypeAttr", "PrecisionAttr", "TransposeAttr",
                        "RngAlgorithmAttr", "RngDistributionAttr", "FftTypeAttr", "FusionKindAttr"):
                c = getattr(dialect, cls, None)
                if c is not None and c.isinstance(attr):
                    return repr(str(c(attr).value))
        text = str(attr)
        m = _ENUM_TEXT.match(text)
        if m:
            return repr(m.group(1))
        return repr(text)

    def attr_items(self, op, skip=()) -> list[tuple[str, str]]:
        """``(key, python value)`` for every attribute of ``op`` not in ``skip`` (section 5 key rules)."""
        out = []
        attrs = op.attributes
        try:
            items = attrs.items()  # one binding call: [(name, attr)] in attribute order
        except TypeError:  # an attribute the binding cannot hand to Python (dense complex): only read the others
            used = set()
            for i in range(len(attrs)):
                na = attrs[i]
                if na.name in skip:
                    continue
                out.append((self.key(na.name, used), self.attr_value(na.attr)))
            return out
        if items:
            out.extend(self._attr_pairs(items, skip))
        return out

    def _attr_pairs(self, items, skip=()):
        """``(keyword, value text)`` for each ``(name, attr)`` of ``op.attributes.items()`` not in ``skip``."""
        used = set()
        key = self.key
        cache = self._attr_cache
        for name, attr in items:
            if name in skip:
                continue
            v = cache.get(attr)
            yield key(name, used), (v if v is not None else self.attr_value(attr))

    def _attr_tail(self, items, skip=()) -> str:
        """``", k=v"`` for each ``(name, attr)`` of ``op.attributes.items()``: what
        :meth:`attr_items` + :meth:`statement` print (same keys, same order)."""
        return "".join(f", {k}={v}" for k, v in self._attr_pairs(items, skip))

    @staticmethod
    def key(name: str, used: set | None = None) -> str:
        """A keyword-argument name for an MLIR attribute name (section 5)."""
        k = _KEYS.get(name)
        if k is None:
            k = re.sub(r"\W", "_", name)
            if not k or k[0].isdigit():
                k = "_" + k
            if keyword.iskeyword(k) or k in RESERVED_KEYS:
                k += "_"
            _KEYS[name] = k
        if used is not None:
            while k in used:
                k += "_"
            used.add(k)
        return k

    # -- the statement assembler -------------------------------------------------------------
    def statement(self, op, py_op: str | None = None, attrs=(), srcs=None, dst_types=None,
                  module_sub: str = "ir", xla_op: str | None = None, result_names=None,
                  dst_specs=None) -> list[str]:
        """Emit one statement for ``op`` (section 5); returns the names bound to its results.

        Args:
            op: the MLIR op (its results are bound to the new names).
            py_op: Python op name (default: :func:`py_op_name`).
            attrs: ``[(key, python source)]`` printed after ``dsts``.
            srcs: operand names (default: the op's operands).
            dst_types: result types for ``dsts`` (default: the op's result types).
            module_sub: the submodule of the root that provides ``py_op``.
            xla_op: the ``xla_op`` value (default: the MLIR op name).
            result_names: names already allocated for the results.
            dst_specs: pre-rendered ``dsts`` entries (overrides ``dst_types``).
        """
        name = op.name
        self.per_op_counter[name] = self.per_op_counter.get(name, 0) + 1
        results = list(op.results)  # one pass over the binding's result list
        if result_names is None:
            result_names = [self.fresh() for _ in range(len(results))]
        names = self.names
        for r, n in zip(results, result_names):
            names[r] = n
        if srcs is not None:
            src_names = srcs
        else:
            try:
                src_names = [names[v] for v in op.operands]
            except KeyError:  # report the unbound operand
                src_names = [self.name_of(v) for v in op.operands]
        if dst_specs is not None:
            dsts = "[" + ", ".join(dst_specs) + "]"
        elif dst_types is not None:
            dsts = self.dsts(dst_types)
        else:
            dsts = self._dsts_of(tuple(op.results.types))
        self._emit(op, name, py_op, attrs, src_names, dsts, module_sub, xla_op, result_names)
        return result_names

    def _dsts_of(self, types: tuple) -> str:
        """:meth:`dsts` of a tuple of result types, cached per tuple (types are uniqued)."""
        d = self._dsts_cache.get(types)
        if d is None:
            d = self._dsts_cache[types] = self.dsts(types)
        if types not in self._ok_dsts and self._result_reasons.get(types, 1) is None:
            self._ok_dsts[types] = d  # print_block's inline path may print these without the check
            if len(types) == 1:
                self._ok_dsts1[types[0]] = d
        return d

    def _emit(self, op, name, py_op, attrs, src_names, dsts, module_sub, xla_op, result_names) -> None:
        """Write ``[<results> = ]m<K>.<PyOp>(srcs=[...], dsts=[...], <attrs>, xla_op=..., dl=...)``.

        The ``m<N>`` aliases are allocated in the order :meth:`dsts`, then the
        location, then ``module_sub`` (the caller renders ``dsts`` and ``attrs``
        first), which fixes the import numbering (section 2).
        """
        xla = _REPRS.get(xla_op or name)
        if xla is None:
            xla = _REPRS[xla_op or name] = repr(xla_op or name)
        if attrs:
            tail = "".join([f", {k}={v}" for k, v in attrs])
        else:
            tail = ""
        dl = self.debug_location(op.location)
        call = (f"{self.mod(module_sub)}.{py_op or py_op_name(name)}(srcs=[{', '.join(src_names)}], "
                f"dsts={dsts}{tail}, xla_op={xla}, dl={dl})")
        if result_names:
            self.lines.append(f"{self.indent}{', '.join(result_names)} = {call}")
        else:
            self.lines.append(self.indent + call)

    # -- walking -----------------------------------------------------------------------------
    def check_supported(self, op) -> None:
        """Raise the printer's error for an op :func:`supported.unsupported_reason` rejects."""
        reason = _sup.unsupported_reason(op, self._type_reasons)
        if reason:
            self._unsupported(op, reason)

    @staticmethod
    def _unsupported(op, reason: str):
        short = _sup.hlo_short(op.name)
        code = "NCC_ISPP054" if short in ("fusion", "composite") and "Kind" in reason else None
        raise HiloError(reason, loc=op.location, code=code)

    def print_op(self, op) -> None:
        """Print one op: dispatch on its name (handlers), regions, or the generic statement."""
        name = op.name
        if name in _TERMINATORS:
            return
        self._print_op(op, name)

    def _print_op(self, op, name: str) -> None:
        """:meth:`print_op` for a non-terminator; the support check is :meth:`check_supported`'s, shortened.

        The op-level verdict is cached per name (per op for custom calls,
        fusions, composites). Operand types need no check when every operand
        is already bound and no block argument with an unsupported type was
        ever bound: each bound value is then an entry argument (checked by the
        prologue), a block argument (checked by :meth:`bind`) or a result of an
        op this method accepted. Otherwise the full check runs, so the error
        (and which error comes first) is the same as check_supported's.
        """
        info = _OP_INFO.get(name)
        if info is None:
            info = _op_info(name)
        reason, attr_dependent, handler = info
        if attr_dependent:
            reason = _sup.op_reason(op)
        if reason:
            self._unsupported(op, reason)
        src_names = None
        if self._bound_types_ok:
            names = self.names
            try:
                src_names = [names[v] for v in op.operands]
            except KeyError:
                src_names = None
        if src_names is None:
            self.check_supported(op)
            types = None
        else:
            types = tuple(op.results.types)
            r = self._result_reasons.get(types, False)
            if r is False:
                r = None
                for t in types:
                    r = _sup.type_reason(t, self._type_reasons)
                    if r:
                        break
                self._result_reasons[types] = r
            if r:
                self._unsupported(op, f"'{name}' result: {r}")
        if handler is not None:
            getattr(self, handler)(op)
            return
        if len(op.regions):
            self.print_region_op(op)
            return
        attrs = self.attr_items(op)
        if types is None:
            self.statement(op, attrs=attrs)
            return
        # The generic statement with the operand names and result types read above.
        counter = self.per_op_counter
        counter[name] = counter.get(name, 0) + 1
        n = len(types)
        if n:
            first = self.next_value
            self.next_value = first + n
            result_names = [f"v{i}" for i in range(first, first + n)]
            names = self.names
            for r, nm in zip(op.results, result_names):
                names[r] = nm
        else:
            result_names = []
        self._emit(op, name, None, attrs, src_names, self._dsts_of(types), "ir", None, result_names)

    def print_block(self, block) -> list:
        """Print every op of ``block`` except its terminator; return the terminator's operands.

        The common case - an op printed by the generic statement (no handler,
        no regions) whose operands are bound and whose result types passed the
        check before - is written inline here (the same text as
        :meth:`_print_op` + :meth:`statement`); everything else goes through
        :meth:`_print_op`.
        """
        term = None
        names = self.names
        lines = self.lines
        indent = self.indent  # nested region functions restore it before returning
        counter = self.per_op_counter
        ok_dsts = self._ok_dsts
        ok_dsts1 = self._ok_dsts1
        loc_cache = self._loc_by_key
        parent_stack = self.parent_stack
        aliases = self._aliases
        const_cache = self._const_cache
        generic = _GENERIC
        for o in block.operations:
            o = o.operation
            name = o.name
            if name in _TERMINATORS:
                term = o
                continue
            g = generic.get(name)
            if g is None or not self._bound_types_ok:
                self._print_op(o, name)
                continue
            try:
                src = [names[v] for v in o.operands]
            except KeyError:
                self._print_op(o, name)
                continue
            try:
                r0 = o.result  # most ops have one result: one binding call, no result list
                results = None
                dsts = ok_dsts1.get(r0.type)
            except ValueError:  # zero or several results
                results = o.results
                dsts = ok_dsts.get(tuple(results.types))
            if dsts is None or (not g[2] and len(o.regions)):
                self._print_op(o, name)  # result types not checked yet or rejected; an op with regions
                continue
            # -- the generic statement (section 5), as statement() writes it
            if g[2]:  # a constant: print_constant's value (cached per attribute) + the other attributes
                try:
                    items = o.attributes.items()
                except TypeError:  # dense complex value: print_constant reads the op's text
                    self._print_op(o, name)
                    continue
                value = None
                for k, a in items:
                    if k == "value":
                        value = const_cache.get(a)
                        break
                if value is None:
                    self._print_op(o, name)
                    continue
                tail = f", value={value}" + self._attr_tail(items, _VALUE)
            else:
                try:
                    items = o.attributes.items()
                except TypeError:  # an attribute the binding cannot hand to Python: attr_items' fallback
                    self._print_op(o, name)
                    continue
                tail = self._attr_tail(items) if items else ""
            counter[name] = counter.get(name, 0) + 1
            if results is None:
                lhs = f"v{self.next_value}"
                self.next_value += 1
                names[r0] = lhs
                lhs += " = "
            else:
                n = len(results)
                first = self.next_value
                self.next_value = first + n
                result_names = [f"v{i}" for i in range(first, first + n)]
                for r, nm in zip(results, result_names):
                    names[r] = nm
                lhs = ", ".join(result_names) + " = " if n else ""
            loc = o.location
            key = loc.attr
            base = loc_cache.get(key)
            if base is None:
                base = loc_cache[key] = self._location_base(str(loc))
            dl = f"{base}, parent={parent_stack[-1]!r})" if parent_stack else base + ")"
            m = aliases.get("ir") or self.mod("ir")
            lines.append(f"{indent}{lhs}{m}.{g[0]}(srcs=[{', '.join(src)}], dsts={dsts}{tail}, xla_op={g[1]}, dl={dl})")
        return list(term.operands) if term is not None else []

    # -- constants (section 5a) --------------------------------------------------------------
    def print_constant(self, op) -> None:
        from .constants import dense_to_numpy, npy_bytes, python_literal

        ir = self._ir
        value = None
        splat = False
        dense = None
        try:
            attr = op.attributes["value"]
        except TypeError:  # dense complex attributes cannot be handed to Python: read the text
            attr = None
        if attr is not None:
            value = self._const_cache.get(attr)  # attributes are uniqued: one rendering per distinct value
            if value is not None:
                self.statement(op, "ConstantOp", [("value", value)] + self.attr_items(op, skip=("value",)))
                return
            try:
                dense = ir.DenseElementsAttr(attr)
                splat = dense.is_splat
            except (ValueError, TypeError):
                dense = None
        if splat:
            sv = dense.get_splat_value().maybe_downcast()
            if isinstance(sv, ir.BoolAttr):
                value = python_literal(bool(sv.value))
            elif isinstance(sv, ir.IntegerAttr):
                value = python_literal(_int_value(sv, self._ir))
            elif isinstance(sv, ir.FloatAttr):
                value = python_literal(float(sv.value))
        if value is None:
            if attr is None:
                from .constants import dense_text_to_numpy

                arr = dense_text_to_numpy(str(op), op.results[0].type, op)
                flat = arr.reshape(-1)
                splat = arr.size > 0 and bool((flat == flat[0]).all())
            else:
                arr = dense_to_numpy(attr, op)
            if arr.ndim == 0 or splat:
                value = python_literal(arr.reshape(-1)[0])
            elif arr.size <= self.inline_limit:
                value = python_literal(arr)
            else:  # one .npy file per constant op (not cached)
                fname = f"const_{len(self.files)}.npy"
                self.files[fname] = npy_bytes(arr)
                value = f"{self.mod('ir')}.NpyFile({fname!r})"
                attr = None
        if attr is not None:
            self._const_cache[attr] = value
        self.statement(op, "ConstantOp", [("value", value)] + self.attr_items(op, skip=("value",)))

    # -- dot ---------------------------------------------------------------------------------
    def print_dot(self, op) -> None:
        """``dot`` -> ``DotGeneralOp`` with explicit ``dot_dimension_numbers`` (section 9)."""
        ir = self._ir
        lhs_rank = ir.RankedTensorType(op.operands[0].type).rank
        dims = _dict(lhs_batching_dimensions=[], rhs_batching_dimensions=[],
                     lhs_contracting_dimensions=[lhs_rank - 1], rhs_contracting_dimensions=[0])
        self.statement(op, "DotGeneralOp", [("dot_dimension_numbers", dims)] + self.attr_items(op))

    # -- regions (section 7) -----------------------------------------------------------------
    def print_region_op(self, op, py_op: str | None = None, attrs=None, skip=()) -> None:
        """An op with regions: result names first, one ``def`` per region, then the statement."""
        results = [self.fresh() for _ in range(len(op.results))]
        handle = results[0] if results else self.fresh()
        fnames = []
        hint = None
        for region in op.regions:
            blocks = list(region.blocks)
            if len(blocks) != 1:
                raise HiloError(f"'{op.name}' op: regions with {len(blocks)} blocks are not supported", loc=op.location)
            fnames.append(self.print_region_function(blocks[0], handle))
        if len(op.regions) == 1 and _sup.hlo_short(op.name) in ("reduce", "reduce_window", "all_reduce", "reduce_scatter", "scatter", "map"):
            hint = self.reducer_hint(list(op.regions[0].blocks)[0], _sup.hlo_short(op.name))
        items = list(attrs) if attrs is not None else self.attr_items(op, skip=skip)
        items.append(("regions", "[" + ", ".join(fnames) + "]"))
        if hint:
            items.append(("reducer", repr(hint)))
        self.statement(op, py_op, items, result_names=results)

    def print_region_function(self, block, parent: str) -> str:
        """``def v<N>(<block args>): <body>; return [<terminator operands>]``; returns the function name."""
        fname = self.fresh()
        args = list(block.arguments)
        params = [self.fresh() for _ in args]
        self._bind_args(block, args, params)
        self.write(f"def {fname}({', '.join(params)}):")
        outer = self.indent
        self.indent = outer + "    "
        self.parent_stack.append(parent)
        try:
            rets = self.print_block(block)
            self.write(f"return [{', '.join(self._names_of(rets))}]")
        finally:
            self.parent_stack.pop()
            self.indent = outer
        return fname

    def reducer_hint(self, block, short: str) -> str | None:
        """The ``reducer=`` hint: the body is one commutative binary op of the two block args, returned."""
        ops = [o.operation for o in block.operations]
        args = list(block.arguments)
        if len(args) != 2 or len(ops) not in (1, 2):
            return None
        term = ops[-1]
        if term.name not in _TERMINATORS or len(term.operands) != 1:
            return None
        if len(ops) == 1:
            if short == "scatter" and term.operands[0] == args[1]:
                return "replace"
            return None
        body = ops[0]
        bshort = _sup.hlo_short(body.name)
        if bshort not in _REDUCER_HINTS or len(body.operands) != 2 or len(body.results) != 1:
            return None
        if term.operands[0] != body.results[0]:
            return None
        a, b = body.operands[0], body.operands[1]
        if (a == args[0] and b == args[1]) or (a == args[1] and b == args[0]):
            return _REDUCER_HINTS[bshort]
        return None

    # -- groups (section 6) ------------------------------------------------------------------
    def print_group(self, op, header: str | None, attrs, block, xla_op: str) -> None:
        """Header statement (unless ``header`` is None: transparent), body, ``setResults``.

        The body block's arguments are bound to the group's operand names (a
        body without arguments captures the operands implicitly); the group's
        results are bound to the names the body returns.
        """
        operand_names = self._names_of(op.operands)
        args = list(block.arguments)
        # A body without arguments reads the operands by implicit capture (XLA-style fusions).
        if args and len(args) != len(operand_names):
            raise HiloError(f"'{op.name}' op has {len(operand_names)} operands but its body takes {len(args)} arguments",
                            loc=op.location)
        handle = None
        if header is not None:
            self.per_op_counter[op.name] = self.per_op_counter.get(op.name, 0) + 1
            handle = self.fresh()
            parts = [f"srcs=[{', '.join(operand_names)}]", f"dsts={self._dsts_of(tuple(op.results.types))}"]
            parts.extend(f"{k}={v}" for k, v in attrs)
            parts.append(f"xla_op={xla_op!r}")
            parts.append(f"dl={self.debug_location(op.location)}")
            self.write(f"{handle} = {self.mod('frontend.XlaFE')}.{header}({', '.join(parts)})")
            self.parent_stack.append(handle)
        try:
            if args:
                self._bind_args(block, args, operand_names)
            rets = self.print_block(block)
        finally:
            if handle is not None:
                self.parent_stack.pop()
        if len(rets) != len(op.results):
            raise HiloError(f"'{op.name}' op has {len(op.results)} results but its body returns {len(rets)} values",
                            loc=op.location)
        ret_names = self._names_of(rets)
        if handle is not None:
            self.write(f"{handle}.setResults([{', '.join(ret_names)}])")
        for r, n in zip(op.results, ret_names):
            self.names[r] = n

    def lookup_function(self, op, name: str):
        f = self.symbols.get(name)
        if f is None:
            raise HiloError(f"'{op.name}' op refers to unknown function @{name}", loc=op.location)
        return f

    def print_call(self, op) -> None:
        """``func.call``: the callee inlined at the call site behind a ``CallOp`` header (section 6)."""
        callee = self._ir.FlatSymbolRefAttr(op.attributes["callee"]).value
        if callee in self.call_stack:
            raise HiloError(f"recursive call to @{callee} cannot be printed (call chain: "
                            + " -> ".join("@" + c for c in self.call_stack + [callee]) + ")", loc=op.location)
        f = self.lookup_function(op, callee)
        self.call_stack.append(callee)
        try:
            self.print_group(op, "CallOp", [("callee", repr(callee))], f.regions[0].blocks[0], "func.call")
        finally:
            self.call_stack.pop()

    def print_composite(self, op) -> None:
        """``*.composite``: the CompositeKind dispatch (:func:`.stablehlo.print_composite`)."""
        from .stablehlo import print_composite

        print_composite(self, op)

    def print_fusion(self, op) -> None:
        """``mhlo.fusion``: the FusionKind dispatch (:func:`.mhlo.print_fusion`)."""
        from .mhlo import print_fusion

        print_fusion(self, op)

    def print_kind_group(self, op, py_name, hilo_fusion_op, kind, block) -> None:
        """The summary ``NeuronTensorOp`` (``op=``, ``hilo_fusion_op=``, ``reduce_dims=``) then the body."""
        if py_name is None:  # ScheduleFusion: transparent
            self.print_group(op, None, (), block, "mhlo.fusion")
            return
        items = [("op", repr(py_name))]
        if hilo_fusion_op is not None:
            items.append(("hilo_fusion_op", repr(hilo_fusion_op)))
        if kind == "MulRedSqrt":
            red = None
            for o in block.operations:
                if _sup.hlo_short(o.operation.name) == "reduce":
                    red = o.operation
                    break
            if red is None:
                raise HiloError(f"MulRedSqrt '{op.name}' has no reduce in its body (reduce_dims)", loc=op.location)
            items.append(("reduce_dims", self.attr_value(red.attributes["dimensions"])))
        self.print_group(op, "NeuronTensorOp", items, block, "mhlo.fusion")

    # -- custom calls ------------------------------------------------------------------------
    def print_custom_call(self, op) -> None:
        from .custom_calls import emit_custom_call

        emit_custom_call(self, op)

    # -- module ------------------------------------------------------------------------------
    def find_main(self, module):
        funcs = [op.operation for op in module.regions[0].blocks[0].operations if op.operation.name == "func.func"]
        for f in funcs:
            if self._ir.StringAttr(f.attributes["sym_name"]).value == "main":
                return f
        public = [f for f in funcs if "sym_visibility" not in f.attributes
                  or self._ir.StringAttr(f.attributes["sym_visibility"]).value == "public"]
        if len(public) == 1:
            return public[0]
        if not funcs:
            raise HiloError("module has no function to compile (expected 'func.func @main')", loc=module.location)
        raise HiloError(
            "module has no 'main' and several public functions: "
            + ", ".join("@" + self._ir.StringAttr(f.attributes["sym_name"]).value for f in public),
            loc=module.location,
        )

    def print_module(self, module) -> str:
        """Print ``module`` (its ``main``) as Penguin Python; returns the source text.

        Raises:
            HiloError: an op the printer cannot emit (with its location), an
                unknown FusionKind/CompositeKind (``NCC_ISPP054``), a bad
                custom-call config (``NCC_EVRF036``), an unknown custom-call
                target, a recursive call.
        """
        from ..ir import ir

        self._ir = ir
        module = module.operation if hasattr(module, "operation") else module
        for o in module.regions[0].blocks[0].operations:
            o = o.operation
            if o.name == "func.func":
                self.symbols[ir.StringAttr(o.attributes["sym_name"]).value] = o
        main = self.find_main(module)
        self.call_stack.append(ir.StringAttr(main.attributes["sym_name"]).value)
        body = main.regions[0].blocks[0]
        self.print_prologue(module, main, body)
        rets = self.print_block(body)
        self.print_epilogue(main, rets)
        header = ["# Generated by hilo_mlir: Penguin Python program (docs/penguin_format.md)."]
        header.extend(f"import {path} as {alias}" for path, alias in self.imports.items())
        return "\n".join(header) + "\n\n" + "\n".join(self.lines) + "\n"

    def print_prologue(self, module, main, body) -> None:
        """``Function(...)`` and one ``Tensor(...).markInput(...)`` per entry argument (section 3)."""
        ir = self._ir
        fn_attrs = []
        mattrs = module.attributes
        if "sym_name" in mattrs:
            fn_attrs.append(f"module={ir.StringAttr(mattrs['sym_name']).value}")
        for key, label in (("mhlo.num_partitions", "num-partitions"), ("mhlo.num_replicas", "num-replicas")):
            if key in mattrs:
                try:
                    fn_attrs.append(f"{label}={int(ir.IntegerAttr(mattrs[key]).value)}")
                except (ValueError, TypeError):
                    pass
        attrs_src = "(" + ", ".join(repr(a) for a in fn_attrs) + ("," if len(fn_attrs) == 1 else "") + ")"
        self.write(f"function = {self.mod()}.Function(id_=0, batch_ids=[], attrs={attrs_src})")
        slow_ins = set(_int_list(main.attributes, "slowChangingIns"))
        input_names = _str_list(main.attributes, "input_names")
        args = body.arguments
        for i, (arg, t) in enumerate(zip(args, args.types)):
            reason = _sup.type_reason(t, self._type_reasons)
            if reason:
                raise HiloError(f"entry argument {i}: {reason}", loc=main.location)
            name = f"input_{i}"
            self.names[arg] = name
            label = input_names[i] if input_names and i < len(input_names) else _loc_name(arg) or name
            is_param = i in slow_ins
            extra = f", weight_file={f'input_{i}.npy'!r}" if is_param else ""
            self.write(
                f"{name} = {self.mod('ir')}.Tensor(name={label!r}, spec={self.spec(t)})"
                f".markInput(function, index={i}, is_parameter_tensor={is_param}{extra})"
            )

    def print_epilogue(self, main, rets) -> None:
        """One ``function.markOutput(...)`` per result, slow/fast from ``slowChangingOuts`` (section 4)."""
        slow_outs = set(_int_list(main.attributes, "slowChangingOuts"))
        out_names = _str_list(main.attributes, "output_names")
        info = _result_infos(main, self._ir)
        for j, v in enumerate(rets):
            if out_names and j < len(out_names):
                label = out_names[j]
            elif j < len(info) and info[j]:
                label = info[j]
            else:
                label = f"output_{j}"
            self.write(f"function.markOutput({self.name_of(v)}, index={j}, name={label!r}, "
                       f"is_slow_changing={j in slow_outs})")


#: short-name handlers shared by both printers (the dialect-specific ones are in HANDLERS)
_SHORT_HANDLERS = {
    "constant": "print_constant",
    "dot": "print_dot",
    "custom_call": "print_custom_call",
    "composite": "print_composite",
    "fusion": "print_fusion",
}


#: op name -> (name_reason, attribute-dependent, handler method): a pure function of the name
_OP_INFO: dict[str, tuple] = {}


#: op name -> (Python op name, repr of the name, is a constant) for ops print_block prints inline:
#: supported by name alone, no handler except print_constant
_GENERIC: dict[str, tuple] = {}
_VALUE = ("value",)


def _op_info(name: str) -> tuple:
    short = _sup.hlo_short(name)
    handler = _SHORT_HANDLERS.get(short) if short is not None else ("print_call" if name == "func.call" else None)
    info = _OP_INFO[name] = (_sup.name_reason(name), _sup.attribute_dependent(name), handler)
    if info[:2] == (None, False) and name not in _TERMINATORS:
        if handler is None:
            _GENERIC[name] = (py_op_name(name), repr(name), False)
        elif handler == "print_constant":
            _GENERIC[name] = ("ConstantOp", repr(name), True)
    return info


def _int_value(a, ir) -> int:
    """The integer of an IntegerAttr (the binding already reads unsigned types as unsigned)."""
    return int(a.value)


def _dict(**kw) -> str:
    return "dict(" + ", ".join(f"{k}={v!r}" for k, v in kw.items()) + ")"


def _int_list(attrs, key) -> list[int]:
    if key not in attrs:
        return []
    from ..ir import ir

    a = attrs[key].maybe_downcast()
    if isinstance(a, ir.ArrayAttr):
        return [int(ir.IntegerAttr(x).value) for x in a]
    if isinstance(a, (ir.DenseI64ArrayAttr, ir.DenseI32ArrayAttr)):
        return [int(x) for x in a]
    from .constants import dense_to_numpy

    return [int(x) for x in dense_to_numpy(attrs[key]).reshape(-1)]


def _str_list(attrs, key) -> list[str] | None:
    if key not in attrs:
        return None
    from ..ir import ir

    a = attrs[key].maybe_downcast()
    if isinstance(a, ir.ArrayAttr):
        return [ir.StringAttr(x).value if x.typeid == ir.StringAttr.static_typeid else str(x) for x in a]
    return None


def _loc_name(arg) -> str | None:
    try:
        text = str(arg.location)
    except Exception:  # noqa: BLE001 - older bindings have no BlockArgument.location
        return None
    m = re.match(r'loc\("((?:[^"\\]|\\.)*)"\)$', text)
    return m.group(1) if m else None


def _result_infos(main, ir) -> list[str | None]:
    attrs = main.attributes
    if "res_attrs" not in attrs:
        return []
    out = []
    for d in ir.ArrayAttr(attrs["res_attrs"]):
        d = ir.DictAttr(d)
        out.append(ir.StringAttr(d["jax.result_info"]).value if "jax.result_info" in d else None)
    return out
