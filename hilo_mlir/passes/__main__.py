"""``python3 -m hilo_mlir.passes``: rewrite ``hilo_mlir/passes/manifest.json`` from the registered built-in passes.

Run after adding or changing a pass; ``test/unit/passmanager/test_pass_manifest.py`` fails while it is stale.
"""

from hilo_mlir import passes
from hilo_mlir.passmanager import registry

passes.write_manifest()
print(f"wrote {registry.MANIFEST}")
