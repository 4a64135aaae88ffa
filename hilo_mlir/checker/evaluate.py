"""The three runs ``hilo-check`` compares: XLA CPU, the f64 truth, and ``penguin.py`` on the reference backend.

* :func:`run_xla`: the module (mhlo or stablehlo; our fusions and composites
  inlined by :func:`hilo_mlir.testing.to_evaluable`) on XLA CPU through jax
  (:func:`hilo_mlir.testing.evaluate_xla`: the tests' oracle, one implementation).
* :func:`run_truth`: the same module after ``stablehlo-widen-float-to-f64``
  (every f32/bf16/f16/f8 type widened to f64, constants converted exactly), on
  XLA CPU with jax's x64 mode on, inputs converted exactly to f64.
* :func:`run_penguin`: the compile's ``penguin.py`` on :mod:`hilo_mlir.penguin_ref`.

Every failure is a :class:`~hilo_mlir.checker.errors.CheckError` (exit 2): the
check could not be made.
"""

from __future__ import annotations

import numpy as np

from hilo_mlir.checker.errors import CheckError
from hilo_mlir.ir.dialects import STABLEHLO
from hilo_mlir.support.diagnostics import HiloError


def _one_line(e: BaseException) -> str:
    """The first line of ``e``'s message, with the lines after it joined on while it ends in a colon
    (MLIR's ``Unable to parse module assembly:`` is followed by the error itself); at most 400 characters."""
    lines = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()]
    if not lines:
        return type(e).__name__
    head = lines[0]
    rest = iter(lines[1:])
    while head.endswith(":"):
        nxt = next(rest, None)
        if nxt is None:
            break
        head = f"{head} {nxt}"
    return head[:400]


def evaluable(text: str) -> str:
    """``text`` as plain stablehlo (fusions and composites inlined, mhlo legalized), with the
    backend custom calls the spine introduces expanded back into what they mean
    (``AwsFSPattern5``: the softmax of ``convert-fs-pattern-to-custom-calls``), so that
    XLA can run any prefix of the spine up to its I/O steps. Locations are kept.

    Raises:
        CheckError: a module the legalization refuses.
    """
    from hilo_mlir.ir.binding import ir, make_context
    from hilo_mlir.testing import to_evaluable

    try:
        with make_context() as ctx, ir.Location.unknown():
            m = to_evaluable(text, ctx)
            _expand_softmax_calls(m)
            if any(op.operation.name == "func.func" for op in list(m.body.operations)[1:]):
                # composites' decompositions (and the softmax functions) inlined: XLA and the graph see plain ops
                import hilo_mlir.passes  # noqa: F401 - installs the built-in passes (the registry's front end)
                from hilo_mlir.passmanager.pipeline import Pipeline

                Pipeline.from_text("builtin.module(call-inliner)", verify_each=False, check_analyses=False).run(m)
            return m.operation.get_asm(enable_debug_info=True)
    except (ir.MLIRError, HiloError, RuntimeError, ValueError) as e:
        raise CheckError(f"cannot bring the module to plain stablehlo for XLA: {_one_line(e)}") from None


#: -inf per element type, as MLIR's hexadecimal float literal
_NEG_INF = {"f32": "0xFF800000", "f16": "0xFC00", "bf16": "0xFF80", "f64": "0xFFF0000000000000"}


def _softmax_function(name: str, type_text: str, shape: list, elem: str, dim: int) -> str:
    rank = len(shape)
    red = [s for i, s in enumerate(shape) if i != dim]
    red_t = "tensor<" + "".join(f"{s}x" for s in red) + elem + ">"
    keep = ", ".join(str(i) for i in range(rank) if i != dim)
    return (
        f"func.func private @{name}(%x: {type_text}) -> {type_text} {{\n"
        f"  %ninf = stablehlo.constant dense<{_NEG_INF[elem]}> : tensor<{elem}>\n"
        f"  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [{dim}] : "
        f"({type_text}, tensor<{elem}>) -> {red_t}\n"
        f"  %mb = stablehlo.broadcast_in_dim %m, dims = [{keep}] : ({red_t}) -> {type_text}\n"
        f"  %d = stablehlo.subtract %x, %mb : {type_text}\n"
        f"  %e = stablehlo.exponential %d : {type_text}\n"
        f"  %z = stablehlo.constant dense<0.000000e+00> : tensor<{elem}>\n"
        f"  %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [{dim}] : "
        f"({type_text}, tensor<{elem}>) -> {red_t}\n"
        f"  %sb = stablehlo.broadcast_in_dim %s, dims = [{keep}] : ({red_t}) -> {type_text}\n"
        f"  %r = stablehlo.divide %e, %sb : {type_text}\n"
        f"  return %r : {type_text}\n}}\n"
    )


def _expand_softmax_calls(m) -> bool:
    """Replace each ``custom_call @AwsFSPattern5`` of ``m`` (our copy, checker-internal) by a call of
    a private softmax function (inlined by the caller). Returns whether anything changed."""
    import json as _json

    from hilo_mlir.ir.binding import ir

    calls = []

    def visit(op):
        if op.name == STABLEHLO.name("custom_call") and "call_target_name" in op.attributes:
            if ir.StringAttr(op.attributes["call_target_name"]).value == "AwsFSPattern5":
                calls.append(op)
        return ir.WalkResult.ADVANCE

    m.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    made: dict = {}
    for op in calls:
        t = ir.RankedTensorType(op.results[0].type)
        elem = str(t.element_type)
        try:
            dim = int(_json.loads(ir.StringAttr(op.attributes["backend_config"]).value)["dim"])
        except (KeyError, ValueError, TypeError):
            raise CheckError('a custom_call @AwsFSPattern5 without its {"dim": D} backend_config') from None
        if elem not in _NEG_INF or not 0 <= dim < t.rank:
            raise CheckError(f"cannot expand custom_call @AwsFSPattern5 on {t} (dim {dim}) for XLA")
        key = (str(t), dim)
        if key not in made:
            name = f"__hilo_check_softmax_{len(made)}"
            fm = ir.Module.parse(_softmax_function(name, str(t), list(t.shape), elem, dim))
            f = fm.body.operations[0].operation
            f.detach_from_parent()
            ir.InsertionPoint(m.body).insert(f)
            made[key] = name
        call = ir.Operation.create(
            "func.call",
            results=[t],
            operands=[op.operands[0]],
            attributes={"callee": ir.FlatSymbolRefAttr.get(made[key])},
            loc=op.location,
            ip=ir.InsertionPoint(op),
        )
        op.results[0].replace_all_uses_with(call.results[0])
        op.erase()
    return bool(calls)


def widened(text: str) -> str:
    """The f64 truth module of ``text`` (plain stablehlo): ``stablehlo-widen-float-to-f64`` applied.

    Raises:
        CheckError: the widening fails (e.g. an op whose verifier rejects f64).
    """
    from hilo_mlir.testing import run_passes

    try:
        out, _ = run_passes(text, "stablehlo-widen-float-to-f64")
        return out
    except (HiloError, RuntimeError, ValueError) as e:
        raise CheckError(f"cannot build the f64 truth: {_one_line(e)}") from None


def run_xla(text: str, inputs: list, what: str = "the input module") -> list[np.ndarray]:
    """Run ``text`` (plain stablehlo) on XLA CPU; returns ``main``'s results.

    Raises:
        CheckError: XLA cannot compile or run it (an unsupported custom call, ...).
    """
    from hilo_mlir.testing import evaluate_xla

    try:
        return [np.asarray(o) for o in evaluate_xla(text, inputs)]
    except Exception as e:  # noqa: BLE001 - jax raises its own runtime error types
        raise CheckError(f"XLA cannot run {what}: {_one_line(e)}") from None


def to_f64(x: np.ndarray) -> np.ndarray:
    """``x`` as f64 (complex128 for complex) when it is a float narrower than that; exact. Others unchanged."""
    x = np.asarray(x)
    if np.issubdtype(x.dtype, np.complexfloating):
        return x.astype(np.complex128)
    if np.issubdtype(x.dtype, np.floating) or x.dtype.kind == "V" or "float" in str(x.dtype):
        return x.astype(np.float64)
    return x


def run_truth(truth_text: str, inputs: list) -> list[np.ndarray]:
    """Run the widened module (see :func:`widened`) on ``inputs`` converted exactly to f64."""
    return run_xla(truth_text, [to_f64(x) for x in inputs], what="the f64 truth")


def run_penguin(source, inputs: list) -> list[np.ndarray]:
    """Run ``penguin.py`` (a :class:`~hilo_mlir.driver.compiler.PenguinSource`) on the reference backend.

    Raises:
        CheckError: the backend cannot run a statement of the program.
    """
    from hilo_mlir import penguin_ref

    try:
        return [np.asarray(o) for o in penguin_ref.run(source, list(inputs), files=getattr(source, "files", None))]
    except (HiloError, ValueError, TypeError, KeyError, NotImplementedError) as e:
        raise CheckError(f"the reference backend cannot run penguin.py: {_one_line(e)}") from None


def compile_subject(subject, config, fusion_report: str | None = None):
    """Compile ``subject`` (a :class:`~hilo_mlir.checker.core.Subject`) with ``config``; its ``PenguinSource``.

    ``fusion_report``: a folder for the compile's fusion report (``fusion_report.html``).

    Raises:
        CheckError: the compile fails (its error, located).
    """
    from hilo_mlir.driver.compiler import compile_loaded, load_module

    try:
        loaded = load_module(subject.data, subject.filename, allow_unregistered=subject.allow_unregistered)
        return compile_loaded(loaded, config, input_types=subject.input_types, fusion_report=fusion_report)
    except HiloError as e:
        from hilo_mlir.checker.errors import CompileFailed

        where = f" (in pass '{e.pass_name}')" if e.pass_name and e.pass_name not in e.message else ""
        err = CompileFailed(
            f"the compile failed: {e.message}{where}", loc=e.loc, code=e.code, notes=list(e.notes), filename=subject.filename
        )
        err.cause = e
        raise err from None
