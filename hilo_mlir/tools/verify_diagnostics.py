"""``--verify-diagnostics``: check the diagnostics against ``expected-*`` comments (mlir-opt's verifier).

An expectation is a comment ``expected-<severity>[-re][@<where>] {{<text>}}``:

* severity ``error``, ``warning``, ``remark`` or ``note``;
* ``@+N`` / ``@-N`` (relative line), ``@above`` / ``@below`` (the line before /
  after), ``@unknown`` (a diagnostic with no file location); by default the
  line of the comment;
* ``<text>`` is matched as a substring of the message; with ``-re`` it is
  literal text with ``{{regex}}`` parts (``expected-error-re {{value {{[0-9]+}}}}``).

Each diagnostic must match one unmatched expectation of its severity on its
line; a diagnostic that matches none is ``file:line:col: error: unexpected
<severity>: <message>`` (with its source line), an expectation that nothing
matched is ``file:line:col: error: expected <severity> "<text>" was not
produced`` at the comment. Either makes the run fail (exit 1).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hilo_mlir.support.diagnostics import Diagnostic, FileLoc, location_stack, render

_EXPECT = re.compile(r"expected-(error|warning|remark|note)(-re)? *(?:@([+-]\d+|above|below|unknown))? *\{\{(.*)\}\}\s*$")


@dataclass
class Expectation:
    severity: str
    text: str
    regex: re.Pattern | None
    line: int | None  # target line; None = @unknown
    at: FileLoc  # where the comment is (reported when nothing matched)
    seen: bool = False

    def matches(self, d: Diagnostic, line: int | None) -> bool:
        if self.seen or self.severity != d.severity or self.line != line:
            return False
        if self.regex is not None:
            return self.regex.search(d.message) is not None
        return self.text in d.message


def _regex(text: str) -> re.Pattern:
    """MLIR's ``-re`` text: literal parts, ``{{...}}`` parts are regular expressions."""
    parts, i = [], 0
    while True:
        j = text.find("{{", i)
        if j < 0:
            parts.append(re.escape(text[i:]))
            break
        k = text.find("}}", j + 2)
        if k < 0:
            parts.append(re.escape(text[i:]))
            break
        parts.append(re.escape(text[i:j]))
        parts.append("(?:" + text[j + 2 : k] + ")")
        i = k + 2
    return re.compile("".join(parts))


def expectations(text: str, filename: str) -> list[Expectation]:
    """Every ``expected-*`` comment of ``text`` (line numbers as in the whole file)."""
    out = []
    for i, line in enumerate(text.split("\n")):
        lineno = i + 1
        m = _EXPECT.search(line)
        if not m:
            continue
        severity, is_re, where, body = m.groups()
        if where is None:
            target: int | None = lineno
        elif where == "unknown":
            target = None
        elif where == "above":
            target = lineno - 1
        elif where == "below":
            target = lineno + 1
        else:
            target = lineno + int(where)
        out.append(Expectation(severity, body, _regex(body) if is_re else None, target, FileLoc(filename, lineno, m.start() + 1)))
    return out


def _line_of(d: Diagnostic, filename: str) -> int | None:
    """The line a diagnostic is reported at in ``filename``, or None (an unknown location)."""
    if d.raw is not None:
        stack = location_stack(d.raw, filename)
        return stack[0][0].line if stack else None
    return d.line


def check(expected: list[Expectation], diags: list[Diagnostic], filename: str, sources: dict) -> list[str]:
    """Match ``diags`` against ``expected``; returns the rendered mismatches (empty: all good)."""
    problems = []
    for d in diags:
        line = _line_of(d, filename)
        hit = next((e for e in expected if e.matches(d, line)), None)
        if hit is not None:
            hit.seen = True
            continue
        loc = d.raw if d.raw is not None else d.loc
        problems.append(render("error", f"unexpected {d.severity}: {d.message}", loc, filename=filename, sources=sources))
    for e in expected:
        if not e.seen:
            problems.append(
                render("error", f'expected {e.severity} "{e.text}" was not produced', str(e.at), filename=filename, sources=sources)
            )
    return problems
