"""Reading a module: MLIR text or bytecode, or a serialized ``HloModuleProto``, into a :class:`LoadedModule`.

The HLO importer (``hlo_to_stablehlo``) is the binding's ``ConvertHloToMLIR``
entry; its module is stablehlo, brought to mhlo later by the driver's bridge.
The dialect of a module is detected from its op census when it is compiled
(:func:`detect_dialect`), not here: loading never walks the module.
"""

from __future__ import annotations

from hilo_mlir.analysis.census import detect_dialect
from hilo_mlir.driver.frontend.formats import HLO_KINDS, deserialize_portable, explain_parse_error, hlo_proto_to_bytecode, is_hlo_text
from hilo_mlir.support.diagnostics import HiloError, from_mlir_error
from hilo_mlir.support.loaded import LoadedModule

__all__ = [
    "LoadedModule",
    "deserialize_portable",
    "detect_dialect",
    "explain_parse_error",
    "hlo_proto_to_bytecode",
    "load_module",
]

#: The first bytes of MLIR bytecode.
BYTECODE_MAGIC = b"ML\xefR"


def is_hlo_proto(path: str, data: bytes) -> bool:
    """True for a serialized ``HloModuleProto`` (named ``*.pb``)."""
    return path.endswith(".pb")


def bytecode_producer(data: bytes) -> str | None:
    """The producer string of MLIR bytecode (``"MLIR19.0.0git"``, ``"StableHLO_v1.15.0"``), or None.

    The header is the magic, the bytecode version (a prefix varint: its
    first byte's trailing zero bits count the bytes that follow) and the
    producer, NUL-terminated.
    """
    if not data.startswith(BYTECODE_MAGIC) or len(data) < 6:
        return None
    first = data[4]
    extra = 8 if first == 0 else (first & -first).bit_length() - 1
    start = 5 + extra
    end = data.find(b"\x00", start, start + 256)
    if end < 0:
        return None
    return data[start:end].decode("utf-8", "replace")


def is_portable_artifact(data: bytes) -> bool:
    """True for a StableHLO portable artifact (VHLO bytecode, e.g. ``jax.export``'s ``mlir_module_serialized``)."""
    producer = bytecode_producer(data)
    return producer is not None and producer.startswith("StableHLO_v")


def input_kind(filename: str, data: bytes) -> str:
    """What the input is, by content: ``"proto"`` (named ``*.pb``), ``"portable"`` (a StableHLO portable
    artifact), ``"bytecode"`` (other MLIR bytecode), ``"hlotext"`` (XLA's HLO text: ``HloModule ...``,
    whatever the file is named) or ``"text"`` (MLIR text)."""
    if is_hlo_proto(filename, data):
        return "proto"
    if data.startswith(BYTECODE_MAGIC):
        return "portable" if is_portable_artifact(data) else "bytecode"
    if is_hlo_text(data):
        return "hlotext"
    return "text"


def load_module(
    data: bytes | str,
    filename: str = "<string>",
    allow_unregistered: bool = False,
    context=None,
    isolate: bool = False,
    timeout: float | None = None,
) -> LoadedModule:
    """Parse MLIR text/bytecode or an ``HloModuleProto`` into a module.

    Args:
        data: the input's bytes (or text): MLIR text, MLIR bytecode, a
            StableHLO portable artifact (detected by content: its bytecode
            producer is ``StableHLO_v...``), an ``HloModuleProto``, or HLO
            text (``HloModule ...``; detected by content). HLO is normalised
            on import (:mod:`hilo_mlir.driver.frontend.hlo`).
        filename: its name; ``*.pb`` is read as an ``HloModuleProto``.
        allow_unregistered: accept ops of unknown dialects.
        context: an ``ir.Context`` to parse into (default: a fresh one).
        isolate: read binary inputs (bytecode, artifacts, protos) in a forked child
            (:mod:`hilo_mlir.driver.frontend.binary`): a crash or hang of the
            upstream reader becomes one error. The tools always do; text is
            always read in-process (the text parser reports errors).
        timeout: seconds an isolated read may take (default 300).

    Raises:
        HiloError: syntax errors (``file:line:col``, of MLIR or HLO text), an unreadable proto
            (``NCC_DRV001``), a layout or custom call the HLO import refuses, a file that is not UTF-8, a reader that crashed
            or hung on a binary input.
    """
    from hilo_mlir.ir.binding import ir, make_context
    from hilo_mlir.support.io import decode_text

    if isinstance(data, str):
        data = data.encode("utf-8")
    kind = input_kind(filename, data)
    log: list[str] = []
    if isolate and kind != "text":
        from hilo_mlir.driver.frontend.binary import read_binary

        data = read_binary(data, filename, kind, allow_unregistered, timeout, log=log)
        kind = "bytecode"
    ctx = context or make_context(allow_unregistered)
    with ctx:
        if kind == "portable":
            module = deserialize_portable(data, filename, ctx)
        elif kind in HLO_KINDS:
            from hilo_mlir.driver.frontend.hlo import import_hlo

            module = import_hlo(data, kind, filename, ctx, log)
        else:
            payload: str | bytes = data  # text is decoded first; bytecode is parsed as bytes
            if kind == "text":
                from hilo_mlir.ir.limits import check_dim_numbers, check_location_attributes, check_nesting, check_strings_utf8

                payload = text = decode_text(data, filename)
                check_dim_numbers(text, filename)  # before the parser allocates by them
                check_strings_utf8(text, filename)  # before a diagnostic or pass reads such a string
                check_nesting(text, filename)  # before the parser recurses by it
                check_location_attributes(text, filename)  # before a pass reads one (the binding aborts)
            try:
                module = ir.Module.parse(payload)
            except ir.MLIRError as e:
                raise explain_parse_error(from_mlir_error(e, filename)) from None
            except (ValueError, OverflowError, RuntimeError) as e:  # a C++ exception the binding turned into Python
                raise HiloError(f"the MLIR parser failed on this input: {' '.join(str(e).split())}", filename=filename) from None
    loaded = LoadedModule.from_module(ctx, module, filename)
    loaded.import_log = log
    return loaded
