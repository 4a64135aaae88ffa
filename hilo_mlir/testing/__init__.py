"""Semantic oracles for tests: evaluate a module before and after a rewrite (DESIGN.md "The stack").

* :func:`evaluate` runs ``main`` with the StableHLO reference interpreter
  (``_stablehlo.eval_module``): deterministic, so encapsulating rewrites
  (fusions, composites) must agree bit for bit.
* :func:`evaluate_xla` runs it on XLA CPU through ``jax`` (fast; imports jax).
* :func:`to_evaluable` brings any of our modules to plain stablehlo: fusion
  bodies inlined, composites legalized to calls and inlined, mhlo -> stablehlo.
* :func:`random_inputs` makes seeded inputs for ``main``'s signature.

Tests and ``hilo-check`` (:mod:`hilo_mlir.checker`) only: the compiler path never imports this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np

from hilo_mlir.ir.binding import ir, make_context, passmanager, stablehlo_ext
from hilo_mlir.ir.dialects import MHLO, STABLEHLO

if TYPE_CHECKING:
    from typing_extensions import Buffer


def _np_dtype(elem) -> np.dtype:
    """The numpy dtype of an MLIR element type (the printers' table).

    Raises:
        ValueError: an element type without one.
    """
    from hilo_mlir.printers.literals import np_dtype

    dt = np_dtype(str(elem))
    if dt is None:
        raise ValueError(f"no numpy dtype for element type {elem}")
    return dt


def find_main(module):
    """The ``main`` func.func (or the only public one) of ``module`` (an ``ir.Module``)."""
    funcs = [op.operation for op in module.body.operations if op.operation.name == "func.func"]
    for f in funcs:
        if f.attributes["sym_name"].value == "main":
            return f
    return funcs[0]


def main_signature(module) -> tuple[list, list]:
    """(input types, result types) of ``main``."""
    f = find_main(module)
    ft = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
    return list(ft.inputs), list(ft.results)


def random_inputs(module, seed: int = 0) -> list[np.ndarray]:
    """Seeded inputs for ``main``: floats ~N(0,1), ints in [-8, 8), bools random."""
    rng = np.random.default_rng(seed)
    out = []
    for t in main_signature(module)[0]:
        rt = ir.RankedTensorType(t)
        dt = _np_dtype(rt.element_type)
        shape = tuple(rt.shape)
        if dt == np.bool_:
            a = rng.integers(0, 2, shape).astype(np.bool_)
        elif np.issubdtype(dt, np.integer):
            lo = 0 if np.issubdtype(dt, np.unsignedinteger) else -8
            a = rng.integers(lo, 8, shape).astype(dt)
        elif np.issubdtype(dt, np.complexfloating):
            a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
        else:
            a = rng.standard_normal(shape).astype(np.float32).astype(dt)
        out.append(a)
    return out


def inline_fusions(module) -> None:
    """Replace every ``mhlo.fusion`` by its body (in place). Innermost first."""
    while True:
        fusions = []

        def visit(op):
            if op.name == MHLO.fusion:
                fusions.append(op)
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit, ir.WalkOrder.POST_ORDER)
        if not fusions:
            return
        fusion = fusions[0]
        block = fusion.regions[0].blocks[0]
        ops = [o.operation for o in block.operations]
        term = ops[-1]
        for arg, operand in zip(block.arguments, fusion.operands):
            arg.replace_all_uses_with(operand)
        for o in ops[:-1]:
            o.move_before(fusion)
        for res, val in zip(fusion.results, term.operands):
            res.replace_all_uses_with(val)
        fusion.erase()


def to_evaluable(text_or_module, context=None):
    """Parse (if text) and legalize to plain stablehlo: fusions inlined, composites inlined."""
    ctx = context or make_context()
    with ctx:
        m = ir.Module.parse(text_or_module) if isinstance(text_or_module, (str, bytes)) else text_or_module
        inline_fusions(m)
        pm = passmanager.PassManager.parse(
            "builtin.module(hlo-legalize-to-stablehlo,func.func(stablehlo-legalize-composite-to-call),inline,symbol-dce)"
        )
        pm.run(m.operation)
    return m


_NO_BUFFER = ("bf16", "f8E4M3FN", "f8E5M2")


def _widen_results(m) -> None:
    """Convert ``main``'s bf16/f8 results to f32 (the binding cannot hand those back as buffers)."""
    f = find_main(m)
    block = f.regions[0].blocks[0]
    ret = [o.operation for o in block.operations][-1]
    new_vals, changed = [], False
    for v in ret.operands:
        rt = ir.RankedTensorType(v.type)
        if str(rt.element_type) in _NO_BUFFER:
            t32 = ir.RankedTensorType.get(rt.shape, ir.F32Type.get())
            cv = ir.Operation.create(STABLEHLO.name("convert"), results=[t32], operands=[v], loc=ret.location, ip=ir.InsertionPoint(ret))
            new_vals.append(cv.result)
            changed = True
        else:
            new_vals.append(v)
    if not changed:
        return
    for i, v in enumerate(new_vals):
        ret.operands[i] = v
    ft = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
    f.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(list(ft.inputs), [v.type for v in new_vals]))


def _to_attr(a: np.ndarray, t):
    rt = ir.RankedTensorType(t)
    a = np.ascontiguousarray(a)
    if str(rt.element_type) in _NO_BUFFER:
        a = a.view(np.uint16 if str(rt.element_type) == "bf16" else np.uint8)
    # numpy's stubs give ndarray the buffer protocol (__buffer__) only for Python >= 3.12
    return ir.DenseElementsAttr.get(cast("Buffer", a), type=rt)


def evaluate(text_or_module, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Run ``main`` on ``inputs`` with the StableHLO reference interpreter; returns numpy arrays.

    Results keep ``main``'s element types (bf16 comes back as ``ml_dtypes.bfloat16``).
    """
    ctx = make_context()
    with ctx, ir.Location.unknown():
        text = text_or_module if isinstance(text_or_module, (str, bytes)) else str(text_or_module)
        m = to_evaluable(text, ctx)
        in_types, out_types = main_signature(m)
        _widen_results(m)
        args = [_to_attr(a, t) for a, t in zip(inputs, in_types)]
        res = stablehlo_ext.eval_module(m, args)
        outs = []
        for r, t in zip(res, out_types):
            rt = ir.RankedTensorType(t)
            dt = _np_dtype(rt.element_type)
            a = np.array(ir.DenseElementsAttr(r))
            outs.append(np.asarray(a).astype(dt).reshape(rt.shape))
        return outs


def evaluate_xla(text_or_module, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Run ``main`` on XLA CPU through jax (imports jax); returns numpy arrays.

    The inputs go to the device with jax's x64 mode on for the call (64-bit
    inputs stay 64-bit; the global setting is left as it was).
    """
    import jax
    from jax._src import config as jax_config
    from jax._src import xla_bridge
    from jax._src.lib import xla_client as xc

    ctx = make_context()
    with ctx:
        text = text_or_module if isinstance(text_or_module, (str, bytes)) else str(text_or_module)
        m = to_evaluable(text, ctx)
        asm = str(m)
    backend = xla_bridge.get_backend("cpu")
    dev = backend.devices()[:1]
    exe = backend.compile_and_load(asm, xc.DeviceList(tuple(dev)), xc.CompileOptions())
    with jax_config.enable_x64(True):
        bufs = [jax.device_put(np.asarray(a), dev[0]) for a in inputs]
        return [np.asarray(o) for o in exe.execute(bufs)]


def run_passes(text: str, passes: str) -> tuple[str, dict]:
    """Run ``passes`` (pipeline syntax without the ``builtin.module`` anchor) on ``text``.

    Returns:
        (the module's text after the passes, the merged statistics of our passes).

    Raises:
        HiloError: as the pipeline does (pass failures, verifier failures).
    """
    import hilo_mlir.passes  # noqa: F401 - installs the built-in passes (the registry's front end)
    from hilo_mlir.passmanager.pipeline import Pipeline

    ctx = make_context()
    with ctx, ir.Location.unknown():
        m = ir.Module.parse(text)
        p = Pipeline.from_text(f"builtin.module({passes})")
        p.run(m)
        stats: dict = {}
        for c in p.stats.values():
            stats.update(c)
        return str(m), stats
