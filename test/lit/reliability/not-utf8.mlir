// A symbol name or string attribute that is not valid UTF-8 ("\FF" is a byte escape) is one error of
// each tool, not an internal error: before the spine (the input checks read the custom call's target)
// and inside a pass (call-inliner reads the callee's name).
// RUN: rm -rf %t
// RUN: not hilo2penguin %S/Inputs/not-utf8-target.mlir -o %t/out 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not test -e %t/out
// RUN: not hilo2penguin %S/Inputs/not-utf8-callee.mlir -o %t/out 2>&1 | FileCheck %s --check-prefix=CALLEE
// RUN: not hilo-opt %S/Inputs/not-utf8-callee.mlir --call-inliner 2>&1 | FileCheck %s --check-prefix=OPT

// TARGET: not-utf8-target.mlir: error: the module holds a string (a symbol name or a string attribute) that is not valid UTF-8; it cannot be compiled
// TARGET-NOT: internal error
// CALLEE: not-utf8-callee.mlir: error: the module holds a string {{.*}} not valid UTF-8
// OPT: error: the module holds a string {{.*}} not valid UTF-8; it cannot be compiled (in pass 'call-inliner')
