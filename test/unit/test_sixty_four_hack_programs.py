"""Random integer programs for the range analysis and sixty-four-hack property tests (a helper; no tests here).

:func:`programs` draws a StableHLO ``@main`` over ``tensor<6xT>`` values of
integer element types: constants (small, near the 32-bit bounds, anywhere in
the type), ``iota``, broadcasts, the element-wise integer ops (arithmetic,
bitwise, the three shifts, popcnt, clz, divide/remainder by a non-zero
divisor), ``select``/``compare``, ``clamp``, ``maximum``/``minimum``,
``convert`` between integer types, slice + concatenate, a ``reduce``
broadcast back, and ``while`` loops that update a carried value. Every value
is returned, so a test sees all of them.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

N = 6  # elements per value

#: element type -> (numpy dtype, signed, width)
TYPES = {
    "i64": (np.int64, True, 64),
    "ui64": (np.uint64, False, 64),
    "i32": (np.int32, True, 32),
    "ui32": (np.uint32, False, 32),
    "i16": (np.int16, True, 16),
    "ui8": (np.uint8, False, 8),
    "i8": (np.int8, True, 8),
}


def bounds(t: str) -> tuple[int, int]:
    _, signed, w = TYPES[t]
    return (-(1 << (w - 1)), (1 << (w - 1)) - 1) if signed else (0, (1 << w) - 1)


def values(t: str, fit32: bool = False):
    """A strategy for one element value of type ``t``, biased to interesting spots.

    ``fit32``: only values of the type's 32-bit narrowing (``i64``: i32's range, ``ui64``: ui32's).
    """
    lo, hi = bounds(t)
    if fit32:
        lo, hi = max(lo, -(1 << 31)), min(hi, (1 << 31) - 1 if TYPES[t][1] else (1 << 32) - 1)
    spots = [
        v
        for v in (
            0,
            1,
            2,
            3,
            7,
            31,
            32,
            33,
            63,
            64,
            -1,
            -2,
            255,
            (1 << 31) - 1,
            1 << 31,
            (1 << 32) - 1,
            1 << 32,
            -(1 << 31),
            -(1 << 31) - 1,
            lo,
            hi,
            lo + 1,
            hi - 1,
        )
        if lo <= v <= hi
    ]
    return st.one_of(st.sampled_from(spots), st.integers(-8, 8).filter(lambda v: lo <= v <= hi), st.integers(lo, hi))


def _dense(vals) -> str:
    return "dense<[" + ", ".join(str(int(v)) for v in vals) + "]>"


BINARY = [
    "add",
    "subtract",
    "multiply",
    "and",
    "or",
    "xor",
    "maximum",
    "minimum",
    "shift_left",
    "shift_right_logical",
    "shift_right_arithmetic",
]
UNARY = ["not", "negate", "popcnt", "count_leading_zeros"]
SIGNED_UNARY = ["abs", "sign"]
KINDS = [
    "const",
    "iota",
    "bcast",
    "binary",
    "binary",
    "binary",
    "unary",
    "divide",
    "select",
    "clamp",
    "convert",
    "concat",
    "reduce",
    "while",
]


@st.composite
def programs(draw, main_types=tuple(TYPES), arg_types=None, n_ops=(2, 12), kinds=KINDS, fit32_constants=False):
    """Draw ``(text, inputs)``: a module and a list of numpy inputs for ``@main``.

    Args:
        main_types: element types the program computes in.
        arg_types: element types of the arguments (default: ``main_types``); an
            argument of another type is converted first.
        n_ops: (min, max) number of constructs.
        fit32_constants: constants only take values of the 32-bit narrowing of their type.
    """
    t0 = draw(st.sampled_from(list(main_types)))
    lines: list[str] = []
    vals: dict[str, list[str]] = {}
    k = [0]

    def new(t):
        k[0] += 1
        name = f"%v{k[0]}"
        vals.setdefault(t, []).append(name)
        return name

    def ty(t):
        return f"tensor<{N}x{t}>"

    def pick(t):
        if not vals.get(t):
            return const(t)
        return draw(st.sampled_from(vals[t][-6:] if draw(st.booleans()) else vals[t]))

    def const(t, elems=None):
        elems = elems if elems is not None else [draw(values(t, fit32_constants)) for _ in range(N)]
        v = new(t)
        lines.append(f"  {v} = stablehlo.constant {_dense(elems)} : {ty(t)}")
        return v

    args, inputs = [], []
    atypes = list(arg_types or main_types)
    for i in range(draw(st.integers(1, 2))):
        at = draw(st.sampled_from(atypes))
        args.append(f"%a{i}: {ty(at)}")
        inputs.append(np.array([draw(values(at)) for _ in range(N)], dtype=TYPES[at][0]))
        if at != t0 and draw(st.booleans()):
            v = new(t0)
            lines.append(f"  {v} = stablehlo.convert %a{i} : ({ty(at)}) -> {ty(t0)}")
        else:
            vals.setdefault(at, []).append(f"%a{i}")
    for _ in range(draw(st.integers(*n_ops))):
        t = t0 if draw(st.integers(0, 3)) else draw(st.sampled_from(list(main_types)))
        kind = draw(st.sampled_from(list(kinds)))
        signed = TYPES[t][1]
        if kind == "const":
            const(t)
        elif kind == "iota":
            lines.append(f"  {new(t)} = stablehlo.iota dim = 0 : {ty(t)}")
        elif kind == "bcast":
            c = f"%s{k[0]}"
            lines.append(f"  {c} = stablehlo.constant dense<{draw(values(t, fit32_constants))}> : tensor<{t}>")
            lines.append(f"  {new(t)} = stablehlo.broadcast_in_dim {c}, dims = [] : (tensor<{t}>) -> {ty(t)}")
        elif kind == "binary":
            op = draw(st.sampled_from(BINARY))
            a, b = pick(t), pick(t)
            lines.append(f"  {new(t)} = stablehlo.{op} {a}, {b} : {ty(t)}")
        elif kind == "unary":
            op = draw(st.sampled_from(UNARY + (SIGNED_UNARY if signed else [])))
            a = pick(t)
            lines.append(f"  {new(t)} = stablehlo.{op} {a} : {ty(t)}")
        elif kind == "divide":  # divisor in [1, 127]: the interpreter traps on x / 0
            a, b = pick(t), pick(t)
            m, one, d0, d = f"%m{k[0]}", f"%o{k[0]}", f"%d{k[0]}", f"%e{k[0]}"
            lines += [
                f"  {m} = stablehlo.constant dense<127> : {ty(t)}",
                f"  {one} = stablehlo.constant dense<1> : {ty(t)}",
                f"  {d0} = stablehlo.and {b}, {m} : {ty(t)}",
                f"  {d} = stablehlo.or {d0}, {one} : {ty(t)}",
            ]
            op = draw(st.sampled_from(["divide", "remainder"]))
            lines.append(f"  {new(t)} = stablehlo.{op} {a}, {d} : {ty(t)}")
        elif kind == "select":
            a, b, c, d = pick(t), pick(t), pick(t), pick(t)
            p = f"%p{k[0]}"
            cmp = draw(st.sampled_from(["LT", "EQ", "GE"]))
            lines.append(f"  {p} = stablehlo.compare {cmp}, {a}, {b} : ({ty(t)}, {ty(t)}) -> tensor<{N}xi1>")
            lines.append(f"  {new(t)} = stablehlo.select {p}, {c}, {d} : tensor<{N}xi1>, {ty(t)}")
        elif kind == "clamp":
            lo, x, hi = pick(t), pick(t), pick(t)
            lines.append(f"  {new(t)} = stablehlo.clamp {lo}, {x}, {hi} : {ty(t)}")
        elif kind == "convert":
            src = draw(st.sampled_from([s for s in vals if s != t] or [t]))
            a = pick(src)
            lines.append(f"  {new(t)} = stablehlo.convert {a} : ({ty(src)}) -> {ty(t)}")
        elif kind == "concat":
            a, b = pick(t), pick(t)
            s1, s2 = f"%l{k[0]}", f"%r{k[0]}"
            lines.append(f"  {s1} = stablehlo.slice {a} [0:3] : ({ty(t)}) -> tensor<3x{t}>")
            lines.append(f"  {s2} = stablehlo.slice {b} [3:6] : ({ty(t)}) -> tensor<3x{t}>")
            lines.append(f"  {new(t)} = stablehlo.concatenate {s2}, {s1}, dim = 0 : (tensor<3x{t}>, tensor<3x{t}>) -> {ty(t)}")
        elif kind == "reduce":
            a = pick(t)
            op = draw(st.sampled_from(["add", "maximum", "minimum", "and", "or"]))
            init = draw(values(t, fit32_constants))
            z, r = f"%z{k[0]}", f"%q{k[0]}"
            lines.append(f"  {z} = stablehlo.constant dense<{init}> : tensor<{t}>")
            lines.append(
                f"  {r} = stablehlo.reduce({a} init: {z}) applies stablehlo.{op} across dimensions = [0] : ({ty(t)}, tensor<{t}>) -> tensor<{t}>"
            )
            lines.append(f"  {new(t)} = stablehlo.broadcast_in_dim {r}, dims = [] : (tensor<{t}>) -> {ty(t)}")
        elif kind == "while":
            x, c = pick(t), pick(t)
            trips = draw(st.integers(0, 5))
            op = draw(st.sampled_from(["add", "multiply", "xor", "shift_left", "maximum", "subtract", "or"]))
            j = k[0]
            w = f"%w{j}"
            lines += [
                f"  %i0_{j} = stablehlo.constant dense<0> : tensor<i32>",
                f"  {w}:2 = stablehlo.while(%it{j} = %i0_{j}, %x{j} = {x}) : tensor<i32>, {ty(t)}",
                "   cond {",
                f"    %n{j} = stablehlo.constant dense<{trips}> : tensor<i32>",
                f"    %cc{j} = stablehlo.compare LT, %it{j}, %n{j} : (tensor<i32>, tensor<i32>) -> tensor<i1>",
                f"    stablehlo.return %cc{j} : tensor<i1>",
                "  } do {",
                f"    %one{j} = stablehlo.constant dense<1> : tensor<i32>",
                f"    %it2{j} = stablehlo.add %it{j}, %one{j} : tensor<i32>",
                f"    %x2{j} = stablehlo.{op} %x{j}, {c} : {ty(t)}",
                f"    stablehlo.return %it2{j}, %x2{j} : tensor<i32>, {ty(t)}",
                "  }",
            ]
            lines.append(f"  {new(t)} = stablehlo.reshape {w}#1 : ({ty(t)}) -> {ty(t)}")
    results = [(v, t) for t, names in vals.items() for v in names if not v.startswith("%a")]
    if not results:
        results = [(const(t0), t0)]
    sig = ", ".join(ty(t) for _, t in results)
    body = "\n".join(lines)
    text = f"func.func @main({', '.join(args)}) -> ({sig}) {{\n{body}\n  return {', '.join(v for v, _ in results)} : {sig}\n}}\n"
    return text, inputs
