"""Plain data of the printers: an op as read once (:class:`OpRecord`), a region function being printed
(:class:`FunctionScope`), and the one statement format (:func:`format_statement`)."""

from __future__ import annotations

from operator import itemgetter


class OpRecord(tuple):
    """One op as read once through the binding (see the module docstring): a plain tuple with named fields.

    Fields (in order): ``op`` (the ``ir.Operation``, for handlers that read
    more, and for errors), ``name``, ``srcs`` (operand ids,
    :attr:`Emitter.value_key`), ``results`` (result ids), ``types`` (result
    ``ir.Type``s), ``tkeys`` (their ids, ``hash``), ``loc`` (the
    ``ir.Location``), ``lkey`` (the id of its attribute), ``nregions``,
    ``items`` (``op.attributes.items()``: ``[(name, attr)]`` in order, or None
    when the binding cannot hand an attribute to Python -- dense complex
    values -- and :meth:`Emitter.attr_items` reads them by index).
    """

    __slots__ = ()

    op = property(itemgetter(0))
    name = property(itemgetter(1))
    srcs = property(itemgetter(2))
    results = property(itemgetter(3))
    types = property(itemgetter(4))
    tkeys = property(itemgetter(5))
    loc = property(itemgetter(6))
    lkey = property(itemgetter(7))
    nregions = property(itemgetter(8))
    items = property(itemgetter(9))


def op_record(op, name, srcs, results=(), types=(), tkeys=(), loc=None, lkey=None, nregions=0, items=None) -> OpRecord:
    """An :class:`OpRecord` from its fields."""
    return OpRecord((op, name, srcs, results, types, tkeys, loc, lkey, nregions, items))


#: the "terminator" of a block without one: no operands
NO_TERMINATOR = op_record(None, "", ())


class FunctionScope:
    """A region function being printed: its name, block parameters, captured names and lines.

    Every region function is a module-level ``def`` (format section 7): a
    name it reads that an enclosing region function binds is passed to it
    explicitly (a *capture*, after the block parameters), so the printed
    program has one indentation level whatever the nesting depth.
    """

    __slots__ = ("captures", "lines", "name", "params")

    def __init__(self, name: str):
        self.name = name
        self.params: list[str] = []
        self.captures: dict[str, None] = {}  # ordered set, first-use order
        self.lines: list[str] = []


def format_statement(indent: str, results, callee: str, srcs, dsts: str, keywords: str, dl: str) -> str:
    """One statement of the program (format section 5); every statement goes through here.

    Args:
        indent: leading whitespace.
        results: the names bound to the results (none: no assignment).
        callee: ``m<K>.<PyOp>``.
        srcs: the operand names.
        dsts: the rendered ``[<spec>, ...]``.
        keywords: ``", k=v"`` for each keyword between ``dsts`` and ``dl``, in order.
        dl: the rendered ``DebugLocation(...)``.
    """
    lhs = f"{', '.join(results)} = " if results else ""
    return f"{indent}{lhs}{callee}(srcs=[{', '.join(srcs)}], dsts={dsts}{keywords}, dl={dl})"


def statement_parts(callee: str, dsts: str, keywords: str, dl_prefix: str) -> tuple[str, str]:
    """:func:`format_statement`'s text cut around the operand names and the location's close: ``(head, tail)``.

    For any ``indent``, ``results``, ``srcs`` and ``close`` (the text that ends the
    ``DebugLocation(...``: ``")"`` or ``", parent=...)"``),
    ``format_statement(indent, results, callee, srcs, dsts, keywords, dl_prefix + close)`` is
    ``indent + lhs + head + ", ".join(srcs) + tail + close + ")"`` with ``lhs`` ``", ".join(results) + " = "``
    (``""`` without results): the memoised statements are assembled so.
    """
    text = format_statement("", (), callee, (_CUT,), dsts, keywords, dl_prefix + _CUT)
    head, tail, end = text.split(_CUT)
    assert end == ")", text
    return head, tail


#: a character no rendered part contains (every input-derived text is quoted by py_literal, which escapes it)
_CUT = "\x00"


def keyword_text(items) -> str:
    """``", k=v"`` for each ``(k, v)`` (``v`` is Python source)."""
    return "".join([f", {k}={v}" for k, v in items])


def camel(short: str) -> str:
    """``dot_general`` -> ``DotGeneral``."""
    return "".join(p[:1].upper() + p[1:] for p in short.split("_"))
