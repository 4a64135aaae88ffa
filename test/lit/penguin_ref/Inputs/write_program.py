"""Write a small hand-made penguin.py for the penguin_ref lit tests: write_program.py PATH KIND."""
import os
import sys

HEAD = """import neuronxcc.starfish.penguin as m0
import neuronxcc.starfish.penguin.ir as m1
import neuronxcc.starfish.penguin.support as m2
function = m0.Function(id_=0, batch_ids=[], attrs=())
input_0 = m1.Tensor(name='x', spec=m1.TensorSpec(shape=(3,), dtype='float32')).markInput(function, index=0, is_parameter_tensor=False)
"""
S = "m1.TensorSpec(shape=(3,), dtype='float32')"
BODIES = {
    "frobnicate": f"\nv0 = m1.FrobnicateOp(srcs=[input_0], dsts=[{S}], xla_op='stablehlo.frobnicate', "
                  "dl=m2.DebugLocation(file='model.py', line=12, col=5, name='jit(f)/frob'))\n"
                  "function.markOutput(v0, index=0)\n",
    "syntax": "\nv0 = = 1\n",
    "npyfile": f"\nv0 = m1.ConstantOp(srcs=[], dsts=[{S}], value=m1.NpyFile('const_0.npy'), xla_op='mhlo.constant', "
               "dl=m2.DebugLocation(file='model.py', line=3, col=1, name=''))\nfunction.markOutput(v0, index=0)\n",
}
path, kind = sys.argv[1], sys.argv[2]
os.makedirs(os.path.dirname(path), exist_ok=True)
with open(path, "w") as f:
    f.write(HEAD + BODIES[kind])
