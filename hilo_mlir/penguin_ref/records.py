"""The objects a Penguin program records when it runs: specs, locations, values, statements, and the fake
Penguin API modules whose attributes record them (see :mod:`.program` for how a program is run)."""

from __future__ import annotations

import re
import types

import numpy as np

from hilo_mlir.penguin_ref.attrs import np_dtype
from hilo_mlir.support.diagnostics import HiloError


class PenguinRefError(HiloError):
    """A statement the reference backend cannot execute, or bad program/inputs."""


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

    __slots__ = ("__weakref__", "index", "name", "stmt")

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


class Bits:
    """``Bits(0x7f800001)`` / ``Bits([...])``: a constant's elements as their bit patterns (format section 5a)."""

    def __init__(self, bits, *args, **kw):
        self.bits = bits

    def array(self, dtype, shape) -> np.ndarray:
        """The elements as ``dtype`` (bit for bit), broadcast to ``shape``."""
        dt = np.dtype(dtype)
        a = np.asarray(self.bits, dtype=np.uint64).astype(np.dtype(f"u{dt.itemsize}")).view(dt)
        return np.broadcast_to(a, shape).copy() if a.shape != tuple(shape) else a

    def __repr__(self):
        return f"Bits({self.bits!r})"


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
        if loc and self.dl is not None:
            where = f" [{self.dl.name}]" if self.dl.name else ""
            where += f" (penguin.py line {self.lineno})"
        return PenguinRefError(f"penguin_ref: cannot execute {self.describe()}{where}: {msg}", loc=loc)


def _snake(name: str) -> str:
    name = name.split(".")[-1]
    if name.endswith("Op") and len(name) > 2:
        name = name[:-2]
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def op_key(st) -> str | None:
    """The dispatch key of a statement: the short MLIR op name, or derived from the Python name."""
    if st.xla_op:
        x = st.xla_op.strip("'\"")
        if "." in x:
            return x.split(".", 1)[1]
        return x
    return _snake(st.kind)


class InputStatement(Statement):
    """A ``Tensor(...).markInput(...)`` statement: ``input_index`` is the program input it declares
    (the ``index=`` keyword, else the ``input_<n>`` name, else its position), ``spec`` the ``spec=``
    argument as written (a :class:`TensorSpec` in printed programs; None if the declaration has none)."""

    input_index: int
    spec: object


class Region:
    """A region of a statement: block arguments, body statements, the returned values."""

    def __init__(self):
        self.args: list[Value] = []
        self.body: list[Statement] = []
        self.ret: list | None = None


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


class _DtypeNamespace:
    """``<support>.dtype``: ``m2.dtype.float8_e4m3fn_x4`` is the dtype named ``'float8_e4m3fn_x4'``."""

    def __getattr__(self, item):
        if item.startswith("__"):
            raise AttributeError(item)
        return item


_DTYPES = _DtypeNamespace()


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
        if item == "Bits":
            return Bits
        if item == "TupleSpec":
            return TupleSpec
        if item == "dtype":
            return _DTYPES
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
        st = InputStatement(prog, "Tensor.markInput", self.args, {**self.kw, **kw}, self.lineno)
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
