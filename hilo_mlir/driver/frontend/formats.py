"""Turning the bytes of an input into a module, one format at a time (no module walk, no driver state).

Used by the in-process loader (:mod:`hilo_mlir.driver.frontend.loading`) and by the
isolated reader of binary inputs (:mod:`hilo_mlir.driver.frontend.binary`).
"""

from __future__ import annotations

import re

from hilo_mlir.support.diagnostics import HiloError

#: First bytes of HLO text (``HloModule name, ...``), after optional blank lines.
_HLO_TEXT = re.compile(rb"\A\s*HloModule\s")

#: Input kinds the HLO importer reads (:func:`hilo_mlir.driver.frontend.hlo.import_hlo`).
HLO_KINDS = ("proto", "hlotext")


def is_hlo_text(data: bytes) -> bool:
    """True for HLO text (``HloModule ...`` first: XLA's dumps, ``compiled.as_text()``), whatever the file is named."""
    return _HLO_TEXT.match(data[:4096]) is not None


_QUANT_TYPE = re.compile(r'`!"quant"<"([^`]*)">`')


def explain_parse_error(err: HiloError) -> HiloError:
    """Make the parser's messages about unknown dialects say what to do (keeps the location)."""
    msg = err.message
    m = _QUANT_TYPE.search(msg)
    if m:
        err.message = f"quantized types are not supported (found !quant.{m.group(1)})"
        return err
    if "unregistered dialect" in msg:
        msg = re.sub(r"\.? ?If this is intended, please .*$", "", msg)
        err.message = msg + " (use --allow-unregistered-dialect to accept unknown dialects)"
    elif "not found for custom op" in msg or ("Dialect" in msg and "not found" in msg):
        err.message = msg + " (use --allow-unregistered-dialect to accept unknown dialects)"
    return err


#: what XLA's status says when the bytes are not an ``HloModuleProto`` at all
_NOT_A_PROTO = "Failed to deserialize HloModuleProto"


def hlo_proto_to_bytecode(data: bytes, filename: str) -> bytes:
    """A serialized ``HloModuleProto`` as StableHLO bytecode (XLA's importer).

    Raises:
        HiloError: ``NCC_DRV001``: the bytes are not an ``HloModuleProto``, or the importer
            refused the module (its status quoted).
    """
    from jaxlib import xla_client  # imported only for proto input

    try:
        return xla_client._xla.mlir.hlo_to_stablehlo(data)
    except Exception as e:  # noqa: BLE001 - the binding raises JaxRuntimeError
        if _NOT_A_PROTO in str(e):
            raise HiloError(
                "the input is not a serialized XLA HloModuleProto (a '.pb' file is read as one): its bytes do not parse as that message",
                code="NCC_DRV001",
                filename=filename,
            ) from None
        raise HiloError(
            f"The conversion from HLO to MHLO failed, status: {str(e).strip()}",
            code="NCC_DRV001",
            filename=filename,
        ) from None


def deserialize_portable(data: bytes, filename: str, context):
    """The stablehlo module of a portable artifact (the binding's ``deserialize_portable_artifact``).

    Raises:
        HiloError: the artifact cannot be read (its version is newer than
            this StableHLO, or it is corrupt).
    """
    from hilo_mlir.ir.binding import ir, stablehlo

    try:
        return stablehlo.deserialize_portable_artifact(context, data)
    except (ValueError, RuntimeError, ir.MLIRError) as e:
        text = " ".join(str(e).split()).replace('loc("-":', f'loc("{filename}":')
        raise HiloError(f"cannot read the StableHLO portable artifact: {text}", filename=filename) from None
