"""What the binding's upstream pass registry holds, asked from the binding itself.

The MLIR Python bindings have no call that lists the registered passes, so
this module finds them the way a user would check one by hand: every
candidate name is given to the binding's pipeline parser
(``PassManager.parse``), which either builds the pass or says it "does not
refer to a registered pass". Candidates are the kebab-case strings of the
binding's shared libraries' read-only data (pass arguments are string
literals there); the parser, not the scan, decides.

For each pass the binding accepts, it also answers

* its anchor: ``func.func`` when the binding refuses it directly under
  ``builtin.module`` ("restricted to 'func.func'"), else ``builtin.module``;
* its options and their defaults: the binding prints the pipeline it built
  with every scalar option (``canonicalize{max-iterations=10 ...}``);
  list-valued options print empty and are declared by hand in
  :mod:`hilo_mlir.passes.upstream`;
* its class name, as ``--mlir-print-ir-*`` headers show it (``CSEPass``), by
  running the pass on an empty module with the binding's IR printing on.

Used by ``python3 -m hilo_mlir.passmanager.upstream_catalog`` (regenerates
``hilo_mlir/passes/upstream_passes.json``) and by the tests that hold that
file and the binding equal. Nothing here runs when a tool starts.
"""

from __future__ import annotations

import json
import os
import re
import struct
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hilo_mlir.ir.binding import ir

#: the generated data file read by :mod:`hilo_mlir.passes.upstream`
DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "passes", "upstream_passes.json")

_CANDIDATE = re.compile(rb"(?<=\x00)[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?=\x00)")


def binding_libraries() -> list[str]:
    """The shared libraries of the loaded ``jaxlib`` (the ones that hold the passes)."""
    import jaxlib

    from hilo_mlir.ir.binding import ir  # noqa: F401  (loads the libraries)

    root = os.path.dirname(os.path.abspath(jaxlib.__file__))
    found = set()
    try:
        with open("/proc/self/maps", encoding="utf-8") as f:
            for line in f:
                path = line.split()[-1] if line.strip() else ""
                if path.startswith(root) and ".so" in path:
                    found.add(path)
    except OSError:  # not Linux: every library of the package
        for dirpath, _dirs, files in os.walk(root):
            found.update(os.path.join(dirpath, n) for n in files if n.endswith(".so"))
    return sorted(found)


def _rodata(path: str) -> bytes:
    """The ``.rodata`` section of an ELF64 little-endian library (the whole file otherwise)."""
    with open(path, "rb") as f:
        head = f.read(64)
        if head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
            f.seek(0)
            return f.read()
        shoff = struct.unpack_from("<Q", head, 0x28)[0]
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", head, 0x3A)
        f.seek(shoff)
        table = f.read(shentsize * shnum)
        sections = [struct.unpack_from("<IIQQQQ", table, i * shentsize) for i in range(shnum)]
        names_off, names_size = sections[shstrndx][4], sections[shstrndx][5]
        f.seek(names_off)
        names = f.read(names_size)
        chunks = []
        for name_idx, _type, _flags, _addr, offset, size in sections:
            name = names[name_idx : names.index(b"\x00", name_idx)]
            if name.startswith(b".rodata"):
                f.seek(offset)
                chunks.append(f.read(size))
        return b"\x00" + b"\x00".join(chunks) + b"\x00"


def candidates() -> set[str]:
    """Kebab-case strings of the binding's read-only data (a superset of the pass arguments)."""
    out: set[str] = set()
    for lib in binding_libraries():
        data = _rodata(lib)
        out.update(m.group(0).decode() for m in _CANDIDATE.finditer(data))
    return out


_CONTEXT: ir.Context | None = None


def _context() -> ir.Context:
    global _CONTEXT
    if _CONTEXT is None:
        from hilo_mlir.ir.binding import make_context

        _CONTEXT = make_context()
    return _CONTEXT


def probe(argument: str) -> dict[str, str] | None:
    """Ask the binding about one pass argument; None if it is not a registered pass.

    Returns:
        ``{"argument", "anchor", "printed"}``: ``printed`` is the pipeline the
        binding built, with the pass's scalar options and defaults.
    """
    from hilo_mlir.ir.binding import passmanager

    with _context():
        for anchor, text in (("builtin.module", argument), ("func.func", f"func.func({argument})")):
            try:
                pm = passmanager.PassManager.parse(f"builtin.module({text})")
            except Exception as e:  # noqa: BLE001 - the binding raises ValueError
                msg = str(e)
                if "restricted to" in msg and anchor == "builtin.module":
                    continue
                return None
            return {"argument": argument, "anchor": anchor, "printed": str(pm)}
    return None


def _inner(printed: str, anchor: str) -> str:
    text = printed[len("builtin.module(") : -1]
    if anchor == "func.func":
        text = text[len("func.func(") : -1]
    return text


def scalar_options(printed: str, argument: str, anchor: str) -> dict[str, str] | None:
    """``{option: default text}`` from the binding's printed pipeline; None when ``argument``
    is a pass *pipeline* (it prints as other passes)."""
    inner = _inner(printed, anchor)
    if inner == argument:
        return {}
    if not (inner.startswith(argument + "{") and inner.endswith("}")):
        return None
    from hilo_mlir.passmanager.pipeline_parser import parse_options

    return parse_options(inner[len(argument) + 1 : -1], argument)


_RESTRICTED = re.compile(r"Can't add pass '([^']+)' restricted to")


def class_name(argument: str, anchor: str) -> str:
    """The pass's name as the binding's IR printer shows it (``CSEPass``), or ''.

    A pass tied to one op kind names itself when nested under the other
    (``Can't add pass 'X' restricted to ...``); any other pass is asked in a
    child process, which runs it on an empty module with IR printing on (the
    header is printed before the pass runs, and a pass that aborts on the
    empty module takes only the child with it).
    """
    from hilo_mlir.ir.binding import passmanager

    wrong = f"func.func({argument})" if anchor == "builtin.module" else argument
    with _context():
        try:
            passmanager.PassManager.parse(f"builtin.module({wrong})")
        except Exception as e:  # noqa: BLE001
            m = _RESTRICTED.search(str(e))
            if m:
                return m.group(1)
    import subprocess

    code = (
        "import sys\n"
        "from hilo_mlir.ir.binding import ir, make_context, passmanager\n"
        "with make_context() as ctx:\n"
        "    ctx.enable_multithreading(False)\n"
        "    m = ir.Module.parse('module {}')\n"
        f"    pm = passmanager.PassManager.parse('builtin.module({argument})')\n"
        "    pm.enable_ir_printing(print_before_all=True, print_after_all=False)\n"
        "    sys.stderr.flush()\n"
        "    pm.run(m.operation)\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
        out = r.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stderr or b"").decode("utf-8", "replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
    m = re.search(r"// -----// IR Dump Before (\S+): " + re.escape(argument), out)
    return m.group(1) if m else ""


def discover() -> list[dict[str, Any]]:
    """Every upstream pass the binding registers: ``[{argument, anchor, class_name, options|pipeline}]``."""
    out: list[dict[str, Any]] = []
    for name in sorted(candidates()):
        info = probe(name)
        if info is None:
            continue
        opts = scalar_options(info["printed"], name, info["anchor"])
        entry: dict[str, Any] = {"argument": name, "anchor": info["anchor"]}  # JSON data
        if opts is None:
            entry["pipeline"] = True
            entry["class_name"] = ""
            entry["options"] = {}
        else:
            entry["pipeline"] = False
            entry["class_name"] = class_name(name, info["anchor"])
            entry["options"] = opts
        out.append(entry)
    return out


def write(path: str = DATA) -> int:
    """Regenerate the data file from the binding; returns the number of passes."""
    entries = discover()
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"passes": entries}, f, indent=1, sort_keys=True)
        f.write("\n")
    return len(entries)


if __name__ == "__main__":
    n = write()
    print(f"wrote {DATA} ({n} upstream passes)")
