"""Is any installed package declaring a ``hilo_mlir.passes`` entry point? Answered without ``importlib.metadata``.

``importlib.metadata`` costs ~0.2 s of CPU to import and scan every
installed distribution; most processes have no pass plugin installed. This
module reads the ``entry_points.txt`` of each ``*.dist-info`` / ``*.egg-info``
folder on ``sys.path`` (what ``importlib.metadata``'s path finder reads) and
only says whether the group appears; :mod:`hilo_mlir.passmanager.plugins`
then loads them through ``importlib.metadata`` as before. Anything it cannot
read cheaply (a zip archive on ``sys.path``, a finder on ``sys.meta_path``
that serves distributions of its own) answers "maybe": the full scan runs.

Importing this module imports nothing heavy (no binding, no numpy).
"""

from __future__ import annotations

import os
import re
import sys

#: the entry-point group installed packages declare their passes in
ENTRY_POINT_GROUP = "hilo_mlir.passes"

_SECTION = re.compile(r"^[ \t]*\[[ \t]*hilo_mlir\.passes[ \t]*\][ \t]*$", re.MULTILINE)
_STDLIB_FINDERS = {"BuiltinImporter", "FrozenImporter", "PathFinder", "_SixMetaPathImporter"}


def _custom_distribution_finders() -> bool:
    """True if a finder other than the standard ones may serve distributions (``find_distributions``)."""
    for f in sys.meta_path:
        if getattr(f, "find_distributions", None) is None:
            continue
        name = getattr(f, "__name__", None) or type(f).__name__
        if name not in _STDLIB_FINDERS:
            return True
    return False


def maybe_installed() -> bool:
    """False only when no distribution on ``sys.path`` declares a ``[hilo_mlir.passes]`` entry point.

    True when one does, or when it cannot tell cheaply (then the caller runs
    ``importlib.metadata``'s scan, which decides).
    """
    if _custom_distribution_finders():
        return True
    seen = set()
    for entry in sys.path:
        path = entry or os.curdir
        if path in seen:
            continue
        seen.add(path)
        try:
            names = os.listdir(path)
        except NotADirectoryError:
            return True  # a zip archive (or an egg file): let importlib.metadata look inside
        except OSError:
            continue  # missing or unreadable: importlib.metadata finds nothing there either
        for name in names:
            if not (name.endswith(".dist-info") or name.endswith(".egg-info")):
                continue
            try:
                with open(os.path.join(path, name, "entry_points.txt"), encoding="utf-8", errors="replace") as f:
                    text = f.read()
            except OSError:
                continue
            if _SECTION.search(text):
                return True
    return False
