"""FusionCluster keeps what it read of its members for the codegen's EntryBlock hand-over:
each member's own operands (``operand_keys``, their ``hash``) and results (``member_results``,
``member_result_keys``), in member order, on the general path and on the sealed one."""

import pytest
from test_sealed_cluster import CHAIN, _chain  # the MulRedSqrt chain: multiply, reduce (a body inside), multiply, add, rsqrt

from hilo_mlir.fusion import FusionCluster
from hilo_mlir.ir.binding import ir, make_context


@pytest.mark.parametrize("sealed", [False, True])
def test_member_reads_are_exact(sealed):
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(CHAIN)
        _, members = _chain(m)
        shuffled = members if sealed else list(reversed(members))  # the general path sorts them
        c = FusionCluster(shuffled, "MulRedSqrt", one_block=True, sealed=sealed, check=False)
        assert [o.name for o in c.members] == [o.name for o in members]
        assert c.operand_keys == [[hash(v) for v in o.operands] for o in members]
        assert [[hash(r) for r in rs] for rs in c.member_results] == [[hash(r) for r in o.results] for o in members]
        assert c.member_result_keys == [[hash(r) for r in o.results] for o in members]
        # the reduce's own operands only: its body's ops are not among them
        assert len(c.operand_keys[1]) == 2
