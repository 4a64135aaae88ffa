"""Multi-device programs end to end: JAX on N CPU devices -> per-device module -> penguin.py -> N simulated devices.

The programs and their inputs come from ``scripts/multidevice_programs.py``, run
in a subprocess per device count (``XLA_FLAGS=--xla_force_host_platform_device_count=N``
must be set before jax is imported): a tensor-parallel MLP, a data-parallel
step, an FSDP step, a ``ppermute`` ring and an MoE ``all_to_all`` dispatch,
each a ``shard_map`` inside ``jax.jit``. Each is compiled from XLA's
post-SPMD-partitioning HLO dump (route a) and from its ``jax.export`` (route
b), on both spines, with the defaults and ``--preset all``, and run by the
reference backend on N devices; every device's outputs equal JAX's within
``|d| <= 1e-5 + 1e-5 * |ref|`` (measured worst: 3e-7).

The default suite runs N = 2, every program once (both routes and the four
spine/preset combinations among them); the whole matrix (N = 2, 4, 8, both
routes, both spines, both presets: 120 runs) is ``@pytest.mark.slow``.
``--mlir-pass-statistics`` must show a ScheduleFusion pair on the FSDP step and
collectives coalesced on the data-parallel step.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
GENERATOR = os.path.join(ROOT, "scripts", "multidevice_programs.py")
PROGRAMS = ("tp_mlp", "dp_step", "fsdp_step", "ring", "moe_a2a")
ROUTES = {"spmd_hlo": "{}.spmd.hlo.txt", "shard_map": "{}.shard_map.mlir"}
ATOL = RTOL = 1e-5

_generated: dict = {}


def generated(n: int, tmp_path_factory) -> str:
    """The folder with every program generated for ``n`` devices (one generator subprocess per ``n``, cached)."""
    if n not in _generated:
        pytest.importorskip("jax")
        out = str(tmp_path_factory.mktemp(f"multidevice{n}"))
        env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
        r = subprocess.run(
            [sys.executable, GENERATOR, "--devices", str(n), "--out", out], capture_output=True, text=True, env=env, timeout=600
        )
        assert r.returncode == 0, r.stderr[-3000:]
        _generated[n] = out
    return _generated[n]


def check(folder: str, name: str, route: str, n: int, spine: str, preset: str) -> None:
    """Compile ``name`` from ``route``, run it on ``n`` devices, compare every device's outputs with JAX's."""
    from hilo_mlir import CompileConfig, compile_file, penguin_ref

    data = np.load(os.path.join(folder, f"{name}.npz"))
    n_in = sum(1 for k in data.files if k.startswith("in"))
    n_out = sum(1 for k in data.files if k.startswith("ref"))
    src = compile_file(os.path.join(folder, ROUTES[route].format(name)), config=CompileConfig.preset(preset), spine=spine)
    inputs = [[data[f"in{i}"][d] for i in range(n_in)] for d in range(n)]
    outs = penguin_ref.run(src, inputs, files=getattr(src, "files", None), devices=n)
    for d in range(n):
        assert len(outs[d]) == n_out
        for i in range(n_out):
            got = np.asarray(outs[d][i], np.float64)
            ref = data[f"ref{i}"][d].astype(np.float64)
            assert got.shape == ref.shape, f"{name} device {d} output {i}: shape {got.shape} != {ref.shape}"
            err = np.abs(got - ref) - (ATOL + RTOL * np.abs(ref))
            assert err.max(initial=-1) <= 0, f"{name} ({route}, {spine}, {preset}) device {d} output {i}: max |d| {np.abs(got - ref).max()}"


# the default slice: N = 2; every program once, both routes, the four spine/preset combinations
SLICE = [
    ("tp_mlp", "spmd_hlo", "stablehlo", "default"),
    ("dp_step", "spmd_hlo", "mhlo", "all"),
    ("fsdp_step", "shard_map", "stablehlo", "all"),
    ("ring", "shard_map", "mhlo", "default"),
    ("moe_a2a", "spmd_hlo", "stablehlo", "default"),
]


@pytest.mark.parametrize("name,route,spine,preset", SLICE)
def test_two_devices_equal_jax(name, route, spine, preset, tmp_path_factory):
    check(generated(2, tmp_path_factory), name, route, 2, spine, preset)


def _statistics(path: str, spine: str) -> str:
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run(
        [sys.executable, "-m", "hilo_mlir.tools.hilo2penguin", path, "-o", path + ".out"]
        + ["--spine", spine, "--preset", "all", "--mlir-pass-statistics"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stderr


def _stat(text: str, pass_name: str, stat: str) -> int:
    """The value of statistic ``stat`` of the pass whose class name ends with ``pass_name``."""
    m = re.search(rf"^\S*{pass_name}\n((?:  .*\n)*)", text, re.M)
    assert m, f"no statistics for {pass_name}:\n{text}"
    s = re.search(rf"^  \({re.escape(stat)}\) (\d+)$", m.group(1), re.M)
    assert s, f"{pass_name} has no statistic {stat}:\n{m.group(0)}"
    return int(s.group(1))


@pytest.mark.parametrize("route,spine", [("spmd_hlo", "stablehlo"), ("shard_map", "mhlo")])
def test_statistics_show_schedule_fusion_on_fsdp_and_coalescing_on_data_parallel(route, spine, tmp_path_factory):
    folder = generated(2, tmp_path_factory)
    fsdp = _statistics(os.path.join(folder, ROUTES[route].format("fsdp_step")), spine)
    assert _stat(fsdp, "ScheduleFusion", "fused-pairs") >= 1
    dp = _statistics(os.path.join(folder, ROUTES[route].format("dp_step")), spine)
    # 5 all_reduces (4 gradients, the loss) with one key: all but the first join its window
    assert _stat(dp, "CoalesceCollectiveOps", "collectives-moved") == 4


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 4, 8])
@pytest.mark.parametrize("route", list(ROUTES))
@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
@pytest.mark.parametrize("preset", ["default", "all"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_matrix_equals_jax(name, preset, spine, route, n, tmp_path_factory):
    check(generated(n, tmp_path_factory), name, route, n, spine, preset)
