"""Spine steps 6 and 7: ``lower-complex`` and ``lower-complex-extra`` (+ ``stablehlo-`` twins).

Source: seed 004 steps 6/7 (``mhlo::createLowerComplexPass`` gate cfg[0x11A],
default-on per the seed's NOTE; ``mhlo::createLowerComplexExtraPass`` gate
cfg[0x11B]); behaviour: DESIGN.md catalogue rows 6 and 7 (our definition).

Both rewrite elementwise arithmetic on ``tensor<... x complex<fT>>`` (f32/f64
parts, any static or dynamic rank) into arithmetic on the real and imaginary
parts (``real``/``imag`` extract them, ``complex`` rebuilds the result). Parts
of a value that is itself produced by a ``complex`` op are read from its
operands, so chains of lowered ops stay real:

* step 6 (``lower-complex``): the op set of upstream MLIR-HLO's
  ``lower-complex`` patterns (the pass seed 004 names,
  ``mhlo::createLowerComplexPass``) plus ``negate``: ``add``, ``subtract``,
  ``multiply`` ``(ar*br - ai*bi, ar*bi + ai*br)``, ``divide`` by Smith's
  algorithm (:func:`_smith_divide`: scaled by the larger part of the divisor,
  no ``br^2 + bi^2``; upstream divides by ``br^2 + bi^2``), ``negate``,
  ``abs`` as the scaled hypot ``m * sqrt(1 + (n/m)^2)``, ``m``/``n`` the
  larger/smaller of ``|re|, |im|`` (:func:`_scaled_abs`; result is real;
  upstream: ``sqrt(re^2 + im^2)``), ``exponential``
  ``(e^re cos im, e^re sin im)`` with ``e^re`` split in halves and ``im = 0``
  exact (:func:`_exp`; upstream: the plain product), ``compare`` ``EQ`` (both parts equal:
  ``and``) / ``NE`` (either part differs: ``or``), ``sine`` / ``cosine``
  (:func:`_sin_cos`; ``sinh`` through ``expm1``, upstream through ``exp``);
* step 7 (``lower-complex-extra``): ``log`` ``(log |z|, atan2(im, re))`` with
  ``log |z| = log(m) + log1p((n/m)^2)/2`` (:func:`_log_abs`),
  ``sqrt`` (principal root: ``t = sqrt((|z| + |re|)/2)``; ``re >= 0``:
  ``(t, im/(2t))``, else ``(|im|/(2t), ±t)`` with the sign of ``im``;
  ``z = 0`` gives ``0``; ``|z|`` is the scaled hypot); also ``abs`` and
  ``exponential`` when step 6 did not run.
  ``abs``/``log``/``sqrt``/``sine``/``cosine`` need a static shape (splat
  constants); on dynamic shapes they are left alone.

Add/subtract/negate are exact. Divide, abs, log and sqrt do not under/overflow in
intermediates while the result is representable (f32 parts of magnitude
1e-30..1e30 match XLA CPU; transforms/legalization/test_lower_complex.py). Multiply and exp use the textbook
formulas (no scaling), so products of parts beyond ~1e19 in f32 overflow; results
may differ from the interpreter's / XLA's in the last bits.
``real``/``imag`` users of a rebuilt complex value read the part directly.
Ops on real types are left alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hilo_mlir.ir.binding import ir
from hilo_mlir.passmanager.registry import register_twins
from hilo_mlir.rewrite.pattern import PatternRewriter, RewritePattern, apply_patterns_once

if TYPE_CHECKING:
    from hilo_mlir.ir.dialects import DialectTable
    from hilo_mlir.passmanager.pass_context import PassContext
    from hilo_mlir.rewrite.rewriter import Rewriter

#: step 6: upstream MLIR-HLO's lower-complex set (add, subtract, multiply, divide, abs, exponential,
#: compare EQ/NE, sine, cosine), plus negate
BASIC = ("add", "subtract", "multiply", "divide", "negate", "abs", "exponential", "compare", "sine", "cosine")
#: step 7: log and sqrt (abs and exponential too, for a pipeline that runs step 7 without step 6)
EXTRA = ("abs", "exponential", "log", "sqrt")
#: ops whose lowering needs splat constants, i.e. a static shape
_STATIC_ONLY = ("abs", "log", "sqrt", "sine", "cosine")


def _complex_elem(t):
    try:
        st = ir.ShapedType(t)
    except (ValueError, TypeError):
        return None
    et = st.element_type
    if et.typeid != ir.ComplexType.static_typeid:
        return None
    return ir.ComplexType(et).element_type


def _with_elem(t, elem):
    if _ranked(t):
        return ir.RankedTensorType.get(list(ir.RankedTensorType(t).shape), elem)
    return ir.UnrankedTensorType.get(elem)


def _ranked(t) -> bool:
    return t.typeid == ir.RankedTensorType.static_typeid


class _Parts(dict[Any, tuple[Any, Any]]):
    """value -> (real part, imag part) over one run of the pass, plus the real/imag/complex ops touched."""

    def __init__(self) -> None:
        super().__init__()
        self.created: list[ir.Operation] = []


class _Emit:
    """The lowering of one root op: creates ops of the pass's dialect before the root, at its
    location, through the :class:`PatternRewriter` (the insertion point of MLIR's ``OpBuilder``)."""

    def __init__(self, rw: PatternRewriter, d: DialectTable, root: Any, parts_cache: _Parts):
        self.rw = rw
        self.d = d
        self.root = root
        self.loc = root.location
        self.parts_cache = parts_cache

    def op(self, short: str, operands: list[Any], rtype: ir.Type, attrs: dict[str, ir.Attribute] | None = None) -> ir.Value:
        new = self.rw.create(
            self.d.name(short),
            results=[rtype],
            operands=list(operands),
            attributes=attrs or {},
            loc=self.loc,
            before=self.root,
        )
        if short in ("real", "imag", "complex"):
            self.parts_cache.created.append(new)
        return new.results[0]

    def parts(self, v: ir.Value, real_t: ir.Type) -> tuple[Any, Any]:
        hit = self.parts_cache.get(v)
        if hit is not None:
            return hit
        owner = v.owner
        if not isinstance(owner, ir.Block) and self.d.is_op(owner.operation, "complex"):
            res = (owner.operation.operands[0], owner.operation.operands[1])
            self.parts_cache.created.append(owner.operation)
        else:
            res = (self.op("real", [v], real_t), self.op("imag", [v], real_t))
        self.parts_cache[v] = res
        return res

    def bin(self, short: str, a: ir.Value, b: ir.Value) -> ir.Value:
        return self.op(short, [a, b], a.type)

    def un(self, short: str, a: ir.Value) -> ir.Value:
        return self.op(short, [a], a.type)

    def const(self, t: ir.Type, value: float) -> ir.Value:
        rt = ir.RankedTensorType(t)
        attr = ir.DenseElementsAttr.get_splat(rt, ir.FloatAttr.get(rt.element_type, value))
        return self.rw.create(self.d.name("constant"), results=[t], attributes={"value": attr}, loc=self.loc, before=self.root).results[0]

    def compare(self, a: ir.Value, b: ir.Value, direction: str, extra: dict[str, ir.Attribute] | None = None) -> ir.Value:
        i1 = _with_elem(a.type, ir.IntegerType.get_signless(1))
        attrs = {"comparison_direction": ir.Attribute.parse(f"#{self.d.prefix}<comparison_direction {direction}>")}
        attrs.update(extra or {})
        return self.op("compare", [a, b], i1, attrs)

    def select(self, p: ir.Value, a: ir.Value, b: ir.Value) -> ir.Value:
        return self.op("select", [p, a, b], a.type)


def _smith_divide(b, ar, ai, br, bi):
    """(ar + i ai) / (br + i bi) by Smith's algorithm (CACM 5(8), 1962).

    Scales by the larger part of the divisor instead of forming
    ``br^2 + bi^2`` (which under/overflows in f32 for ``|b|`` below ~1e-19 or
    above ~1e19). With ``p = |br| >= |bi|``, ``c``/``s`` the larger/smaller part
    of ``b`` and ``x``/``y`` the matching parts of ``a`` (``x = ar`` when ``p``):
    ``r = s/c``, ``den = c + s*r``, ``re = (x + y*r)/den``,
    ``im = ±(y - x*r)/den`` (``+`` when ``p``). Both branches are one formula
    on ``select``ed operands, so no division is computed twice.
    """
    p = b.compare(b.un("abs", br), b.un("abs", bi), "GE")
    c, s = b.select(p, br, bi), b.select(p, bi, br)
    x, y = b.select(p, ar, ai), b.select(p, ai, ar)
    r = b.bin("divide", s, c)
    den = b.bin("add", c, b.bin("multiply", s, r))
    re = b.bin("divide", b.bin("add", x, b.bin("multiply", y, r)), den)
    t = b.bin("divide", b.bin("subtract", y, b.bin("multiply", x, r)), den)
    return re, b.select(p, t, b.un("negate", t))


def _scaled_abs(b, re, im, real_t):
    """|re + i im| without under/overflow of the squares (scaled hypot).

    ``m = max(|re|, |im|)``, ``n = min(|re|, |im|)``: ``m * sqrt(1 + (n/m)^2)``.
    Where that is NaN although no part is NaN -- ``m == 0`` (0/0) or both
    parts infinite (inf/inf) -- the result is ``n`` (0 resp. inf); a NaN part
    gives NaN (``maximum``/``minimum`` propagate NaN). Needs a static shape
    (splat constant 1).
    """
    m, n, q = _max_min_ratio(b, re, im)
    res = b.bin("multiply", m, b.un("sqrt", b.bin("add", b.const(real_t, 1.0), b.bin("multiply", q, q))))
    return b.select(b.compare(res, res, "NE"), n, res)


def _max_min_ratio(b, re, im):
    """``m = max(|re|, |im|)``, ``n = min(|re|, |im|)``, ``q = n/m`` (in [0, 1] or NaN)."""
    a_re, a_im = b.un("abs", re), b.un("abs", im)
    m, n = b.bin("maximum", a_re, a_im), b.bin("minimum", a_re, a_im)
    return m, n, b.bin("divide", n, m)


def _log_abs(b, re, im, real_t):
    """``log |re + i im|`` as ``log(m) + log1p(q^2)/2`` (see :func:`_max_min_ratio`):
    no squares of the parts (no under/overflow), and no rounding of ``|z|``
    before the log (accurate near ``|z| = 1``). Where ``q`` is NaN although no
    part is -- 0/0 or inf/inf -- the result is ``log(m)`` (-inf resp. inf).
    """
    m, _, q = _max_min_ratio(b, re, im)
    log_m = b.un("log", m)
    res = b.bin("add", log_m, b.bin("multiply", b.const(real_t, 0.5), b.un("log_plus_one", b.bin("multiply", q, q))))
    return b.select(b.compare(q, q, "NE"), log_m, res)


def _direction(op) -> str:
    """The ``comparison_direction`` of a compare op (``EQ``, ``NE``, ...)."""
    text = str(op.attributes["comparison_direction"])  # #stablehlo<comparison_direction EQ>
    return text.rsplit(" ", 1)[-1].rstrip(">")


def _sin_cos(b, short, re, im, real_t):
    """``sin(re + i im) = (sin re cosh im, cos re sinh im)``, ``cos(re + i im) = (cos re cosh im, -sin re sinh im)``.

    ``cosh im = (e^im + e^-im)/2`` as upstream; ``sinh im = (expm1(im) - expm1(-im))/2``, not
    upstream's ``(e^im - e^-im)/2``, which cancels for small ``|im|`` (relative error ~eps/|im|:
    6% at ``im = 1e-6`` in f32). Needs a static shape (splat constant 1/2).
    """
    half = b.const(real_t, 0.5)
    neg = b.un("negate", im)
    cosh = b.bin("multiply", b.bin("add", b.un("exponential", im), b.un("exponential", neg)), half)
    sinh = b.bin("multiply", b.bin("subtract", b.un("exponential_minus_one", im), b.un("exponential_minus_one", neg)), half)
    s, c = b.un("sine", re), b.un("cosine", re)
    if short == "sine":
        return b.bin("multiply", s, cosh), b.bin("multiply", c, sinh)
    return b.bin("multiply", c, cosh), b.un("negate", b.bin("multiply", s, sinh))


def _exp(b, re, im, real_t, static: bool):
    """``exp(re + i im) = (e^re cos im, e^re sin im)``, as XLA evaluates it where the textbook form fails.

    * ``im == ±0`` gives ``(e^re, im)`` exactly (C99 ``cexp``): the textbook
      ``e^re * sin(0)`` is NaN for ``e^re = inf`` (``exp(100 + 0i)`` in f32).
    * With a static shape, ``e^re`` is applied as ``h * (h * cos im)``, ``h =
      e^(re/2)``: no overflow of ``e^re`` where the product is finite
      (``exp(89 + 1i)`` in f32: real part 2.43e38). On dynamic shapes (no
      splat constant 1/2) the unscaled product is used.
    """
    c, s = b.un("cosine", im), b.un("sine", im)
    if static:
        h = b.un("exponential", b.bin("multiply", re, b.const(real_t, 0.5)))
        out_re, out_im = b.bin("multiply", h, b.bin("multiply", h, c)), b.bin("multiply", h, b.bin("multiply", h, s))
    else:
        e = b.un("exponential", re)
        out_re, out_im = b.bin("multiply", e, c), b.bin("multiply", e, s)
    im_is_zero = b.compare(im, b.un("negate", im), "EQ")  # true exactly for +0 and -0 (NaN != NaN)
    return out_re, b.select(im_is_zero, im, out_im)


class LowerComplexOp(RewritePattern):
    """One elementwise op on complex values -> arithmetic on their real and imaginary parts.

    Roots: the pass's op set (:data:`BASIC` or :data:`EXTRA`). Refusals
    (``--debug``): a first operand that is not complex, a dynamic shape for
    an op that needs splat constants (:data:`_STATIC_ONLY`), a compare other
    than ``EQ``/``NE``. The parts of the values read and built are shared
    over the run (``parts``), so chains of lowered ops stay real.
    """

    name, statistic = "lower-complex-op", "ops-lowered"

    def __init__(self, kinds: tuple[str, ...], parts: _Parts):
        self.roots = kinds
        self.parts = parts

    def match(self, op: Any, rw: PatternRewriter) -> bool:
        operand_t = op.operands[0].type
        if _complex_elem(operand_t) is None:
            return rw.notify_match_failure(op, "operand is not complex")
        assert rw.d is not None, "registered for one dialect"
        short = rw.d.short(op)
        if short in _STATIC_ONLY and not _is_static(operand_t):  # the parts have the operand's shape
            return rw.notify_match_failure(op, f"{short} on a dynamic shape (its lowering needs splat constants)")
        if short == "compare" and _direction(op) not in ("EQ", "NE"):
            return rw.notify_match_failure(op, lambda: f"comparison direction {_direction(op)} is not defined on complex values")
        return True

    def rewrite(self, op: Any, rw: PatternRewriter) -> None:
        d = rw.d
        assert d is not None, "registered for one dialect"
        short = d.short(op)
        operand_t = op.operands[0].type
        elem = _complex_elem(operand_t)
        real_t = _with_elem(operand_t, elem)
        static = _is_static(real_t)
        cache = self.parts
        b = _Emit(rw, d, op, cache)
        ops = [b.parts(v, real_t) for v in op.operands]
        ar, ai = ops[0]
        if short in ("add", "subtract"):
            re, im = b.bin(short, ar, ops[1][0]), b.bin(short, ai, ops[1][1])
        elif short == "negate":
            re, im = b.un("negate", ar), b.un("negate", ai)
        elif short == "multiply":
            br, bi = ops[1]
            re = b.bin("subtract", b.bin("multiply", ar, br), b.bin("multiply", ai, bi))
            im = b.bin("add", b.bin("multiply", ar, bi), b.bin("multiply", ai, br))
        elif short == "divide":
            re, im = _smith_divide(b, ar, ai, *ops[1])
        elif short == "abs":
            rw.replace_op(op, [_scaled_abs(b, ar, ai, real_t)])
            return
        elif short == "exponential":
            re, im = _exp(b, ar, ai, real_t, static)
        elif short == "compare":
            br, bi = ops[1]
            direction = _direction(op)
            keep = {k: op.attributes[k] for k in ("compare_type",) if k in op.attributes}
            p_re, p_im = b.compare(ar, br, direction, keep), b.compare(ai, bi, direction, keep)
            res = b.op("and" if direction == "EQ" else "or", [p_re, p_im], op.results[0].type)
            rw.replace_op(op, [res])
            return
        elif short in ("sine", "cosine"):
            re, im = _sin_cos(b, short, ar, ai, real_t)
        elif short == "log":
            re, im = _log_abs(b, ar, ai, real_t), b.bin("atan2", ai, ar)
        else:
            assert short == "sqrt", f"a root of the pattern: {short}"
            zero, half, two = b.const(real_t, 0.0), b.const(real_t, 0.5), b.const(real_t, 2.0)
            mag = _scaled_abs(b, ar, ai, real_t)
            t = b.un("sqrt", b.bin("multiply", b.bin("add", mag, b.un("abs", ar)), half))
            two_t = b.bin("multiply", t, two)
            t_is_zero = b.compare(t, zero, "EQ")
            safe = b.select(t_is_zero, b.const(real_t, 1.0), two_t)
            q = b.select(t_is_zero, zero, b.bin("divide", ai, safe))  # im / (2t)
            q_abs = b.select(t_is_zero, zero, b.bin("divide", b.un("abs", ai), safe))
            re_pos = b.compare(ar, zero, "GE")
            im_neg = b.compare(ai, zero, "LT")
            re = b.select(re_pos, t, q_abs)
            im = b.select(re_pos, q, b.select(im_neg, b.un("negate", t), t))
        res_t = op.results[0].type
        cache.pop(op.results[0], None)
        out = b.op("complex", [re, im], res_t)
        cache[out] = (re, im)
        rw.replace_op(op, [out])


def _is_static(t: ir.Type) -> bool:
    return _ranked(t) and ir.RankedTensorType(t).has_static_shape


def _may_lower(func_op: Any, d: DialectTable, kinds: tuple[str, ...], ctx: PassContext) -> bool:
    """False only if no candidate works on complex values (then the pass has nothing to do)."""
    # _lower_one leaves an op alone at once unless its first operand is complex.
    has = ctx.any_element_type(lambda e: e.startswith("complex<"), if_cached=True)  # free if an earlier step took the types
    if has is not None:
        return has
    memo: dict[ir.Type, bool] = {}  # type -> complex? (types are uniqued: they hash by pointer)
    for op in ctx.ops_named(func_op, *[d.name(k) for k in kinds]):  # from the census, no walk
        t = op.operands[0].type
        hit = memo.get(t)
        if hit is None:
            hit = memo[t] = _complex_elem(t) is not None
        if hit:
            return True
    return False


def _clean_up(cache: _Parts, d: DialectTable, rw: Rewriter) -> None:
    """Erase the real/imag/complex ops the lowering created or read through that are now
    unused, latest first (a dead complex frees its parts); ``real``/``imag`` of a complex
    op it built read that op's operand directly."""
    order = list(dict.fromkeys(reversed(cache.created)))
    cache.clear()
    forwarded = []
    for o in order:
        if d.is_op(o, "complex"):
            for use in list(o.results[0].uses):
                u = use.owner.operation
                if d.is_op(u, "real", "imag"):
                    rw.replace_all_uses_with(u.results[0], o.operands[0 if d.is_op(u, "real") else 1])
                    forwarded.append(u)
    for u in forwarded:
        rw.erase_op(u)
    for o in order:
        if all(not list(r.uses) for r in o.results):
            rw.erase_op(o)


def _make_run(kinds: tuple[str, ...]) -> Any:
    def _run(func_op: Any, ctx: PassContext) -> None:
        d = ctx.d
        assert d is not None, "registered for one dialect"
        if not ctx.module_may_contain(*[d.name(k) for k in kinds]):  # no candidate in the module: nothing to do
            return
        if not _may_lower(func_op, d, kinds, ctx):
            return  # no complex value anywhere, or no candidate on one: nothing to lower
        parts = _Parts()
        if apply_patterns_once(func_op, (LowerComplexOp(kinds, parts),), ctx):
            _clean_up(parts, d, ctx.rewriter)

    return _run


register_twins(
    "lower-complex",
    "Complex add/subtract/multiply/divide/negate/abs/exponential/compare/sine/cosine -> arithmetic on real and imaginary parts",
    _make_run(BASIC),
    class_name="LowerComplex",
    statistics=("ops-lowered",),
    source=(
        "seed 004 step 6 (mhlo::createLowerComplexPass, gate cfg[0x11A], default on); the op set of upstream "
        "MLIR-HLO's lower-complex patterns plus negate; Smith's division, scaled hypot, expm1 sinh (ours, more accurate)"
    ),
)
register_twins(
    "lower-complex-extra",
    "Complex abs/exponential/log/sqrt -> arithmetic on real and imaginary parts",
    _make_run(EXTRA),
    class_name="LowerComplexExtra",
    statistics=("ops-lowered",),
    source="seed 004 step 7 (mhlo::createLowerComplexExtraPass, gate cfg[0x11B]); DESIGN.md row 7",
)
