"""Attribute values of Penguin statements, normalised for the numpy backend.

The printers emit an op's attributes either as Python literals (``[1, 0]``,
``3``, ``{'dimension': 1}``) or, where no literal form exists, as the MLIR
attribute text (``'dense<[0, 1]> : tensor<2xi64>'``,
``'#stablehlo<comparison_direction GT>'``,
``'#mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>'``,
``'#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>'``). This module
turns both into plain Python/numpy values with no MLIR dependency, so a
``penguin.py`` can be executed by numpy alone.
"""

from __future__ import annotations

import json
import re

import numpy as np

#: MLIR element type / Penguin dtype string -> numpy dtype ("ml_dtypes.<name>": that ml_dtypes type, imported lazily).
_DTYPES: dict[str, type[np.generic] | str] = {
    "f32": np.float32,
    "f64": np.float64,
    "f16": np.float16,
    "bf16": "ml_dtypes.bfloat16",
    "i1": np.bool_,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "ui8": np.uint8,
    "ui16": np.uint16,
    "ui32": np.uint32,
    "ui64": np.uint64,
    "si8": np.int8,
    "si16": np.int16,
    "si32": np.int32,
    "si64": np.int64,
    "f8E4M3FN": "ml_dtypes.float8_e4m3fn",
    "f8E5M2": "ml_dtypes.float8_e5m2",
    "complex<f32>": np.complex64,
    "complex<f64>": np.complex128,
    "float32": np.float32,
    "float64": np.float64,
    "float16": np.float16,
    "bfloat16": "ml_dtypes.bfloat16",
    "bool": np.bool_,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "uint8": np.uint8,
    "uint16": np.uint16,
    "uint32": np.uint32,
    "uint64": np.uint64,
    "float8_e4m3fn": "ml_dtypes.float8_e4m3fn",
    "float8_e5m2": "ml_dtypes.float8_e5m2",
    "complex64": np.complex64,
    "complex128": np.complex128,
    "ui1": np.bool_,
    "pred": np.bool_,
    "float8_e4m3fnuz": "ml_dtypes.float8_e4m3fnuz",
    "float8_e5m2fnuz": "ml_dtypes.float8_e5m2fnuz",
    "float8_e8m0fnu": "ml_dtypes.float8_e8m0fnu",
    "f8E4M3FNUZ": "ml_dtypes.float8_e4m3fnuz",
    "f8E5M2FNUZ": "ml_dtypes.float8_e5m2fnuz",
    "f8E8M0FNU": "ml_dtypes.float8_e8m0fnu",
    "int4": "ml_dtypes.int4",
    "uint4": "ml_dtypes.uint4",
    "i4": "ml_dtypes.int4",
    "ui4": "ml_dtypes.uint4",
    # x4-packed MX containers: four FP8 codes per 32-bit word
    "float8_e5m2_x4": np.uint32,
    "float8_e4m3fn_x4": np.uint32,
    "token": np.uint8,
    # tokens are carried as ui8 after replace-token-type-with-u8; a raw token is a 0-d u8
    "!stablehlo.token": np.uint8,
    "!mhlo.token": np.uint8,
}


class AttrError(ValueError):
    """An attribute the backend cannot interpret (message names the attribute)."""


def np_dtype(name) -> np.dtype:
    """numpy dtype for a Penguin dtype string (``'bfloat16'``) or MLIR element type (``'bf16'``)."""
    if isinstance(name, np.dtype):
        return name
    if isinstance(name, type) and issubclass(name, np.generic):
        return np.dtype(name)
    s = str(name).strip()
    if s.startswith("dtype."):
        s = s[len("dtype.") :]
    if s in _DTYPES:
        t = _DTYPES[s]
        if isinstance(t, str):  # an ml_dtypes type: imported on first need (~1 s with ml_dtypes 0.7)
            import ml_dtypes

            t = _DTYPES[s] = getattr(ml_dtypes, t.split(".", 1)[1])
        return np.dtype(t)
    try:
        return np.dtype(s)
    except TypeError:
        raise AttrError(f"unknown dtype {name!r}") from None


# ---------------------------------------------------------------------------------------------
# MLIR attribute text
# ---------------------------------------------------------------------------------------------

_TENSOR_TYPE = re.compile(r"tensor<((?:\d+x)*)([^>]*(?:<[^>]*>)?)>\s*$")


def _parse_tensor_type(text: str):
    m = _TENSOR_TYPE.search(text.strip())
    if not m:
        raise AttrError(f"cannot read tensor type {text!r}")
    dims = [int(d) for d in m.group(1).split("x") if d]
    return tuple(dims), np_dtype(m.group(2))


def _split_top(s: str, sep: str = ",") -> list[str]:
    """Split ``s`` at ``sep`` outside brackets / angle brackets / parentheses / quotes."""
    out: list[str] = []
    cur: list[str] = []
    depth, quote = 0, False
    for ch in s:
        if ch == '"':
            quote = not quote
        elif not quote and ch in "[<({":
            depth += 1
        elif not quote and ch in "]>)}":
            depth -= 1
        if ch == sep and depth == 0 and not quote:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if cur or out:
        out.append("".join(cur))
    return [x.strip() for x in out]


def _element(tok: str, dt: np.dtype):
    tok = tok.strip()
    if tok in ("true", "false"):
        return tok == "true"
    if tok.startswith("(") and tok.endswith(")"):
        re_, im = _split_top(tok[1:-1])
        return complex(float(re_), float(im))
    if tok.lower().startswith("0x") and dt.kind == "f":
        # MLIR prints non-finite floats as their bit pattern
        bits = int(tok, 16)
        width = dt.itemsize
        raw = bits.to_bytes(width, "little")
        return np.frombuffer(raw, dtype=dt)[0]
    if tok.lower().startswith(("0x", "-0x")):
        return int(tok, 16)
    if dt.kind in "iub":
        return int(tok)
    return float(tok)


def _nested(text: str, dt: np.dtype):
    text = text.strip()
    if text.startswith("["):
        inner = text[1:-1].strip()
        if not inner:
            return []
        return [_nested(p, dt) for p in _split_top(inner)]
    return _element(text, dt)


def parse_dense(text: str) -> np.ndarray:
    """``dense<...> : tensor<SHAPExT>`` (list, splat, hex blob, bool) -> numpy array."""
    text = text.strip()
    if not text.startswith("dense<"):
        raise AttrError(f"not a dense attribute: {text!r}")
    # find the matching '>' of dense<
    depth, end = 0, None
    quote = False
    for i, ch in enumerate(text):
        if ch == '"':
            quote = not quote
        elif not quote and ch == "<":
            depth += 1
        elif not quote and ch == ">":
            depth -= 1
            if depth == 0:
                end = i
                break
    if end is None:
        raise AttrError(f"unterminated dense attribute: {text!r}")
    body = text[len("dense<") : end].strip()
    rest = text[end + 1 :].strip()
    if not rest.startswith(":"):
        raise AttrError(f"dense attribute without a type: {text!r}")
    shape, dt = _parse_tensor_type(rest[1:])
    n = int(np.prod(shape)) if shape else 1
    if body.startswith('"0x') or body.startswith('"0X'):
        raw = bytes.fromhex(body[3:-1])
        if dt == np.bool_:
            arr = np.frombuffer(raw, dtype=np.uint8).astype(np.bool_)
        else:
            arr = np.frombuffer(raw, dtype=dt)
        if arr.size == 1 and n != 1:
            return np.full(shape, arr[0], dtype=dt)
        return arr.reshape(shape).copy()
    if body == "":
        return np.zeros(shape, dtype=dt)
    vals = _nested(body, dt)
    if not isinstance(vals, list):
        return np.full(shape, vals, dtype=dt) if dt.kind != "V" else np.full(shape, vals).astype(dt)
    arr = np.array(vals, dtype=np.float64 if dt.kind == "f" and dt.itemsize < 4 else None)
    return arr.astype(dt).reshape(shape)


def _parse_value(v: str):
    """A value inside ``#dialect.name<k = v, ...>``: list of ints, int, bool, word."""
    v = v.strip()
    if v.startswith("["):
        inner = v[1:-1].strip()
        return [_parse_value(x) for x in _split_top(inner)] if inner else []
    if v.startswith("array<"):
        return parse_attr(v)
    if re.fullmatch(r"-?\d+", v):
        return int(v)
    if v in ("true", "false"):
        return v == "true"
    if v.startswith('"') and v.endswith('"'):
        return v[1:-1]
    return v


_CONV_PRETTY = re.compile(r"\[([^\]]*)\]x\[([^\]]*)\]->\[([^\]]*)\]")


def _parse_conv_pretty(body: str) -> dict:
    m = _CONV_PRETTY.search(body)
    if not m:
        raise AttrError(f"cannot read convolution dimension numbers {body!r}")
    lhs, rhs, out = ([t.strip() for t in g.split(",")] for g in m.groups())

    def spatial(items):
        sp = sorted((int(t), i) for i, t in enumerate(items) if t.isdigit())
        return [i for _, i in sp]

    return {
        "input_batch_dimension": lhs.index("b"),
        "input_feature_dimension": lhs.index("f"),
        "input_spatial_dimensions": spatial(lhs),
        "kernel_input_feature_dimension": rhs.index("i"),
        "kernel_output_feature_dimension": rhs.index("o"),
        "kernel_spatial_dimensions": spatial(rhs),
        "output_batch_dimension": out.index("b"),
        "output_feature_dimension": out.index("f"),
        "output_spatial_dimensions": spatial(out),
    }


def _parse_array(s: str) -> list:
    """``array<i64: 1, 2>`` -> ``[1, 2]`` (``i1``: booleans; ``f*``: floats)."""
    m = re.fullmatch(r"array<\s*(\w+)\s*(?::(.*))?>", s, re.S)
    if not m:
        raise AttrError(f"cannot read {s!r}")
    items = [x.strip() for x in (m.group(2) or "").split(",") if x.strip()]
    if m.group(1) == "i1":
        return [x == "true" for x in items]
    if m.group(1).startswith("f"):
        return [float(x) for x in items]
    return [int(x) for x in items]


def _parse_structured(kind: str, body: str):
    """The body of ``#d.<kind><...>`` as a dict (``key = value`` parts; a bare word is True)."""
    if kind == "conv":
        if not body.startswith("raw"):
            return _parse_conv_pretty(body)
        body = body[3:]
    out: dict = {}
    for part in _split_top(body):
        if not part:
            continue
        if "=" not in part:
            out[part] = True
            continue
        k, v = part.split("=", 1)
        out[k.strip()] = _parse_value(v)
    return out


def parse_attr(value):
    """Normalise one attribute value (Python literal or MLIR attribute text).

    Returns numpy arrays for ``dense<...>``, lists for ``array<i64: ...>`` and
    ``[...]``, the enum word for ``#d<kind WORD>``, a dict for structured
    attributes (``#stablehlo.dot<...>``, ``#stablehlo.gather<...>``,
    ``#stablehlo.conv<...>``), a dict for JSON objects, else the value itself.
    """
    if not isinstance(value, str):
        return value
    s = value.strip()
    if s.startswith("dense<"):
        return parse_dense(s)
    if s.startswith("array<"):
        return _parse_array(s)
    m = re.fullmatch(r"#(\w+)<\s*(\w+)\s+(\w+)\s*>", s)
    if m:  # enum: #stablehlo<comparison_direction GT>
        return m.group(3)
    m = re.fullmatch(r"#(\w+)\.(\w+)<(.*)>", s, re.S)
    if m:
        return _parse_structured(m.group(2), m.group(3).strip())
    if s.startswith("{") and s.endswith("}"):
        try:
            return json.loads(s)
        except ValueError:
            return value
    return value


def ints(value) -> list[int]:
    """Attribute value as a flat list of Python ints (None -> [])."""
    v = parse_attr(value)
    if v is None:
        return []
    if isinstance(v, np.ndarray):
        return [int(x) for x in v.reshape(-1)]
    if isinstance(v, (list, tuple)):
        out = []
        for x in v:
            out.extend(ints(x) if isinstance(x, (list, tuple, np.ndarray)) else [int(x)])
        return out
    if isinstance(v, (bool, np.bool_)):
        return [int(v)]
    return [int(v)]


def int_pairs(value) -> list[tuple[int, int]]:
    """``padding``-style attribute (N x 2) as a list of pairs."""
    flat = ints(value)
    return [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]


def config_dict(value) -> dict:
    """A ``backend_config`` (JSON string, Python dict, MLIR dict text) as a dict ({} if empty)."""
    if value is None or value == "":
        return {}
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            v = json.loads(value)
        except ValueError:
            v = parse_attr(value)
        return v if isinstance(v, dict) else {}
    return {}
