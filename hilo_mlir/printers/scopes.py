"""The region functions being printed: every one a module-level ``def``, captures passed explicitly (format section 7).

:class:`RegionFunctions` is part of the printer's state (a base of
:class:`~.emit.Emitter`): the stack of open region functions, the depth at
which each local name was bound, and the finished nested functions waiting
for the module level. A name a region function reads that an enclosing
region function binds becomes a capture of every function in between.
"""

from __future__ import annotations

from hilo_mlir.printers.records import FunctionScope


class RegionFunctions:
    """Region-function scopes of one printer (its ``lines``, ``indent`` and names are the emitter's)."""

    def __init__(self):
        self.lines: list[str] = []
        self.indent = ""
        self.scopes: list[FunctionScope] = []  # the region functions being printed, outermost first
        self.local_depth: dict[str, int] = {}  # name bound inside a region function -> its depth (1 = outermost)
        self.hoisted: list[str] = []  # lines of finished nested region functions, for the module level
        self.module_lines = self.lines

    def open_function(self, name: str) -> FunctionScope:
        """Start printing region function ``name``: its lines go to its own buffer."""
        scope = FunctionScope(name)
        self.local_depth.pop(name, None)  # a module-level def, whatever the depth it is printed at
        self.scopes.append(scope)
        self.lines = scope.lines
        self.indent = "    "
        return scope

    def close_function(self, scope: FunctionScope) -> str:
        """Finish ``scope``; returns what the owning op's ``regions=[...]`` lists for it.

        The ``def`` takes the block parameters, then the captures. A nested
        function waits in :attr:`hoisted` and reaches the module level just
        before the outermost function being printed; the owner passes the
        captures with ``lambda <params>: <name>(<params>, <captures>)``.
        """
        popped = self.scopes.pop()
        assert popped is scope
        args = scope.params + list(scope.captures)
        text = [f"def {scope.name}({', '.join(args)}):"] + scope.lines
        if self.scopes:
            self.hoisted.extend(text)
            self.lines = self.scopes[-1].lines
        else:
            self.lines = self.module_lines
            self.indent = ""
            self.lines.extend(self.hoisted)
            self.hoisted.clear()
            self.lines.extend(text)
        if not scope.captures:
            return scope.name
        return f"lambda {', '.join(scope.params)}: {scope.name}({', '.join(args)})"

    def refs(self, names) -> None:
        """Note that the statement being written reads ``names`` (captures of the region functions)."""
        scopes = self.scopes
        if not scopes:
            return
        depth = len(scopes)
        local = self.local_depth
        for n in names:
            d = local.get(n)
            if d is not None and d < depth:
                for k in range(d, depth):  # every function between the one that binds n and this one
                    scopes[k].captures[n] = None
