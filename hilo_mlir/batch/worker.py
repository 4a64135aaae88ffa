"""The task of one batch worker: read, parse, compile and write one module, announcing each stage.

Runs in the forked child (:class:`hilo_mlir.batch.pool.WorkerPool`). Every
stage is announced (``{"pass": "read"}``, ``parse``, then
``validate-input``, the bridge's and the spine's passes through
``Instrumentation.on_pass_start``, then ``write``) before it runs, so the
announcement survives a crash in it; the last message is the result:
``{"status": "ok"}``, ``{"status": "rejected", "diagnostic": ...}`` (a
:class:`~hilo_mlir.diagnostics.HiloError`) or ``{"status": "crashed",
"diagnostic": "internal error: ...", "traceback": ...}`` (any other Python
exception: a bug, reported, never printed).
"""

from __future__ import annotations

import os
import sys

from .classify import one_line


def _compile_and_write(item, outdir: str, config, allow_unregistered: bool, send) -> None:
    from .. import compiler
    from ..io_utils import read_input
    from ..packaging import write_program
    from ..pipeline import Instrumentation

    send({"pass": "read"})
    data = read_input(item.path)
    send({"pass": "parse"})
    loaded = compiler.load_module(data, item.path, allow_unregistered=allow_unregistered)
    instr = Instrumentation(on_pass_start=lambda arg: send({"pass": arg}))
    src = compiler.compile_loaded(loaded, config, instrumentation=instr)
    send({"pass": "write"})
    write_program(os.path.join(outdir, item.rel_stem), src)


def compile_one(item, outdir: str, config, allow_unregistered: bool, send) -> None:
    """Compile ``item`` into ``outdir/<rel_stem>``; report through ``send``; never returns (``os._exit``)."""
    import traceback

    code = 0
    try:
        from ..diagnostics import HiloError

        try:
            _compile_and_write(item, outdir, config, allow_unregistered, send)
            send({"status": "ok"})
        except HiloError as e:
            send({"status": "rejected", "diagnostic": one_line(e.format(item.path))})
        except Exception as e:  # noqa: BLE001 - a bug in our code: reported, never a traceback on the console
            send(
                {
                    "status": "crashed",
                    "diagnostic": one_line(f"internal error: {type(e).__name__}: {e}"),
                    "traceback": traceback.format_exc()[-8000:],
                }
            )
    except BaseException:  # noqa: BLE001 - e.g. KeyboardInterrupt: the parent reports the exit
        code = 3
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:  # noqa: BLE001
            pass
        os._exit(code)
