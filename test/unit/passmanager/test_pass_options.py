"""Declared pass options (:mod:`hilo_mlir.passmanager.options`): one dataclass per pass, the Option list derived from it."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import typing
from dataclasses import dataclass

import pytest
from conftest import ROOT

from hilo_mlir.passmanager import registry
from hilo_mlir.passmanager.options import declared_options, option
from hilo_mlir.passmanager.pass_context import Option, options_of
from hilo_mlir.passmanager.registry import PassInfo
from hilo_mlir.support.diagnostics import HiloError


def _positive(v: int) -> str | None:
    return None if v > 0 else "must be positive"


@dataclass(frozen=True)
class _Probe:
    max_elements: int = option(1 << 20, "largest result folded", check=_positive)
    verbose: bool = option(False, "say more")
    ratio: float = option(0.5, "a fraction")
    output: str = option("", "where to write", writes_file=True)


def _noop(op, ctx) -> None:
    return None


def test_the_option_list_is_derived_from_the_fields_in_order():
    assert declared_options(_Probe) == (
        Option("max-elements", int, 1 << 20, "largest result folded", _positive, False),
        Option("verbose", bool, False, "say more", None, False),
        Option("ratio", float, 0.5, "a fraction", None, False),
        Option("output", str, "", "where to write", None, True),
    )


def test_ctx_options_is_an_instance_of_the_declared_class():
    info = PassInfo("test-declared-options", "test", _noop, options_type=_Probe)
    assert [o.name for o in info.options] == ["max-elements", "verbose", "ratio", "output"]
    opts = options_of(info, info.resolve_options({"max-elements": "0x10", "verbose": "on"}))
    assert type(opts) is _Probe and opts == _Probe(max_elements=16, verbose=True, ratio=0.5, output="")
    with pytest.raises(HiloError) as e:
        info.resolve_options({"max-elements": "0"})
    assert e.value.message == "invalid value '0' for option 'max-elements' of pass 'test-declared-options': must be positive"


def test_replace_keeps_the_declaration():
    info = PassInfo("test-declared-options", "test", _noop, options_type=_Probe)
    again = dataclasses.replace(info, origin="plugin.py")
    assert again.options == info.options and again.options_type is _Probe


def test_every_built_in_python_pass_with_options_declares_a_dataclass():
    undeclared = [
        p.argument for p in registry.all_passes(plugins=False) if p.options and not p.upstream and not p.origin and p.options_type is None
    ]
    assert undeclared == []
    fold = registry.get("fold-iota")
    assert fold.options_type is not None and typing.get_type_hints(fold.options_type) == {"max_elements": int}


@dataclass(frozen=True)
class _Untagged:
    limit: int = 3


@dataclass(frozen=True)
class _BadType:
    names: tuple = option((), "a tuple")


@dataclass(frozen=True)
class _Clash:
    verbose: bool = option(True, "say more")


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"options_type": _Untagged}, "_Untagged.limit: declare the option with option(default, help)"),
        ({"options_type": _BadType}, "_BadType.names: an option's type is bool, int, float or str, not <class 'tuple'>"),
        ({"options_type": int}, "options_type must be a dataclass, got int"),
        (
            {"options_type": _Probe, "options": (Option("x", int, 1, "x"),)},
            "pass 'test-bad-options': give options_type or options, not both",
        ),
    ],
)
def test_a_bad_declaration_is_one_error_located_at_the_declaring_line(kw, message):
    with pytest.raises(HiloError) as e:
        PassInfo("test-bad-options", "test", _noop, **kw)
    assert e.value.message == message
    assert f'"{__file__}"' in str(e.value.loc)  # this file, not the registry's


@pytest.mark.slow
def test_mypy_checks_the_fields_a_pass_reads(tmp_path):
    src = tmp_path / "typo_pass.py"
    src.write_text(
        "from hilo_mlir.passes.legalization.fold_iota import FoldIotaOptions\n"
        "from hilo_mlir.passmanager.pass_context import PassContext\n\n\n"
        "def run(op: object, ctx: PassContext[FoldIotaOptions]) -> int:\n"
        "    return ctx.options.max_elementz\n"
    )
    r = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", str(src)], capture_output=True, text=True, cwd=ROOT)
    assert '"FoldIotaOptions" has no attribute "max_elementz"; maybe "max_elements"?' in r.stdout, r.stdout + r.stderr
