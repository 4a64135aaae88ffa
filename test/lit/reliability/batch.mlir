// Batch mode: one worker per module; an LLVM abort in an upstream pass fails only that module.
// RUN: rm -rf %t && mkdir -p %t/in/sub %t/out
// RUN: cp %S/Inputs/side-effects.mlir %t/in/a.mlir
// RUN: cp %S/Inputs/syntax-error.mlir %t/in/sub/b.mlir
// RUN: cp %S/Inputs/dynamic-conv-abort.mlir %t/in/c.mlir
// RUN: echo mine > %t/out/keep.txt
// The validator refuses mhlo.dynamic_conv up front; the fixture switches validation off so it reaches the aborting upstream pass
// (its verifier aborts on the IR the pass made: --verify-each runs it right after that pass).
// RUN: not %python %S/Inputs/unvalidated_driver.py --batch %t/in -o %t/out --spine stablehlo --verify-each --jobs 2 --report %t/report.json > %t/summary.txt 2> %t/progress.txt
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/summary.txt
// RUN: FileCheck %s --check-prefix=PROGRESS < %t/progress.txt
// RUN: FileCheck %s --check-prefix=REPORT < %t/report.json
// RUN: test -f %t/out/a/penguin.py
// RUN: not test -e %t/out/c
// RUN: not test -e %t/out/sub/b
// RUN: FileCheck %s --check-prefix=KEEP < %t/out/keep.txt
// Without the aborting module every module is ok or rejected: exit 0.
// RUN: rm %t/in/c.mlir
// RUN: hilo2penguin --batch %t/in -o %t/out --jobs 1 | FileCheck %s --check-prefix=CLEAN

// SUMMARY: ok                  1
// SUMMARY-NEXT: rejected            1
// SUMMARY-NEXT: write-failed        0
// SUMMARY-NEXT: crashed             1
// SUMMARY-NEXT: timeout             0
// SUMMARY-NEXT: total               3
// SUMMARY: c.mlir: crashed (SIGABRT, last pass 'hlo-legalize-to-stablehlo'): LLVM ERROR: Invalid non-spatial dimension.

// PROGRESS-DAG: /3] ok       {{.*}}a.mlir
// PROGRESS-DAG: /3] crashed  {{.*}}c.mlir (SIGABRT in hlo-legalize-to-stablehlo)
// PROGRESS-DAG: /3] rejected {{.*}}b.mlir

// REPORT: "status": "ok",
// REPORT: "status": "crashed",
// REPORT-NEXT: "diagnostic": "LLVM ERROR: Invalid non-spatial dimension.",
// REPORT-NEXT: "signal": "SIGABRT",
// REPORT-NEXT: "last_pass": "hlo-legalize-to-stablehlo",
// REPORT: "status": "rejected",
// REPORT-NEXT: "diagnostic": "{{.*}}b.mlir:2:24: error: expected ','",
// REPORT-NEXT: "signal": null,
// REPORT-NEXT: "last_pass": "parse",
// REPORT: "summary": {
// REPORT-NEXT: "ok": 1,
// REPORT-NEXT: "rejected": 1,
// REPORT-NEXT: "write-failed": 0,
// REPORT-NEXT: "crashed": 1,
// REPORT-NEXT: "timeout": 0
// REPORT-NEXT: },
// REPORT-NEXT: "interrupted": false

// KEEP: mine
// CLEAN: ok                  1
// CLEAN-NEXT: rejected            1
// CLEAN-NEXT: write-failed        0
// CLEAN-NEXT: crashed             0
