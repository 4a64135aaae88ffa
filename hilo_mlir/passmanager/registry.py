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

This module is the store, below the passes: the pass families import it to
register themselves, and it imports none of them. The built-in passes reach it
through a loader that :mod:`hilo_mlir.passes` installs when it is imported
(:func:`install_builtins`; as ``mlir-opt`` calls ``registerAllPasses()``): from
then on the lookups here (:func:`get`, :func:`lookup`, :func:`all_passes`, ...)
import every built-in family on first use. The tools and the driver call them
through :mod:`hilo_mlir.passes` (the loading front end), which guarantees that;
before anything imported it, they see only what was registered so far.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict, cast

# re-exported: the API's names (``X as X``: an explicit re-export)
from hilo_mlir.passmanager.pass_context import CompileOutputs as CompileOutputs
from hilo_mlir.passmanager.pass_context import Option as Option
from hilo_mlir.passmanager.pass_context import OptionValue as OptionValue
from hilo_mlir.passmanager.pass_context import PassContext as PassContext
from hilo_mlir.passmanager.pass_context import PipelineEnv as PipelineEnv
from hilo_mlir.passmanager.pass_context import Statistic as Statistic
from hilo_mlir.passmanager.pass_context import Statistics as Statistics
from hilo_mlir.support.diagnostics import HiloError as HiloError  # re-exported (driver.spine)

if TYPE_CHECKING:
    from hilo_mlir.ir.binding import ir, passmanager
    from hilo_mlir.ir.dialects import DialectTable

#: a pass's body: ``run(anchor op, ctx)`` (the ``func.func`` or ``builtin.module`` it runs on)
PassFn = Callable[["ir.Operation", PassContext], None]


class OptionDescription(TypedDict):
    """One option of a :class:`PassDescription`."""

    name: str
    type: str
    default: OptionValue  # the option's typed default: JSON data
    help: str


class PassDescription(TypedDict):
    """The ``--help`` facts of one pass as plain data (:func:`describe`; what the manifest stores)."""

    argument: str
    summary: str
    dialect: str | None
    anchor: str
    upstream: bool
    aliases: list[str]
    options: list[OptionDescription]


@dataclass(frozen=True)
class PassInfo:
    """A registered pass.

    Attributes:
        argument: the pipeline name (``neuron-op-fusion``).
        summary: one line for ``--help``.
        run: ``run(op, ctx)``; None for upstream passes.
        anchor: ``"func.func"`` (run once per function) or ``"builtin.module"``.
        dialect: ``"mhlo"``, ``"stablehlo"`` or None (both / neutral).
        options: the typed options (derived from ``options_type`` when that is given).
        options_type: the pass's options dataclass (:mod:`hilo_mlir.passmanager.options`):
            ``ctx.options`` is an instance of it, and :attr:`options` its fields.
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
    run: PassFn | None = None
    anchor: str = "func.func"
    dialect: str | None = None
    options: tuple[Option, ...] = ()
    class_name: str = ""
    source: str = ""
    upstream: bool = False
    statistics: tuple[str | Statistic, ...] = field(default=())
    state: type | None = None
    terminal: bool = False
    #: the pass reads ops of either HLO dialect alike (an analysis such as
    #: verify-supported-ops): no "use its twin" warning on a module of the other dialect
    any_dialect: bool = False
    #: the plugin that registered the pass (file or ``package version``); '' for built-in passes
    origin: str = ""
    #: what the pass does, for ``docs/passes.md`` (markdown, a paragraph or a few); default:
    #: the first paragraph of ``run``'s docstring (:attr:`doc`)
    description: str = ""
    #: the pass reads the steps that follow it (``ctx.pipeline_steps``: the import step checks
    #: which lowerings the spine has): its crash reproducer holds the rest of the pipeline
    reads_pipeline: bool = False
    #: other arguments that name this pass (kebab-case; listed in ``--help``, accepted wherever a pass is named)
    aliases: tuple[str, ...] = ()
    options_type: type | None = None

    def __post_init__(self) -> None:
        if self.options_type is None:
            return
        from hilo_mlir.passmanager.options import declared_options
        from hilo_mlir.passmanager.pass_checks import error

        declared = declared_options(self.options_type)
        if self.options and tuple(self.options) != declared:  # dataclasses.replace() passes the derived ones back
            raise error(f"pass '{self.argument}': give options_type or options, not both")
        object.__setattr__(self, "options", declared)

    @property
    def dialect_table(self) -> DialectTable | None:
        from hilo_mlir.ir.dialects import MHLO, STABLEHLO  # here: the registry is read without the bindings (--help)

        return {"mhlo": MHLO, "stablehlo": STABLEHLO}.get(self.dialect or "")

    @property
    def doc(self) -> str:
        """:attr:`description`, or the first paragraph of ``run``'s docstring, or :attr:`summary`."""
        if self.description:
            return self.description
        text = (getattr(self.run, "__doc__", None) or "").strip()
        first = text.split("\n\n", 1)[0] if text else ""
        return " ".join(first.split()) or self.summary

    @property
    def display_name(self) -> str:
        return self.class_name or "".join(p.capitalize() for p in self.argument.split("-"))

    def option(self, name: str) -> Option:
        for o in self.options:
            if o.name == name:
                return o
        known = ", ".join(o.name for o in self.options) or "none"
        raise HiloError(f"pass '{self.argument}' has no option '{name}' (options: {known})")

    def resolve_options(self, given: Mapping[str, Any] | None = None) -> dict[str, OptionValue]:
        """Defaults overlaid with ``given`` (keys kebab- or snake-case, values typed or text)."""
        vals = {o.name: o.default for o in self.options}
        for k, v in (given or {}).items():
            o = self.option(k.replace("_", "-"))
            vals[o.name] = o.parse(v, self.argument) if isinstance(v, str) and o.type is not str else v
        return vals

    def run_on(self, anchor_op: ir.Operation, ctx: PassContext) -> None:
        """Run on one anchor op (a ``func.func`` or a ``builtin.module``)."""
        self._function()(anchor_op, ctx)

    def run_on_module(self, module_op: ir.Operation, ctx: PassContext) -> None:
        """Run on a module: once per top-level function for func-anchored passes (the functions
        there are when it starts, in module order: the cached census's list when there is one,
        which costs no binding call; a function the pass adds is not visited)."""
        run = self._function()
        if self.anchor == "builtin.module":
            run(module_op, ctx)
            return
        census = ctx.analyses.cached_census(module_op)
        if census is not None:
            funcs: Sequence[ir.Operation] = census.top_functions()
        else:
            funcs = [op.operation for op in module_op.regions[0].blocks[0].operations if op.operation.name == "func.func"]
        for f in funcs:
            run(f, ctx)

    def _function(self) -> PassFn:
        if self.run is None:
            raise HiloError(f"pass '{self.argument}' is an upstream pass: it runs in the binding's pass manager")
        return self.run

    def add_to_pass_manager(self, pm: passmanager.PassManager, stats: Statistics | None = None, **options: object) -> None:
        """Add this pass to a binding ``PassManager`` anchored on ``builtin.module``.

        The binding cannot nest a Python pass under ``func.func`` (it aborts), so
        the Python-defined pass anchors on the module and visits each function.
        Failures call ``signal_pass_failure`` after emitting an error at the op.
        Each run gets its own rewriter and analyses (nothing is kept between runs);
        the pass runs through :func:`hilo_mlir.passmanager.execution.run_pass`, as in a
        :class:`~hilo_mlir.passmanager.pipeline.Pipeline`.
        """
        if self.upstream:
            pm.add(self.argument if not options else self.argument + "{" + " ".join(f"{k}={v}" for k, v in options.items()) + "}")
            return
        vals = self.resolve_options(options)
        info = self

        def _run(op: ir.Operation, pass_: passmanager.ExternalPass) -> None:
            from hilo_mlir.analysis.manager import AnalysisManager
            from hilo_mlir.passmanager.execution import run_pass
            from hilo_mlir.rewrite.rewriter import Rewriter

            op = op.operation if hasattr(op, "operation") else op
            rewriter = Rewriter(op)
            am = AnalysisManager(op, rewriter)
            try:
                run_pass(info, vals, op, rewriter=rewriter, analyses=am, stats=stats)
            except HiloError as e:
                from hilo_mlir.ir.binding import ir

                loc = e.loc if isinstance(e.loc, ir.Location) else op.location
                loc.emit_error(e.text())
                pass_.signal_pass_failure()
            finally:
                am.close()

        pm.add(_run, name=self.display_name, argument=self.argument, description=self.summary)


_REGISTRY: dict[str, PassInfo] = {}
#: alias -> the argument of the pass it names
_ALIASES: dict[str, str] = {}
_LOADED = False


#: the plugin being loaded (set by :mod:`hilo_mlir.passmanager.plugins`): recorded as ``PassInfo.origin``
_ORIGIN: contextvars.ContextVar[str] = contextvars.ContextVar("hilo_mlir_pass_origin", default="")


def _manifest_arguments() -> frozenset[str]:
    """The built-in pass arguments (from the manifest: no pass is imported)."""
    global _BUILT_IN
    if _BUILT_IN is None:
        try:
            with open(MANIFEST, encoding="utf-8") as f:
                _BUILT_IN = frozenset(n for p in json.load(f)["passes"] for n in [p["argument"], *p.get("aliases", ())])
        except OSError:
            _BUILT_IN = frozenset()
    return _BUILT_IN


_BUILT_IN: frozenset[str] | None = None


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
    names = (info.argument, *info.aliases)
    if len(set(names)) != len(names):
        raise error(f"pass '{info.argument}': an alias repeats the argument or another alias")
    for name in names:
        other = lookup(name, load=False)
        if other is not None or (origin and name in _manifest_arguments()):
            by = f"by plugin {other.origin}" if other is not None and other.origin else "built in"
            raise error(f"pass '{name}' is already registered ({by}); choose another argument")
    if origin:
        info = dataclasses.replace(info, origin=origin)
    _REGISTRY[info.argument] = info
    for a in info.aliases:
        _ALIASES[a] = info.argument
    return info


def register_twins(
    argument: str,
    summary: str,
    run: PassFn,
    stablehlo_argument: str | None = None,
    stablehlo_aliases: tuple[str, ...] = (),
    **kw: Any,
) -> tuple[PassInfo, PassInfo]:
    """Register ``run`` as the MHLO pass ``argument`` and the StableHLO twin ``stablehlo-<argument>``.

    One implementation for both dialects: ``ctx.d`` is the twin's
    :class:`~hilo_mlir.ir.dialects.DialectTable`. ``class_name`` (if given) gets
    the ``StableHLO`` prefix for the twin, as in the binary. The other keywords
    are :class:`PassInfo` fields (``aliases``: the MHLO pass's only).
    ``stablehlo_argument``: the twin's argument where the binary spells it
    otherwise (``canonicalize-for-penguin``); ``stablehlo-<argument>`` is then
    one of its aliases, with ``stablehlo_aliases``. Returns both PassInfos.

    Raises:
        HiloError: as :func:`register`, or an unknown keyword (located at this call).
    """
    from hilo_mlir.passmanager.pass_checks import error

    cls = kw.pop("class_name", "")
    unknown = sorted(set(kw) - {f.name for f in dataclasses.fields(PassInfo)})
    if unknown or "dialect" in kw:
        raise error(f"register_twins() got an unexpected keyword {(unknown or ['dialect'])[0]!r}")
    a = register(PassInfo(argument, summary, run, dialect="mhlo", class_name=cls, **kw))
    kw.pop("aliases", None)
    prefixed = "stablehlo-" + argument
    twin_aliases = tuple(stablehlo_aliases) + ((prefixed,) if stablehlo_argument and prefixed not in stablehlo_aliases else ())
    b = register(
        PassInfo(
            stablehlo_argument or prefixed,
            summary + " (StableHLO twin)",
            run,
            dialect="stablehlo",
            class_name=("StableHLO" + cls) if cls else "",
            aliases=twin_aliases,
            **kw,
        )
    )
    return a, b


#: what registers the built-in passes (installed by :mod:`hilo_mlir.passes`); None: nothing installed yet
_BUILTINS_LOADER: Callable[[], object] | None = None


def install_builtins(loader: Callable[[], object]) -> None:
    """Make ``loader`` the function that registers the built-in passes (:mod:`hilo_mlir.passes` does, on import).

    The registry calls it once, on first use (:func:`load`, :func:`lookup`,
    :func:`all_passes`, ...); the registry itself imports no pass (it is below
    them). Installing it again replaces it; one already called is not called again.
    """
    global _BUILTINS_LOADER
    _BUILTINS_LOADER = loader


def _load_builtins() -> None:
    global _LOADED
    if _LOADED or _BUILTINS_LOADER is None:
        return
    _LOADED = True
    _BUILTINS_LOADER()


_entry_points_loaded = False


def run_registering(origin: str, action: Callable[[], object], what: str, files: set[str]) -> list[PassInfo]:
    """Run ``action`` with ``origin`` recorded on every pass it registers; errors become PluginError.

    Loading a plugin: the entry points here, the named ones in :mod:`.plugins` (above the registry).
    """
    from hilo_mlir.passmanager.plugin_errors import PluginError, fail

    before = arguments()
    try:
        with registering_for(origin):
            action()
    except PluginError:
        raise
    except (Exception, SystemExit) as e:  # noqa: BLE001 - any failure of user code is one error
        for arg in arguments() - before:  # nothing half-registered stays behind
            unregister(arg)
        raise fail(what, e, files) from None
    return [info for a in sorted(arguments() - before) if (info := lookup(a, load=False)) is not None]


def load_entry_points() -> list[PassInfo]:
    """Load every installed ``hilo_mlir.passes`` entry point (once per process); returns their passes."""
    global _entry_points_loaded
    if _entry_points_loaded or os.environ.get("HILO_MLIR_NO_ENTRY_POINT_PLUGINS") == "1":
        return []
    _entry_points_loaded = True
    from hilo_mlir.passmanager import entry_points

    if not entry_points.maybe_installed():  # no importlib.metadata scan (~0.2 s) when no package declares one
        return []
    from importlib import metadata

    from hilo_mlir.passmanager.plugin_errors import module_files

    out: list[PassInfo] = []
    for ep in sorted(metadata.entry_points(group=entry_points.ENTRY_POINT_GROUP), key=lambda e: e.name):
        dist = getattr(ep, "dist", None)
        package = f"{dist.metadata['Name']} {dist.version}" if dist is not None else ep.value
        mod_name = ep.value.partition(":")[0].strip()
        try:
            files = module_files(mod_name)
        except (ImportError, ValueError):
            files = set()

        def action(ep: metadata.EntryPoint = ep) -> None:
            obj = ep.load()
            if callable(obj) and not isinstance(obj, type(sys)):
                obj()

        out += run_registering(package, action, f"'{ep.name} = {ep.value}' (entry point of {package})", files)
    return out


def _load_entry_points() -> None:
    load_entry_points()


def _load() -> None:
    _load_builtins()
    _load_entry_points()


def load(plugins: bool = True) -> None:
    """Import every built-in pass family and (``plugins``) the installed plugins' entry points (once per process).

    The built-in families: through the loader :mod:`hilo_mlir.passes` installs
    (:func:`install_builtins`); none before it is imported. Entry points are otherwise discovered lazily: when a pass name is not
    built in (:func:`get`, :func:`lookup`), or every pass is listed
    (:func:`all_passes`, ``--help``), or a plugin is named.
    """
    _load_builtins()
    if plugins:
        _load_entry_points()


def lookup(argument: str, load: bool = True) -> PassInfo | None:
    """The pass registered as ``argument`` or with it as an alias, or None (``load=False``: what is registered so far).

    With ``load``, an argument that is not built in loads the installed plugins' entry points first.
    """
    if load:
        _load_builtins()
    info = _find(argument)
    if info is None and load:
        _load_entry_points()
        info = _find(argument)
    return info


def _find(argument: str) -> PassInfo | None:
    info = _REGISTRY.get(argument)
    if info is None and argument in _ALIASES:
        info = _REGISTRY.get(_ALIASES[argument])
    return info


def aliases(load: bool = True) -> dict[str, str]:
    """``{alias: argument}`` of every pass registered with aliases."""
    if load:
        _load()
    return dict(_ALIASES)


def arguments() -> set[str]:
    """The arguments registered so far (nothing is imported)."""
    return set(_REGISTRY)


def unregister(argument: str) -> None:
    """Forget ``argument`` and its aliases (a plugin that failed halfway leaves nothing behind)."""
    _REGISTRY.pop(argument, None)
    for a in [a for a, arg in _ALIASES.items() if arg == argument]:
        del _ALIASES[a]


@contextlib.contextmanager
def registering_for(origin: str) -> Iterator[None]:
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

    close = difflib.get_close_matches(argument, list(_REGISTRY) + list(_ALIASES), n=3)
    hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
    if _BUILTINS_LOADER is None:  # a caller below the front end asked before anything imported hilo_mlir.passes
        hint += "; the built-in passes are not loaded in this process: import hilo_mlir.passes first"
    raise HiloError(f"unknown pass '{argument}'{hint}")


def twin_of(info: PassInfo) -> str | None:
    """The argument of ``info``'s twin over the other dialect (``fold-iota`` <-> ``stablehlo-fold-iota``,
    ``mhlo-to-py-penguin`` <-> ``stablehlo-to-py-penguin``), or None."""
    cands: list[str] = []
    want = ""
    for arg in (info.argument, *info.aliases):  # an alias may carry the prefixed spelling
        if info.dialect == "mhlo":
            cands += ["stablehlo-" + arg] + (["stablehlo-" + arg[len("mhlo-") :]] if arg.startswith("mhlo-") else [])
            want = "stablehlo"
        elif info.dialect == "stablehlo" and arg.startswith("stablehlo-"):
            rest = arg[len("stablehlo-") :]
            cands += [rest, "mhlo-" + rest]
            want = "mhlo"
    for c in cands:
        other = lookup(c, load=False)
        if other is not None and other.dialect == want:
            return other.argument
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


def describe(info: PassInfo) -> PassDescription:
    """The ``--help`` facts of one pass as plain data (what the manifest stores)."""
    return {
        "argument": info.argument,
        "summary": info.summary,
        "dialect": info.dialect,
        "anchor": info.anchor,
        "upstream": info.upstream,
        "aliases": list(info.aliases),
        "options": [{"name": o.name, "type": o.type.__name__, "default": o.default, "help": o.help} for o in info.options],
    }


def descriptions() -> list[PassDescription]:
    """:func:`describe` of every registered pass, sorted by argument.

    From the manifest while the registry has not been loaded (the built-in
    passes, without importing them); from the live registry otherwise.
    """
    if not _LOADED and os.path.exists(MANIFEST):
        with open(MANIFEST, encoding="utf-8") as f:
            return cast("list[PassDescription]", json.load(f)["passes"])  # written by write_manifest
    return [describe(p) for p in all_passes() if not p.origin]


def write_manifest(path: str = MANIFEST) -> None:
    """Write the manifest of the built-in passes (run after adding or changing a pass:
    ``python3 -m hilo_mlir.passes``; a test fails while it is stale)."""
    data = {"passes": [describe(p) for p in all_passes() if not p.origin]}
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
