"""Test fixture: ``hilo2penguin`` whose publishing step is slowed down or killed at a chosen rename.

Usage: ``patched_writer.py MODE SECONDS ARGS...`` (ARGS: those of hilo2penguin).

* ``sleep``: sleep SECONDS before the rename that publishes ``penguin.py``
  (a slow writer, to force two writers to overlap);
* ``kill``: after SECONDS, SIGKILL the tool and its worker right before that
  rename (they die with the new constants already in place);
* ``kill-early``: the same, before the first constant's rename.

The forked worker inherits the patch.
"""

import os
import signal
import sys
import time
import types

from hilo_mlir.support import packaging

mode, seconds = sys.argv[1], float(sys.argv[2])
del sys.argv[1:3]
_real = os.replace
_first = [True]


def _replace(src, dst):
    last = os.path.basename(dst) == "penguin.py"
    if mode == "sleep" and last:
        time.sleep(seconds)
    elif (mode == "kill" and last) or (mode == "kill-early" and _first[0]):
        time.sleep(seconds)
        os.kill(os.getppid(), signal.SIGKILL)  # the tool (this is its forked worker) ...
        os.kill(os.getpid(), signal.SIGKILL)  # ... and the worker
    _first[0] = False
    return _real(src, dst)


# packaging's own view of ``os`` only (a copy of the module's namespace with ``replace`` patched)
packaging.os = types.SimpleNamespace(**{k: getattr(os, k) for k in dir(os) if not k.startswith("__")})
packaging.os.replace = _replace

from hilo_mlir.tools.hilo2penguin import main  # noqa: E402

main()
