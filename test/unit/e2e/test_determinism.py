"""Determinism (issue 6): byte-identical output across runs, processes, hash seeds and --jobs values."""

import hashlib
import os
import pathlib
import subprocess
import sys

import pytest
from conftest import EXAMPLES, ROOT

from hilo_mlir.driver import compiler
from hilo_mlir.driver.config import CompileConfig

INPUTS = ROOT / "test" / "lit" / "reliability" / "Inputs"
CASES = [EXAMPLES / "decoder_layer.stablehlo.mlir", INPUTS / "side-effects.mlir", INPUTS / "barrier-mixed.mlir"]


def _cfg(spine, preset):
    return CompileConfig.preset(preset).replace(stablehlo=spine == "stablehlo")


@pytest.mark.parametrize("preset", ["default", "all"])
@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
def test_compile_twice_in_one_process_is_identical(spine, preset):
    for path in CASES:
        a = compiler.compile_file(path, _cfg(spine, preset))
        b = compiler.compile_file(path, _cfg(spine, preset))
        assert str(a) == str(b), path
        assert a.files == b.files


def _tree(folder: pathlib.Path) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


def _cli(*args, seed="0"):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED=seed)
    r = subprocess.run([sys.executable, "-m", "hilo_mlir.tools.hilo2penguin", *args], capture_output=True, text=True, env=env, cwd=ROOT)
    return r


def test_identical_across_processes_and_hash_seeds(tmp_path):
    trees = []
    for i, seed in enumerate(["0", "1", "12345"]):
        out = tmp_path / f"o{i}"
        r = _cli(str(EXAMPLES / "decoder_layer.stablehlo.mlir"), "-o", str(out), "--preset", "all", "--spine", "stablehlo", seed=seed)
        assert r.returncode == 0, r.stderr
        trees.append(_tree(out))
    assert trees[0] == trees[1] == trees[2]
    assert "penguin.py" in trees[0]


def test_batch_identical_across_jobs_values(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    for p in CASES + [EXAMPLES / "decoder_layer.hlo.pb", INPUTS / "token.mlir", INPUTS / "syntax-error.mlir"]:
        (src / p.name).write_bytes(p.read_bytes())
    trees, reports = [], []
    for jobs, seed in (("1", "0"), ("2", "7"), ("4", "99")):
        out = tmp_path / f"out{jobs}"
        rep = tmp_path / f"r{jobs}.json"
        r = _cli("--batch", str(src), "-o", str(out), "--jobs", jobs, "--report", str(rep), seed=seed)
        assert r.returncode == 0, r.stdout + r.stderr
        trees.append(_tree(out))
        import json

        doc = json.loads(rep.read_text())
        reports.append([(m["path"], m["status"], m["diagnostic"], m["last_pass"]) for m in doc["modules"]])
    assert trees[0] == trees[1] == trees[2]
    assert reports[0] == reports[1] == reports[2]
    assert len(trees[0]) >= 5
