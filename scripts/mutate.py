"""Mutation operators for the reliability suite (scripts/reliability.py): small, hostile edits of a valid input.

``text_mutant(text, rng)`` applies 1-3 edits to MLIR text; ``binary_mutant(data,
rng)`` 1-3 edits to bytes (MLIR bytecode, a serialized HloModuleProto). Each
operator is chosen to reach a different part of the front end: the lexer
(characters, brackets), the parser (lines, tokens), the verifier (types,
operands, op names), the size checks (hostile integers), the bytecode and
proto readers (bytes, varints, truncation).
"""

from __future__ import annotations

import re

HOSTILE_INTS = (
    "0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "65536",
    "2147483647",
    "2147483648",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551616",
    "99999999999",
)
TYPES = ("f32", "f16", "bf16", "f64", "i1", "i8", "i32", "i64", "ui32", "ui64", "complex<f32>", "f8E4M3FN", "index", "i2")
_INT = re.compile(r"(?<![\w.%#@])\d+(?![\w.])")
_TYPE = re.compile(r"\b(f32|f16|bf16|f64|i1|i8|i16|i32|i64|ui8|ui32|ui64)\b")
_OP = re.compile(r"\b(stablehlo|mhlo|chlo|func)\.[a-z_]+\b")
_SSA = re.compile(r"%[\w#]+")
_SHAPE = re.compile(r"tensor<([0-9x?]*)x?(?=[a-z!])")
JUNK = "[]{}()<>:,=%@^#\"'\\\x00\xe9\n-?*"


def _lines(text):
    return text.split("\n")


def _replace_nth(pattern, text, rng, choices):
    ms = list(pattern.finditer(text))
    if not ms:
        return text
    m = rng.choice(ms)
    return text[: m.start()] + rng.choice(choices(m)) + text[m.end() :]


def _int(text, rng):
    return _replace_nth(_INT, text, rng, lambda m: HOSTILE_INTS)


def _type(text, rng):
    return _replace_nth(_TYPE, text, rng, lambda m: TYPES)


def _op(text, rng):
    names = sorted({m.group(0) for m in _OP.finditer(text)}) or ["stablehlo.add"]
    return _replace_nth(_OP, text, rng, lambda m: names + ["stablehlo.while", "mhlo.fusion", "stablehlo.custom_call"])


def _ssa(text, rng):
    names = sorted({m.group(0) for m in _SSA.finditer(text)}) or ["%0"]
    return _replace_nth(_SSA, text, rng, lambda m: names)


def _shape(text, rng):
    dims = ["", "0x", "1x", "?x", "4294967296x4294967296x", "2x3x", "65536x65536x65536x"]
    return _replace_nth(_SHAPE, text, rng, lambda m: [f"tensor<{d}" for d in dims])


def _delete_line(text, rng):
    ls = _lines(text)
    if len(ls) > 1:
        del ls[rng.randrange(len(ls))]
    return "\n".join(ls)


def _duplicate_line(text, rng):
    ls = _lines(text)
    i = rng.randrange(len(ls))
    ls.insert(i, ls[i])
    return "\n".join(ls)


def _swap_lines(text, rng):
    ls = _lines(text)
    i, j = rng.randrange(len(ls)), rng.randrange(len(ls))
    ls[i], ls[j] = ls[j], ls[i]
    return "\n".join(ls)


def _delete_span(text, rng):
    if not text:
        return text
    i = rng.randrange(len(text))
    return text[:i] + text[i + rng.randint(1, 12) :]


def _insert_junk(text, rng):
    i = rng.randrange(len(text) + 1)
    return text[:i] + "".join(rng.choice(JUNK) for _ in range(rng.randint(1, 3))) + text[i:]


def _truncate(text, rng):
    return text[: rng.randrange(len(text) + 1)]


def _nest(text, rng):
    """Wrap a random line's region in deep brackets (parser recursion)."""
    i = rng.randrange(len(text) + 1)
    depth = rng.choice((50, 500, 5000))
    return text[:i] + "(" * depth + text[i:]


TEXT_OPERATORS = (
    _int,
    _int,
    _type,
    _type,
    _op,
    _ssa,
    _shape,
    _delete_line,
    _duplicate_line,
    _swap_lines,
    _delete_span,
    _insert_junk,
    _truncate,
    _nest,
)


def text_mutant(text: str, rng) -> str:
    """``text`` with 1-3 random edits."""
    for _ in range(rng.choice((1, 1, 2, 3))):
        text = rng.choice(TEXT_OPERATORS)(text, rng)
    return text


def _flip(b, rng):
    for _ in range(rng.randint(1, 8)):
        b[rng.randrange(len(b))] = rng.randrange(256)


def _fill(b, rng):
    i = rng.randrange(len(b))
    v = rng.choice((0x00, 0xFF, 0x7F, 0x80))
    for k in range(i, min(len(b), i + rng.randint(1, 16))):
        b[k] = v


def _insert(b, rng):
    i = rng.randrange(len(b) + 1)
    b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))


def _cut(b, rng):
    i = rng.randrange(len(b))
    del b[i : i + rng.randint(1, 64)]


def _truncate_bytes(b, rng):
    del b[max(4, rng.randrange(len(b))) :]


def _copy_chunk(b, rng):
    i, j = rng.randrange(len(b)), rng.randrange(len(b))
    n = rng.randint(1, 128)
    b[j:j] = b[i : i + n]


BINARY_OPERATORS = (_flip, _flip, _flip, _fill, _insert, _cut, _truncate_bytes, _copy_chunk)


def binary_mutant(data: bytes, rng) -> bytes:
    """``data`` with 1-3 random byte-level edits (the first 4 bytes -- a magic number -- mostly kept)."""
    b = bytearray(data)
    for _ in range(rng.choice((1, 1, 2, 3))):
        if len(b) < 8:
            break
        rng.choice(BINARY_OPERATORS)(b, rng)
    if rng.random() < 0.9 and len(b) >= 4 and len(data) >= 4:
        b[:4] = data[:4]
    return bytes(b)
