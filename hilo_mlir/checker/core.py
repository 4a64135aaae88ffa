"""``hilo_mlir.check(...)``: compile, run penguin.py, XLA and the f64 truth, judge every output.

One check (:func:`check_data`):

1. the input (``.mlir`` text, bytecode, a portable artifact or an
   ``HloModuleProto``) is read with the driver's reader, specialized by
   ``input_types`` if given, and brought to plain stablehlo for XLA;
2. ``main``'s inputs come from ``inputs`` (arrays or an ``.npz``) or are drawn
   (:mod:`hilo_mlir.checker.inputs`, deterministic given ``seed``);
3. the module is compiled with ``config`` (every ``hilo2penguin`` flag) and
   ``penguin.py`` runs on the reference backend; the module runs on XLA CPU and,
   widened to f64, as the truth (:mod:`hilo_mlir.checker.evaluate`);
4. each output gets a verdict (:mod:`hilo_mlir.checker.verdict`);
5. on a less-accurate output, the pass and the cluster that caused it are
   bisected (:mod:`hilo_mlir.checker.bisect`), when asked.

Every failure to make the check is a :class:`~hilo_mlir.checker.errors.CheckError`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from hilo_mlir.checker import evaluate as ev
from hilo_mlir.checker.errors import CheckError
from hilo_mlir.checker.evaluate import compile_subject
from hilo_mlir.checker.inputs import Argument, load_inputs, random_inputs, signature
from hilo_mlir.checker.verdict import FACTOR, FLOOR_ULPS, OutputVerdict, judge
from hilo_mlir.support.diagnostics import HiloError, shown_path
from hilo_mlir.support.io import input_file_error, read_input

if TYPE_CHECKING:
    from hilo_mlir.checker.bisect import Bisection


@dataclass
class CheckResult:
    """What a check found.

    Attributes:
        model: the input's name.
        spine: ``mhlo`` or ``stablehlo``.
        seed: the random inputs' seed (None when inputs were given).
        arguments: ``main``'s arguments with their roles.
        outputs: one :class:`OutputVerdict` per output of ``main``.
        bisection: the culprit (:class:`hilo_mlir.checker.bisect.Bisection`) when a bisection ran.
        files: paths written (JSON report, Model Explorer graph, reproducer).
    """

    model: str
    spine: str
    seed: int | None
    arguments: list
    outputs: list
    bisection: Bisection | None = None
    files: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when every output is as accurate as XLA (exit 0)."""
        return all(o.ok for o in self.outputs)

    def as_dict(self) -> dict:
        return {
            "model": self.model,
            "spine": self.spine,
            "seed": self.seed,
            "ok": self.ok,
            "rule": {"factor": FACTOR, "floor_ulps": FLOOR_ULPS},
            "arguments": [{"name": a.name, "type": a.mlir, "role": a.role} for a in self.arguments],
            "outputs": [o.as_dict() for o in self.outputs],
            "bisection": self.bisection.as_dict() if self.bisection is not None else None,
            "files": dict(self.files),
        }

    def json(self) -> str:
        return json.dumps(self.as_dict(), indent=1, sort_keys=True, default=str) + "\n"

    def text(self) -> str:
        """The per-output table (what ``hilo-check`` prints)."""
        rows = [("out", "dtype", "shape", "err penguin", "err XLA", "bound", "verdict")]
        for o in self.outputs:
            shape = "x".join(str(s) for s in o.shape) or "scalar"
            if o.kind == "float":
                e = (f"{o.err_penguin:.3g}", f"{o.err_xla:.3g}", f"{o.bound:.3g}")
            else:
                e = (f"{o.mismatches_penguin} diff", f"{o.mismatches_xla} diff", "exact")
            rows.append((str(o.index), o.dtype, shape, *e, o.verdict + (" (structurally zero)" if o.structurally_zero else "")))
        widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
        lines = [f"hilo-check: {self.model} (spine {self.spine}" + (f", seed {self.seed})" if self.seed is not None else ", given inputs)")]
        lines.append(
            f"errors are max |result - f64 truth|; as accurate as XLA when err penguin <= {FACTOR:g} x err XLA + {FLOOR_ULPS:g} eps x scale"
        )
        for r in rows:
            lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        for o in self.outputs:
            if o.note and o.structurally_zero:
                lines.append(f"output {o.index}: {o.note}")
            if not o.ok and o.worst is not None:
                w = o.worst
                lines.append(
                    f"output {o.index}: worst element {w.where or '[]'} (flat {w.index}): penguin {w.penguin}, XLA {w.xla}, truth {w.truth}"
                )
        n_bad = sum(not o.ok for o in self.outputs)
        if self.bisection is not None:
            lines.extend(self.bisection.text_lines())
        for kind, path in sorted(self.files.items()):
            lines.append(f"wrote {kind}: {path}")
        lines.append(
            "every output is as accurate as XLA" if n_bad == 0 else f"{n_bad} of {len(self.outputs)} output(s) less accurate than XLA"
        )
        return "\n".join(lines) + "\n"


@dataclass
class Subject:
    """The module under check: its raw data, name, plain-stablehlo text and signature."""

    data: bytes | str
    filename: str
    text: str  # plain stablehlo (input_types applied), what XLA runs
    arguments: list[Argument]
    input_types: object = None
    allow_unregistered: bool = False


def load_subject(data: bytes | str, filename: str, input_types=None, allow_unregistered: bool = False) -> Subject:
    """Read the input and bring it to plain stablehlo for XLA.

    Raises:
        CheckError: unreadable input, refused ``input_types``, dynamic shapes, no ``main``.
    """
    from hilo_mlir.driver.compiler import load_module
    from hilo_mlir.ir.binding import ir

    try:
        loaded = load_module(data, filename, allow_unregistered=allow_unregistered, isolate=not isinstance(data, str))
        if input_types:
            from hilo_mlir.driver.config import input_types_text
            from hilo_mlir.passes.importing.refine_shapes import refine_module

            refine_module(loaded.module.operation, input_types_text(input_types) or "", filename)
        with loaded.context:
            _single_device_only(loaded.module)
            text = str(loaded.module)
    except CheckError:
        raise
    except HiloError as e:
        raise CheckError(e.message, loc=e.loc, code=e.code, notes=list(e.notes), filename=filename) from None
    plain = ev.evaluable(text)
    from hilo_mlir.ir.binding import make_context

    with make_context(), ir.Location.unknown():
        args = signature(ir.Module.parse(plain))
    return Subject(data, filename, plain, args, input_types, allow_unregistered)


def _single_device_only(module) -> None:
    """Refuse a module that declares more than one device (``mhlo.num_replicas`` x ``mhlo.num_partitions``).

    XLA's CPU client here runs one device and the comparison is per program, so an SPMD or replicated
    program cannot be checked; ``hilo-penguin-run --devices N`` runs its penguin.py on N simulated devices.

    Raises:
        CheckError: the module declares R x P > 1 devices.
    """
    from hilo_mlir.ir.binding import ir
    from hilo_mlir.ir.dialects import NUM_PARTITIONS_ATTR, NUM_REPLICAS_ATTR

    attrs = module.operation.attributes
    counts = {}
    for name in (NUM_REPLICAS_ATTR, NUM_PARTITIONS_ATTR):
        if name in attrs and isinstance(attrs[name], ir.IntegerAttr):
            counts[name] = ir.IntegerAttr(attrs[name]).value
    devices = counts.get(NUM_REPLICAS_ATTR, 1) * counts.get(NUM_PARTITIONS_ATTR, 1)
    if devices > 1:
        declared = ", ".join(f"{k} = {v}" for k, v in counts.items())
        raise CheckError(
            f"only single-device programs can be checked; this module runs on {devices} devices ({declared}): "
            f"compile it with hilo2penguin and run penguin.py with 'hilo-penguin-run --devices {devices}'"
        )


def make_inputs(subject: Subject, inputs=None, seed: int = 0, weights: dict | None = None) -> tuple[list, int | None]:
    """(input arrays, seed or None): ``inputs`` (a path to ``.npz``/``.npy`` or a list of arrays), else random ones.

    ``weights``: ``{argument index: array}`` overriding those arguments (``--weights``).
    """
    args = subject.arguments
    if inputs is None:
        arrays, used_seed = random_inputs(args, seed), seed
    elif isinstance(inputs, (str, os.PathLike)):
        arrays, used_seed = load_inputs(os.fspath(inputs), args), None
    else:
        arrays = [np.asarray(a) for a in inputs]
        if len(arrays) != len(args):
            raise CheckError(f"main takes {len(args)} inputs, {len(arrays)} given")
        from hilo_mlir.checker.inputs import _convert

        for i, (a, x) in enumerate(zip(args, arrays)):
            if tuple(x.shape) != a.shape:
                raise CheckError(f"input #{i} has shape {tuple(x.shape)}, argument #{i} of main is {a.mlir}")
            arrays[i] = _convert(x, a, f"input #{i}")
        used_seed = None
    for idx, w in (weights or {}).items():
        if not 0 <= idx < len(args):
            raise CheckError(f"--weights names input {idx}, main has {len(args)} inputs")
        if tuple(np.shape(w)) != args[idx].shape:
            raise CheckError(f"weight for input {idx} has shape {tuple(np.shape(w))}, argument #{idx} of main is {args[idx].mlir}")
        arrays[idx] = np.asarray(w).astype(args[idx].dtype)
    return arrays, used_seed


def check_data(
    data: bytes | str,
    filename: str = "<string>",
    config=None,
    spine: str = "mhlo",
    inputs=None,
    seed: int = 0,
    input_types=None,
    weights: dict | None = None,
    bisect: bool = False,
    out_dir: str | None = None,
    allow_unregistered: bool = False,
    explorer: bool = False,
    fusion_report: str | None = None,
) -> CheckResult:
    """Check one module; see the module doc.

    Args:
        data: the module (text or bytes, any form ``hilo2penguin`` reads).
        filename: its name (``*.pb`` is read as an ``HloModuleProto``).
        config: a :class:`~hilo_mlir.CompileConfig`, a preset name or None.
        spine: ``mhlo`` or ``stablehlo``.
        inputs: None (seeded random inputs), a path to ``.npz``/``.npy``, or a list of arrays.
        seed: the random inputs' seed.
        input_types: static types for a shape-polymorphic ``main``.
        weights: ``{argument index: array}`` used for those inputs.
        bisect: on a less-accurate output, find the pass and cluster that caused it.
        out_dir: where the JSON report, the Model Explorer graph and the reproducer go (None: nowhere).
        explorer: write the Model Explorer graph and node data into ``out_dir``.
        fusion_report: a folder for the compile's fusion report (default ``out_dir`` with ``explorer``);
            its HTML links to the Model Explorer graph.

    Raises:
        CheckError: the check cannot be made.
    """
    from hilo_mlir.driver.compiler import resolve_config

    try:
        cfg = resolve_config(config, spine)
    except HiloError as e:
        raise CheckError(e.message) from None
    subject = load_subject(data, filename, input_types, allow_unregistered)
    arrays, used_seed = make_inputs(subject, inputs, seed, weights)
    truth_text = ev.widened(subject.text)
    out_x = ev.run_xla(subject.text, arrays)
    out_t = ev.run_truth(truth_text, arrays)
    if out_dir is not None:
        _make_dir(out_dir)
    if fusion_report is None and explorer and out_dir is not None:
        fusion_report = out_dir
    src = compile_subject(subject, cfg, fusion_report=fusion_report)
    out_p = ev.run_penguin(src, arrays)
    try:
        verdicts: list[OutputVerdict] = judge(out_p, out_x, out_t)
    except ValueError as e:
        raise CheckError(f"cannot compare the outputs: {e}") from None
    result = CheckResult(filename, "stablehlo" if cfg.stablehlo else "mhlo", used_seed, subject.arguments, verdicts)
    if bisect and not result.ok:
        from hilo_mlir.checker.bisect import bisect_failure

        result.bisection = bisect_failure(subject, cfg, arrays, out_x, out_t, [o.index for o in verdicts if not o.ok], out_dir)
        if result.bisection.reproducer:
            result.files["reproducer"] = result.bisection.reproducer
    if explorer and out_dir is not None:
        from hilo_mlir.checker.explorer import write_explorer

        result.files.update(write_explorer(subject, cfg, arrays, out_dir, result))
        report = getattr(src, "fusion_report", None)
        if report is not None and fusion_report is not None:  # fusion_report is out_dir here at the latest
            from hilo_mlir.fusion.report import write_report

            if "model_explorer_graph" in result.files:
                href = os.path.relpath(result.files["model_explorer_graph"], fusion_report).replace(os.sep, "/")
                report.links.append(("the compiled graph with each op's error against the f64 truth (Model Explorer)", href))
            result.files["fusion_report"] = write_report(report, fusion_report)[1]
    elif getattr(src, "fusion_report", None) is not None and fusion_report is not None:
        result.files["fusion_report"] = os.path.join(fusion_report, "fusion_report.html")
    if out_dir is not None:
        path = os.path.join(out_dir, "check_report.json")
        result.files["report"] = path
        from hilo_mlir.support.io import atomic_write_text

        atomic_write_text(path, result.json())
    return result


def _make_dir(path: str) -> None:
    """Make the output folder (parents too).

    Raises:
        CheckError: it cannot be made (a file of that name, no permission).
    """
    if os.path.exists(path) and not os.path.isdir(path):
        raise CheckError(f"cannot write to output folder '{shown_path(path)}': it is a file, not a folder")
    from hilo_mlir.support.io import folder_problem

    problem = folder_problem(path, create=True)
    if problem is not None:
        raise CheckError(f"cannot create output folder '{shown_path(path)}': {problem}")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise CheckError(f"cannot create output folder '{shown_path(path)}': {e.strerror or e}") from None


def check(
    model, inputs=None, config=None, spine: str = "mhlo", seed: int = 0, input_types=None, bisect: bool = True, out_dir=None, explorer=False
):
    """Check a compile of ``model`` (a path, or module text/bytes) against XLA and an f64 truth.

    Returns a :class:`CheckResult` (``.ok``, ``.outputs``, ``.text()``, ``.json()``,
    ``.bisection``). See :func:`check_data` for the arguments.

    Raises:
        CheckError: the check cannot be made (an unreadable model, inputs that do not match ``main``,
            a module XLA cannot run, a compile that fails).
    """
    if isinstance(model, os.PathLike) or (isinstance(model, str) and "\n" not in model and os.path.exists(model)):
        path = os.fspath(model)
        data: bytes | str
        try:
            data = read_input(path)
        except HiloError as e:
            raise CheckError(e.message, filename=e.filename) from None
        if not path.endswith(".pb"):
            try:
                data = data.decode("utf-8") if not data.startswith(b"ML\xefR") else data
            except UnicodeDecodeError:
                pass
        return check_data(data, path, config, spine, inputs, seed, input_types, None, bisect, out_dir, explorer=explorer)
    if isinstance(model, str) and "\n" not in model and not model.lstrip().startswith(("module", "func", "#")):
        raise CheckError(input_file_error(model, "no such file").message)
    return check_data(model, "<string>", config, spine, inputs, seed, input_types, None, bisect, out_dir, explorer=explorer)
