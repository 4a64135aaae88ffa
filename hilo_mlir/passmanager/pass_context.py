"""What a pass runs with: :class:`PassContext` (``ctx``), its options, and its declared statistics.

``run(op, ctx)`` reads ``ctx.options`` (typed, attribute access), mutates
through ``ctx.rewriter``, asks ``ctx.get_analysis`` / ``ctx.census``, bumps
``ctx.stats`` (only names the pass declared) and logs ``ctx.debug`` lines.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from hilo_mlir.support.diagnostics import HiloError

#: an analysis class (:meth:`PassContext.get_analysis`)
_A = TypeVar("_A")

if TYPE_CHECKING:
    from typing_extensions import TypeVar as _TypeVarWithDefault

    #: a pass's options dataclass (``PassContext[FoldIotaOptions]``); a bare ``PassContext``: Any
    OptionsT = _TypeVarWithDefault("OptionsT", default=Any)
else:
    OptionsT = TypeVar("OptionsT")

if TYPE_CHECKING:
    from hilo_mlir.analysis.census import Census
    from hilo_mlir.analysis.manager import AnalysisManager
    from hilo_mlir.fusion.fuel import FusionFuel
    from hilo_mlir.fusion.report import FusionReport
    from hilo_mlir.ir.binding import ir
    from hilo_mlir.ir.dialects import DialectTable
    from hilo_mlir.ir.handles import Op
    from hilo_mlir.passmanager.registry import PassInfo
    from hilo_mlir.passmanager.steps import Step
    from hilo_mlir.rewrite.rewriter import Rewriter


@dataclass
class PipelineEnv:
    """What a pipeline run is given: read by passes, never written.

    Attributes:
        filename: the input's name (diagnostics, ``DebugLocation`` of the printer).
        debug: ``--debug``: passes may do debug-only work (and record ``ctx.debug`` lines).
        gates: the driver's :class:`~hilo_mlir.driver.config.CompileConfig` gates
            (``{field: on}``), to explain a missing lowering; None outside the driver.
        on_pass_start: hears the passes of pipelines a pass runs inside itself (the
            import step's bridge), for crash attribution.
        verify_each: the run verifies after every step that changed the IR (set by the
            :class:`~hilo_mlir.passmanager.pipeline.Pipeline`); a pipeline a pass runs inside
            itself (the import step's bridge) follows the same policy.
    """

    filename: str | None = None
    debug: bool = False
    gates: Mapping[str, bool] | None = None
    on_pass_start: Callable[[str], None] | None = None
    verify_each: bool = True


@dataclass
class CompileOutputs:
    """What a pipeline run produces besides the module: written by the passes that produce it.

    Attributes:
        source: the Penguin Python source (the printer, ``*-to-py-penguin``).
        files: files that belong beside ``penguin.py`` (``{name: bytes}``, e.g. ``.npy`` constants).
        parameters: the printer's parameter table (``{input index: its .npy file name}``).
        histogram: ``[(op name, count)]`` (``mlir-instruction-histogram``).
        fusion_report: the :class:`~hilo_mlir.fusion.report.FusionReport` the fusion passes
            record into (set by the driver to ask for one, or by a pass's ``{report=DIR}``).
        dialect: the dialect of the input as the import step found it (``"mhlo"``,
            ``"stablehlo"``, ``"mixed"``, ``"none"``; ``"mhlo"`` once bridged); ``""`` without an import step.
        fusion_fuel: the run's :class:`~hilo_mlir.fusion.fuel.FusionFuel` (``--fusion-fuel``; set by the
            driver to meter the fusing passes, which take one unit per cluster and log it); None: unlimited.
    """

    source: str | None = None
    files: dict[str, bytes] = field(default_factory=dict)
    parameters: dict[int, str] = field(default_factory=dict)
    histogram: list[tuple[str, int]] | None = None
    fusion_report: FusionReport | None = None
    dialect: str = ""
    fusion_fuel: FusionFuel | None = None


class Statistics(collections.Counter[str]):
    """A pass's statistics (MLIR's ``Pass::Statistic``): a ``Counter`` that accepts only declared names.

    Declared in :attr:`PassInfo.statistics`; a name may hold one ``{...}``
    placeholder (``"converted-{kind}"``) that matches any non-empty text
    without spaces. Bumping an undeclared name raises ``KeyError`` (a bug in
    the pass, found by its first test).
    """

    def __init__(self, declared: Collection[str | Statistic] = (), owner: str = "") -> None:
        super().__init__()
        self._owner = owner
        self._exact: set[str] = set()
        self._patterns: list[tuple[str, str]] = []
        for d in declared:
            name = d.name if isinstance(d, Statistic) else d
            if "{" in name:
                head, _, rest = name.partition("{")
                tail = rest.partition("}")[2]
                self._patterns.append((head, tail))
            else:
                self._exact.add(name)
        self._open = not declared  # a pass that declares none (upstream summaries, tests) is not checked

    def __setitem__(self, key: str, value: int) -> None:
        if not self._open and key not in self._exact:
            if not self._matches(key):
                raise KeyError(f"pass '{self._owner}' bumps the undeclared statistic '{key}' (declare it in its PassInfo.statistics)")
            self._exact.add(key)  # a name a placeholder matched: the next bump is one set lookup
        super().__setitem__(key, value)

    def _matches(self, key: str) -> bool:
        for head, tail in self._patterns:
            if (
                len(key) > len(head) + len(tail)
                and key.startswith(head)
                and key.endswith(tail)
                and " " not in key[len(head) : len(key) - len(tail)]
            ):
                return True
        return False


@dataclass(frozen=True)
class Statistic:
    """A declared statistic: its name (kebab-case, may hold one ``{...}`` placeholder) and a one-line help."""

    name: str
    help: str = ""


#: the value of a pass option (its declared type is one of these)
OptionValue = bool | int | float | str


@dataclass(frozen=True)
class Option:
    """A typed pass option (``{name=value}`` in a pipeline string).

    Attributes:
        name: kebab-case option name.
        type: ``bool``, ``int``, ``float`` or ``str``.
        default: value when not given.
        help: one line for ``--help``.
        check: validates a parsed value: returns why it is refused (a phrase), or None.
        writes_file: the value names a file or folder the pass writes (``--run-reproducer``
            refuses a reproducer whose pipeline sets one: it may not write where the user did not say).
    """

    name: str
    type: type
    default: OptionValue
    help: str
    check: Callable[[Any], str | None] | None = None
    writes_file: bool = False

    def parse(self, text: str, pass_arg: str) -> OptionValue:
        """Parse ``text`` into this option's type and apply :attr:`check`; raise HiloError on a bad value."""
        t = text.strip()
        if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
            t = t[1:-1]
        value: OptionValue = t
        try:
            if self.type is bool:
                low = t.lower()
                if low in ("1", "true", "on", "yes", ""):
                    value = True
                elif low in ("0", "false", "off", "no"):
                    value = False
                else:
                    raise ValueError(t)
            elif self.type is int:
                value = int(t, 0)
            elif self.type is float:
                value = float(t)
        except ValueError:
            raise HiloError(
                f"invalid value '{text}' for option '{self.name}' of pass '{pass_arg}' (expected {self.type.__name__})"
            ) from None
        reason = self.check(value) if self.check is not None else None
        if reason:
            raise HiloError(f"invalid value '{text}' for option '{self.name}' of pass '{pass_arg}': {reason}")
        return value


class PassContext(Generic[OptionsT]):
    """What a running pass sees besides its anchor op.

    A pass that declares an options dataclass annotates ``ctx: PassContext[ItsOptions]``
    (:mod:`hilo_mlir.passmanager.options`): mypy then checks every ``ctx.options.<field>``.

    Attributes:
        options: the option values: an instance of the pass's ``options_type``
            (``ctx.options.fuse_dot_logistic``), else of a dataclass made from its :class:`Option` list.
        d: the :class:`DialectTable` the pass was registered for (None if dialect-neutral).
        rewriter: the :class:`~hilo_mlir.rewrite.rewriter.Rewriter` every IR mutation goes through.
        analyses: the run's :class:`~hilo_mlir.analysis.manager.AnalysisManager`.
        state: one instance of :attr:`PassInfo.state` per run of the pass over a
            module (shared by the functions of one run), or None.
        stats: :class:`Statistics` of the pass, reported by ``--mlir-pass-statistics``
            and returned by the Python API.
        log: list of debug lines (``--debug``-style reject reasons).
        env: the run's :class:`PipelineEnv` (file name, ``--debug``, gates).
        outputs: the run's :class:`CompileOutputs` (the printer's source and files, the histogram, the fusion report).
        pipeline_steps: the steps of the pipeline the pass runs in (the import step reads which lowerings follow it).
        info: the :class:`PassInfo` being run.
    """

    def __init__(
        self,
        info: PassInfo,
        options: Mapping[str, OptionValue],
        *,
        rewriter: Rewriter,
        analyses: AnalysisManager,
        module_op: Any,
        stats: Statistics | None = None,
        log: list[str] | None = None,
        env: PipelineEnv | None = None,
        outputs: CompileOutputs | None = None,
        pipeline_steps: tuple[Step, ...] = (),
    ):
        self.info = info
        self.options: OptionsT = cast("OptionsT", options_of(info, options))
        self.d: DialectTable | None = info.dialect_table
        self.rewriter = rewriter
        self.analyses = analyses
        self.module_op = module_op
        self.state = info.state() if info.state is not None else None
        self.stats = stats if stats is not None else Statistics(info.statistics, info.argument)
        self.log = log if log is not None else []
        self.env = env if env is not None else PipelineEnv()
        self.outputs = outputs if outputs is not None else CompileOutputs()
        self.pipeline_steps = pipeline_steps

    def get_analysis(self, cls: type[_A], op: Op) -> _A:
        """The analysis ``cls`` of ``op`` (cached by the run; see :mod:`hilo_mlir.analysis.manager`)."""
        return self.analyses.get(cls, op)

    @property
    def census(self) -> Census:
        """The module's :class:`~hilo_mlir.analysis.census.Census` (one walk, then kept current)."""
        if self.module_op is self.analyses.module_op:  # the run's module: the manager keeps it at hand
            return self.analyses.census()
        from hilo_mlir.analysis.census import Census

        return self.analyses.get(Census, self.module_op)

    def module_may_contain(self, *op_names: str) -> bool:
        """False only if the module holds none of ``op_names`` (full names, e.g. ``mhlo.power``).

        From the census: a pass looking for a few op kinds returns at once on
        a module without them instead of walking it.
        """
        names = self.census.names
        for n in op_names:
            if n in names:
                return True
        return False

    def ops_named(self, top: ir.Operation, *op_names: str, any_order: bool = False) -> list[ir.Operation]:
        """The ops called any of ``op_names`` inside ``top`` (the op the pass runs on), as a new list.

        Walk order (post-order; ops of one block in block order), one name
        after the other; from the census (no walk unless ``top`` changed
        since the census last listed it). ``any_order``: the caller does not need
        walk order (e.g. "does any of them match?"): a list that moves or insertions
        left out of order is returned as it is, without a walk of ``top``.
        """
        ops: list[ir.Operation] = self.census.ops_named(top, *op_names, any_order=any_order)
        return ops

    def module_element_types(self, if_cached: bool = False) -> frozenset[str] | None:
        """``str`` of every element type in the module (``{"f32", "i64", ...}``).

        With ``if_cached``, None when the census has not taken the types yet
        (a pass with a cheaper check of its own uses that instead of paying
        for the walk).
        """
        census = self.census
        if if_cached and not census.has_types:
            return None
        strings: frozenset[str] = census.element_type_strings()
        return strings

    def value_types(self) -> frozenset[ir.Type]:
        """Every type of an op result or block argument in the module (a frozenset of ``ir.Type``)."""
        types: frozenset[ir.Type] = self.census.types()
        return types

    def op_counts(self) -> dict[str, int]:
        """``{op name: number of ops}`` over every op nested in the module (the module op excluded).

        Do not modify the returned dict.
        """
        counts: dict[str, int] = self.census.counts
        return counts

    @property
    def debugging(self) -> bool:
        """``--debug`` is on: worth spending time on debug lines (match failures, reports)."""
        return self.env.debug

    def debug(self, msg: str) -> None:
        """Record a debug line (printed with ``--debug``); costs nothing otherwise."""
        self.log.append(f"[{self.info.argument}] {msg}")


_OPTION_TYPES: dict[int, tuple[PassInfo, type]] = {}


@dataclass(frozen=True)
class NoOptions:
    """The options of a pass that declares none (one class shared by all of them: making a dataclass
    costs ~2 ms, and a compile runs about a dozen passes without options)."""


def options_type(info: PassInfo) -> type:
    """The frozen dataclass of ``info``'s options: its declared ``options_type``; :class:`NoOptions` when it
    has no option; else one made from its :class:`Option` list (``<DisplayName>Options``: one typed field per
    option, snake_case, its default the option's; made once per pass)."""
    if info.options_type is not None:
        return info.options_type
    if not info.options:
        return NoOptions
    hit = _OPTION_TYPES.get(id(info))
    if hit is not None and hit[0] is info:
        return hit[1]
    fields = [(o.name.replace("-", "_"), o.type, dataclasses.field(default=o.default)) for o in info.options]
    cls = dataclasses.make_dataclass(f"{info.display_name}Options", fields, frozen=True)
    cls.__doc__ = f"The options of pass '{info.argument}'."
    _OPTION_TYPES[id(info)] = (info, cls)
    return cls


def options_of(info: PassInfo, values: Mapping[str, OptionValue]) -> Any:
    """``values`` (keys kebab- or snake-case) as an instance of :func:`options_type` (``ctx.options``);
    values a pass did not declare (hand-built steps in tests) fall back to plain attributes."""
    given = {k.replace("-", "_"): v for k, v in values.items()}
    cls = options_type(info)
    names = {f.name for f in dataclasses.fields(cls)}
    if not set(given) <= names:
        return _Options(values)
    return cls(**given)


class _Options:
    def __init__(self, values: Mapping[str, Any]) -> None:
        self.__dict__.update({k.replace("-", "_"): v for k, v in values.items()})

    def __repr__(self) -> str:  # pragma: no cover
        return f"Options({self.__dict__})"
