"""Why a path cannot be used, said once for every tool: missing, a file in the way, a folder, no permission."""

from __future__ import annotations

import errno
import os

import pytest

from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.support.io import atomic_write_bytes, check_input_file, folder_problem, path_problem, read_input
from hilo_mlir.support.packaging import publish_error


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """cwd = tmp_path holding ``afile`` (a file) and ``adir/`` (a folder); paths below are relative, as a user types them."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("x")
    (tmp_path / "adir").mkdir()
    return tmp_path


@pytest.mark.parametrize(
    "folder,create,reason",
    [
        ("adir", False, None),
        ("", False, None),
        ("missing", False, "no such directory 'missing'"),
        ("adir/missing/deeper", False, "no such directory 'adir/missing/deeper'"),
        ("afile", False, "'afile' is not a directory"),
        ("afile/sub/deeper", False, "'afile' is not a directory"),
        ("missing/sub", True, None),  # made with os.makedirs: only the nearest existing folder counts
        ("afile/sub", True, "'afile' is not a directory"),
    ],
)
def test_folder_problem(tree, folder, create, reason):
    assert folder_problem(folder, create=create) == reason


def test_folder_problem_permission(tree, monkeypatch):
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: os.path.basename(path) != "adir")
    assert folder_problem("adir") == "permission denied on 'adir'"
    assert folder_problem("adir/new", create=True) == "permission denied on 'adir'"
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: os.path.basename(path) != "afile")
    assert path_problem("afile") == "permission denied"


def test_folder_problem_read_only(tree, monkeypatch):
    class _Ro:
        f_flag = os.ST_RDONLY

    monkeypatch.setattr(os, "statvfs", lambda path: _Ro())
    assert folder_problem("adir") == "'adir' is on a read-only file system"


@pytest.mark.parametrize(
    "path,reason",
    [
        ("afile", None),
        ("nope.mlir", "no such file"),
        ("adir", "is a directory"),
        ("afile/in.mlir", "'afile' is not a directory"),
        ("adir/nope/in.mlir", "no such file"),
    ],
)
def test_path_problem_and_the_input_error(tree, path, reason):
    assert path_problem(path) == reason
    if reason is None:
        check_input_file(path)
        assert read_input(path) == b"x"
        return
    for call in (check_input_file, read_input):
        with pytest.raises(HiloError) as info:
            call(path)
        assert info.value.message == f"cannot open input file '{path}': {reason}"
        assert info.value.loc is None and info.value.filename is None  # the command line named it, not the input


def test_output_file_under_a_file(tree):
    with pytest.raises(HiloError) as info:
        atomic_write_bytes("afile/out.mlir", b"x")
    assert info.value.message == "cannot write output file 'afile/out.mlir': 'afile' is not a directory"
    with pytest.raises(HiloError) as info:
        atomic_write_bytes("missing/out.mlir", b"x")
    assert info.value.message == "cannot write output file 'missing/out.mlir': no such directory 'missing'"


def test_publish_error_names_the_folder_the_user_gave(tree):
    # a folder the OS would not create (as /proc/x): the reason is the OS's, about that folder
    assert publish_error("nofolder", FileNotFoundError(errno.ENOENT, "No such file or directory", "nofolder/penguin.py")) == (
        "cannot create output folder 'nofolder': no such file or directory"
    )
    assert publish_error("afile/sub", NotADirectoryError(errno.ENOTDIR, "Not a directory")) == (
        "cannot create output folder 'afile/sub': 'afile' is not a directory"
    )
    assert publish_error("afile", NotADirectoryError(errno.ENOTDIR, "it is a file, not a folder", "afile")) == (
        "cannot write to output folder 'afile': it is a file, not a folder"
    )
    assert publish_error("adir", PermissionError(errno.EACCES, "Permission denied")) == (
        "cannot write 'penguin.py' in output folder 'adir': permission denied"
    )


@pytest.mark.parametrize("create", [False, True])
def test_folder_problem_resolves_dotdot_after_a_link_as_the_os_does(tree, create):
    """``lnk/..`` is the folder above the link's target (``real``), not the current folder: ``lnk/../x`` is
    ``real/x``, a folder, although a file ``x`` sits in the current folder."""
    (tree / "real" / "sub").mkdir(parents=True)
    (tree / "real" / "x").mkdir()
    os.symlink("real/sub", "lnk")
    (tree / "x").write_text("")
    assert folder_problem("lnk/../x", create=create) is None
    assert folder_problem("lnk/../x/out", create=True) is None
    assert path_problem("lnk/../x/missing.mlir") == "no such file"


def test_folder_problem_names_a_dangling_link(tree):
    os.symlink("/nonexist/zz", "dl")
    reason = "'dl' is a symbolic link to '/nonexist/zz', which does not exist"
    assert folder_problem("dl", create=True) == reason
    assert folder_problem("dl") == reason
    assert folder_problem("dl/sub", create=True) == reason
    assert path_problem("dl/in.mlir") == reason


def test_atomic_write_goes_through_a_symbolic_link(tmp_path):
    """-o naming a link writes its target (the link stays a link); a link into a missing folder is an error."""
    from hilo_mlir.support.io import atomic_write_text

    real = tmp_path / "real"
    real.mkdir()
    (real / "target.mlir").write_text("old")
    link = tmp_path / "link.mlir"
    link.symlink_to(real / "target.mlir")
    atomic_write_text(str(link), "new")
    assert link.is_symlink() and (real / "target.mlir").read_text() == "new"
    assert sorted(p.name for p in real.iterdir()) == ["target.mlir"]
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "missing" / "x.mlir")
    with pytest.raises(HiloError, match=r"cannot write output file '.*dangling'"):
        atomic_write_text(str(dangling), "new")
    assert dangling.is_symlink() and not (tmp_path / "missing").exists()
