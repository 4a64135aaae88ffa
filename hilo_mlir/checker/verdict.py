"""The verdict per output: is ``penguin.py`` as close to the f64 truth as XLA is?

For a float output with truth ``t``, XLA's result ``x`` and penguin's ``p``
(all compared in f64):

* ``err_penguin = max |p - t|``, ``err_xla = max |x - t|`` (NaN against NaN and
  an infinity against the same infinity count as 0; a NaN or infinity where the
  other side has another value counts as an infinite error);
* ``scale = max |t|`` over the output's finite elements;
* **as-accurate-as-XLA** when ``err_penguin <= FACTOR * err_xla + floor`` with
  ``FACTOR = 4`` and ``floor = FLOOR_ULPS * eps(dtype) * scale``
  (``FLOOR_ULPS = 8``; ``eps``: 2^-23 for f32, 2^-7 for bf16, 2^-10 for f16,
  2^-3 for f8E4M3FN, 2^-2 for f8E5M2, 2^-52 for f64): penguin may round and
  accumulate in another order than XLA (errors of the same size, a few times
  apart), not lose digits XLA keeps; else **less-accurate**.
* **structurally zero** outputs -- truth ~0 relative to their siblings
  (``scale <= eps(dtype) * S``, ``S`` the largest ``scale`` of the other float
  outputs): a gradient that is zero by construction (a bias before
  train-mode BatchNorm, a key bias under softmax), where both f32 results are
  rounding noise and a relative comparison means nothing. They are judged on
  absolute error against the sibling scale: the same rule with
  ``floor = FLOOR_ULPS * eps(dtype) * S``, and the verdict says so.

Integer and boolean outputs are exact: as accurate when penguin equals XLA,
or differs from the truth in no more elements than XLA does.

Every verdict carries the worst element of penguin (flat index, multi-index,
and its penguin / XLA / truth values) and, for contrast, what a fixed
tolerance ``|p - x| <= FIXED_ATOL + FIXED_RTOL * |x|`` (1e-6, 1e-5; what a
hand-written test would use) would have said.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

FACTOR = 4.0
FLOOR_ULPS = 8.0
FIXED_ATOL, FIXED_RTOL = 1e-6, 1e-5

#: machine epsilon per element type name (numpy / ml_dtypes spelling)
EPS = {
    "float64": 2.0**-52,
    "float32": 2.0**-23,
    "bfloat16": 2.0**-7,
    "float16": 2.0**-10,
    "float8_e4m3fn": 2.0**-3,
    "float8_e5m2": 2.0**-2,
    "complex64": 2.0**-23,
    "complex128": 2.0**-52,
}

AS_ACCURATE = "as-accurate-as-XLA"
LESS_ACCURATE = "less-accurate"


@dataclass
class Worst:
    """The worst element of penguin against the truth."""

    index: int
    where: list
    penguin: float | str
    xla: float | str
    truth: float | str


@dataclass
class OutputVerdict:
    """The verdict for one output of ``main`` (JSON-ready through :meth:`as_dict`)."""

    index: int
    dtype: str
    shape: list
    kind: str  # "float", "integer", "boolean"
    verdict: str
    err_penguin: float
    err_xla: float
    bound: float
    scale: float
    structurally_zero: bool = False
    mismatches_penguin: int = 0
    mismatches_xla: int = 0
    worst: Worst | None = None
    diff_penguin_xla: float = 0.0
    fixed_tolerance_passes: bool = True
    note: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.verdict == AS_ACCURATE

    def as_dict(self) -> dict:
        return asdict(self)


def _eps(dtype) -> float:
    return EPS.get(str(np.dtype(dtype)), 2.0**-23)


def _kind(dtype) -> str:
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return "boolean"
    if np.issubdtype(dt, np.integer):
        return "integer"
    return "float"


def _num(v):
    v = complex(v) if isinstance(v, complex) or np.iscomplexobj(v) else float(v)
    if isinstance(v, complex):
        return str(v)
    return v if np.isfinite(v) else str(v)


def _abs_err(a: np.ndarray, t: np.ndarray) -> np.ndarray:
    """|a - t| elementwise, with NaN==NaN and same-sign infinities as 0, other non-finite mismatches as inf."""
    with np.errstate(invalid="ignore", over="ignore"):
        d = np.abs(a - t)
    same = (a == t) | (np.isnan(a) & np.isnan(t))
    d = np.where(same, 0.0, d)
    return np.where(np.isnan(d), np.inf, d)


def _scale(t: np.ndarray) -> float:
    fin = np.abs(t[np.isfinite(t)]) if t.size else np.zeros(0)
    return float(fin.max()) if fin.size else 0.0


def judge(outputs_p: list, outputs_x: list, outputs_t: list, only: list[int] | None = None) -> list[OutputVerdict]:
    """The verdict of every output (or of the outputs in ``only``); see the module doc.

    Args:
        outputs_p / outputs_x / outputs_t: penguin's, XLA's and the truth's results, in ``main``'s order.
        only: output indices to judge (default all).

    Raises:
        ValueError: the three lists differ in length or an output in shape.
    """
    if not (len(outputs_p) == len(outputs_x) == len(outputs_t)):
        raise ValueError(f"output counts differ: penguin {len(outputs_p)}, XLA {len(outputs_x)}, truth {len(outputs_t)}")
    from hilo_mlir.checker.evaluate import to_f64

    scales = {}
    for i, (x, t) in enumerate(zip(outputs_x, outputs_t)):
        if _kind(np.asarray(x).dtype) == "float":
            scales[i] = _scale(np.abs(to_f64(t)))
    out = []
    for i, (p, x, t) in enumerate(zip(outputs_p, outputs_x, outputs_t)):
        if only is not None and i not in only:
            continue
        x = np.asarray(x)
        p = np.asarray(p)
        if p.shape != x.shape:
            raise ValueError(f"output {i}: penguin.py gave shape {p.shape}, XLA {x.shape}")
        kind = _kind(x.dtype)
        if kind != "float":
            out.append(_judge_exact(i, p, x, np.asarray(t), kind))
            continue
        siblings = [s for j, s in scales.items() if j != i]
        out.append(_judge_float(i, to_f64(p), to_f64(x), to_f64(t), x.dtype, max(siblings) if siblings else 0.0))
    return out


def _worst(d: np.ndarray, p, x, t) -> Worst | None:
    if d.size == 0:
        return None
    k = int(np.argmax(d))
    where = [int(v) for v in np.unravel_index(k, d.shape)] if d.ndim else []
    return Worst(k, where, _num(p.reshape(-1)[k]), _num(x.reshape(-1)[k]), _num(t.reshape(-1)[k]))


def _judge_float(i: int, p, x, t, dtype, sibling_scale: float) -> OutputVerdict:
    if np.iscomplexobj(t):
        dp, dx = np.abs(p - t), np.abs(x - t)
        dp, dx = np.where(np.isnan(dp), np.inf, dp), np.where(np.isnan(dx), np.inf, dx)
    else:
        dp, dx = _abs_err(p, t), _abs_err(x, t)
    err_p = float(dp.max()) if dp.size else 0.0
    err_x = float(dx.max()) if dx.size else 0.0
    scale = _scale(np.abs(t))
    eps = _eps(dtype)
    structural = sibling_scale > 0 and scale <= eps * sibling_scale
    ref_scale = sibling_scale if structural else scale
    bound = FACTOR * err_x + FLOOR_ULPS * eps * ref_scale
    verdict = AS_ACCURATE if err_p <= bound else LESS_ACCURATE
    dpx = _abs_err(p, x) if not np.iscomplexobj(p) else np.abs(p - x)
    with np.errstate(invalid="ignore", over="ignore"):
        fixed_ok = bool(np.all(dpx <= FIXED_ATOL + FIXED_RTOL * np.abs(x)))
    note = ""
    if structural:
        note = (
            f"structurally zero (max|truth| {scale:.3g} <= eps x sibling scale {sibling_scale:.3g}): "
            "judged on absolute error against the sibling scale"
        )
    return OutputVerdict(
        index=i,
        dtype=str(np.dtype(dtype)),
        shape=list(p.shape),
        kind="float",
        verdict=verdict,
        err_penguin=err_p,
        err_xla=err_x,
        bound=bound,
        scale=scale,
        structurally_zero=structural,
        worst=_worst(dp, p, x, t),
        diff_penguin_xla=float(dpx.max()) if dpx.size else 0.0,
        fixed_tolerance_passes=fixed_ok,
        note=note,
    )


def _judge_exact(i: int, p, x, t, kind: str) -> OutputVerdict:
    mp = int(np.count_nonzero(p != t))
    mx = int(np.count_nonzero(x != t))
    same = bool(np.array_equal(p, x))
    ok = same or mp <= mx
    d = (p != t).astype(np.float64)
    return OutputVerdict(
        index=i,
        dtype=str(x.dtype),
        shape=list(p.shape),
        kind=kind,
        verdict=AS_ACCURATE if ok else LESS_ACCURATE,
        err_penguin=float(mp),
        err_xla=float(mx),
        bound=float(mx),
        scale=0.0,
        mismatches_penguin=mp,
        mismatches_xla=mx,
        worst=_worst(d, p.astype(np.float64), x.astype(np.float64), t.astype(np.float64)) if mp else None,
        diff_penguin_xla=float(np.count_nonzero(p != x)),
        fixed_tolerance_passes=same,
        note="exact: elements that differ from the truth (penguin vs XLA)",
    )
