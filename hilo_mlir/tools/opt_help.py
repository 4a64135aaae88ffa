"""``hilo-opt --help``: the flags and every pass a pipeline may name, without importing a pass or the bindings.

The built-in and upstream passes come from the pass manifest
(:func:`hilo_mlir.passmanager.registry.descriptions`); plugin passes (``--load-pass-plugin``
and the ``hilo_mlir.passes`` entry points) from the registry, with the
plugin they come from.
"""

from __future__ import annotations

import io
import json
import os
import sys


def pipeline_value(value) -> str:
    """An option value as a pipeline spells it: ``true``/``false``, ``256``, ``generic``, ``""`` for the empty string."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value if value else '""'
    return str(value)


def _option_lines(options) -> list[str]:
    out = []
    for o in options:
        default = pipeline_value(o["default"])
        out.append(f"      {o['name']}={o['type']:<6} (default {default}) {o['help']}".rstrip())
    return out


def _pass_line(p: dict) -> str:
    if p["upstream"]:
        tag = "upstream"
    else:
        tag = p["dialect"] or "mhlo+stablehlo"
    line = f"  --{p['argument']:<40} {p['summary']} [{tag}; anchor {p['anchor']}]"
    for a in p.get("aliases", ()):
        line += f"\n  --{a:<40} alias of --{p['argument']}"
    return line


def _manifest() -> list[dict]:
    """The built-in passes' ``--help`` facts from the manifest, without importing the registry (it imports the bindings)."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "passes", "manifest.json")
    with open(path, encoding="utf-8") as f:
        return json.load(f)["passes"]


def help_text(parser) -> str:
    """The whole ``--help`` page: ``parser``'s flags, then the passes by origin."""
    registry = sys.modules.get("hilo_mlir.passmanager.registry")  # None: no plugin loaded, the manifest says it all
    buf = io.StringIO()
    buf.write("OVERVIEW: hilo_mlir optimizer driver (mlir-opt style)\n\n")
    buf.write(parser.format_help())
    passes = registry.descriptions() if registry is not None else _manifest()
    ours = [p for p in passes if not p["upstream"]]
    upstream = [p for p in passes if p["upstream"]]
    buf.write("\nPASSES (each also a flag --<pass>[=<options>]; in a pipeline: <pass>{opt=value ...}):\n")
    buf.write("\n hilo_mlir passes:\n")
    for p in ours:
        buf.write(_pass_line(p) + "\n")
        for line in _option_lines(p["options"]):
            buf.write(line + "\n")
    buf.write("\n upstream passes (the binding's MLIR, StableHLO, MHLO and Shardy passes):\n")
    for p in upstream:
        buf.write(_pass_line(p) + "\n")
        for line in _option_lines(p["options"]):
            buf.write(line + "\n")
    plugins = registry.plugin_passes() if registry is not None else []
    if registry is not None and plugins:  # plugins is [] when registry is None
        buf.write("\n plugin passes:\n")
        for info in plugins:
            p = registry.describe(info)
            buf.write(_pass_line(p) + f" (plugin: {info.origin})\n")
            for line in _option_lines(p["options"]):
                buf.write(line + "\n")
    return buf.getvalue()


def _gates() -> dict[str, list[dict[str, str]]]:
    """``tools/gates.json`` (written by ``scripts/gen_passes.py`` from the spine and the pass declarations):
    gate field -> the steps (``step``, ``pass``, ``option``, ``summary``) it turns on; empty when the file
    is absent (the gate lines then say only the default)."""
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "gates.json"), encoding="utf-8") as f:
            return json.load(f)["gates"]
    except FileNotFoundError:
        return {}


def gate_help(gate: str, on: bool) -> str:
    """The ``--enable-<gate>`` help line of ``hilo2penguin``: the default, then what the gate turns on,
    each pass's summary as it is declared (e.g. ``turn 'fold-iota' on (default off): step 16, fold-iota:
    Fold ...``). ``gate``: a ``CompileConfig`` gate field (snake_case)."""
    kebab = gate.replace("_", "-")
    what = []
    for s in _gates().get(gate, []):
        where = "before the spine" if s["step"] == "pre" else f"step {s['step']}"
        what.append(f"{where}, {s['pass']}" + (f" option {s['option']}" if s["option"] else "") + f": {s['summary']}")
    return f"turn '{kebab}' on (default {'on' if on else 'off'})" + (": " + "; ".join(what) if what else "")
