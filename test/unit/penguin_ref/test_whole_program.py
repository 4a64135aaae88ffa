"""penguin_ref refuses a penguin.py that computes values but marks no output (a file cut at a line boundary)."""

from __future__ import annotations

import numpy as np
import pytest

from hilo_mlir import penguin_ref
from hilo_mlir.penguin_ref.records import PenguinRefError

HEADER = """import neuronxcc.starfish.penguin as m0
import neuronxcc.starfish.penguin.ir as m1

v0 = m0.Function(id_=0, batch_ids=[], attrs=('model-type=generic',))
input_0 = m1.Tensor(name='input_0', spec=m1.TensorSpec(shape=(4,), dtype='float32')).markInput(v0, index=0, is_parameter_tensor=False)
"""
BODY = "v1 = m1.AddOp(srcs=[input_0, input_0], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], xla_op='mhlo.add')\n"
TAIL = "v0.markOutput(v1, index=0, name='output_0', is_slow_changing=False)\n"


def test_whole_program_runs():
    (out,) = penguin_ref.run(HEADER + BODY + TAIL, [np.arange(4, dtype=np.float32)])
    assert out.tolist() == [0.0, 2.0, 4.0, 6.0]


def test_program_cut_before_its_outputs_is_refused():
    with pytest.raises(PenguinRefError) as e:
        penguin_ref.run(HEADER + BODY, [np.arange(4, dtype=np.float32)])
    assert e.value.message == (
        "penguin_ref: penguin.py holds 1 operations but marks no output (no markOutput call): the file is truncated or not a whole program"
    )


def test_program_without_operations_or_outputs_still_loads():
    # a module whose main returns nothing prints only its inputs: nothing is missing
    assert penguin_ref.run(HEADER, [np.arange(4, dtype=np.float32)]) == []


@pytest.mark.parametrize("text", ["", "# just a comment\n", "import neuronxcc.starfish.penguin as m0\n"])
def test_a_file_without_a_function_is_refused(text):
    # every printed program opens with its Function: an empty or comment-only file would run and write nothing
    with pytest.raises(PenguinRefError) as e:
        penguin_ref.run(text, [])
    assert e.value.message == "penguin_ref: penguin.py declares no Function: it is not a program hilo2penguin wrote"


def test_a_file_that_is_not_utf8_is_one_error(tmp_path):
    p = tmp_path / "garbage.pb"
    p.write_bytes(b"\n\xb4\x01garbage")
    with pytest.raises(PenguinRefError) as e:
        penguin_ref.load(str(p))
    assert e.value.message == f"penguin_ref: {p} is not UTF-8 text (byte 0xb4 at offset 1): not a program hilo2penguin wrote"
