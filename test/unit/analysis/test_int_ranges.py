"""The integer range analysis (``hilo_mlir.analysis``): soundness against the StableHLO interpreter, exact ranges.

* The lattice's transfer functions are checked exhaustively on small widths
  (every element of the operand sets, hypothesis picks the sets) against a
  model of the StableHLO semantics; the model itself is checked against the
  interpreter on i8/ui8.
* Random programs (``test_sixty_four_hack_programs``): every value the
  interpreter computes lies in the range the analysis gave it, on both
  dialects (the MHLO form gets the same ranges).
* Exact ranges of the cases the analysis is built for (the threefry counter,
  iota, conversions, masks, loops, reductions, calls, composites).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_sixty_four_hack_programs import programs

from hilo_mlir import testing
from hilo_mlir.analysis import int_bitwise as B
from hilo_mlir.analysis import int_lattice as L
from hilo_mlir.analysis.int_lattice import IntRange
from hilo_mlir.analysis.int_ranges import IntRanges
from hilo_mlir.ir.binding import ir, make_context, passmanager
from hilo_mlir.ir.dialects import MHLO, STABLEHLO

# --------------------------------------------------------------------------- the StableHLO model


def _val(p, w, s):
    p &= (1 << w) - 1
    return p - (1 << w) if s and w > 1 and p >> (w - 1) else p


def model(op, w, s, *xs):
    """The StableHLO result of ``op`` on ``w``-bit values ``xs`` (read signed if ``s``)."""
    m = (1 << w) - 1
    p = [x & m for x in xs]
    v = lambda q: _val(q, w, s)  # noqa: E731
    if op == "add":
        return v(xs[0] + xs[1])
    if op == "subtract":
        return v(xs[0] - xs[1])
    if op == "multiply":
        return v(xs[0] * xs[1])
    if op == "negate":
        return v(-xs[0])
    if op == "abs":
        return v(abs(xs[0])) if s else xs[0]
    if op == "sign":
        return (xs[0] > 0) - (xs[0] < 0)
    if op == "and":
        return v(p[0] & p[1])
    if op == "or":
        return v(p[0] | p[1])
    if op == "xor":
        return v(p[0] ^ p[1])
    if op == "not":
        return v(~p[0])
    if op == "popcnt":
        return v(bin(p[0]).count("1"))
    if op == "count_leading_zeros":
        return v(w - p[0].bit_length())
    if op == "shift_left":
        return v(p[0] << p[1]) if p[1] < w else 0
    if op == "shift_right_logical":
        return v(p[0] >> p[1]) if p[1] < w else 0
    if op == "shift_right_arithmetic":
        return v(_val(p[0], w, True) >> min(p[1], w - 1))
    if op == "maximum":
        return max(xs)
    if op == "minimum":
        return min(xs)
    if op == "divide":
        x, y = xs
        q = abs(x) // abs(y)
        return v(q if (x >= 0) == (y > 0) else -q)
    if op == "remainder":
        x, y = xs
        r = abs(x) % abs(y)
        return v(r if x >= 0 else -r)
    raise KeyError(op)


UNARY = {"negate": L.negate, "abs": L.abs_, "sign": L.sign, "not": B.not_, "popcnt": B.popcnt, "count_leading_zeros": B.count_leading_zeros}
BINARY = {
    "add": L.add,
    "subtract": L.subtract,
    "multiply": L.multiply,
    "and": B.and_,
    "or": B.or_,
    "xor": B.xor,
    "shift_left": B.shift_left,
    "shift_right_logical": B.shift_right_logical,
    "shift_right_arithmetic": B.shift_right_arithmetic,
    "maximum": L.maximum,
    "minimum": L.minimum,
    "divide": L.divide,
    "remainder": L.remainder,
}


def of_values(w, s, vals):
    """The range a constant with elements ``vals`` gets."""
    m = (1 << w) - 1
    ones, zeros = m, m
    for x in vals:
        ones &= x & m
        zeros &= ~x & m
    return IntRange.constant(w, s, min(vals), max(vals), ones, zeros)


@st.composite
def value_sets(draw, w, s):
    lo, hi = L.type_min(w, s), L.type_max(w, s)
    if draw(st.booleans()):  # an interval
        a = draw(st.integers(lo, hi))
        return list(range(a, min(hi, a + draw(st.integers(0, 9))) + 1))
    return draw(st.lists(st.integers(lo, hi), min_size=1, max_size=8, unique=True))


@st.composite
def small_cases(draw):
    w = draw(st.integers(1, 6))
    s = w > 1 and draw(st.booleans())
    op = draw(st.sampled_from(sorted(UNARY) + sorted(BINARY)))
    return w, s, op, draw(value_sets(w, s)), draw(value_sets(w, s))


@settings(max_examples=400, deadline=None)
@given(small_cases())
def test_transfer_functions_contain_every_result(case):
    w, s, op, xs, ys = case
    a, b = of_values(w, s, xs), of_values(w, s, ys)
    for x in xs:
        assert a.contains(x)
    if op in UNARY:
        r, pts = UNARY[op](a), [(x,) for x in xs]
    else:
        if op in ("divide", "remainder"):  # the interpreter traps on a zero divisor; INT_MIN / -1 wraps
            ys = [y for y in ys if y != 0] or [1]
            b = of_values(w, s, ys)
        r, pts = BINARY[op](a, b), list(itertools.product(xs, ys))
    for p in pts:
        want = model(op, w, s, *p)
        assert r.contains(want), (op, w, s, a, b, p, want, r)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 6), st.booleans(), st.integers(1, 7), st.booleans(), st.data())
def test_convert_and_bitcast_contain_every_result(w, s, tw, ts, data):
    s, ts = s and w > 1, ts and tw > 1
    xs = data.draw(value_sets(w, s))
    a = of_values(w, s, xs)
    conv, cast = L.convert(a, tw, ts), L.bitcast(a, not s and w > 1)
    for x in xs:
        want = x if w == 1 else _val(x, tw, ts) if tw > 1 else x & 1
        assert conv.contains(want), (a, tw, ts, x, conv)
        assert cast.contains(_val(x, w, not s and w > 1)), (a, x, cast)


def test_the_model_is_the_interpreter_on_8_bits():
    rng = np.random.default_rng(0)
    for ty, dt, s in (("i8", np.int8, True), ("ui8", np.uint8, False)):
        x = rng.integers(-128 if s else 0, 128 if s else 256, 64).astype(dt)
        y = rng.integers(-128 if s else 0, 128 if s else 256, 64).astype(dt)
        y[:8] = [0, 1, 7, 8, 9, 200 if not s else -1, 64, 3]
        ops = sorted(UNARY) + sorted(BINARY)
        if not s:
            ops = [o for o in ops if o not in ("abs", "sign")]
        body, rets = [], []
        for i, op in enumerate(ops):
            if op in ("divide", "remainder"):
                body.append(f"  %{i} = stablehlo.{op} %x, %d : tensor<64x{ty}>")
            elif op in UNARY:
                body.append(f"  %{i} = stablehlo.{op} %x : tensor<64x{ty}>")
            else:
                body.append(f"  %{i} = stablehlo.{op} %x, %y : tensor<64x{ty}>")
            rets.append(f"%{i}")
        sig = ", ".join([f"tensor<64x{ty}>"] * len(ops))
        text = (
            f"func.func @main(%x: tensor<64x{ty}>, %y: tensor<64x{ty}>, %d: tensor<64x{ty}>) -> ({sig}) {{\n"
            + "\n".join(body)
            + f"\n  return {', '.join(rets)} : {sig}\n}}"
        )
        d = np.where(y == 0, 1, y).astype(dt)
        if s:
            d = np.where((x == -128) & (d == -1), 1, d).astype(dt)
        outs = testing.evaluate(text, [x, y, d])
        for op, out in zip(ops, outs):
            for j in range(64):
                args = (int(x[j]),) if op in UNARY else (int(x[j]), int(d[j] if op in ("divide", "remainder") else y[j]))
                assert int(out[j]) == model(op, 8, s, *args), (ty, op, args, int(out[j]))


# --------------------------------------------------------------------------- random programs


def _returned_ranges(text, d=STABLEHLO, to_mhlo=False):
    with make_context():
        m = ir.Module.parse(text)
        if to_mhlo:
            passmanager.PassManager.parse("builtin.module(stablehlo-legalize-to-hlo)").run(m.operation)
        before = str(m)
        r = IntRanges(m.operation, d)
        assert str(m) == before  # the analysis never changes the IR
        f = m.body.operations[0]
        ret = list(f.regions[0].blocks[0].operations)[-1]
        return [r.range_of(v) for v in ret.operands]


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs())
def test_every_computed_value_lies_in_its_range(prog):
    text, inputs = prog
    rngs = _returned_ranges(text)
    for i, (out, r) in enumerate(zip(testing.evaluate(text, inputs), rngs)):
        for x in out.reshape(-1):
            assert r.contains(int(x)), f"result #{i}: {int(x)} not in {r!r}\n{text}\ninputs: {inputs}"


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs(main_types=("i64", "ui64", "i32")))
def test_mhlo_twin_gives_the_same_ranges(prog):
    text, _ = prog
    assert _returned_ranges(text, MHLO, to_mhlo=True) == _returned_ranges(text)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs(n_ops=(4, 20)))
def test_every_computed_value_lies_in_its_range_long(prog):
    test_every_computed_value_lies_in_its_range.hypothesis.inner_test(prog)


@pytest.mark.slow
@settings(max_examples=20000, deadline=None)
@given(small_cases())
def test_transfer_functions_contain_every_result_long(case):
    test_transfer_functions_contain_every_result.hypothesis.inner_test(case)


# --------------------------------------------------------------------------- exact ranges


def ranges_of(text, d=STABLEHLO, names=None):
    """``{SSA name: str(range)}`` for the ops' results (``%name`` as written; ``#i`` for multi-results)."""
    with make_context():
        m = ir.Module.parse(text)
        r = IntRanges(m.operation, d)
        out = {}

        def visit(op):
            for _i, v in enumerate(op.results):
                rng = r.range_of(v)
                if rng is not None:
                    out.setdefault(op.name.split(".")[-1], []).append(str(rng))
            return ir.WalkResult.ADVANCE

        m.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
        return out, r


def returned(text, d=STABLEHLO, func="main"):
    with make_context():
        m = ir.Module.parse(text)
        r = IntRanges(m.operation, d)
        f = next(o for o in m.body.operations if o.attributes["sym_name"].value == func)
        ret = list(f.regions[0].blocks[0].operations)[-1]
        return [r.range_of(v) for v in ret.operands]


THREEFRY = """
func.func @main() -> (tensor<4x16xui64>, tensor<4x16xui64>, tensor<4x16xui32>) {
  %c32 = stablehlo.constant dense<32> : tensor<ui64>
  %c1 = stablehlo.constant dense<1> : tensor<ui64>
  %c16 = stablehlo.constant dense<16> : tensor<ui64>
  %i0 = stablehlo.iota dim = 0 : tensor<4x16xui64>
  %i1 = stablehlo.iota dim = 1 : tensor<4x16xui64>
  %b16 = stablehlo.broadcast_in_dim %c16, dims = [] : (tensor<ui64>) -> tensor<4x16xui64>
  %m0 = stablehlo.multiply %b16, %i0 : tensor<4x16xui64>
  %b1 = stablehlo.broadcast_in_dim %c1, dims = [] : (tensor<ui64>) -> tensor<4x16xui64>
  %m1 = stablehlo.multiply %b1, %i1 : tensor<4x16xui64>
  %ctr = stablehlo.add %m0, %m1 : tensor<4x16xui64>
  %b32 = stablehlo.broadcast_in_dim %c32, dims = [] : (tensor<ui64>) -> tensor<4x16xui64>
  %hi = stablehlo.shift_right_logical %ctr, %b32 : tensor<4x16xui64>
  %lo = stablehlo.convert %ctr : (tensor<4x16xui64>) -> tensor<4x16xui32>
  return %ctr, %hi, %lo : tensor<4x16xui64>, tensor<4x16xui64>, tensor<4x16xui32>
}"""


def test_threefry_counter_is_below_64_and_its_high_half_is_zero():
    ctr, hi, lo = returned(THREEFRY)
    assert (ctr.lo, ctr.hi, hi.lo, hi.hi, lo.lo, lo.hi) == (0, 63, 0, 0, 0, 63)
    assert ctr.zeros == ((1 << 64) - 1) & ~63  # bits 6..63 known zero
    assert hi.zeros == (1 << 64) - 1 and lo.width == 32 and not lo.signed
    mh = returned(_to_mhlo(THREEFRY), MHLO)
    assert [str(r) for r in mh] == ["[0, 63]", "[0, 0]", "[0, 63]"]


def _to_mhlo(text):
    with make_context():
        m = ir.Module.parse(text)
        passmanager.PassManager.parse("builtin.module(stablehlo-legalize-to-hlo)").run(m.operation)
        return str(m)


LEAVES = """
func.func @main(%a: tensor<3xi64>, %u: tensor<3xui32>, %s: tensor<3xi32>, %f: tensor<3xf32>) -> (tensor<3xi64>, tensor<3xui64>, tensor<3xi64>, tensor<3xi32>, tensor<3xui64>, tensor<3xi1>, tensor<1000xui8>, tensor<1000xi64>, tensor<0xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) {
  %c = stablehlo.constant dense<[-5, 7, 2147483648]> : tensor<3xi64>
  %w = stablehlo.convert %u : (tensor<3xui32>) -> tensor<3xui64>
  %ws = stablehlo.convert %s : (tensor<3xi32>) -> tensor<3xi64>
  %n = stablehlo.convert %a : (tensor<3xi64>) -> tensor<3xi32>
  %big = stablehlo.constant dense<18446744073709551615> : tensor<3xui64>
  %b = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
  %i8 = stablehlo.iota dim = 0 : tensor<1000xui8>
  %i64 = stablehlo.iota dim = 0 : tensor<1000xi64>
  %e = stablehlo.iota dim = 0 : tensor<0xi64>
  %m = stablehlo.constant dense<255> : tensor<3xi64>
  %masked = stablehlo.and %a, %m : tensor<3xi64>
  %sum = stablehlo.add %ws, %ws : tensor<3xi64>
  %fc = stablehlo.convert %f : (tensor<3xf32>) -> tensor<3xi64>
  return %c, %w, %ws, %n, %big, %b, %i8, %i64, %e, %masked, %sum, %fc : tensor<3xi64>, tensor<3xui64>, tensor<3xi64>, tensor<3xi32>, tensor<3xui64>, tensor<3xi1>, tensor<1000xui8>, tensor<1000xi64>, tensor<0xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>
}"""


def test_constants_iota_and_conversions():
    r = returned(LEAVES)
    assert [str(x) for x in r] == [
        "[-5, 2147483648]",  # constant: min and max
        "[0, 4294967295]",  # convert from ui32: that type's range
        "[-2147483648, 2147483647]",  # convert from i32
        "[-2147483648, 2147483647]",  # i64 -> i32 of an unknown value: the full i32 range
        "[18446744073709551615, 18446744073709551615]",
        "[0, 1]",  # i1 constant
        "[0, 255]",  # iota of 1000 in ui8 wraps: full range
        "[0, 999]",
        "no elements",
        "[0, 255]",  # a mask bounds an unknown value
        "[-4294967296, 4294967294]",  # interval arithmetic
        "[-9223372036854775808, 9223372036854775807]",  # float -> int: unknown
    ]
    assert r[0].ones == 0 and r[0].zeros == 0  # -5, 7, 2^31 share no bit
    assert r[9].zeros == ((1 << 64) - 1) & ~255


ELEMENTWISE = """
func.func @main(%x: tensor<4xi32>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) {
  %i = stablehlo.iota dim = 0 : tensor<4xi64>
  %xw = stablehlo.convert %x : (tensor<4xi32>) -> tensor<4xi64>
  %c3 = stablehlo.constant dense<3> : tensor<4xi64>
  %c40 = stablehlo.constant dense<40> : tensor<4xi64>
  %c100 = stablehlo.constant dense<100> : tensor<4xi64>
  %neg = stablehlo.constant dense<-8> : tensor<4xi64>
  %0 = stablehlo.shift_left %i, %c3 : tensor<4xi64>
  %1 = stablehlo.shift_right_arithmetic %xw, %c40 : tensor<4xi64>
  %2 = stablehlo.shift_right_logical %neg, %c40 : tensor<4xi64>
  %3 = stablehlo.clamp %neg, %xw, %c100 : tensor<4xi64>
  %4 = stablehlo.maximum %i, %neg : tensor<4xi64>
  %p = stablehlo.compare LT, %xw, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  %5 = stablehlo.select %p, %i, %c100 : tensor<4xi1>, tensor<4xi64>
  %6 = stablehlo.popcnt %i : tensor<4xi64>
  %7 = stablehlo.count_leading_zeros %i : tensor<4xi64>
  %8 = stablehlo.not %i : tensor<4xi64>
  %9 = stablehlo.xor %i, %c100 : tensor<4xi64>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>
}"""


def test_shifts_bits_and_selection():
    r = returned(ELEMENTWISE)
    assert [str(x) for x in r] == [
        "[0, 24]",  # iota << 3
        "[-1, 0]",  # an i32 value >> 40 (arithmetic): its sign
        "[16777215, 16777215]",  # -8 >>> 40 (logical) = 2^24 - 1
        "[-8, 100]",
        "[0, 3]",
        "[0, 100]",
        "[0, 2]",  # popcnt of 0..3
        "[62, 64]",  # clz of 0..3
        "[-4, -1]",
        "[100, 103]",  # 0..3 ^ 100 (0b1100100): only the low two bits vary
    ]
    assert r[0].trailing_zeros() == 3


LOOPS = """
func.func @main(%n: tensor<i32>) -> (tensor<4xui64>, tensor<4xui64>, tensor<ui64>, tensor<ui64>, tensor<i32>) {
  %z = stablehlo.iota dim = 0 : tensor<4xui64>
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %w:3 = stablehlo.while(%i = %i0, %x = %z, %y = %z) : tensor<i32>, tensor<4xui64>, tensor<4xui64>
   cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    %k = stablehlo.constant dense<7> : tensor<4xui64>
    %m = stablehlo.constant dense<255> : tensor<4xui64>
    %s = stablehlo.add %x, %k : tensor<4xui64>
    %x2 = stablehlo.and %s, %m : tensor<4xui64>
    %y2 = stablehlo.add %y, %k : tensor<4xui64>
    stablehlo.return %i2, %x2, %y2 : tensor<i32>, tensor<4xui64>, tensor<4xui64>
  }
  %zero = stablehlo.constant dense<0> : tensor<ui64>
  %mx = stablehlo.reduce(%z init: %zero) applies stablehlo.maximum across dimensions = [0] : (tensor<4xui64>, tensor<ui64>) -> tensor<ui64>
  %sm = stablehlo.reduce(%z init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<4xui64>, tensor<ui64>) -> tensor<ui64>
  return %w#1, %w#2, %mx, %sm, %w#0 : tensor<4xui64>, tensor<4xui64>, tensor<ui64>, tensor<ui64>, tensor<i32>
}"""


def test_loops_reach_a_fixed_point_or_widen():
    with make_context():
        m = ir.Module.parse(LOOPS)
        r = IntRanges(m.operation, STABLEHLO, max_rounds=4)
        ret = list(m.body.operations[0].regions[0].blocks[0].operations)[-1]
        got = [str(r.range_of(v)) for v in ret.operands]
        assert r.rounds <= 2 * 8  # each fixed point: at most max_rounds + a narrowing check + slack
    assert got == [
        "[0, 255]",  # x = (x + 7) & 255: widened, then narrowed back by the mask
        "[0, 18446744073709551615]",  # y = y + 7: widened
        "[0, 3]",  # max-reduce of 0..3
        "[0, 18446744073709551615]",  # add-reduce: widened
        "[-2147483648, 2147483647]",  # the counter
    ]


CALLS = """
func.func @main() -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) {
  %i = stablehlo.iota dim = 0 : tensor<4xi64>
  %c = stablehlo.constant dense<100> : tensor<4xi64>
  %0 = func.call @twice(%i) : (tensor<4xi64>) -> tensor<4xi64>
  %1 = func.call @twice(%c) : (tensor<4xi64>) -> tensor<4xi64>
  %2 = stablehlo.composite "my.inc" %i {decomposition = @inc} : (tensor<4xi64>) -> tensor<4xi64>
  return %0, %1, %2 : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>
}
func.func private @twice(%x: tensor<4xi64>) -> tensor<4xi64> {
  %0 = stablehlo.add %x, %x : tensor<4xi64>
  return %0 : tensor<4xi64>
}
func.func private @inc(%x: tensor<4xi64>) -> tensor<4xi64> {
  %c = stablehlo.constant dense<1> : tensor<4xi64>
  %0 = stablehlo.add %x, %c : tensor<4xi64>
  return %0 : tensor<4xi64>
}
func.func @other(%x: tensor<4xi64>) -> tensor<4xi64> {
  %0 = func.call @twice(%x) : (tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}"""


def test_calls_and_composites_see_their_operands():
    assert [str(x) for x in returned(CALLS)] == ["[0, 6]", "[200, 200]", "[1, 4]"]
    with make_context():
        m = ir.Module.parse(CALLS)
        r = IntRanges(m.operation, STABLEHLO)
        assert r.entry_functions == {"main", "other"}
        twice = next(o for o in m.body.operations if o.attributes["sym_name"].value == "twice")
        arg = twice.regions[0].blocks[0].arguments[0]
        assert r.range_of(arg).is_full  # @other calls it with an unknown value: the join
        # One function alone: its arguments are unknown, its callees analysed from its calls.
        main = m.body.operations[0].operation
        rm = IntRanges(main, STABLEHLO)
        assert rm.entry_functions == {"main"} and str(rm.range_of(arg)) == "[0, 100]"  # joined over its two calls


MHLO_REGIONS = """
func.func @main(%p: tensor<i1>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) {
  %i = "mhlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<4xi64>
  %c = mhlo.constant dense<10> : tensor<4xi64>
  %f = "mhlo.fusion"(%i, %c) ({
  ^bb0(%a: tensor<4xi64>, %b: tensor<4xi64>):
    %0 = mhlo.add %a, %b : tensor<4xi64>
    mhlo.return %0 : tensor<4xi64>
  }) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %t = "mhlo.tuple"(%i, %c) : (tensor<4xi64>, tensor<4xi64>) -> tuple<tensor<4xi64>, tensor<4xi64>>
  %g = "mhlo.get_tuple_element"(%t) <{index = 1 : i32}> : (tuple<tensor<4xi64>, tensor<4xi64>>) -> tensor<4xi64>
  %if = "mhlo.if"(%p) ({
    mhlo.return %i : tensor<4xi64>
  }, {
    mhlo.return %c : tensor<4xi64>
  }) : (tensor<i1>) -> tensor<4xi64>
  return %f, %g, %if : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>
}"""


def test_mhlo_fusion_tuple_and_if():
    assert [str(x) for x in returned(MHLO_REGIONS, MHLO)] == ["[10, 13]", "[10, 10]", "[0, 10]"]


def test_arguments_are_unknown_and_no_handles_are_kept():
    text = "func.func @main(%a: tensor<2xui64>) -> tensor<2xui64> {\n  return %a : tensor<2xui64>\n}"
    with make_context():
        m = ir.Module.parse(text)
        r = IntRanges(m.operation.regions[0].blocks[0].operations[0], None)  # a func.func; d=None reads both
        assert r.range_of(m.body.operations[0].regions[0].blocks[0].arguments[0]) == IntRange.full(64, False)
    for v in vars(r).values():  # plain data only: usable after the IR is gone
        assert isinstance(v, (int, dict, frozenset)), type(v)
    assert all(isinstance(k, int) for k in r._ranges)


def _nested_loops(depth: int) -> str:
    def loop(k, x):
        if k == 0:
            return [f"%y0 = stablehlo.add {x}, %k : tensor<4xui64>"], "%y0"
        inner, res = loop(k - 1, f"%x{k}")
        return (
            [
                f"%w{k}:2 = stablehlo.while(%i{k} = %i0, %x{k} = {x}) : tensor<i32>, tensor<4xui64>",
                " cond {",
                f"  %c{k} = stablehlo.compare LT, %i{k}, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>",
                f"  stablehlo.return %c{k} : tensor<i1>",
                "} do {",
                f"  %j{k} = stablehlo.add %i{k}, %one : tensor<i32>",
            ]
            + ["  " + line for line in inner]
            + [f"  stablehlo.return %j{k}, {res} : tensor<i32>, tensor<4xui64>", "}"],
            f"%w{k}#1",
        )

    body, res = loop(depth, "%z")
    return (
        "func.func @main(%n: tensor<i32>) -> tensor<4xui64> {\n %z = stablehlo.iota dim = 0 : tensor<4xui64>\n"
        " %i0 = stablehlo.constant dense<0> : tensor<i32>\n %one = stablehlo.constant dense<1> : tensor<i32>\n"
        " %k = stablehlo.constant dense<1> : tensor<4xui64>\n" + "\n".join(body) + f"\n return {res} : tensor<4xui64>\n}}"
    )


def test_nested_loops_cost_grows_linearly_past_the_depth_limit():
    rounds = []
    for depth in (4, 5, 6):
        with make_context():
            m = ir.Module.parse(_nested_loops(depth))
            r = IntRanges(m.operation, STABLEHLO)
            rounds.append(r.rounds)
            ret = list(m.body.operations[0].regions[0].blocks[0].operations)[-1]
            assert r.range_of(ret.operands[0]).is_full  # the counter grows: unknown
    assert rounds[2] - rounds[1] == rounds[1] - rounds[0] <= 200, rounds
