"""Moved to :mod:`hilo_mlir.support.packaging` (below the passes: the ``-o`` of the penguin.py printer
passes publishes through it too). This old name is the same module object, so that code importing or
patching ``hilo_mlir.driver.packaging`` keeps working."""

import sys

from hilo_mlir.support import packaging as _packaging

sys.modules[__name__] = _packaging
