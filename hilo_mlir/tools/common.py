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
    sys.exit(code)


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
