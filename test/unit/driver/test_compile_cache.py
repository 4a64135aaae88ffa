"""The persistent compile cache (hilo_mlir.driver.cache): hits publish the same bytes, one compile per key,
corrupt entries are recompiled, the shared tier serves a second cache folder, the checking mode compares."""

import json
import multiprocessing
import os
import sys
import time

import pytest

from hilo_mlir.driver import cache as cache_mod
from hilo_mlir.tools import cache as cache_tool
from hilo_mlir.tools import hilo2penguin

_VALS = ", ".join(f"{i * 0.5:.1f}" for i in range(300))
BIG = f"""func.func @main(%a: tensor<300xf32>) -> tensor<300xf32> {{
  %c = stablehlo.constant dense<[{_VALS}]> : tensor<300xf32>
  %0 = stablehlo.add %a, %c : tensor<300xf32>
  return %0 : tensor<300xf32>
}}
"""
SMALL = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.tanh %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def _files(d):
    return {n: open(os.path.join(d, n), "rb").read() for n in sorted(os.listdir(d))}


def _entry_dirs(root):
    return [e.path for e in cache_mod.entries(str(root))]


@pytest.fixture
def big(tmp_path):
    p = tmp_path / "big.mlir"
    p.write_text(BIG)
    return str(p)


def _run(capfd, *argv):
    code = hilo2penguin.run(list(argv))
    out, err = capfd.readouterr()
    return code, out, err


def test_second_compile_is_a_hit_with_the_same_bytes(big, tmp_path, capfd):
    cdir = tmp_path / "c"
    code, out, err = _run(capfd, big, "-o", str(tmp_path / "o1"), "--cache-dir", str(cdir), "--mlir-timing")
    assert code == 0, err
    assert "Cache lookup (miss)" in err and "Cache store" in err and "MhloToPyPenguin" in err
    [entry] = _entry_dirs(cdir)
    assert os.path.basename(os.path.dirname(entry)) == f"hilo_mlir-{cache_mod.package_version()}"
    assert os.path.basename(entry).startswith("MODULE_") and "+" in os.path.basename(entry)
    assert sorted(os.listdir(entry)) == ["compile_flags.txt", "const_0.npy", "input.mlir", "manifest.json", "penguin.py"]
    flags = open(os.path.join(entry, "compile_flags.txt")).read()
    assert "pipeline builtin.module(hilo-import," in flags and "jaxlib " in flags
    assert open(os.path.join(entry, "input.mlir")).read() == BIG
    t0 = time.perf_counter()
    code, out, err = _run(capfd, big, "-o", str(tmp_path / "o2"), "--cache-dir", str(cdir), "--mlir-timing")
    hit_s = time.perf_counter() - t0
    assert code == 0, err
    assert out == f"wrote {tmp_path / 'o2' / 'penguin.py'}\n"
    assert "Cache lookup (hit)" in err and "Publication" in err and "MhloToPyPenguin" not in err
    first, second = _files(tmp_path / "o1"), _files(tmp_path / "o2")
    assert first == second and len(first) == 2  # penguin.py and its content-named const_0.<hash>.npy
    assert hit_s < 2.0, hit_s  # in-process: the fork, the key, the lookup and the publication


def test_no_cache_and_other_flags_miss(big, tmp_path, capfd):
    cdir = tmp_path / "c"
    assert _run(capfd, big, "-o", str(tmp_path / "o"), "--cache-dir", str(cdir))[0] == 0
    code, _, err = _run(capfd, big, "-o", str(tmp_path / "o"), "--cache-dir", str(cdir), "--no-cache", "--mlir-timing")
    assert code == 0 and "Cache lookup" not in err
    code, _, err = _run(capfd, big, "-o", str(tmp_path / "o"), "--cache-dir", str(cdir), "--preset", "all", "--mlir-timing")
    assert code == 0 and "Cache lookup (miss)" in err  # another pipeline: another key
    assert len(_entry_dirs(cdir)) == 2


def _corrupt_program(entry):
    with open(os.path.join(entry, "penguin.py"), "a") as f:
        f.write("# tampered\n")


@pytest.mark.parametrize("damage", ["program", "npy", "manifest", "partial"])
def test_corrupt_entry_is_discarded_and_recompiled(big, tmp_path, capfd, damage):
    cdir = tmp_path / "c"
    assert _run(capfd, big, "-o", str(tmp_path / "o1"), "--cache-dir", str(cdir))[0] == 0
    [entry] = _entry_dirs(cdir)
    if damage == "program":
        _corrupt_program(entry)
    elif damage == "npy":
        with open(os.path.join(entry, "const_0.npy"), "r+b") as f:
            f.seek(-4, 2)
            f.write(b"\0\0\0\1")
    elif damage == "manifest":
        with open(os.path.join(entry, "manifest.json"), "w") as f:
            f.write("{not json")
    else:
        os.unlink(os.path.join(entry, "manifest.json"))  # a writer that died before the manifest
    code, _, err = _run(capfd, big, "-o", str(tmp_path / "o2"), "--cache-dir", str(cdir), "--mlir-timing")
    assert code == 0, err
    assert "Cache lookup (miss)" in err  # never used
    assert _files(tmp_path / "o1") == _files(tmp_path / "o2")
    [entry2] = _entry_dirs(cdir)
    assert "# tampered" not in open(os.path.join(entry2, "penguin.py")).read()


def _child_compile(path, outdir, cdir, log):
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    sys.stdout = open(1, "w", closefd=False)
    sys.stderr = open(2, "w", closefd=False)
    os._exit(hilo2penguin.run([path, "-o", outdir, "--cache-dir", cdir, "--mlir-timing"]))


def test_eight_concurrent_processes_compile_once(big, tmp_path):
    cdir = str(tmp_path / "c")
    ctx = multiprocessing.get_context("fork")
    procs = []
    for i in range(8):
        p = ctx.Process(target=_child_compile, args=(big, str(tmp_path / f"o{i}"), cdir, str(tmp_path / f"log{i}")))
        p.start()
        procs.append(p)
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0] * 8
    logs = [open(tmp_path / f"log{i}").read() for i in range(8)]
    assert sum("Cache lookup (miss)" in s for s in logs) == 1, logs
    assert sum("Cache lookup (hit)" in s for s in logs) == 7
    outs = [_files(tmp_path / f"o{i}") for i in range(8)]
    assert all(o == outs[0] for o in outs)
    assert len(_entry_dirs(cdir)) == 1


def test_lock_wait_is_bounded(tmp_path):
    c = cache_mod.CompileCache(str(tmp_path / "c"), lock_wait=0.2)
    key = cache_mod.make_key(b"x", "p")
    with c.lock(key) as first:
        assert first.held
        t0 = time.monotonic()
        with c.lock(key) as second:  # another process compiling: give up after the bound, compile ourselves
            assert not second.held
        assert 0.15 <= time.monotonic() - t0 < 2.0
    with c.lock(key) as third:
        assert third.held


def test_shared_tier_serves_a_second_cache_dir(big, tmp_path, capfd, monkeypatch):
    shared = tmp_path / "shared"
    monkeypatch.setenv("HILO_MLIR_CACHE_URL", "file://" + str(shared))
    code, _, err = _run(capfd, big, "-o", str(tmp_path / "o1"), "--cache-dir", str(tmp_path / "node1"), "--mlir-timing")
    assert code == 0 and "Cache lookup (miss)" in err
    assert len(_entry_dirs(shared)) == 1 and len(_entry_dirs(tmp_path / "node1")) == 1  # promoted
    code, _, err = _run(capfd, big, "-o", str(tmp_path / "o2"), "--cache-dir", str(tmp_path / "node2"), "--mlir-timing")
    assert code == 0 and "Cache lookup (hit)" in err
    assert _files(tmp_path / "o1") == _files(tmp_path / "o2")
    [local2] = _entry_dirs(tmp_path / "node2")  # copied into the second node's local tier
    assert _files(local2) == _files(_entry_dirs(shared)[0])
    # a corrupt shared entry is discarded, never used
    _corrupt_program(_entry_dirs(shared)[0])
    code, _, err = _run(capfd, big, "-o", str(tmp_path / "o3"), "--cache-dir", str(tmp_path / "node3"), "--mlir-timing")
    assert code == 0 and "Cache lookup (miss)" in err
    assert "# tampered" not in open(os.path.join(_entry_dirs(shared)[0], "penguin.py")).read()  # re-promoted whole


def test_shared_tier_rejects_other_schemes(monkeypatch):
    monkeypatch.setenv("HILO_MLIR_CACHE_URL", "s3://bucket/x")
    with pytest.raises(cache_mod.HiloError, match="only a folder on a shared file system"):
        cache_mod.shared_from_env()


def test_checking_mode_compares_a_hit_with_a_compile(big, tmp_path, capfd, monkeypatch):
    cdir = tmp_path / "c"
    assert _run(capfd, big, "-o", str(tmp_path / "o1"), "--cache-dir", str(cdir))[0] == 0
    monkeypatch.setenv("HILO_MLIR_CHECK_CACHE", "1")
    code, _, err = _run(capfd, big, "-o", str(tmp_path / "o2"), "--cache-dir", str(cdir), "--mlir-timing")
    assert code == 0 and "Cache check" in err and "MhloToPyPenguin" in err  # compiled and compared
    # an entry that is consistent (hashes match) but wrong: only the checking mode can see it
    [entry] = _entry_dirs(cdir)
    path = os.path.join(entry, "penguin.py")
    text = open(path).read().replace("float32", "float16", 1)
    open(path, "w").write(text)
    manifest = json.load(open(os.path.join(entry, "manifest.json")))
    manifest["files"]["penguin.py"] = cache_mod._sha256(text.encode())
    json.dump(manifest, open(os.path.join(entry, "manifest.json"), "w"))
    code, _, err = _run(capfd, big, "-o", str(tmp_path / "o3"), "--cache-dir", str(cdir))
    assert code == 1
    assert "compile cache check failed: 'penguin.py' of cache entry" in err and entry in err
    assert not (tmp_path / "o3" / "penguin.py").exists()
    monkeypatch.delenv("HILO_MLIR_CHECK_CACHE")
    code, _, _ = _run(capfd, big, "-o", str(tmp_path / "o4"), "--cache-dir", str(cdir))
    assert code == 0 and "float16" in open(tmp_path / "o4" / "penguin.py").read()  # the reason for the checking mode


def test_input_name_is_part_of_the_key(tmp_path, capfd):
    """penguin.py records the input's path in every DebugLocation: the same bytes under another name compile anew."""
    (tmp_path / "a.mlir").write_text(SMALL)
    (tmp_path / "b.mlir").write_text(SMALL)
    cdir = str(tmp_path / "c")
    assert _run(capfd, str(tmp_path / "a.mlir"), "-o", str(tmp_path / "oa"), "--cache-dir", cdir)[0] == 0
    code, _, err = _run(capfd, str(tmp_path / "b.mlir"), "-o", str(tmp_path / "ob"), "--cache-dir", cdir, "--mlir-timing")
    assert code == 0 and "Cache lookup (miss)" in err
    assert str(tmp_path / "b.mlir") in open(tmp_path / "ob" / "penguin.py").read()


def test_batch_report_says_hit_or_miss(tmp_path, capfd):
    d = tmp_path / "in"
    d.mkdir()
    (d / "a.mlir").write_text(SMALL)
    (d / "b.mlir").write_text(BIG)
    cdir = str(tmp_path / "c")
    rep = str(tmp_path / "r.json")
    assert _run(capfd, "--batch", str(d / "a.mlir"), "-o", str(tmp_path / "o"), "--cache-dir", cdir)[0] == 0
    code, out, err = _run(capfd, "--batch", str(d), "-o", str(tmp_path / "o"), "--cache-dir", cdir, "--report", rep, "-j", "2")
    assert code == 0
    mods = json.load(open(rep))["modules"]
    assert [(os.path.basename(m["path"]), m["status"], m["cache"]) for m in mods] == [("a.mlir", "ok", "hit"), ("b.mlir", "ok", "miss")]
    assert "compile cache: 1 hit, 1 compiled" in out
    assert "(cache hit)" in err and "(cache miss)" in err


def test_hilo_cache_ls_stat_prune_clear(big, tmp_path, capfd):
    cdir = str(tmp_path / "c")
    (tmp_path / "s.mlir").write_text(SMALL)
    assert _run(capfd, big, "-o", str(tmp_path / "o1"), "--cache-dir", cdir)[0] == 0
    time.sleep(0.05)
    assert _run(capfd, str(tmp_path / "s.mlir"), "-o", str(tmp_path / "o2"), "--cache-dir", cdir)[0] == 0
    assert cache_tool.run(["--cache-dir", cdir, "ls"]) == 0
    lines = capfd.readouterr().out.splitlines()
    assert len(lines) == 2 and all("MODULE_" in ln for ln in lines)
    assert cache_tool.run(["--cache-dir", cdir, "stat"]) == 0
    out = capfd.readouterr().out
    assert "entries: 2\n" in out and f"hilo_mlir-{cache_mod.package_version()}: 2 entries" in out
    es = cache_mod.entries(cdir)
    keep = es[-1].size  # the most recently used one fits
    assert cache_tool.run(["--cache-dir", cdir, "prune", "--max-size", str(keep)]) == 0
    assert capfd.readouterr().out.startswith("removed 1 entry (")
    assert [e.path for e in cache_mod.entries(cdir)] == [es[-1].path]
    assert cache_tool.run(["--cache-dir", cdir, "clear"]) == 0
    assert capfd.readouterr().out == "removed 1 entry\n" and cache_mod.entries(cdir) == []
    assert cache_tool.run(["--cache-dir", cdir, "prune", "--max-size", "lots"]) == 1
    assert "hilo-cache: error: argument --max-size: invalid size 'lots'" in capfd.readouterr().err


def test_parse_size():
    assert cache_tool.parse_size("500M") == 500 << 20
    assert cache_tool.parse_size("2g") == 2 << 30
    assert cache_tool.parse_size("1.5KiB") == 1536
    assert cache_tool.parse_size("123") == 123


def test_jax_flow_cache_on_by_default(tmp_path, monkeypatch):
    import jax.numpy as jnp

    from hilo_mlir import jax as hj

    monkeypatch.delenv("HILO_MLIR_CACHE")  # the suite turns the default off (conftest)
    monkeypatch.setenv("HILO_MLIR_CACHE_DIR", str(tmp_path / "c"))

    def f(x, w):
        return jnp.tanh(x @ w)

    args = (jnp.ones((4, 8)), jnp.ones((8, 2)))
    p1 = hj.compile(f, *args, spine="stablehlo")
    p2 = hj.compile(f, *args, spine="stablehlo")
    assert (p1.source.cache, p2.source.cache) == ("miss", "local")
    assert str(p1.source) == str(p2.source) and p1.files == p2.files
    assert p2.statistics == p1.statistics
    order = [(k, list(v.items())) for k, v in p1.statistics.items()]
    assert [(k, list(v.items())) for k, v in p2.statistics.items()] == order  # pass order on a hit too
    assert [k for k, _ in order] != sorted(k for k, _ in order)  # (so the line above can tell)
    assert hj.compile(f, *args, spine="stablehlo", cache=False).source.__dict__.get("cache") is None
    monkeypatch.setenv("HILO_MLIR_CHECK_CACHE", "1")
    assert hj.compile(f, *args, spine="stablehlo").source.cache == "checked"


def test_a_cache_folder_that_is_a_file_is_refused(tmp_path, capfd):
    afile = tmp_path / "afile"
    afile.write_text("")
    src = tmp_path / "a.mlir"
    src.write_text(SMALL)
    msg = f"cannot use cache folder '{afile}': it is a file, not a folder"
    for argv in ([str(src), "-o", str(tmp_path / "o")], ["--batch", str(src), "-o", str(tmp_path / "b")]):
        assert hilo2penguin.run([*argv, "--cache-dir", str(afile)]) == 1
        assert capfd.readouterr().err == f"hilo2penguin: error: {msg}\n"
    assert not (tmp_path / "o").exists() and not (tmp_path / "b").exists()
    # a folder that cannot be made under it is the same mistake
    assert hilo2penguin.run([str(src), "-o", str(tmp_path / "o"), "--cache-dir", str(afile / "sub")]) == 1
    assert capfd.readouterr().err == f"hilo2penguin: error: cannot use cache folder '{afile / 'sub'}': '{afile}' is not a directory\n"
    assert cache_tool.run(["--cache-dir", str(afile), "ls"]) == 1
    assert capfd.readouterr().err == f"hilo-cache: error: {msg}\n"
    assert cache_tool.run(["--cache-dir", str(tmp_path / "none"), "ls"]) == 0  # a folder not made yet: an empty cache
