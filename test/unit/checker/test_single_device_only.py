"""hilo-check refuses a module that declares more than one device, before XLA or the compile runs."""

from __future__ import annotations

import pytest

from hilo_mlir.checker.core import check_data
from hilo_mlir.checker.errors import CheckError

_MODULE = """
module @m attributes {{{attrs}}} {{
  func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {{
    %0 = stablehlo.add %a, %a : tensor<4xf32>
    return %0 : tensor<4xf32>
  }}
}}
"""


@pytest.mark.parametrize(
    "attrs, devices, declared",
    [
        ("mhlo.num_partitions = 4 : i64", 4, "mhlo.num_partitions = 4"),
        ("mhlo.num_replicas = 2 : i32", 2, "mhlo.num_replicas = 2"),
        ("mhlo.num_replicas = 2 : i64, mhlo.num_partitions = 3 : i64", 6, "mhlo.num_replicas = 2, mhlo.num_partitions = 3"),
    ],
)
def test_multi_device_module_is_refused(tmp_path, attrs, devices, declared):
    with pytest.raises(CheckError) as e:
        check_data(_MODULE.format(attrs=attrs), "m.mlir", out_dir=str(tmp_path / "out"))
    assert e.value.message == (
        f"only single-device programs can be checked; this module runs on {devices} devices ({declared}): "
        f"compile it with hilo2penguin and run penguin.py with 'hilo-penguin-run --devices {devices}'"
    )
    assert not (tmp_path / "out").exists()


def test_one_declared_device_is_checked():
    result = check_data(_MODULE.format(attrs="mhlo.num_replicas = 1 : i64, mhlo.num_partitions = 1 : i64"), "m.mlir")
    assert result.ok and len(result.outputs) == 1
