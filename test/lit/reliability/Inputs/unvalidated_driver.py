"""Test fixture: ``hilo2penguin`` with the driver's input checks (validation, printability) switched off.

Lets a module the validator refuses (``mhlo.dynamic_conv``) reach the upstream
pass that aborts the process on it, so the crash isolation of batch mode can
be tested with a real LLVM abort. Usage: ``unvalidated_driver.py ARGS...`` (the arguments of hilo2penguin).
"""

from hilo_mlir.passes.importing import stages
from hilo_mlir.tools.hilo2penguin import main

stages.validate_input = lambda *args, **kwargs: None  # forked workers inherit the patch
stages.check_printable = lambda *args, **kwargs: None
main()
