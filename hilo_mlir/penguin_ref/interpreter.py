"""Interpret a recorded Penguin program with numpy (steps 3-5 of :mod:`.program`)."""

from __future__ import annotations

import sys
import threading

import numpy as np

from hilo_mlir.penguin_ref import kernels, ops
from hilo_mlir.penguin_ref.attrs import AttrError
from hilo_mlir.penguin_ref.program import Program
from hilo_mlir.penguin_ref.records import PenguinRefError, Region, Statement, TensorSpec, Value


class Env:
    """Values of one scope; lookups fall back to the enclosing scope."""

    __slots__ = ("parent", "vals", "vectorized")

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

    def __init__(self, program: Program, literal_fusions: bool = False, fabric=None, device: int = 0):
        self.program = program
        self.ops = ops
        self.literal_fusions = literal_fusions
        self.fabric = fabric  # the devices' rendezvous (:mod:`.devices`); None: one device, made on first use
        self.device = device

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
            self.set_results(st, env)
            return
        if (
            ops.is_header(st)
            and not st.regions
            and not st.kw.get("regions")
            and (st.set_results is not None or self.ops.op_key(st) != "call" or self.program.eager)
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

    def set_results(self, st: Statement, env: Env) -> None:
        """``setResults`` of a group: check the body's results against the header's specs; a precise
        kernel (:mod:`.kernels`) may replace the body's result."""
        header = st.kw["header"]
        for v, spec in zip(st.kw["srcs"], header.dsts):
            a = self.value(v, env, header)
            if isinstance(spec, TensorSpec) and not env.vectorized and tuple(np.shape(a)) != spec.shape:
                raise header.error(f"result {v.name} has shape {tuple(np.shape(a))}, the header declares {spec.shape}")
        r = self.kernel_result(header, env)
        if r is not None:
            env.vals[st.kw["srcs"][0]] = r

    def kernel_result(self, header: Statement, env: Env):
        """The result of group ``header`` if a precise kernel replaces its body (:mod:`.kernels`), else None."""
        srcs = header.kw.get("srcs") or []
        if self.literal_fusions or len(srcs) != 1:
            return None
        return kernels.precise_result(header, self.value(srcs[0], env, header), env.vectorized)

    def set_results_eager(self, header: Statement, names, env: Env) -> None:
        """``setResults`` inside a region function being run: the body already computed ``names`` (arrays).

        A kernel result is written into the returned array in place (the
        function's later statements hold that array), when that array is the
        body's own (not one of the group's operands).
        """
        if len(names) != 1 or not isinstance(names[0], np.ndarray):
            return
        r = self.kernel_result(header, env)
        out = names[0]
        srcs = header.kw.get("srcs") or []
        if r is not None and out.flags.writeable and out.shape == r.shape and out.dtype == r.dtype and not any(out is s for s in srcs):
            out[...] = r

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


def run_program(
    program: Program, inputs, literal_fusions: bool = False, fabric=None, device: int = 0, deep: bool = True
) -> list[np.ndarray]:
    """Bind ``inputs`` to the program's ``markInput`` tensors, interpret, return outputs in index order.

    Args:
        program: the recorded program.
        inputs: one array per input in ``index`` order; ``None`` (or leaving
            out trailing ones) loads a parameter (``is_parameter_tensor=True``)
            from its ``np_file`` (else the first of its ``weight_files``).
        literal_fusions: run Expm1/Log1p fusions op by op instead of as the
            precise primitive their kind selects.
        fabric, device: the rendezvous of a multi-device run and this
            program's device id (:mod:`.devices`); None: one device.
        deep: run in a thread with a large stack (:func:`run_deep`); a device
            thread of a multi-device run already is one.

    Raises:
        PenguinRefError: wrong input count or shape; a parameter whose
            ``np_file`` is missing (naming the input); any statement that
            cannot be executed.
    """
    env = Env()
    for d, a in zip(*bind_inputs(program, inputs)):
        env.vals[d.results[0]] = a
    interp = Interpreter(program, literal_fusions=literal_fusions, fabric=fabric, device=device)
    return run_deep(_interpret, interp, env) if deep else _interpret(interp, env)


def bind_inputs(program: Program, inputs) -> tuple[list, list]:
    """``(declarations, arrays)`` in input order, converted to the declared dtypes (see :func:`run_program`)."""
    decls = sorted(program.inputs, key=lambda s: s.input_index)
    if isinstance(inputs, np.ndarray) or np.isscalar(inputs):
        inputs = [inputs]  # one array, not a sequence of rows
    inputs = list(inputs)
    if len(inputs) > len(decls):
        raise PenguinRefError(f"penguin_ref: the program has {len(decls)} inputs, {len(inputs)} given")
    inputs += [None] * (len(decls) - len(inputs))
    arrays = []
    for d, a in zip(decls, inputs):
        if a is None:
            a = _parameter_from_file(program, d, len(decls), sum(x is not None for x in inputs))
        a = np.asarray(a)
        spec = d.spec
        if isinstance(spec, TensorSpec):
            if tuple(a.shape) != spec.shape:
                raise PenguinRefError(f"penguin_ref: input {d.input_index} has shape {tuple(a.shape)}, the program expects {spec.shape}")
            dt = spec.np_dtype
            if a.dtype.kind == "V" and a.dtype.itemsize == dt.itemsize:
                a = a.view(dt)  # an ml_dtypes array that went through .npy
            elif a.dtype != dt:
                a = a.astype(dt)
        arrays.append(a)
    return decls, arrays


def _first_weight_file(files) -> str | None:
    """The file of ``weight_files=[...]`` (the printers write one) when ``np_file`` is absent; None if there is none."""
    if isinstance(files, (list, tuple)) and files and isinstance(files[0], str):
        return files[0]
    return None


def _parameter_from_file(program: Program, decl, n_decls: int, n_given: int):
    """The array of a parameter input the caller did not pass, from its ``np_file``."""
    name = decl.kw.get("name")
    label = f"input {decl.input_index}" + (f" ('{name}')" if name is not None else "")
    file = decl.kw.get("np_file") or decl.kw.get("weight_file") or _first_weight_file(decl.kw.get("weight_files"))
    if not decl.kw.get("is_parameter_tensor") or not file:
        raise PenguinRefError(
            f"penguin_ref: the program has {n_decls} inputs, {n_given} given "
            f"({label} is not a parameter with an np_file, so it must be passed)"
        )
    try:
        a = program.load_npy(file, missing_ok=False)
    except FileNotFoundError:
        where = f" in {program.folder}" if program.folder else ""
        raise PenguinRefError(
            f"penguin_ref: {label} is a parameter loaded from '{file}', which was not found "
            f"beside the program{where}; pass the array or write the file"
        ) from None
    spec = decl.spec
    if isinstance(spec, TensorSpec):  # bfloat16 / float8 weights are stored as their bit patterns (as constants)
        dt = spec.np_dtype
        if a.dtype.kind in "uV" and a.dtype.itemsize == dt.itemsize and dt.name.startswith(("bfloat16", "float8")):
            a = a.view(dt)
    return a


def _interpret(interp, env) -> list[np.ndarray]:
    program = interp.program
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


#: C stack of the thread the interpreter runs in, and its Python recursion limit: a region nested
#: n deep runs as about 10 nested Python calls per level, so 1,000 levels need ~10^4 frames.
_STACK_BYTES = 512 << 20
_RECURSION_LIMIT = 200_000


def run_deep(fn, *args):
    """``fn(*args)`` in a thread with a large C stack and a raised recursion limit; its result or exception.

    Nested regions execute as nested Python calls (a ``while`` body calls
    the region functions of the ``while`` inside it), so the depth of a
    program is limited only by this stack.
    """
    box: dict = {}

    def target():
        try:
            box["value"] = fn(*args)
        except BaseException as e:  # noqa: BLE001 - re-raised in the calling thread
            box["error"] = e

    old_limit = sys.getrecursionlimit()
    old_size = threading.stack_size()
    try:
        threading.stack_size(_STACK_BYTES)
        t = threading.Thread(target=target, name="penguin_ref", daemon=True)
        sys.setrecursionlimit(max(old_limit, _RECURSION_LIMIT))
        t.start()
    finally:
        threading.stack_size(old_size)
    try:
        t.join()
    finally:
        sys.setrecursionlimit(old_limit)
    if "error" in box:
        raise box["error"]
    return box["value"]


def _flatten(r) -> list:
    """An output value as arrays: a tuple-typed output contributes its elements, depth first."""
    if isinstance(r, tuple):
        out = []
        for x in r:
            out.extend(_flatten(x))
        return out
    return [np.asarray(r)]
