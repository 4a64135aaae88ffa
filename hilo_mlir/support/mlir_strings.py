"""MLIR's escaped string literals (as the binding prints them) back to the strings they stand for.

MLIR prints a string attribute or a location's file name / name with LLVM's
``printEscapedString``: a backslash becomes ``\\\\``, and every byte that is not
printable ASCII (or is ``"``) becomes ``\\`` and two hex digits, so ``josé``
prints as ``jos\\C3\\A9`` and a tab as ``\\09``. Text read from ``str(loc)``
must be unescaped before it is shown to a user or written into a program.
"""

from __future__ import annotations

import re

_ESCAPE = re.compile(r"\\(\\|[0-9A-Fa-f]{2})")


def mlir_unescape(text: str) -> str:
    """The string an escaped MLIR string literal's body stands for (the part between the quotes).

    ``\\\\`` is one backslash, ``\\XX`` the byte ``0xXX``; the bytes are decoded
    as UTF-8, a byte that is not valid UTF-8 kept as a ``\\xNN`` escape (so
    nothing is lost and no invalid text is produced). A backslash followed by
    anything else stays as it is. Never raises.

    >>> mlir_unescape(r"jos\\C3\\A9/m\\22q\\22.py")
    'josé/m"q".py'
    """
    if "\\" not in text:
        return text
    out = bytearray()
    pos = 0
    for m in _ESCAPE.finditer(text):
        out += text[pos : m.start()].encode("utf-8", "surrogateescape")
        g = m.group(1)
        out += b"\\" if g == "\\" else bytes((int(g, 16),))
        pos = m.end()
    out += text[pos:].encode("utf-8", "surrogateescape")
    return out.decode("utf-8", "backslashreplace")


def mlir_escape(text: str) -> str:
    """The body of an MLIR string literal standing for ``text`` (what :func:`mlir_unescape` reads back).

    A backslash becomes ``\\\\``, ``"`` and every control character ``\\`` and two hex digits
    (``\\22``), as ``printEscapedString`` writes them; other characters stay as they are (the
    literal is UTF-8).

    >>> mlir_escape('q"p\\\\x.py')
    'q\\\\22p\\\\\\\\x.py'
    """
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"' or ord(ch) < 0x20 or ch == "\x7f":
            out.append(f"\\{ord(ch):02X}")
        else:
            out.append(ch)
    return "".join(out)
