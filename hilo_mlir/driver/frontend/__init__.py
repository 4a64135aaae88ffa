"""The driver's stages before the spine, one idea per module.

* :mod:`.loading` -- bytes in, a parsed :class:`~.loading.LoadedModule` out
  (MLIR text or bytecode, a serialized ``HloModuleProto``), and what dialect
  it is written in;
* :mod:`.validation` -- refuse, before any rewrite, what the spine cannot
  compile (entry function, terminators, shape-computing ops, value types);
* :mod:`.sharding` -- drop sharding annotations (the program is single-device).

:mod:`hilo_mlir.driver.compiler` runs them in that order, then the stablehlo -> mhlo
bridge and the spine.
"""
