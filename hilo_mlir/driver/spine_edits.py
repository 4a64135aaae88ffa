"""Edits of a spine: a pass inserted before/after a step, a step replaced or disabled.

``hilo2penguin --insert-pass-after STEP=PASS[{opts}]``, ``--insert-pass-before
STEP=PASS``, ``--replace-pass STEP=PASS``, ``--disable-pass STEP`` (all
repeatable), and ``CompileConfig.pass_edits`` for the API, are
:class:`PassEdit` values applied by :func:`apply_edits` when the spine is built
(:func:`hilo_mlir.driver.spine.build_spine`): the dumped pipeline and
``--list-spine`` show the edited spine.

* ``STEP`` is a step of the chosen spine: its pass argument
  (``neuron-op-fusion``; on the StableHLO spine the MHLO name of a step names
  its twin too), or its step number (``15``, ``14a``); ``call-inliner`` and
  ``raise-logistic``, the passes before the spine, by argument.
* ``PASS`` is pipeline text: one pass with options (``my-pass{factor=2}``), or
  several, nested as in ``--pass-pipeline`` (``func.func(cse),canonicalize``).
* A step replaced by its own pass with no options (``--replace-pass
  32=mhlo-to-py-penguin``, an alias of it too) keeps the options the
  configuration gives the step (``--model-type``, the fusion options of step
  15, step 1a's ``allow-xla-features``): it is the configured step. With
  options written (``mhlo-to-py-penguin{root=x}``) the pass runs with exactly
  those, every other option at its default, as for any other pass.

Errors (:class:`~hilo_mlir.support.diagnostics.HiloError`, each naming the
edit as its flag spells it): an unknown step (with a did-you-mean), a step
whose gate is off (it does not run, so it has no place), an unknown pass or
option, two replacements or a replacement and a disable of one step, a pass
placed after the printer (or the printer disabled, or replaced by passes that
do not end in a printer: nothing runs after it).
"""

from __future__ import annotations

from dataclasses import dataclass

from hilo_mlir.support.diagnostics import HiloError

KINDS = ("insert-after", "insert-before", "replace", "disable")
_FLAGS = {
    "insert-after": "--insert-pass-after",
    "insert-before": "--insert-pass-before",
    "replace": "--replace-pass",
    "disable": "--disable-pass",
}


@dataclass(frozen=True)
class PassEdit:
    """One edit of the spine.

    Attributes:
        kind: ``"insert-after"``, ``"insert-before"``, ``"replace"`` or ``"disable"``.
        step: the step it applies to (pass argument or step number).
        pipeline: the pass(es) to insert or put in its place (pipeline text); ``""`` for ``disable``.
    """

    kind: str
    step: str
    pipeline: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise HiloError(f"unknown spine edit '{self.kind}' (expected one of: {', '.join(KINDS)})")
        if not self.step:
            raise HiloError(f"{self.flag}: no step given")
        if (self.kind == "disable") != (not self.pipeline):
            raise HiloError(f"{self.flag}: expected {'STEP' if self.kind == 'disable' else 'STEP=PASS'}")

    @property
    def flag(self) -> str:
        return _FLAGS.get(self.kind, self.kind)

    @classmethod
    def parse(cls, kind: str, text: str) -> PassEdit:
        """From a flag's value: ``STEP=PASS[{opts}]`` (``STEP`` alone for ``disable``)."""
        if kind == "disable":
            return cls(kind, text.strip())
        step, eq, pipeline = text.partition("=")
        if not eq or not pipeline.strip():
            raise HiloError(f"{_FLAGS[kind]}: expected STEP=PASS[{{options}}], got '{text}'")
        return cls(kind, step.strip(), pipeline.strip())

    def text(self) -> str:
        return f"{self.flag} {self.step}" + (f"={self.pipeline}" if self.pipeline else "")


def resolve_step(step: str, entries, mhlo_names: dict) -> int:
    """Index in ``entries`` (:class:`~hilo_mlir.driver.spine.SpineEntry`) of the step ``step`` names.

    ``mhlo_names``: entry index -> the MHLO argument of a StableHLO step (twin names).

    Raises:
        HiloError: no such step (did-you-mean), or the step does not run (gate off).
    """
    from hilo_mlir import passes

    canonical = passes.aliases().get(step, step)  # an alias names its pass's step (remove-optimization-barriers: step 8)
    for i, e in enumerate(entries):
        if step in (e.argument, mhlo_names.get(i)) or canonical == e.argument or (e.label != "pre" and step == e.label):
            if not e.enabled:
                gate = e.gate.replace("_", "-") if e.gate else ""
                raise HiloError(
                    f"step {e.label} '{e.argument}' does not run: its gate {gate} is off (turn it on with --enable-{gate} or --preset all)"
                )
            return i
    known = [e.argument for e in entries] + [e.label for e in entries if e.label != "pre"]
    import difflib  # only for a step that is not in the spine

    close = difflib.get_close_matches(step, known, n=3)
    hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
    raise HiloError(f"unknown spine step '{step}'{hint}; steps are pass arguments or numbers, see --list-spine")


def _is_bare_self(pipeline: str, argument: str) -> bool:
    """Whether ``pipeline`` is the one pass ``argument`` (or an alias of it), with no options and no nesting."""
    from hilo_mlir import passes
    from hilo_mlir.passmanager.pipeline_parser import parse_pipeline

    elements = parse_pipeline(pipeline)
    if len(elements) != 1 or elements[0].children is not None or elements[0].options:
        return False
    return passes.aliases().get(elements[0].name, elements[0].name) == argument


def _terminal(step) -> bool:
    from hilo_mlir.passmanager.steps import is_printer

    return is_printer(step)


def _keep_the_printer_last(edit: PassEdit, i: int, entries, steps_of, new: list) -> None:
    """Refuse an edit that would leave the spine without its printer as the last step.

    Nothing runs after the printer (``penguin.py`` is written by it): a pass
    inserted after it, the printer disabled, or replaced by passes that do not
    end in a printer is an error naming the steps a pass can be placed at. A
    printer pass in an edit's passes is allowed only as the one printer, last,
    of a replacement of the printer's step (inserted anywhere, or followed by
    other passes, it would run before them).

    Raises:
        HiloError: naming the edit, the printer's step and the valid range.
    """
    from hilo_mlir.passmanager.steps import printer_pass_text

    entry = entries[i]
    printers = [s for s in new if _terminal(s)]
    is_printer = _terminal(steps_of(entry))
    if printers and not (is_printer and edit.kind == "replace" and len(printers) == 1 and _terminal(new[-1])):
        where = next(
            (f"step {e.label} '{e.argument}'" for e in reversed(entries) if e.enabled and _terminal(steps_of(e))), "the printer's step"
        )
        raise HiloError(
            f"{edit.text()}: {printer_pass_text(printers[0].argument)}, so the edited spine "
            f"must end in one printer; a printer pass can only replace {where}, as the last pass of the replacement"
        )
    if not is_printer:
        return
    if edit.kind == "insert-before" or (edit.kind == "replace" and new and _terminal(new[-1])):
        return
    labels = [e.label for e in entries[:i] if e.label != "pre"]
    printer = f"step {entry.label} '{entry.argument}' is the printer, the spine's last step"
    if edit.kind == "insert-after":
        valid = f"insert after a step from {labels[0]} to {labels[-1]} or before step {entry.label}" if labels else "insert before it"
        raise HiloError(f"{edit.text()}: {printer}: nothing can run after it; {valid}")
    if edit.kind == "disable":
        raise HiloError(f"{edit.text()}: {printer}: it cannot be disabled")
    raise HiloError(f"{edit.text()}: {printer}: it can be replaced only by passes that end in a printer pass")


def edited_rows(entries, steps_of, edits, mhlo_names: dict | None = None) -> list:
    """The edited spine as rows ``(entry, step, note)``, in run order.

    ``entry`` is the :class:`~hilo_mlir.driver.spine.SpineEntry` a row belongs to
    (for an inserted pass, the step it was placed at), ``step`` the
    :class:`~hilo_mlir.passmanager.steps.Step` that runs, or None for a disabled step;
    ``note`` says what the edit did (``""`` for an unedited step). Steps
    whose gate is off are left out.

    Raises:
        HiloError: an edit names an unknown step or pass, or would leave the
            spine without its printer as its last step, once.

    Args:
        entries: the spine (:func:`hilo_mlir.driver.spine.spine_entries`).
        steps_of: entry -> its :class:`~hilo_mlir.passmanager.steps.Step`.
        edits: :class:`PassEdit` values, in the order given (inserts at one
            place keep that order).
        mhlo_names: see :func:`resolve_step`.
    """
    from hilo_mlir.passmanager.steps import check_printer_last, steps_from_text

    mhlo_names = mhlo_names or {}
    before: dict = {}
    after: dict = {}
    replaced: dict = {}
    disabled: set = set()
    for edit in edits:
        try:
            i = resolve_step(edit.step, entries, mhlo_names)
            new = steps_from_text(edit.pipeline) if edit.pipeline else []
        except HiloError as e:
            e.message = f"{edit.text()}: {e.message}"
            raise
        _keep_the_printer_last(edit, i, entries, steps_of, new)
        if edit.kind in ("replace", "disable") and (i in replaced or i in disabled):
            raise HiloError(
                f"{edit.flag} {edit.step}: step {entries[i].label} '{entries[i].argument}' "
                "is already replaced or disabled by an earlier edit"
            )
        if edit.kind == "insert-after":
            after.setdefault(i, []).extend(new)
        elif edit.kind == "insert-before":
            before.setdefault(i, []).extend(new)
        elif edit.kind == "replace":
            replaced[i] = [steps_of(entries[i])] if _is_bare_self(edit.pipeline, entries[i].argument) else new
        else:
            disabled.add(i)
    rows: list = []
    for i, entry in enumerate(entries):
        if not entry.enabled:
            continue
        where = f"{entry.label} '{entry.argument}'" if entry.label != "pre" else f"'{entry.argument}'"
        rows.extend((entry, s, f"inserted before {where}") for s in before.get(i, ()))
        if i in replaced:
            rows.extend((entry, s, f"replaces {where}") for s in replaced[i])
        elif i in disabled:
            rows.append((entry, None, "disabled"))
        else:
            rows.append((entry, steps_of(entry), ""))
        rows.extend((entry, s, f"inserted after {where}") for s in after.get(i, ()))
    # the edits above refuse each way to get here: the printer is the last step, once
    check_printer_last([s for _e, s, _note in rows if s is not None], "the edited spine")
    return rows


def apply_edits(entries, steps_of, edits, mhlo_names: dict | None = None) -> list:
    """The steps that run once ``edits`` are applied (see :func:`edited_rows`)."""
    return [s for _e, s, _note in edited_rows(entries, steps_of, edits, mhlo_names) if s is not None]
