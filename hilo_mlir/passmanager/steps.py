"""Pipeline steps: a textual pipeline (or a pass argument) resolved into what the executor runs.

A :class:`Step` is one registered Python pass with typed options, or one
upstream C++ pass in the textual form the binding's ``PassManager`` parses
(``func.func(cse)``). :func:`build_steps` resolves a parsed pipeline
(:mod:`hilo_mlir.passmanager.pipeline_parser`): unknown passes get a did-you-mean, bad
options name the valid ones, nesting is checked. :meth:`Step.text` prints a
step back (``full=True``: every option, for ``--dump-pass-pipeline``).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hilo_mlir.passmanager import registry
from hilo_mlir.passmanager.pipeline_parser import Element, parse_options, parse_pipeline
from hilo_mlir.passmanager.registry import OptionValue, PassInfo
from hilo_mlir.support.diagnostics import HiloError

if TYPE_CHECKING:
    from hilo_mlir.ir.binding import ir


@dataclass
class Step:
    """One executable step: a Python pass or an upstream pass in textual form."""

    info: PassInfo | None
    argument: str
    options: dict[str, OptionValue] = field(default_factory=dict)  # option name -> its typed value
    cpp_text: str | None = None  # the textual pipeline for the binding (C++ passes)
    anchor: str = "builtin.module"

    @property
    def display(self) -> str:
        name = self.info.display_name if self.info else self.argument
        return f"{name} ({self.argument})"

    @property
    def pass_name(self) -> str:
        """The pass's class name as IR dumps show it (``NeuronOpFusion``, the binding's ``CSEPass``)."""
        if self.info is None:
            return self.argument
        return self.info.class_name or self.info.display_name

    def text(self, full: bool = False) -> str:
        """This step in pipeline syntax; with ``full``, every option with its value
        (what ``--dump-pass-pipeline`` prints: reproducible even if a default changes)."""
        if self.cpp_text is not None:
            return _full_upstream_text(self.cpp_text) if full else self.cpp_text
        if not self.options:
            return self.argument
        if full:
            return self.argument + "{" + " ".join(f"{k}={_fmt_option(v)}" for k, v in sorted(self.options.items())) + "}"
        defaults = {o.name: o.default for o in self.info.options} if self.info is not None else {}
        diff = {k: v for k, v in self.options.items() if defaults.get(k) != v}
        if not diff:
            return self.argument
        opts = " ".join(f"{k}={_fmt(v)}" for k, v in diff.items())
        return f"{self.argument}{{{opts}}}"


def _fmt(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _fmt_option(v: object) -> str:
    """An option value that parses back: text with spaces, braces or quotes is quoted."""
    t = _fmt(v)
    if isinstance(v, str) and any(c.isspace() or c in '{}()\'","' for c in t):
        return "'" + t + "'" if "'" not in t else '"' + t + '"'
    return t


_PARSE_CONTEXT: ir.Context | None = None


def _parse_context() -> ir.Context:
    """A context for asking the binding's pipeline parser (the current one, else one kept for that)."""
    global _PARSE_CONTEXT
    from hilo_mlir.ir.binding import ir, make_context

    current: ir.Context | None = ir.Context.current  # the stub types the class property as Any
    if current is not None:
        return current
    if _PARSE_CONTEXT is None:
        _PARSE_CONTEXT = make_context()
    return _PARSE_CONTEXT


def _full_upstream_text(cpp_text: str) -> str:
    """An upstream step as the binding prints it back: every scalar option with its value."""
    from hilo_mlir.ir.binding import passmanager

    with _parse_context():
        try:
            printed = str(passmanager.PassManager.parse(f"builtin.module({cpp_text})"))
        except Exception:  # noqa: BLE001 - already validated when the step was built
            return cpp_text
    return " ".join(printed[len("builtin.module(") : -1].split())


@contextlib.contextmanager
def _llvm_stderr(into: list[str]) -> Iterator[None]:
    """Collect what C++ writes to file descriptor 2 inside the block (LLVM's option parser reports a bad
    option value there, e.g. "for the --max-iterations option: 'abc' value invalid ...") into ``into``."""
    import tempfile

    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            into.append(tmp.read().decode("utf-8", "replace"))


def _upstream_ok(text: str) -> str | None:
    """Return None if the binding parses ``builtin.module(text)``, else its error (with what LLVM's
    option parser printed, which would otherwise reach the terminal raw)."""
    from hilo_mlir.ir.binding import passmanager

    llvm: list[str] = []
    with _parse_context():
        try:
            with _llvm_stderr(llvm):
                passmanager.PassManager.parse(f"builtin.module({text})")
            return None
        except Exception as e:  # binding raises ValueError / MLIRError
            said = [ln.strip().lstrip(":").strip() for ln in "".join(llvm).splitlines() if ln.strip()]
            lines = said + [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()]
            return "; ".join(lines) if lines else "cannot parse"


def _element_text(el: Element) -> str:
    s = el.name
    if el.options:
        s += "{" + el.options + "}"
    if el.children is not None:
        s += "(" + ",".join(_element_text(c) for c in el.children) + ")"
    return s


def build_steps(elements: list[Element], anchor: str = "builtin.module") -> list[Step]:
    """Resolve a parsed pipeline into steps; unknown passes or options raise HiloError."""
    steps: list[Step] = []
    for el in elements:
        if el.children is not None:
            if el.name not in ("builtin.module", "func.func"):
                # Other op anchors: upstream only.
                text = _element_text(el)
                err = _upstream_ok(text)
                if err:
                    raise HiloError(f"invalid pass pipeline element '{text}': {err}")
                steps.append(Step(None, el.name, cpp_text=_wrap(anchor, text)))
                continue
            if anchor == "func.func" and el.name == "builtin.module":
                raise HiloError("'builtin.module' cannot be nested under 'func.func' in a pass pipeline")
            steps.extend(build_steps(el.children, el.name))
            continue
        try:
            steps.append(_resolve_pass(el, anchor))
        except HiloError as e:
            if el.col and " at column " not in e.message:
                e.message = f"{e.message} (pass pipeline column {el.col})"
            raise
    return steps


def _wrap(anchor: str, text: str) -> str:
    return f"func.func({text})" if anchor == "func.func" else text


def _resolve_pass(el: Element, anchor: str) -> Step:
    info = registry.lookup(el.name)
    if info is None or info.upstream:
        text = el.name + ("{" + el.options + "}" if el.options else "")
        if info is not None and info.anchor == "func.func" and anchor == "builtin.module":
            text_w = f"func.func({text})"
        else:
            text_w = _wrap(anchor, text)
        err = _upstream_ok(text_w)
        if err:
            if info is None:
                registry.get(el.name)  # raises "unknown pass" with suggestions
            known = (", ".join(o.name for o in info.options) or "none") if info is not None else "see hilo-opt --help"
            m = re.search(r"no such option ([^\s;]+)", err)
            if m:  # the same message as for our passes' options
                raise HiloError(f"pass '{el.name}' has no option '{m.group(1)}' (options: {known})")
            raise HiloError(f"invalid options for pass '{el.name}': {err} (options: {known})")
        return Step(info, el.name, cpp_text=text_w, anchor=anchor)
    if anchor == "func.func" and info.anchor == "builtin.module":
        raise HiloError(f"pass '{info.argument}' anchors on 'builtin.module' and cannot be nested under 'func.func'")
    raw = parse_options(el.options, info.argument)  # option text: typed (and unquoted) by its Option
    opts = info.resolve_options({k: info.option(k).parse(v, info.argument) for k, v in raw.items()})
    return Step(info, info.argument, opts, anchor=info.anchor)


def steps_from_text(text: str, module_root: bool = False) -> list[Step]:
    """Parse and resolve a textual pipeline (``builtin.module(...)`` or a bare list).

    ``module_root``: the pipeline runs on the module, as mlir-opt's
    ``--pass-pipeline``: an outermost op anchor other than ``builtin.module``
    (``func.func(cse)``) must be nested (``builtin.module(func.func(cse))``).
    Without it (a spine edit, which sits inside the module's spine) such an
    anchor nests under the module.

    Raises:
        HiloError: a syntax error, an unknown pass or option, or (``module_root``) another outermost anchor.
    """
    elements = parse_pipeline(text)
    if module_root:
        for el in elements:
            if el.children is not None and el.name != "builtin.module":
                raise HiloError(
                    f"can't run '{el.name}' pass manager on 'builtin.module' op (nest it: 'builtin.module({_element_text(el)})')"
                )
    return build_steps(elements)


def is_printer(step: Step | None) -> bool:
    """Whether ``step`` runs a printer pass (``PassInfo.terminal``: it consumes the module, as ``mhlo-to-py-penguin``)."""
    return step is not None and step.info is not None and step.info.terminal


def printer_pass_text(argument: str) -> str:
    """The rule every pipeline check states: ``'<argument>' is a printer pass: nothing can run after it``."""
    return f"'{argument}' is a printer pass: nothing can run after it"


def check_printer_last(steps: list[Step], what: str) -> None:
    """Nothing runs after a printer pass: a pipeline has at most one, as its last step.

    ``what`` names the pipeline in the message (``--pass-pipeline``, ``the edited spine``).

    Raises:
        HiloError: ``<what>: '<printer>' is a printer pass: nothing can run after it; put '<next>' before it``
            (``...; a pipeline runs one printer pass, last`` when the next step is a printer too).
    """
    for k, step in enumerate(steps[:-1]):
        if is_printer(step):
            nxt = steps[k + 1]
            fix = "a pipeline runs one printer pass, last" if is_printer(nxt) else f"put '{nxt.argument}' before it"
            raise HiloError(f"{what}: {printer_pass_text(step.argument)}; {fix}")


def step_for(argument: str, **options: Any) -> Step:
    """A step for a registered pass with typed options (``step_for('neuron-op-fusion', fuse_dot_logistic=True)``)."""
    info = registry.get(argument)
    if info.upstream:
        opt = " ".join(f"{k.replace('_', '-')}={_fmt(v)}" for k, v in options.items())
        text = argument + (f"{{{opt}}}" if opt else "")
        if info.anchor == "func.func":
            text = f"func.func({text})"
        return Step(info, argument, cpp_text=text)
    return Step(info, argument, info.resolve_options(options), anchor=info.anchor)
