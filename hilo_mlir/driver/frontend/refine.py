"""Shape refinement: a shape-polymorphic module (``tensor<?x32xf32>``, JAX's ``shape_assertion`` calls) made static.

``hilo2penguin IN --input-types='tensor<4x32xf32>,tensor<32x16xf32>'`` (and
``input_types=`` in the API; :func:`hilo_mlir.jax.compile` derives them from
concrete arguments) specializes ``main``'s arguments and refines every
shape, before the driver's input checks:

1. each given type must be a static ranked tensor that ``main``'s argument
   admits (same rank and element type, equal where the argument is static);
2. the upstream ``stablehlo-refine-arguments`` pass gives ``main`` those
   types (an mhlo module is brought to stablehlo first by
   ``hlo-legalize-to-stablehlo``);
3. the binding's ``refine_polymorphic_shapes`` (JAX's own: the upstream
   ``stablehlo-refine-shapes`` and ``stablehlo-canonicalize-dynamism``, then
   every ``shape_assertion`` checked and removed) refines the rest; a
   violated assertion is an error quoting JAX's message.

A module with dynamic entry arguments and no input types is refused by
validation with a hint naming this option.
"""

from __future__ import annotations

import io

from hilo_mlir.support.diagnostics import HiloError


def split_types(text: str) -> list[str]:
    """``'tensor<4x32xf32>,tensor<32x16xf32>'`` -> the two type strings (commas inside ``<>``/``()`` kept)."""
    out: list[str] = []
    depth = 0
    cur: list[str] = []
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def _parse_types(input_types, filename):
    from hilo_mlir.ir.binding import ir

    texts = split_types(input_types) if isinstance(input_types, str) else [str(t) for t in input_types]
    types = []
    for i, t in enumerate(texts):
        try:
            types.append(ir.Type.parse(t))
        except (ir.MLIRError, ValueError):
            raise HiloError(f"input type #{i} '{t}' is not an MLIR type (expected e.g. tensor<4x32xf32>)", filename=filename) from None
    return texts, types


def _check_admits(entry, texts, types, filename) -> None:
    """Each given type is static and fits ``main``'s argument (rank, element type, static dimensions)."""
    from hilo_mlir.ir.binding import ir

    ftype = ir.FunctionType(ir.TypeAttr(entry.attributes["function_type"]).value)
    args = list(ftype.inputs)
    if len(types) != len(args):
        raise HiloError(
            f"--input-types gives {len(types)} type{'s' if len(types) != 1 else ''} but @main takes "
            f"{len(args)} argument{'s' if len(args) != 1 else ''}",
            loc=entry.location,
            filename=filename,
        )
    for i, (text, t, a) in enumerate(zip(texts, types, args)):
        if not isinstance(t, ir.RankedTensorType) or not t.has_static_shape or t.encoding is not None:
            raise HiloError(
                f"input type #{i} {text} is not a static tensor type (every dimension must be given)", loc=entry.location, filename=filename
            )
        ok = isinstance(a, (ir.RankedTensorType, ir.UnrankedTensorType)) and str(a.element_type) == str(t.element_type)
        if ok and isinstance(a, ir.RankedTensorType):
            ok = a.rank == t.rank and all(ad == td for ad, td in zip(a.shape, t.shape) if not ir.ShapedType.is_dynamic_size(ad))
        if not ok:
            raise HiloError(f"input type #{i} {text} does not fit @main argument #{i} of type {a}", loc=entry.location, filename=filename)


def _assertion_message(text: str) -> str:
    """JAX's message out of the refinement's error text (``... error: loc("shape_assertion"): <message>``)."""
    for line in text.splitlines():
        if "error:" in line:
            msg = line.split("error:", 1)[1].strip()
            if msg.startswith("loc("):
                depth = 0
                for k, ch in enumerate(msg):
                    depth += ch == "("
                    depth -= ch == ")"
                    if ch == ")" and depth == 0:
                        msg = msg[k + 1 :].lstrip(": ")
                        break
            return msg
    return " ".join(text.split())


def refine_shapes(loaded, input_types) -> None:
    """Specialize ``loaded.module``'s ``main`` to ``input_types`` and refine every shape (in place; see the module doc).

    Args:
        loaded: the :class:`~hilo_mlir.driver.frontend.loading.LoadedModule`; its
            ``module`` is replaced by the refined one.
        input_types: a comma-separated string or a list of type strings, one per argument of ``main``.

    Raises:
        HiloError: a type that does not parse or does not fit ``main``, a
            shape assertion that fails (JAX's message quoted), a shape that
            stays dynamic.
    """
    from hilo_mlir.driver.frontend.loading import detect_dialect
    from hilo_mlir.ir.binding import ir, passmanager
    from hilo_mlir.passes.importing.validation import entry_function

    fname = loaded.filename
    with loaded.context:
        entry = entry_function(loaded.module, fname)
        texts, types = _parse_types(input_types, fname)
        _check_admits(entry, texts, types, fname)
        entry_loc = entry.location
        passes = []
        if detect_dialect(loaded.module) in ("mhlo", "mixed"):
            passes.append("hlo-legalize-to-stablehlo")
        passes.append("stablehlo-refine-arguments{types=" + ",".join(str(t) for t in types) + "}")
        try:
            passmanager.PassManager.parse("builtin.module(" + ",".join(passes) + ")").run(loaded.module.operation)
        except ir.MLIRError as e:
            raise HiloError(f"cannot give @main the input types: {' '.join(str(e).split())}", loc=entry_loc, filename=fname) from None
        buf = io.BytesIO()
        loaded.module.operation.write_bytecode(buf)
        from jaxlib import xla_client  # imported only to refine

        try:
            refined = xla_client._xla.mlir.refine_polymorphic_shapes(
                buf.getvalue(), enable_shape_assertions=True, validate_static_shapes=True
            )
        except Exception as e:  # noqa: BLE001 - the binding raises JaxRuntimeError
            text = str(e)
            if "shape_assertion" in text:
                raise HiloError(
                    f"a shape assertion fails for these input types: {_assertion_message(text)}", loc=entry_loc, filename=fname
                ) from None
            raise HiloError(
                f"shape refinement failed for these input types: {_assertion_message(text)}", loc=entry_loc, filename=fname
            ) from None
        loaded.module = ir.Module.parse(refined)
    loaded.dialect = ""
