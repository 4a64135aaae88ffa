"""Crash reproducers in MLIR's format (``--mlir-pass-pipeline-crash-reproducer``, ``--run-reproducer``).

When a pass fails (an error it reports, a verifier failure after it, or an
exception), the pipeline writes the IR as it was *before* that pass, with
locations, followed by MLIR's resource block naming the pipeline to replay::

    module { ... }

    {-#
      external_resources: {
        mlir_reproducer: {
          pipeline: "builtin.module(neuron-op-fusion{fuse-dot-logistic=true})",
          disable_threading: true,
          verify_each: true
        }
      }
    #-}

This is MLIR's "local" reproducer (the IR right before the failing pass and
that pass alone). ``hilo-opt FILE --run-reproducer`` reads the block, runs
its pipeline on the IR and fails the same way. Nothing here imports the
bindings at import time.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, TypedDict, cast

from hilo_mlir.support.diagnostics import Diagnostic, HiloError

if TYPE_CHECKING:
    from hilo_mlir.ir.handles import Op
    from hilo_mlir.passmanager.steps import Step


class Entries(TypedDict, total=False):
    """A reproducer's entries (``pipeline`` is always there: :func:`read_reproducer` checks it)."""

    pipeline: str
    disable_threading: bool
    verify_each: bool


_BLOCK = re.compile(r"\{-#(.*?)#-\}", re.S)
_REPRO = re.compile(r"mlir_reproducer\s*:\s*\{")
_ENTRY = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)\s*:\s*("(?:[^"\\]|\\.)*"|true|false)')


_STDIN_LOC = re.compile(r'(?<=loc\()"-"(?=:\d+:\d+)|(?<=[(\[, ])"-"(?=:\d+:\d+)')


def snapshot(op: Op, filename: str | None = None) -> str:
    """The module as the reproducer stores it: custom form with locations (generic if it does not verify).

    ``filename``: the input's name, written instead of the parser's ``-``
    buffer name in locations, so that a replay reports the original file.
    """
    op = op.operation if hasattr(op, "operation") else op
    buf = io.StringIO()
    op.print(file=buf, enable_debug_info=True)
    text = buf.getvalue()
    if filename and filename != "-":
        text = name_stdin_locations(text, filename)
    return text if text.endswith("\n") else text + "\n"


def name_stdin_locations(text: str, filename: str) -> str:
    """``loc("-":L:C)`` (the parser's buffer name) -> ``loc("<filename>":L:C)`` in printed IR."""
    quoted = '"' + filename.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return _STDIN_LOC.sub(lambda _m: quoted, text)


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def reproducer_text(ir_text: str, pipeline: str, verify_each: bool = True) -> str:
    """``ir_text`` followed by the ``mlir_reproducer`` resource block for ``pipeline``."""
    return (
        ir_text.rstrip("\n") + "\n\n{-#\n  external_resources: {\n    mlir_reproducer: {\n"
        f"      pipeline: {_quote(pipeline)},\n"
        "      disable_threading: true,\n"
        f"      verify_each: {'true' if verify_each else 'false'}\n"
        "    }\n  }\n#-}\n"
    )


def write_reproducer(
    path: str, ir_text: str, pipeline: str, verify_each: bool = True, failing: str | None = None, anchor: str = "'builtin.module' operation"
) -> Diagnostic:
    """Write the reproducer; returns the note the failure carries (MLIR's wording), or a
    warning when the file cannot be written (the original error is never hidden).

    ``anchor``: what the failing pass ran on, as MLIR names it (``'func.func' operation: @main``)."""
    from hilo_mlir.support.io import atomic_write_text

    try:
        atomic_write_text(path, reproducer_text(ir_text, pipeline, verify_each))
    except HiloError as e:
        return Diagnostic("warning", f"could not write the crash reproducer: {e.message}")
    what = f"[`{failing}` on {anchor}]" if failing else "[the final verification]"
    return Diagnostic("note", f"Pipeline failed while executing {what}: reproducer generated at `{path}`")


def _reproducer_body(resources: str) -> str | None:
    """The text between the braces of ``mlir_reproducer: { ... }`` (quoted strings may hold braces)."""
    r = _REPRO.search(resources)
    if r is None:
        return None
    i, depth, quoted = r.end(), 1, False
    while i < len(resources):
        c = resources[i]
        if quoted:
            if c == "\\":
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return resources[r.end() : i]
        i += 1
    return None


def read_reproducer(text: str) -> tuple[str, Entries] | None:
    """Split a reproducer into (IR text without the ``mlir_reproducer`` block, its entries).

    Entries: ``pipeline`` (str), ``disable_threading`` / ``verify_each`` (bool).
    Returns None when ``text`` carries no ``mlir_reproducer`` resource.

    Raises:
        HiloError: a ``mlir_reproducer`` block without a ``pipeline``.
    """
    for m in _BLOCK.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if "//" in text[line_start : m.start()]:
            continue  # inside a comment
        body_text = _reproducer_body(m.group(1))
        if body_text is None:
            continue
        entries: dict[str, str | bool] = {}  # as written; the known keys are those of Entries
        for key, value in _ENTRY.findall(body_text):
            if value in ("true", "false"):
                entries[key] = value == "true"
            else:
                entries[key] = re.sub(r"\\(.)", r"\1", value[1:-1])
        if not isinstance(entries.get("pipeline"), str):
            raise HiloError("the mlir_reproducer resource has no 'pipeline' entry")
        body = text[: m.start()] + "\n" * text[m.start() : m.end()].count("\n") + text[m.end() :]
        return body, cast(Entries, entries)
    return None


def strip_reproducer(text: str) -> str:
    """``text`` without its ``mlir_reproducer`` resource block (lines kept, so locations stay)."""
    found = read_reproducer(text)
    return found[0] if found is not None else text


#: options of the binding's upstream passes that name a file or folder the pass writes
UPSTREAM_FILE_OPTIONS = ("filename", "module-dump-directory")
_UPSTREAM_FILE = re.compile(r"(?:^|[{\s])(" + "|".join(UPSTREAM_FILE_OPTIONS) + r")\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s}]*)")


def written_files(steps: Iterable[Step]) -> list[tuple[str, str, str]]:
    """``(pass, option, value)`` for every option of ``steps`` that names a file or folder a pass writes.

    Python passes declare such options (``Option(..., writes_file=True)``: the
    printers' and ``hlo-histogram``'s ``output``); for the binding's passes
    they are :data:`UPSTREAM_FILE_OPTIONS`. ``''`` (none) and ``'-'`` (a
    standard stream) are not files.
    """
    out = []
    for s in steps:
        if s.cpp_text is not None:
            for m in _UPSTREAM_FILE.finditer(s.cpp_text):
                value = m.group(2).strip("\"'")
                if value and value != "-":
                    out.append((s.argument, m.group(1), value))
            continue
        if s.info is None:
            continue
        for o in s.info.options:
            value = s.options.get(o.name, o.default)
            if o.writes_file and isinstance(value, str) and value and value != "-":
                out.append((s.argument, o.name, value))
    return out
