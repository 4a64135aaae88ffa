"""The compiled graph for Model Explorer, with each op's error against the f64 truth.

Written into the check's output folder:

* ``model_explorer_graph.json``: a Model Explorer graph collection
  (``{"label", "graphs": [{"id", "nodes": [...]}]}``, the format its JSON
  adapter reads): one node per op of ``main`` of the module after the spine's
  fusion passes (fusions and composites inlined), fusion clusters as
  namespaces (``DotLogistic_0/...``), ``main``'s arguments as ``Input`` nodes,
  edges from each operand's producer; node attributes give the op's
  ``file:line:col`` and result type.
* ``model_explorer_node_data.json``: node data (``{graph id: {"results":
  {node id: {"value": v}}, "gradient": [...]}}``): for each float op, the max
  error of its result computed in the working precision on XLA CPU against the
  same graph computed in f64 (``stablehlo-widen-float-to-f64``), relative to
  the largest magnitude of its f64 result: where rounding error grows (the
  first ``MAX_PROBES`` float ops; every op is a node).

Open with ``model-explorer model_explorer_graph.json --node_data_paths=model_explorer_node_data.json``
(optional extra ``hilo-mlir[explorer]``). The fusion report's HTML links here when both are written.
"""

from __future__ import annotations

import json
import os

import numpy as np

from hilo_mlir.checker import evaluate as ev
from hilo_mlir.checker.errors import CheckError
from hilo_mlir.checker.verdict import _abs_err
from hilo_mlir.ir.dialects import FUSION_OPS, MHLO

GRAPH_FILE = "model_explorer_graph.json"
NODE_DATA_FILE = "model_explorer_node_data.json"
GRAPH_ID = "main"
_PROBE = "hilo.probe"
#: ops whose error is measured (the first ones of ``main``; every op is still a node)
MAX_PROBES = 4000
_CLUSTER = "hilo.cluster"


def _tag_clusters(m) -> None:
    """Give every op inside a fusion body or a composite's decomposition a ``hilo.cluster`` name."""
    from hilo_mlir.ir.binding import ir

    n = 0
    decomps: dict = {}
    fused = []

    def visit(op):
        if op.name in FUSION_OPS:
            fused.append(op)
        return ir.WalkResult.ADVANCE

    m.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    for op in fused:
        kind = "fusion"
        for key in ("CompositeKind", "FusionKind", "name"):
            if key in op.attributes and isinstance(op.attributes[key], ir.StringAttr):
                kind = ir.StringAttr(op.attributes[key]).value.split(".")[-1] or kind
                break
        tag = ir.StringAttr.get(f"{kind}_{n}")
        n += 1
        if op.name == MHLO.fusion:
            for body_op in op.regions[0].blocks[0].operations:
                body_op.operation.attributes[_CLUSTER] = tag
        elif "decomposition" in op.attributes:
            decomps[str(op.attributes["decomposition"]).lstrip("@")] = tag
    for f in m.body.operations:
        if f.operation.name == "func.func" and f.operation.attributes["sym_name"].value in decomps:
            tag = decomps[f.operation.attributes["sym_name"].value]
            for body_op in f.operation.regions[0].blocks[0].operations:
                body_op.operation.attributes[_CLUSTER] = tag


def _with_probes(text: str) -> str:
    """``text`` with every op's results also returned by ``main`` (ops tagged ``hilo.probe``, in order)."""
    from hilo_mlir.ir.binding import ir, make_context
    from hilo_mlir.testing import find_main

    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(text)
        f = find_main(m)
        block = f.regions[0].blocks[0]
        ops = [o.operation for o in block.operations]
        ret = ops[-1]
        probes = sorted(((ir.IntegerAttr(o.attributes[_PROBE]).value, o) for o in ops[:-1] if _PROBE in o.attributes), key=lambda x: x[0])
        extra = [o.results[0] for _, o in probes]
        new_ret = ir.Operation.create(ret.name, operands=list(ret.operands) + extra, loc=ret.location, ip=ir.InsertionPoint(ret))
        ret.erase()
        ft = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
        f.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(list(ft.inputs), [v.type for v in new_ret.operands]))
        if "res_attrs" in f.attributes:  # one entry per result: the probes have none
            del f.attributes["res_attrs"]
        return str(m)


def graph_and_errors(prefix_text: str, inputs: list, filename: str, label: str) -> tuple[dict, dict]:
    """(Model Explorer graph collection, node data) of ``prefix_text`` (our mhlo/stablehlo with fusions)."""
    from hilo_mlir.ir.binding import ir, make_context
    from hilo_mlir.support.diagnostics import location_to_str
    from hilo_mlir.testing import find_main, inline_fusions

    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(prefix_text)
        _tag_clusters(m)
        inline_fusions(m)
        plain = ev.evaluable(str(m.operation.get_asm(enable_debug_info=True)))
        m = ir.Module.parse(plain)
        f = find_main(m)
        block = f.regions[0].blocks[0]
        nodes: list[dict] = []
        producer: dict = {}
        for i, a in enumerate(block.arguments):
            nid = f"arg{i}"
            producer[hash(a)] = (nid, 0)
            nodes.append(
                {"id": nid, "label": "Input", "namespace": "", "attrs": [{"key": "type", "value": str(a.type)}], "incomingEdges": []}
            )
        probe_ids: list[str] = []
        ops = [o.operation for o in block.operations][:-1]
        for k, op in enumerate(ops):
            nid = f"op{k}"
            ns = ir.StringAttr(op.attributes[_CLUSTER]).value if _CLUSTER in op.attributes else ""
            edges = []
            for j, v in enumerate(op.operands):
                src = producer.get(hash(v))
                if src is not None:
                    edges.append({"sourceNodeId": src[0], "sourceNodeOutputId": str(src[1]), "targetNodeInputId": str(j)})
            loc = location_to_str(op.location, filename) or "unknown"
            rtypes = [str(r.type) for r in op.results]
            nodes.append(
                {
                    "id": nid,
                    "label": op.name.split(".", 1)[-1],
                    "namespace": ns,
                    "attrs": [{"key": "op", "value": op.name}, {"key": "loc", "value": loc}, {"key": "type", "value": ", ".join(rtypes)}],
                    "incomingEdges": edges,
                }
            )
            for r_i, r in enumerate(op.results):
                producer[hash(r)] = (nid, r_i)
            if op.results and isinstance(op.results[0].type, ir.RankedTensorType):
                et = str(ir.RankedTensorType(op.results[0].type).element_type)
                if et.startswith(("f", "bf")) and len(probe_ids) < MAX_PROBES:
                    op.attributes[_PROBE] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), len(probe_ids))
                    probe_ids.append(nid)
        tagged = str(m.operation.get_asm(enable_debug_info=True))
        n_out = len(ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value).results)
    results: dict = {}
    if probe_ids:
        work = ev.run_xla(_with_probes(tagged), inputs, what="the probed graph")[n_out:]
        truth = ev.run_truth(_with_probes(ev.widened(tagged)), inputs)[n_out:]
        for nid, w, t in zip(probe_ids, work, truth):
            w64, t64 = ev.to_f64(w), ev.to_f64(t)
            d = _abs_err(w64, t64)
            fin = np.isfinite(t64)
            scale = float(np.abs(t64[fin]).max()) if fin.any() else 0.0
            err = float(d.max()) if d.size else 0.0
            if not np.isfinite(err):  # a NaN or infinity where the truth has another value
                err = float(np.finfo(np.float64).max)
            results[nid] = {"value": err / scale if scale > 0 else err}
    graph = {"label": label, "graphs": [{"id": GRAPH_ID, "nodes": nodes}]}
    node_data = {
        GRAPH_ID: {
            "name": "max error vs f64 truth (relative to the op's scale)",
            "results": results,
            "gradient": [
                {"stop": 0, "bgColor": "#ffffff"},
                {"stop": max([r["value"] for r in results.values()] + [1e-30]), "bgColor": "#d93025"},
            ],
        }
    }
    return graph, node_data


def write_explorer(subject, cfg, inputs, out_dir: str, result) -> dict:
    """Write the graph and node data of the compile into ``out_dir``; returns ``{kind: path}``.

    The graph is the module after the spine's fusion passes (the last of
    ``neuron-op-fusion`` / ``schedule-fusion`` that runs; the whole spine when
    none does); a prefix XLA cannot run falls back to the input module.
    """
    from hilo_mlir.checker.bisect import _Prober

    p = _Prober(subject, cfg, inputs, [], [], [])
    k = len(p.steps)
    for i, s in enumerate(p.steps):
        if s.argument.endswith(("neuron-op-fusion", "schedule-fusion")):
            k = i + 1
    graph = data = None
    for idx in (k, 0):
        try:
            text, _ = p.prefix(idx)
            graph, data = graph_and_errors(text, inputs, subject.filename, f"hilo-check {os.path.basename(subject.filename)}")
            break
        except CheckError:
            continue
    if graph is None:
        return {}
    gp, dp = os.path.join(out_dir, GRAPH_FILE), os.path.join(out_dir, NODE_DATA_FILE)
    from hilo_mlir.support.io import atomic_write_text

    atomic_write_text(gp, json.dumps(graph, indent=1) + "\n")
    atomic_write_text(dp, json.dumps(data, indent=1) + "\n")
    return {"model_explorer_graph": gp, "model_explorer_node_data": dp}
