"""Reading untrusted binary inputs (MLIR bytecode, ``HloModuleProto``) in a forked child.

The upstream bytecode reader and the HLO importer trust their input: one
changed byte can segfault them, abort (``LLVM ERROR``, a nanobind conversion
error on a name that is not UTF-8) or loop forever. So a binary input is
first read in a child process (:func:`hilo_mlir.support.isolation.run_in_child`):

1. the child parses it (the proto through ``hlo_to_stablehlo`` first), then
   touches what later stages read through Python -- it prints the module
   (every op, attribute and type goes through the printer) and reads every
   op name -- so that a module the reader built from garbage fails here;
2. it sends back the module re-written by the bytecode *writer*, which the
   parent parses (well-formed by construction).

The child's address space is bounded (:func:`read_memory`: a corrupt count
makes the reader ask for terabytes, and it would fill the machine's memory
before any timeout). A crash, a hang past ``timeout`` seconds, running out
of that memory, or an exit without a result becomes one
:class:`~hilo_mlir.support.diagnostics.HiloError`:
``file: error: the MLIR bytecode reader crashed (SIGSEGV) on this input; the
file is corrupt or not MLIR bytecode`` / ``... did not finish in 300 s``. The
child's stdout and stderr (XLA's and protobuf's log lines) are never shown;
a line that explains the failure (``LLVM ERROR: ...``, a failed check) is
quoted in the error. A located error of the reader (``file:line:col`` or the
proto's status) is passed on as it is.
"""

from __future__ import annotations

import io

from hilo_mlir.support.diagnostics import HiloError

#: Seconds a binary input may take to read when no ``--timeout`` is given.
DEFAULT_READ_TIMEOUT = 300.0


def read_memory(size: int) -> int:
    """Bytes of address space the reading child may add for an input of ``size`` bytes: 2 GiB + 32 x the input."""
    return 2 * 2**30 + 32 * size


#: What reads each binary kind, and what the file then is not (one wording for single-file and batch mode).
READERS = {
    "bytecode": ("the MLIR bytecode reader", "not MLIR bytecode"),
    "portable": ("the StableHLO portable-artifact reader", "not a StableHLO portable artifact"),
    "proto": ("the HLO proto importer", "not a serialized HloModuleProto"),
    "hlotext": ("the HLO text parser", "not HLO text"),
}


def _error_header(e: HiloError, filename: str) -> dict:
    from hilo_mlir.support.diagnostics import location_to_str

    return {"error": {"message": e.message, "code": e.code, "loc": location_to_str(e.loc, filename) if e.loc is not None else None}}


def _touch(module) -> None:
    """Make a reader-built module fail here rather than later: print it, read every op name."""
    from hilo_mlir.ir.binding import ir

    buf = io.BytesIO()
    module.operation.print(file=buf, binary=True, large_elements_limit=16, assume_verified=True)
    try:
        text = buf.getvalue().decode("utf-8")
    except UnicodeDecodeError:
        raise HiloError("the module contains a name or string that is not valid UTF-8") from None
    from hilo_mlir.ir.limits import check_location_attributes, check_strings_utf8

    check_strings_utf8(text, None)  # escaped in the printed form: a walk reading it would abort
    check_location_attributes(text, None)  # printed inline (no debug info): a pass reading one would abort
    advance = ir.WalkResult.ADVANCE

    def visit(op):
        op.name  # noqa: B018 - the binding converts the name to a Python str here
        return advance

    module.operation.walk(visit)


def _read_in_child(data: bytes, filename: str, kind: str, allow_unregistered: bool):
    """The child's work: returns ``(header, payload)`` for :func:`~hilo_mlir.support.isolation.run_in_child`."""
    from hilo_mlir.driver.frontend.formats import HLO_KINDS, deserialize_portable, explain_parse_error
    from hilo_mlir.ir.binding import ir, make_context
    from hilo_mlir.support.diagnostics import from_mlir_error

    log: list[str] = []
    try:
        ctx = make_context(allow_unregistered)
        with ctx:
            try:
                if kind in HLO_KINDS:
                    from hilo_mlir.driver.frontend.hlo import import_hlo

                    module = import_hlo(data, kind, filename, ctx, log)
                elif kind == "portable":
                    module = deserialize_portable(data, filename, ctx)
                else:
                    module = ir.Module.parse(data)
            except ir.MLIRError as e:
                err = from_mlir_error(e, filename)
                raise (err if kind in HLO_KINDS else explain_parse_error(err)) from None
            except (ValueError, OverflowError, RuntimeError) as e:  # a C++ exception the binding turned into Python
                raise HiloError(f"the MLIR parser failed on this input: {' '.join(str(e).split())}") from None
            _touch(module)
            out = io.BytesIO()
            module.operation.write_bytecode(out)
            body = out.getvalue()
            return {"ok": True, "size": len(body), "log": log}, body
    except HiloError as e:
        return _error_header(e, filename), b""
    except MemoryError:
        return {"out_of_memory": True}, b""


def _located(err: dict, filename: str) -> HiloError:
    loc = err.get("loc")
    e = HiloError(err["message"], code=err.get("code"), filename=filename)
    if loc:
        path, _, rest = loc.rpartition(":")
        path, _, line = path.rpartition(":")
        if line.isdigit() and rest.isdigit() and (line, rest) != ("0", "0"):  # 0:0 is no place in a binary file
            e.loc = f'loc("{path}":{line}:{rest})'
    return e


def read_binary(
    data: bytes, filename: str, kind: str, allow_unregistered: bool = False, timeout: float | None = None, log: list | None = None
) -> bytes:
    """Read a binary input in a child; returns MLIR bytecode written by the bytecode writer (stablehlo for an
    artifact, a proto or HLO text).

    Args:
        data: the input's bytes.
        filename: for diagnostics.
        kind: ``"bytecode"``, ``"portable"`` (a StableHLO portable artifact), ``"proto"`` or
            ``"hlotext"`` (both through :func:`hilo_mlir.driver.frontend.hlo.import_hlo`).
        log: a list the import's ``--debug`` lines are appended to.
        allow_unregistered: accept ops of unknown dialects.
        timeout: seconds the child may take (default :data:`DEFAULT_READ_TIMEOUT`).

    Raises:
        HiloError: the reader's own located error, or one line for a crash,
            a hang or a child that ended without a result.
    """
    from hilo_mlir.support.isolation import explaining_line, run_in_child

    limit = DEFAULT_READ_TIMEOUT if timeout is None else timeout
    if kind in ("proto", "hlotext"):
        # _hlo is a private extension module without stubs (hence the ignore)
        from jaxlib import _hlo, xla_client  # type: ignore[attr-defined]  # noqa: F401 - imported once here, not in every child
    memory = read_memory(len(data))
    res = run_in_child(lambda: _read_in_child(data, filename, kind, allow_unregistered), limit, memory)
    who, what = READERS[kind]
    h = res.header or {}
    if "error" in h:
        raise _located(h["error"], filename)
    if res.timed_out:
        raise HiloError(f"{who} did not finish in {limit:g} s on this input; the file is corrupt or {what}", filename=filename)
    if h.get("ok") and len(res.payload) == h.get("size") and res.signal is None and res.exit_code == 0:
        if log is not None:
            log.extend(str(x) for x in h.get("log", ()))
        return res.payload
    if h.get("out_of_memory") or b"bad_alloc" in res.stderr or b"out of memory" in res.stderr:
        raise HiloError(
            f"{who} ran out of memory on this input (it may use {memory / 2**30:.1f} GiB for a "
            f"{len(data):,}-byte file); the file is corrupt or {what}",
            filename=filename,
        )
    why = explaining_line(res.stderr)
    how = f"crashed ({res.signal})" if res.signal else f"ended without a result (exit status {res.exit_code})"
    raise HiloError(f"{who} {how} on this input; the file is corrupt or {what}" + (f" ({why})" if why else ""), filename=filename)
