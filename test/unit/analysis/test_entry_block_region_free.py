""":func:`~hilo_mlir.analysis.entry_block.of_new_function` asks only the op kinds that may have regions
(not in :data:`~hilo_mlir.analysis.census.REGION_FREE`) for their regions; its answer equals a fresh
:class:`EntryBlock`, and a wrong region-free list (a kind with a region taken for one without) is caught
by the comparison the checking mode makes (:meth:`EntryBlock.differences`)."""

from hilo_mlir.analysis import entry_block
from hilo_mlir.analysis.entry_block import EntryBlock, LeafEffects, of_new_function
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.ir.effects import EffectOracle

MODULE = """
func.func private @f(%x: tensor<4x8xf32>, %z: tensor<f32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<4x8xf32>
  %1 = stablehlo.reduce(%0 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = stablehlo.sqrt %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
"""


def _handed_over(fn):
    """``of_new_function`` of ``fn`` from its ops' own operands and results (as the codegen reads them)."""
    ops = [o.operation for o in fn.regions[0].blocks[0].operations]
    results = [list(o.results) for o in ops]
    keys = [[hash(v) for v in o.operands] for o in ops]
    return of_new_function(ops, keys, results, {}, LeafEffects(EffectOracle(fn)))


def test_of_new_function_reads_the_nested_operands_of_a_kind_with_regions():
    with make_context():
        m = ir.Module.parse(MODULE)
        fn = next(iter(m.body.operations)).operation
        info = _handed_over(fn)
        fresh = EntryBlock(fn)
        assert info.differences(fresh) == []
        assert len(info.inputs[1]) == 5  # the reduce's 2 operands, the nested add's 2 and its return's 1
        assert info.nested_blocks == 1 and info.effects == [False, False, False, False]


def test_a_wrong_region_free_kind_is_caught(monkeypatch):
    with make_context():
        m = ir.Module.parse(MODULE)
        fn = next(iter(m.body.operations)).operation
        monkeypatch.setattr(entry_block, "REGION_FREE", entry_block.REGION_FREE | {"stablehlo.reduce"})
        info = _handed_over(fn)  # the reduce's body is not read: its nested operands are missing
        assert info.differences(EntryBlock(fn)) == ["op #1 ('stablehlo.reduce'): inputs differ"]
