"""Writing a compiled program to its output folder, all or nothing (issue 6 "Never lose data")."""

from __future__ import annotations

import os
import shutil
import tempfile


def write_program(outdir: str, source: str, files: dict | None = None) -> str:
    """Write ``penguin.py`` (and ``files``: ``{name: bytes}``, e.g. ``.npy`` constants) into ``outdir``.

    Everything is first written into a temporary folder inside ``outdir``
    (``.hilo-staging-*``, same file system, so the renames are atomic) and
    renamed into place only once all of it was written; ``penguin.py`` is
    renamed last, so a ``penguin.py`` that exists always has its ``.npy``
    files beside it. Unrelated files in ``outdir`` are left alone; if anything
    fails, the staging folder is removed and ``outdir`` keeps what it had.
    Returns the path of ``penguin.py``.

    Raises:
        OSError: ``outdir`` cannot be created or written (nothing is left behind).
        ValueError: a file name in ``files`` that is not a plain name.
    """
    files = dict(files if files is not None else getattr(source, "files", {}) or {})
    os.makedirs(outdir, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".hilo-staging-", dir=outdir)
    try:
        names = {}
        for name in sorted(files):
            if name == "penguin.py" or os.path.basename(name) != name or name.startswith("."):
                raise ValueError(f"invalid output file name '{name}'")
            names[name] = files[name]
        names["penguin.py"] = str(source).encode("utf-8")  # last: renamed into place after its files
        for name, data in names.items():
            with open(os.path.join(staging, name), "wb") as f:
                f.write(data)
        for name in names:
            os.replace(os.path.join(staging, name), os.path.join(outdir, name))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return os.path.join(outdir, "penguin.py")
