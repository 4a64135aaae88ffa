"""numpy implementations of the Penguin statements (one function per MLIR op).

Dispatch (:mod:`.dispatch`) is on the statement's ``xla_op``
(``'mhlo.add'`` / ``'stablehlo.add'`` -> ``add``); statements without
``xla_op`` fall back to their Python op name. Semantics follow the StableHLO
specification (the same as ``hilo_mlir.testing.evaluate``), with the
arithmetic conventions of :mod:`.numeric`: floats narrower than f32 are
computed in f32 and rounded once per op, f32 in f64 and rounded once, as XLA
CPU does per op (bit-identical to XLA on random bf16 inputs for
exp/tanh/logistic/rsqrt); dot/convolution/reduce accumulate wide.

The modules, one family each: :mod:`.elementwise`, :mod:`.shape`,
:mod:`.reductions`, :mod:`.dot_conv`, :mod:`.indexing`, :mod:`.control`,
:mod:`.custom_calls`, :mod:`.collectives` (N devices). Importing this package registers all of them.
"""

from hilo_mlir.penguin_ref.ops import collectives, control, custom_calls, dot_conv, elementwise, indexing, reductions, shape  # noqa: F401 - registration
from hilo_mlir.penguin_ref.ops.call import OpCall
from hilo_mlir.penguin_ref.ops.dispatch import CUSTOM_CALLS, IMPLS, is_header, is_summary, lookup, op_key
from hilo_mlir.penguin_ref.ops.dot_conv import dot_general
from hilo_mlir.penguin_ref.ops.elementwise import compare
from hilo_mlir.penguin_ref.ops.numeric import cast, widen
from hilo_mlir.penguin_ref.ops.shape import pad

__all__ = [
    "CUSTOM_CALLS",
    "IMPLS",
    "OpCall",
    "cast",
    "compare",
    "dot_general",
    "is_header",
    "is_summary",
    "lookup",
    "op_key",
    "pad",
    "widen",
]
