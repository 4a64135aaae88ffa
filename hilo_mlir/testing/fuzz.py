"""Random valid mhlo / stablehlo functions for property tests (issue 6, "Fuzzing").

:func:`modules` is a `hypothesis <https://hypothesis.readthedocs.io>`_
strategy: each example is a :class:`FuzzCase` whose ``stablehlo`` text is a
module with one ``func.func @main`` built from a random data-flow graph, and
whose ``mhlo`` text is the same function brought to mhlo by the upstream
``stablehlo-legalize-to-hlo``. The graph draws, step by step, from:

* elementwise unary ops (``abs negate exponential tanh logistic sine cosine
  floor sqrt log`` on floats; ``abs negate not`` on integers),
* elementwise binary ops (``add subtract multiply maximum minimum divide`` on
  floats; ``add subtract multiply maximum minimum and or xor`` on integers),
* ``compare`` + ``select``,
* ``reduce`` (sum or max over one dimension),
* ``dot_general`` (matrix product, optionally batched; the right operand is
  an existing value when one has the right shape, else a new argument),
* ``concatenate``, ``transpose``, ``broadcast_in_dim``, ``slice``,
  ``reshape``, splat ``constant``, ``convert`` (integer -> float only: the
  float -> integer conversion of out-of-range values is not defined),

over element types ``f32 f16 bf16 i32``, ranks 1-3, dimensions 1-4.
Operands are drawn from every value built so far, so values get random
fan-out; ``main`` returns 1-3 values (always the last one).

Every text is verified when :func:`build` parses it, so a strategy bug shows
up as a parse error, not as a compiler failure.

Tests only (imports ``hypothesis``); the compiler never imports this module.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

FLOATS = ("f32", "f16", "bf16")
INTS = ("i32",)
DTYPES = FLOATS + INTS
_FLOAT_UNARY = ("abs", "negate", "exponential", "tanh", "logistic", "sine", "cosine", "floor", "sqrt", "log")
_INT_UNARY = ("abs", "negate", "not")
_FLOAT_BINARY = ("add", "subtract", "multiply", "maximum", "minimum", "divide")
_INT_BINARY = ("add", "subtract", "multiply", "maximum", "minimum", "and", "or", "xor")
KINDS = ("unary", "binary", "select", "reduce", "dot", "concatenate", "transpose", "broadcast", "slice", "reshape", "constant", "convert")


@dataclass
class FuzzCase:
    """One generated function: its stablehlo and mhlo texts and what it is made of."""

    stablehlo: str
    mhlo: str
    ops: tuple  # op kinds used, in order
    dtypes: tuple  # element types of the arguments

    def text(self, dialect: str) -> str:
        return self.stablehlo if dialect == "stablehlo" else self.mhlo

    def __repr__(self) -> str:  # hypothesis prints this for a failing example
        return f"FuzzCase(ops={self.ops}, dtypes={self.dtypes})\n--- stablehlo ---\n{self.stablehlo}"


def _tt(shape, dtype) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


class _Graph:
    def __init__(self):
        self.args: list[tuple[str, tuple, str]] = []  # (name, shape, dtype)
        self.lines: list[str] = []
        self.values: list[tuple[str, tuple, str]] = []
        self.n = 0
        self.kinds: list[str] = []

    def new_arg(self, shape, dtype):
        name = f"%arg{len(self.args)}"
        self.args.append((name, tuple(shape), dtype))
        self.values.append((name, tuple(shape), dtype))
        return self.values[-1]

    def emit(self, rhs: str, shape, dtype):
        name = f"%{self.n}"
        self.n += 1
        self.lines.append(f"    {name} = {rhs}")
        self.values.append((name, tuple(shape), dtype))
        return self.values[-1]


def _shape(draw):
    rank = draw(st.integers(1, 3))
    return tuple(draw(st.integers(1, 4)) for _ in range(rank))


def _same(g: _Graph, shape, dtype):
    return [v for v in g.values if v[1] == shape and v[2] == dtype]


def _step(draw, g: _Graph) -> None:
    kind = draw(st.sampled_from(KINDS))
    # prefer recent values so the graph is a connected chain with side branches (fan-out)
    x = g.values[-1] if draw(st.integers(0, 9)) < 5 else draw(st.sampled_from(g.values))
    name, shape, dt = x
    t = _tt(shape, dt)
    is_float = dt in FLOATS
    if not shape and kind in ("reduce", "dot", "concatenate", "transpose", "slice"):
        kind = "unary"  # scalars (results of a full reduce) feed only shape-agnostic ops
    if kind == "unary":
        op = draw(st.sampled_from(_FLOAT_UNARY if is_float else _INT_UNARY))
        g.emit(f'"stablehlo.{op}"({name}) : ({t}) -> {t}', shape, dt)
    elif kind == "binary":
        op = draw(st.sampled_from(_FLOAT_BINARY if is_float else _INT_BINARY))
        y = draw(st.sampled_from(_same(g, shape, dt)))
        g.emit(f'"stablehlo.{op}"({name}, {y[0]}) : ({t}, {t}) -> {t}', shape, dt)
    elif kind == "select":
        y = draw(st.sampled_from(_same(g, shape, dt)))
        direction = draw(st.sampled_from(("GT", "LT", "GE", "EQ", "NE")))
        ct = "FLOAT" if is_float else "SIGNED"
        c = g.emit(
            f'"stablehlo.compare"({name}, {y[0]}) {{comparison_direction = #stablehlo<comparison_direction {direction}>, '
            f"compare_type = #stablehlo<comparison_type {ct}>}} : ({t}, {t}) -> {_tt(shape, 'i1')}",
            shape,
            "i1",
        )
        g.values.pop()  # predicates are not reused as data (keeps dtypes simple)
        g.emit(f'"stablehlo.select"({c[0]}, {name}, {y[0]}) : ({_tt(shape, "i1")}, {t}, {t}) -> {t}', shape, dt)
    elif kind == "reduce":
        dim = draw(st.integers(0, len(shape) - 1))
        op = draw(st.sampled_from(("add", "maximum")))
        out = tuple(d for i, d in enumerate(shape) if i != dim)
        st_ = _tt((), dt)
        init_val = "0" if not is_float else ("0.0" if op == "add" else "0xFF800000" if dt == "f32" else "-1.0e+4")
        if op == "maximum" and not is_float:
            init_val = "-2147483648"
        init = g.emit(f"stablehlo.constant dense<{init_val}> : {st_}", (), dt)
        g.values.pop()
        g.lines.append(
            f'    %{g.n} = "stablehlo.reduce"({name}, {init[0]}) ({{\n'
            f"    ^bb0(%ra{g.n}: {st_}, %rb{g.n}: {st_}):\n"
            f'      %rs{g.n} = "stablehlo.{op}"(%ra{g.n}, %rb{g.n}) : ({st_}, {st_}) -> {st_}\n'
            f'      "stablehlo.return"(%rs{g.n}) : ({st_}) -> ()\n'
            f"    }}) {{dimensions = array<i64: {dim}>}} : ({t}, {st_}) -> {_tt(out, dt)}"
        )
        g.values.append((f"%{g.n}", out, dt))
        g.n += 1
    elif kind == "dot":
        if len(shape) == 1:
            shape2 = (shape[0], draw(st.integers(1, 4)))
            cand = _same(g, shape2, dt)
            y = draw(st.sampled_from(cand)) if cand and draw(st.booleans()) else g.new_arg(shape2, dt)
            out = (shape2[1],)
            dims = "lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]"
        else:
            batch = shape[:-2]
            k = shape[-1]
            n = draw(st.integers(1, 4))
            shape2 = batch + (k, n)
            cand = _same(g, shape2, dt)
            y = draw(st.sampled_from(cand)) if cand and draw(st.booleans()) else g.new_arg(shape2, dt)
            out = batch + (shape[-2], n)
            bd = ", ".join(str(i) for i in range(len(batch)))
            lc, rc = len(shape) - 1, len(batch)
            dims = (f"lhs_batching_dimensions = [{bd}], rhs_batching_dimensions = [{bd}], " if batch else "") + (
                f"lhs_contracting_dimensions = [{lc}], rhs_contracting_dimensions = [{rc}]"
            )
        g.emit(
            f'"stablehlo.dot_general"({name}, {y[0]}) {{dot_dimension_numbers = #stablehlo.dot<{dims}>}} : '
            f"({t}, {_tt(y[1], dt)}) -> {_tt(out, dt)}",
            out,
            dt,
        )
    elif kind == "concatenate":
        dim = draw(st.integers(0, len(shape) - 1))
        cands = [
            v
            for v in g.values
            if v[2] == dt and len(v[1]) == len(shape) and all(a == b for i, (a, b) in enumerate(zip(v[1], shape)) if i != dim)
        ]
        ys = draw(st.lists(st.sampled_from(cands), min_size=1, max_size=3))
        parts = [x] + ys
        out = tuple(sum(p[1][dim] for p in parts) if i == dim else d for i, d in enumerate(shape))
        g.emit(
            f'"stablehlo.concatenate"({", ".join(p[0] for p in parts)}) {{dimension = {dim} : i64}} : '
            f"({', '.join(_tt(p[1], dt) for p in parts)}) -> {_tt(out, dt)}",
            out,
            dt,
        )
    elif kind == "transpose":
        perm = draw(st.permutations(list(range(len(shape)))))
        out = tuple(shape[p] for p in perm)
        perm_text = ", ".join(map(str, perm))
        g.emit(f'"stablehlo.transpose"({name}) {{permutation = array<i64: {perm_text}>}} : ({t}) -> {_tt(out, dt)}', out, dt)
    elif kind == "broadcast":
        if len(shape) >= 3:
            g.emit(f'"stablehlo.negate"({name}) : ({t}) -> {t}' if is_float else f'"stablehlo.abs"({name}) : ({t}) -> {t}', shape, dt)
            return
        lead = draw(st.integers(1, 3))
        out = (lead,) + shape
        dims = ", ".join(str(i + 1) for i in range(len(shape)))
        dims_text = ": " + dims if dims else ""
        g.emit(f'"stablehlo.broadcast_in_dim"({name}) {{broadcast_dimensions = array<i64{dims_text}>}} : ({t}) -> {_tt(out, dt)}', out, dt)
    elif kind == "slice":
        starts: list[int] = []
        limits: list[int] = []
        strides: list[int] = []
        for d in shape:
            s = draw(st.integers(0, d - 1))
            e = draw(st.integers(s + 1, d))
            k = draw(st.integers(1, 2))
            starts.append(s)
            limits.append(e)
            strides.append(k)
        out = tuple((hi - lo + step - 1) // step for lo, hi, step in zip(starts, limits, strides))
        j = lambda xs: ", ".join(map(str, xs))  # noqa: E731
        g.emit(
            f'"stablehlo.slice"({name}) {{start_indices = array<i64: {j(starts)}>, limit_indices = array<i64: {j(limits)}>, '
            f"strides = array<i64: {j(strides)}>}} : ({t}) -> {_tt(out, dt)}",
            out,
            dt,
        )
    elif kind == "reshape":
        size = 1
        for d in shape:
            size *= d
        out = draw(st.sampled_from([(size,), (1, size), (size, 1)]))
        g.emit(f'"stablehlo.reshape"({name}) : ({t}) -> {_tt(out, dt)}', out, dt)
    elif kind == "constant":
        v = draw(st.sampled_from(("0.5", "-2.0", "3.0", "1.0"))) if is_float else draw(st.sampled_from(("1", "-3", "7")))
        c = g.emit(f"stablehlo.constant dense<{v}> : {t}", shape, dt)
        op = "multiply" if draw(st.booleans()) else "add"
        g.emit(f'"stablehlo.{op}"({name}, {c[0]}) : ({t}, {t}) -> {t}', shape, dt)
    elif kind == "convert":
        if is_float:
            to = draw(st.sampled_from([f for f in FLOATS if f != dt]))
        else:
            to = draw(st.sampled_from(FLOATS))
        g.emit(f'"stablehlo.convert"({name}) : ({t}) -> {_tt(shape, to)}', shape, to)
    g.kinds.append(kind)


def _legalize_to_mhlo(text: str) -> str:
    from hilo_mlir.ir.binding import ir, make_context, passmanager

    with make_context():
        m = ir.Module.parse(text)
        passmanager.PassManager.parse("builtin.module(stablehlo-legalize-to-hlo)").run(m.operation)
        return str(m)


def build(g: _Graph, results) -> FuzzCase:
    """Render graph ``g`` returning ``results`` as a verified stablehlo module (and its mhlo twin)."""
    args = ", ".join(f"{n}: {_tt(s, d)}" for n, s, d in g.args)
    rtypes = ", ".join(_tt(r[1], r[2]) for r in results)
    body = "\n".join(g.lines)
    ret = ", ".join(r[0] for r in results)
    text = f"module {{\n  func.func @main({args}) -> ({rtypes}) {{\n{body}\n    return {ret} : {rtypes}\n  }}\n}}\n"
    mhlo = _legalize_to_mhlo(text)  # parses and verifies: a strategy bug fails here
    return FuzzCase(text, mhlo, tuple(g.kinds), tuple(a[2] for a in g.args))


@st.composite
def modules(draw, max_ops: int = 10, dtypes=DTYPES) -> FuzzCase:
    """A hypothesis strategy of :class:`FuzzCase` (valid stablehlo and mhlo ``main`` functions, 3..max_ops steps).

    Args:
        max_ops: at most this many graph steps (at least 1).
        dtypes: element types the arguments draw from.
    """
    g = _Graph()
    n_args = draw(st.integers(1, 3))
    base_dt = draw(st.sampled_from(dtypes))
    for _ in range(n_args):
        dt = base_dt if draw(st.booleans()) else draw(st.sampled_from(dtypes))
        g.new_arg(_shape(draw), dt)
    for _ in range(draw(st.integers(min(3, max_ops), max_ops))):
        _step(draw, g)
    last = g.values[-1]
    body = "\n".join(g.lines)
    # values nobody uses (sinks) are returned too, up to 3 results: no dead code by construction
    sinks = [
        v
        for v in g.values[:-1]
        if v[0].startswith("%") and not v[0].startswith("%arg") and not any(f"{v[0]}," in ln or f"{v[0]})" in ln for ln in g.lines)
    ]
    extra = draw(st.lists(st.sampled_from(sinks), max_size=2, unique_by=lambda v: v[0])) if sinks else []
    results = extra + [last]
    del body
    return build(g, results)


def tolerance(dtype, text: str = "") -> tuple[float, float]:
    """(rtol, atol) for comparing two evaluations of a function whose result has ``dtype``.

    The loosest float type computed anywhere in ``text`` (the module) decides
    for float results: an f32 result converted from an f16 value carries f16
    rounding. Integer results compare exactly.
    """
    import numpy as np

    name = str(np.dtype(dtype)) if not hasattr(dtype, "name") else dtype.name
    if "float" in name:
        if "xbf16>" in text or "<bf16>" in text:
            name = "bfloat16"
        elif "xf16>" in text or "<f16>" in text:
            name = "float16" if "bfloat16" not in name else name
    # 16-bit floats: the StableHLO interpreter accumulates dot_general/reduce in
    # the element type, the numpy backend (like XLA CPU) in f32; measured
    # differences reach ~1% after an exponential.
    if "bfloat16" in name:
        return 6e-2, 6e-2
    if "float16" in name:
        return 2e-2, 2e-2
    if "float" in name:
        return 1e-4, 1e-5
    return 0.0, 0.0
