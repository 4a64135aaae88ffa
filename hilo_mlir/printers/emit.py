"""The bottom layer of the printers: names, specs, locations, attribute text and the one statement format.

:class:`Emitter` holds every piece of a printer's state: the ``m<N>`` import
aliases (numbered in first-use order), the value names (``input_<i>``,
``v<N>``), the per-op-name counter, the nesting stack that gives body ops
their ``parent=``, the output lines, the ``.npy`` files of large constants,
and the caches (rendered types, attributes, locations, keyword names). One
instance prints one module; nothing is process-global, so two prints of the
same module in one process give identical text.

Every statement of a program is written by :func:`format_statement` (format
section 5):
``[<results> = ]<module>.<PyOp>(srcs=[...], dsts=[...]<keywords>, dl=<location>)``.
:meth:`Emitter.statement` assembles one for an op; the walker's inline path
(:mod:`.driver`) and the group headers (:mod:`.groups`) call the same
function with text they rendered themselves.

The import numbering (format section 2) follows the order in which the
aliases are first asked for, which every caller keeps: the result specs,
then the keyword values, then the location, then the statement's module.

Each op is read through the binding once, into an :class:`OpRecord` (the
walker's per-block snapshot); everything after that works on plain Python
values. Values are named by integer ids (:attr:`Emitter.value_key`,
``hash``: the binding hashes a value by its C++ pointer, which is unique
among the values alive during a print, and the printer changes nothing), and
the caches of uniqued types, attributes and locations are keyed the same way
(their hash is their pointer too). ``value_key`` is the one place that
relies on it: the checking printer (``fast_paths = False`` in
:mod:`.driver`) keys values on the binding objects themselves, and the tests
compare the two.
"""

from __future__ import annotations

import keyword
import re

from hilo_mlir.printers import supported as _sup
from hilo_mlir.printers.attr_text import attr_text, container_parts, dtype_name, nesting_depth
from hilo_mlir.printers.records import OpRecord, camel, format_statement, keyword_text, statement_parts
from hilo_mlir.printers.scopes import RegionFunctions
from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.support.mlir_strings import mlir_unescape
from hilo_mlir.support.pysource import dotted_name, py_literal, safe_keyword

DEFAULT_ROOT = "neuronxcc.starfish.penguin"
DEFAULT_INLINE_LIMIT = 256

#: Keyword names the statement itself uses; an MLIR attribute with one of these names gets a trailing ``_``.
#: ``attrs`` holds the attributes whose names cannot be keywords (:meth:`Emitter.attr_pairs`).
RESERVED_KEYS = frozenset({"srcs", "dsts", "xla_op", "dl", "regions", "op", "parent", "reducer", "attrs"})
#: the keywords :func:`format_statement` writes itself
STATEMENT_KEYS = frozenset({"srcs", "dsts", "xla_op", "dl"})
#: a literal (attribute value, tuple spec) nesting deeper than this is hoisted into a module-level name
#: (``a<N> = ...`` after the imports): Python's parser refuses about 200 nested brackets in one statement
HOIST_DEPTH = 32

_FILE_LOC = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"(:\d)?')


class Emitter(RegionFunctions):
    """The state and the rendering primitives of one printer (see the module docstring).

    Args:
        root: the Penguin module root (default ``neuronxcc.starfish.penguin``).
        filename: substituted for the parser's ``-`` buffer name in locations.
        inline_limit: non-splat constants with more elements go to ``.npy`` files (:attr:`files`).
    """

    #: the integer id of an ``ir.Value`` (module docstring); the checking printer uses the value itself
    value_key = staticmethod(hash)
    #: False in the checking printer: every op through the full path, and no text read from the
    #: statement-level memos (:meth:`location_close`, the keywords of :meth:`emit`)
    fast_paths = True

    def __init__(self, root: str = DEFAULT_ROOT, filename: str | None = None, inline_limit: int = DEFAULT_INLINE_LIMIT):
        super().__init__()  # lines, indent, region-function scopes
        self.root = dotted_name(root, "the printer's module root ('root' option)")
        self.filename = filename
        self.inline_limit = inline_limit
        self.imports: dict[str, str] = {}  # module path -> alias, first-use order
        self.aliases: dict[str, str] = {}  # sub -> alias, for subs already allocated by mod()
        self.names: dict = {}  # value id -> python name
        self.value_types: dict = {}  # value id -> its ir.Type, for the single results and block arguments read so far
        self.next_value = 0
        self.per_op_counter: dict[str, int] = {}
        self.mac_count = 0  # multiply-accumulates of the dots and convolutions printed so far
        self.shapes: dict[int, tuple] = {}  # ranked tensor type id -> its shape (dots.py)
        self.dot_dims: dict[int, tuple] = {}  # dot_dimension_numbers attribute id -> its four lists (dots.py)
        self.dot_texts: dict[tuple, tuple] = {}  # (dimensions key, op= tag) -> rendered dimension keywords (dots.py)
        self.parent_stack: list[str] = []
        self.files: dict[str, bytes] = {}
        self.type_reasons: dict = {}  # type id -> supported.type_reason
        self.const_cache: dict[int, str] = {}  # attribute id -> rendered inline value (never a .npy reference)
        self.loc_by_key: dict[int, str] = {}  # location attribute id -> rendered prefix
        self.ok_dsts: dict[tuple, str] = {}  # result type ids that passed the check -> rendered dsts
        self.result_reasons: dict[tuple, str | None] = {}  # result type ids -> first type_reason (or None)
        # False once a block argument whose type fails supported.type_reason was bound:
        # then operand types are no longer implied by the checks already done (driver).
        self.bound_types_ok = True
        self._spec_cache: dict[int, str] = {}
        self._attr_cache: dict[int, str] = {}
        self._loc_cache: dict[str, str] = {}
        self._keywords: dict[tuple, str] = {}  # (keyword pairs, xla_op, xla_first, with_xla) -> the statement's keywords text
        self._closes: dict[str, str] = {}  # parent handle -> the text closing a location (location_close)
        self._stmt_memo: dict = {}  # a handler's key -> (head, tail, macs) of its statement (statement(memo=...))
        # (op name, result type ids, location id, attribute items, reducer hint) -> the statement parts of a region op
        self.region_stmts: dict[tuple, tuple[str, str, str]] = {}
        self.header_parts: dict[tuple, tuple] = {}  # (header, xla_op, keywords, result types, location) -> statement_parts (groups)
        self.strings: dict[int, str] = {}  # string attribute id -> its value (mhlo.string_attr)
        self._dsts_cache: dict[tuple, str] = {}
        self._keys: dict[str, str] = {}  # attribute name -> keyword before de-duplication
        self._py_op_names: dict[str, str] = {}
        self._reprs: dict[str, str] = {}
        self._depths: dict[int, int] = {}  # attribute / type id -> bracket depth of its rendering (only when > 0)
        self.hoisted_literals: list[str] = []  # module-level "a<N> = <literal>" lines (HOIST_DEPTH)

    # -- names -------------------------------------------------------------------------------
    def module_path(self, sub: str = "") -> str:
        """The import path of a Penguin module, derived from the root (format section 2).

        ``""`` is the root, ``"support"`` its sibling (the root's last component
        replaced: ``neuronxcc.starfish.penguin`` -> ``neuronxcc.starfish.support``),
        anything else a submodule of the root (``"ir.Intrinsics"`` ->
        ``<root>.ir.Intrinsics``).
        """
        if sub == "support":
            parent = self.root.rpartition(".")[0]
            return f"{parent}.support" if parent else "support"
        return self.root + ("." + sub if sub else "")

    def mod(self, sub: str = "") -> str:
        """Alias of :meth:`module_path` ``(sub)``, allocating ``m<N>`` in first-use order."""
        alias = self.aliases.get(sub)
        if alias is None:
            path = self.module_path(sub)
            alias = self.imports.get(path)
            if alias is None:
                alias = self.imports[path] = f"m{len(self.imports)}"
            self.aliases[sub] = alias
        return alias

    def fresh(self) -> str:
        """A new ``v<N>`` name (local to the region function being printed, if any)."""
        n = f"v{self.next_value}"
        self.next_value += 1
        if self.scopes:
            self.local_depth[n] = len(self.scopes)
        return n

    def fresh_names(self, n: int) -> list[str]:
        """``n`` new consecutive ``v<N>`` names."""
        first = self.next_value
        self.next_value = first + n
        out = [f"v{first}"] if n == 1 else [f"v{i}" for i in range(first, first + n)]
        if self.scopes:
            depth = len(self.scopes)
            for name in out:
                self.local_depth[name] = depth
        return out

    def names_of(self, rec: OpRecord) -> list[str]:
        """The names bound to ``rec``'s operands.

        Raises:
            HiloError: an operand that is not bound yet (naming it).
        """
        names = self.names
        try:
            return [names[i] for i in rec.srcs]
        except KeyError:
            pass
        for k, i in enumerate(rec.srcs):
            if i not in names:
                v = rec.op.operands[k]
                raise HiloError(f"printer: value {v.get_name()} is used before it is defined") from None
        raise AssertionError("unreachable")  # pragma: no cover

    def block_args(self, block) -> tuple:
        """The ids of ``block``'s arguments."""
        return tuple(map(self.value_key, block.arguments))

    def bind_args(self, block, arg_ids, arg_names) -> None:
        """Bind each of ``arg_ids`` (``block``'s arguments) to the name at the same position.

        The arguments' types were not checked yet: one that the printers
        cannot emit turns :attr:`bound_types_ok` off (the driver then checks
        every op's operand types).
        """
        self.names.update(zip(arg_ids, arg_names))
        types = block.arguments.types[: len(arg_names)]
        self.value_types.update(zip(arg_ids, types))
        if self.bound_types_ok:
            reasons = self.type_reasons
            for t in types:
                reason = reasons.get(hash(t), False)  # supported.type_reason's cache, read here first
                if reason is False:
                    reason = _sup.type_reason(t, reasons)
                if reason:
                    self.bound_types_ok = False
                    break

    def bind_results(self, result_ids, result_names) -> None:
        names = self.names
        for r, n in zip(result_ids, result_names):
            names[r] = n

    def write(self, line: str) -> None:
        self.lines.append(self.indent + line)

    def py_op_name(self, op_name: str) -> str:
        """The generic Python op name of an MLIR op name (``mhlo.dot_general`` -> ``DotGeneralOp``)."""
        py = self._py_op_names.get(op_name)
        if py is None:
            py = camel(op_name.split(".", 1)[-1]) + "Op"
            if not safe_keyword(py) or not py[:1].isupper():  # an API name is code: never input text
                raise HiloError(f"op name {py_literal(op_name)} has no Penguin op name (not a Python identifier)")
            self._py_op_names[op_name] = py
        return py

    def xla_repr(self, xla_op: str) -> str:
        """:func:`~hilo_mlir.support.pysource.py_literal` of an ``xla_op`` string (cached)."""
        r = self._reprs.get(xla_op)
        if r is None:
            r = self._reprs[xla_op] = py_literal(xla_op)
        return r

    def hoist(self, text: str) -> str:
        """Bind a deeply nested literal to a module-level name ``a<N>`` (printed after the imports); returns the name."""
        name = f"a{len(self.hoisted_literals)}"
        self.hoisted_literals.append(f"{name} = {text}")
        return name

    # -- types -------------------------------------------------------------------------------
    def spec(self, t) -> str:
        """``TensorSpec(...)`` / ``TupleSpec(...)`` for an MLIR type (cached per type).

        Nested tuple types are rendered without recursion; a ``TupleSpec``
        nesting deeper than :data:`HOIST_DEPTH` is hoisted (:meth:`hoist`).
        """
        k = hash(t)
        s = self._spec_cache.get(k)
        if s is not None:
            return s
        from hilo_mlir.ir.binding import ir

        cache, depths = self._spec_cache, self._depths
        tuple_id = ir.TupleType.static_typeid
        stack: list = [(t, None)]
        while stack:
            u, elems = stack.pop()
            uk = hash(u)
            if elems is None:
                if uk in cache:
                    continue
                if u.typeid != tuple_id:
                    cache[uk] = self._spec(u)
                    continue
                tt = ir.TupleType(u)
                elems = [tt.get_type(i) for i in range(tt.num_types)]
                stack.append((u, elems))
                stack.extend((e, None) for e in reversed(elems))
                continue
            depth = 2 + max((depths.get(hash(e), 2) for e in elems), default=0)
            text = f"{self.mod('ir')}.TupleSpec(elements=[{', '.join(cache[hash(e)] for e in elems)}])"
            if depth > HOIST_DEPTH:
                text, depth = self.hoist(text), 0
            cache[uk] = text
            depths[uk] = depth
        return cache[k]

    def _spec(self, t) -> str:
        """The ``TensorSpec`` of a type that is not a tuple (the element type's name quoted: it may be any text)."""
        from hilo_mlir.ir.binding import ir

        ir_mod = self.mod("ir")
        tid = t.typeid
        if tid == ir.RankedTensorType.static_typeid:
            rt = ir.RankedTensorType(t)
            return (
                f"{ir_mod}.TensorSpec(shape={py_literal(tuple(int(d) for d in rt.shape))}, dtype={py_literal(dtype_name(rt.element_type))})"
            )
        s = str(t)
        if s.endswith(".token"):
            return f"{ir_mod}.TensorSpec(shape=(), dtype='token')"
        return f"{ir_mod}.TensorSpec(shape=(), dtype={py_literal(dtype_name(s))})"

    def dsts(self, types) -> str:
        return "[" + ", ".join(self.spec(t) for t in types) + "]"

    def dsts_of(self, rec: OpRecord) -> str:
        """:meth:`dsts` of ``rec``'s result types, cached per tuple of types (types are uniqued).

        A tuple that passed the support check (:attr:`result_reasons`) is also
        entered in :attr:`ok_dsts`, from which the walker's inline path prints
        without checking again.
        """
        keys = rec.tkeys
        d = self._dsts_cache.get(keys)
        if d is None:
            d = self._dsts_cache[keys] = self.dsts(rec.types)
        if keys not in self.ok_dsts and self.result_reasons.get(keys, 1) is None:
            self.ok_dsts[keys] = d
        return d

    # -- locations ---------------------------------------------------------------------------
    def debug_location(self, rec: OpRecord) -> str:
        """``m<S>.DebugLocation(file=, line=, col=, name=[, parent=])`` for ``rec``'s location (section 5)."""
        return self.with_parent(self.location_base(rec))

    def location_base(self, rec: OpRecord) -> str:
        """The ``DebugLocation(...`` text of ``rec``'s location without its closing part (cached per location)."""
        base = self.loc_by_key.get(rec.lkey)
        if base is None:  # str(loc) costs ~10 us, the lookup ~0.1 us
            base = self.loc_by_key[rec.lkey] = self.location_text(str(rec.loc))
        return base

    def with_parent(self, base: str) -> str:
        """Close a location prefix, adding ``parent=`` the innermost enclosing handle."""
        if self.parent_stack:
            return base + self.location_close(self.parent_stack[-1])
        return base + ")"

    def location_close(self, parent: str | None) -> str:
        """The text that closes a location prefix: ``", parent='<parent>')"``, or ``")"`` for None (cached per parent)."""
        if parent is None:
            return ")"
        close = self._closes.get(parent) if self.fast_paths else None
        if close is None:
            close = self._closes[parent] = f", parent={py_literal(parent)})"
        return close

    def location_text(self, text: str) -> str:
        """The ``DebugLocation(...`` prefix for the text of a location (file/line/col/name)."""
        base = self._loc_cache.get(text)
        if base is None:
            f, line, col = "", 0, 0
            m = _FILE_LOC.search(text)
            if m:
                f, line, col = mlir_unescape(m.group(1)), int(m.group(2)), int(m.group(3))
                if f == "-" and self.filename:
                    f = self.filename
            name = ""
            for q in _QUOTED.finditer(text):
                if q.group(2) is None:
                    name = mlir_unescape(q.group(1))
                    break
            base = f"{self.mod('support')}.DebugLocation(file={py_literal(f)}, line={line}, col={col}, name={py_literal(name)}"
            self._loc_cache[text] = base
        return base

    # -- attributes --------------------------------------------------------------------------
    def attr_value(self, attr) -> str:
        """An MLIR attribute as a Python literal (section 5 table), cached per attribute (uniqued).

        Arrays and dictionaries are rendered without recursion (any nesting
        depth); a literal nesting deeper than :data:`HOIST_DEPTH` brackets is
        hoisted into a module-level name (:meth:`hoist`).
        """
        k = hash(attr)
        cache = self._attr_cache
        hit = cache.get(k)
        if hit is not None:
            return hit
        depths = self._depths
        stack: list = [(attr, None)]
        while stack:
            a, parts = stack.pop()
            ak = hash(a)
            if parts is None:
                if ak in cache:
                    continue
                parts = container_parts(a)
                if parts is None:  # a leaf: no attribute inside it
                    text = attr_text(self, a)
                    depth = nesting_depth(text)
                    if depth > HOIST_DEPTH:
                        text, depth = self.hoist(text), 0
                    cache[ak] = text
                    if depth:
                        depths[ak] = depth
                    continue
                stack.append((a, parts))
                stack.extend((c, None) for c in reversed(parts[1]))
                continue
            kind, children, names = parts
            texts = [cache[hash(c)] for c in children]
            depth = 1 + max((depths.get(hash(c), 0) for c in children), default=0)
            if kind == "array":
                text = "[" + ", ".join(texts) + "]"
            else:
                text = "{" + ", ".join(f"{py_literal(n)}: {v}" for n, v in zip(names, texts)) + "}"
            if depth > HOIST_DEPTH:
                text, depth = self.hoist(text), 0
            cache[ak] = text
            if depth:
                depths[ak] = depth
        return cache[k]

    def attr_items(self, rec: OpRecord, skip=()) -> list[tuple[str, str]]:
        """``(key, python value)`` for every attribute of ``rec`` not in ``skip`` (section 5 key rules)."""
        items = rec.items
        if items is None:  # an attribute the binding cannot hand to Python (dense complex): only read the others
            attrs = rec.op.attributes
            named = [attrs[i] for i in range(len(attrs))]
            items = [(na.name, na.attr) for na in named if na.name not in skip]
        return list(self.attr_pairs(items, skip)) if items else []

    def attr_pairs(self, items, skip=()):
        """``(keyword, value text)`` for each ``(name, attr)`` of ``op.attributes.items()`` not in ``skip``.

        A name that cannot be a keyword (not ASCII: Python would NFKC-normalise
        it, maybe onto another keyword) is not one: such attributes are printed
        last, together, as ``attrs={'<name>': <value>, ...}``.
        """
        used: set = set()
        key = self.key
        cache = self._attr_cache
        others = None
        for name, attr in items:
            if name in skip:
                continue
            v = cache.get(hash(attr))
            if v is None:
                v = self.attr_value(attr)
            k = key(name, used)
            if k:
                yield k, v
            else:
                others = others or []
                others.append(f"{py_literal(name)}: {v}")
        if others:
            yield "attrs", "{" + ", ".join(others) + "}"

    def attr_tail(self, items, skip=()) -> str:
        """:func:`keyword_text` of :meth:`attr_pairs`: the same keys in the same order as :meth:`attr_items`."""
        return "".join([f", {k}={v}" for k, v in self.attr_pairs(items, skip)])

    def key(self, name: str, used: set | None = None) -> str:
        """A keyword-argument name for an MLIR attribute name (section 5), or ``""`` when it cannot be one.

        ASCII names: every character that is not a letter, digit or ``_``
        becomes ``_``; a leading digit gets a ``_`` before it; a Python keyword,
        ``__debug__`` or one of :data:`RESERVED_KEYS` a ``_`` after it; a key
        already ``used`` in the statement further ``_``. A name with any
        non-ASCII character gives ``""`` (printed in ``attrs={...}``).
        """
        k = self._keys.get(name)
        if k is None:
            if not name.isascii():
                k = ""
            else:
                k = re.sub(r"[^A-Za-z0-9_]", "_", name)
                if not k or k[0].isdigit():
                    k = "_" + k
                if keyword.iskeyword(k) or k in RESERVED_KEYS or k == "__debug__":
                    k += "_"
            self._keys[name] = k
        if used is not None and k:
            while k in used:
                k += "_"
            used.add(k)
        return k

    # -- the statement assembler -------------------------------------------------------------
    def statement(
        self,
        rec: OpRecord,
        py_op: str | None = None,
        attrs=(),
        srcs=None,
        module_sub: str = "ir",
        xla_op: str | None = None,
        result_names=None,
        dst_specs=None,
        xla_first: bool = False,
        with_xla: bool = True,
        memo: tuple | None = None,
    ) -> list[str]:
        """Emit one statement for ``rec`` (section 5); returns the names bound to its results.

        Args:
            rec: the op (its results are bound to the new names).
            py_op: Python op name (default: :meth:`py_op_name`).
            attrs: ``[(key, python source)]`` printed after ``dsts``.
            srcs: operand names (default: the op's operands).
            module_sub: the submodule of the root that provides ``py_op``.
            xla_op: the ``xla_op`` value (default: the MLIR op name).
            result_names: names already allocated for the results.
            dst_specs: pre-rendered ``dsts`` entries (default: the result types').
            xla_first: ``xla_op=`` right after ``dsts`` (the forms that print it
                before their own keywords) instead of right before ``dl=``.
            with_xla: False for the forms printed without ``xla_op=`` (QuantizeMX).
            memo: ``(key, macs)``: the statement's text is a function of ``key``
                alone (and ``macs`` the multiply-accumulates it adds): it is
                kept for :meth:`statement_from_memo` (the printer's own
                operand and result names, the op's operands, the enclosing
                handle, and no ``result_names``/``srcs``/``dst_specs`` given).

        Raises:
            HiloError: an operand that is not bound yet.
        """
        name = rec.name
        self.per_op_counter[name] = self.per_op_counter.get(name, 0) + 1
        if result_names is None:
            result_names = self.fresh_names(len(rec.results))
        self.bind_results(rec.results, result_names)
        src_names = srcs if srcs is not None else self.names_of(rec)
        dsts = "[" + ", ".join(dst_specs) + "]" if dst_specs is not None else self.dsts_of(rec)
        self.emit(rec, py_op, attrs, src_names, dsts, module_sub, xla_op, result_names, xla_first, with_xla, memo)
        return result_names

    def operand_memo_key(self, tag: str, rec: OpRecord) -> tuple | None:
        """The memo key of a handler whose statement is a function of the op and its first operand's type; None: not memoised.

        ``(tag, name, result type ids, location id, attribute items, operand-0 type id, operand count)``;
        None in the checking printer, for an op without operands, with attributes the binding cannot
        hand over, or whose operand-0 type the walk did not note (:attr:`value_types`). A handler with
        a ``memo_tag`` attribute keeps its statements under this key only (``statement(memo=...)``):
        the walker (:meth:`~.driver.PenguinPrinter.print_block`) computes it itself and writes a hit
        as :meth:`statement_from_memo` does.
        """
        if rec.items is None or not self.fast_paths or not rec.srcs:
            return None
        return self.operand_key(tag, rec.name, rec.srcs, rec.tkeys, rec.lkey, rec.items)

    def operand_key(self, tag: str, name: str, srcs: tuple, tkeys: tuple, lkey: int, items) -> tuple | None:
        """:meth:`operand_memo_key` from an op's fields (``srcs`` not empty, ``items`` a list); the walker's too."""
        t = self.value_types.get(srcs[0])
        if t is None:
            return None
        return (tag, name, tkeys, lkey, tuple(items), hash(t), len(srcs))

    def statement_from_memo(self, rec: OpRecord, key) -> bool:
        """Write ``rec``'s statement as :meth:`statement` wrote the one memoised under ``key`` (``memo=``); False: no such entry.

        Counts, names and binds as :meth:`statement` does and adds the entry's
        multiply-accumulates to :attr:`mac_count`. The checking printer
        (``fast_paths = False``) has no entries.

        Raises:
            HiloError: an operand that is not bound yet.
        """
        hit = self._stmt_memo.get(key)
        if hit is None:
            return False
        head, tail, macs = hit
        name = rec.name
        self.per_op_counter[name] = self.per_op_counter.get(name, 0) + 1
        result_names = self.fresh_names(len(rec.results))
        self.bind_results(rec.results, result_names)
        src = self.names_of(rec)
        if self.scopes:
            self.refs(src)
        self.mac_count += macs
        close = self.location_close(self.parent_stack[-1] if self.parent_stack else None)
        lhs = f"{', '.join(result_names)} = " if result_names else ""
        self.lines.append(f"{self.indent}{lhs}{head}{', '.join(src)}{tail}{close})")  # statement_parts' assembly
        return True

    def emit(
        self,
        rec: OpRecord,
        py_op,
        attrs,
        src_names,
        dsts,
        module_sub,
        xla_op,
        result_names,
        xla_first: bool = False,
        with_xla: bool = True,
        memo: tuple | None = None,
    ) -> None:
        """Write ``rec``'s statement from rendered parts (the caller rendered ``dsts`` and ``attrs`` first; ``memo``: :meth:`statement`)."""
        if self.scopes:
            self.refs(src_names)
        xla = xla_op or rec.name
        memo_key = (tuple(attrs), xla, xla_first, with_xla)  # the keywords' text is a function of these strings alone
        keywords = self._keywords.get(memo_key) if self.fast_paths else None
        if keywords is None:
            keywords = self._keywords[memo_key] = self.keywords_text(attrs, xla, xla_first, with_xla)
        base = self.location_base(rec)
        dl = self.with_parent(base)
        callee = f"{self.mod(module_sub)}.{py_op or self.py_op_name(rec.name)}"
        self.lines.append(format_statement(self.indent, result_names, callee, src_names, dsts, keywords, dl))
        if memo is not None and self.fast_paths:
            self._stmt_memo[memo[0]] = (*statement_parts(callee, dsts, keywords, base), memo[1])

    def keywords_text(self, attrs, xla_op: str, xla_first: bool = False, with_xla: bool = True) -> str:
        """The keywords of a statement between ``dsts`` and ``dl`` (see :meth:`statement`; uncached, :meth:`emit` caches it)."""
        if attrs:
            attrs = unique_keywords(attrs)
        xla = self.xla_repr(xla_op)
        if not with_xla:
            return keyword_text(attrs)
        if xla_first:
            return f", xla_op={xla}" + keyword_text(attrs)
        return keyword_text(attrs) + f", xla_op={xla}" if attrs else f", xla_op={xla}"


def unique_keywords(attrs):
    """``attrs`` (``[(keyword, source)]``) with every keyword distinct and none of :data:`STATEMENT_KEYS`.

    A handler's own keywords come first; an attribute-derived keyword equal to
    an earlier one (``lhs_batch_dimensions`` on a dot) gets trailing ``_``.
    """
    seen = set(STATEMENT_KEYS)
    out = None
    for i, (k, v) in enumerate(attrs):
        if k in seen:
            if out is None:
                out = list(attrs[:i])
            while k in seen:
                k += "_"
        seen.add(k)
        if out is not None:
            out.append((k, v))
    return attrs if out is None else out
