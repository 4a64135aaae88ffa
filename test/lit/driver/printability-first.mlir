// Printability is checked on the input before any rewrite: every op that would reach the printer
// and that it cannot emit is its own located error with its source line and caret (in program order;
// one line each in a batch report), before any pass could fail
// on something else (here sixty-four-hack on the 64-bit popcnt, with the default gates).
// RUN: rm -rf %t && mkdir -p %t
// RUN: not hilo2penguin %S/Inputs/blockers.mlir -o %t/out 2> %t/err
// RUN: FileCheck %s --check-prefix=BLOCK --match-full-lines < %t/err
// RUN: not hilo2penguin %S/Inputs/blockers.mlir -o %t/out --spine stablehlo --preset all 2> %t/err-all
// RUN: FileCheck %s --check-prefix=BLOCK --match-full-lines < %t/err-all
// RUN: not test -e %t/out
// In batch mode the report keeps the first line as "diagnostic" and lists all in "diagnostics".
// RUN: mkdir -p %t/in && cp %S/Inputs/blockers.mlir %t/in/
// RUN: hilo2penguin --batch %t/in -o %t/bout --report %t/report.json > /dev/null 2>&1
// RUN: FileCheck %s --check-prefix=REPORT < %t/report.json
// What the spine removes or lowers before printing is not a blocker: a dead fft (remove-dead-values),
// an uncalled function's rng_bit_generator (prune-functions), chlo.erf (the bridge decomposes it).
// RUN: hilo2penguin %S/Inputs/removed-before-printing.mlir -o %t/ok | FileCheck %s --check-prefix=OK
// RUN: hilo2penguin %S/Inputs/removed-before-printing.mlir -o %t/ok2 --spine stablehlo | FileCheck %s --check-prefix=OK

// BLOCK: {{.*}}blockers.mlir:2:15: error: 'stablehlo.rng_bit_generator': random number generation has no Penguin equivalent (results would differ from XLA)
// BLOCK-NEXT: {{ +}}%k, %bits = stablehlo.rng_bit_generator %key, {{.*}}
// BLOCK-NEXT: ^
// BLOCK-NEXT: {{.*}}blockers.mlir:8:8: error: 'stablehlo.einsum': einsum must be lowered to dot_general before printing
// BLOCK-NEXT: {{ +}}%e = stablehlo.einsum %x, %x, {{.*}}
// BLOCK-NEXT: ^
// BLOCK-NEXT: {{.*}}blockers.mlir:10:8: error: unsupported custom_call target 'my_runtime_hook'
// BLOCK-NEXT: {{ +}}%q = stablehlo.custom_call @my_runtime_hook(%w) {{.*}}
// BLOCK-NEXT: ^
// BLOCK-NOT: {{.}}

// REPORT: "status": "rejected",
// REPORT-NEXT: "diagnostic": "{{.*}}blockers.mlir:2:15: error: 'stablehlo.rng_bit_generator': random number generation has no Penguin equivalent (results would differ from XLA)",
// REPORT: "diagnostics": [
// REPORT-NEXT: "{{.*}}blockers.mlir:2:15: error: 'stablehlo.rng_bit_generator': {{.*}}",
// REPORT-NEXT: "{{.*}}blockers.mlir:8:8: error: 'stablehlo.einsum': {{.*}}",
// REPORT-NEXT: "{{.*}}blockers.mlir:10:8: error: unsupported custom_call target 'my_runtime_hook'"
// REPORT-NEXT: ]

// OK: wrote {{.*}}penguin.py
