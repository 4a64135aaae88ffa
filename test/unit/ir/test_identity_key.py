"""identity_key: the direct read of a capsule's pointer agrees with PyCapsule_GetPointer (hilo_mlir/ir/__init__.py)."""

import os
import subprocess
import sys

import pytest
from conftest import ROOT

from hilo_mlir.ir import binding as hir
from hilo_mlir.ir.binding import capsule_pointer_checked, identity_key, ir, make_context

SRC = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}"""


def _objects(m):
    f = m.body.operations[0].operation
    blk = f.regions[0].blocks[0]
    add = blk.operations[0].operation
    return [
        m.operation,
        f,
        add,
        add.location,
        add.result.type,
        add.result,
        blk,
        blk.arguments[0],
        f.attributes["sym_name"],
        f.attributes["function_type"],
    ]


def test_every_kind_of_object_has_the_pointer_the_capsule_api_gives():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SRC)
        objs = _objects(m)
        keys = [identity_key(o) for o in objs]
        assert keys == [capsule_pointer_checked(o._CAPIPtr) for o in objs]
        # a fresh wrapper of the same object: the same key; distinct objects: distinct keys
        assert identity_key(m.body.operations[0]) == keys[1]
        assert len({keys[i] for i in (0, 1, 2, 6)}) == 4


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="the direct read is CPython's layout")
def test_the_direct_read_is_the_one_in_use_on_cpython_and_checked_in_the_checking_mode():
    assert hir._OFFSET == object.__basicsize__
    code = "import hilo_mlir.ir.binding as h; print(h.identity_key.__name__)"
    out = {}
    for mode in ("0", "1"):
        env = dict(os.environ, PYTHONPATH=str(ROOT), HILO_MLIR_CHECK_ANALYSES=mode)
        out[mode] = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout.strip()
    assert out == {"0": "identity_key", "1": "_identity_key_checked"}


def test_the_checked_key_refuses_a_direct_read_that_disagrees(monkeypatch):
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SRC)
        op = m.body.operations[0].operation
        assert hir._identity_key_checked(op) == identity_key(op)
        monkeypatch.setattr(hir, "_OFFSET", hir._OFFSET + 8)  # reads the capsule's name pointer instead
        with pytest.raises(AssertionError, match="disagrees"):
            hir._identity_key_checked(op)
