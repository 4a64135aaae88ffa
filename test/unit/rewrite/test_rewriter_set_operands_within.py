"""``Rewriter.set_operands(updates, within=op)``: the top-level op is found once for the batch (the caller
says every op is in ``op``'s top-level op); the checking mode finds it per op and refuses a wrong one
before any operand is set."""

import pytest

from hilo_mlir.ir.binding import identity_key, ir, make_context
from hilo_mlir.rewrite.rewriter import Change, Listener, Rewriter

MODULE = """
func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  %1 = stablehlo.multiply %0, %a : tensor<2xf32>
  return %1 : tensor<2xf32>
}
func.func private @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.sqrt %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


class _Heard(Listener):
    def __init__(self):
        self.heard = []

    def notify_operands_changed(self, ops, top):
        self.heard.append(([o.name for o in ops], top))


def _ops(f):
    return [o.operation for o in f.regions[0].blocks[0].operations]


def test_within_records_one_change_of_the_top_level_op():
    with make_context():
        m = ir.Module.parse(MODULE)
        main, g = [o.operation for o in m.body.operations]
        add, mul, ret = _ops(main)
        b = main.regions[0].blocks[0].arguments[1]
        rw = Rewriter(m.operation)
        rw.check_erasures = False  # the fast path, whatever the environment
        heard = _Heard()
        rw.add_listener(heard)
        rw.set_operands([(add, 1, b), (mul, 1, b)], within=add)
        assert str(add.operands[1].get_name()) == "%arg1" and str(mul.operands[1].get_name()) == "%arg1"
        assert heard.heard == [(["stablehlo.add", "stablehlo.multiply"], identity_key(main))]
        changes, tops = rw.take_changes()
        assert changes == Change.OPERAND and tops == {identity_key(main): Change.OPERAND}


def test_the_checking_mode_refuses_an_op_outside_within():
    with make_context():
        m = ir.Module.parse(MODULE)
        main, g = [o.operation for o in m.body.operations]
        add, mul, ret = _ops(main)
        sqrt, gret = _ops(g)
        x = g.regions[0].blocks[0].arguments[0]
        a = main.regions[0].blocks[0].arguments[0]
        rw = Rewriter(m.operation)
        rw.check_erasures = True
        with pytest.raises(ValueError, match=r"'func.return' .* is not in the top-level op of 'within'"):
            rw.set_operands([(add, 1, a), (gret, 0, x)], within=add)  # deliberately wrong: gret is in @g
        assert rw.actions == 0
        assert str(gret.operands[0].owner.name) == "stablehlo.sqrt"  # nothing was set
