"""The package version, from git tags (``v0.2.0`` -> ``0.2.0``), with a fallback for a clone without tags.

Read by the build (``[tool.setuptools.dynamic]`` in ``pyproject.toml``) and by
``--version`` (through the installed distribution's metadata). Rules:

* a checkout whose ``HEAD`` is a tag ``vX.Y.Z``: ``X.Y.Z``;
* commits after the last tag: ``X.Y.Z.postN+gSHA`` (PEP 440);
* no tag, no git, not a checkout (a wheel, CI's shallow clone): :data:`FALLBACK`.

Importing this module never fails and never takes more than a second or so.
"""

from __future__ import annotations

import os
import re
import subprocess

#: the version when git cannot tell (keep it equal to the newest tag's)
FALLBACK = "0.1.0"

_DESCRIBE = re.compile(r"^v(\d+(?:\.\d+)*)(?:-(\d+)-g([0-9a-f]+))?$")


def from_git(root: str | None = None) -> str | None:
    """The version ``git describe`` gives for the checkout at ``root`` (default: this package's), or None."""
    root = root or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if not os.path.exists(os.path.join(root, ".git")):
        return None
    try:
        r = subprocess.run(
            ["git", "-C", root, "describe", "--tags", "--match", "v[0-9]*", "--long"],
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return parse_describe(r.stdout.strip()) if r.returncode == 0 else None


def parse_describe(text: str) -> str | None:
    """``v0.2.0-0-gabc1234`` -> ``0.2.0``; ``v0.2.0-3-gabc1234`` -> ``0.2.0.post3+gabc1234``; else None."""
    m = _DESCRIBE.match(text)
    if m is None:
        return None
    base, n, sha = m.group(1), m.group(2), m.group(3)
    if not n or n == "0":
        return base
    return f"{base}.post{n}+g{sha}"


__version__ = from_git() or FALLBACK
