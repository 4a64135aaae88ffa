"""What every console script shares: the exit-code contract and no tracebacks."""

from __future__ import annotations

import os
import sys

from hilo_mlir.support.diagnostics import HiloError, internal_error


def run_main(tool: str, run, argv=None) -> None:
    """Call ``run(argv)`` and exit with its code: 0 success, 1 any error (one line), 130 on Ctrl-C (``<tool>: interrupted``).

    A ``HiloError`` prints as ``file:line:col: error: ...`` (``<tool>: error: ...``
    without a location); any other exception
    as one ``<tool>: internal error: ...`` line (traceback only with
    ``HILO_MLIR_TRACEBACK=1``). Output piped into e.g. ``head`` stops quietly.
    """
    try:
        code = run(sys.argv[1:] if argv is None else argv)
    except KeyboardInterrupt:
        sys.stderr.write(f"{tool}: interrupted\n")
        code = 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    except HiloError as e:
        sys.stderr.write(e.render(tool=tool) + "\n")
        code = 1
    except Exception as e:  # noqa: BLE001 - never a traceback for the user
        code = internal_error(tool, e)
    if argv is None:  # the console script itself (not a caller in this process)
        end_process(code)
    sys.exit(code)


#: modules that register exit-time work of their own (jax's backend clean-up, dask's client shutdown, worker
#: pools' joins, coverage measurement of a subprocess): with any of them loaded, the process ends the normal way
_EXIT_HANDLERS = ("jax", "distributed", "dask", "multiprocessing", "concurrent.futures", "coverage")


def end_process(code: int) -> None:
    """End the process with ``code`` after flushing stdout and stderr, without the interpreter's teardown.

    Tearing down numpy and the MLIR bindings' modules costs ~0.1 s of CPU at every exit; nothing of ours
    needs it (every file is written and renamed into place before ``run`` returns; temporary folders are
    removed by the code that made them). Returns (and the caller exits the normal way) when a module with
    exit-time work of its own is loaded. A stdout closed by its reader (``| head``) is not an error, as in
    :func:`run_main`.
    """
    if any(m in sys.modules for m in _EXIT_HANDLERS):
        return
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    except (OSError, ValueError):
        return  # a stream that cannot be flushed: let the interpreter report it as it always does
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)


def bool_flag(text: str) -> bool:
    """An LLVM ``cl::opt<bool>`` value: ``--flag``, ``--flag=true|false|1|0``.

    Raises:
        argparse.ArgumentTypeError: any other value.
    """
    import argparse

    low = text.strip().lower()
    if low in ("", "true", "1", "on", "yes"):
        return True
    if low in ("false", "0", "off", "no"):
        return False
    raise argparse.ArgumentTypeError(f"'{text}' is not a boolean (use true or false)")
