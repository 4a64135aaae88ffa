"""Layers that import one way: no import cycle among the package's modules, and the lower layers never
import the upper ones.

Imports at every level count, those inside functions too (a late import is
still a dependency: it only hides a cycle); not those under ``if
TYPE_CHECKING:`` (annotations only, never run). ``from . import x`` where
``x`` is a submodule is an edge to ``x``, not to the package.

Two more kinds of edge count, as Python runs them:

* ``importlib.import_module("a.b")`` and ``__import__("a.b")`` with a string
  literal (a module loaded by name is still imported);
* importing ``a.b.c`` runs ``a/__init__.py`` and ``a/b/__init__.py`` first: an
  edge to each parent package, except the importer's own parents (they ran
  before the importer did).
"""

from __future__ import annotations

import ast
import pathlib

from conftest import ROOT

PACKAGE = ROOT / "hilo_mlir"

#: the layers, top first, as README "Layout" lists them: a layer imports only the ones before it
#: ``testing`` (the tests' oracle) sits right below ``checker``, its one user in the package: nothing on the
#: compiler path may import it.
ORDER = [
    "support",
    "ir",
    "rewrite",
    "analysis",
    "passmanager",
    "fusion",
    "passes",
    "printers",
    "penguin_ref",
    "driver",
    "testing",
    "checker",
    "tools",
]
#: the public API (``__init__.py``, ``jax.py``, ``registry.py``): above every layer
TOP = {"jax", "registry"}

#: layer -> layers it must not import (every one after it, and the public API)
FORBIDDEN = {layer: set(ORDER[i + 1 :]) | TOP for i, layer in enumerate(ORDER)}
#: the upward edges README "Layout" allows, each by name:
#: * passes -> printers: the penguin.py printer passes (penguin_io/) run the printers, and
#:   hilo-import's printability check and verify-supported-ops ask them what prints;
FORBIDDEN["passes"] -= {"printers"}
#: (the registry is below the passes and imports none of them: ``hilo_mlir.passes`` installs the
#: built-in families into it, :func:`hilo_mlir.passmanager.registry.install_builtins`)


def _modules() -> dict[str, pathlib.Path]:
    mods = {}
    for p in PACKAGE.rglob("*.py"):
        if "__pycache__" in p.parts:
            continue
        parts = p.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        mods[name] = p
    return mods


def _import_nodes(tree: ast.AST):
    """Every import statement of ``tree`` at any depth (functions included), except under ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)  # imports for annotations only: not run
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)) or _literal_import(node):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _literal_import(node: ast.AST) -> str | None:
    """The module named by ``importlib.import_module("...")`` / ``__import__("...")`` with a string literal."""
    if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
        return None
    f = node.func
    fname = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    if fname not in ("import_module", "__import__") or not isinstance(node.args[0].value, str):
        return None
    return node.args[0].value


def _with_parents(name: str, deps: set[str], mods: dict) -> set[str]:
    """``deps`` and the parent packages each of them runs first, less ``name``'s own parents."""
    own = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
    out = set(deps)
    for d in deps:
        parts = d.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return {d for d in out if (d in mods and d != name and d not in own) or d in deps}


def _imports(name: str, path: pathlib.Path, mods: dict) -> set[str]:
    is_pkg = path.name == "__init__.py"
    deps = set()
    for n in _import_nodes(ast.parse(path.read_text())):
        if isinstance(n, ast.ImportFrom):
            if n.level:
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = base[: len(base) - (n.level - 1)]
                target = ".".join(base + ([n.module] if n.module else []))
            else:
                target = n.module or ""
            for a in n.names:
                sub = f"{target}.{a.name}"
                dep = sub if sub in mods else target
                if dep in mods and dep != name:
                    deps.add(dep)
        elif isinstance(n, ast.Import):
            deps.update(a.name for a in n.names if a.name in mods and a.name != name)
        else:
            target = _literal_import(n)
            if target in mods and target != name:
                deps.add(target)
    return _with_parents(name, deps, mods)


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    return {name: _imports(name, path, mods) for name, path in mods.items()}


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every back edge of a depth-first walk of ``graph``, as the cycle it closes."""
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(u: str, stack: list[str]) -> None:
        state[u] = 1
        stack.append(u)
        for v in sorted(graph.get(u, ())):
            if state.get(v) == 1:
                cycles.append(stack[stack.index(v) :] + [v])
            elif v not in state:
                visit(v, stack)
        stack.pop()
        state[u] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])
    return cycles


def test_no_import_cycle():
    cycles = _cycles(_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_lower_layers_do_not_import_upper_ones():
    bad = [f"{m} imports {d}" for m, deps in sorted(_graph().items()) for d in sorted(deps) if _layer(d) in FORBIDDEN.get(_layer(m), set())]
    assert not bad, "\n".join(bad)


def test_the_checker_finds_edges_and_cycles():
    """A checker that saw no edge, or no cycle, would pass on anything."""
    graph = _graph()
    assert "hilo_mlir.ir.dialects" in graph["hilo_mlir.passmanager.registry"]  # `from hilo_mlir.ir.dialects import ...` in a function
    assert "hilo_mlir.printers.emit" in graph["hilo_mlir.printers.driver"]
    assert "hilo_mlir.testing" in graph["hilo_mlir.checker.evaluate"]  # checker above testing, inside a function
    assert FORBIDDEN["testing"] >= {"checker", "tools"} and "testing" in FORBIDDEN["driver"]
    assert "hilo_mlir.passes.importing.stages" in graph["hilo_mlir.passes.importing.hilo_import"]  # inside a function
    assert "hilo_mlir.fusion.report" not in graph["hilo_mlir.passmanager.pass_context"]  # under TYPE_CHECKING only
    assert _literal_import(ast.parse('importlib.import_module("hilo_mlir.passes")').body[0].value) == "hilo_mlir.passes"
    assert _literal_import(ast.parse('__import__("a.b")').body[0].value) == "a.b"
    assert not any(_layer(d) == "passes" for d in graph["hilo_mlir.passmanager.registry"])  # the store: below the passes
    assert "hilo_mlir.passmanager.registry" in graph["hilo_mlir.passes"]  # the front end installs the built-ins into it
    assert _with_parents("x.a", {"x.b.c"}, dict.fromkeys(["x", "x.a", "x.b", "x.b.c"])) == {"x.b", "x.b.c"}  # runs x/b/__init__.py
    assert "hilo_mlir.passmanager" not in graph["hilo_mlir.passmanager.registry"]  # its own package: run before it
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c", "a"]]
