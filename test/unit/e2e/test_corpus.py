"""The third-party corpus through both spines x (defaults, --preset all) (issue 6 "The corpus").

The full run (``scripts/run_corpus.py``, ~13,000 compiles) is behind the
``slow`` marker; the default suite runs the same script on the first
modules of each folder.
"""

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, corpus_path

SCRIPT = ROOT / "scripts" / "run_corpus.py"


def _run(tmp_path, *extra):
    corpus = corpus_path("third_party")
    out_json = tmp_path / "all.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run(
        [sys.executable, str(SCRIPT), "--corpus", str(corpus), "--jobs", "2", "--json", str(out_json), *extra],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=3600,
    )
    return r, json.loads(out_json.read_text()) if out_json.exists() else None


def _check(r, doc, expected_configs):
    assert "Traceback" not in r.stdout + r.stderr
    assert sorted(doc) == sorted(expected_configs)
    problems = []
    for conf, per in doc.items():
        for _folder, rows in per.items():
            for m in rows:
                if m["status"] in ("crashed", "timeout") and m["last_pass"] not in KNOWN_UPSTREAM_CRASHES:
                    problems.append((conf, m["path"], m["status"], m["last_pass"], m["diagnostic"]))
                if m["status"] == "rejected":
                    assert "\n" not in m["diagnostic"] and "error: " in m["diagnostic"], m
                    if "verifier failed after pass" in m["diagnostic"]:
                        problems.append((conf, m["path"], "verifier", m["last_pass"], m["diagnostic"]))
    return problems


#: Upstream C++ passes known to abort on some corpus modules (README known issues).
KNOWN_UPSTREAM_CRASHES = {"hlo-legalize-to-stablehlo", "stablehlo-legalize-to-hlo", "canonicalize"}


def test_corpus_quick_sample(tmp_path):
    r, doc = _run(tmp_path, "--limit", "8", "--configs", "mhlo:default,stablehlo:all")
    assert doc is not None, r.stderr
    assert "config" in r.stdout and "rejected by reason" in r.stdout
    assert sum(len(rows) for per in doc.values() for rows in per.values()) == 2 * 4 * 8
    assert _check(r, doc, ["mhlo:default", "stablehlo:all"]) == []


@pytest.mark.slow
def test_corpus_full(tmp_path):
    r, doc = _run(tmp_path, "--timeout", "300")
    assert doc is not None, r.stderr
    print(r.stdout)
    assert _check(r, doc, ["mhlo:default", "mhlo:all", "stablehlo:default", "stablehlo:all"]) == []


def _script():
    import importlib.util

    spec = importlib.util.spec_from_file_location("run_corpus", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_rename_entry_harness_transformation():
    rc = _script()
    one = "func.func @foo(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32>\n}\n"
    assert rc.rename_entry(one) == one.replace("@foo", "@main")
    assert rc.rename_entry(one.replace("@foo", "@main")) is None
    two = one + one.replace("@foo", "@bar")
    assert rc.rename_entry(two) is None
    # only whole symbol names are renamed
    assert rc.rename_entry(one + "// @foo.bar @food\n").endswith("// @foo.bar @food\n")


def test_classify_reasons():
    rc = _script()
    assert rc.classify("a.mlir:1:1: error: 'func.func' op @main argument #0 has dynamic shape tensor<?xf32>: ...") == "dynamic shape"
    assert rc.classify("a.mlir:1:1: error: verifier failed after pass 'cse': x") == "verifier failure after one of our passes"
    assert rc.classify("a.mlir:3:3: error: unsupported custom_call target 'foo'") == "printer: unsupported op / custom call"
    assert rc.classify("a.mlir:3:3: error: something new about @f and 'x.y' 12") == "other: something new about @… and '…' N"
