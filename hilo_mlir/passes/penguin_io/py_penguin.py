"""The terminal printer passes (spine step 32): ``mhlo-to-py-penguin`` / ``stablehlo-to-py-penguin``.

The format is ``docs/penguin_format.md``. The pass does not change the IR: it prints
``main`` as Penguin Python and leaves the text in the pipeline's
``ctx.outputs.source`` and the large-constant ``.npy`` files in
``ctx.outputs.files`` (the driver writes both into the output folder),
or writes them to the file named by the ``output`` option (the ``.npy``
files beside it).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hilo_mlir.passmanager.options import option
from hilo_mlir.passmanager.registry import PassInfo, register
from hilo_mlir.printers import DEFAULT_INLINE_LIMIT, DEFAULT_MODEL_TYPE, DEFAULT_ROOT, MODEL_TYPES, print_program

if TYPE_CHECKING:
    from hilo_mlir.passmanager.pass_context import PassContext


def _root_reason(value: str) -> str | None:
    """Why ``value`` cannot be the module root (it is printed as code: ``import <root> as m0``), or None."""
    from hilo_mlir.support.diagnostics import HiloError
    from hilo_mlir.support.pysource import dotted_name

    try:
        dotted_name(value)
    except HiloError:
        return "must be a dotted Python identifier (e.g. 'neuronxcc.starfish.penguin')"
    return None


def _model_type_reason(value: str) -> str | None:
    return None if value in MODEL_TYPES else f"expected one of: {', '.join(MODEL_TYPES)}"


@dataclass(frozen=True)
class PyPenguinOptions:
    """The options of ``mhlo-to-py-penguin`` and ``stablehlo-to-py-penguin``."""

    root: str = option(
        DEFAULT_ROOT, "Penguin module root the program imports (its support module is the root's sibling)", check=_root_reason
    )
    model_type: str = option(
        DEFAULT_MODEL_TYPE, "model-type of the Function prologue: generic, transformer or unet-inference", check=_model_type_reason
    )
    output: str = option(
        "", "write penguin.py here ('-' = stdout; the folder must exist); default: keep it for the driver", writes_file=True
    )
    inline_constant_max_elements: int = option(
        DEFAULT_INLINE_LIMIT, "non-splat constants with more elements are written to .npy files beside penguin.py"
    )


def _print(module_op, ctx: PassContext[PyPenguinOptions], checking: bool = False) -> tuple[str, dict, dict, dict]:
    """``(source, files, per-op statement counts, parameters)`` of the printer (the checking printer if ``checking``)."""
    counts: dict = {}
    parameters: dict = {}
    assert ctx.info.dialect is not None, "registered for one dialect"
    src, files = print_program(
        module_op,
        dialect=ctx.info.dialect,
        root=ctx.options.root,
        filename=ctx.env.filename,
        inline_limit=ctx.options.inline_constant_max_elements,
        stats=counts,
        model_type=ctx.options.model_type,
        parameters=parameters,
        checking=checking,
    )
    return src, files, counts, parameters


def _check_printer(module_op, ctx: PassContext[PyPenguinOptions], printed: tuple) -> None:
    """The checking mode (``HILO_MLIR_CHECK_ANALYSES=1``): the printer's fast paths and memos against the checking printer.

    Raises:
        AnalysisCheckError: the two outputs differ (naming the first differing line or part).
    """
    from hilo_mlir.analysis.check import AnalysisCheckError

    truth = _print(module_op, ctx, checking=True)
    if truth == printed:
        return
    if truth[0] != printed[0]:
        got, want = printed[0].split("\n"), truth[0].split("\n")
        line = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        what = f"penguin.py line {line + 1}"
    else:
        what = next(part for part, a, b in zip(("", ".npy files", "statement counts", "parameters"), printed, truth) if a != b)
    raise AnalysisCheckError(
        f"analysis check failed in pass '{ctx.info.argument}': the printer's fast paths and the checking printer differ in {what}"
    )


def _run_printer(module_op, ctx: PassContext[PyPenguinOptions]) -> None:
    from hilo_mlir.ir.binding import checking_mode_enabled

    printed = _print(module_op, ctx)
    if checking_mode_enabled():
        _check_printer(module_op, ctx, printed)
    src, files, counts, parameters = printed
    ctx.stats["statements"] += sum(counts.values())
    ctx.stats["npy-files"] += len(files)
    ctx.outputs.source = src
    ctx.outputs.files = files
    ctx.outputs.parameters = parameters
    out = ctx.options.output
    if out == "-":
        import sys

        sys.stdout.write(src)
    elif out:
        # As hilo-opt's -o: the folder must exist (a missing one is an error, never
        # created); penguin.py plus its .npy files are renamed into place only once
        # all were written.
        from hilo_mlir.support.diagnostics import HiloError, shown_path
        from hilo_mlir.support.io import folder_problem
        from hilo_mlir.support.packaging import write_program

        folder = os.path.dirname(os.path.abspath(out))
        problem = folder_problem(os.path.dirname(out))
        if problem is not None:
            raise HiloError(f"cannot write output file '{shown_path(out)}': {problem}")
        try:  # content-named files, one publication (another program name: earlier files are not collected)
            write_program(folder, src, files, program_name=os.path.basename(out))
        except OSError as e:
            raise HiloError(f"cannot write output file '{shown_path(out)}': {e.strerror or e}") from None


for _arg, _dialect, _cls in (
    ("mhlo-to-py-penguin", "mhlo", "MhloToPyPenguin"),
    ("stablehlo-to-py-penguin", "stablehlo", "StableHLOToPyPenguin"),
):
    register(
        PassInfo(
            _arg,
            f"Print the {_dialect} module as a Penguin Python program (terminal pass)",
            _run_printer,
            anchor="builtin.module",
            dialect=_dialect,
            options_type=PyPenguinOptions,
            class_name=_cls,
            statistics=("statements", "npy-files"),
            terminal=True,
            source="seed 004 step 32; seed 002 sections 1-3; docs/penguin_format.md",
        )
    )
