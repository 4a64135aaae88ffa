"""hilo_mlir.support.arrays: every way a user's .npy/.npz can be wrong is one message, never numpy's pickle advice."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

from hilo_mlir.support.arrays import read_npy, read_npz
from hilo_mlir.support.diagnostics import HiloError


@pytest.fixture
def files(tmp_path):
    ok = tmp_path / "ok.npy"
    np.save(ok, np.arange(16, dtype=np.float32).reshape(4, 4))
    data = ok.read_bytes()
    (tmp_path / "truncated.npy").write_bytes(data[:-10])
    (tmp_path / "empty.npy").write_bytes(b"")
    (tmp_path / "text.npy").write_text("hello world\n")
    np.save(tmp_path / "objects.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    np.savez(tmp_path / "ok.npz", a=np.ones(3, np.int32), b=np.zeros((2, 2), np.float64))
    z = (tmp_path / "ok.npz").read_bytes()
    (tmp_path / "truncated.npz").write_bytes(z[: len(z) // 2])
    return tmp_path


def test_reads_plain_arrays(files):
    x = read_npy(str(files / "ok.npy"), "input")
    assert x.dtype == np.float32 and x.shape == (4, 4) and x[3, 3] == 15.0
    z = read_npz(str(files / "ok.npz"), "inputs")
    assert sorted(z) == ["a", "b"]
    assert z["a"].tolist() == [1, 1, 1] and z["b"].dtype == np.float64


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("truncated.npy", "the file is truncated (fewer bytes than its header declares)"),
        ("empty.npy", "the file is empty (not a .npy array)"),
        ("text.npy", "not a .npy array (the file does not start with numpy's format marker)"),
        ("objects.npy", "it holds pickled Python objects (an object array), which are never loaded; save a plain numeric array"),
        ("missing.npy", "No such file or directory"),
        ("ok.npz", "not a .npy array (the file does not start with numpy's format marker)"),
    ],
)
def test_bad_npy_is_one_message(files, name, reason):
    path = str(files / name)
    with pytest.raises(HiloError) as e:
        read_npy(path, "input")
    assert e.value.message == f"cannot read input '{path}': {reason}"
    assert "allow_pickle" not in e.value.message


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("truncated.npz", "the archive is truncated or corrupt"),
        ("ok.npy", "not a .npz archive (the file is not a zip archive)"),
        ("empty.npy", "the file is empty (not a .npz archive)"),
    ],
)
def test_bad_npz_is_one_message(files, name, reason):
    path = str(files / name)
    with pytest.raises(HiloError) as e:
        read_npz(path, "inputs")
    assert e.value.message == f"cannot read inputs '{path}': {reason}"


def test_npz_with_an_object_entry_is_refused(files):
    path = files / "objects.npz"
    with zipfile.ZipFile(path, "w") as z:
        z.write(files / "objects.npy", "a.npy")
    with pytest.raises(HiloError) as e:
        read_npz(str(path), "inputs")
    assert (
        e.value.message
        == f"cannot read inputs '{path}': it holds pickled Python objects (an object array), which are never loaded; save a plain numeric array"
    )
