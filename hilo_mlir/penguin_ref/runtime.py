"""Execute a Penguin Python program with numpy (the reference backend's engine).

The program format is docs/penguin_format.md. How it is executed:

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
import re
import types

import numpy as np

from ..diagnostics import HiloError
from .attrs import AttrError, np_dtype


class PenguinRefError(HiloError):
    """A statement the reference backend cannot execute, or bad program/inputs."""


# ---------------------------------------------------------------------------------------------
# recorded objects
# ---------------------------------------------------------------------------------------------


class TensorSpec:
    """``TensorSpec(shape=(..), dtype='float32')`` as recorded (``.np_dtype`` resolved lazily)."""

    def __init__(self, shape=(), dtype="float32", **kw):
        self.shape = tuple(int(s) for s in shape) if shape is not None else ()
        self.dtype = dtype
        self.extra = kw

    @property
    def np_dtype(self):
        return np_dtype(self.dtype)

    def __repr__(self):
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype!r})"


class DebugLocation:
    """``DebugLocation(file=, line=, col=, name=, parent=)`` as recorded."""

    def __init__(self, *args, **kw):
        self.file = kw.get("file", "")
        self.line = kw.get("line", 0)
        self.col = kw.get("col", 0)
        self.name = kw.get("name", "")
        self.parent = kw.get("parent")
        self.kw = kw

    def where(self) -> str:
        s = f"{self.file or '?'}:{self.line}:{self.col}"
        if self.name:
            s += f" ({self.name})"
        return s

    def mlir_loc(self) -> str:
        return f'loc("{self.file or "penguin.py"}":{self.line}:{self.col})'


class Value:
    """One SSA value of the program (a result of a statement, an input, a block argument)."""

    __slots__ = ("stmt", "index", "name", "__weakref__")

    def __init__(self, stmt, index):
        self.stmt = stmt
        self.index = index
        self.name = None

    def markOutput(self, function=None, index=None, *args, **kw):  # noqa: N802 - Penguin API
        prog = self.stmt.program
        prog.outputs.append((index if index is not None else len(prog.outputs), self, kw))
        return self

    def markInput(self, *args, **kw):  # noqa: N802 - tolerated on values too
        return self

    def setResults(self, names):  # noqa: N802 - Penguin API (group header handle)
        self.stmt.program.set_results(self.stmt, names)

    def __repr__(self):
        return f"<penguin value {self.name or '?'}>"

    # an accidental arithmetic use in the program should be a clear error, not a silent object
    def __getattr__(self, item):
        raise AttributeError(f"penguin value {self.name or '?'} has no attribute {item!r}")


class ResultTuple(tuple):
    """The results of a multi-result statement (unpackable; a group handle when used as one)."""

    def setResults(self, names):  # noqa: N802 - Penguin API
        if self:
            self[0].stmt.program.set_results(self[0].stmt, names)


class NpyFile:
    """``NpyFile('const_0.npy')``: a constant stored beside penguin.py."""

    def __init__(self, name, *args, **kw):
        self.name = name

    def __repr__(self):
        return f"NpyFile({self.name!r})"


class TupleSpec:
    """``TupleSpec(elements=[...])`` for tuple-typed results."""

    def __init__(self, elements=(), **kw):
        self.elements = list(elements)
        self.shape = None


class Statement:
    """One recorded call: ``kind`` is the Python op name, ``kw`` its keyword arguments."""

    def __init__(self, program, kind, args, kw, lineno):
        self.program = program
        self.kind = kind
        self.args = args
        self.kw = kw
        self.lineno = lineno
        self.results: list[Value] = []
        self.name = None
        self.regions: list[Region] = []
        self.container = None
        dl = kw.get("dl")
        self.dl = dl if isinstance(dl, DebugLocation) else None
        self.xla_op = kw.get("xla_op") if isinstance(kw.get("xla_op"), str) else None
        self.set_results = None
        self.dsts = []

    @property
    def parent_name(self):
        p = self.kw.get("parent")
        if p is None and self.dl is not None:
            p = self.dl.parent
        return p

    def where(self) -> str:
        loc = self.dl.where() if self.dl else "?"
        return f"{loc}, penguin.py line {self.lineno}"

    def describe(self) -> str:
        x = f"'{self.xla_op}'" if self.xla_op else "(no xla_op)"
        return f"{x} ({self.kind}{' -> ' + self.name if self.name else ''})"

    def error(self, msg: str) -> PenguinRefError:
        loc = self.dl.mlir_loc() if self.dl and self.dl.file else None
        where = "" if loc else f" at {self.where()}"
        if loc:
            where = f" [{self.dl.name}]" if self.dl.name else ""
            where += f" (penguin.py line {self.lineno})"
        return PenguinRefError(f"penguin_ref: cannot execute {self.describe()}{where}: {msg}", loc=loc)


class Region:
    """A region of a statement: block arguments, body statements, the returned values."""

    def __init__(self):
        self.args: list[Value] = []
        self.body: list[Statement] = []
        self.ret: list | None = None


# ---------------------------------------------------------------------------------------------
# the fake Penguin modules
# ---------------------------------------------------------------------------------------------

class _Recorder:
    def __init__(self, program, kind):
        self.program = program
        self.kind = kind

    def __call__(self, *args, **kw):
        return self.program.record(self.kind, args, kw)

    def __getattr__(self, item):  # e.g. m1.dtype.float8_e5m2_x4
        if item.startswith("__"):
            raise AttributeError(item)
        return _Recorder(self.program, f"{self.kind}.{item}")

    def __repr__(self):
        return f"<penguin {self.kind}>"


class _FakeModule(types.ModuleType):
    """A module of the Penguin API: submodules by import path, every other name an op recorder."""

    def __init__(self, program, path):
        super().__init__(path)
        self._program = program
        self._path = path
        self._children = {}

    def __getattr__(self, item):
        if item.startswith("__"):
            raise AttributeError(item)
        child = self._path + "." + item
        if child in self._program.module_paths:
            if item not in self._children:
                self._children[item] = _FakeModule(self._program, child)
            return self._children[item]
        prog = self._program
        if item == "TensorSpec":
            return TensorSpec
        if item == "DebugLocation":
            return DebugLocation
        if item == "Function":
            return prog.make_function
        if item == "Tensor":
            return prog.make_tensor
        if item == "BlockArgument":
            return prog.make_block_argument
        if item == "RegionReturn":
            return prog.make_region_return
        if item == "NpyFile":
            return NpyFile
        if item == "TupleSpec":
            return TupleSpec
        if item == "dtype":
            return _Recorder(prog, "dtype")
        return _Recorder(prog, item)


class _Function:
    def __init__(self, kw, program=None):
        self.kw = kw
        self.program = program

    def markOutput(self, value, *args, index=None, **kw):  # noqa: N802 - Penguin API
        prog = self.program
        if isinstance(value, Value):
            prog.outputs.append((index if index is not None else len(prog.outputs), value, kw))
        else:
            raise PenguinRefError(f"penguin_ref: markOutput of {value!r}, which is not a program value")
        return value

    def __getattr__(self, item):
        if item.startswith("__"):
            raise AttributeError(item)
        return lambda *a, **k: None


class _TensorDecl:
    def __init__(self, program, args, kw, lineno):
        self.program = program
        self.kw = kw
        self.args = args
        self.lineno = lineno

    def markInput(self, function=None, *args, **kw):  # noqa: N802 - Penguin API
        prog = self.program
        spec = self.kw.get("spec")
        if spec is None:
            spec = next((a for a in self.args if isinstance(a, TensorSpec)), None)
        name = self.kw.get("name")
        st = Statement(prog, "Tensor.markInput", self.args, {**self.kw, **kw}, self.lineno)
        v = Value(st, 0)
        st.results = [v]
        m = re.fullmatch(r"input_(\d+)", str(name)) if name is not None else None
        if kw.get("index") is not None:
            st.input_index = int(kw["index"])
        else:
            st.input_index = int(m.group(1)) if m else len(prog.inputs)
        st.spec = spec
        prog.inputs.append(st)
        prog.statements.append(st)
        return v


class _Names(dict):
    """``exec`` locals: remembers which name each recorded value was bound to."""

    def __init__(self, program):
        super().__init__()
        self.program = program

    def __setitem__(self, key, value):
        self.program.bind_name(key, value)
        super().__setitem__(key, value)


class _NumpyProxy(types.ModuleType):
    """``numpy`` for the program: ``np.load`` of a relative path reads beside penguin.py."""

    def __init__(self, program):
        super().__init__("numpy")
        self._program = program

    def __getattr__(self, item):
        if item == "load":
            return self._program.load_npy
        return getattr(np, item)


# ---------------------------------------------------------------------------------------------
# the program
# ---------------------------------------------------------------------------------------------


_REAL_MODULES = {"numpy", "ml_dtypes", "math"}


class Program:
    """A recorded Penguin program (see the module docstring)."""

    def __init__(self, source: str, folder: str | None = None, files: dict | None = None, filename: str = "penguin.py"):
        self.source = source
        self.folder = folder
        self.files = dict(files or {})
        self.filename = filename
        self.statements: list[Statement] = []
        self.inputs: list[Statement] = []
        self.outputs: list = []
        self.by_name: dict[str, Statement] = {}
        self.module_paths: set[str] = set()
        self.function = None
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
    def load_npy(self, path, *args, **kw):
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
            raise PenguinRefError(
                f"penguin_ref: constant file '{path}' not found (looked beside the program"
                + (f" in {self.folder}" if self.folder else "") + " and in the in-memory files)"
            ) from None

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
            raise PenguinRefError(
                f"penguin_ref: the program failed while loading (line {line}): {type(e).__name__}: {e}"
            ) from None
        self._structure()

    def _current_line(self):
        import sys

        f = sys._getframe(1)
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
            if _is_header(st):
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


def _is_header(st) -> bool:
    from . import ops

    return ops.is_summary(st) or ops.op_key(st) == "call"


def _program_line(exc, filename):
    tb = exc.__traceback__
    line = "?"
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


# ---------------------------------------------------------------------------------------------
# interpretation
# ---------------------------------------------------------------------------------------------


class Env:
    """Values of one scope; lookups fall back to the enclosing scope."""

    __slots__ = ("vals", "parent", "vectorized")

    def __init__(self, parent=None, vectorized=False):
        self.vals = {}
        self.parent = parent
        self.vectorized = vectorized or (parent.vectorized if parent is not None else False)

    def get(self, v):
        e = self
        while e is not None:
            r = e.vals.get(v, _MISSING)
            if r is not _MISSING:
                return r
            e = e.parent
        return _MISSING


_MISSING = object()


class Interpreter:
    """Interpret a structured :class:`Program` (see :func:`run_program`)."""

    def __init__(self, program: Program):
        from . import ops

        self.program = program
        self.ops = ops

    def value(self, v, env: Env, user: Statement):
        if isinstance(v, Value):
            r = env.get(v)
            if r is _MISSING:
                src = v.stmt
                if src.kind in ("BlockArgument",):
                    raise user.error(f"block argument {v.name} is used outside its region")
                hint = ""
                if self.ops.is_summary(src) and not src.regions:
                    hint = (
                        f" ({src.describe()} is a fusion/composite summary; the program does not say which"
                        " body values are its results: bind the body's results to these names, or print"
                        " RegionReturn(parent=...) for the summary)"
                    )
                raise user.error(f"operand {v.name or '?'} has no value{hint}")
            return r
        if isinstance(v, (list, tuple)):
            return type(v)(self.value(x, env, user) for x in v) if type(v) in (list, tuple) else tuple(self.value(x, env, user) for x in v)
        return np.asarray(v)

    def run_block(self, stmts, env: Env):
        for st in stmts:
            self.exec_stmt(st, env)

    def exec_stmt(self, st: Statement, env: Env):
        if st.kind == "Tensor.markInput":
            return  # bound by run_program
        if st.kind == "BlockArgument":
            return
        if st.kind == "SetResults":
            header = st.kw["header"]
            for v, spec in zip(st.kw["srcs"], header.dsts):
                a = self.value(v, env, header)
                if isinstance(spec, TensorSpec) and not env.vectorized and tuple(np.shape(a)) != spec.shape:
                    raise header.error(f"result {v.name} has shape {tuple(np.shape(a))}, the header declares {spec.shape}")
            return
        if _is_header(st) and not st.regions and not st.kw.get("regions") and (
            st.set_results is not None or self.ops.op_key(st) != "call" or self.program.eager
        ):
            return  # a group header computes nothing: its body statements compute the values
        impl = self.ops.lookup(st)
        if impl is None:
            raise st.error("no numpy implementation for this op")
        srcs = st.kw.get("srcs") or []
        if not isinstance(srcs, (list, tuple)):
            srcs = [srcs]
        vals = [self.value(s, env, st) for s in srcs]
        call = self.ops.OpCall(self, st, vals, env)
        try:
            out = impl(call)
        except PenguinRefError:
            raise
        except (AttrError, ValueError, TypeError, IndexError, KeyError, NotImplementedError) as e:
            raise st.error(f"{type(e).__name__}: {e}") from None
        if out is None:
            out = []
        elif not isinstance(out, (list, tuple)):
            out = [out]
        if len(out) != len(st.results):
            raise st.error(f"produced {len(out)} results, the statement declares {len(st.results)}")
        for v, arr, spec in zip(st.results, out, st.dsts):
            env.vals[v] = self.finish(st, arr, spec, env)

    def finish(self, st, arr, spec, env):
        if isinstance(arr, tuple):  # tuple-typed values (mhlo.tuple)
            return arr
        if not isinstance(spec, TensorSpec):
            return np.asarray(arr)
        try:
            dt = spec.np_dtype
        except AttrError:
            return np.asarray(arr)
        arr = np.asarray(arr)
        if arr.dtype != dt:
            arr = self.ops.cast(arr, dt)
        if not env.vectorized and tuple(arr.shape) != spec.shape:
            raise st.error(f"computed shape {tuple(arr.shape)}, the statement declares {spec.shape}")
        return arr

    def call_function(self, owner: Statement, fn, args, env: Env, vectorized=True):
        """Call a region printed as a Python function (format section 7), computing eagerly."""
        inner = Env(env, vectorized=vectorized)
        prog = self.program
        prog.eager.append((self, inner))
        try:
            with np.errstate(all="ignore"):
                res = fn(*args)
        except PenguinRefError:
            raise
        except Exception as e:  # noqa: BLE001 - a broken region body is one clear error
            raise owner.error(f"its region function failed: {type(e).__name__}: {e}") from None
        finally:
            prog.eager.pop()
        if not isinstance(res, (list, tuple)):
            res = [res]
        return [self.value(r, inner, owner) for r in res]

    def call_region(self, owner: Statement, region: Region, args, env: Env, vectorized=True, flat=False):
        if region.ret is None:
            raise owner.error("a region of this op has no RegionReturn")
        if len(args) != len(region.args) and region.args:
            raise owner.error(f"region expects {len(region.args)} arguments, got {len(args)}")
        inner = env if flat else Env(env, vectorized=vectorized)
        for a, v in zip(region.args, args):
            inner.vals[a] = v
        self.run_block(region.body, inner)
        return [self.value(r, inner, owner) for r in region.ret]


def run_program(program: Program, inputs) -> list[np.ndarray]:
    """Bind ``inputs`` to the program's ``markInput`` tensors, interpret, return outputs in index order."""
    interp = Interpreter(program)
    env = Env()
    decls = sorted(program.inputs, key=lambda s: s.input_index)
    if isinstance(inputs, np.ndarray) or np.isscalar(inputs):
        inputs = [inputs]  # one array, not a sequence of rows
    inputs = list(inputs)
    if len(inputs) != len(decls):
        # parameters may come from their weight files
        if len(inputs) < len(decls):
            missing = decls[len(inputs):]
            for d in missing:
                wf = d.kw.get("weight_file") or d.kw.get("np_file")
                if not wf:
                    raise PenguinRefError(
                        f"penguin_ref: the program has {len(decls)} inputs, {len(inputs)} given"
                    )
                inputs.append(program.load_npy(wf))
        else:
            raise PenguinRefError(f"penguin_ref: the program has {len(decls)} inputs, {len(inputs)} given")
    for d, a in zip(decls, inputs):
        a = np.asarray(a)
        spec = d.spec
        if isinstance(spec, TensorSpec):
            if tuple(a.shape) != spec.shape:
                raise PenguinRefError(
                    f"penguin_ref: input {d.input_index} has shape {tuple(a.shape)}, the program expects {spec.shape}"
                )
            dt = spec.np_dtype
            if a.dtype.kind == "V" and a.dtype.itemsize == dt.itemsize:
                a = a.view(dt)  # an ml_dtypes array that went through .npy
            elif a.dtype != dt:
                a = a.astype(dt)
        env.vals[d.results[0]] = a
    with np.errstate(all="ignore"):
        interp.run_block(program.top, env)
        outs = sorted(program.outputs, key=lambda t: t[0])
        result = []
        for idx, v, _ in outs:
            r = env.get(v)
            if r is _MISSING:
                raise PenguinRefError(f"penguin_ref: output {idx} ({v.name}) was never computed")
            result.extend(_flatten(r))
    return result


def _flatten(r) -> list:
    """An output value as arrays: a tuple-typed output contributes its elements, depth first."""
    if isinstance(r, tuple):
        out = []
        for x in r:
            out.extend(_flatten(x))
        return out
    return [np.asarray(r)]
