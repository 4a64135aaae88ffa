// mlir-opt's IR printing flags, in the binding's MLIR format: the header names
// the pass class and its textual form (every option); a function pass prints
// each function it ran on; --mlir-print-ir-module-scope prints the module.
// RUN: hilo-opt %s --pass-pipeline='builtin.module(func.func(cse),canonicalize)' --mlir-print-ir-before=cse -o /dev/null 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: hilo-opt %s --pass-pipeline='builtin.module(func.func(cse),canonicalize)' --mlir-print-ir-after=canonicalize,cse -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: hilo-opt %s --pass-pipeline='builtin.module(func.func(cse))' --mlir-print-ir-after-all --mlir-print-ir-after-change -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHANGE
// RUN: hilo-opt %s --pass-pipeline='builtin.module(func.func(cse))' --mlir-print-ir-before-all --mlir-print-ir-module-scope -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCOPE
// Python passes: after-change from what the pass's rewriter recorded.
// RUN: hilo-opt %s --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,fold-iota,func.func(cse))' --mlir-print-ir-after-all --mlir-print-ir-after-change -o /dev/null 2>&1 | FileCheck %s --check-prefix=PYCHANGE
// RUN: hilo-opt %s --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,fold-iota)' --mlir-print-ir-before=fold-iota -o /dev/null 2>&1 | FileCheck %s --check-prefix=PYBEFORE
// A pass filter that names no pass is an error (LLVM's pass-name parser):
// RUN: not hilo-opt %s --cse --mlir-print-ir-after=cs 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// Elided constants:
// RUN: hilo-opt %s --mlir-elide-elementsattrs-if-larger=2 | FileCheck %s --check-prefix=ELIDE
// RUN: hilo-opt %s --mlir-elide-elementsattrs-if-larger=8 | FileCheck %s --check-prefix=KEEP

// BEFORE: // -----// IR Dump Before CSEPass: cse //----- //
// BEFORE-NEXT: func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// BEFORE: // -----// IR Dump Before CSEPass: cse //----- //
// BEFORE-NEXT: func.func @g(
// BEFORE-NOT: IR Dump

// AFTER: // -----// IR Dump After CSEPass: cse //----- //
// AFTER-NEXT: func.func @f(
// AFTER: // -----// IR Dump After CSEPass: cse //----- //
// AFTER-NEXT: func.func @g(
// AFTER: // -----// IR Dump After CanonicalizerPass: canonicalize{{[{]}}{{.*}}max-iterations=10{{.*}}} //----- //
// AFTER-NEXT: module {

// @g has nothing to CSE: no dump for it.
// CHANGE: // -----// IR Dump After CSEPass: cse //----- //
// CHANGE-NEXT: func.func @f(
// CHANGE-NOT: IR Dump

// SCOPE: // -----// IR Dump Before CSEPass: cse ('func.func' operation: @f) //----- //
// SCOPE-NEXT: module {
// SCOPE: // -----// IR Dump Before CSEPass: cse ('func.func' operation: @g) //----- //
// SCOPE-NEXT: module {

// PYCHANGE: IR Dump After StablehloLegalizeToHloPass: stablehlo-legalize-to-hlo{convert-xla-supported-stablehlo=true} //----- //
// PYCHANGE-NOT: IR Dump After FoldIota
// PYCHANGE: IR Dump After CSEPass: cse //----- //
// PYCHANGE-NEXT: func.func @f(

// PYBEFORE: // -----// IR Dump Before FoldIota: fold-iota{max-elements=1048576} //----- //
// PYBEFORE-NEXT: func.func @f(
// PYBEFORE: // -----// IR Dump Before FoldIota: fold-iota{max-elements=1048576} //----- //
// PYBEFORE-NEXT: func.func @g(

// UNKNOWN: hilo-opt: error: --mlir-print-ir-after: unknown pass 'cs' (did you mean 'cse'?)

// ELIDE: stablehlo.constant dense_resource<__elided__> : tensor<4xf32>
// KEEP: stablehlo.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  %1 = stablehlo.add %a, %a : tensor<4xf32>
  %2 = stablehlo.multiply %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = stablehlo.add %a, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}
