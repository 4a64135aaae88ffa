"""Hostile sizes, refused before anything allocates by them.

Some values in a module make the upstream parser or a later stage allocate
in proportion to the value, not to the input's size; a handful of changed
digits can then ask for gigabytes. Each is refused with one located error
*before* that allocation:

* :func:`check_dim_numbers` (on the text, before parsing): a convolution's
  pretty ``dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`` with a
  spatial index at or past the layout's rank (the parser sizes a vector by
  the largest index: ``[b, 0, 2147483648, f]`` needs 16 GB before it can say
  the index is wrong);
* :func:`check_constants` (after parsing, before any rewrite): a dense,
  non-splat constant whose materialized copy would not fit in the memory
  left (the printer writes it out through numpy);
* a shape whose element count or size in bytes overflows a 64-bit integer is
  a type problem (:func:`hilo_mlir.ir.type_legality.type_problem`, kind
  ``overflow``).

:func:`memory_headroom` is what the process can still allocate: the least of
the address-space and data limits (``ulimit -v`` / ``-d``) minus what is in
use, the cgroup's ``memory.max`` minus ``memory.current``, and the machine's
``MemAvailable``.
"""

from __future__ import annotations

import re
import resource
from collections.abc import Sequence
from typing import TYPE_CHECKING

from hilo_mlir.support.diagnostics import HiloError

if TYPE_CHECKING:
    from hilo_mlir.ir.binding import ir
    from hilo_mlir.ir.handles import Op

_MARK = "]->["


def _loc(text: str, offset: int, filename: str) -> str:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f'loc("{filename}":{line}:{col})'


def _groups(text: str, mark: int) -> list[tuple[int, str]] | None:
    """The three bracket groups ``[..]x[..]->[..]`` around the ``]->[`` at ``mark``: ``[(start, body)]``, or None."""
    close2 = mark
    open3 = mark + 3
    close3 = text.find("]", open3)
    x = text.rfind("]x[", 0, close2)
    if close3 < 0 or x < 0 or "[" in text[x + 3 : close2] or "\n" in text[x:close3]:
        return None
    open2 = x + 2
    close1 = x
    open1 = text.rfind("[", 0, close1)
    if open1 < 0 or "]" in text[open1 + 1 : close1]:
        return None
    return [(open1 + 1, text[open1 + 1 : close1]), (open2 + 1, text[open2 + 1 : close2]), (open3 + 1, text[open3 + 1 : close3])]


def check_dim_numbers(text: str, filename: str) -> None:
    """Refuse a convolution layout (``[..]x[..]->[..]``) naming a dimension at or past its rank.

    Raises:
        HiloError: located at the offending number, e.g. ``dimension 2147483648
            in a convolution's dim_numbers is out of range: the layout
            [b, 0, 2147483648, f] has 4 dimensions``.
    """
    pos = text.find(_MARK)
    while pos >= 0:
        groups = _groups(text, pos)
        for start, body in groups or ():
            entries = body.split(",")
            rank = len(entries)
            off = start
            for e in entries:
                tok = e.strip()
                if tok.isdigit() and int(tok) >= rank:
                    at = off + e.index(tok)
                    raise HiloError(
                        f"dimension {tok} in a convolution's dim_numbers is out of range: the layout "
                        f"[{body.strip()}] has {rank} dimensions",
                        loc=_loc(text, at, filename),
                        filename=filename,
                    )
                off += len(e) + 1
        pos = text.find(_MARK, pos + len(_MARK))


def _read_kv(path: str, key: str) -> int | None:
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _cgroup_headroom() -> int | None:
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            limit = f.read().strip()
        if limit == "max":
            return None
        with open("/sys/fs/cgroup/memory.current") as f:
            return int(limit) - int(f.read().strip())
    except (OSError, ValueError):
        return None


def memory_headroom() -> int | None:
    """Bytes this process can still allocate (None if nothing says; see the module doc)."""
    candidates = []
    for lim, key in ((resource.RLIMIT_AS, "VmSize:"), (resource.RLIMIT_DATA, "VmData:")):
        soft = resource.getrlimit(lim)[0]
        if soft != resource.RLIM_INFINITY:
            used = _read_kv("/proc/self/status", key)
            if used is not None:
                candidates.append(soft - used)
    cg = _cgroup_headroom()
    if cg is not None:
        candidates.append(cg)
    avail = _read_kv("/proc/meminfo", "MemAvailable:")
    if avail is not None:
        candidates.append(avail)
    return max(0, min(candidates)) if candidates else None


def _mb(n: int) -> str:
    return f"{n / 2**20:,.0f} MB" if n >= 2**20 else f"{n:,} bytes"


#: How many copies of a constant's data the stages after validation may hold at once (numpy array, .npy bytes).
CONSTANT_COPIES = 2


def _type_bytes(t: ir.Type) -> int:
    from hilo_mlir.ir.binding import ir

    rt = ir.RankedTensorType(t)
    n = 1
    for d in rt.shape:
        n *= d
    et = rt.element_type
    if isinstance(et, ir.ComplexType):
        width = 2 * (getattr(et.element_type, "width", None) or 64)
    else:
        width = getattr(et, "width", None) or 32
    return n * max(1, width // 8)


#: numpy's largest array rank (``numpy.MAXDIMS`` in numpy 2)
NUMPY_MAX_RANK = 64


def constant_bytes(op: Op) -> int:
    """Bytes of the data of a constant op's dense ``value`` (0 for a splat or a value that is not dense elements)."""
    from hilo_mlir.ir.binding import ir

    if "value" not in op.attributes or len(op.results) != 1 or not isinstance(op.results[0].type, ir.RankedTensorType):
        return 0
    try:
        a = op.attributes["value"]
    except TypeError:  # complex dense elements: the binding has no class for them; count them as not splat
        return _type_bytes(op.results[0].type)
    if not isinstance(a, ir.DenseElementsAttr) or a.is_splat:
        return 0
    return _type_bytes(a.type)


def check_constants(constants: Sequence[Op], filename: str, headroom: int | None = None) -> None:
    """Refuse a constant whose copies (:data:`CONSTANT_COPIES`) would not fit in :func:`memory_headroom`.

    Args:
        constants: the module's constant ops (``ir.Operation``).

    Raises:
        HiloError: located at the constant: a rank above :data:`NUMPY_MAX_RANK`; a size beyond the memory left.
    """
    from hilo_mlir.ir.binding import ir

    for c in constants:  # numpy holds at most 64 dimensions: a larger rank cannot be read, folded or printed
        if len(c.results) == 1:
            t = c.results[0].type
            if isinstance(t, ir.RankedTensorType) and t.rank > NUMPY_MAX_RANK:
                raise HiloError(
                    f"'{c.name}' op: a constant of rank {t.rank} is not supported (at most {NUMPY_MAX_RANK} dimensions)",
                    loc=c.location,
                    filename=filename,
                )
    sized = [(constant_bytes(c), c) for c in constants]
    big = max((n for n, _ in sized), default=0)
    if not big:
        return
    left = memory_headroom() if headroom is None else headroom
    if left is None or CONSTANT_COPIES * big <= left:
        return
    for n, c in sized:
        if CONSTANT_COPIES * n > left:
            raise HiloError(
                f"'{c.name}' op: this {_mb(n)} constant does not fit in the memory left "
                f"(writing it out needs about {_mb(CONSTANT_COPIES * n)}; {_mb(left)} available)",
                loc=c.location,
                filename=filename,
            )


_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")
_ESCAPES = {"n": b"\n", "t": b"\t", "\\": b"\\", '"': b'"'}


def _string_bytes(body: str) -> bytes:
    """The bytes an MLIR string literal's body stands for (``\\XX`` hex escapes, ``\\n``, ``\\t``, ``\\\\``, ``\\"``)."""
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            if _HEX2.fullmatch(body, i + 1, i + 3):
                out.append(int(body[i + 1 : i + 3], 16))
                i += 3
                continue
            out += _ESCAPES.get(body[i + 1], body[i + 1].encode("utf-8"))
            i += 2
            continue
        out += c.encode("utf-8")
        i += 1
    return bytes(out)


def first_non_utf8_string(text: str) -> int | None:
    """Offset in ``text`` of the first string literal whose escapes spell bytes that are not valid UTF-8.

    MLIR strings are bytes (``"\\FF"`` parses); the Python bindings abort the
    process when such a string reaches Python (a diagnostic quoting it, a
    walk reading it), so the drivers refuse it first. None when every string
    is UTF-8 (without a backslash in ``text``, at once).
    """
    if "\\" not in text:
        return None
    for m in _STRING.finditer(text):
        body = m.group(1)
        if "\\" not in body:
            continue
        try:
            _string_bytes(body).decode("utf-8")
        except UnicodeDecodeError:
            return m.start()
    return None


def check_strings_utf8(text: str, filename: str | None) -> None:
    """Refuse a module text holding a string literal that is not valid UTF-8 (see :func:`first_non_utf8_string`).

    Raises:
        HiloError: located at the string (``filename`` None: not located).
    """
    at = first_non_utf8_string(text)
    if at is not None:
        from hilo_mlir.support.diagnostics import NOT_UTF8_MESSAGE

        raise HiloError(NOT_UTF8_MESSAGE, loc=_loc(text, at, filename) if filename else None, filename=filename)


# -- shapes that crash the parser or the binding: refused on the text, before parsing ------------------------

#: the deepest bracket nesting (``{ [ ( <``) a module may have: MLIR's parser recurses once per level and
#: overflows an 8 MB stack at a few thousand levels (a dictionary attribute 6,000 deep); 2,000 leaves room
#: for every real nesting (a ``while`` nested 1,000 deep is ~1,000 levels)
MAX_NESTING = 2000

_STRING_LIT = re.compile(rb'"(?:[^"\\\n]|\\.)*"')
_LOC_ALIAS_DEF = re.compile(r"(?:^|\n)#([\w.$-]+) *= *loc\(")
#: where an attribute value may stand (after ``=``, ``[``, ``{`` or ``,``): an inline location or an alias
_ATTR_VALUE = re.compile(r"(?:=|\[|\{|,) *(loc\(|#([\w.$-]+))")


def check_nesting(text: str, filename: str, limit: int = MAX_NESTING) -> None:
    """Refuse text nesting brackets deeper than ``limit`` (strings and ``->`` arrows are not counted).

    Raises:
        HiloError: located at the bracket that goes past the limit.
    """
    if len(text) < limit:
        return
    import numpy as np

    raw = text.encode("utf-8", "surrogatepass")
    masked = _STRING_LIT.sub(lambda m: b" " * len(m.group(0)), raw).replace(b"->", b"  ")
    table = np.zeros(256, dtype=np.int32)
    table[list(b"{[(<")] = 1
    table[list(b"}])>")] = -1
    depth = np.cumsum(table[np.frombuffer(masked, dtype=np.uint8)])
    over = np.flatnonzero(depth > limit)
    if over.size:
        at = len(raw[: int(over[0])].decode("utf-8", "surrogatepass"))
        raise HiloError(
            f"the input nests brackets more than {limit} levels deep (attributes, types or regions); "
            "MLIR's parser would overflow its stack",
            loc=_loc(text, at, filename),
            filename=filename,
        )


def check_location_attributes(text: str, filename: str | None) -> None:
    """Refuse a location used as an attribute value (``{foo = #loc1}``, ``{foo = loc("x")}``).

    The binding aborts the process when Python reads such an attribute (it
    casts it to a location class that refuses an attribute), so every pass
    and the printer would die on it. Locations belong after ops and block
    arguments (``loc(#loc1)``) and in ``#alias = loc(...)`` definitions.

    Raises:
        HiloError: located at the attribute.
    """
    defs = set(_LOC_ALIAS_DEF.findall(text))
    for m in _ATTR_VALUE.finditer(text):
        if m.group(2) is not None and m.group(2) not in defs:
            continue  # another alias (#stablehlo<...>, an attribute alias)
        at = m.start(1)
        start = text.rfind("\n", 0, at) + 1
        line = text[start:at]
        if text.startswith("#", start) or _in_string(line) or _inside_loc(line):  # a definition, a string, a nested location
            continue
        raise HiloError(
            "a location is used as an attribute value; locations may only follow an op or a block argument (loc(...))",
            loc=_loc(text, at, filename or "-"),
            filename=filename,
        )


def _in_string(prefix: str) -> bool:
    """Whether the end of ``prefix`` (one line up to a position) is inside a string literal or a ``//`` comment."""
    inside = False
    i = 0
    while i < len(prefix):
        c = prefix[i]
        if c == "\\" and inside:
            i += 2
            continue
        if c == '"':
            inside = not inside
        elif not inside and c == "/" and prefix.startswith("//", i):
            return True
        i += 1
    return inside


def _inside_loc(prefix: str) -> bool:
    """Whether the end of ``prefix`` is inside an open ``loc(`` (a nested location: callsite, fused, name(child))."""
    i = prefix.rfind("loc(")
    while i >= 0:
        depth = 0
        for c in prefix[i + 3 :]:
            depth += c == "("
            depth -= c == ")"
        if depth > 0:
            return True
        i = prefix.rfind("loc(", 0, i)
    return False
