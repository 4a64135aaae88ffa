"""Python source from untrusted data: the one quoting path, and the allow-list check of a Penguin program.

Input modules are untrusted data (README, "Trust model"). Everything a
printer takes from them -- names, locations, attribute and type text,
dtypes, custom-call configs, option values -- reaches the generated
``penguin.py`` through the functions of this module, never through raw
string formatting:

* :func:`py_literal` -- a value as a Python literal (strings as ``repr``,
  which escapes quotes, backslashes, newlines and every non-printable
  character; numbers, booleans, ``None``, and lists/tuples/dicts of them);
* :func:`dotted_name` -- a validated dotted identifier (``a.b.c``), for the
  places where the value is code, not data (the module root of the imports);
* :func:`safe_keyword` -- whether a name may be printed as a keyword argument
  (an ASCII identifier that is not a Python keyword and not ``__debug__``:
  Python NFKC-normalises non-ASCII identifiers, so ``ｄｌ`` would be ``dl``).

:func:`check_program` is the defence behind them: an allow-list over the
AST of a program (format: docs/penguin_format.md). The printers run it on
their own output before publishing it; ``hilo-penguin-run`` and
``penguin_ref.run`` run it before executing a program. What it accepts:

* ``import <dotted> as m<N>`` (with ``roots``: only those modules and their
  submodules; without: any module but the ones the reference backend imports
  for real, :data:`REAL_MODULES`);
* assignments ``<name>[, <name>...] = <expr>``, expression statements that are
  calls, module-level ``def <name>(<params>): ... return [...]`` (no decorators,
  defaults or annotations, no nested ``def``);
* expressions: literals (str, int, float, bool, None; ``-`` before a number),
  lists, tuples, dicts with literal keys, names the program binds, calls of
  ``<alias>.<ApiName>`` (an ``...Op`` or one of :data:`API_NAMES`),
  ``<alias>.dtype.<name>``, the methods :data:`METHODS`, the builtins
  :data:`BUILTINS`, and a function the program defines, and ``lambda`` over
  those.

Anything else -- another builtin, attribute access outside an imported
module (``x.__class__``), a subscript, an operator, ``**kwargs``, an
f-string -- is refused with one :class:`ProgramCheckError` naming the line.
"""

from __future__ import annotations

import ast
import builtins
import keyword
import math
import re
from collections.abc import Iterable
from typing import Any, NoReturn, cast

from hilo_mlir.support.diagnostics import HiloError

#: what a program may call besides the Penguin API
BUILTINS = frozenset({"float", "complex", "dict"})
#: methods a program may call on the values it built
METHODS = frozenset({"markInput", "markOutput", "setResults"})
#: Penguin API names that do not end in ``Op``
API_NAMES = frozenset(
    {"Function", "Tensor", "TensorSpec", "TupleSpec", "DebugLocation", "NpyFile", "Bits", "BlockArgument", "RegionReturn"}
)
#: modules the reference backend imports for real: never a program's import
REAL_MODULES = frozenset({"numpy", "ml_dtypes", "math", "builtins", "os", "sys", "subprocess", "importlib"})

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_API = re.compile(r"[A-Z][A-Za-z0-9_]*\Z")
_DTYPE = re.compile(r"[a-z][a-z0-9_]*\Z")
_ALIAS = re.compile(r"m[0-9]+\Z")


class ProgramCheckError(HiloError):
    """A program outside the allowed shapes (:func:`check_program`)."""


def py_literal(value: Any) -> str:
    """``value`` as Python source that evaluates to an equal value: the one quoting path for input-derived data.

    Accepts ``str`` (``repr``: quotes, backslashes, newlines, ``{}`` and
    unicode look-alikes stay inside the literal), ``bool``, ``int``,
    ``float`` (``float('nan')``, ``float('-nan')``, ``float('inf')`` for the
    non-finite ones), ``None``, and ``list`` / ``tuple`` / ``dict`` (string,
    number or boolean keys) of these, nested to any depth (no recursion).

    Raises:
        TypeError: any other type (a printer bug, never the input's fault).
    """
    if type(value) is str:  # the common case: a scalar string, quoted as _scalar quotes it
        return repr(value)
    # iterative post-order: a stack of (value, rendered children or None)
    out: list[str] = []
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        v, expanded = stack.pop()
        if isinstance(v, (list, tuple, dict)):
            if not expanded:
                stack.append((v, True))
                items = list(v.items()) if isinstance(v, dict) else list(v)
                for it in reversed(items):
                    if isinstance(v, dict):
                        stack.append((it[1], False))
                        stack.append((it[0], False))
                    else:
                        stack.append((it, False))
                continue
            n = len(v) * (2 if isinstance(v, dict) else 1)
            parts = out[len(out) - n :] if n else []
            del out[len(out) - n :]
            if isinstance(v, dict):
                out.append("{" + ", ".join(f"{parts[i]}: {parts[i + 1]}" for i in range(0, n, 2)) + "}")
            elif isinstance(v, tuple):
                out.append("(" + parts[0] + ",)" if n == 1 else "(" + ", ".join(parts) + ")")
            else:
                out.append("[" + ", ".join(parts) + "]")
            continue
        out.append(_scalar(v))
    return out[0]


def _scalar(v: Any) -> str:
    if isinstance(v, str):
        return repr(str(v))
    if v is None or isinstance(v, bool):
        return repr(v)
    if isinstance(v, int):
        return repr(int(v))
    if isinstance(v, float):
        if math.isnan(v):
            return "float('-nan')" if math.copysign(1.0, v) < 0 else "float('nan')"
        if math.isinf(v):
            return "float('inf')" if v > 0 else "float('-inf')"
        return repr(float(v))
    raise TypeError(f"py_literal: cannot print a {type(v).__name__} as a literal")


def dotted_name(text: Any, what: str = "name") -> str:
    """``text`` if it is a dotted Python identifier (``a.b.c``: ASCII, no keyword, no empty part), else an error.

    Raises:
        HiloError: naming ``what`` and the value (quoted with :func:`py_literal`).
    """
    parts = text.split(".") if isinstance(text, str) else [""]
    if not all(_IDENT.match(p) and not keyword.iskeyword(p) and p != "__debug__" for p in parts):
        raise HiloError(f"{what} must be a dotted Python identifier (e.g. 'neuronxcc.starfish.penguin'), got {py_literal(str(text))}")
    return cast(str, text)


def safe_keyword(name: str) -> bool:
    """Whether ``name`` may be printed as a keyword argument: an ASCII identifier, not a keyword, not ``__debug__``."""
    return bool(_IDENT.match(name)) and not keyword.iskeyword(name) and name != "__debug__"


# -- the allow-list ------------------------------------------------------------------------------


class _Checker:
    def __init__(self, filename: str, roots: Iterable[str] | None):
        self.filename = filename
        self.roots = tuple(roots) if roots is not None else None
        self.aliases: set[str] = set()
        self.functions: set[str] = set()
        self.bound: set[str] = set()
        #: the fast path: any printer-style name (v<N>, input_<N>, a<N>) counts as bound and as a function
        self.shape_only = False

    def fail(self, node: Any, what: str) -> NoReturn:
        line, col = getattr(node, "lineno", 0), getattr(node, "col_offset", 0) + 1
        raise ProgramCheckError(
            f"the program is not a Penguin program the backend may run: {what} "
            "(allowed: imports of the Penguin API, assignments of its calls and literals, region functions; "
            "docs/penguin_format.md)",
            loc=f'loc("{self.filename}":{line}:{col})',
            filename=self.filename,
        )

    # names ---------------------------------------------------------------------------------------
    def bind(self, node: Any, name: str) -> None:
        if not _IDENT.match(name) or name.startswith("_") or name in _BUILTIN_NAMES or name in self.aliases:
            self.fail(node, f"'{name}' may not be bound")
        if self.shape_only and not _PRINTER_NAME.match(name):
            self.fail(node, f"'{name}' is not a printer's name")
        self.bound.add(name)

    def is_bound(self, name: str) -> bool:
        return name in self.bound or (self.shape_only and bool(_PRINTER_NAME.match(name)))

    def collect(self, tree: ast.Module) -> None:
        """First pass: imports, defined functions and every bound name (a region function may be listed before its ``def``)."""
        for st in tree.body:
            if isinstance(st, ast.Import):
                for a in st.names:
                    self.check_import(st, a)
            elif isinstance(st, ast.ImportFrom):
                self.fail(st, "'from ... import'")
        for st in tree.body:
            if isinstance(st, ast.FunctionDef):
                self.bind(st, st.name)
                self.functions.add(st.name)
                for arg in st.args.args:
                    self.bind(st, arg.arg)
                for inner in st.body:
                    if isinstance(inner, ast.Assign):
                        self.bind_targets(inner)
            elif isinstance(st, ast.Assign):
                self.bind_targets(st)

    def bind_targets(self, st: ast.Assign) -> None:
        if len(st.targets) != 1:
            self.fail(st, "chained assignment")
        t = st.targets[0]
        names = t.elts if isinstance(t, ast.Tuple) else [t]
        for n in names:
            if not isinstance(n, ast.Name):
                self.fail(st, "an assignment to something other than a name")
            self.bind(st, n.id)

    def check_import(self, st: Any, a: Any) -> None:
        path = a.name
        if a.asname is None or not _ALIAS.match(a.asname):
            self.fail(st, f"'import {path}' without an 'as m<N>' alias")
        if self.roots is not None:
            if not any(path == r or path.startswith(r + ".") for r in self.roots):
                self.fail(st, f"an import of '{path}' (the program imports only {', '.join(self.roots)})")
        elif path.split(".")[0] in REAL_MODULES:
            self.fail(st, f"an import of '{path}'")
        if a.asname in self.aliases:
            self.fail(st, f"'{a.asname}' imported twice")
        self.aliases.add(a.asname)

    # statements ----------------------------------------------------------------------------------
    def statement(self, st: ast.stmt, in_function: bool) -> None:
        if isinstance(st, ast.Import) and not in_function and not self.shape_only:
            return  # checked by collect()
        if isinstance(st, ast.Assign):
            if self.shape_only:
                self.bind_targets(st)
            self.expr(st.value)
            return
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
            self.expr(st.value)
            return
        if isinstance(st, ast.Return) and in_function:
            if st.value is not None:
                self.expr(st.value)
            return
        if isinstance(st, ast.FunctionDef) and not in_function:
            a = st.args
            if st.decorator_list or st.returns or a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults:
                self.fail(st, f"function '{st.name}' with decorators, defaults, annotations or variadic parameters")
            if any(x.annotation is not None for x in a.args) or getattr(st, "type_params", None):
                self.fail(st, f"function '{st.name}' with annotations")
            if self.shape_only:
                self.bind(st, st.name)
                for x in a.args:
                    self.bind(st, x.arg)
            for inner in st.body:
                self.statement(inner, True)
            return
        self.fail(st, f"a statement of kind {type(st).__name__}")

    # expressions (iterative: a literal may nest deeper than Python's recursion limit) -------------
    def expr(self, root: Any) -> None:  # noqa: C901 - one branch per node kind
        stack = [root]
        pop, push, extend = stack.pop, stack.append, stack.extend
        Constant, Name, Call, Attribute, List, Tuple = ast.Constant, ast.Name, ast.Call, ast.Attribute, ast.List, ast.Tuple
        aliases = self.aliases
        while stack:
            e = pop()
            t = type(e)
            if t is Constant:
                if type(e.value) not in _CONSTANT_TYPES:
                    self.fail(e, f"a constant of type {type(e.value).__name__}")
            elif t is Name:
                if not (self.is_bound(e.id) or e.id in aliases or e.id in BUILTINS) or type(e.ctx) is not ast.Load:
                    self.fail(e, f"the name '{e.id}'")
            elif t is Call:
                self.callee(e.func, stack)
                for x in e.args:
                    if type(x) is ast.Starred:
                        self.fail(x, "'*' unpacking")
                    push(x)
                for kw in e.keywords:
                    if kw.arg is None:
                        self.fail(e, "'**' unpacking")
                    push(kw.value)
            elif t is List or t is Tuple:
                if type(e.ctx) is not ast.Load:
                    self.fail(e, "a list or tuple target")
                for x in e.elts:
                    if type(x) is ast.Starred:
                        self.fail(x, "'*' unpacking")
                extend(e.elts)
            elif t is Attribute:
                self.api_name(e)
            elif t is ast.UnaryOp:
                if type(e.op) not in (ast.USub, ast.UAdd) or not (type(e.operand) is Constant and type(e.operand.value) in (int, float)):
                    self.fail(e, "an operator")
            elif t is ast.Dict:
                for k in e.keys:
                    if type(k) is not Constant or type(k.value) not in (str, int, float, bool):
                        self.fail(e, "a dict key that is not a literal ('**' or an expression)")
                extend(e.values)
            elif t is ast.Lambda:
                a = e.args
                if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults:
                    self.fail(e, "a lambda with defaults or variadic parameters")
                for p in a.args:
                    self.bind(e, p.arg)
                push(e.body)
            else:
                self.fail(e, f"an expression of kind {t.__name__}")

    def api_name(self, e: Any) -> None:
        """``<alias>.<ApiName>`` or ``<alias>.dtype.<name>``: the only attribute reads outside method calls."""
        v = e.value
        if isinstance(v, ast.Name) and v.id in self.aliases and _API.match(e.attr) and (e.attr.endswith("Op") or e.attr in API_NAMES):
            return
        if isinstance(v, ast.Attribute) and v.attr == "dtype" and isinstance(v.value, ast.Name) and v.value.id in self.aliases:
            if _DTYPE.match(e.attr):
                return
        self.fail(e, f"the attribute '.{e.attr}'")

    def callee(self, f: Any, stack: list[Any]) -> None:
        if isinstance(f, ast.Name):
            if f.id in BUILTINS or f.id in self.functions or (self.shape_only and _PRINTER_NAME.match(f.id)):
                return
            self.fail(f, f"a call of '{f.id}'")
        if isinstance(f, ast.Attribute):
            if f.attr in METHODS:
                if isinstance(f.value, ast.Name):
                    if not self.is_bound(f.value.id):
                        self.fail(f, f"the name '{f.value.id}'")
                    return
                if isinstance(f.value, ast.Call):
                    stack.append(f.value)
                    return
                self.fail(f, f"a call of '.{f.attr}'")
            self.api_name(f)
            return
        self.fail(f, "a call of an expression")


_CONSTANT_TYPES = (str, int, float, bool, type(None))
_BUILTIN_NAMES = frozenset(dir(builtins)) | {"__builtins__", "__name__", "__file__", "__import__"}


# -- the fast path: one AST check per distinct line shape -------------------------------------------------

#: a string literal as ``repr`` prints it (one line, no prefix, not triple-quoted). The body is written
#: "unrolled" (runs of ordinary characters, then an escape and another run): the same language and the same
#: matches as ``'(?:[^'\\\n]|\\.)*'``, without one alternation per character (3x faster on a large program)
_STR_LIT = re.compile(r"'[^'\\\n]*(?:\\.[^'\\\n]*)*'" r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"')
#: the single-quoted alternative of :data:`_STR_LIT` alone (what it matches in a text without ``"``)
_SQ_LIT = re.compile(r"'[^'\\\n]*(?:\\.[^'\\\n]*)*'")
#: every digit as ``0`` (one character for one: no literal moves); :func:`_number_shape` then makes each run one ``0``
_ZEROS = str.maketrans("123456789", "000000000")


def _number_shape(text: str) -> str:
    """``text`` (its digits already ``0``, :data:`_ZEROS`) with every run of digits one ``0``.

    The shape keeps a number a number: ``x=1e5`` is ``x=0e0``, not ``x=e`` (a
    name), ``v12`` and ``v3`` are both ``v0``, ``0x1f`` is ``0x0f``. Lines of one
    shape differ only in the digits of their digit runs, which changes no token's
    kind or extent (a digit run lies inside one name or one number token); at
    most it makes a number invalid (``08``, ``0b2``), a syntax error.
    """
    while "00" in text:
        text = text.replace("00", "0")
    return text


_PLACEHOLDER = "\x01"
#: after literals became the placeholder: a quote, comment or backslash (:data:`_AMBIGUOUS_CHARS`), or a placeholder
#: glued to a name or to another placeholder (:data:`_GLUED`) means Python may tokenize the line differently from the
#: regex (a prefix, triple quotes, ...)
_AMBIGUOUS_CHARS = ("'", '"', "#", "\\")
#: ``\w\x01|\x01\s*\x01``, anchored on the placeholder so the engine scans for one character, not three alternatives
_GLUED = re.compile(r"\x01(?:(?<=\w\x01)|\s*\x01)")


def _ambiguous(keys: str) -> bool:
    """True if the placeholder text ``keys`` may tokenize differently from what the literal regex assumed."""
    return any(c in keys for c in _AMBIGUOUS_CHARS) or _GLUED.search(keys) is not None


_IMPORT = re.compile(r"import ([A-Za-z_][\w.]*) as (m[0-9]+)\Z")
_PRINTER_NAME = re.compile(r"(?:v|input_|a)[0-9]+\Z")


#: layout rules of the fast path as searches over the text (``\n`` then the line): a line indented deeper than four
#: spaces (a plain substring: ``str.find``, several times faster than the same search by ``re``), and an indented
#: line whose nearest non-empty unindented line above it is not a ``def``
_DEEP_INDENT = "\n     "
#: the reference of :func:`_indented_outside_def` (the checking mode's): the regex reads every character of the text
_INDENT_OUTSIDE_DEF = re.compile(r"\n(?!def )(?! {4})[^\n]++\n+ {4}")  # possessive: the line is read once, never backtracked
#: :data:`_ZEROS` for ASCII text as bytes (``bytes.translate`` reads a 256-entry table: several times faster than ``str.translate``)
_ZEROS_ASCII = bytes.maketrans(b"123456789", b"000000000")
_INDENTED = "\n    "


def _indented_outside_def(text: str, pos: int) -> bool:
    """Whether ``_INDENT_OUTSIDE_DEF.search(text, pos)`` matches, found by ``str.find`` from the indented lines only.

    The regex matches a non-empty line that starts after a line break at or after ``pos``, does not start
    with ``def `` or four spaces, and is followed (after empty lines only) by a line starting with four
    spaces. So: some line starting with four spaces after ``pos`` whose nearest non-empty line above it
    starts after ``pos`` and is neither indented nor a ``def``. A program has few indented lines (the
    region functions' bodies): this reads those and the line above each, not every character.
    """
    find, rfind = text.find, text.rfind
    i = find(_INDENTED, pos)
    while i != -1:
        end = i  # the line above ends here; skip the empty ones
        start = rfind("\n", 0, end) + 1
        while start == end and start > 0:
            end = start - 1
            start = rfind("\n", 0, end) + 1
        if start > pos and start != end and not text.startswith(("def ", "    "), start, end):
            return True
        i = find(_INDENTED, i + 1)
    return False


#: a line whose literal-free text starts with a literal: the ambiguity test could then span two lines
_LEADING_LITERAL = re.compile(r"\s*\x01")


def _fast_check(source: str, filename: str, roots: Iterable[str] | None, checking: bool = False) -> bool:
    """Accept a program line by line when it is laid out as the printers lay it out; False: undecided (use the full check).

    Two lines that differ only inside string literals and in the digits of their digit
    runs have the same *shape* (:func:`_number_shape`: a number stays a number, never
    becomes a name); one line of each shape (the first) is checked with the AST allow-list
    (names limited to the printers' ``v<N>`` / ``input_<N>`` / ``a<N>`` / ``m<N>``),
    so an 8 MB program costs a few passes of C string methods instead of a 1 GB AST.

    Two equivalent procedures give the verdict: :func:`_fast_check_distinct` (text
    without a backslash: the digits made ``0`` first, then the literals found in each
    distinct line only) and :func:`_fast_check_lines` (any text: the literals found
    in the whole text, then a loop over every line). The first hands the few texts
    it cannot decide exactly as the second would to the second. ``checking``: the layout rule
    :data:`_INDENT_OUTSIDE_DEF` is searched by its regex, not by :func:`_indented_outside_def`
    (the checking mode's slow truth).
    """
    if _PLACEHOLDER in source:
        return False
    skip = 0
    while source.startswith("#", skip):  # the header comment
        skip = source.find("\n", skip) + 1
        if skip == 0:
            return False
    body = source[skip:]
    if "\\" not in body:
        verdict = _fast_check_distinct(body, filename, roots, checking)
        if verdict is not None:
            return verdict
    return _fast_check_lines(body, body.split("\n"), filename, roots)


def _header_end(lines: list[str], c: _Checker) -> int | None:
    """The index of the first line after the import header (empty lines among the imports skipped); None: a refused import."""
    start, n = 0, len(lines)
    while start < n:
        line = lines[start]
        if line:
            m = _IMPORT.match(line)
            if m is None:
                break
            try:
                c.check_import(None, _Alias(m.group(1), m.group(2)))
            except ProgramCheckError:
                return None
        start += 1
    return start


def _header_lines(body: str) -> tuple[list[str], int]:
    """The lines of ``body`` up to and including its first line that is neither empty nor an import
    (all of them when there is none), and the offset in ``body`` where the last one begins.

    What :func:`_header_end` reads, without splitting the whole text.
    """
    out: list[str] = []
    find, pos = body.find, 0
    while True:
        end = find("\n", pos)
        line = body[pos:] if end == -1 else body[pos:end]
        out.append(line)
        if (line and _IMPORT.match(line) is None) or end == -1:
            return out, pos
        pos = end + 1


def _lines_at(body: str, zlines: list[bytes] | list[str], wanted: Iterable[int]) -> dict[int, str]:
    """``{i: body.split("\n")[i]}`` for ``i`` in ``wanted``, cut from ``body`` by the lengths of ``zlines``
    (``body``'s lines with digits zeroed: the same lengths)."""
    want = sorted(set(wanted))
    out: dict[int, str] = {}
    pos = 0
    j = 0
    for i in want:
        while j < i:
            pos += len(zlines[j]) + 1
            j += 1
        out[i] = body[pos : pos + len(zlines[i])]
    return out


def _check_shapes(c: _Checker, lines: list[str] | dict[int, str], shapes: Iterable[int], filename: str) -> bool:
    """Check the lines ``lines[i]`` for ``i`` in ``shapes`` with the AST allow-list, names limited to the printers'."""
    c.shape_only = True
    for i in shapes:
        line = lines[i]
        if line.startswith("    "):
            text = "def v0():\n" + line + "\n"
        elif line.startswith("def "):
            text = line + "\n    return []\n"
        else:
            text = line + "\n"
        try:
            tree = ast.parse(text, filename)
            for st in tree.body:
                c.statement(st, False)
        except (SyntaxError, ValueError, ProgramCheckError, RecursionError):
            return False
    return True


def _fast_check_distinct(body: str, filename: str, roots: Iterable[str] | None, checking: bool = False) -> bool | None:
    """:func:`_fast_check_lines`'s verdict for a ``body`` without a backslash, from its distinct lines; None: undecided.

    Without a backslash a literal is a quote, anything but that quote and a
    line break, the quote: making every digit ``0`` first moves no literal's
    ends, so the shape of a line is the literals of its zeroed text replaced
    and its digit runs shortened to one ``0`` (:func:`_number_shape`), and each
    distinct zeroed line is read once. The layout rules are two searches over
    the text (:func:`_indented_outside_def`; the regex when ``checking``); the checked line of a
    shape is its first line, as in the loop.
    None (the loop decides) when a line's shape starts with a literal (the
    ambiguity test could then span two lines).
    """
    c = _Checker(filename, roots)
    head, offset = _header_lines(body)  # the whole text is never split into its own lines: only the zeroed one
    start = _header_end(head, c)
    if start is None:
        return False
    if start < len(head):  # lines[start] begins at offset
        if body.startswith("    ", offset):  # an indented line before any def
            return False
        text, pos = (body, offset - 1) if offset else ("\n" + body, 0)
        if text.find(_DEEP_INDENT, pos) != -1:
            return False
        if (_INDENT_OUTSIDE_DEF.search(text, pos) is not None) if checking else _indented_outside_def(text, pos):
            return False
    # the zeroed lines (ASCII text: as bytes, decoded only when distinct); line i has the length of body's
    # line i (translate maps one character to one)
    zlines: list[bytes] | list[str]
    distinct: Iterable[tuple[str, int]]  # distinct non-empty zeroed line -> its first index (after the header)
    if body.isascii():
        zlines = body.encode("ascii").translate(_ZEROS_ASCII).split(b"\n")
        n = len(zlines)
        firsts = dict(zip(reversed(zlines[start:]), range(n - 1, start - 1, -1)))
        firsts.pop(b"", None)
        distinct = [(d.decode("ascii"), i) for d, i in firsts.items()]
    else:
        zlines = body.translate(_ZEROS).split("\n")
        n = len(zlines)
        first = dict(zip(reversed(zlines[start:]), range(n - 1, start - 1, -1)))
        first.pop("", None)
        distinct = first.items()
    literal = _STR_LIT if '"' in body else _SQ_LIT
    sub = literal.sub
    shapes: dict[str, int] = {}
    for d, i in distinct:
        k = _number_shape(sub(_PLACEHOLDER, d))
        j = shapes.get(k)
        if j is None or i < j:
            shapes[k] = i
    for k in shapes:
        if _LEADING_LITERAL.match(k) is not None:
            return None
        if _ambiguous(k):
            return False
    lines = _lines_at(body, zlines, shapes.values())
    if checking:  # the slow truth: the text's own lines
        split = body.split("\n")
        if any(split[i] != line for i, line in lines.items()):  # pragma: no cover - lengths are kept by translate
            raise AssertionError("check_program: a line cut by the zeroed text's lengths is not the text's line")
    return _check_shapes(c, lines, shapes.values(), filename)


def _fast_check_lines(body: str, lines: list[str], filename: str, roots: Iterable[str] | None) -> bool:
    """The fast path's verdict for any ``body`` (:func:`_fast_check`): the literals of the whole text, then each line."""
    # without a double quote in the text only the single-quoted alternative of _STR_LIT can match (half the time)
    literal = _STR_LIT if '"' in body else _SQ_LIT
    keys = literal.sub(_PLACEHOLDER, body).translate(_ZEROS)  # digit runs are shortened per distinct line, below
    if _ambiguous(keys):
        return False
    klines = keys.split("\n")
    n = len(lines)
    if n != len(klines):
        return False
    c = _Checker(filename, roots)
    start = _header_end(lines, c)
    if start is None:
        return False
    zeroed: dict[str, int] = {}  # zeroed line -> its first line, in first-seen order
    setdefault = zeroed.setdefault
    in_def = False
    for i in range(start, n):
        line = lines[i]
        if not line:
            continue
        if line.startswith("    "):
            if not in_def or line[4:5] == " ":
                return False
        else:
            in_def = line.startswith("def ")
        setdefault(klines[i], i)
    shapes: dict[str, int] = {}  # shape -> its first line
    for k, i in zeroed.items():
        shapes.setdefault(_number_shape(k), i)  # first-seen order: the first zeroed line of a shape is its first line
    return _check_shapes(c, lines, shapes.values(), filename)


class _Alias:
    """An ``import <name> as <asname>`` clause read by the fast path."""

    def __init__(self, name: str, asname: str):
        self.name, self.asname = name, asname


def check_program(source: str, filename: str = "penguin.py", roots: Iterable[str] | None = None, checking: bool = False) -> None:
    """Refuse a program outside the shapes a Penguin printer emits (see the module docstring).

    Args:
        source: the program text.
        filename: named in the error.
        roots: the module paths the program may import (each with its
            submodules); None accepts any module path except :data:`REAL_MODULES`.
        checking: the fast path's layout rule by its reference regex (the checking printer's: the slow truth).

    Raises:
        ProgramCheckError: the first statement or expression outside the allow-list, or text that is not Python.
    """
    if _fast_check(source, filename, roots, checking):
        return
    _whole_check(source, filename, roots)


def _whole_check(source: str, filename: str, roots: Iterable[str] | None) -> None:
    """:func:`check_program` without the fast path: the AST of the whole program against the allow-list."""
    try:
        tree = ast.parse(source, filename)
    except (SyntaxError, ValueError) as e:
        line = getattr(e, "lineno", None)
        raise ProgramCheckError(f"{filename} is not valid Python: {getattr(e, 'msg', e)} (line {line})", filename=filename) from None
    except RecursionError:
        raise ProgramCheckError(f"{filename}: the program nests too deeply to be parsed", filename=filename) from None
    c = _Checker(filename, roots)
    c.collect(tree)
    for st in tree.body:
        c.statement(st, False)
