"""The printer driver: the module, its prologue and epilogue, and the walk over blocks (format sections 3-5).

:class:`PenguinPrinter` walks ``main``'s body op by op. Each block is read
through the binding once: by :meth:`PenguinPrinter.print_block` as it prints
each op, or first by :meth:`PenguinPrinter.read_block` (one
:class:`~.emit.OpRecord` per op, values as integer ids) for a handler that
inspects a body before printing it and for the checking printer. Each op is checked
against the support table (:mod:`.supported`), then printed by the handler
the dispatch table names for it (``printers/__init__.py`` assembles the
table from the handler modules: constants, dots, custom calls, groups,
regions) or, for every other op, by the generic statement
(:meth:`~.emit.Emitter.statement`). This module imports only the layers
below it (:mod:`.emit`, :mod:`.supported`): handlers reach it through the
printer instance they are given.

The walk is iterative, so nesting depth (regions in regions, groups in
groups) costs no Python stack: a handler that prints a nested block is a
generator that yields the sub-walk (``rets = yield p.print_block(block)``)
and :func:`drive` runs the stack of generators.

Cost: one pass over the ops, one output buffer (a list of lines), O(1)
lookups (value names in a dict, functions in a symbol dict built once,
rendered types/attributes/locations/constants cached per uniqued object).
The support check (:func:`.supported.unsupported_reason`) is applied to
every op, but in parts: the op-name verdict once per name, result types once
per distinct type tuple, and operand types not again when each operand is
bound to a value whose type was already checked (:meth:`PenguinPrinter._print_op`).
Ordinary ops whose name and result types were seen before are printed by
:meth:`PenguinPrinter.print_block` itself (the same text as the generic
statement, read from the caches). ``fast_paths = False`` turns the
shortcuts off (every op through the full check and the generic path, values
keyed on the binding objects): the tests compare the two.
"""

from __future__ import annotations

from typing import Any, ClassVar

from hilo_mlir.ir.dialects import TERMINATORS
from hilo_mlir.ir.utils import class_declares_no_regions
from hilo_mlir.printers import prologue
from hilo_mlir.printers import supported as _sup
from hilo_mlir.printers.emit import DEFAULT_INLINE_LIMIT, DEFAULT_ROOT, Emitter
from hilo_mlir.printers.prologue import DEFAULT_MODEL_TYPE, MODEL_TYPES
from hilo_mlir.printers.records import NO_TERMINATOR, OpRecord, op_record, statement_parts
from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.support.pysource import check_program

#: the key of the dispatch table's handler for ops with regions that have no handler of their own
REGIONS = "(regions)"
_VALUE = ("value",)


def drive(walk):
    """Run a walk generator to its end without recursion; returns its return value.

    A generator yields another generator to run it first; the yield
    evaluates to the yielded generator's return value. An exception raised
    inside propagates outward through each enclosing generator (their
    ``finally`` blocks run), then out of :func:`drive`.
    """
    stack = [walk]
    value = None
    error = None
    while stack:
        top = stack[-1]
        try:
            if error is not None:
                e, error = error, None
                sub = top.throw(e)
            else:
                sub = top.send(value)
        except StopIteration as stop:
            stack.pop()
            value = stop.value
            continue
        except BaseException as e:  # noqa: BLE001 - re-raised below or thrown into the enclosing walk
            stack.pop()
            if not stack:
                raise
            error = e
            continue
        stack.append(sub)
        value = None
    return value


class PenguinPrinter(Emitter):
    """Print one module as a Penguin Python program (docs/penguin_format.md).

    Args:
        root: the Penguin module root (default ``neuronxcc.starfish.penguin``).
        filename: substituted for the parser's ``-`` buffer name in locations.
        inline_limit: constants with more elements than this (and not splat)
            go to ``.npy`` files (:attr:`files`).

    After :meth:`print_module`, :attr:`files` holds ``{name: bytes}`` for the
    ``.npy`` files that belong beside ``penguin.py`` and :attr:`per_op_counter`
    the number of statements printed per MLIR op name.

    :attr:`handlers` is the dispatch table (short op name, ``func.call`` or
    :data:`REGIONS` -> ``handler(printer, record)``, which returns None or a
    walk generator); the MHLO and StableHLO printers share one table, so
    both accept every form a module of either spine can contain.
    """

    dialect = "mhlo"
    handlers: ClassVar[dict] = {}
    fast_paths = True

    def __init__(
        self,
        root: str = DEFAULT_ROOT,
        filename: str | None = None,
        inline_limit: int = DEFAULT_INLINE_LIMIT,
        model_type: str = DEFAULT_MODEL_TYPE,
    ):
        super().__init__(root=root, filename=filename, inline_limit=inline_limit)
        if model_type not in MODEL_TYPES:
            raise HiloError(f"unknown model type '{model_type}' (expected one of: {', '.join(MODEL_TYPES)})")
        self.model_type = model_type
        self.parameters: dict[int, str] = {}  # parameter input index -> its np_file
        self.function = ""  # the name of the Function handle
        self.call_stack: list[str] = []
        self.symbols: dict = {}
        self._op_info: dict[str, tuple] = {}  # op name -> (name_reason, attribute-dependent, handler)
        # op name -> (Python op name, repr of the name, is a constant, its ", xla_op=..." keyword) for ops print_block
        # prints from the caches: supported by name alone, no handler except the constant one
        self._generic: dict[str, tuple] = {}
        self._heads: dict[str, str] = {}  # op name -> "m<K>.<PyOp>(srcs=[" of the ops print_block prints from the caches
        # (op name, result type ids, location id, attribute items, location close) -> the statement after its operand names
        self._stmt_tails: dict[tuple, str] = {}
        self._no_regions: dict[type, int] = {}  # op class -> 0: declares no region (read_block)
        # op name -> the memo tag of its handler (a handler with a ``memo_tag`` keeps its statements under
        # Emitter.operand_memo_key): print_block writes a memoised statement itself
        self._memo_tags: dict[str, str] = {}
        self._op_reasons: dict[tuple, str | None] = {}  # (op name, attribute items) -> supported.op_reason (attribute-dependent ops)

    # -- module ------------------------------------------------------------------------------
    def print_module(self, module) -> str:
        """Print ``module`` (its ``main``) as Penguin Python; returns the source text.

        Raises:
            HiloError: an op the printer cannot emit (with its location), an
                unknown FusionKind/CompositeKind (``NCC_ISPP054``), a bad
                custom-call config (``NCC_EVRF036``), an unknown custom-call
                target, a recursive call.
        """
        from hilo_mlir.ir.binding import ir

        module = module.operation if hasattr(module, "operation") else module
        for o in module.regions[0].blocks[0].operations:
            o = o.operation
            if o.name == "func.func":
                self.symbols[ir.StringAttr(o.attributes["sym_name"]).value] = o
        main = self.find_main(module)
        self.call_stack.append(ir.StringAttr(main.attributes["sym_name"]).value)
        body = main.regions[0].blocks[0]
        self.print_prologue(module, main, body)
        ret = drive(self.print_block(body))
        self.print_epilogue(main, ret)
        self.lines[0] = prologue.function_line(self, module)  # now that the mac-count is known
        header = ["# Generated by hilo_mlir: Penguin Python program (docs/penguin_format.md)."]
        header.extend(f"import {path} as {alias}" for path, alias in self.imports.items())
        body = self.hoisted_literals + self.lines
        src = "\n".join(header) + "\n\n" + "\n".join(body) + "\n"
        # defence in depth: the program must be one the backends may run (support/pysource.py)
        check_program(src, "penguin.py", roots=(self.module_path(""), self.module_path("support")), checking=not self.fast_paths)
        return src

    def find_main(self, module):
        """``@main``, else the only public function.

        Raises:
            HiloError: no function at all, or no ``main`` and several public functions.
        """
        from hilo_mlir.ir.binding import ir

        funcs = [op.operation for op in module.regions[0].blocks[0].operations if op.operation.name == "func.func"]
        for f in funcs:
            if ir.StringAttr(f.attributes["sym_name"]).value == "main":
                return f
        public = [
            f for f in funcs if "sym_visibility" not in f.attributes or ir.StringAttr(f.attributes["sym_visibility"]).value == "public"
        ]
        if len(public) == 1:
            return public[0]
        if not funcs:
            raise HiloError("module has no function to compile (expected 'func.func @main')", loc=module.location)
        raise HiloError(
            "module has no 'main' and several public functions: "
            + ", ".join("@" + ir.StringAttr(f.attributes["sym_name"]).value for f in public),
            loc=module.location,
        )

    def lookup_function(self, op, name: str):
        """The ``func.func`` named ``name``.

        Raises:
            HiloError: no such function (located at ``op``).
        """
        f = self.symbols.get(name)
        if f is None:
            raise HiloError(f"'{op.name}' op refers to unknown function @{name}", loc=op.location)
        return f

    def print_prologue(self, module, main, body) -> None:
        """The ``Function`` line and the inputs (:func:`.prologue.print_prologue`)."""
        prologue.print_prologue(self, main, body)

    def print_epilogue(self, main, ret: OpRecord) -> None:
        """The outputs (:func:`.prologue.print_epilogue`)."""
        prologue.print_epilogue(self, main, ret)

    # -- the walk ----------------------------------------------------------------------------
    def read_block(self, block) -> tuple[list[OpRecord], OpRecord]:
        """The block's ops (except the terminator) as records, and the terminator's (:data:`NO_TERMINATOR` if none).

        The one place the walk reads ops through the binding, as little as it
        can per op: the attributes as one list (``[]`` for none), the
        region count from the op class's ODS declaration when it declares
        none (``_ODS_REGIONS == (0, True)``: no region, none variadic; the
        checking printer, ``fast_paths = False``, reads every count). The type
        of each single result is noted in :attr:`value_types` (the dots read
        their lhs type from there).
        """
        key = self.value_key
        recs: list[OpRecord] = []
        append = recs.append
        term = NO_TERMINATOR
        terminators = TERMINATORS
        no_regions = self._no_regions if self.fast_paths else {}
        vtypes = self.value_types
        for o in block.operations:
            nregions = no_regions.get(type(o))
            if nregions is None and self.fast_paths:
                nregions = self._class_regions(type(o))
            o = o.operation
            name = o.name
            srcs = tuple(map(key, o.operands))
            if name in terminators:
                term = op_record(o, name, srcs)
                continue
            try:
                r0 = o.result  # most ops have one result: one binding call, no result list
                t0 = r0.type
                k0 = key(r0)
                vtypes[k0] = t0
                results: tuple = (k0,)
                types: tuple = (t0,)
                tkeys: tuple = (hash(t0),)
            except ValueError:  # zero or several results
                rs = o.results
                results = tuple(map(key, rs))
                types = tuple(rs.types)
                tkeys = tuple(map(hash, types))
            try:  # [(name, attr)] in attribute order ([] for none: asking len() first costs more than it saves)
                items = o.attributes.items()
            except TypeError:  # an attribute the binding cannot hand to Python (dense complex)
                items = None
            loc = o.location
            if nregions is None:
                nregions = len(o.regions)
            append(OpRecord((o, name, srcs, results, types, tkeys, loc, hash(loc.attr), nregions, items)))
        return recs, term

    def _class_regions(self, cls) -> int | None:
        """0 for a generated op class whose ODS declaration has no region and no variadic one (cached), else
        None (read the op): :func:`~hilo_mlir.ir.utils.class_declares_no_regions`."""
        if class_declares_no_regions(cls):
            self._no_regions[cls] = 0
            return 0
        return None

    def print_block(self, block, snapshot=None):  # noqa: C901 - the hot loop: reading and the inline statement in one
        """Walk generator: print every op of ``block`` except its terminator; returns the terminator's record.

        ``snapshot`` is :meth:`read_block`'s result when the caller read the
        block already. An ordinary op whose name and result types were seen
        before (:attr:`_generic`, :attr:`ok_dsts`), whose operands are bound
        and -- for a constant -- whose value was rendered before is written
        here from the caches (the generic statement's text); every other op
        goes through :meth:`_print_op`.

        Without a snapshot the fast printer reads each op here as it prints
        it, the same fields as :meth:`read_block` in the same way, and makes
        an :class:`OpRecord` only of the ops it hands to :meth:`_print_op`
        (building the block's list of records first costs more than the
        printing of an inline op); the checking printer (``fast_paths =
        False``) prints from :meth:`read_block`'s records, so the checking
        mode compares the two readings.
        """
        read = snapshot is None and self.fast_paths
        ops, term = (block.operations, NO_TERMINATOR) if read else snapshot if snapshot is not None else self.read_block(block)
        key = self.value_key
        no_regions = self._no_regions
        vtypes = self.value_types
        terminators = TERMINATORS
        generic = self._generic if self.fast_paths else {}
        memo_tags = self._memo_tags if self.fast_paths else {}
        stmt_memo = self._stmt_memo
        names, counter, stmts, heads = self.names, self.per_op_counter, self._stmt_tails, self._heads
        name_of = names.__getitem__
        # the same objects for the whole block: a handler's sub-walk restores the lines, indent and parents it changes
        lines, indent, parents, scopes, local_depth = self.lines, self.indent, self.parent_stack, self.scopes, self.local_depth
        close = self.location_close(parents[-1] if parents else None)
        # the counter of v<N> names and the bound-types flag as locals: written back before a handler
        # runs (it names values itself, and may bind block arguments) and read again after it
        nv, bound_ok = self.next_value, self.bound_types_ok
        rec: OpRecord | None
        entry: Any  # an OpView of the block (read here), or one of read_block's records
        for entry in ops:
            if read:  # read_block's reading of one op (see there), into locals
                nregions = no_regions.get(type(entry))
                if nregions is None:
                    nregions = self._class_regions(type(entry))
                o = entry.operation
                name = o.name
                srcs = tuple(map(key, o.operands))
                if name in terminators:
                    term = op_record(o, name, srcs)
                    continue
                try:
                    r0 = o.result
                    t0 = r0.type
                    k0 = key(r0)
                    vtypes[k0] = t0
                    results: tuple = (k0,)
                    types: tuple = (t0,)
                    tkeys: tuple = (hash(t0),)
                except ValueError:
                    rs = o.results
                    results = tuple(map(key, rs))
                    types = tuple(rs.types)
                    tkeys = tuple(map(hash, types))
                try:
                    items = o.attributes.items()
                except TypeError:
                    items = None
                loc = o.location
                lkey = hash(loc.attr)
                if nregions is None:
                    nregions = len(o.regions)
                rec = None
            else:
                rec = entry
                o, name, srcs, results, types, tkeys, loc, lkey, nregions, items = entry
            g = generic.get(name)
            src: Any = None  # the operand names (None: an operand is not bound yet, the full path names it)
            head = None  # the statement is "<indent><lhs> = " + head + "<operand names>" + tail + close + ")"
            tail = ""
            macs = 0
            if g is not None:
                if items is not None and bound_ok and (g[2] or not nregions):
                    try:
                        src = list(map(name_of, srcs))
                    except KeyError:
                        src = None
                    if src is not None:
                        memo_key = (name, tkeys, lkey, tuple(items) if items else ())
                        t = stmts.get(memo_key)
                        if t is None:
                            if rec is None:
                                rec = OpRecord((o, name, srcs, results, types, tkeys, loc, lkey, nregions, items))
                            t = self._statement_tail(rec, g)
                            if t is not None:
                                stmts[memo_key] = t
                        if t is not None:
                            head, tail = heads.get(name) or self._head(name, g[0]), t
            elif items is not None and srcs and not nregions and name in memo_tags and bound_ok:
                # a handler's statement memoised on the op's key (Emitter.operand_memo_key): statement_from_memo's text
                okey = self.operand_key(memo_tags[name], name, srcs, tkeys, lkey, items)
                parts = stmt_memo.get(okey) if okey is not None else None
                if parts is not None:
                    try:
                        src = list(map(name_of, srcs))
                    except KeyError:
                        src = None
                    else:
                        head, tail, macs = parts
            if head is not None:
                if scopes:
                    self.refs(src)
                counter[name] = counter.get(name, 0) + 1
                if macs:
                    self.mac_count += macs
                if len(results) == 1:  # fresh_names(1), inline
                    lhs = f"v{nv}"
                    nv += 1
                    if scopes:
                        local_depth[lhs] = len(scopes)
                    names[results[0]] = lhs
                else:
                    self.next_value = nv
                    result_names = self.fresh_names(len(results))
                    nv = self.next_value
                    for r, n in zip(results, result_names):
                        names[r] = n
                    lhs = ", ".join(result_names)
                # format_statement's text: "<indent><lhs> = <callee>(srcs=[<src>]" + the memoised tail + the close
                if lhs:
                    lines.append(f"{indent}{lhs} = {head}{', '.join(src)}{tail}{close})")
                else:
                    lines.append(f"{indent}{head}{', '.join(src)}{tail}{close})")
                continue
            if rec is None:
                rec = OpRecord((o, name, srcs, results, types, tkeys, loc, lkey, nregions, items))
            self.next_value = nv
            sub = self._print_op(rec)
            if sub is not None:
                yield sub
                close = self.location_close(parents[-1] if parents else None)
            nv, bound_ok = self.next_value, self.bound_types_ok
        self.next_value = nv
        return term

    def _statement_tail(self, rec: OpRecord, g: tuple) -> str | None:
        """The text of ``rec``'s generic statement between its operand names and the location's close, or None.

        That is ``"], dsts=[...]<keywords>, xla_op=..., dl=<DebugLocation(... prefix>"``
        (:func:`~.records.format_statement`'s text); the statement ends with
        :meth:`location_close` and ``")"``. None: the result types did not pass
        the support check yet (:attr:`ok_dsts`), or -- for a constant -- its
        value was not rendered yet; :meth:`_print_op` prints the op then. The
        text is a function of the op name, the result types, the location and
        the attributes alone: :meth:`print_block` memoises it on them.
        """
        dsts = self.ok_dsts.get(rec.tkeys)
        if dsts is None:
            return None
        items = rec.items
        if g[2]:
            tail = self._constant_tail(items)
            if tail is None:
                return None
        else:
            tail = self.attr_tail(items) if items else ""
        return statement_parts("", dsts, tail + g[3], self.location_base(rec))[1]

    def _head(self, name: str, py_op: str) -> str:
        """``m<K>.<PyOp>(srcs=[`` of a generic op printed from the caches (cached per op name; allocates ``ir``'s alias)."""
        head = self._heads[name] = statement_parts(f"{self.aliases.get('ir') or self.mod('ir')}.{py_op}", "", "", "")[0]
        return head

    def _constant_tail(self, items) -> str | None:
        """The keywords of a constant whose value was rendered before (``", value=..."`` first), else None."""
        for k, a in items:
            if k == "value":
                value = self.const_cache.get(hash(a))
                return None if value is None else f", value={value}" + self.attr_tail(items, _VALUE)
        return None

    def check_supported(self, op) -> None:
        """Raise the printer's error for an op :func:`supported.unsupported_reason` rejects."""
        reason = _sup.unsupported_reason(op, self.type_reasons, self.dialect)
        if reason:
            self._unsupported(op, reason)

    @staticmethod
    def _unsupported(op, reason: str):
        short = _sup.hlo_short(op.name)
        code = "NCC_ISPP054" if short in ("fusion", "composite") and "Kind" in reason else None
        raise HiloError(reason, loc=op.location, code=code)

    def _info(self, name: str) -> tuple:
        """``(name_reason, attribute-dependent, handler)`` of an op name (cached); fills :attr:`_generic`."""
        info = self._op_info.get(name)
        if info is not None:
            return info
        short = _sup.hlo_short(name)
        handler = self.handlers.get(short if short is not None else name)  # short names, and "func.call"
        info = self._op_info[name] = (_sup.name_reason(name), _sup.attribute_dependent(name), handler)
        tag = getattr(handler, "memo_tag", None)
        if tag is not None and info[0] is None:
            self._memo_tags[name] = tag
        if info[:2] == (None, False) and name not in TERMINATORS:
            if handler is None:
                self._generic[name] = (self.py_op_name(name), self.xla_repr(name), False, f", xla_op={self.xla_repr(name)}")
            elif short == "constant":
                self._generic[name] = ("ConstantOp", self.xla_repr(name), True, f", xla_op={self.xla_repr(name)}")
        return info

    def _print_op(self, rec: OpRecord):
        """Print one op through its handler or the generic statement; returns the handler's walk (or None).

        The support check is :meth:`check_supported`'s, shortened: the
        op-level verdict is cached per name (per op for custom calls,
        fusions, composites). Operand types need no check when every operand
        is already bound and no block argument with an unsupported type was
        ever bound: each bound value is then an entry argument (checked by the
        prologue), a block argument (checked by :meth:`bind_args`) or a result
        of an op this method accepted. Otherwise the full check runs, so the
        error (and which error comes first) is the same as check_supported's.
        """
        op = rec.op
        reason, attr_dependent, handler = self._info(rec.name)
        if attr_dependent:
            reason = self._attr_reason(rec)
        if reason:
            self._unsupported(op, reason)
        names = self.names
        if self.bound_types_ok and self.fast_paths and all(map(names.__contains__, rec.srcs)):
            r = self._result_reason(rec)
            if r:
                self._unsupported(op, f"'{rec.name}' result: {r}")
        else:
            self.check_supported(op)
        if handler is not None:
            return handler(self, rec)
        if rec.nregions:
            return self.handlers[REGIONS](self, rec)
        self.statement(rec, attrs=self.attr_items(rec))
        return None

    def _attr_reason(self, rec: OpRecord) -> str | None:
        """:func:`supported.op_reason` of an attribute-dependent op (custom call, fusion, composite).

        The verdict is a function of the op name and one attribute (:data:`supported.VERDICT_ATTRIBUTES`:
        the custom-call target, the FusionKind, the CompositeKind) and the printer's dialect: the
        fast printer caches it on ``(name, that attribute)`` (:meth:`_verdict_key`); the checking
        printer asks every time.
        """
        items = rec.items
        if items is None or not self.fast_paths:
            return _sup.op_reason(rec.op, self.dialect, items)
        key = self._verdict_key(rec)
        reasons = self._op_reasons
        if key in reasons:
            return reasons[key]
        reason = reasons[key] = _sup.op_reason(rec.op, self.dialect, items)
        return reason

    @staticmethod
    def _verdict_key(rec: OpRecord) -> tuple:
        """The key of :meth:`_attr_reason`'s cache: the op name and the attribute its verdict reads (None if absent)."""
        name = _sup.VERDICT_ATTRIBUTES.get(_sup.hlo_short(rec.name) or "")
        if name is None:  # pragma: no cover - every attribute-dependent kind has its attribute
            return (rec.name, tuple(rec.items))
        return (rec.name, next((a for k, a in rec.items if k == name), None))

    def _result_reason(self, rec: OpRecord) -> str | None:
        """The first :func:`supported.type_reason` of ``rec``'s result types (cached per tuple)."""
        reasons = self.result_reasons
        if rec.tkeys in reasons:
            return reasons[rec.tkeys]
        r = None
        for t in rec.types:
            r = _sup.type_reason(t, self.type_reasons)
            if r:
                break
        self.result_reasons[rec.tkeys] = r
        return r
