#!/usr/bin/env python3
"""Compile-time benchmark: our compile (either spine, ``--preset all``) against a C++ baseline.

Usage::

    python bench/run.py [--models L4,L64,L512] [--json PATH] [--spine mhlo|stablehlo] [--repeat N]

For each model (``decoder_stack_L4/L64/L512`` from ``../shared/corpus/jax/``, or
``NAME=path.mlir``), in one fresh process each, it measures:

* ours: parse; the input census (dialect detection), input validation, sharding strip and the
  stablehlo -> mhlo legalization (``phases_s``, ``legalize_s``); each pass of
  the spine (per-pass wall time, ``passes``); the verifier runs after passes
  that changed the IR with ``--verify-each``, else the one run before the
  printer (``verify_s``, ``verify_runs``); printing ``penguin.py``
  (``print_s``); total; peak RSS of that process;
* the C++ floor of ours: parse + every upstream C++ pass it runs (the
  bridge, canonicalize, remove-dead-values; each with the verifier) + the
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
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "jax")

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
    t0 = time.perf_counter()
    module = ir.Module.parse(text)
    out["parse_s"] = time.perf_counter() - t0
    n = 0
    def count(op):
        global n
        n += 1
        return ir.WalkResult.ADVANCE
    module.operation.walk(count)
    out["ops"] = n - 1
    if mode == "baseline":
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
        from hilo_mlir import compiler, pipeline
        from hilo_mlir.driver.config import CompileConfig
        # Observe (not change) the compile: every Pipeline it builds, and the
        # time of the steps before the spine (validation, sharding strip, bridge).
        pipes = []

        class _Observed(pipeline.Pipeline):
            def __init__(self, *a, **k):
                super().__init__(*a, **k)
                pipes.append(self)

        compiler.Pipeline = _Observed
        phases = {}
        for fn in ("input_census", "validate_input", "strip_sharding", "to_mhlo"):
            def timed(*a, _f=getattr(compiler, fn), _n=fn, **k):
                t = time.perf_counter()
                try:
                    return _f(*a, **k)
                finally:
                    phases[_n] = phases.get(_n, 0.0) + time.perf_counter() - t
            setattr(compiler, fn, timed)
        cfg = CompileConfig.preset("all").replace(stablehlo=(spine == "stablehlo"), verify_each=(mode == "verify-each"))
        # Importing the pass modules and printers happens once per process
        # (the baseline's process imports jaxlib outside its timing too):
        # reported as load_s, not part of total_s.
        from hilo_mlir import registry
        import hilo_mlir.printers.driver  # noqa: F401
        t0 = time.perf_counter()
        registry.all_passes()
        out["load_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
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
        # verifier after every Python pass that changed the IR.
        cpp = [(s.display, t) for p in pipes for s, (_, t) in zip(p.steps, p.timings) if s.cpp_text is not None]
        out["cpp_passes"] = cpp
        out["cpp_floor_s"] = out["parse_s"] + sum(t for _, t in cpp) + out["verify_s"]
        out["phases"] = phases
        parts = out["parse_s"] + sum(phases.values()) + out["spine_passes_s"] + out["verify_s"] + out["print_s"]
        out["other_s"] = out["parse_s"] + out["passes_s"] - parts  # pipeline bookkeeping, census walks in pre
out["total_s"] = out["parse_s"] + out["passes_s"] + (out["print_s"] if mode == "baseline" else 0.0)
out["process_s"] = time.perf_counter() - t_start
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
print("BENCH" + json.dumps(out))
"""


_HELP_TOOLS = ("hilo2penguin", "hilo-opt")


def _time_help(tool: str) -> float:
    """Wall seconds of ``<tool> --help`` in a fresh process (interpreter start-up included)."""
    import time

    module = {"hilo2penguin": "hilo_mlir.tools.hilo2penguin", "hilo-opt": "hilo_mlir.tools.opt"}[tool]
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, env=env)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"{tool} --help failed:\n{r.stderr[-2000:]}")
    return dt


def _run(mode: str, path: str, spine: str) -> dict:
    code = _WORKER.replace("ROOT", repr(ROOT), 1)
    r = subprocess.run([sys.executable, "-c", code, mode, path, spine], capture_output=True, text=True)
    for line in r.stdout.splitlines():
        if line.startswith("BENCH"):
            return json.loads(line[5:])
    raise SystemExit(f"benchmark worker failed ({mode}, {path}):\n{r.stderr[-2000:]}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="L4,L64,L512", help="comma list of L4/L64/L512 or NAME=path.mlir")
    ap.add_argument("--json", default=None, help="write results here")
    ap.add_argument("--spine", default="mhlo", choices=("mhlo", "stablehlo"))
    ap.add_argument("--repeat", type=int, default=1, help="best of N interleaved rounds per measurement")
    args = ap.parse_args(argv)

    models = []
    for item in [m for m in args.models.split(",") if m]:
        name, _, path = item.partition("=")
        if not path:
            path = os.path.join(CORPUS, f"decoder_stack_{name}.stablehlo.mlir")
        if not os.path.exists(path):
            print(f"skip {name}: {path} not found", file=sys.stderr)
            continue
        models.append((name, path))
    # Rounds interleave the models and ours/baseline, so a machine that slows
    # down during the run skews neither the ratios nor the scaling.
    modes = ("ours", "baseline", "verify-each")
    runs: dict = {(name, mode): [] for name, _ in models for mode in modes}
    helps: dict = {tool: [] for tool in _HELP_TOOLS}
    for _ in range(max(1, args.repeat)):
        for name, path in models:
            for mode in modes:
                runs[(name, mode)].append(_run(mode, path, args.spine))
        for tool in _HELP_TOOLS:
            helps[tool].append(_time_help(tool))
    results = {}
    for name, _path in models:
        ours = min(runs[(name, "ours")], key=lambda r: r["total_s"])
        base = min(runs[(name, "baseline")], key=lambda r: r["total_s"])
        each = min(runs[(name, "verify-each")], key=lambda r: r["total_s"])
        results[name] = {
            # the same compile with the verifier after every pass that changed the IR (--verify-each)
            "verify_each_total_s": round(each["total_s"], 4),
            "verify_each_ratio": round(each["total_s"] / base["total_s"], 3),
            "verify_each_verify_s": round(each["verify_s"], 4),
            "ops": ours["ops"],
            "total_s": round(ours["total_s"], 4),
            "parse_s": round(ours["parse_s"], 4),
            "print_s": round(ours["print_s"], 4),
            "baseline_s": round(base["total_s"], 4),
            "ratio": round(ours["total_s"] / base["total_s"], 3),
            "peak_rss_mb": round(ours["peak_rss_mb"], 1),
            "baseline_peak_rss_mb": round(base["peak_rss_mb"], 1),
            "top_passes": [[k, round(v, 4)] for k, v in ours["top_passes"]],
            # total_s = parse_s + sum(phases_s) + spine_passes_s + verify_s + print_s + other_s
            "other_s": round(ours["other_s"], 4),
            "load_s": round(ours["load_s"], 4),
            "spine_passes_s": round(ours["spine_passes_s"], 4),
            "verify_s": round(ours["verify_s"], 4),
            "verify_runs": ours["verify_runs"],
            "legalize_s": round(ours["legalize_s"], 4),
            "phases_s": {k: round(v, 4) for k, v in ours["phases"].items()},
            # parse + upstream C++ passes + verifier runs: what no Python speed-up can remove
            "cpp_floor_s": round(ours["cpp_floor_s"], 4),
            "cpp_floor_ratio": round(ours["cpp_floor_s"] / base["total_s"], 3),
            "baseline_parts_s": {k: round(base[k], 4) for k in ("parse_s", "passes_s", "print_s")},
            "passes": [[k, round(v, 4)] for k, v in ours["all_passes"]],
        }
    report = {"models": results, "help_s": {tool: round(min(ts), 3) for tool, ts in helps.items()}}
    if "L64" in results and "L512" in results:
        a, b = results["L64"], results["L512"]
        report["scaling"] = {
            "time_ratio": round(b["total_s"] / a["total_s"], 3),
            "op_ratio": round(b["ops"] / a["ops"], 3),
            # the same ratio for the parts: ours minus the C++ floor (our Python), the
            # C++ floor alone, and the baseline (C++ only) - which of them grows faster than the ops
            "python_time_ratio": round((b["total_s"] - b["cpp_floor_s"]) / (a["total_s"] - a["cpp_floor_s"]), 3),
            "cpp_floor_time_ratio": round(b["cpp_floor_s"] / a["cpp_floor_s"], 3),
            "baseline_time_ratio": round(b["baseline_s"] / a["baseline_s"], 3),
        }

    print(
        f"{'model':<8}{'ops':>8}{'ours s':>10}{'base s':>10}{'ratio':>8}{'floor':>8}{'RSS MiB':>10}"
        f"{'parse':>8}{'pre':>8}{'passes':>8}{'verify':>8}{'print':>8}{'other':>8}{'load':>8}  top passes"
    )
    for name, r in results.items():
        top = ", ".join(f"{k.split(' (')[0]} {v:.3f}" for k, v in r["top_passes"][:3])
        pre = sum(r["phases_s"].values())
        print(
            f"{name:<8}{r['ops']:>8}{r['total_s']:>10.3f}{r['baseline_s']:>10.3f}{r['ratio']:>8.2f}"
            f"{r['cpp_floor_ratio']:>8.2f}{r['peak_rss_mb']:>10.1f}"
            f"{r['parse_s']:>8.3f}{pre:>8.3f}{r['spine_passes_s']:>8.3f}{r['verify_s']:>8.3f}{r['print_s']:>8.3f}"
            f"{r['other_s']:>8.3f}{r['load_s']:>8.3f}  {top}"
        )
    print(f"""columns (seconds unless said; best of --repeat {args.repeat} interleaved rounds):
  ours s   = parse + pre + passes + verify + print + other (the compile of one module, {args.spine} spine, --preset all)
  base s   = the baseline: parse + upstream C++ canonicalize,cse + printing the IR (its own fresh process)
  ratio    = ours / base; floor = our C++ floor / base, where the C++ floor is parse + the upstream C++
             passes we run (bridge, canonicalize, remove-dead-values, each with its verifier) + verify
  RSS MiB  = peak RSS of our whole process (interpreter + jaxlib alone are ~130-150 MiB)
  pre      = input census walk + validate + strip sharding + stablehlo->mhlo bridge (+ its census walk)
  passes   = every spine step, C++ ones included; a census walk is charged to the pass that asked for it
  verify   = the verifier: once, before the printer (the default); print = the Penguin printer
  other    = pipeline bookkeeping not in a column; load = importing our passes once per process (not in ours)
  top passes = the three slowest spine steps, by pass class name (argument in the JSON's "passes")""")
    for name, r in results.items():
        print(
            f"{name}: with --verify-each {r['verify_each_total_s']:.3f} s = {r['verify_each_ratio']:.2f}x the baseline "
            f"(verifier {r['verify_each_verify_s']:.3f} s, against {r['verify_s']:.3f} s verifying once)"
        )
    print("--help (whole process, target <= 0.3 s): " + ", ".join(f"{t} {v:.3f} s" for t, v in report["help_s"].items()))
    if "scaling" in report:
        s = report["scaling"]
        print(
            f"scaling L64->L512: time x{s['time_ratio']}, ops x{s['op_ratio']} (target: time <= 1.15 x ops); "
            f"parts: our Python x{s['python_time_ratio']}, our C++ floor x{s['cpp_floor_time_ratio']}, "
            f"baseline x{s['baseline_time_ratio']}"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
