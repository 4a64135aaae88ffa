// A symbol name or string attribute that is not valid UTF-8 ("\FF" is a byte escape) is one located
// error of each tool, refused when the input is read (the Python bindings abort the process when such a
// string reaches them: a diagnostic quoting it, a walk reading it); not an internal error, not a crash.
// RUN: rm -rf %t
// RUN: not hilo2penguin %S/Inputs/not-utf8-target.mlir -o %t/out 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not test -e %t/out
// RUN: not hilo2penguin %S/Inputs/not-utf8-callee.mlir -o %t/out 2>&1 | FileCheck %s --check-prefix=CALLEE
// RUN: not hilo-opt %S/Inputs/not-utf8-callee.mlir --call-inliner 2>&1 | FileCheck %s --check-prefix=OPT

// TARGET: not-utf8-target.mlir:2:31: error: the module holds a string (a symbol name or a string attribute) that is not valid UTF-8; it cannot be compiled
// TARGET-NOT: internal error
// CALLEE: not-utf8-callee.mlir:2:22: error: the module holds a string {{.*}} not valid UTF-8
// OPT: not-utf8-callee.mlir:2:22: error: the module holds a string {{.*}} not valid UTF-8; it cannot be compiled
