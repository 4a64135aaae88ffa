"""Interpret a recorded Penguin program with numpy (steps 3-5 of :mod:`.program`)."""

from __future__ import annotations

import numpy as np

from . import ops
from .attrs import AttrError
from .program import Program
from .records import PenguinRefError, Region, Statement, TensorSpec, Value


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
        if ops.is_header(st) and not st.regions and not st.kw.get("regions") and (
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
