"""Layers that import one way: no import cycle among the package's modules, and the lower layers never
import the upper ones.

Imports at every level count, those inside functions too (a late import is
still a dependency: it only hides a cycle); not those under ``if
TYPE_CHECKING:`` (annotations only, never run). ``from . import x`` where
``x`` is a submodule is an edge to ``x``, not to the package.
"""

from __future__ import annotations

import ast
import pathlib

from conftest import ROOT

PACKAGE = ROOT / "hilo_mlir"

#: layer (first component under hilo_mlir) -> layers it must not import at module level
FORBIDDEN = {
    "support": {
        "ir",
        "rewrite",
        "analysis",
        "passmanager",
        "fusion",
        "passes",
        "printers",
        "penguin_ref",
        "driver",
        "tools",
        "jax",
        "checker",
    },
    "ir": {"rewrite", "analysis", "passmanager", "fusion", "passes", "printers", "driver", "tools", "jax", "checker"},
    "rewrite": {"passmanager", "fusion", "passes", "printers", "driver", "tools", "jax", "checker"},
    "analysis": {"passes", "printers", "tools", "driver", "jax", "checker"},
    "fusion": {"passes", "printers", "tools", "driver", "checker"},
    "passes": {"tools", "jax", "checker"},
    "printers": {"passes", "tools", "driver", "jax", "checker"},
}


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
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


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
    return deps


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
    assert "hilo_mlir.passes.importing.stages" in graph["hilo_mlir.passes.importing.hilo_import"]  # inside a function
    assert "hilo_mlir.fusion.report" not in graph["hilo_mlir.passmanager.pass_context"]  # under TYPE_CHECKING only
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c", "a"]]
