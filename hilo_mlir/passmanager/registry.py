"""The pass registry: every pass is data plus one function (DESIGN.md).

A pass is declared once as a :class:`PassInfo`: its command-line argument
(kebab-case from the binary's class name), a one-line summary, typed options,
the op it anchors on (``func.func`` or ``builtin.module``), the dialect(s) it
works on, and the seed line it comes from. The one function has the signature
``run(op, ctx: PassContext) -> None`` where ``op`` is the anchor op.

Twins (MHLO / StableHLO) are one function registered twice with a different
:class:`~hilo_mlir.ir.dialects.DialectTable` (``ctx.d``); the StableHLO twin's
argument is the MHLO one with a ``stablehlo-`` prefix.

A registered pass runs

* by name, inside :class:`hilo_mlir.passmanager.pipeline.Pipeline` (``hilo-opt``,
  ``hilo2penguin``), with verification after it; or
* inside a binding ``PassManager`` as a Python-defined pass:
  ``info.add_to_pass_manager(pm, fuse_dot_logistic=True)``.

Upstream C++ passes (``canonicalize``, ``cse``, ...) are also listed here as
:class:`PassInfo` with ``upstream=True`` so that ``--help`` and the pipeline
parser know them; they run through the binding's ``PassManager``.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import importlib
import json
import os
from dataclasses import dataclass, field
from typing import Any, Callable

from hilo_mlir.ir.dialects import MHLO, STABLEHLO, DialectTable
from hilo_mlir.passmanager.pass_context import PassContext, Statistic, Statistics  # noqa: F401  (re-exported: the API's names)
from hilo_mlir.support.diagnostics import HiloError


@dataclass(frozen=True)
class Option:
    """A typed pass option (``{name=value}`` in a pipeline string).

    Attributes:
        name: kebab-case option name.
        type: ``bool``, ``int``, ``float`` or ``str``.
        default: value when not given.
        help: one line for ``--help``.
    """

    name: str
    type: type
    default: Any
    help: str

    def parse(self, text: str, pass_arg: str) -> Any:
        """Parse ``text`` into this option's type; raise HiloError on a bad value."""
        t = text.strip()
        if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
            t = t[1:-1]
        try:
            if self.type is bool:
                low = t.lower()
                if low in ("1", "true", "on", "yes", ""):
                    return True
                if low in ("0", "false", "off", "no"):
                    return False
                raise ValueError(t)
            if self.type is int:
                return int(t, 0)
            if self.type is float:
                return float(t)
            return t
        except ValueError:
            raise HiloError(
                f"invalid value '{text}' for option '{self.name}' of pass '{pass_arg}' (expected {self.type.__name__})"
            ) from None


@dataclass(frozen=True)
class PassInfo:
    """A registered pass.

    Attributes:
        argument: the pipeline name (``neuron-op-fusion``).
        summary: one line for ``--help``.
        run: ``run(op, ctx)``; None for upstream passes.
        anchor: ``"func.func"`` (run once per function) or ``"builtin.module"``.
        dialect: ``"mhlo"``, ``"stablehlo"`` or None (both / neutral).
        options: the typed options.
        class_name: the binary's class name (shown in IR dumps and timing).
        source: where the behaviour comes from (seed section or DESIGN.md decision;
            shown only in ``docs/provenance.md``, never in ``--help``).
        upstream: True for the binding's own C++ passes.
        statistics: the statistics the pass may bump (names or :class:`Statistic`).
        state: a class instantiated once per run of the pass over a module
            (``ctx.state``): state shared by the functions of one run.
        terminal: the pass consumes the module (a printer): with per-pass
            verification off, the pipeline verifies the module once before it.
    """

    argument: str
    summary: str
    run: Callable | None = None
    anchor: str = "func.func"
    dialect: str | None = None
    options: tuple = ()
    class_name: str = ""
    source: str = ""
    upstream: bool = False
    statistics: tuple = field(default=())
    state: type | None = None
    terminal: bool = False
    #: the pass reads ops of either HLO dialect alike (an analysis such as
    #: verify-supported-ops): no "use its twin" warning on a module of the other dialect
    any_dialect: bool = False
    #: the plugin that registered the pass (file or ``package version``); '' for built-in passes
    origin: str = ""

    @property
    def dialect_table(self) -> DialectTable | None:
        return {"mhlo": MHLO, "stablehlo": STABLEHLO}.get(self.dialect or "")

    @property
    def display_name(self) -> str:
        return self.class_name or "".join(p.capitalize() for p in self.argument.split("-"))

    def option(self, name: str) -> Option:
        for o in self.options:
            if o.name == name:
                return o
        known = ", ".join(o.name for o in self.options) or "none"
        raise HiloError(f"pass '{self.argument}' has no option '{name}' (options: {known})")

    def resolve_options(self, given: dict[str, Any] | None = None) -> dict[str, Any]:
        """Defaults overlaid with ``given`` (keys kebab- or snake-case, values typed or text)."""
        vals = {o.name: o.default for o in self.options}
        for k, v in (given or {}).items():
            o = self.option(k.replace("_", "-"))
            vals[o.name] = o.parse(v, self.argument) if isinstance(v, str) and o.type is not str else v
        return vals

    def run_on(self, anchor_op, ctx: PassContext) -> None:
        """Run on one anchor op (a ``func.func`` or a ``builtin.module``)."""
        self._function()(anchor_op, ctx)

    def run_on_module(self, module_op, ctx: PassContext) -> None:
        """Run on a module: once per top-level function for func-anchored passes."""
        run = self._function()
        if self.anchor == "builtin.module":
            run(module_op, ctx)
            return
        funcs = [op.operation for op in module_op.regions[0].blocks[0].operations if op.operation.name == "func.func"]
        for f in funcs:
            run(f, ctx)

    def _function(self) -> Callable:
        if self.run is None:
            raise HiloError(f"pass '{self.argument}' is an upstream pass: it runs in the binding's pass manager")
        return self.run

    def add_to_pass_manager(self, pm, stats=None, **options) -> None:
        """Add this pass to a binding ``PassManager`` anchored on ``builtin.module``.

        The binding cannot nest a Python pass under ``func.func`` (it aborts), so
        the Python-defined pass anchors on the module and visits each function.
        Failures call ``signal_pass_failure`` after emitting an error at the op.
        Each run gets its own rewriter and analyses (nothing is kept between runs).
        """
        if self.upstream:
            pm.add(self.argument if not options else self.argument + "{" + " ".join(f"{k}={v}" for k, v in options.items()) + "}")
            return
        vals = self.resolve_options(options)
        info = self

        def _run(op, pass_):
            from hilo_mlir.analysis.manager import AnalysisManager
            from hilo_mlir.rewrite.rewriter import Rewriter

            op = op.operation if hasattr(op, "operation") else op
            rewriter = Rewriter(op)
            am = AnalysisManager(op, rewriter)
            ctx = PassContext(info, vals, rewriter=rewriter, analyses=am, module_op=op, stats=stats if stats is not None else None)
            try:
                info.run_on_module(op, ctx)
            except HiloError as e:
                from hilo_mlir.ir.binding import ir

                loc = e.loc if isinstance(e.loc, ir.Location) else op.location
                loc.emit_error(e.format().split("error: ", 1)[-1])
                pass_.signal_pass_failure()
            finally:
                am.close()

        pm.add(_run, name=self.display_name, argument=self.argument, description=self.summary)


_REGISTRY: dict[str, PassInfo] = {}
_LOADED = False


#: the plugin being loaded (set by :mod:`hilo_mlir.passmanager.plugins`): recorded as ``PassInfo.origin``
_ORIGIN: contextvars.ContextVar[str] = contextvars.ContextVar("hilo_mlir_pass_origin", default="")


def _manifest_arguments() -> frozenset:
    """The built-in pass arguments (from the manifest: no pass is imported)."""
    global _BUILT_IN
    if _BUILT_IN is None:
        try:
            with open(MANIFEST, encoding="utf-8") as f:
                _BUILT_IN = frozenset(p["argument"] for p in json.load(f)["passes"])
        except OSError:
            _BUILT_IN = frozenset()
    return _BUILT_IN


_BUILT_IN: frozenset | None = None


def register(info: PassInfo) -> PassInfo:
    """Add a pass to the registry; returns the registered :class:`PassInfo`.

    The public API of pass plugins (``hilo_mlir.register``). A pass registered
    while a plugin loads records the plugin as its ``origin`` and is taken as
    mutating only through ``ctx.rewriter`` (the pipeline derives what it
    changed from the rewriter's record).

    Raises:
        HiloError: located at this call: the argument exists already (a
            built-in pass, or one of another plugin), or ``info`` is malformed
            (see :mod:`hilo_mlir.passmanager.pass_checks`).
    """
    from hilo_mlir.passmanager.pass_checks import check_pass, error

    if not isinstance(info, PassInfo):
        raise error(f"register() takes a PassInfo, got {type(info).__name__}")
    check_pass(info)
    origin = _ORIGIN.get()
    other = _REGISTRY.get(info.argument)
    if other is not None or (origin and info.argument in _manifest_arguments()):
        by = f"by plugin {other.origin}" if other is not None and other.origin else "built in"
        raise error(f"pass '{info.argument}' is already registered ({by}); choose another argument")
    if origin:
        info = dataclasses.replace(info, origin=origin)
    _REGISTRY[info.argument] = info
    return info


def register_twins(argument: str, summary: str, run: Callable, **kw) -> tuple[PassInfo, PassInfo]:
    """Register ``run`` as the MHLO pass ``argument`` and the StableHLO twin ``stablehlo-<argument>``.

    One implementation for both dialects: ``ctx.d`` is the twin's
    :class:`~hilo_mlir.ir.dialects.DialectTable`. ``class_name`` (if given) gets
    the ``StableHLO`` prefix for the twin, as in the binary. The other keywords
    are :class:`PassInfo` fields. Returns both PassInfos.

    Raises:
        HiloError: as :func:`register`, or an unknown keyword (located at this call).
    """
    from hilo_mlir.passmanager.pass_checks import error

    cls = kw.pop("class_name", "")
    unknown = sorted(set(kw) - {f.name for f in dataclasses.fields(PassInfo)})
    if unknown or "dialect" in kw:
        raise error(f"register_twins() got an unexpected keyword {(unknown or ['dialect'])[0]!r}")
    a = register(PassInfo(argument, summary, run, dialect="mhlo", class_name=cls, **kw))
    b = register(
        PassInfo(
            "stablehlo-" + argument,
            summary + " (StableHLO twin)",
            run,
            dialect="stablehlo",
            class_name=("StableHLO" + cls) if cls else "",
            **kw,
        )
    )
    return a, b


def _load_builtins() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    # Pass families register themselves on import of hilo_mlir.passes.
    importlib.import_module("hilo_mlir.passes")


def _load_entry_points() -> None:
    from hilo_mlir.passmanager import plugins

    plugins.load_entry_points()


def _load() -> None:
    _load_builtins()
    _load_entry_points()


def load(plugins: bool = True) -> None:
    """Import every built-in pass family and (``plugins``) the installed plugins' entry points (once per process).

    Entry points are otherwise discovered lazily: when a pass name is not
    built in (:func:`get`, :func:`lookup`), or every pass is listed
    (:func:`all_passes`, ``--help``), or a plugin is named.
    """
    _load_builtins()
    if plugins:
        _load_entry_points()


def lookup(argument: str, load: bool = True) -> PassInfo | None:
    """The pass registered as ``argument``, or None (``load=False``: what is registered so far).

    With ``load``, an argument that is not built in loads the installed plugins' entry points first.
    """
    if load:
        _load_builtins()
    info = _REGISTRY.get(argument)
    if info is None and load:
        _load_entry_points()
        info = _REGISTRY.get(argument)
    return info


def arguments() -> set[str]:
    """The arguments registered so far (nothing is imported)."""
    return set(_REGISTRY)


def unregister(argument: str) -> None:
    """Forget ``argument`` (a plugin that failed halfway leaves nothing behind)."""
    _REGISTRY.pop(argument, None)


@contextlib.contextmanager
def registering_for(origin: str):
    """Inside the block, every pass registered records ``origin`` (a plugin's file or package) as its origin."""
    token = _ORIGIN.set(origin)
    try:
        yield
    finally:
        _ORIGIN.reset(token)


def get(argument: str) -> PassInfo:
    """Look up a pass by argument (an argument that is not built in loads the installed plugins first);
    HiloError listing close names if unknown."""
    info = lookup(argument)
    if info is not None:
        return info
    import difflib

    close = difflib.get_close_matches(argument, list(_REGISTRY), n=3)
    hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
    raise HiloError(f"unknown pass '{argument}'{hint}")


def twin_of(info: PassInfo) -> str | None:
    """The argument of ``info``'s twin over the other dialect (``fold-iota`` <-> ``stablehlo-fold-iota``,
    ``mhlo-to-py-penguin`` <-> ``stablehlo-to-py-penguin``), or None."""
    arg = info.argument
    if info.dialect == "mhlo":
        cands = ["stablehlo-" + arg] + (["stablehlo-" + arg[len("mhlo-") :]] if arg.startswith("mhlo-") else [])
        want = "stablehlo"
    elif info.dialect == "stablehlo" and arg.startswith("stablehlo-"):
        rest = arg[len("stablehlo-") :]
        cands, want = [rest, "mhlo-" + rest], "mhlo"
    else:
        return None
    for c in cands:
        other = _REGISTRY.get(c)
        if other is not None and other.dialect == want:
            return c
    return None


def plugin_passes() -> list[PassInfo]:
    """The passes plugins registered (``PassInfo.origin`` set), sorted by argument."""
    return sorted((p for p in _REGISTRY.values() if p.origin), key=lambda p: p.argument)


def all_passes(plugins: bool = True) -> list[PassInfo]:
    """Every registered pass, sorted by argument (``plugins``: the installed plugins' entry points loaded first)."""
    load(plugins)
    return sorted(_REGISTRY.values(), key=lambda p: p.argument)


# --------------------------------------------------------------------------- the pass manifest

#: What ``--help`` lists, written by :func:`write_manifest` so that listing the
#: passes does not import them (and the MLIR bindings: ~0.5 s).
MANIFEST = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "passes", "manifest.json")


def describe(info: PassInfo) -> dict:
    """The ``--help`` facts of one pass as plain data (what the manifest stores)."""
    return {
        "argument": info.argument,
        "summary": info.summary,
        "dialect": info.dialect,
        "anchor": info.anchor,
        "upstream": info.upstream,
        "options": [{"name": o.name, "type": o.type.__name__, "default": o.default, "help": o.help} for o in info.options],
    }


def descriptions() -> list[dict]:
    """:func:`describe` of every registered pass, sorted by argument.

    From the manifest while the registry has not been loaded (the built-in
    passes, without importing them); from the live registry otherwise.
    """
    if not _LOADED and os.path.exists(MANIFEST):
        with open(MANIFEST, encoding="utf-8") as f:
            return json.load(f)["passes"]
    return [describe(p) for p in all_passes() if not p.origin]


def write_manifest(path: str = MANIFEST) -> None:
    """Write the manifest of the built-in passes (run after adding or changing a pass:
    ``python3 -m hilo_mlir.passmanager.registry``; a test fails while it is stale)."""
    data = {"passes": [describe(p) for p in all_passes() if not p.origin]}
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    from hilo_mlir.passmanager import registry as _registry  # the module the passes register into, not __main__

    _registry.write_manifest()
    print(f"wrote {_registry.MANIFEST}")
