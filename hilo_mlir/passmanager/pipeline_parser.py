"""MLIR's textual pass-pipeline syntax: ``builtin.module(func.func(cse,neuron-op-fusion{fuse-dot-logistic=true}),canonicalize)``.

:func:`parse_pipeline` turns the text into a tree of :class:`Element`
(a pass, or an op anchor with children); :func:`parse_options` splits the
``{...}`` of one pass into ``{option: text}``. Both raise
:class:`~hilo_mlir.support.diagnostics.HiloError` naming the column. Resolving names
into passes is :func:`hilo_mlir.passmanager.pipeline.build_steps`; nothing here imports
the bindings (``hilo-opt --help`` and the reproducer reader use it).
"""

from __future__ import annotations

from dataclasses import dataclass

from hilo_mlir.support.diagnostics import HiloError


@dataclass
class Element:
    """One element of a textual pipeline: a pass (``children is None``) or an op anchor."""

    name: str
    options: str = ""  # raw text between { }
    children: list[Element] | None = None
    col: int = 0


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.i = 0

    def error(self, msg: str) -> HiloError:
        return HiloError(f"invalid pass pipeline '{self.text}': {msg} at column {self.i + 1}")

    def ws(self) -> None:
        while self.i < len(self.text) and self.text[self.i].isspace():
            self.i += 1

    def parse(self) -> list[Element]:
        self.ws()
        if self.i >= len(self.text):
            return []
        els = self.parse_list()
        self.ws()
        if self.i != len(self.text):
            raise self.error(f"unexpected '{self.text[self.i]}'")
        return els

    def parse_list(self) -> list[Element]:
        els = [self.parse_element()]
        while True:
            self.ws()
            if self.i < len(self.text) and self.text[self.i] == ",":
                self.i += 1
                els.append(self.parse_element())
            else:
                return els

    def parse_element(self) -> Element:
        self.ws()
        start = self.i
        while self.i < len(self.text) and (self.text[self.i].isalnum() or self.text[self.i] in "-_.$"):
            self.i += 1
        name = self.text[start : self.i]
        if not name:
            raise self.error("expected a pass or op name")
        el = Element(name, col=start + 1)
        self.ws()
        if self.i < len(self.text) and self.text[self.i] == "{":
            el.options = self.parse_braced()
            self.ws()
        if self.i < len(self.text) and self.text[self.i] == "(":
            self.i += 1
            self.ws()
            if self.i < len(self.text) and self.text[self.i] == ")":
                el.children = []
            else:
                el.children = self.parse_list()
            self.ws()
            if self.i >= len(self.text) or self.text[self.i] != ")":
                raise self.error("expected ')'")
            self.i += 1
        return el

    def parse_braced(self) -> str:
        assert self.text[self.i] == "{"
        depth, start = 0, self.i + 1
        quote = None
        while self.i < len(self.text):
            c = self.text[self.i]
            if quote:
                if c == quote:
                    quote = None
            elif c in "'\"":
                quote = c
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    self.i += 1
                    return self.text[start : self.i - 1]
            self.i += 1
        raise self.error("unterminated '{'")


def parse_pipeline(text: str) -> list[Element]:
    """Parse MLIR textual pipeline syntax into a tree of :class:`Element`.

    Raises:
        HiloError: on a syntax error (message names the column).
    """
    return _Parser(text).parse()


def parse_options(text: str, pass_arg: str) -> dict[str, str]:
    """Split ``a=1 b=true c={x y}`` (MLIR option syntax, space-separated) into a dict."""
    out: dict[str, str] = {}
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            break
        start = i
        while i < n and not text[i].isspace() and text[i] != "=":
            i += 1
        key = text[start:i]
        if not key:
            raise HiloError(f"malformed options '{text}' for pass '{pass_arg}'")
        if i < n and text[i] == "=":
            i += 1
            vstart, depth, quote = i, 0, None
            while i < n:
                c = text[i]
                if quote:
                    if c == quote:
                        quote = None
                elif c in "'\"":
                    quote = c
                elif c in "{[(":
                    depth += 1
                elif c in "}])":
                    depth -= 1
                elif c.isspace() and depth == 0:
                    break
                i += 1
            out[key] = text[vstart:i]
        else:
            out[key] = "true"
    return out
