// Corrupt MLIR bytecode (two real mutants found by the reliability fuzzer) is read in a child process:
// the upstream reader's abort or runaway allocation becomes one line, exit 1, nothing written, in both tools.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not hilo2penguin %S/Inputs/bytecode-bad-utf8.mlirbc -o %t/out 2> %t/utf8.err
// RUN: FileCheck %s --check-prefix=UTF8 --match-full-lines < %t/utf8.err
// RUN: not hilo-opt %S/Inputs/bytecode-bad-utf8.mlirbc --timeout=30 2> %t/utf8-opt.err
// RUN: FileCheck %s --check-prefix=UTF8 --match-full-lines < %t/utf8-opt.err
// RUN: not hilo2penguin %S/Inputs/bytecode-huge-count.mlirbc -o %t/out --timeout 30 2> %t/count.err
// RUN: FileCheck %s --check-prefix=COUNT --match-full-lines < %t/count.err
// RUN: not hilo-opt %S/Inputs/bytecode-huge-count.mlirbc 2> %t/count-opt.err
// RUN: FileCheck %s --check-prefix=COUNT --match-full-lines < %t/count-opt.err
// RUN: not test -e %t/out

// The reader dies converting an error message that is not UTF-8 (nanobind aborts the process).
// UTF8: {{.*}}bytecode-bad-utf8.mlirbc: error: the MLIR bytecode reader crashed (SIGABRT) on this input; the file is corrupt or not MLIR bytecode (terminate called after throwing an instance of 'nanobind::builtin_exception')
// UTF8-NOT: {{.}}

// A corrupt count makes the reader size a vector by it; the child's address space is bounded.
// COUNT: {{.*}}bytecode-huge-count.mlirbc: error: the MLIR bytecode reader ran out of memory on this input (it may use 2.0 GiB for a 417-byte file); the file is corrupt or not MLIR bytecode
// COUNT-NOT: {{.}}
