"""Errors and locations (DESIGN.md "Rules of the IR"; the brief's "Bad input").

Every failure the user can cause ends as one :class:`HiloError`: a message, an
optional error code (``NCC_DRV001``, ``NCC_ISPP054``, ``NCC_EVRF036``), and a
location rendered as ``file:line:col``; nothing prints a traceback.

:meth:`HiloError.format` is the one-line form (batch reports, the API).
The command-line tools print :func:`render`: MLIR's
``SourceMgrDiagnosticHandler`` layout, i.e. ``file:line:col: error: ...``,
the source line and a caret under the column when the location is in a file
the tool read, then one ``note:`` per secondary location. A note at the
location just shown (the verifier's ``see current operation``) does not quote
the line again, as mlir-opt's handler does. A call-site location
(``callsite(<callee> at <caller>)``, what inlining leaves) reports at the
callee and adds ``note: called from`` at each caller, as MLIR does.

Text from the input is shown escaped (:func:`printable`): a control character
(``\x1b``, ``\r``) or bidirectional override in a quoted line, a message or a
location's file name is printed as its ``repr`` escape, and the caret stays
under the column (MLIR counts bytes) of what is shown.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Literal, Protocol, cast

from hilo_mlir.support.mlir_strings import mlir_unescape

# The binding's objects as this module uses them (support/ imports no binding: DESIGN.md "The stack").


class _MlirDiagnostic(Protocol):
    """An ``ir.Diagnostic`` (or one of its notes): severity, message, location, notes."""

    @property
    def severity(self) -> object: ...
    @property
    def message(self) -> str: ...
    @property
    def location(self) -> object: ...
    @property
    def notes(self) -> Sequence[_MlirDiagnostic]: ...


class _HandlerHandle(Protocol):
    def detach(self) -> None: ...


class _DiagnosticContext(Protocol):
    """An ``ir.Context``: where a diagnostic handler is attached."""

    # jaxlib's stub types the returned ``DiagnosticHandler`` as ``object``; :class:`capture_diagnostics` casts it.
    def attach_diagnostic_handler(self, callback: Callable[[_MlirDiagnostic], bool]) -> object: ...


class _NamedLocated(Protocol):
    """An ``ir.Operation`` / ``OpView``: its name and location."""

    @property
    def name(self) -> str: ...
    @property
    def location(self) -> object: ...


#: A parsed location (:class:`_LocParser`), a tuple tagged by its first item:
#: ``("file", FileLoc)``, ``("callsite", callee, caller)``, ``("fused", [tree, ...])``,
#: ``("name", tree | None)`` or ``("unknown",)``.
_LocTree = tuple[object, ...]

_FILE_LOC = re.compile(r'"([^"]*)":(\d+):(\d+)')


def location_to_str(loc: object, filename: str | None = None) -> str | None:
    """Render an MLIR location as ``file:line:col`` (first file location found).

    Args:
        loc: an ``ir.Location`` or its string form.
        filename: substituted for the ``-`` buffer name the parser uses.

    Returns:
        ``"file:line:col"``, or the name of a NameLoc (``"x"``), or ``None`` for
        an unknown location.
    """
    text = str(loc)
    m = _FILE_LOC.search(text)
    if m:
        f = mlir_unescape(m.group(1))
        if f == "-" and filename:
            f = filename
        return f"{f}:{m.group(2)}:{m.group(3)}"
    m = re.search(r'loc\("([^"]*)"', text)
    if m:
        return mlir_unescape(m.group(1))
    return None


def location_name_only(loc: object) -> str | None:
    """The name of a location that names no file position (JAX's ``loc("lu")``), else None."""
    if loc is None:
        return None
    text = str(loc)
    if _FILE_LOC.search(text) or re.fullmatch(r".+:\d+:\d+", text):
        return None
    m = re.search(r'loc\("([^"]*)"', text)
    if m:
        return mlir_unescape(m.group(1))
    if text and not text.startswith("loc(") and not any(c in text for c in "/.:"):
        return text  # its printed name
    return None


def location_line(loc: object) -> int | None:
    """The line number of the first file location in ``loc`` (or None)."""
    m = _FILE_LOC.search(str(loc))
    return int(m.group(2)) if m else None


@dataclass(frozen=True)
class FileLoc:
    """A file location: ``file:line:col`` (1-based line and column)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class _LocParser:
    """Reads the printed form of an MLIR location (``loc(...)``) into its location stack."""

    def __init__(self, text: str) -> None:
        self.t = text
        self.i = 0

    def peek(self, s: str) -> bool:
        while self.i < len(self.t) and self.t[self.i] == " ":
            self.i += 1
        return self.t.startswith(s, self.i)

    def eat(self, s: str) -> bool:
        if self.peek(s):
            self.i += len(s)
            return True
        return False

    def string(self) -> str:
        assert self.t[self.i] == '"'
        j = self.i + 1
        out = []
        while j < len(self.t) and self.t[j] != '"':
            if self.t[j] == "\\" and j + 1 < len(self.t):  # an escape: keep it whole for mlir_unescape
                out.append(self.t[j])
                j += 1
            out.append(self.t[j])
            j += 1
        self.i = j + 1
        return mlir_unescape("".join(out))

    def integer(self) -> int:
        m = re.compile(r"\d+").match(self.t, self.i)
        if not m:
            raise ValueError(self.t[self.i :])
        self.i = m.end()
        return int(m.group(0))

    def loc(self) -> _LocTree:
        """One location as a tree: ("file", FileLoc) | ("callsite", callee, caller) | ("fused", [..])
        | ("name", child | None) | ("unknown",)."""
        if self.eat("loc("):
            inner = self.loc()
            self.eat(")")
            return inner
        if self.eat("callsite("):
            callee = self.loc()
            self.eat("at")
            caller = self.loc()
            self.eat(")")
            return ("callsite", callee, caller)
        if self.eat("fused"):
            if self.peek("<"):
                depth = 0
                while self.i < len(self.t):
                    c = self.t[self.i]
                    self.i += 1
                    depth += c == "<"
                    depth -= c == ">"
                    if depth == 0:
                        break
            self.eat("[")
            parts = [self.loc()]
            while self.eat(","):
                parts.append(self.loc())
            self.eat("]")
            return ("fused", parts)
        if self.eat("unknown"):
            return ("unknown",)
        if self.peek('"'):
            name = self.string()
            if self.eat(":"):
                line = self.integer()
                self.eat(":")
                col = self.integer()
                if self.eat("to"):  # a range: keep its start
                    self.eat(":")
                    self.integer()
                    if self.eat(":"):
                        self.integer()
                return ("file", FileLoc(name, line, col))
            if self.eat("("):
                child = self.loc()
                self.eat(")")
                return ("name", child)
            return ("name", None)
        raise ValueError(self.t[self.i :])


def _showable(tree: _LocTree) -> FileLoc | None:
    """The location MLIR shows for a location (its ``findLocToShow``); iterative (locations nest to any depth)."""
    stack = [tree]
    while stack:
        t = stack.pop()
        kind = t[0]
        if kind == "file":
            return cast(FileLoc, t[1])
        if kind == "callsite":
            stack.append(cast(_LocTree, t[1]))
        elif kind == "name":
            if t[1] is not None:
                stack.append(cast(_LocTree, t[1]))
        elif kind == "fused":
            stack.extend(reversed(cast("list[_LocTree]", t[1])))  # the first part that shows wins
    return None


def location_stack(loc: object, filename: str | None = None) -> list[tuple[FileLoc, str]]:
    """``[(file location, context)]`` to show for ``loc``: the primary location first
    (context ``""``), then each caller of a call-site location (context ``"called from"``).
    The parser's ``-`` buffer name becomes ``filename``. Empty for an unknown location."""
    text = str(loc)
    try:
        tree = _LocParser(text).loc()
    except (ValueError, IndexError, AssertionError, RecursionError):  # nested deeper than the recursion limit: the first file location
        m = _FILE_LOC.search(text)
        tree = ("file", FileLoc(mlir_unescape(m.group(1)), int(m.group(2)), int(m.group(3)))) if m else ("unknown",)
    stack: list[tuple[FileLoc, str]] = []
    first = _showable(tree)
    if first is not None:
        stack.append((first, ""))
    while tree[0] == "callsite":
        tree = cast(_LocTree, tree[2])
        f = _showable(tree)
        if f is not None:
            stack.append((f, "called from"))
    if filename:
        stack = [(FileLoc(filename, f.line, f.col) if f.file == "-" else f, c) for f, c in stack]
    return stack


@dataclass
class Diagnostic:
    """One diagnostic: severity (error/warning/remark/note), message, location.

    ``loc`` is the ``file:line:col`` text; ``raw`` (optional) the MLIR location
    it came from, so that :func:`render` can follow call sites.
    """

    severity: str
    message: str
    loc: str | None = None  # "file:line:col"
    line: int | None = None
    raw: object = None

    def format(self) -> str:
        """``file:line:col: severity: message``, non-printable characters but line breaks and tabs escaped (:func:`printable`)."""
        where = f"{self.loc}: " if self.loc else ""
        return printable(f"{where}{self.severity}: {self.message}")

    @property
    def col(self) -> int | None:
        m = re.search(r":(\d+):(\d+)$", self.loc or "")
        return int(m.group(2)) if m else None


def _source_line(sources: dict[str, str] | None, loc: FileLoc) -> str | None:
    text = sources.get(loc.file) if sources else None
    if text is None:
        return None
    lines = text.split("\n")
    if not 1 <= loc.line <= len(lines):
        return None
    return lines[loc.line - 1].rstrip("\r")


def _escape_char(c: str) -> str:
    """``c`` as ``repr`` escapes it (``\\x1b``, ``\\u202e``, ``\\U000e0001``): a non-printable character shown as text."""
    return repr(c)[1:-1]


def escape_text(text: str, keep: str = "") -> str:
    """``text`` with every non-printable character escaped as ``repr`` writes it (``\\x1b``, ``\\n``, ``\\u202e``),
    except those in ``keep``. The one escaping rule of every error the tools and the API show."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c in keep else _escape_char(c) for c in text)


def printable(text: str) -> str:
    """``text`` with every non-printable character but line breaks and tabs escaped (``\\x1b``, ``\\r``, ``\\u202e``).

    What the tools print of the input -- a quoted source line, a message that
    quotes a name, a location's file name -- goes through it: input text must
    not reach the user's terminal as control sequences (colours, cursor moves,
    a carriage return that hides the start of a line, bidirectional overrides).
    """
    return escape_text(text, "\n\t")


def shown_text(text: str) -> str:
    """``text`` as one line: every non-printable character escaped, line breaks and tabs too (``a\\nb``, ``\\x1b``).

    The one-line forms (:meth:`HiloError.format`, the batch report's diagnostics,
    :func:`internal_error`) show text from the input through it: it can neither
    reach a terminal as a control sequence nor look like more than one line.
    """
    return escape_text(text)


def shown_path(path: str) -> str:
    """``path`` as the tools show it in an error: every non-printable character escaped, line breaks and tabs too
    (``a\\nb``, ``\\x1b``), so that a file name can neither reach the terminal as a control sequence nor look like
    more than one line."""
    return escape_text(path)


def _width(c: str) -> int:
    """Terminal columns of one printable character: 2 for East Asian wide and full-width ones, else 1."""
    return 2 if c >= "\u1100" and unicodedata.east_asian_width(c) in "WF" else 1


def shown_source_line(line: str, col: int) -> tuple[str, str]:
    """A source line as printed under a diagnostic, and the caret line under byte column ``col``.

    Args:
        line: the line's text (no line break).
        col: MLIR's 1-based column, a count of UTF-8 bytes.

    Returns:
        ``(shown, caret)``: the line with non-printable characters escaped (:func:`printable`,
        tabs included), and ``^`` preceded by one space per terminal column of the shown text
        before the column (a tab for a tab, two spaces for a wide character), so the caret
        stays under the character the column names.
    """
    before = line.encode("utf-8")[: max(col - 1, 0)].decode("utf-8", "ignore")
    if line.isprintable() and before.isascii():  # the common case
        return line, " " * len(before) + "^"
    shown = "".join(c if c.isprintable() or c == "\t" else _escape_char(c) for c in line)
    pad = []
    for c in before:
        if c == "\t":
            pad.append("\t")
        elif c.isprintable():
            pad.append(" " * _width(c))
        else:
            pad.append(" " * len(_escape_char(c)))
    return shown, "".join(pad) + "^"


def _one(severity: str, message: str, where: FileLoc | None, sources: dict[str, str] | None, prefix: str, quote: bool = True) -> list[str]:
    if where is None:
        return [printable(f"{prefix}{severity}: {message}")]
    if where.line == 0:  # the implicit module of a file: no line to show
        return [printable(f"{shown_path(where.file)}: {severity}: {message}")]
    out = [printable(f"{shown_path(where.file)}:{where.line}:{where.col}: {severity}: {message}")]
    src = _source_line(sources, where) if quote else None
    if src is not None:
        out.extend(shown_source_line(src, where.col))
    return out


def render(
    severity: str,
    message: str,
    loc: object = None,
    *,
    filename: str | None = None,
    sources: dict[str, str] | None = None,
    notes: Iterable[Diagnostic] = (),
    tool: str | None = None,
    after: FileLoc | None = None,
) -> str:
    """A diagnostic as the tools print it (MLIR's layout; see the module docstring).

    Args:
        severity: ``error``, ``warning``, ``remark`` or ``note``.
        message: the text (one line).
        loc: an ``ir.Location``, its printed form, a ``file:line:col`` string, or None.
        filename: replaces the parser's ``-`` buffer name.
        sources: ``{file name: text}`` of the files whose lines may be quoted.
        notes: :class:`Diagnostic` notes (and secondary errors), each rendered the same way.
        tool: prefix of a diagnostic without a location (``hilo-opt: error: ...``), as argparse does.
        after: for a note, the location shown by the diagnostic printed just before it (its error or
            the previous note): a note shown at the same place does not quote the source line again,
            as MLIR's ``SourceMgrDiagnosticHandler`` does. ``notes`` are rendered that way.

    Returns:
        The text, lines joined with ``\n`` (no trailing newline).
    """
    prefix = f"{tool}: " if tool else ""
    name = location_name_only(loc)
    if name is not None:  # JAX's loc("lu"): no position; the file it came from, and the name
        message += f" (at '{name}')"
        loc = None
        if filename and filename not in ("-", "<stdin>"):
            prefix = f"{filename}: "
    stack = _stack_of(loc, filename)
    if not stack and loc is not None and filename and filename != "-" and str(loc).startswith("loc("):
        prefix = f"{filename}: "  # a location with no file position (loc(unknown)): the file it came from
    shown = stack[0][0] if stack else None
    lines = _one(severity, message, shown, sources, prefix, quote=shown != after)
    if not stack and loc is not None and isinstance(loc, str) and not loc.startswith("loc(") and loc:
        lines = [printable(f"{loc}: {severity}: {message}")]  # a name location or a bare file name
    for f, ctx in stack[1:]:
        lines += _one("note", ctx, f, sources, prefix)
    last = shown
    for n in notes:
        nloc = n.raw if n.raw is not None else n.loc
        lines.append(
            render(n.severity, n.message, nloc, filename=filename, sources=sources, tool=tool, after=last if n.severity == "note" else None)
        )
        last = shown_location(nloc, filename)
    return "\n".join(lines)


def shown_location(loc: object, filename: str | None = None) -> FileLoc | None:
    """The file location :func:`render` shows (and quotes) for ``loc``; None when it shows none."""
    if loc is None or location_name_only(loc) is not None:
        return None
    stack = _stack_of(loc, filename)
    return stack[0][0] if stack else None


def render_all(
    diags: Iterable[Diagnostic], *, filename: str | None = None, sources: dict[str, str] | None = None, tool: str | None = None
) -> list[str]:
    """Render a list of diagnostics in which each note follows the diagnostic it belongs to (what
    :class:`capture_diagnostics` collects): a note at the location just shown does not quote its
    source line again (:func:`render`'s ``after``). One string per diagnostic."""
    out: list[str] = []
    last: FileLoc | None = None
    for d in diags:
        loc = d.raw if d.raw is not None else d.loc
        out.append(
            render(d.severity, d.message, loc, filename=filename, sources=sources, tool=tool, after=last if d.severity == "note" else None)
        )
        last = shown_location(loc, filename)
    return out


def _stack_of(loc: object, filename: str | None) -> list[tuple[FileLoc, str]]:
    if loc is None:
        return []
    text = str(loc)
    m = re.fullmatch(r"(.+):(\d+):(\d+)", text)
    if m and not text.startswith("loc("):
        f = m.group(1)
        return [(FileLoc(filename if (f == "-" and filename) else f, int(m.group(2)), int(m.group(3))), "")]
    return location_stack(loc, filename)


@dataclass
class HiloError(Exception):
    """A user-facing failure: one clear line, exit code 1.

    Attributes:
        message: what went wrong, naming the op where there is one.
        loc: an ``ir.Location`` (or string) where it went wrong, or None.
        code: a seed error code (``NCC_DRV001`` ...) or None.
        notes: extra diagnostics (e.g. the MLIR parser's notes).
    """

    message: str
    loc: object = None
    code: str | None = None
    notes: list[Diagnostic] = field(default_factory=list)
    filename: str | None = None
    #: the pass that failed, when a pipeline step raised it
    pass_name: str | None = None
    #: the passes' debug lines up to the failure (set by the driver; ``--debug`` prints them)
    log: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__(self.message)

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.format()

    def format(self, filename: str | None = None) -> str:
        """The one-line form (the API's ``str(e)``, the batch report): ``file:line:col: error: [CODE: ]message``.

        Text from the input in it (a file name, a quoted name, the message) is shown escaped
        (:func:`shown_text`): no control character, no line break.
        """
        fname = filename or self.filename
        name = location_name_only(self.loc)
        where = location_to_str(self.loc, fname) if self.loc is not None and name is None else None
        head = f"{where}: " if where else (f"{fname}: " if fname else "")
        return shown_text(f"{head}error: {self.text()}")

    def text(self) -> str:
        """``[CODE: ]message[ (at 'name')]``, unescaped: the message as a diagnostic carries it (no location)."""
        code = f"{self.code}: " if self.code else ""
        name = location_name_only(self.loc)
        at = f" (at '{name}')" if name else ""  # a name location: the file, and the name the op carries
        return f"{code}{self.message}{at}"

    @property
    def line(self) -> int | None:
        return location_line(self.loc) if self.loc is not None else None

    def also(self, filename: str | None = None) -> tuple[list[HiloError], list[str]]:
        """The further independent errors this one stands for, each located (e.g. every op after the first of a
        module the printer cannot emit), and summary lines after them; ``([], [])`` for a single error."""
        return [], []

    def render(self, filename: str | None = None, sources: dict[str, str] | None = None, tool: str | None = None) -> str:
        """The multi-line form the tools print (:func:`render`): source line, caret, notes."""
        fname = filename or self.filename
        name = location_name_only(self.loc)
        message = self.text()
        if (self.loc is None or name is not None) and fname:
            head = render("error", message, None, notes=self.notes, filename=fname, sources=sources)
            return f"{fname}: {head}"
        loc = None if name is not None else self.loc
        return render("error", message, loc, filename=fname, sources=sources, notes=self.notes, tool=tool)


def render_every(e: HiloError, render_one: Callable[[HiloError], str], filename: str | None = None) -> str:
    """``e`` and every further error it stands for (:meth:`HiloError.also`), each rendered by ``render_one``
    (the tool's form: source line and caret), then the summary lines; joined with ``\n``."""
    rest, summary = e.also(filename)
    return "\n".join([render_one(e), *(render_one(x) for x in rest), *summary])


class PassFailure(HiloError):
    """Raised inside a pass; the pipeline adds the pass name."""


def op_error(op: _NamedLocated, message: str, code: str | None = None) -> HiloError:
    """Build a :class:`HiloError` located at ``op`` and naming its op name."""
    return HiloError(f"'{op.name}' op {message}", loc=op.location, code=code)


#: a "see current operation" note longer than this many lines is dropped (it is the op's generic dump)
MAX_OP_DUMP_LINES = 40


def whole_module_dump(message: str) -> bool:
    """Whether a note is MLIR's "see current operation" dump of a module (or of any op of more than
    :data:`MAX_OP_DUMP_LINES` lines): the error already names the op and its location, and a model's dump is
    thousands of lines."""
    m = message.strip()
    if not m.startswith("see current operation"):
        return False
    body = m.split(":", 1)[1].lstrip() if ":" in m else ""
    return body.startswith('"builtin.module"') or body.count("\n") >= MAX_OP_DUMP_LINES


def from_mlir_error(exc: BaseException, filename: str | None = None) -> HiloError:
    """Convert the binding's ``MLIRError`` into a :class:`HiloError`.

    The first error diagnostic becomes the message and location; the others
    (and their notes) are kept as notes.
    """
    diags: list[_MlirDiagnostic] = list(getattr(exc, "error_diagnostics", []) or [])
    if not diags:
        text = str(exc).strip().splitlines()
        msg = text[-1] if text else "unknown MLIR error"
        msg = re.sub(r'^error: ("[^"]*":\d+:\d+: )?', "", msg.strip())
        m = _FILE_LOC.search(str(exc))
        loc = f'loc("{m.group(1)}":{m.group(2)}:{m.group(3)})' if m else None
        return HiloError(msg, loc=loc, filename=filename)
    first = diags[0]
    notes: list[Diagnostic] = []
    for d in diags:
        for n in getattr(d, "notes", []) or []:
            if whole_module_dump(n.message):
                continue
            notes.append(Diagnostic("note", n.message.strip(), location_to_str(n.location, filename), location_line(n.location)))
    for d in diags[1:]:
        notes.append(Diagnostic("error", d.message.strip(), location_to_str(d.location, filename), location_line(d.location)))
    return HiloError(first.message.strip(), loc=first.location, notes=notes, filename=filename)


def internal_error(tool: str, exc: BaseException) -> int:
    """Report an unexpected exception as one line (traceback only with HILO_MLIR_TRACEBACK=1); returns 1."""
    import os
    import sys
    import traceback

    if os.environ.get("HILO_MLIR_TRACEBACK"):
        traceback.print_exc()
    where = getattr(exc, "hilo_pass", None)
    during = f" (while running pass '{where}')" if where else ""
    sys.stderr.write(
        shown_text(f"{tool}: internal error: {type(exc).__name__}: {exc}{during}") + " (set HILO_MLIR_TRACEBACK=1 for details)\n"
    )
    return 1


class capture_diagnostics:
    """Collect the MLIR diagnostics emitted in ``context`` (instead of MLIR printing them raw).

    Usage::

        with capture_diagnostics(ctx, filename) as diags:
            ...                      # diags: list[Diagnostic], formatted with ``filename``
    """

    def __init__(self, context: _DiagnosticContext, filename: str | None = None) -> None:
        self.context = context
        self.filename = filename
        self.diags: list[Diagnostic] = []
        self._handle: _HandlerHandle | None = None

    def _handler(self, d: _MlirDiagnostic) -> bool:
        sev = str(d.severity).rsplit(".", 1)[-1].lower()
        self.diags.append(Diagnostic(sev, d.message.strip(), location_to_str(d.location, self.filename), location_line(d.location)))
        for n in d.notes:
            self.diags.append(Diagnostic("note", n.message.strip(), location_to_str(n.location, self.filename), location_line(n.location)))
        return True

    def __enter__(self) -> list[Diagnostic]:
        self._handle = cast(_HandlerHandle, self.context.attach_diagnostic_handler(self._handler))
        return self.diags

    def __exit__(self, *exc: object) -> None:
        assert self._handle is not None, "__exit__ without __enter__"
        self._handle.detach()


class out_of_memory:
    """Turn a ``MemoryError`` inside the block into ``HiloError("out of memory while <phase>")``.

    Usage: ``with out_of_memory("parsing the input"): ...``; the CLIs print
    it as ``error: out of memory while parsing the input`` (exit 1).
    """

    def __init__(self, phase: str) -> None:
        self.phase = phase

    def __enter__(self) -> out_of_memory:
        return self

    def __exit__(self, tp: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> Literal[False]:
        if tp is not None and issubclass(tp, MemoryError):
            raise HiloError(f"out of memory while {self.phase}") from None
        return False


def not_utf8(e: BaseException) -> bool:
    """``e`` is the binding's failure to read an MLIR string (a name or attribute) that is not valid UTF-8.

    MLIR strings are bytes (``"\\FF"`` parses); the Python binding raises a
    ``RuntimeError`` when such a string is read as ``str``.
    """
    return isinstance(e, (RuntimeError, UnicodeDecodeError)) and (isinstance(e, UnicodeDecodeError) or "str_from_cstr_and_size" in str(e))


#: what a pass or stage that met such a string reports (the op and string are not known to Python)
NOT_UTF8_MESSAGE = "the module holds a string (a symbol name or a string attribute) that is not valid UTF-8; it cannot be compiled"
