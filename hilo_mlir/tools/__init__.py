"""The command-line tools (``hilo2penguin``, ``hilo-opt``, ``hilo-penguin-run``).

When ``hilo2penguin`` or ``hilo-opt`` is starting (``python -m
hilo_mlir.tools.<tool>`` or its console script), SIGINT and SIGTERM are
deferred from here on until the tool is ready to handle them
(:mod:`hilo_mlir.support.signals`): a Ctrl-C during the binding's imports can
otherwise crash the interpreter. Importing this package from other programs
(tests, notebooks) changes nothing.
"""

import os as _os
import sys as _sys


def _starting_tool() -> bool:
    argv = list(getattr(_sys, "orig_argv", ()) or ())
    if "-m" in argv[:-1]:
        return argv[argv.index("-m") + 1] in ("hilo_mlir.tools.hilo2penguin", "hilo_mlir.tools.opt")
    return bool(_sys.argv) and _os.path.basename(_sys.argv[0]) in ("hilo2penguin", "hilo-opt")


if _starting_tool():
    from hilo_mlir.support import signals as _signals

    _signals.defer()
