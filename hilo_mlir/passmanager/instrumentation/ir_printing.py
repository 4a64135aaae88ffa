"""IR printing (``--mlir-print-ir-*``) as an instrument, following MLIR's ``IRPrinterInstrumentation``.

See :mod:`hilo_mlir.passmanager.instrumentation` for the dump format. "After" dumps of a
pass that ran on the whole module wait until the pass is verified: a pass whose
output fails to verify prints "After ... Failed" instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hilo_mlir.passmanager.instrumentation import Instrumentation, _pass_text, _top_level, op_text
from hilo_mlir.passmanager.instrumentation.base import PassInstrumentation

if TYPE_CHECKING:
    from hilo_mlir.passmanager.steps import Step
    from hilo_mlir.rewrite.rewriter import Change


def is_function_step(step: Step) -> bool:
    """A step that runs on each top-level ``func.func`` (upstream ``func.func(...)``, or a func-anchored pass)."""
    if step.cpp_text is not None:
        return step.cpp_text.startswith("func.func(")
    return step.info is not None and step.info.anchor == "func.func"


def fingerprint(op: Any) -> str:
    """``op`` in generic form with locations (what "changed" means for an upstream pass)."""
    return op_text(op, None, enable_debug_info=True, print_generic_op_form=True)


class IRPrinter(PassInstrumentation):
    """The IR dumps of one pipeline run."""

    def __init__(self, instr: Instrumentation):
        self.instr = instr
        self.before_set = frozenset(instr.print_before)
        self.after_set = frozenset(instr.print_after)
        self._texts: dict[int, str] = {}  # step -> printed textual form (upstream: asked from the binding)
        self._pending: list[str] = []  # "After" dumps waiting for the verifier
        self._module: Any = None
        self._fingerprints: dict[int, str] = {}

    # -- which steps print ---------------------------------------------------------------

    def wants_before(self, step: Step) -> bool:
        return self.instr.print_before_all or step.argument in self.before_set

    def wants_after(self, step: Step) -> bool:
        """True if an "After" dump (success) may print for ``step``."""
        if self.instr.print_after_failure:
            return False
        return self.instr.print_after_all or step.argument in self.after_set

    def wants_failure(self, step: Step) -> bool:
        return self.instr.print_after_all or self.instr.print_after_failure or step.argument in self.after_set

    def active(self, step: Step) -> bool:
        """Any dump of ``step`` at all."""
        return self.wants_before(step) or self.wants_after(step) or self.wants_failure(step)

    @property
    def tracks_change(self) -> bool:
        return self.instr.print_after_change

    # -- headers and bodies ----------------------------------------------------------------

    def pass_text(self, step: Step) -> str:
        """The pass as MLIR's ``printAsTextualPipeline`` shows it: every option, sorted."""
        t = self._texts.get(id(step))
        if t is None:
            t = self._texts[id(step)] = _pass_text(step)
        return t

    def header(self, title: str, step: Step, op: Any, failed: bool = False) -> str:
        name = step.pass_name
        s = f"// -----// IR Dump {title} {name}{' Failed' if failed else ''}: {self.pass_text(step)}"
        if self.instr.print_module_scope:
            op = op.operation if hasattr(op, "operation") else op
            s += f" ('{op.name}' operation"
            if "sym_name" in op.attributes:
                from hilo_mlir.ir.binding import ir

                s += f": @{ir.StringAttr(op.attributes['sym_name']).value}"
            s += ")"
        return s + " //----- //\n"

    def body(self, op: Any) -> str:
        op = op.operation if hasattr(op, "operation") else op
        if self.instr.print_module_scope:
            return op_text(_top_level(op), self.instr)
        return op_text(op, self.instr, local_scope=op.parent is not None)

    def _emit(self, text: str) -> None:
        out = self.instr.stream
        out.write(text)
        if hasattr(out, "flush"):
            out.flush()

    def dump(self, title: str, step: Step, op: Any, failed: bool = False) -> None:
        self._emit(self.header(title, step, op, failed) + self.body(op) + "\n\n")

    def _flush(self) -> None:
        pending, self._pending = self._pending, []
        for t in pending:
            self._emit(t)

    # -- the hooks ---------------------------------------------------------------------------

    def runs_per_op(self, step: Step) -> bool:
        return is_function_step(step) and self.active(step)

    def run_before_pass(self, step: Step, op: Any) -> None:
        self._flush()  # the previous pass was verified (or is not verified after)
        self._module = op

    def run_before_op(self, step: Step, op: Any) -> None:
        if self.wants_before(step):
            self.dump("Before", step, op)
        if step.cpp_text is not None and self.tracks_change:
            self._fingerprints[id(op)] = fingerprint(op)

    def run_after_op(self, step: Step, op: Any, changed: bool) -> None:
        if step.cpp_text is not None:
            before = self._fingerprints.pop(id(op), None)
            changed = before is None or before != fingerprint(op)
        if not self.wants_after(step) or (self.tracks_change and not changed):
            return
        text = self.header("After", step, op) + self.body(op) + "\n\n"
        if step.cpp_text is None and op is self._module:
            self._pending.append(text)  # printed once the module is verified
        else:
            self._emit(text)  # function by function, as MLIR's pass manager (or verified by the binding)

    def run_after_pass(self, step: Step, op: Any, changed: Change) -> None:
        return None

    def run_after_pass_failed(self, step: Step, op: Any, error: BaseException) -> None:
        self._pending = []
        self._fingerprints.clear()
        if self.wants_failure(step):
            self.dump("After", step, op, failed=True)

    def run_after_pipeline(self, op: Any) -> None:
        self._flush()

    def run_after_pipeline_failed(self, step: Step | None, op: Any, error: BaseException) -> None:
        self._flush()
