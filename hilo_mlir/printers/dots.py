"""The ``dot`` handler (format section 9).

``dot`` prints as ``DotGeneralOp`` with the dimension numbers it implies
(lhs contracting ``[rank - 1]``, rhs contracting ``[0]``, no batch), so a
consumer sees one matmul form; ``dot_general`` is an ordinary statement.
"""

from __future__ import annotations

from .attr_text import dict_call


def print_dot(p, rec) -> None:
    """``dot`` -> ``DotGeneralOp`` with explicit ``dot_dimension_numbers``."""
    from ..ir import ir

    lhs_rank = ir.RankedTensorType(rec.op.operands[0].type).rank
    dims = dict_call(lhs_batching_dimensions=[], rhs_batching_dimensions=[],
                     lhs_contracting_dimensions=[lhs_rank - 1], rhs_contracting_dimensions=[0])
    p.statement(rec, "DotGeneralOp", [("dot_dimension_numbers", dims)] + p.attr_items(rec))
