"""Importing XLA HLO as XLA writes it: a serialized ``HloModuleProto`` or HLO text, into plain stablehlo.

The route is the binding's own: HLO text is parsed by XLA's HLO parser
(``jaxlib._hlo.hlo_module_from_text``) into a module whose proto goes, like
a ``.pb`` input, through ``hlo_to_stablehlo`` (``ConvertHloToMLIR``). What
that importer leaves of XLA's *physical* world is then normalised here,
before validation and before any pass (:func:`normalize_imported`):

* **layouts** -- ``result_layout``, ``source_layout``, ``xla_shape`` on ops,
  ``mhlo.layout_mode`` / ``mhlo.memory_kind`` on ``main``'s arguments and
  results, the entry computation layout and tiles on the module: HLO's
  semantics are logical, a layout only says how a buffer is laid out, so
  they are dropped. Two places where a layout *is* meaning are checked: a
  ``custom_call`` whose ``operand_layouts`` / ``result_layouts`` are not the
  default (major-to-minor) layout -- its target reads the buffer as laid out
  -- and an ``mhlo.bitcast`` whose source and result layouts are not both the
  default one (it reinterprets the buffer: a transpose in disguise). Each is
  one located error naming the op and the layout; a default-layout bitcast
  becomes the ``reshape`` it is, default custom-call layouts are dropped;
* **copies** -- ``mhlo.copy`` (a layout change, the identity on values) is
  forwarded to its operand;
* **XLA's fusions** -- an optimized module's ``mhlo.fusion`` ops (``kind=kLoop``,
  ``kInput``, ``kOutput``, ``kCustom``: XLA's own clusters, not Neuron's) are
  inlined back into plain ops; the spine forms Neuron's fusions itself;
* **backend-only custom calls** (``__onednn$...``, ``__cublas$...``, ...) are
  one located error naming the target and the dump to use instead.

What was done is returned as ``--debug`` lines (``[hlo-import] ...``).
Errors are located at the op: at the JAX source line its metadata names,
or, for HLO text whose instruction carries no metadata, at the
instruction's own ``file:line:col`` in the text.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, cast

from hilo_mlir.driver.frontend.formats import HLO_KINDS, is_hlo_text  # noqa: F401 - told apart before this module loads
from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.support.partitioning import PARTITION_RECIPE, sharding_splits  # noqa: F401 - shared with the MLIR route

if TYPE_CHECKING:
    from collections.abc import Iterable

    from typing_extensions import Buffer


#: Discardable op attributes the HLO importer writes for physical layouts.
LAYOUT_OP_ATTRS = ("result_layout", "source_layout", "xla_shape")

#: Argument/result attributes of ``main`` that are placement, not meaning.
LAYOUT_ARG_ATTRS = ("mhlo.layout_mode", "mhlo.memory_kind")

#: Module attributes of the entry computation layout.
LAYOUT_MODULE_ATTRS = (
    "mhlo.xla_entry_computation_parameter_layouts",
    "mhlo.xla_entry_computation_parameter_tiles",
    "mhlo.xla_entry_computation_result_layout",
    "mhlo.xla_entry_computation_result_tiles",
)

#: Custom-call targets (prefixes) that only a backend's optimized module contains.
BACKEND_CALL_PREFIXES = ("__onednn$", "__cublas$", "__cudnn$", "__cublasLt$", "__triton", "__gpu$", "__xnn", "__ynn", "__mkl", "__nccl")

#: What to dump instead of an optimized module.
USE_INSTEAD = (
    "use the module before XLA's optimizations (the *.before_optimizations.txt dump, or "
    "jax.jit(f).lower(...).compiler_ir('hlo')), or, for a sharded program, the dump after "
    "spmd-partitioning (XLA_FLAGS='--xla_dump_to=DIR --xla_dump_hlo_as_text --xla_dump_hlo_pass_re=spmd-partitioning')"
)


def _file_loc(filename: str, line: int, col: int) -> str:
    name = filename.replace("\\", "\\\\").replace('"', '\\"')
    return f'loc("{name}":{line}:{col})'


_PARSE_POS = re.compile(r"was parsing (\d+):(\d+): error: (.*)")


def _parse_error_message(errors: list[str]) -> str:
    """The message of XLA's parser errors (outermost first): an error ending in ``:`` introduces the next one
    (``cannot parse as an instruction name or as a nested instruction:`` then ``instruction does not exist: q``),
    so it is joined to it; the errors after the first complete one are the parser's fallbacks, left out."""
    what = errors[0]
    for nxt in errors[1:]:
        if not what.endswith(":"):
            break
        what = f"{what} {nxt}"
    return what.rstrip(":").rstrip() or "syntax error"


def hlo_text_to_proto(data: bytes, filename: str) -> bytes:
    """Parse HLO text with XLA's parser; return the serialized ``HloModuleProto``.

    Raises:
        HiloError: the text is not UTF-8, or XLA's parser refused it (located
            at the ``line:col`` of the text the parser names).
    """
    from jaxlib import _hlo  # type: ignore[attr-defined]  # a private extension module without stubs

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise HiloError("the HLO text is not valid UTF-8", filename=filename) from None
    try:
        module = _hlo.hlo_module_from_text(text)
    except Exception as e:  # noqa: BLE001 - the binding raises RuntimeError / XlaRuntimeError
        msg = " ".join(str(e).split("\n")[0:2])
        found = [m for m in map(_PARSE_POS.search, str(e).splitlines()) if m]
        if found:
            raise HiloError(
                f"invalid HLO text: {_parse_error_message([m.group(3).strip() for m in found])}",
                loc=_file_loc(filename, int(found[0].group(1)), int(found[0].group(2))),
                filename=filename,
            ) from None
        msg = re.sub(r"^(INVALID_ARGUMENT|INTERNAL|FAILED_PRECONDITION): ", "", msg).strip()
        raise HiloError(f"invalid HLO text: {msg}", filename=filename) from None
    return module.as_serialized_hlo_module_proto()


def import_hlo(data: bytes, kind: str, filename: str, context, log: list | None = None):
    """An ``HloModuleProto`` (``kind="proto"``) or HLO text (``kind="hlotext"``) as a normalised stablehlo module.

    Args:
        data: the input's bytes.
        kind: ``"proto"`` or ``"hlotext"``.
        filename: for diagnostics.
        context: the ``ir.Context`` to build the module in.
        log: a list the ``[hlo-import]`` debug lines are appended to.

    Returns:
        The ``ir.Module`` (stablehlo, with no layout, copy or XLA fusion left).

    Raises:
        HiloError: a parse error of the text, the importer's status
            (``NCC_DRV001``), or a layout/custom call :func:`normalize_imported` refuses.
    """
    from hilo_mlir.driver.frontend.formats import hlo_proto_to_bytecode
    from hilo_mlir.ir.binding import ir
    from hilo_mlir.support.diagnostics import from_mlir_error

    source = None
    if kind == "hlotext":
        source = data.decode("utf-8", "replace")
        data = hlo_text_to_proto(data, filename)
    partitioned = entry_computation_name(data).endswith("_spmd")
    bytecode = hlo_proto_to_bytecode(data, filename)
    with context:
        try:
            module = ir.Module.parse(bytecode)
        except ir.MLIRError as e:
            raise from_mlir_error(e, filename) from None
        lines = normalize_imported(module, filename, source, partitioned=partitioned)
    if log is not None:
        log.extend(lines)
    return module


def entry_computation_name(proto: bytes) -> str:
    """The ``entry_computation_name`` (field 2) of a serialized ``HloModuleProto``; ``""`` if absent or unreadable.

    XLA's SPMD partitioner renames every computation it partitions ``<name>_spmd``: an entry named so is
    a per-device program.
    """
    i, n = 0, len(proto)

    def varint() -> int:
        nonlocal i
        shift = result = 0
        while i < n:
            b = proto[i]
            i += 1
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7
        raise ValueError("truncated")

    try:
        while i < n:
            key = varint()
            field, wire = key >> 3, key & 7
            if wire == 0:
                varint()
            elif wire == 1:
                i += 8
            elif wire == 5:
                i += 4
            elif wire == 2:
                size = varint()
                if field == 2:
                    return proto[i : i + size].decode("utf-8", "replace")
                i += size
            else:
                return ""
    except ValueError:
        return ""
    return ""


# -- normalisation ---------------------------------------------------------------------------------


def _dense_ints(attr) -> list[int] | None:
    from hilo_mlir.ir.binding import ir

    try:
        # the binding's stubs do not declare that a DenseIntElementsAttr is iterable
        return [int(x) for x in cast("Iterable[int]", ir.DenseIntElementsAttr(attr))]
    except (ValueError, TypeError):
        return None


def _is_default_layout(perm: list[int] | None, rank: int) -> bool:
    """XLA's default layout lists the dimensions minor to major: ``{rank-1, ..., 0}``."""
    return perm is None or perm == list(range(rank - 1, -1, -1))


def _layout_text(perm) -> str:
    return "{" + ",".join(str(p) for p in perm) + "}"


class _Locator:
    """Where to report an op: its own file location, else its HLO instruction's line in the text."""

    def __init__(self, filename: str, source: str | None):
        self.filename = filename
        self.source = source
        self._lines: dict[str, tuple[int, int]] | None = None

    def _index(self) -> dict[str, tuple[int, int]]:
        if self._lines is None:
            self._lines = {}
            pat = re.compile(r"^(\s*(?:ROOT\s+)?%?)([\w.\-]+)\s*=")
            for i, line in enumerate((self.source or "").splitlines(), 1):
                m = pat.match(line)
                if m:
                    self._lines.setdefault(m.group(2), (i, len(m.group(1)) + 1))
        return self._lines

    def loc(self, op):
        text = str(op.location)
        if '":' in text or self.source is None:
            return op.location
        m = re.match(r'loc\("([^"]*)"\)$', text)
        pos = self._index().get(m.group(1)) if m else None
        return _file_loc(self.filename, *pos) if pos else op.location

    def error(self, op, message: str) -> HiloError:
        return HiloError(message, loc=self.loc(op), filename=self.filename)

    def relocate(self, ops) -> int:
        """Give every op whose location is only its HLO instruction's name (no metadata) that instruction's
        ``file:line:col`` in the text, keeping the name: ``loc("r"("f.txt":5:3))``, so that every later
        diagnostic (printability, passes) points into the HLO text. Returns how many."""
        if self.source is None:
            return 0
        from hilo_mlir.ir.binding import ir

        index = self._index()
        n = 0
        for op in ops:
            m = re.match(r'loc\("([^"]*)"\)$', str(op.location))
            pos = index.get(m.group(1)) if m else None
            if m is not None and pos is not None:  # pos is None when m is
                op.location = ir.Location.name(m.group(1), ir.Location.file(self.filename, pos[0], pos[1]))
                n += 1
        return n

    def param_error(self, func_op, index: int, message: str) -> HiloError:
        """An error at parameter ``index`` of the entry: its ``parameter(i)`` line in the text, else its argument's location."""
        loc = func_op.regions[0].blocks[0].arguments[index].location
        if self.source is not None:
            lines = self.source.splitlines()
            entry = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith("ENTRY")), None)
            pat = re.compile(rf"^(\s*(?:ROOT\s+)?)%?[\w.\-]+\s*=.*\bparameter\({index}\)")
            for i in range(entry + 1 if entry is not None else len(lines), len(lines)):
                m = pat.match(lines[i])
                if m:
                    loc = _file_loc(self.filename, i + 1, len(m.group(1)) + 1)
                    break
        return HiloError(message, loc=loc, filename=self.filename)


def _collect(module) -> list:
    """Every op below the module, in walk order (pre-order)."""
    from hilo_mlir.ir.binding import ir

    found: list = []
    advance = ir.WalkResult.ADVANCE

    def visit(op):
        found.append(op)
        return advance

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def normalize_imported(module, filename: str, source: str | None = None, partitioned: bool = False) -> list[str]:
    """Normalise a module the HLO importer built (see the module doc); returns the ``--debug`` lines.

    Args:
        module: the ``ir.Module`` (inside its context).
        filename: for diagnostics.
        source: the HLO text, when the input was text (locates instructions without metadata).
        partitioned: the module is XLA's per-device program (its entry computation is ``..._spmd``);
            otherwise a sharding that splits a dimension is an error (the global program of a
            sharded computation, see :func:`check_partitioned`).

    Raises:
        HiloError: a meaning-changing layout, a backend-only custom call, a sharded module that was
            not partitioned (the first one found).
    """
    from hilo_mlir.rewrite.rewriter import Rewriter

    rw = Rewriter(module.operation)
    where = _Locator(filename, source)
    counts = {"layouts": 0, "copies": 0, "bitcasts": 0, "fusions": 0, "groups": 0, "devices": 0}
    found: dict[str, list] = {"mhlo.bitcast": [], "mhlo.copy": [], "mhlo.fusion": []}
    ops = _collect(module)
    where.relocate(ops)  # a location, not the IR: set directly (the rewriter records IR changes)
    if not partitioned:
        check_partitioned(ops, where)
    else:
        counts["layouts"] += _drop_partitioned_shardings(ops, rw)
    for op in ops:
        _visit(op, where, rw, counts, found)
    counts["groups"] = mesh_groups_to_dense(module, ops, rw, where)
    for key in LAYOUT_MODULE_ATTRS:
        counts["layouts"] += rw.remove_attr(module.operation, key)
    counts["devices"] = _declare_devices(module, source, rw)
    for op in found["mhlo.bitcast"]:
        _bitcast_to_reshape(op, where, rw, counts)
    for op in found["mhlo.copy"]:
        rw.replace_op(op, [op.operands[0]])
        counts["copies"] += 1
    for op in reversed(found["mhlo.fusion"]):  # innermost first (pre-order walk: a nested fusion comes after its parent)
        _inline_fusion(op, rw)
        counts["fusions"] += 1
    return _report(counts)


_HEADER_COUNTS = {"replica_count": "mhlo.num_replicas", "num_partitions": "mhlo.num_partitions"}


def header_device_counts(source: str | None) -> dict[str, int]:
    """``{"mhlo.num_replicas": R, "mhlo.num_partitions": P}`` from the ``HloModule`` header line of HLO text.

    XLA prints ``replica_count=`` / ``num_partitions=`` in the header only when they are not 1
    (a partitioned dump: ``HloModule jit_f, ..., num_partitions=4``), so a count the header does
    not name is 1. The proto alone does not hold them: ``{}`` when there is no text or no header.
    """
    if not source:
        return {}
    header = next((ln for ln in source.splitlines() if ln.startswith("HloModule ")), None)
    if header is None:
        return {}
    out = {}
    for key, attr in _HEADER_COUNTS.items():
        m = re.search(rf"\b{key}=(\d+)\b", header)
        out[attr] = int(m.group(1)) if m else 1
    return out


def _declare_devices(module, source: str | None, rw) -> int:
    """Set ``mhlo.num_replicas`` / ``mhlo.num_partitions`` from the HLO text's header (not already set); returns how many."""
    from hilo_mlir.ir.binding import ir

    n = 0
    for attr, value in header_device_counts(source).items():
        if attr not in module.operation.attributes:
            rw.set_attr(module.operation, attr, ir.IntegerAttr.get(ir.IntegerType.get_signless(32), value))
            n += 1
    return n


def _visit(op, where: _Locator, rw, counts: dict, found: dict) -> None:
    """Check one op, drop its layout attributes, and note it in ``found`` when it is rewritten later."""
    from hilo_mlir.ir.binding import ir

    name = op.name
    attrs = op.attributes
    if name == "stablehlo.custom_call":
        _check_custom_call(op, where, rw, counts)
    elif name == "mhlo.bitcast":
        found[name].append(op)
        return  # its layouts are read when it is rewritten
    elif name == "mhlo.copy" or (name == "mhlo.fusion" and "FusionKind" not in attrs):  # a Neuron fusion keeps its own attribute
        found[name].append(op)
    elif name == "func.func":
        counts["layouts"] += _strip_signature(op, rw, ir)
    for key in LAYOUT_OP_ATTRS:
        counts["layouts"] += rw.remove_attr(op, key)


def _report(counts: dict) -> list[str]:
    log = []
    if counts["fusions"]:
        log.append(f"[hlo-import] inlined {counts['fusions']} XLA fusion(s) back into plain ops (the spine forms Neuron's fusions itself)")
    if counts["copies"]:
        log.append(f"[hlo-import] forwarded {counts['copies']} copy op(s) (layout changes)")
    if counts["bitcasts"]:
        log.append(f"[hlo-import] {counts['bitcasts']} default-layout bitcast(s) became reshape")
    if counts["groups"]:
        log.append(f"[hlo-import] {counts['groups']} collective(s): mesh-axes replica groups written as explicit device groups")
    if counts["devices"]:
        log.append("[hlo-import] the HloModule header's replica_count/num_partitions declared as mhlo.num_replicas/mhlo.num_partitions")
    if counts["layouts"]:
        log.append(f"[hlo-import] dropped {counts['layouts']} layout attribute(s) (XLA's physical layouts; HLO values are logical)")
    return log


def _strip_signature(func_op, rw, ir) -> int:
    removed = 0
    for key in ("arg_attrs", "res_attrs"):
        if key not in func_op.attributes:
            continue
        new, changed = [], False
        for a in ir.ArrayAttr(func_op.attributes[key]):
            d = ir.DictAttr(a)
            items = [(d[i].name, d[i].attr) for i in range(len(d))]
            kept = {k: v for k, v in items if k not in LAYOUT_ARG_ATTRS}
            if len(kept) != len(items):
                removed += len(items) - len(kept)
                changed = True
                d = ir.DictAttr.get(kept)
            new.append(d)
        if changed:
            rw.set_attr(func_op, key, ir.ArrayAttr.get(new))
    return removed


def _check_custom_call(op, where: _Locator, rw, counts) -> None:
    from hilo_mlir.ir.binding import ir

    attrs = op.attributes
    target = ir.StringAttr(attrs["call_target_name"]).value if "call_target_name" in attrs else ""
    if target.startswith(BACKEND_CALL_PREFIXES):
        raise where.error(
            op,
            f"custom call '{_quote(target)}' is a backend-only call of an XLA-optimized module; there is no portable "
            f"meaning to compile: {USE_INSTEAD}",
        )
    for key, values in (("operand_layouts", list(op.operands)), ("result_layouts", list(op.results))):
        if key not in attrs:
            continue
        layouts = list(ir.ArrayAttr(attrs[key]))
        for i, (lay, v) in enumerate(zip(layouts, values)):
            perm = _dense_ints(lay)
            rank = v.type.rank if isinstance(v.type, ir.RankedTensorType) else 0
            if not _is_default_layout(perm, rank):
                what = "operand" if key == "operand_layouts" else "result"
                raise where.error(
                    op,
                    f"custom call '{_quote(target)}' has the non-default layout {_layout_text(perm or [])} on {what} {i}: "
                    f"its target reads the buffer in that order, which a Penguin program cannot express; "
                    f"export the module with default layouts",
                )
        rw.remove_attr(op, key)
        counts["layouts"] += 1


def _quote(s: str) -> str:
    """A name from the input, shown safely in one line."""
    s = s if len(s) <= 80 else s[:77] + "..."
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in s)


def _bitcast_to_reshape(op, where: _Locator, rw, counts) -> None:
    from hilo_mlir.ir.binding import ir

    src_t = ir.RankedTensorType(op.operands[0].type)
    res_t = ir.RankedTensorType(op.results[0].type)
    attrs = op.attributes
    src = _dense_ints(attrs["source_layout"]) if "source_layout" in attrs else None
    res = _dense_ints(attrs["result_layout"]) if "result_layout" in attrs else None
    if src_t.element_type != res_t.element_type or not (_is_default_layout(src, src_t.rank) and _is_default_layout(res, res_t.rank)):
        lay = f"{_layout_text(src or [])} -> {_layout_text(res or [])}" if (src or res) else "its element type"
        raise where.error(
            op,
            f"bitcast from {src_t} to {res_t} reinterprets the buffer ({lay}): it is a layout change XLA inserted, "
            f"not an operation on values; {USE_INSTEAD}",
        )
    new = rw.create("stablehlo.reshape", results=[res_t], operands=[op.operands[0]], loc=op.location, before=op)
    rw.replace_op(op, list(new.results))
    counts["bitcasts"] += 1


def _inline_fusion(op, rw) -> None:
    """Move an XLA fusion's body before it, rewire its block arguments to its operands and its results to the body's returns."""
    block = op.regions[0].blocks[0]
    args = list(block.arguments)
    operands = list(op.operands)
    for a, v in zip(args, operands):
        rw.replace_all_uses_with(a, v)
    body = list(block.operations)
    terminator = body[-1]
    returned = list(terminator.operands)
    rw.move_all_before(body[:-1], op)
    rw.replace_op(op, returned)


# -- sharding: partitioned or not; mesh-axes replica groups ------------------------------------------------


def check_partitioned(ops, where: _Locator) -> None:
    """Refuse the global program of a sharded computation (HLO not partitioned): one error at the first
    argument, result or op whose ``mhlo.sharding`` splits a dimension (or is manual)."""
    from hilo_mlir.ir.binding import ir

    for op in ops:
        attrs = op.attributes
        if "mhlo.sharding" in attrs:
            text = ir.StringAttr(attrs["mhlo.sharding"]).value if isinstance(attrs["mhlo.sharding"], ir.StringAttr) else ""
            if sharding_splits(text):
                raise where.error(op, f"this module is sharded ({_quote(text)}) but was not partitioned: {PARTITION_RECIPE}")
        if op.name != "func.func":
            continue
        for key, what in (("arg_attrs", "argument"), ("res_attrs", "result")):
            if key not in attrs:
                continue
            for i, d in enumerate(ir.ArrayAttr(attrs[key])):
                d = ir.DictAttr(d)
                if "mhlo.sharding" in d:
                    text = ir.StringAttr(d["mhlo.sharding"]).value
                    if sharding_splits(text):
                        msg = f"this module is sharded ({what} {i}: {_quote(text)}) but was not partitioned: {PARTITION_RECIPE}"
                        raise where.param_error(op, i, msg) if what == "argument" else where.error(op, msg)


def _drop_partitioned_shardings(ops, rw) -> int:
    """A partitioned module's shardings describe how the global values were split, which its shapes already
    are: dropped (counted with the layouts)."""
    from hilo_mlir.ir.binding import ir

    n = 0
    for op in ops:
        n += rw.remove_attr(op, "mhlo.sharding")
        if op.name != "func.func":
            continue
        for key in ("arg_attrs", "res_attrs"):
            if key not in op.attributes:
                continue
            new = []
            for d in ir.ArrayAttr(op.attributes[key]):
                d = ir.DictAttr(d)
                items = {d[i].name: d[i].attr for i in range(len(d))}
                n += items.pop("mhlo.sharding", None) is not None
                new.append(ir.DictAttr.get(items))
            rw.set_attr(op, key, ir.ArrayAttr.get(new))
    return n


_MESH = re.compile(r"#sdy\.mesh<\[([^\]]*)\](?:, device_ids=\[([\d, ]*)\])?>")
_AXIS = re.compile(r'"([^"]+)"=(\d+)')


def _mesh_devices(mesh_attr: str):
    """``(axis names, numpy array of device ids shaped by the axis sizes)`` of a printed ``#sdy.mesh``."""
    import numpy as np

    m = _MESH.search(mesh_attr)
    if m is None:
        return None
    axes = [(a, int(n)) for a, n in _AXIS.findall(m.group(1))]
    sizes = [n for _, n in axes] or [1]
    total = 1
    for n in sizes:
        total *= n
    ids = np.arange(total) if not m.group(2) else np.array([int(x) for x in m.group(2).split(",")])
    if ids.size != total:
        return None
    return [a for a, _ in axes], ids.reshape(sizes)


def mesh_groups_to_dense(module, ops, rw, where: _Locator) -> int:
    """Rewrite ``replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @m, axes = [...]>`` (what XLA's
    compiled modules print as ``mesh['a'=2,...] {'a'}``) into explicit device groups, one row per group:
    the devices of ``@m`` that differ only along the named axes (row-major over them). Returns how many.

    Raises:
        HiloError: a mesh that is not in the module, or a sub-axis reference.
    """
    import numpy as np

    from hilo_mlir.ir.binding import ir

    todo = [op for op in ops if "replica_groups" in op.attributes and "replica_group_mesh_axes" in str(op.attributes["replica_groups"])]
    if not todo:
        return 0
    meshes = {}
    for top in module.body.operations:
        if top.operation.name == "sdy.mesh":
            meshes[ir.StringAttr(top.operation.attributes["sym_name"]).value] = str(top.operation.attributes["mesh"])
    for op in todo:
        text = str(op.attributes["replica_groups"])
        m = re.search(r"mesh = @([\w.$\-]+)", text)
        mesh = _mesh_devices(meshes.get(m.group(1), "")) if m else None
        if mesh is None or "sub_axis" in text:
            raise where.error(op, f"replica groups {_quote(text)} name a mesh (or sub-axis) this module does not define")
        names, devices = mesh
        axes = re.findall(r'axis_ref<name = "([^"]+)"', text)
        if any(a not in names for a in axes):
            raise where.error(op, f"replica groups {_quote(text)} name an axis the mesh does not have")
        grouped = [names.index(a) for a in axes]
        rest = [i for i in range(len(names)) if i not in grouped]
        arr = np.transpose(devices, rest + grouped)
        size = 1
        for i in grouped:
            size *= devices.shape[i]
        groups = arr.reshape(-1, size).astype(np.int64)
        # an ndarray is a buffer (numpy's stubs declare __buffer__ only for Python >= 3.12)
        rw.set_attr(op, "replica_groups", ir.DenseIntElementsAttr.get(cast("Buffer", np.ascontiguousarray(groups))))
    return len(todo)
