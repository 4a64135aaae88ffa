"""The shared printer driver tier (seeds 002 section 1, 004 terminal pass; DESIGN.md "The printer").

One :class:`PenguinPrinter` instance per invocation holds every piece of
state: the ``m<N>`` import aliases (numbered in first-use order), the
``input_<i>`` / ``v<N>`` value names, the per-op-name counter, and the
composite nesting stack. Nothing is process-global, so two prints of the same
module in one process give identical text.

Every op goes through one statement assembler, :meth:`PenguinPrinter.statement`:
``v<N> = m<K>.<PyOp>(srcs=[...], dsts=[...], <attrs>, xla_op='<mlir op>', dl=m<S>.DebugLocation(...))``.
"""

from __future__ import annotations

import io
import re

import numpy as np

from ..diagnostics import HiloError

DEFAULT_ROOT = "neuronxcc.starfish.penguin"

_DTYPES = {
    "f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64",
    "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "ui8": "uint8", "ui16": "uint16", "ui32": "uint32", "ui64": "uint64",
    "f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2",
    "complex<f32>": "complex64", "complex<f64>": "complex128",
}


def dtype_name(elem_type) -> str:
    """Penguin dtype string for an MLIR element type (``f32`` -> ``'float32'``)."""
    s = str(elem_type)
    return _DTYPES.get(s, s)


def camel(short: str) -> str:
    """``dot_general`` -> ``DotGeneral``."""
    return "".join(p[:1].upper() + p[1:] for p in short.split("_"))


class PenguinPrinter:
    """Print one module as a Penguin Python program.

    Args:
        root: the Penguin module root (default ``neuronxcc.starfish.penguin``).
        filename: substituted for the parser's ``-`` buffer name in locations.

    All state lives on the instance (DESIGN.md: "nothing process-global").
    """

    dialect = "mhlo"

    def __init__(self, root: str = DEFAULT_ROOT, filename: str | None = None):
        self.root = root
        self.filename = filename
        self.imports: dict[str, str] = {}  # module path -> alias
        self.names: dict = {}  # Value -> python name
        self.next_value = 0
        self.per_op_counter: dict[str, int] = {}
        self.parent_stack: list[str] = []
        self.out = io.StringIO()

    # -- names -------------------------------------------------------------------------------
    def mod(self, sub: str = "") -> str:
        """Alias of ``root[.sub]``, allocating ``m<N>`` in first-use order."""
        path = self.root + ("." + sub if sub else "")
        if path not in self.imports:
            self.imports[path] = f"m{len(self.imports)}"
        return self.imports[path]

    def fresh(self) -> str:
        n = f"v{self.next_value}"
        self.next_value += 1
        return n

    def name_of(self, value) -> str:
        try:
            return self.names[value]
        except KeyError:
            raise HiloError(f"printer: value used before it was defined: {value.get_name()}") from None

    def bind(self, value, name: str) -> None:
        self.names[value] = name

    # -- rendering -------------------------------------------------------------------------
    def tensor_spec(self, t) -> str:
        from ..ir import ir

        try:
            rt = ir.RankedTensorType(t)
            shape = tuple(rt.shape)
            return f"{self.mod('ir')}.TensorSpec(shape={shape!r}, dtype='{dtype_name(rt.element_type)}')"
        except ValueError:
            return f"{self.mod('ir')}.TensorSpec(shape=(), dtype={str(t)!r})"

    def debug_location(self, op) -> str:
        loc = str(op.location)
        m = re.search(r'"([^"]*)":(\d+):(\d+)', loc)
        f, line, col = ("", 0, 0)
        if m:
            f, line, col = m.group(1), int(m.group(2)), int(m.group(3))
            if f == "-" and self.filename:
                f = self.filename
        nm = re.match(r'loc\("([^"]*)"', loc)
        name = nm.group(1) if nm and not m or (nm and m and nm.start(1) != m.start(1)) else ""
        parts = [f"file={f!r}", f"line={line}", f"col={col}", f"name={name!r}"]
        if self.parent_stack:
            parts.append(f"parent={self.parent_stack[-1]!r}")
        return f"{self.mod('support')}.DebugLocation({', '.join(parts)})"

    def attr_value(self, attr) -> str:
        """An MLIR attribute as a Python literal (fallback: its MLIR text as a string)."""
        from ..ir import ir

        for cls, conv in (
            (ir.BoolAttr, lambda a: repr(bool(a.value))),
            (ir.IntegerAttr, lambda a: repr(int(a.value))),
            (ir.FloatAttr, lambda a: repr(float(a.value))),
            (ir.StringAttr, lambda a: repr(a.value)),
            (ir.DenseI64ArrayAttr, lambda a: repr(list(a))),
            (ir.DenseBoolArrayAttr, lambda a: repr([bool(x) for x in a])),
            (ir.FlatSymbolRefAttr, lambda a: repr(a.value)),
        ):
            try:
                a = cls(attr)
                return conv(a)
            except (ValueError, TypeError):
                continue
        try:
            arr = ir.ArrayAttr(attr)
            return "[" + ", ".join(self.attr_value(x) for x in arr) + "]"
        except (ValueError, TypeError):
            pass
        try:
            d = ir.DictAttr(attr)
            items = []
            for i in range(len(d)):
                na = d[i]
                items.append(f"{na.name!r}: {self.attr_value(na.attr)}")
            return "{" + ", ".join(items) + "}"
        except (ValueError, TypeError, IndexError):
            pass
        return repr(str(attr))

    def constant_literal(self, attr) -> str:
        """A dense constant as ``np.array(...)`` (splat as ``np.full``)."""
        from ..ir import ir

        try:
            dense = ir.DenseElementsAttr(attr)
        except (ValueError, TypeError):
            return repr(str(attr))
        t = ir.RankedTensorType(dense.type)
        dt = dtype_name(t.element_type)
        if dense.is_splat:
            v = self._scalar(dense.get_splat_value())
            return f"np.full({tuple(t.shape)!r}, {v}, dtype={dt!r})"
        try:
            arr = np.array(dense)
            return f"np.array({arr.tolist()!r}, dtype={dt!r})"
        except Exception:  # noqa: BLE001 - bf16 etc: fall back to the MLIR text
            return repr(str(attr))

    def _scalar(self, a) -> str:
        from ..ir import ir

        for cls in (ir.BoolAttr, ir.IntegerAttr, ir.FloatAttr):
            try:
                v = cls(a).value
                if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
                    return f"float({str(v)!r})"
                return repr(v)
            except (ValueError, TypeError):
                continue
        return repr(str(a))

    # -- statements ------------------------------------------------------------------------
    def statement(self, op, py_op: str | None = None, extra: list[tuple[str, str]] = (), srcs=None, module_sub="ir") -> list[str]:
        """Emit one statement for ``op``; returns the names bound to its results."""
        short = op.name.split(".", 1)[-1]
        py_op = py_op or camel(short) + "Op"
        self.per_op_counter[op.name] = self.per_op_counter.get(op.name, 0) + 1
        results = [self.fresh() for _ in op.results]
        for r, n in zip(op.results, results):
            self.bind(r, n)
        src_names = srcs if srcs is not None else [self.name_of(v) for v in op.operands]
        args = [f"srcs=[{', '.join(src_names)}]", f"dsts=[{', '.join(self.tensor_spec(r.type) for r in op.results)}]"]
        args.extend(f"{k}={v}" for k, v in extra)
        args.append(f"xla_op={op.name!r}")
        args.append(f"dl={self.debug_location(op)}")
        lhs = ", ".join(results) if results else "_"
        if len(results) == 1:
            lhs = results[0]
        elif len(results) > 1:
            lhs = ", ".join(results)
        self.out.write(f"{lhs} = {self.mod(module_sub)}.{py_op}({', '.join(args)})\n")
        return results

    def op_attributes(self, op, skip=()) -> list[tuple[str, str]]:
        out = []
        for i in range(len(op.attributes)):
            na = op.attributes[i]
            if na.name in skip:
                continue
            key = re.sub(r"\W", "_", na.name)
            out.append((key, self.attr_value(na.attr)))
        return out

    # -- walking ---------------------------------------------------------------------------
    def print_op(self, op) -> None:
        """Print one op (dispatch point; subclasses add fusion / custom-call handling)."""
        name = op.name
        if name in ("func.return", "mhlo.return", "stablehlo.return"):
            return
        if name.endswith(".constant"):
            self.statement(op, "ConstantOp", [("value", self.constant_literal(op.attributes["value"]))])
            return
        self.statement(op, extra=self.op_attributes(op))
        self.print_regions(op)

    def print_regions(self, op) -> None:
        if not len(op.regions):
            return
        parent = self.names.get(op.results[0]) if len(op.results) else op.name
        self.parent_stack.append(parent or op.name)
        try:
            for region in op.regions:
                for block in region.blocks:
                    for i, arg in enumerate(block.arguments):
                        self.bind(arg, self.fresh())
                        self.out.write(f"{self.names[arg]} = {self.mod('ir')}.BlockArgument(index={i}, parent={parent!r})\n")
                    for inner in block.operations:
                        self.print_op(inner.operation)
                    term = block.operations[len(block.operations) - 1] if len(block.operations) else None
                    if term is not None and term.name.endswith("return"):
                        outs = ", ".join(self.name_of(v) for v in term.operands)
                        self.out.write(f"{self.mod('ir')}.RegionReturn(srcs=[{outs}], parent={parent!r})\n")
        finally:
            self.parent_stack.pop()

    def find_main(self, module):
        funcs = [op.operation for op in module.regions[0].blocks[0].operations if op.operation.name == "func.func"]
        for f in funcs:
            if f.attributes["sym_name"].value == "main":
                return f
        public = [f for f in funcs if "sym_visibility" not in f.attributes or f.attributes["sym_visibility"].value == "public"]
        if len(public) == 1:
            return public[0]
        if not funcs:
            raise HiloError("module has no function to compile (expected 'func.func @main')", loc=module.location)
        raise HiloError(
            "module has no 'main' and several public functions: "
            + ", ".join("@" + f.attributes["sym_name"].value for f in public),
            loc=module.location,
        )

    def print_module(self, module) -> str:
        """Print ``module`` (its ``main``) as Penguin Python; returns the source text."""
        main = self.find_main(module)
        body = main.regions[0].blocks[0]
        slow_ins = _int_list(main.attributes, "slowChangingIns")
        slow_outs = _int_list(main.attributes, "slowChangingOuts")
        out = self.out
        fn = self.mod()
        out.write(f"function = {fn}.Function(id_=0, batch_ids=[], attrs=())\n")
        for i, arg in enumerate(body.arguments):
            name = f"input_{i}"
            self.bind(arg, name)
            is_param = i in slow_ins
            extra = f", weight_file={f'input_{i}.npy'!r}" if is_param else ""
            out.write(
                f"{name} = {self.mod('ir')}.Tensor(name={name!r}, spec={self.tensor_spec(arg.type)})"
                f".markInput(function, is_parameter_tensor={is_param}{extra})\n"
            )
        for op in body.operations:
            op = op.operation
            if op.name == "func.return":
                for j, v in enumerate(op.operands):
                    slow = j in slow_outs
                    out.write(f"{self.name_of(v)}.markOutput(function, index={j}, slow_changing={slow})\n")
                continue
            self.print_op(op)
        header = "# Generated by hilo_mlir: Penguin Python program.\nimport numpy as np\n"
        header += "".join(f"import {path} as {alias}\n" for path, alias in self.imports.items())
        return header + "\n" + out.getvalue()


def _int_list(attrs, key) -> list[int]:
    if key not in attrs:
        return []
    try:
        import numpy as _np

        return [int(x) for x in _np.array(attrs[key]).reshape(-1)]
    except Exception:  # noqa: BLE001
        return []

