"""Declared pass options: one frozen dataclass per pass, one field per option (MLIR's ``Pass::Option``,
xDSL's dataclass pass options).

A pass with options declares them once, beside its ``run`` function::

    @dataclass(frozen=True)
    class FoldIotaOptions:
        max_elements: int = option(1 << 20, "largest result (elements) folded into a constant")


    def _run(func_op: ir.Operation, ctx: PassContext[FoldIotaOptions]) -> None:
        limit = ctx.options.max_elements  # an int to mypy


    register_twins("fold-iota", ..., _run, options_type=FoldIotaOptions)

Each field is one option: its kebab-case name is the field's name
(``max_elements`` -> ``max-elements``), its type the field's annotation (``bool``,
``int``, ``float`` or ``str``), its default the field's; :func:`option` gives the
``--help`` line, a value check and whether the value names a file the pass
writes. The registry derives the :class:`~hilo_mlir.passmanager.pass_context.Option`
list (``--help``, the pipeline parser, ``docs/passes.md``) from the fields
(:func:`declared_options`) and gives the pass ``ctx.options`` as an instance
of the class.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable
from typing import Any

from hilo_mlir.passmanager.pass_checks import OPTION_TYPES, error
from hilo_mlir.passmanager.pass_context import Option, OptionValue

#: the metadata key of an option's declaration in a dataclass field
_KEY = "hilo_mlir.option"


@dataclasses.dataclass(frozen=True)
class _Declared:
    help: str
    check: Callable[[Any], str | None] | None
    writes_file: bool


def option(default: Any, help: str, *, check: Callable[[Any], str | None] | None = None, writes_file: bool = False) -> Any:
    """One option field of a pass's options dataclass (its default, its ``--help`` line).

    Args:
        default: the value when the pipeline does not set it (of the field's type).
        help: one line for ``--help``.
        check: validates a parsed value: returns why it is refused (a phrase), or None.
        writes_file: the value names a file or folder the pass writes (``--run-reproducer`` refuses such a reproducer).

    Returns:
        a ``dataclasses.field`` (typed ``Any`` so that ``x: int = option(...)`` type-checks).
    """
    return dataclasses.field(default=default, metadata={_KEY: _Declared(help, check, writes_file)})


def declared_options(cls: type) -> tuple[Option, ...]:
    """The :class:`Option` list of the options dataclass ``cls``, in field order.

    Raises:
        HiloError: located at the declaring call: ``cls`` is not a dataclass, a
            field is not declared with :func:`option`, or its type is not
            ``bool``, ``int``, ``float`` or ``str``.
    """
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise error(f"options_type must be a dataclass, got {getattr(cls, '__name__', type(cls).__name__)}")
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        decl = f.metadata.get(_KEY)
        if not isinstance(decl, _Declared):
            raise error(f"{cls.__name__}.{f.name}: declare the option with option(default, help)")
        t = hints.get(f.name)
        if t not in OPTION_TYPES:
            raise error(f"{cls.__name__}.{f.name}: an option's type is bool, int, float or str, not {t!r}")
        default = typing.cast("OptionValue", f.default)  # option() always sets one (checked against the type by register)
        out.append(Option(f.name.replace("_", "-"), typing.cast("type", t), default, decl.help, decl.check, decl.writes_file))
    return tuple(out)
