"""``Rewriter.move_all_before(ops, anchor, within=op)``: the ops' top-level op is found once for the batch
(the caller says every op is in ``op``'s top-level op, and none is given twice: the fusion codegen's
members); the checking mode finds it per op, checks the promise and refuses a wrong one before anything moves."""

import pytest

from hilo_mlir.analysis.census import Census
from hilo_mlir.analysis.manager import AnalysisManager
from hilo_mlir.ir.binding import identity_key, ir, make_context
from hilo_mlir.rewrite.rewriter import Change, Listener, Rewriter

MODULE = """
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  %1 = stablehlo.multiply %0, %a : tensor<2xf32>
  %2 = stablehlo.add %1, %a : tensor<2xf32>
  return %2 : tensor<2xf32>
}
func.func private @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.sqrt %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


class _Heard(Listener):
    def __init__(self):
        self.heard = []

    def notify_moved_all(self, ops, olds, new):
        self.heard.append(([o.name for o in ops], list(olds), new))


def _ops(f):
    return [o.operation for o in f.regions[0].blocks[0].operations]


def test_within_moves_into_another_function_with_one_lookup():
    with make_context():
        m = ir.Module.parse(MODULE)
        main, g = [o.operation for o in m.body.operations]
        add0, mul, add2, ret = _ops(main)
        sqrt, gret = _ops(g)
        rw = Rewriter(m.operation)
        rw.check_erasures = False  # the fast path, whatever the environment
        am = AnalysisManager(m.operation, rw)
        census = am.census()
        heard = _Heard()
        rw.add_listener(heard)
        rw.move_all_before([add0, mul], gret, within=add2)
        assert [o.name for o in _ops(g)] == ["stablehlo.sqrt", "stablehlo.add", "stablehlo.multiply", "func.return"]
        assert [o.name for o in _ops(main)] == ["stablehlo.add", "func.return"]
        km, kg = identity_key(main), identity_key(g)
        assert heard.heard == [(["stablehlo.add", "stablehlo.multiply"], [km, km], kg)]
        changes, tops = rw.take_changes()
        assert changes == Change.MOVE and tops == {km: Change.MOVE, kg: Change.MOVE}
        assert census.counts["stablehlo.add"] == 2 and census.names_in(g) >= {"stablehlo.add", "stablehlo.multiply"}
        assert "stablehlo.multiply" not in census.names_in(main)
        assert census.differences(Census(m.operation)) == []  # the batched loss from main's lists is exact


def test_the_checking_mode_refuses_an_op_outside_within_or_given_twice():
    with make_context():
        m = ir.Module.parse(MODULE)
        main, g = [o.operation for o in m.body.operations]
        add0, mul, add2, ret = _ops(main)
        sqrt, gret = _ops(g)
        rw = Rewriter(m.operation)
        rw.check_erasures = True
        with pytest.raises(ValueError, match=r"'stablehlo.sqrt' .* is not in the top-level op of 'within'"):
            rw.move_all_before([add0, sqrt], ret, within=add2)  # deliberately wrong: sqrt is in @g
        with pytest.raises(ValueError, match="an op is given twice"):
            rw.move_all_before([add0, add0], ret, within=add2)  # deliberately wrong: not distinct
        assert rw.actions == 0
        assert [o.name for o in _ops(g)] == ["stablehlo.sqrt", "func.return"]  # nothing moved
