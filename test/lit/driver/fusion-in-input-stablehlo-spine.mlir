// DESIGN.md decision 6: on the StableHLO spine, an mhlo.fusion already in the
// input survives step 1a (hlo-legalize-to-stablehlo{allow-xla-features=true}
// converts its body) and step 14a turns it into a neuron.<Kind> composite.
// RUN: rm -rf %t && hilo2penguin %s -o %t --spine stablehlo | FileCheck %s --check-prefix=WROTE
// RUN: FileCheck %s < %t/penguin.py
// RUN: not hilo-opt %s --hlo-legalize-to-stablehlo 2>&1 | FileCheck %s --check-prefix=PLAIN

// WROTE: wrote
// CHECK: m{{[0-9]+}}.NeuronTensorOp(srcs=[input_0, input_1], {{.*}}xla_op='mhlo.fusion', op='DotFusion', hilo_fusion_op='DotLogistic'
// PLAIN: failed to legalize operation 'mhlo.fusion' that was explicitly marked illegal
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = "mhlo.fusion"(%a, %b) ({
  ^bb0(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>):
    %d = "mhlo.dot_general"(%x, %w) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %l = mhlo.logistic %d : tensor<4x16xf32>
    %m = mhlo.multiply %d, %l : tensor<4x16xf32>
    mhlo.return %m : tensor<4x16xf32>
  }) {FusionKind = "DotLogistic"} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
