"""Record a Penguin Python program, and how the reference backend runs one (steps 3-5: :mod:`.interpreter`).

The program format is docs/penguin_format.md. How it is executed:

0. The program is checked against the allow-list of
   :func:`hilo_mlir.support.pysource.check_program` (imports of the Penguin
   API, assignments of its calls and of literals, region functions; nothing
   else) and refused with one error otherwise: nothing of it runs.
1. The program is compiled and run with ``exec``. Its ``import`` statements
   (``import neuronxcc.starfish.penguin.ir as m1`` -- whatever module root the
   printer was given) resolve, through a private ``__import__``, to fake
   modules whose attributes are statement recorders (nothing is installed in
   ``sys.modules``). Running the top level therefore *records* one
   :class:`Statement` per op call, in program order; ``markInput`` /
   ``function.markOutput`` record the inputs and outputs; ``NpyFile`` names a
   constant read from the program's folder or from an in-memory
   ``{name: bytes}`` dict.
2. Assigned names (``v4 = ...``) are captured through the ``exec`` namespace
   (a dict subclass), so ``parent='v4'`` can be resolved to its statement.
3. The recorded top-level statements are interpreted in order; each op is
   dispatched on its ``xla_op`` (the MLIR op name) -- falling back to the
   Python op name -- to a numpy implementation in :mod:`.ops`. Results are
   cast to the ``dsts`` dtype and checked against the ``dsts`` shape.
4. Regions are Python functions (``regions=[v5]``, format section 7). When an
   op calls one, the recorders switch to *eager* mode: each statement inside
   the function computes immediately and returns arrays; names captured from
   outside resolve in the caller's scope. The same function therefore runs
   on scalars or, vectorised, on whole arrays.
5. Groups (format section 6): a ``NeuronTensorOp`` / ``CompositeOp`` /
   ``CallOp`` header computes nothing; its body statements are ordinary
   statements; ``setResults`` only checks the returned shapes against the
   header's ``dsts``.

The first printer's form (regions as ``BlockArgument`` ... ``RegionReturn``
statements after the op; a fusion printed with its region) is still
accepted: statements whose parent has such children become that parent's
regions.

Every failure is a :class:`PenguinRefError` naming the op, its Python name and
its ``DebugLocation``.
"""

from __future__ import annotations

import builtins
import io
import os

import numpy as np

from hilo_mlir.penguin_ref import ops
from hilo_mlir.penguin_ref.records import (
    InputStatement,
    PenguinRefError,
    Region,
    ResultTuple,
    Statement,
    Value,
    _FakeModule,
    _Function,
    _Names,
    _NumpyProxy,
    _TensorDecl,
)
from hilo_mlir.support.pysource import ProgramCheckError, check_program

_REAL_MODULES = {"numpy", "ml_dtypes", "math"}


class Program:
    """A recorded Penguin program (see the module docstring)."""

    def __init__(self, source: str, folder: str | None = None, files: dict | None = None, filename: str = "penguin.py"):
        self.source = source
        self.folder = folder
        self.files = dict(files or {})
        self.filename = filename
        self.statements: list[Statement] = []
        self.inputs: list[InputStatement] = []
        self.outputs: list = []
        self.by_name: dict[str, Statement] = {}
        self.module_paths: set[str] = set()
        self.function: _Function | None = None
        self._lineno = 0
        self.eager: list = []
        self.tracing: list | None = None

    def trace_function(self, fn, nargs: int):
        """Record (not run) a region function's statements with placeholder arguments -> :class:`Region`.

        Used to recognise simple comparators (sort fast path); None if the function does not trace.
        """
        reg = Region()
        for i in range(nargs):
            st = Statement(self, "BlockArgument", (), {"index": i}, 0)
            v = Value(st, 0)
            st.results = [v]
            reg.args.append(v)
        saved_eager, self.eager = self.eager, []
        self.tracing = []
        try:
            ret = fn(*reg.args)
        except Exception:  # noqa: BLE001 - not traceable: the caller falls back to running it
            return None
        finally:
            reg.body, self.tracing, self.eager = self.tracing, None, saved_eager
        reg.ret = list(ret) if isinstance(ret, (list, tuple)) else [ret]
        return reg

    # -- loading ------------------------------------------------------------------------------
    def load_npy(self, path, *args, missing_ok: bool = True, **kw):
        """The array of a ``.npy`` file named in the program: from the in-memory files, else beside the program.

        Raises:
            PenguinRefError: the file is not found (``FileNotFoundError`` instead
                when ``missing_ok`` is False), or is not a readable ``.npy`` file.
        """
        p = os.fspath(path)
        if not os.path.isabs(p):
            base = os.path.basename(p)
            for key in (p, base):
                if key in self.files:
                    data = self.files[key]
                    if isinstance(data, np.ndarray):
                        return data
                    return np.load(io.BytesIO(data), *args, **kw)
            if self.folder is not None:
                p = os.path.join(self.folder, p)
        try:
            return np.load(p, *args, **kw)
        except FileNotFoundError:
            if not missing_ok:
                raise
            raise PenguinRefError(
                f"penguin_ref: constant file '{path}' not found (looked beside the program"
                + (f" in {self.folder}" if self.folder else "")
                + " and in the in-memory files)"
            ) from None
        except (OSError, ValueError) as e:
            raise PenguinRefError(f"penguin_ref: cannot read '{path}': {getattr(e, 'strerror', None) or e}") from None

    def _import(self, name, globals=None, locals=None, fromlist=(), level=0):
        top = name.split(".")[0]
        if top in _REAL_MODULES:
            if top == "numpy":
                return self._np_proxy
            return builtins.__import__(name, globals, locals, fromlist, level)
        # a Penguin module: register every prefix of the path as a (fake) module
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            self.module_paths.add(".".join(parts[:i]))
        for f in fromlist or ():
            self.module_paths.add(name + "." + f)
        root = self._roots.setdefault(top, _FakeModule(self, top))
        if fromlist:
            mod = root
            for p in parts[1:]:
                mod = getattr(mod, p)
            return mod
        return root

    def execute_source(self):
        """Check the program against the allow-list (:func:`~hilo_mlir.support.pysource.check_program`), then record it.

        Raises:
            PenguinRefError: a program that is not valid Python or holds anything
                but the shapes a Penguin printer emits (nothing of it has run).
        """
        try:
            check_program(self.source, self.filename)
        except ProgramCheckError as e:
            raise PenguinRefError(f"penguin_ref: {e.message}", loc=e.loc, filename=e.filename) from None
        try:
            code = compile(self.source, self.filename, "exec")
        except SyntaxError as e:
            raise PenguinRefError(f"penguin_ref: {self.filename} is not valid Python: {e.msg} (line {e.lineno})") from None
        self._roots = {}
        self._np_proxy = _NumpyProxy(self)
        bi = dict(vars(builtins))
        bi["__import__"] = self._import
        # one namespace for globals and locals, so region functions see the module aliases;
        # a dict subclass, so every top-level binding goes through _Names.__setitem__
        names = _Names(self)
        dict.__setitem__(names, "__builtins__", bi)
        dict.__setitem__(names, "__name__", "__penguin__")
        self._code = code
        try:
            with np.errstate(all="ignore"):
                exec(code, names)  # noqa: S102 - executing the program is the point
        except PenguinRefError:
            raise
        except Exception as e:  # noqa: BLE001 - a broken program is one clear error
            line = _program_line(e, self.filename)
            raise PenguinRefError(f"penguin_ref: the program failed while loading (line {line}): {type(e).__name__}: {e}") from None
        if self.function is None:
            # every printed program opens with its Function; an empty or comment-only file would "run"
            # and write nothing
            raise PenguinRefError(f"penguin_ref: {self.filename} declares no Function: it is not a program hilo2penguin wrote")
        computed = len(self.statements) - len(self.inputs)
        if computed > 0 and not self.outputs:
            # a printed program that computes anything ends with markOutput: a file cut at a line
            # boundary is still valid Python, and would otherwise "run" and write nothing
            raise PenguinRefError(
                f"penguin_ref: {self.filename} holds {computed} operations but marks no output "
                "(no markOutput call): the file is truncated or not a whole program"
            )
        self._structure()

    def _current_line(self):
        import sys
        import types

        f: types.FrameType | None = sys._getframe(1)
        while f is not None:
            if f.f_code.co_filename == self.filename:
                return f.f_lineno
            f = f.f_back
        return 0

    # -- recorders ----------------------------------------------------------------------------
    def make_function(self, *args, **kw):
        self.function = _Function(kw, self)
        return self.function

    def make_tensor(self, *args, **kw):
        return _TensorDecl(self, args, kw, self._current_line())

    def make_block_argument(self, *args, index=0, parent=None, **kw):
        st = Statement(self, "BlockArgument", args, {"index": index, "parent": parent, **kw}, self._current_line())
        v = Value(st, 0)
        st.results = [v]
        self.statements.append(st)
        return v

    def make_region_return(self, *args, srcs=(), parent=None, **kw):
        st = Statement(self, "RegionReturn", args, {"srcs": list(srcs), "parent": parent, **kw}, self._current_line())
        self.statements.append(st)
        return None

    def record(self, kind, args, kw):
        st = Statement(self, kind, args, kw, self._current_line())
        dsts = kw.get("dsts")
        if dsts is None:
            dsts = []
        if not isinstance(dsts, (list, tuple)):
            dsts = [dsts]
        st.dsts = list(dsts)
        st.results = [Value(st, i) for i in range(len(st.dsts))]
        if self.tracing is not None:
            self.tracing.append(st)
            return st.results[0] if len(st.results) == 1 else ResultTuple(st.results)
        if self.eager:
            # inside a region function being called by the interpreter: compute now
            interp, env = self.eager[-1]
            interp.exec_stmt(st, env)
            if ops.is_header(st):
                return st.results[0] if len(st.results) == 1 else ResultTuple(st.results)
            vals = [env.vals.get(v, v) for v in st.results]
            for v in st.results:
                env.vals.pop(v, None)
            if len(vals) == 1:
                return vals[0]
            return tuple(vals)
        self.statements.append(st)
        if len(st.results) == 1:
            return st.results[0]
        return ResultTuple(st.results)

    def set_results(self, header, names):
        if not isinstance(names, (list, tuple)):
            names = [names]
        header.set_results = list(names)
        if self.eager:
            interp, env = self.eager[-1]
            interp.set_results_eager(header, list(names), env)
            return
        st = Statement(self, "SetResults", (), {"srcs": list(names), "header": header}, self._current_line())
        st.dl = header.dl
        self.statements.append(st)

    def bind_name(self, key, value):
        if isinstance(value, Value):
            if value.name is None:
                value.name = key
            if value.index == 0 and value.stmt.name is None:
                value.stmt.name = key
                self.by_name[key] = value.stmt
            else:
                self.by_name.setdefault(key, value.stmt)
        elif isinstance(value, tuple) and value and all(isinstance(v, Value) for v in value):
            st = value[0].stmt
            if st.name is None:
                st.name = key
            self.by_name.setdefault(key, st)

    # -- structure ------------------------------------------------------------------------------
    def _resolve_parent(self, st: Statement, name):
        if name is None:
            return None
        if isinstance(name, Value):
            return name.stmt
        if isinstance(name, Statement):
            return name
        owner = self.by_name.get(str(name))
        if owner is not None:
            return owner
        # a parent named by its op name (an op without results): the latest such statement before st
        idx = self.statements.index(st)
        for cand in reversed(self.statements[:idx]):
            if cand.xla_op == name or cand.kind == name:
                return cand
        return None  # e.g. the owner of a region function body (not recorded): no structural meaning

    def _structure(self):
        stmts = [s for s in self.statements if not s.kind == "Tensor.markInput"]
        owners = set()
        parent_of = {}
        for st in stmts:
            p = self._resolve_parent(st, st.parent_name)
            parent_of[id(st)] = p
            if p is not None and st.kind in ("BlockArgument", "RegionReturn"):
                owners.add(id(p))
        self.region_owners = owners
        self.top: list[Statement] = []
        open_region: dict[int, Region] = {}

        def container_of(p):
            # walk up through transparent parents
            while p is not None and id(p) not in owners:
                p = parent_of.get(id(p))
            return p

        for st in self.statements:
            if st.kind == "Tensor.markInput":
                self.top.append(st)
                continue
            owner = container_of(parent_of[id(st)])
            if owner is None:
                self.top.append(st)
                continue
            reg = open_region.get(id(owner))
            if reg is None or (st.kind == "BlockArgument" and st.kw.get("index") == 0 and (reg.body or reg.args)):
                reg = Region()
                owner.regions.append(reg)
                open_region[id(owner)] = reg
            if st.kind == "BlockArgument":
                reg.args.append(st.results[0])
            elif st.kind == "RegionReturn":
                reg.ret = list(st.kw.get("srcs") or [])
                open_region.pop(id(owner), None)
            else:
                reg.body.append(st)


def _program_line(exc, filename):
    tb = exc.__traceback__
    line = "?"
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line
