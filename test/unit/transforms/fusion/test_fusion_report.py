"""The fusion report (docs/fusion_report.md): every decision recorded, with a reason from the vocabulary.

* one small input per reason code: the refusal is recorded with that code, the
  kind and the anchor's ``file:line:col`` (and every code has such an input);
* formed clusters carry ops, live-ins and live-outs, and their number per kind
  equals the pass statistics;
* nothing is recorded (no recorder is even made) unless a report is asked for;
* the JSON and HTML files (``{report=DIR}``, ``compile_file(fusion_report=)``,
  ``hilo2penguin --fusion-report``), the HTML well-formed with one SVG per
  drawn decision, and the fallback without Graphviz.
"""

import collections
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from conftest import EXAMPLES, ROOT

from hilo_mlir.fusion import report as fusion_report
from hilo_mlir.fusion.report import REASONS, FusionReport, code_of, statistic_for
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passmanager.pipeline import CompileOutputs, Pipeline, PipelineEnv

FUSE = "stablehlo-neuron-op-fusion{fuse-dot-logistic=true general-elementwise-fusion=true}"
MFUSE = "neuron-op-fusion{fuse-dot-logistic=true general-elementwise-fusion=true}"
T = "tensor<4x4xf32>"
DOT = f"stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : ({T}, {T}) -> {T}"


def _f(body: str, args: str = f"%x: {T}, %w: {T}", results: str = T) -> str:
    return f"func.func @main({args}) -> ({results}) {{\n{body}\n}}"


def run_report(text: str, pipeline: str, filename: str = "in.mlir"):
    """Run ``pipeline`` with a report in the pipeline's outputs; returns (report, pipeline)."""
    rep = FusionReport(filename)
    with make_context():
        m = ir.Module.parse(text)
        p = Pipeline.from_text(f"builtin.module({pipeline})", env=PipelineEnv(filename=filename), outputs=CompileOutputs(fusion_report=rep))
        p.run(m)
    return rep, p


# --------------------------------------------------------------------------- one input per reason code

CASES = [
    # (code, kind, pipeline, module text)
    (
        "inside-fusion",
        "DotLogistic",
        "neuron-op-fusion{fuse-dot-logistic=true}",
        """
func.func @main(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %f = "mhlo.fusion"(%x, %w) ({
  ^bb0(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>):
    %d = "mhlo.dot"(%a, %b) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %l = mhlo.logistic %d : tensor<4x4xf32>
    "mhlo.return"(%l) : (tensor<4x4xf32>) -> ()
  }) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %f : tensor<4x4xf32>
}""",
    ),
    (
        "not-one-block",
        "DotLogistic",
        FUSE,
        _f(f"""
  %d = {DOT}
  %i = stablehlo.constant dense<0> : tensor<i32>
  %r = "stablehlo.case"(%i) ({{
    %l = stablehlo.logistic %d : {T}
    stablehlo.return %l : {T}
  }}) : (tensor<i32>) -> {T}
  return %r : {T}"""),
    ),
    (
        "no-live-out",
        "DotLogistic",
        FUSE,
        _f(f"""
  %d = {DOT}
  %l = stablehlo.logistic %d : {T}
  %m = stablehlo.multiply %d, %l : {T}
  return %x : {T}"""),
    ),
    (
        "not-convex",
        "Elementwise",
        "stablehlo-test-fusion-cluster",
        _f(f"""
  %0 = stablehlo.exponential %x {{test.fuse = "g"}} : {T}
  %1 = stablehlo.negate %0 : {T}
  %2 = stablehlo.add %0, %1 {{test.fuse = "g"}} : {T}
  return %2 : {T}"""),
    ),
    (
        "side-effecting-dependent",
        "Elementwise",
        "stablehlo-test-fusion-cluster",
        _f(f"""
  %0 = stablehlo.exponential %x {{test.fuse = "g"}} : {T}
  %1 = stablehlo.custom_call @print(%0) : ({T}) -> {T}
  %2 = stablehlo.negate %w {{test.fuse = "g"}} : {T}
  %3 = stablehlo.add %1, %2 : {T}
  return %3 : {T}"""),
    ),
    (
        "producer-not-dot",
        "DotLogistic",
        FUSE,
        _f(f"""
  %a = stablehlo.add %x, %w : {T}
  %l = stablehlo.logistic %a : {T}
  return %l : {T}"""),
    ),
    (
        "logistic-multi-use",
        "DotLogistic",
        FUSE,
        _f(f"""
  %d = {DOT}
  %l = stablehlo.logistic %d : {T}
  %m = stablehlo.multiply %l, %x : {T}
  %n = stablehlo.add %l, %m : {T}
  return %n : {T}"""),
    ),
]


def _pass_b(extra_users: str, mul: str = "%m = stablehlo.multiply %r, %l : tensor<16xf32>", producer: str = DOT, ret: str = "%m") -> str:
    return _f(
        f"""
  %d = {producer}
  %r = stablehlo.reshape %d : ({T}) -> tensor<16xf32>
  %l = stablehlo.logistic %r : tensor<16xf32>
  {mul}
  {extra_users}
  return {ret} : tensor<16xf32>""",
        results="tensor<16xf32>",
    )


CASES += [
    (
        "reshape-users!=2",
        "ReassociatedReshape",
        FUSE,
        _pass_b("%e = stablehlo.exponential %r : tensor<16xf32>\n  %s = stablehlo.add %m, %e : tensor<16xf32>", ret="%s"),
    ),
    ("reshape-producer-not-dot", "ReassociatedReshape", FUSE, _pass_b("", producer=f"stablehlo.add %x, %w : {T}")),
    ("reshape-users-not-logistic-and-multiply", "ReassociatedReshape", FUSE, _pass_b("", mul="%m = stablehlo.add %r, %l : tensor<16xf32>")),
    (
        "multiply-not-reshape-times-logistic",
        "ReassociatedReshape",
        FUSE,
        _f(
            f"""
  %d = {DOT}
  %r = stablehlo.reshape %d : ({T}) -> tensor<16xf32>
  %l = stablehlo.logistic %r : tensor<16xf32>
  %c = stablehlo.constant dense<2.0> : tensor<16xf32>
  %m = stablehlo.multiply %r, %c : tensor<16xf32>
  %s = stablehlo.add %m, %l : tensor<16xf32>
  return %s : tensor<16xf32>""",
            results="tensor<16xf32>",
        ),
    ),
]

RMS_ARGS = "%x: tensor<4x8xf32>"
ZERO = "%z = stablehlo.constant dense<0.0> : tensor<f32>"


def _rms(
    chain: str,
    square: str = "%q = stablehlo.multiply %x, %x : tensor<4x8xf32>",
    reducer: str = "stablehlo.add",
    ret: str = "%s",
    rt: str = "tensor<4xf32>",
) -> str:
    return _f(
        f"""
  {ZERO}
  {square}
  %r = stablehlo.reduce(%q init: %z) applies {reducer} across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  {chain}
  return {ret} : {rt}""",
        args=RMS_ARGS + ", %y: tensor<4xf32>",
        results=rt,
    )


EPS = "%eps = stablehlo.constant dense<1.0e-6> : tensor<4xf32>"
CASES += [
    (
        "chain-multi-use",
        "MulRedSqrt",
        FUSE,
        _rms(f"""{EPS}
  %a = stablehlo.add %r, %eps : tensor<4xf32>
  %s0 = stablehlo.rsqrt %a : tensor<4xf32>
  %s = stablehlo.add %s0, %a : tensor<4xf32>"""),
    ),
    (
        "chain-op-not-allowed",
        "MulRedSqrt",
        FUSE,
        _rms("""%e = stablehlo.exponential %r : tensor<4xf32>
  %s = stablehlo.rsqrt %e : tensor<4xf32>"""),
    ),
    (
        "link-operand-not-constant",
        "MulRedSqrt",
        FUSE,
        _rms("""%a = stablehlo.add %r, %y : tensor<4xf32>
  %s = stablehlo.rsqrt %a : tensor<4xf32>"""),
    ),
    (
        "not-unit-dim-insertion",
        "MulRedSqrt",
        FUSE,
        _rms(
            """%a = stablehlo.reshape %r : (tensor<4xf32>) -> tensor<2x2xf32>
  %s = stablehlo.rsqrt %a : tensor<2x2xf32>""",
            rt="tensor<2x2xf32>",
        ),
    ),
    ("reduce-not-add", "MulRedSqrt", FUSE, _rms("%s = stablehlo.rsqrt %r : tensor<4xf32>", reducer="stablehlo.maximum")),
    (
        "reduce-input-not-square",
        "MulRedSqrt",
        FUSE,
        _rms(
            "%s = stablehlo.rsqrt %r : tensor<4xf32>",
            square="%q = stablehlo.multiply %x, %x : tensor<4x8xf32>\n  %q2 = stablehlo.add %q, %q : tensor<4x8xf32>",
        ).replace("reduce(%q init", "reduce(%q2 init"),
    ),
    (
        "chain-reaches-argument",
        "MulRedSqrt",
        FUSE,
        _f(
            """
  %s = stablehlo.sqrt %y : tensor<4xf32>
  return %s : tensor<4xf32>""",
            args="%y: tensor<4xf32>",
            results="tensor<4xf32>",
        ),
    ),
    (
        "chain-too-long",
        "MulRedSqrt",
        FUSE,
        _f(
            "\n".join(
                ["  %c = stablehlo.constant dense<1.0> : tensor<4xf32>", "  %v0 = stablehlo.multiply %y, %c : tensor<4xf32>"]
                + [f"  %v{i} = stablehlo.multiply %v{i - 1}, %c : tensor<4xf32>" for i in range(1, 70)]
                + ["  %s = stablehlo.rsqrt %v69 : tensor<4xf32>", "  return %s : tensor<4xf32>"]
            ),
            args="%y: tensor<4xf32>",
            results="tensor<4xf32>",
        ),
    ),
]


def _lse(inner: str, ret: str = "%root") -> str:
    return _f(f"""
  %m = stablehlo.maximum %x, %w : {T}
  {inner}
  %lg = stablehlo.log %s : {T}
  %root = stablehlo.add %m, %lg : {T}
  return {ret} : {T}""")


CASES += [
    ("log-operand-not-add", "Elementwise", FUSE, _lse(f"%s = stablehlo.multiply %x, %w : {T}")),
    (
        "add-operands-not-exp",
        "Elementwise",
        FUSE,
        _lse(f"""%a = stablehlo.subtract %x, %m : {T}
  %e1 = stablehlo.exponential %a : {T}
  %e2 = stablehlo.sine %a : {T}
  %s = stablehlo.add %e1, %e2 : {T}"""),
    ),
    (
        "exp-multi-use",
        "Elementwise",
        FUSE,
        _lse(f"""%a = stablehlo.subtract %x, %m : {T}
  %b = stablehlo.subtract %w, %m : {T}
  %e1 = stablehlo.exponential %a : {T}
  %e2 = stablehlo.exponential %b : {T}
  %s = stablehlo.add %e1, %e2 : {T}
  %u = stablehlo.add %e1, %e1 : {T}"""),
    ),
    (
        "exp-operand-not-subtract",
        "Elementwise",
        FUSE,
        _lse(f"""%a = stablehlo.add %x, %m : {T}
  %b = stablehlo.subtract %w, %m : {T}
  %e1 = stablehlo.exponential %a : {T}
  %e2 = stablehlo.exponential %b : {T}
  %s = stablehlo.add %e1, %e2 : {T}"""),
    ),
    (
        "subtrahend-not-max",
        "Elementwise",
        FUSE,
        _lse(f"""%a = stablehlo.subtract %x, %w : {T}
  %b = stablehlo.subtract %w, %m : {T}
  %e1 = stablehlo.exponential %a : {T}
  %e2 = stablehlo.exponential %b : {T}
  %s = stablehlo.add %e1, %e2 : {T}"""),
    ),
    (
        "minuends-not-max-operands",
        "Elementwise",
        FUSE,
        _lse(f"""%a = stablehlo.subtract %x, %m : {T}
  %b = stablehlo.subtract %x, %m : {T}
  %e1 = stablehlo.exponential %a : {T}
  %e2 = stablehlo.exponential %b : {T}
  %s = stablehlo.add %e1, %e2 : {T}"""),
    ),
    (
        "op-multi-use",
        "Expm1",
        FUSE,
        _f(f"""
  %e = stablehlo.exponential_minus_one %x : {T}
  %a = stablehlo.add %e, %e : {T}
  return %a : {T}"""),
    ),
    (
        "dtype-not-float",
        "Log1p",
        FUSE,
        _f(
            """
  %e = stablehlo.log_plus_one %x : tensor<4xcomplex<f32>>
  return %e : tensor<4xcomplex<f32>>""",
            args="%x: tensor<4xcomplex<f32>>",
            results="tensor<4xcomplex<f32>>",
        ),
    ),
    (
        "dynamic-shape",
        "Expm1",
        FUSE,
        _f(
            """
  %e = stablehlo.exponential_minus_one %x : tensor<?xf32>
  return %e : tensor<?xf32>""",
            args="%x: tensor<?xf32>",
            results="tensor<?xf32>",
        ),
    ),
]


def _reduce_of(producer: str, extra: str = "", ret: str = "%r", rt: str = "tensor<4xf32>", args=RMS_ARGS) -> str:
    return _f(
        f"""
  {ZERO}
  {producer}
  %r = stablehlo.reduce(%p init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  {extra}
  return {ret} : {rt}""",
        args=args,
        results=rt,
    )


CASES += [
    (
        "R1-other-block",
        "Elementwise",
        FUSE,
        _f(
            """
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %p = stablehlo.exponential %x : tensor<4x8xf32>
  %i = stablehlo.constant dense<0> : tensor<i32>
  %c = "stablehlo.case"(%i) ({
    %r = stablehlo.reduce(%p init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    stablehlo.return %r : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  return %c : tensor<4xf32>""",
            args=RMS_ARGS,
            results="tensor<4xf32>",
        ),
    ),
    (
        "R2-boundary",
        "Elementwise",
        FUSE,
        _reduce_of("%p = stablehlo.transpose %x, dims = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>", args="%x: tensor<8x4xf32>"),
    ),
    (
        "R3-not-elementwise",
        "Elementwise",
        FUSE,
        _reduce_of(
            "%p = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>",
            args="%x: tensor<4x4xf32>, %w: tensor<4x8xf32>",
        ),
    ),
    (
        "R4-user-outside",
        "Elementwise",
        FUSE,
        _reduce_of("%p = stablehlo.exponential %x : tensor<4x8xf32>", ret="%r, %p", rt="tensor<4xf32>, tensor<4x8xf32>"),
    ),
]

SCHED_ARGS = "%x: tensor<8xf32>"
RS = (
    '%rs = "stablehlo.reduce_scatter"(%x) ({\n  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n'
    "    %s = stablehlo.add %a, %b : tensor<f32>\n    stablehlo.return %s : tensor<f32>\n"
    "  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<8xf32>) -> tensor<4xf32>"
)


def _ag(src: str) -> str:
    return (
        f'%ag = "stablehlo.all_gather"({src}) {{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : '
        f"tensor<1x2xi64>}} : (tensor<4xf32>) -> tensor<8xf32>"
    )


CASES += [
    (
        "dependent-pair",
        "ScheduleFusion",
        "stablehlo-schedule-fusion",
        _f(f"  {RS}\n  {_ag('%rs')}\n  return %ag : tensor<8xf32>", args=SCHED_ARGS, results="tensor<8xf32>"),
    ),
    (
        "no-adjacent-partner",
        "ScheduleFusion",
        "stablehlo-schedule-fusion",
        _f(f"  {_ag('%y')}\n  return %ag : tensor<8xf32>", args="%y: tensor<4xf32>", results="tensor<8xf32>"),
    ),
]


def _sigmoid(
    neg: str = "%n = stablehlo.negate %x : tensor<4xf32>",
    num: str = "1.0",
    addend: str = "1.0",
    extra: str = "",
    ret: str = "%d",
    t: str = "tensor<4xf32>",
    exp_in: str = "%n",
) -> str:
    return _f(
        f"""
  %one = stablehlo.constant dense<{num}> : {t}
  %c = stablehlo.constant dense<{addend}> : {t}
  {neg}
  %e = stablehlo.exponential {exp_in} : {t}
  %a = stablehlo.add %e, %c : {t}
  %d = stablehlo.divide %one, %a : {t}
  {extra}
  return {ret} : {t}""",
        args=f"%x: {t}",
        results=t,
    )


CASES += [
    ("add-multi-use", "Logistic", "raise-logistic", _sigmoid(extra="%u = stablehlo.add %d, %a : tensor<4xf32>", ret="%u")),
    ("negate-multi-use", "Logistic", "raise-logistic", _sigmoid(extra="%u = stablehlo.add %d, %n : tensor<4xf32>", ret="%u")),
    ("exp-operand-not-negate", "Logistic", "raise-logistic", _sigmoid(neg="", exp_in="%x")),
    ("numerator-not-one", "Logistic", "raise-logistic", _sigmoid(num="2.0")),
    ("addend-not-one", "Logistic", "raise-logistic", _sigmoid(addend="2.0")),
]

SM_T = "tensor<4x8xf32>"
NEG_INF = "%ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>"


def _softmax(
    shift_dims: str = "[0]",
    sum_dims: str = "[0]",
    reducer: str = "stablehlo.add",
    shift: str | None = None,
    den: str | None = None,
    extra: str = "",
    ret: str = "%r",
    t: str = SM_T,
) -> str:
    shift = shift or f"%mb = stablehlo.broadcast_in_dim %mx, dims = {shift_dims} : (tensor<4xf32>) -> {t}"
    den = den or f"%sb = stablehlo.broadcast_in_dim %sm, dims = {sum_dims} : (tensor<4xf32>) -> {t}"
    return _f(
        f"""
  {NEG_INF}
  {ZERO}
  %mx = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : ({t}, tensor<f32>) -> tensor<4xf32>
  {shift}
  %sub = stablehlo.subtract %x, %mb : {t}
  %e = stablehlo.exponential %sub : {t}
  %sm = stablehlo.reduce(%e init: %z) applies {reducer} across dimensions = [1] : ({t}, tensor<f32>) -> tensor<4xf32>
  {den}
  %r = stablehlo.divide %e, %sb : {t}
  {extra}
  return {ret} : {t}""",
        args=f"%x: {t}",
        results=t,
    )


CASES += [
    (
        "exp-operand-not-subtract",
        "Softmax",
        "stablehlo-convert-fs-pattern-to-custom-calls",
        _softmax().replace("%e = stablehlo.exponential %sub", "%e = stablehlo.exponential %x"),
    ),
    (
        "max-not-against-neg-inf",
        "Softmax",
        "stablehlo-convert-fs-pattern-to-custom-calls",
        _softmax(
            shift=f"%zb = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<4xf32>\n"
            f"  %mm = stablehlo.maximum %zb, %mx : tensor<4xf32>\n"
            f"  %mb = stablehlo.broadcast_in_dim %mm, dims = [0] : (tensor<4xf32>) -> {SM_T}"
        ),
    ),
    (
        "not-rank-reducing-broadcast",
        "Softmax",
        "stablehlo-convert-fs-pattern-to-custom-calls",
        _softmax(den=f"%sb = stablehlo.add %x, %x : {SM_T}"),
    ),
    (
        "broadcast-dims-mismatch",
        "Softmax",
        "stablehlo-convert-fs-pattern-to-custom-calls",
        _softmax(
            den=f"%sm0 = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [0] : ({SM_T}, tensor<f32>) -> tensor<8xf32>\n"
            f"  %sb = stablehlo.broadcast_in_dim %sm0, dims = [1] : (tensor<8xf32>) -> {SM_T}"
        ),
    ),
    ("not-softmax-reduces", "Softmax", "stablehlo-convert-fs-pattern-to-custom-calls", _softmax(reducer="stablehlo.multiply")),
    (
        "intermediate-used-outside",
        "Softmax",
        "stablehlo-convert-fs-pattern-to-custom-calls",
        _softmax(extra=f"%o = stablehlo.add %r, %e : {SM_T}", ret="%o"),
    ),
    (
        "type-mismatch",
        "Softmax",
        "stablehlo-convert-fs-pattern-to-custom-calls",
        """
func.func @main(%x: tensor<?x8xf32>) -> tensor<4x8xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %mx = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<?x8xf32>, tensor<f32>) -> tensor<?xf32>
  %mb = stablehlo.broadcast_in_dim %mx, dims = [0] : (tensor<?xf32>) -> tensor<4x8xf32>
  %sub = stablehlo.subtract %x, %mb : (tensor<?x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = stablehlo.exponential %sub : tensor<4x8xf32>
  %sm = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %sb = stablehlo.broadcast_in_dim %sm, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
  %r = stablehlo.divide %e, %sb : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}""",
    ),
    (
        "type-mismatch",
        "Logistic",
        "raise-logistic",
        """
func.func @main(%x: tensor<?xf32>) -> tensor<4xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<4xf32>
  %n = stablehlo.negate %x : (tensor<?xf32>) -> tensor<4xf32>
  %e = stablehlo.exponential %n : tensor<4xf32>
  %a = stablehlo.add %e, %one : tensor<4xf32>
  %d = stablehlo.divide %one, %a : tensor<4xf32>
  return %d : tensor<4xf32>
}""",
    ),
    (
        "dtype-not-float",
        "Logistic",
        "raise-logistic",
        _f(
            """
  %one = stablehlo.constant dense<(1.0,0.0)> : tensor<4xcomplex<f32>>
  %n = stablehlo.negate %x : tensor<4xcomplex<f32>>
  %e = stablehlo.exponential %n : tensor<4xcomplex<f32>>
  %a = stablehlo.add %e, %one : tensor<4xcomplex<f32>>
  %d = stablehlo.divide %one, %a : tensor<4xcomplex<f32>>
  return %d : tensor<4xcomplex<f32>>""",
            args="%x: tensor<4xcomplex<f32>>",
            results="tensor<4xcomplex<f32>>",
        ),
    ),
    (
        "dynamic-shape",
        "Softmax",
        "stablehlo-convert-fs-pattern-to-custom-calls",
        _f(
            """
  %e = stablehlo.exponential %x : tensor<?x8xf32>
  %r = stablehlo.divide %e, %x : tensor<?x8xf32>
  return %r : tensor<?x8xf32>""",
            args="%x: tensor<?x8xf32>",
            results="tensor<?x8xf32>",
        ),
    ),
    (
        "dtype-not-float",
        "Softmax",
        "stablehlo-convert-fs-pattern-to-custom-calls",
        _f(
            """
  %e = stablehlo.exponential %x : tensor<4xcomplex<f32>>
  %r = stablehlo.divide %e, %x : tensor<4xcomplex<f32>>
  return %r : tensor<4xcomplex<f32>>""",
            args="%x: tensor<4xcomplex<f32>>",
            results="tensor<4xcomplex<f32>>",
        ),
    ),
]


@pytest.mark.parametrize("code,kind,pipeline,text", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_each_reason_is_recorded_with_its_anchor_location(code, kind, pipeline, text):
    rep, pipe = run_report(text, pipeline)
    assert_matches_statistics(rep, pipe.stats)
    got = [r for r in rep.refusals() if r.code == code]
    assert got, f"no '{code}' refusal; recorded: {[(r.kind, r.reason) for r in rep.refusals()]}"
    r = got[0]
    assert r.kind == kind
    assert re.fullmatch(r"in\.mlir:\d+:\d+", r.anchor["loc"]), r.anchor
    assert code_of(r.reason) in REASONS


def test_every_reason_code_has_an_input():
    # out-of-fuel needs a run-level budget, not a pipeline text: test_check_fuel.py records it
    assert {c[0] for c in CASES} | {"out-of-fuel"} == set(REASONS)


# --------------------------------------------------------------------------- formed clusters and statistics

SILU = _f(f"""
  %d = {DOT}
  %l = stablehlo.logistic %d : {T}
  %m = stablehlo.multiply %d, %l : {T}
  return %m : {T}""")


def test_formed_cluster_has_ops_live_ins_and_live_outs():
    rep, _ = run_report(SILU, FUSE)
    [c] = rep.clusters()
    assert (c.pass_, c.rule, c.kind) == ("stablehlo-neuron-op-fusion", "fuseDotLogisticOp", "DotLogistic")
    assert [o["name"] for o in c.ops] == ["stablehlo.dot_general", "stablehlo.logistic", "stablehlo.multiply"]
    assert [o["loc"] for o in c.ops] == ["in.mlir:3:8", "in.mlir:4:8", "in.mlir:5:8"]
    assert c.live_ins == [{"type": T, "from": {"argument": 0}}, {"type": T, "from": {"argument": 1}}]
    assert c.live_outs == [
        {"type": T, "from": {"name": "stablehlo.multiply", "loc": "in.mlir:5:8"}, "users": [{"name": "func.return", "loc": "in.mlir:6:3"}]}
    ]
    assert rep.summary_lines() == ["DotLogistic: 1 formed, 0 refused"]


def assert_matches_statistics(rep: FusionReport, statistics: dict) -> None:
    """Per pass and kind, the clusters in the report number what the pass's statistic counts, and
    the codegen's refusals number its ``refused-<kind>`` / ``refused-pairs``."""
    from hilo_mlir.passmanager import registry

    formed = collections.Counter((c.pass_, c.kind) for c in rep.clusters())
    for (pass_arg, kind), n in formed.items():
        assert statistics[registry.get(pass_arg).display_name][statistic_for(pass_arg, kind)] == n, (pass_arg, kind)
    codegen = collections.Counter(
        (r.pass_, r.kind) for r in rep.refusals() if r.code in ("no-live-out", "not-convex", "side-effecting-dependent")
    )
    for (pass_arg, kind), n in codegen.items():
        key = "refused-pairs" if "schedule-fusion" in pass_arg else "refused" if "test-fusion-cluster" in pass_arg else f"refused-{kind}"
        assert statistics[registry.get(pass_arg).display_name][key] == n, (pass_arg, kind)
    for _name, stats in statistics.items():  # and no statistic counts a cluster the report lacks
        for key, n in stats.items():
            if key.startswith("clusters-") and n:
                assert sum(v for (_p, k), v in formed.items() if k == key[len("clusters-") :]) == n, key


def test_nothing_is_recorded_without_a_report(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("a recorder was made without a report")

    monkeypatch.setattr(fusion_report.Recorder, "__init__", boom)
    with make_context():
        m = ir.Module.parse(SILU)
        p = Pipeline.from_text(
            f"builtin.module(raise-logistic,{FUSE},stablehlo-convert-fs-pattern-to-custom-calls,stablehlo-schedule-fusion)"
        )
        p.run(m)
        assert p.outputs.fusion_report is None


# --------------------------------------------------------------------------- the files


def _svg_count(html_text: str) -> int:
    root = ET.fromstring(html_text.split("\n", 1)[1])  # drop the <!DOCTYPE html> line
    return len(root.findall(".//{http://www.w3.org/2000/svg}svg"))


needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")


@needs_dot
def test_pass_option_writes_json_and_well_formed_html(tmp_path):
    out = tmp_path / "rep"
    text = SILU.replace("%m = stablehlo.multiply %d, %l", "%m = stablehlo.multiply %l, %x")  # 2-op arm
    with make_context():
        m = ir.Module.parse(text)
        Pipeline.from_text(f"builtin.module(stablehlo-neuron-op-fusion{{fuse-dot-logistic=true report={out}}})").run(m)
    doc = json.loads((out / "fusion_report.json").read_text())
    assert doc["functions"][0]["name"] == "main"
    [c] = doc["functions"][0]["clusters"]
    assert c["kind"] == "DotLogistic" and [o["name"] for o in c["ops"]] == ["stablehlo.dot_general", "stablehlo.logistic"]
    html_text = (out / "fusion_report.html").read_text()
    assert _svg_count(html_text) == 1
    assert "http://" not in html_text.replace("http://www.w3.org/", "")  # nothing fetched from the network
    assert "<script" not in html_text


def test_html_without_graphviz_shows_tables_and_a_note(tmp_path, monkeypatch):
    rep, _ = run_report(SILU, FUSE)
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    _, hpath = fusion_report.write_report(rep, str(tmp_path))
    text = open(hpath).read()
    assert _svg_count(text) == 0
    assert "was not found on PATH" in text and "stablehlo.dot_general" in text


def _decoder_report(tmp_path, spine):
    from hilo_mlir import compile_file
    from hilo_mlir.driver.config import CompileConfig

    out = tmp_path / spine
    src = compile_file(EXAMPLES / "decoder_layer.stablehlo.mlir", CompileConfig.preset("all"), spine=spine, fusion_report=str(out))
    return src, out


@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
def test_decoder_layer_report_matches_the_statistics(tmp_path, spine):
    src, out = _decoder_report(tmp_path, spine)
    rep = src.fusion_report
    assert {c.kind for c in rep.clusters()} >= {"DotLogistic", "MulRedSqrt", "Softmax", "Logistic"}
    assert_matches_statistics(rep, src.statistics)
    for r in rep.refusals():
        assert code_of(r.reason) in REASONS and r.anchor["loc"] != "unknown"
    doc = json.loads((out / "fusion_report.json").read_text())
    assert sum(len(f["clusters"]) for f in doc["functions"]) == len(rep.clusters())
    if shutil.which("dot"):
        drawn = min(len(rep.clusters()) + len(rep.refusals()), 500)
        assert _svg_count((out / "fusion_report.html").read_text()) == drawn


def test_training_step_shows_the_backward_refusals(tmp_path):
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    from hilo_mlir import jax as hjax
    from hilo_mlir.driver.config import CompileConfig

    def loss(params, x, t):
        h = jax.nn.silu(x @ params["w1"])
        h = h * jax.lax.rsqrt(jnp.mean(h * h, axis=-1, keepdims=True) + 1e-6)
        return jnp.mean((h @ params["w2"] - t) ** 2)

    def step(params, x, t):
        value, grads = jax.value_and_grad(loss)(params, x, t)
        return value, jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)

    params = {"w1": jnp.ones((16, 32), jnp.float32) * 0.01, "w2": jnp.ones((32, 8), jnp.float32) * 0.01}
    x, t = jnp.ones((4, 16), jnp.float32), jnp.zeros((4, 8), jnp.float32)
    out = tmp_path / "rep"
    prog = hjax.compile(step, params, x, t, config=CompileConfig.preset("all"), fusion_report=str(out))
    rep = prog.source.fusion_report
    refused = collections.Counter(r.code for r in rep.refusals() if r.kind == "DotLogistic")
    assert refused["logistic-multi-use"] >= 1  # the backward pass reuses the sigmoid
    assert_matches_statistics(rep, prog.source.statistics)
    for r in rep.refusals():
        assert code_of(r.reason) in REASONS and r.anchor["loc"] != "unknown"
    assert (out / "fusion_report.json").is_file() and (out / "fusion_report.html").is_file()


def test_hilo2penguin_prints_one_line_per_kind(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    rep = tmp_path / "report"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "hilo_mlir.tools.hilo2penguin",
            str(EXAMPLES / "decoder_layer.stablehlo.mlir"),
            "-o",
            str(tmp_path / "out"),
            "--preset",
            "all",
            "--fusion-report",
            str(rep),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    kinds = [ln for ln in lines if re.fullmatch(r"\w+: \d+ formed, \d+ refused( \(.*\))?", ln)]
    assert kinds and any(ln.startswith("MulRedSqrt:") for ln in kinds)
    assert (rep / "fusion_report.json").is_file() and (rep / "fusion_report.html").is_file()


# --------------------------------------------------------------------------- every lit case, with a report

from test_fusion_rewriter import _cases as _lit_cases  # noqa: E402


@pytest.mark.parametrize("text,pre,pipeline", list(_lit_cases()))
def test_every_lit_case_of_the_fusion_passes_records_consistently(text, pre, pipeline):
    """With a report asked for, the fusion passes' lit cases give the same IR as without one, every
    refusal has a vocabulary code and a location, and the clusters match the statistics."""
    with make_context():
        m = ir.Module.parse(text)
        if pre:
            Pipeline.from_text(f"builtin.module({pre})").run(m)
        plain = ir.Module.parse(str(m))
        Pipeline.from_text(f"builtin.module({pipeline})").run(plain)
        rep = FusionReport("in.mlir")
        p = Pipeline.from_text(
            f"builtin.module({pipeline})", env=PipelineEnv(filename="in.mlir"), outputs=CompileOutputs(fusion_report=rep)
        )
        p.run(m)
        assert str(m) == str(plain)  # recording changes nothing
    assert_matches_statistics(rep, p.stats)
    for r in rep.refusals():
        assert code_of(r.reason) in REASONS and r.anchor["loc"] != "unknown"
    json.dumps(rep.to_json())


def test_fusion_report_with_batch_is_one_clear_error(tmp_path, capsys):
    from hilo_mlir.tools import hilo2penguin

    rc = hilo2penguin.run(
        [str(EXAMPLES / "decoder_layer.stablehlo.mlir"), "-o", str(tmp_path), "--batch", "--fusion-report", str(tmp_path / "r")]
    )
    assert rc == 1
    assert capsys.readouterr().err == "hilo2penguin: error: --fusion-report needs a single input, not --batch\n"
    assert not (tmp_path / "r").exists()


def test_unwritable_report_folder_is_one_error_and_no_program(tmp_path, capsys):
    from hilo_mlir.tools import hilo2penguin

    blocker = tmp_path / "file"
    blocker.write_text("x")
    rc = hilo2penguin.run(
        [str(EXAMPLES / "decoder_layer.stablehlo.mlir"), "-o", str(tmp_path / "out"), "--fusion-report", str(blocker / "sub")]
    )
    assert rc == 1
    err = capsys.readouterr().err
    assert err == f"hilo2penguin: error: --fusion-report: cannot create folder '{blocker / 'sub'}': '{blocker}' is not a directory\n"
    assert not (tmp_path / "out" / "penguin.py").exists()
