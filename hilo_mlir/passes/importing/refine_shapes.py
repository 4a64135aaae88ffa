"""``refine-shapes{input-types=...}``: a shape-polymorphic module (``tensor<?x32xf32>``, JAX's
``shape_assertion`` calls) made static; the first step of the pipeline when input types are given.

``hilo2penguin IN --input-types='tensor<4x32xf32>,tensor<32x16xf32>'`` (and
``input_types=`` in the API; :func:`hilo_mlir.jax.compile` derives them from
concrete arguments) puts this pass before ``hilo-import`` in the one pipeline
(``--dump-pass-pipeline`` shows it with its option). It specializes ``main``'s
arguments and refines every shape:

1. each given type must be a static ranked tensor that ``main``'s argument
   admits (same rank and element type, equal where the argument is static);
2. the upstream ``stablehlo-refine-arguments`` pass gives ``main`` those
   types (an mhlo module is brought to stablehlo first by
   ``hlo-legalize-to-stablehlo``);
3. the binding's ``refine_polymorphic_shapes`` (JAX's own: the upstream
   ``stablehlo-refine-shapes`` and ``stablehlo-canonicalize-dynamism``, then
   every ``shape_assertion`` checked and removed) refines the rest; a
   violated assertion is an error quoting JAX's message. Its result replaces
   the module's body and attributes in place (through the rewriter).

A module with dynamic entry arguments and no input types is refused by
``hilo-import``'s validation with a hint naming the option.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from hilo_mlir.analysis.census import detect_dialect
from hilo_mlir.passes.importing.validation import entry_function
from hilo_mlir.passmanager.options import option
from hilo_mlir.passmanager.registry import PassContext, PassInfo, register
from hilo_mlir.rewrite.rewriter import Rewriter
from hilo_mlir.support.diagnostics import HiloError, from_mlir_error, location_line, out_of_memory


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


def parse_input_types(input_types: str, filename: str | None = None) -> tuple[list[str], list[Any]]:
    """``--input-types`` text -> (the type strings, the parsed ``ir.Type`` of each), in the current context.

    Raises:
        HiloError: a type that does not parse (``input type #i '...' is not an MLIR type``).
    """
    from hilo_mlir.ir.binding import ir

    texts = split_types(input_types)
    types = []
    for i, t in enumerate(texts):
        try:
            types.append(ir.Type.parse(t))
        except (ir.MLIRError, ValueError):
            raise HiloError(f"input type #{i} '{t}' is not an MLIR type (expected e.g. tensor<4x32xf32>)", filename=filename) from None
    return texts, types


def _check_admits(entry: Any, texts: list[str], types: list[Any], filename: str | None) -> None:
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


#: a diagnostic in the refinement's error text: ``<file>:<line>:<col>: error: `` (the file precedes it, see _error_location)
_ERROR_AT = re.compile(r":(\d+):(\d+): error: ")


#: the status codes XLA puts before its messages (``INVALID_ARGUMENT: ``, ``UNKNOWN: ``), each after a line start or ``: ``
_STATUS = re.compile(r"(?:^|: )[A-Z][A-Z_]*[A-Z]: ")


def _error_location(text: str, files: Iterable[str] = ()) -> str | None:
    """The location of the first error in the refinement's error text (``... UNKNOWN: -:3:8: error: 'op' ...``)
    as a printed ``loc("file":line:col)``; None when that error names no file position (``loc("shape_assertion")``).

    The file name is what stands before ``:LINE:COL: error: ``: the longest of ``files`` (the file names of the
    module's locations) it ends with, else all that follows the last status code (``UNKNOWN: ``), so that a
    name holding ``": "`` is kept whole."""
    for line in text.splitlines():
        if "error:" not in line:
            continue
        m = _ERROR_AT.search(line)
        if m is None or line.find("error:") < m.start():
            return None
        head = line[: m.start()]
        known = [f for f in files if f and head.endswith(f)]
        if known:
            file = max(known, key=len)
        else:
            status = list(_STATUS.finditer(head))
            file = head[status[-1].end() :] if status else head
        if not file:
            return None
        name = file.replace("\\", "\\\\").replace('"', '\\"')
        return f'loc("{name}":{m.group(1)}:{m.group(2)})'
    return None


_LOC_FILE = re.compile(r'loc\("((?:[^"\\]|\\.)*)":\d+:\d+')


def _location_files(module_op: Any, filename: str | None) -> set[str]:
    """The file names of ``module_op``'s locations (unescaped) and ``filename``: those an error text may name."""
    files = {filename} if filename else set()
    try:
        asm = module_op.get_asm(enable_debug_info=True)
    except Exception:  # noqa: BLE001 - only a better location is lost
        return files
    for m in _LOC_FILE.finditer(asm):
        files.add(re.sub(r"\\(.)", r"\1", m.group(1)))
    return files


def _adopt(module_op: Any, refined: Any, rewriter: Rewriter) -> None:
    """Give ``module_op`` the body and attributes of the module ``refined`` (same context), through ``rewriter``."""
    body = module_op.regions[0].blocks[0]
    for old in list(body.operations):
        rewriter.erase_op(old)
    for new in list(refined.body.operations):
        op = new.operation
        op.detach_from_parent()
        rewriter.insert(op, at_end=body)
    attrs = refined.operation.attributes
    new_attrs = {attrs[i].name: attrs[i].attr for i in range(len(attrs))}
    for name in [module_op.attributes[i].name for i in range(len(module_op.attributes))]:
        if name not in new_attrs:
            rewriter.remove_attr(module_op, name)
    for name, attr in new_attrs.items():
        if name not in module_op.attributes or module_op.attributes[name] != attr:
            rewriter.set_attr(module_op, name, attr)


def refine_module(module_op: Any, input_types: str, filename: str | None, rewriter: Rewriter | None = None) -> None:
    """Specialize ``main`` of ``module_op`` (a ``builtin.module`` op) to ``input_types`` and refine every shape, in place.

    Args:
        module_op: the module (an ``ir.Operation`` or the ``ModuleOp`` view).
        input_types: the types, comma-separated (:func:`split_types`), one per argument of ``main``.
        filename: the input's name, for diagnostics.
        rewriter: the rewriter the new body is put in place with (the pass's); default: a fresh one.

    Raises:
        HiloError: a type that does not parse or does not fit ``main``, a
            shape assertion that fails (JAX's message quoted), a shape that
            stays dynamic; located at the failing op when the error names its position, else at ``main``.
    """
    from hilo_mlir.ir.binding import ir, passmanager

    op = module_op.operation
    module = op.opview
    rewriter = rewriter if rewriter is not None else Rewriter(op)
    with op.context:
        entry = entry_function(module, filename)
        texts, types = parse_input_types(input_types, filename)
        _check_admits(entry, texts, types, filename)
        entry_loc = entry.location
        passes = []
        if detect_dialect(module) in ("mhlo", "mixed"):
            passes.append("hlo-legalize-to-stablehlo")
        passes.append("stablehlo-refine-arguments{types=" + ",".join(str(t) for t in types) + "}")
        rewriter.notify_unknown_change()  # upstream C++ passes, then the binding's refinement
        try:
            passmanager.PassManager.parse("builtin.module(" + ",".join(passes) + ")").run(op)
        except ir.MLIRError as e:
            err = from_mlir_error(e, filename)  # the first error diagnostic: its message, at its op
            at = err.loc if location_line(err.loc) is not None else entry_loc
            raise HiloError(f"cannot give @main the input types: {' '.join(err.message.split())}", loc=at, filename=filename) from None
        buf = io.BytesIO()
        op.write_bytecode(buf)
        from jaxlib import xla_client  # imported only to refine

        try:
            refined = xla_client._xla.mlir.refine_polymorphic_shapes(
                buf.getvalue(), enable_shape_assertions=True, validate_static_shapes=True
            )
        except Exception as e:  # noqa: BLE001 - the binding raises JaxRuntimeError
            text = str(e)
            at = _error_location(text, _location_files(op, filename)) or entry_loc  # the failing op's position, if named
            if "shape_assertion" in text:
                raise HiloError(
                    f"a shape assertion fails for these input types: {_assertion_message(text)}", loc=at, filename=filename
                ) from None
            raise HiloError(
                f"shape refinement failed for these input types: {_assertion_message(text)}", loc=at, filename=filename
            ) from None
        _adopt(op, ir.Module.parse(refined), rewriter)


def _run(module_op: Any, ctx: PassContext[RefineShapesOptions]) -> None:
    """Specialize ``main`` to the ``input-types`` and refine every shape (see the module doc)."""
    with out_of_memory("refining the shapes"):
        refine_module(module_op, ctx.options.input_types, ctx.env.filename, ctx.rewriter)


@dataclass(frozen=True)
class RefineShapesOptions:
    """The options of ``refine-shapes``."""

    input_types: str = option("", "the static types of main's arguments, comma-separated, e.g. 'tensor<4x32xf32>,tensor<32x16xf32>'")


register(
    PassInfo(
        "refine-shapes",
        "Specialize a shape-polymorphic main to static input types and refine every shape",
        _run,
        anchor="builtin.module",
        class_name="RefineShapes",
        options_type=RefineShapesOptions,
        source="ours: hilo2penguin --input-types (JAX's refine_polymorphic_shapes after stablehlo-refine-arguments)",
    )
)
