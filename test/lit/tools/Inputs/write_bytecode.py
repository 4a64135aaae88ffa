"""Write an MLIR text file as MLIR bytecode (test helper): write_bytecode.py IN OUT."""
import sys

from hilo_mlir.ir.binding import ir, make_context

with make_context():
    module = ir.Module.parse(open(sys.argv[1]).read())
    with open(sys.argv[2], "wb") as f:
        module.operation.write_bytecode(f)
