"""What :func:`hilo_mlir.register` checks before a pass enters the registry.

A pass declares data (:class:`~hilo_mlir.passmanager.registry.PassInfo`); a mistake in it
(a bad argument, an option whose default is not of its type, an undeclarable
statistic) is reported when the pass is registered, not when a pipeline
first runs it, as one :class:`~hilo_mlir.support.diagnostics.HiloError` located at
the ``register(...)`` call (``plugin.py:12:1``): the line a plugin author
must fix.
"""

from __future__ import annotations

import os
import re
import traceback
from typing import TYPE_CHECKING

from hilo_mlir.support.diagnostics import HiloError

if TYPE_CHECKING:
    from hilo_mlir.passmanager.registry import PassInfo

#: a pass argument / option / statistic name: kebab-case
KEBAB = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
#: kebab-case with at most one ``{placeholder}`` (a name that is only a placeholder, e.g. the
#: histogram's ``{op-name}``, is one statistic per value)
_STAT = re.compile(r"^(?!-)(?=.)(?:[a-z][a-z0-9]*(?:-[a-z0-9]+)*)?(?:-?\{[a-z][a-z0-9_-]*\}(?:-[a-z0-9]+)*)?$")
_HERE = {
    os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), n)) for n in ("registry.py", "pass_checks.py", "options.py")
}
ANCHORS = ("func.func", "builtin.module")
DIALECTS = (None, "mhlo", "stablehlo")
OPTION_TYPES = (bool, int, float, str)


def caller_location() -> str | None:
    """``loc("file":line:col)`` of the innermost frame outside the registry (the ``register`` call); a plugin file
    as the user named it (:func:`~hilo_mlir.passmanager.plugin_errors.shown_file`)."""
    from hilo_mlir.passmanager.plugin_errors import shown_file
    from hilo_mlir.support.mlir_strings import mlir_escape

    for fs in reversed(traceback.extract_stack()):
        # "<string>": the __init__ a dataclass generates (PassInfo's runs __post_init__ here)
        if os.path.realpath(fs.filename) not in _HERE and not fs.filename.startswith(("<frozen", "<string>")):
            return f'loc("{mlir_escape(shown_file(fs.filename))}":{fs.lineno}:{(fs.colno or 0) + 1})'
    return None


def error(message: str) -> HiloError:
    return HiloError(message, loc=caller_location())


def _default_ok(t: type, v: object) -> bool:
    if t is bool:
        return isinstance(v, bool)
    if t is int:
        return isinstance(v, int) and not isinstance(v, bool)
    if t is float:
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return isinstance(v, str)


def _check_aliases(info: PassInfo) -> None:
    for a in info.aliases:
        if not isinstance(a, str) or not KEBAB.match(a):
            raise error(f"pass '{info.argument}': invalid alias {a!r}: use kebab-case (lowercase words joined by '-')")


def check_pass(info: PassInfo) -> None:
    """Raise a located HiloError for the first thing wrong with ``info`` (a PassInfo)."""
    from hilo_mlir.passmanager.pass_context import Option, Statistic

    arg = info.argument
    if not isinstance(arg, str) or not KEBAB.match(arg):
        raise error(f"invalid pass argument {arg!r}: use kebab-case (lowercase words joined by '-')")
    _check_aliases(info)
    if not isinstance(info.summary, str) or not info.summary.strip():
        raise error(f"pass '{arg}' has no summary (one line for --help)")
    if not info.upstream and not callable(info.run):
        raise error(f"pass '{arg}': run must be a function run(op, ctx), got {type(info.run).__name__}")
    if info.anchor not in ANCHORS:
        raise error(f"pass '{arg}': anchor must be 'func.func' or 'builtin.module', got {info.anchor!r}")
    if info.dialect not in DIALECTS:
        raise error(f"pass '{arg}': dialect must be None, 'mhlo' or 'stablehlo', got {info.dialect!r}")
    seen = set()
    for o in info.options:
        if not isinstance(o, Option):
            raise error(f"pass '{arg}': options must be Option(...) values, got {type(o).__name__}")
        if not isinstance(o.name, str) or not KEBAB.match(o.name):
            raise error(f"pass '{arg}': invalid option name {o.name!r}: use kebab-case")
        if o.name in seen:
            raise error(f"pass '{arg}': option '{o.name}' declared twice")
        seen.add(o.name)
        if o.type not in OPTION_TYPES:
            raise error(f"pass '{arg}': option '{o.name}' has type {getattr(o.type, '__name__', o.type)!r} (use bool, int, float or str)")
        if not _default_ok(o.type, o.default):
            raise error(f"pass '{arg}': option '{o.name}' is {o.type.__name__} but its default {o.default!r} is {type(o.default).__name__}")
    for s in info.statistics:
        name = s.name if isinstance(s, Statistic) else s
        if not isinstance(name, str) or not _STAT.match(name):
            raise error(f"pass '{arg}': invalid statistic name {name!r}: use kebab-case, with at most one {{placeholder}}")
    if info.state is not None and not callable(info.state):
        raise error(f"pass '{arg}': state must be a class (instantiated once per run)")
