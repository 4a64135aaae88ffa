"""Twin warnings: a pass for one HLO dialect about to run on a module that only has ops of the other."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hilo_mlir.passmanager.instrumentation.base import PassInstrumentation

if TYPE_CHECKING:
    from hilo_mlir.analysis.manager import AnalysisManager
    from hilo_mlir.passmanager.steps import Step


#: Upstream passes that rewrite within the dialects they find (they fold, merge and erase ops but
#: never bring in another HLO dialect): after one, what the check saw still holds, and it takes no
#: new census (the walk a check before ``hlo-legalize-to-stablehlo`` would otherwise make after
#: ``canonicalize``). A module whose every op of one dialect they erased keeps its old answer.
DIALECT_PRESERVING = frozenset({"canonicalize", "cse", "remove-dead-values", "symbol-dce"})


class TwinWarnings(PassInstrumentation):
    """Warn (once per pass) when a pass for one dialect runs on a module that only has ops of the other
    (it would do nothing), naming its twin. Printers (terminal) and passes that read either dialect
    (``PassInfo.any_dialect``) print both: no warning.

    Args:
        analyses: the run's analysis manager (the census says which ops the module has).
        warn: ``warn(message, loc)`` emits the warning.
    """

    def __init__(self, analyses: Callable[[], AnalysisManager], warn: Callable[[str, Any], None]):
        self._analyses = analyses
        self._warn = warn
        self._warned: set[str] = set()
        self._seen: set[str] = set()  # dialects the module had ops of when last asked

    def run_before_pass(self, step: Step, op: Any) -> None:
        from hilo_mlir.analysis.census import Census

        census = self._analyses().cached(Census, op)
        if census is not None:  # free to read now; what it says holds until an upstream step runs
            self._seen.update(d for d in ("mhlo", "stablehlo") if any(n.startswith(d + ".") for n in census.names))
        self._check(step, op)
        if step.cpp_text is not None and step.argument not in DIALECT_PRESERVING:
            self._seen.clear()  # an upstream pass may change the dialect

    def _check(self, step: Step, op: Any) -> None:
        from hilo_mlir.analysis.census import Census
        from hilo_mlir.passmanager import registry

        info = step.info
        if (
            info is None
            or info.dialect not in ("mhlo", "stablehlo")
            or info.terminal
            or info.any_dialect
            or step.argument in self._warned
            or info.dialect in self._seen
        ):
            return
        names = self._analyses().get(Census, op).names
        own, other = ("mhlo.", "stablehlo.") if info.dialect == "mhlo" else ("stablehlo.", "mhlo.")
        if any(n.startswith(own) for n in names):
            # Python passes never change the dialect: no need to ask again until an upstream step ran
            self._seen.add(info.dialect)
            return
        if not any(n.startswith(other) for n in names):
            return
        self._warned.add(step.argument)
        twin = registry.twin_of(info)
        hint = f": use its twin '{twin}'" if twin else ""
        self._warn(
            f"pass '{step.argument}' works on {info.dialect} ops but the module has none (it has {other[:-1]} ops){hint}", op.location
        )
