"""The prologue and epilogue of a program: the ``Function`` line, one ``markInput`` per entry argument,
one ``markOutput`` per result (format sections 3 and 4)."""

from __future__ import annotations

import re

from hilo_mlir.ir.interface_attrs import index_list, name_list, result_infos
from hilo_mlir.printers import supported as _sup
from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.support.pysource import py_literal

#: the ``model-type`` values of the Function prologue (neuronx-cc's ``--model-type``)
MODEL_TYPES = ("generic", "transformer", "unet-inference")
DEFAULT_MODEL_TYPE = "generic"


def parameter_file(index: int) -> str:
    """The ``np_file`` a parameter input is loaded from: ``input_<index>.npy`` beside ``penguin.py``."""
    return f"input_{index}.npy"


def print_prologue(p, main, body) -> None:
    """The ``Function`` line (filled in by :func:`function_line`) and one ``markInput`` per entry argument.

    ``input_<i> = m1.Tensor(name=, spec=).markInput(<function>, index=<i>,
    is_parameter_tensor=<i in slowChangingIns>[, weight_files=['input_<i>.npy'],
    np_file='input_<i>.npy'])`` (format section 3): a parameter names its
    weight file twice, in the order of seed 002's prologue comment
    ("+ weight_files / np_file"): ``weight_files`` is the list of the files
    the weight is loaded from (one), ``np_file`` that file.

    Raises:
        HiloError: an entry argument whose type the printers cannot emit.
    """
    p.mod()  # the root is m0: the Function line comes first
    p.function = p.fresh()
    p.write("")  # the Function line, written once the body is printed
    slow_ins = set(index_list(main, "slowChangingIns"))
    input_names = name_list(main, "input_names")
    args = body.arguments
    key = p.value_key
    names, value_types, reasons, lines = p.names, p.value_types, p.type_reasons, p.lines
    function = p.function
    input_names = input_names or []
    n_names = len(input_names)
    for i, (arg, t) in enumerate(zip(args, args.types)):
        reason = _sup.type_reason(t, reasons)
        if reason:
            raise HiloError(f"entry argument {i}: {reason}", loc=main.location)
        name = f"input_{i}"
        k = key(arg)
        names[k] = name
        value_types[k] = t
        label = input_names[i] if i < n_names else _loc_name(arg) or name
        if i in slow_ins:
            p.parameters[i] = parameter_file(i)
            slow, extra = True, f", weight_files={py_literal([p.parameters[i]])}, np_file={py_literal(p.parameters[i])}"
        else:
            slow, extra = False, ""
        lines.append(
            f"{p.indent}{name} = {p.mod('ir')}.Tensor(name={py_literal(label)}, spec={p.spec(t)})"
            f".markInput({function}, index={i}, is_parameter_tensor={slow}{extra})"
        )


def function_line(p, module) -> str:
    """``v<N> = m0.Function(id_=0, batch_ids=[], attrs=('model-type=<T>', 'mac-count=<N>', ...))``.

    After ``model-type`` and ``mac-count`` (the multiply-accumulates of
    every dot and convolution printed): ``module=<sym_name>`` when the
    module has one, ``num-partitions=`` / ``num-replicas=`` when set.
    """
    from hilo_mlir.ir.binding import ir

    fn_attrs = [f"model-type={p.model_type}", f"mac-count={p.mac_count}"]
    mattrs = module.attributes
    if "sym_name" in mattrs:
        fn_attrs.append(f"module={ir.StringAttr(mattrs['sym_name']).value}")
    for key, label in (("mhlo.num_partitions", "num-partitions"), ("mhlo.num_replicas", "num-replicas")):
        if key in mattrs:
            try:
                fn_attrs.append(f"{label}={int(ir.IntegerAttr(mattrs[key]).value)}")
            except (ValueError, TypeError):
                pass
    attrs_src = py_literal(tuple(fn_attrs))
    return f"{p.function} = {p.aliases['']}.Function(id_=0, batch_ids=[], attrs={attrs_src})"


def print_epilogue(p, main, ret) -> None:
    """One ``<function>.markOutput(...)`` per result, slow/fast from ``slowChangingOuts`` (section 4)."""
    slow_outs = set(index_list(main, "slowChangingOuts"))
    out_names = name_list(main, "output_names")
    info = result_infos(main)
    for j, v in enumerate(p.names_of(ret)):
        label: str | None
        if out_names and j < len(out_names):
            label = out_names[j]
        elif j < len(info) and info[j]:
            label = info[j]
        else:
            label = f"output_{j}"
        p.write(f"{p.function}.markOutput({v}, index={j}, name={py_literal(label)}, is_slow_changing={j in slow_outs})")


def _loc_name(arg) -> str | None:
    try:
        text = str(arg.location)
    except Exception:  # noqa: BLE001 - older bindings have no BlockArgument.location
        return None
    m = re.match(r'loc\("((?:[^"\\]|\\.)*)"\)$', text)
    return m.group(1) if m else None
