"""How many devices a program runs on is known before any device thread starts.

HLO text declares it in its header (XLA prints ``replica_count=`` / ``num_partitions=`` only when not
1); a program that declares nothing is held to what its collectives' replica groups cover.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from hilo_mlir import compile_file, penguin_ref
from hilo_mlir.driver.frontend.hlo import header_device_counts
from hilo_mlir.penguin_ref.records import PenguinRefError

HERE = os.path.dirname(os.path.abspath(__file__))
SHARDED = os.path.join(HERE, "..", "..", "lit", "importing", "Inputs", "sharded.after_spmd-partitioning.txt")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "HloModule jit_f, entry_computation_layout={(f32[4]{0})->f32[4]{0}}, num_partitions=4\n\nENTRY e {}",
            {"mhlo.num_replicas": 1, "mhlo.num_partitions": 4},
        ),
        ("HloModule m, replica_count=2, num_partitions=8\n", {"mhlo.num_replicas": 2, "mhlo.num_partitions": 8}),
        ("HloModule jit_g, entry_computation_layout={()->f32[]}\n", {"mhlo.num_replicas": 1, "mhlo.num_partitions": 1}),
        ("ENTRY e {}\n", {}),
        (None, {}),
    ],
)
def test_header_counts(text, expected):
    assert header_device_counts(text) == expected


@pytest.fixture(scope="module")
def sharded_program():
    return compile_file(SHARDED)


def test_hlo_text_header_is_declared_in_the_program(sharded_program):
    assert "'num-partitions=2', 'num-replicas=1')" in sharded_program


def _inputs(devices):
    return [[np.ones((4, 16), np.float32), np.ones((16, 4), np.float32)] for _ in range(devices)]


def test_declared_device_count_is_enforced_up_front(sharded_program):
    outs = penguin_ref.run(sharded_program, _inputs(2), devices=2)
    # per device: tanh(x @ w) = tanh(16) = 1.0 in f32, summed over 4 rows, then all-reduced over 2 devices
    assert [o[0].tolist() for o in outs] == [[8.0] * 4, [8.0] * 4]
    with pytest.raises(PenguinRefError) as e:
        penguin_ref.run(sharded_program, _inputs(3), devices=3)
    assert e.value.message == (
        "penguin_ref: the program is compiled for num-replicas=1 x num-partitions=2 devices, but 3 device(s) were asked for"
    )


def test_undeclared_program_is_held_to_its_replica_groups(sharded_program):
    undeclared = sharded_program.replace(", 'num-partitions=2', 'num-replicas=1'", "")
    assert "num-partitions" not in undeclared
    with pytest.raises(PenguinRefError) as e:
        penguin_ref.run(undeclared, [None] * 100_000, devices=100_000)
    assert e.value.message == (
        "penguin_ref: the program's collectives group 2 devices (it declares no num-replicas/num-partitions), "
        "but 100000 device(s) were asked for"
    )
