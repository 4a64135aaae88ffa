"""Writing a compiled program to its output folder, all or nothing (issue 6 "Never lose data")."""

from __future__ import annotations

import os
import shutil
import tempfile


def write_program(outdir: str, source: str, files: dict | None = None) -> str:
    """Write ``penguin.py`` (and ``files``: ``{name: bytes}``, e.g. ``.npy`` constants) into ``outdir``.

    Everything is first written into a temporary folder inside ``outdir`` and
    renamed into place only once all of it was written; unrelated files in
    ``outdir`` are left alone. Returns the path of ``penguin.py``.
    """
    files = dict(files if files is not None else getattr(source, "files", {}) or {})
    os.makedirs(outdir, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".hilo-staging-", dir=outdir)
    try:
        names = {"penguin.py": str(source).encode("utf-8")}
        names.update(files)
        for name, data in names.items():
            with open(os.path.join(staging, name), "wb") as f:
                f.write(data)
        for name in names:
            os.replace(os.path.join(staging, name), os.path.join(outdir, name))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return os.path.join(outdir, "penguin.py")
