#!/usr/bin/env python3
"""Compile-time benchmark: our compile (either spine, ``--preset all``) against a C++ baseline.

Usage::

    python bench/run.py [--models L4,L64,L512] [--json PATH] [--spine mhlo|stablehlo|both] [--repeat N]
                        [--process-repeat N] [--no-process] [--depths 300,1000,3000,20000]

For each model (``decoder_stack_L4/L64/L512`` from ``../shared/corpus/jax/``, generated
by ``bench/models.py`` when that folder is absent, or ``NAME=path.mlir``), in one fresh
process each, it measures (both spines by default, against ONE baseline per model):

* ours: parse; each step of the pipeline, the import step ``hilo-import`` (input census, validation,
  sharding strip, stablehlo -> mhlo legalization) first (per-step wall time, ``passes``;
  ``legalize_s``: the pipelines run before the spine's, if any); the verifier runs after passes
  that changed the IR with ``--verify-each``, else the one run before the
  printer (``verify_s``, ``verify_runs``); printing ``penguin.py``
  (``print_s``); total; peak RSS of that process;
* the C++ floor of ours: parse + every upstream C++ pass it runs (the
  bridge, canonicalize, remove-dead-values unless it took its Python fast
  path; each with the verifier) + the
  verifier runs after Python passes (``cpp_floor_s``): the part no Python
  speed-up can remove;
* the baseline, in the same run and its own fresh process: parse + the
  binding's upstream C++ ``canonicalize,cse`` + printing the IR;
* the same compile with ``--verify-each`` (``verify_each_total_s``, and
  ``verify_each_ratio`` against the same baseline as ``ratio``), for
  comparison with the default (verify once);
* ``hilo2penguin --help`` and ``hilo-opt --help`` in fresh processes
  (``help_s``, interpreter start-up included).

It prints a table and writes JSON::

    {"help_s": {"hilo2penguin", "hilo-opt"},
     "models": {"L512": {"ops", "total_s", "baseline_s", "ratio", "peak_rss_mb", "verify_each_total_s",
                         "baseline_peak_rss_mb", "top_passes": [[name, s], ...],
                         "cpp_floor_s", "cpp_floor_ratio", ...}, ...},
     "scaling": {"time_ratio", "op_ratio", "python_time_ratio", "cpp_floor_time_ratio",
                 "baseline_time_ratio"}}

Times are wall-clock seconds (best of ``--repeat`` runs); RSS is in MiB.

Then, whole processes (CPU = user + system of the process and the children it
waited for, the forked compile worker included; ``--process-repeat`` pairs run
A B A B ..., the figure is the median of the pair ratios):

* ``hilo2penguin examples/decoder_layer.stablehlo.mlir`` against the binding-import
  floor ``python -c 'import jaxlib.mlir.ir, jaxlib.mlir.dialects.stablehlo, jaxlib.mlir.dialects.mhlo'``
  (target <= 1.6x);
* ``hilo2penguin --help`` against ``python -c pass`` (target <= 1.5x its CPU + 0.1 s);
* a module of bf16 constants against the same module in f32 (target: <= 0.3 s more);
* the call-inliner alone on chains of ``--depths`` calls (CPU in one process each;
  target: 3,000 within 2x of 10x the 300 figure);
* ops per second of the compile of each model, and of the largest real model.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import models  # noqa: E402  (bench/models.py: the models, generated when ../shared is absent)

#: the children's environment: our checkout first, bytecode cached the normal way
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPATH"] = ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")

_WORKER = r"""
import json, resource, sys, time, io
sys.path.insert(0, ROOT)
t_start = time.perf_counter()
from hilo_mlir.ir.binding import ir, make_context, passmanager
mode, path, spine = sys.argv[1], sys.argv[2], sys.argv[3]
out = {}
ctx = make_context()
text = open(path, "rb").read()
with ctx:
    t0, c0 = time.perf_counter(), time.process_time()
    module = ir.Module.parse(text)
    out["parse_s"] = time.perf_counter() - t0
    cpu = time.process_time() - c0
    n = 0
    def count(op):
        global n
        n += 1
        return ir.WalkResult.ADVANCE
    module.operation.walk(count)
    out["ops"] = n - 1
    if mode == "baseline":
        c0 = time.process_time()
        t0 = time.perf_counter()
        pm = passmanager.PassManager.parse("builtin.module(canonicalize,cse)")
        pm.run(module.operation)
        out["passes_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        buf = io.StringIO()
        module.operation.print(file=buf, assume_verified=True)
        out["print_s"] = time.perf_counter() - t0
        out["top_passes"] = [["canonicalize,cse", out["passes_s"]]]
    else:
        from hilo_mlir.driver import compiler
        from hilo_mlir.passmanager import pipeline
        from hilo_mlir.driver.config import CompileConfig
        # Observe (not change) the compile: every Pipeline it builds, and the
        # time of the steps before the spine (validation, sharding strip, bridge).
        pipes = []

        class _Observed(pipeline.Pipeline):
            def __init__(self, *a, **k):
                super().__init__(*a, **k)
                pipes.append(self)

        compiler.Pipeline = _Observed
        cfg = CompileConfig.preset("all").replace(stablehlo=(spine == "stablehlo"), verify_each=(mode == "verify-each"))
        # Importing the pass modules and printers happens once per process
        # (the baseline's process imports jaxlib outside its timing too):
        # reported as load_s, not part of total_s.
        from hilo_mlir import registry
        import hilo_mlir.printers.driver  # noqa: F401
        t0 = time.perf_counter()
        registry.all_passes()
        out["load_s"] = time.perf_counter() - t0
        t0, c0 = time.perf_counter(), time.process_time()
        loaded = compiler.LoadedModule.from_module(ctx, module, path)
        src = compiler.compile_loaded(loaded, cfg)
        out["passes_s"] = time.perf_counter() - t0
        spine_pipe = pipes[-1]
        timings = [(k, v) for k, v in src.timings if "py-penguin" not in k]
        out["top_passes"] = [[k, v] for k, v in sorted(timings, key=lambda kv: -kv[1])[:8]]
        out["all_passes"] = [[k, v] for k, v in src.timings]
        printer = [v for k, v in src.timings if "py-penguin" in k]
        out["print_s"] = sum(printer)
        out["spine_passes_s"] = sum(v for _, v in timings)
        out["verify_s"] = sum(v for p in pipes for _, v in p.verify_timings)
        out["verify_runs"] = sum(len(p.verify_timings) for p in pipes)
        out["legalize_s"] = sum(v for p in pipes[:-1] for _, v in p.timings)
        # The part of our compile that is C++ we must run: the upstream passes
        # (bridge and spine steps, each with its own verifier run) and the
        # verifier after every Python pass that changed the IR. An upstream step
        # that ran as its Python fast path (Pipeline.fast_paths: remove-dead-values)
        # ran no C++: not in the floor.
        cpp = [
            (s.display, t)
            for p in pipes
            for i, (s, (_, t)) in enumerate(zip(p.steps, p.timings))
            if s.cpp_text is not None and i not in getattr(p, "fast_paths", ())
        ]
        out["cpp_passes"] = cpp
        out["cpp_floor_s"] = out["parse_s"] + sum(t for _, t in cpp) + out["verify_s"]
        parts = out["parse_s"] + out["spine_passes_s"] + out["verify_s"] + out["print_s"]
        out["other_s"] = out["parse_s"] + out["passes_s"] - parts  # pipeline bookkeeping
out["total_s"] = out["parse_s"] + out["passes_s"] + (out["print_s"] if mode == "baseline" else 0.0)
out["cpu_s"] = cpu + time.process_time() - c0  # the same span in CPU seconds (the load_s imports excluded)
out["process_s"] = time.perf_counter() - t_start
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
print("BENCH" + json.dumps(out))
"""


_HELP_TOOLS = ("hilo2penguin", "hilo-opt")


def _time_help(tool: str) -> float:
    """Wall seconds of ``<tool> --help`` in a fresh process (interpreter start-up included)."""
    import time

    module = {"hilo2penguin": "hilo_mlir.tools.hilo2penguin", "hilo-opt": "hilo_mlir.tools.opt"}[tool]
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, env=ENV)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"{tool} --help failed:\n{r.stderr[-2000:]}")
    return dt


def _run(mode: str, path: str, spine: str) -> dict:
    code = _WORKER.replace("ROOT", repr(ROOT), 1)
    r = subprocess.run([sys.executable, "-c", code, mode, path, spine], capture_output=True, text=True, env=ENV)
    for line in r.stdout.splitlines():
        if line.startswith("BENCH"):
            return json.loads(line[5:])
    raise SystemExit(f"benchmark worker failed ({mode}, {path}):\n{r.stderr[-2000:]}")


def _cpu_of(cmd: list[str]) -> float:
    """CPU seconds (user + system) of ``cmd`` and the children it waited for."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd, capture_output=True, env=ENV, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{r.stderr.decode(errors='replace')[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _median(xs: list[float]) -> float:
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def _paired(a: list[str], b: list[str], repeat: int) -> dict:
    """A B A B ... (after one warm-up each): medians of each and of the pair ratios."""
    _cpu_of(a), _cpu_of(b)
    ta, tb = [], []
    for _ in range(repeat):
        ta.append(_cpu_of(a))
        tb.append(_cpu_of(b))
    return {
        "a_cpu_s": round(_median(ta), 4),
        "b_cpu_s": round(_median(tb), 4),
        "ratio": round(_median([x / y for x, y in zip(ta, tb)]), 3),
        "diff_s": round(_median([x - y for x, y in zip(ta, tb)]), 4),
    }


_INLINER = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import models
from hilo_mlir.ir.binding import ir, make_context
import hilo_mlir.passes  # installs the built-in passes into the registry (its front end)
from hilo_mlir.passmanager.pipeline import Pipeline, step_for
text = models.call_chain(int(sys.argv[2]))
with make_context():
    m = ir.Module.parse(text)
    t = time.process_time()
    Pipeline([step_for("call-inliner")], verify_each=False).run(m)
    print("BENCH", time.process_time() - t)
"""


def process_section(repeat: int, depths: list[int], tmp: str) -> dict:
    """The whole-process figures and the call-inliner depths (see the module docstring)."""
    py = sys.executable
    tool = [py, "-m", "hilo_mlir.tools.hilo2penguin"]
    example = os.path.join(ROOT, "examples", "decoder_layer.stablehlo.mlir")
    floor = [py, "-c", "import jaxlib.mlir.ir, jaxlib.mlir.dialects.stablehlo, jaxlib.mlir.dialects.mhlo"]
    out: dict = {}
    out["example_vs_binding_floor"] = _paired([*tool, example, "-o", os.path.join(tmp, "ex")], floor, repeat)
    out["help_vs_python"] = _paired([*tool, "--help"], [py, "-c", "pass"], repeat)
    for et in ("f32", "bf16"):
        with open(os.path.join(tmp, f"{et}.mlir"), "w") as f:
            f.write(models.constants_module(et))
    out["bf16_vs_f32"] = _paired(
        [*tool, os.path.join(tmp, "bf16.mlir"), "-o", os.path.join(tmp, "bf16")],
        [*tool, os.path.join(tmp, "f32.mlir"), "-o", os.path.join(tmp, "f32")],
        repeat,
    )
    inliner = {}
    for d in depths:
        r = subprocess.run([py, "-c", _INLINER, HERE, str(d)], capture_output=True, text=True, env=ENV, timeout=1200)
        line = [x for x in r.stdout.splitlines() if x.startswith("BENCH")]
        inliner[str(d)] = round(float(line[0].split()[1]), 3) if line else None
        if not line:  # say why, never a silent None in the table
            print(f"bench: call-inliner at depth {d} failed: {r.stderr.strip()[-800:]}", file=sys.stderr)
    out["call_inliner_s"] = inliner
    return out


def main(argv=None) -> int:
    import tempfile

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--models", default="L4,L64,L512", help="comma list of L<layers> or NAME=path.mlir")
    ap.add_argument("--json", default=None, help="write the results as JSON to this file")
    ap.add_argument("--spine", default="both", choices=("mhlo", "stablehlo", "both"), help="which pipeline spine(s) to measure")
    ap.add_argument("--repeat", type=int, default=1, help="best of N interleaved rounds per measurement")
    ap.add_argument("--process-repeat", type=int, default=5, help="pairs of whole-process runs (median)")
    ap.add_argument("--no-process", action="store_true", help="skip the whole-process and call-inliner figures")
    ap.add_argument("--depths", default="300,1000,3000,20000", help="call-inliner chain depths")
    ap.add_argument("--no-verify-each", action="store_true", help="skip the --verify-each runs")
    args = ap.parse_args(argv)
    spines = ("mhlo", "stablehlo") if args.spine == "both" else (args.spine,)

    models_ = []
    for item in [m for m in args.models.split(",") if m]:
        name, _, path = item.partition("=")
        if not path:
            path = models.model_path(name)
        if not os.path.exists(path):
            raise SystemExit(f"{name}: {path} not found")
        models_.append((name, path))
    # Rounds interleave the models, the spines and ours/baseline, so a machine that slows
    # down during the run skews neither the ratios nor the scaling. One baseline per model.
    # Each round starts one job later in the list than the round before (the list rotated):
    # a machine that slows down after some seconds of load (CPU credits, frequency) then
    # does not always hit the same job, and best-of-N gives every job its fast slots.
    runs: dict = {}
    helps: dict = {tool: [] for tool in _HELP_TOOLS}
    jobs: list[tuple[tuple, str, str, str]] = []  # (key, mode, path, spine)
    for name, path in models_:
        jobs.append(((name, "baseline"), "baseline", path, "mhlo"))
        for spine in spines:
            for mode in ("ours",) if args.no_verify_each else ("ours", "verify-each"):
                jobs.append(((name, spine, mode), mode, path, spine))
    for r in range(max(1, args.repeat)):
        k = r % len(jobs)
        for key, mode, path, spine in jobs[k:] + jobs[:k]:
            runs.setdefault(key, []).append(_run(mode, path, spine))
        for tool in _HELP_TOOLS:
            helps[tool].append(_time_help(tool))
    report: dict = {"spines": {}, "help_s": {tool: round(min(ts), 3) for tool, ts in helps.items()}}
    for spine in spines:
        results = {}
        for name, _path in models_:
            base = min(runs[(name, "baseline")], key=lambda r: r["total_s"])
            base_cpu = min(r["cpu_s"] for r in runs[(name, "baseline")])
            each = runs.get((name, spine, "verify-each"))  # None with --no-verify-each
            results[name] = _result(runs[(name, spine, "ours")], each, base, base_cpu)
        report["spines"][spine] = {"models": results, "scaling": _scaling(results)}
        _print_table(spine, results, args.repeat)
    if not args.no_process:
        with tempfile.TemporaryDirectory(prefix="hilo_bench_") as tmp:
            report["process"] = process_section(args.process_repeat, [int(d) for d in args.depths.split(",") if d], tmp)
        _print_process(report["process"])
    largest = max(models_, key=lambda m: report["spines"][spines[0]]["models"][m[0]]["ops"])[0]
    for spine in spines:
        r = report["spines"][spine]["models"]
        print(f"{spine}: ops/s " + ", ".join(f"{n} {m['ops'] / m['total_s']:,.0f}" for n, m in r.items()) + f" (largest: {largest})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
    return 0


def _result(ours_runs: list, each_runs: list | None, base: dict, base_cpu: float) -> dict:
    ours = min(ours_runs, key=lambda r: r["total_s"])
    out = _verify_each_result(each_runs, base)
    return out | {
        "ops": ours["ops"],
        "total_s": round(ours["total_s"], 4),
        "parse_s": round(ours["parse_s"], 4),
        "print_s": round(ours["print_s"], 4),
        "baseline_s": round(base["total_s"], 4),
        "ratio": round(ours["total_s"] / base["total_s"], 3),
        # CPU seconds (best of the rounds): what the targets are judged on, the machine being shared
        "cpu_s": round(min(r["cpu_s"] for r in ours_runs), 4),
        "baseline_cpu_s": round(base_cpu, 4),
        "cpu_ratio": round(min(r["cpu_s"] for r in ours_runs) / base_cpu, 3),
        "peak_rss_mb": round(ours["peak_rss_mb"], 1),
        "baseline_peak_rss_mb": round(base["peak_rss_mb"], 1),
        "top_passes": [[k, round(v, 4)] for k, v in ours["top_passes"]],
        # total_s = parse_s + spine_passes_s + verify_s + print_s + other_s
        "other_s": round(ours["other_s"], 4),
        "load_s": round(ours["load_s"], 4),
        "spine_passes_s": round(ours["spine_passes_s"], 4),
        "verify_s": round(ours["verify_s"], 4),
        "verify_runs": ours["verify_runs"],
        "legalize_s": round(ours["legalize_s"], 4),
        # parse + upstream C++ passes + verifier runs: what no Python speed-up can remove
        "cpp_floor_s": round(ours["cpp_floor_s"], 4),
        "cpp_floor_ratio": round(ours["cpp_floor_s"] / base["total_s"], 3),
        "baseline_parts_s": {k: round(base[k], 4) for k in ("parse_s", "passes_s", "print_s")},
        "passes": [[k, round(v, 4)] for k, v in ours["all_passes"]],
    }


def _verify_each_result(each_runs: list | None, base: dict) -> dict:
    """The same compile with the verifier after every pass that changed the IR (``--verify-each``):
    ``verify_each_total_s`` (s), ``verify_each_ratio`` (to the baseline), ``verify_each_verify_s`` (s);
    empty when it was not run (``--no-verify-each``)."""
    if not each_runs:
        return {}
    each = min(each_runs, key=lambda r: r["total_s"])
    return {
        "verify_each_total_s": round(each["total_s"], 4),
        "verify_each_ratio": round(each["total_s"] / base["total_s"], 3),
        "verify_each_verify_s": round(each["verify_s"], 4),
    }


def _scaling(results: dict) -> dict | None:
    if "L64" not in results or "L512" not in results:
        return None
    a, b = results["L64"], results["L512"]
    return {
        "time_ratio": round(b["total_s"] / a["total_s"], 3),
        "cpu_time_ratio": round(b["cpu_s"] / a["cpu_s"], 3),
        "op_ratio": round(b["ops"] / a["ops"], 3),
        # the same ratio for the parts: ours minus the C++ floor (our Python), the
        # C++ floor alone, and the baseline (C++ only) - which of them grows faster than the ops
        "python_time_ratio": round((b["total_s"] - b["cpp_floor_s"]) / (a["total_s"] - a["cpp_floor_s"]), 3),
        "cpp_floor_time_ratio": round(b["cpp_floor_s"] / a["cpp_floor_s"], 3),
        "baseline_time_ratio": round(b["baseline_s"] / a["baseline_s"], 3),
    }


def _print_table(spine: str, results: dict, repeat: int) -> None:
    print(f"== {spine} spine, --preset all")
    print(
        f"{'model':<8}{'ops':>8}{'ours s':>10}{'base s':>10}{'ratio':>8}{'CPU rat':>8}{'floor':>8}{'RSS MiB':>10}"
        f"{'parse':>8}{'passes':>8}{'verify':>8}{'print':>8}{'other':>8}{'load':>8}  top passes"
    )
    for name, r in results.items():
        top = ", ".join(f"{k.split(' (')[0]} {v:.3f}" for k, v in r["top_passes"][:3])
        print(
            f"{name:<8}{r['ops']:>8}{r['total_s']:>10.3f}{r['baseline_s']:>10.3f}{r['ratio']:>8.2f}{r['cpu_ratio']:>8.2f}"
            f"{r['cpp_floor_ratio']:>8.2f}{r['peak_rss_mb']:>10.1f}"
            f"{r['parse_s']:>8.3f}{r['spine_passes_s']:>8.3f}{r['verify_s']:>8.3f}{r['print_s']:>8.3f}"
            f"{r['other_s']:>8.3f}{r['load_s']:>8.3f}  {top}"
        )
    print(f"""columns (seconds unless said; best of --repeat {repeat} interleaved rounds):
  ours s   = parse + passes + verify + print + other (the compile of one module, {spine} spine, --preset all)
  base s   = the baseline: parse + upstream C++ canonicalize,cse + printing the IR (its own fresh process;
             the same baseline for both spines)
  ratio    = ours / base (wall); CPU rat = the same in CPU seconds (best of the rounds each)
  floor    = our C++ floor / base, where the C++ floor is parse + the upstream C++
             passes we run (bridge, canonicalize, remove-dead-values when not its Python fast path; each with its verifier) + verify
  RSS MiB  = peak RSS of our whole process (interpreter + jaxlib alone are ~130-150 MiB)
  passes   = every step of the pipeline (hilo-import, with the stablehlo->mhlo bridge and the input census
             walk, first), C++ ones included; a census walk is charged to the pass that asked for it
  verify   = the verifier: once, before the printer (the default); print = the Penguin printer
  other    = pipeline bookkeeping not in a column; load = importing our passes once per process (not in ours)
  top passes = the three slowest spine steps, by pass class name (argument in the JSON's "passes")""")
    for name, r in results.items():
        if "verify_each_total_s" not in r:  # --no-verify-each
            continue
        print(
            f"{name}: with --verify-each {r['verify_each_total_s']:.3f} s = {r['verify_each_ratio']:.2f}x the baseline "
            f"(verifier {r['verify_each_verify_s']:.3f} s, against {r['verify_s']:.3f} s verifying once)"
        )
    s = _scaling(results)
    if s:
        print(
            f"scaling L64->L512: time x{s['time_ratio']} (CPU x{s['cpu_time_ratio']}), ops x{s['op_ratio']} "
            "(target: time <= 1.15 x ops); "
            f"parts: our Python x{s['python_time_ratio']}, our C++ floor x{s['cpp_floor_time_ratio']}, "
            f"baseline x{s['baseline_time_ratio']}"
        )


def _print_process(p: dict) -> None:
    e, h, b = p["example_vs_binding_floor"], p["help_vs_python"], p["bf16_vs_f32"]
    print("== whole processes (CPU s, medians of interleaved pairs)")
    print(
        f"hilo2penguin examples/decoder_layer: {e['a_cpu_s']:.3f} s = {e['ratio']:.2f}x "
        f"the binding-import floor {e['b_cpu_s']:.3f} s (target <= 1.6x)"
    )
    print(
        f"hilo2penguin --help: {h['a_cpu_s']:.3f} s against python -c pass {h['b_cpu_s']:.3f} s "
        f"(target <= {1.5 * h['b_cpu_s'] + 0.1:.3f} s = 1.5x + 0.1 s)"
    )
    print(f"bf16 constants: {b['diff_s']:+.3f} s against the same module in f32 ({b['ratio']:.2f}x; target <= +0.3 s)")
    c = p["call_inliner_s"]
    print("call-inliner alone (CPU s): " + ", ".join(f"depth {d}: {t}" for d, t in c.items()))
    if c.get("300") and c.get("3000"):
        print(f"  3000 / (10 x 300) = {c['3000'] / (10 * c['300']):.2f} (target <= 2)")


if __name__ == "__main__":
    sys.exit(main())
