// RUN: hilo-opt %s --split-input-file --lower-complex-extra | FileCheck %s
// RUN: hilo-opt %s --split-input-file --hlo-legalize-to-stablehlo --stablehlo-lower-complex-extra | FileCheck %s --check-prefix=SHLO

// abs gives a real result; exp uses cos/sin of the imaginary part.
// CHECK-LABEL: func.func @abs_exp
// CHECK-DAG: %[[R:.*]] = mhlo.real %arg0
// CHECK-DAG: %[[I:.*]] = mhlo.imag %arg0
// CHECK: %[[RR:.*]] = mhlo.multiply %[[R]], %[[R]]
// CHECK: %[[II:.*]] = mhlo.multiply %[[I]], %[[I]]
// CHECK: %[[S:.*]] = mhlo.add %[[RR]], %[[II]]
// CHECK: %[[ABS:.*]] = mhlo.sqrt %[[S]] : tensor<4xf32>
// CHECK: %[[E:.*]] = mhlo.exponential %{{.*}} : tensor<4xf32>
// CHECK: mhlo.cosine
// CHECK: mhlo.sine
// CHECK: %[[C:.*]] = mhlo.complex
// CHECK: return %[[ABS]], %[[C]]
// SHLO-LABEL: func.func @abs_exp
// SHLO: stablehlo.sqrt {{.*}} : tensor<4xf32>
// SHLO: stablehlo.cosine
// SHLO-NOT: stablehlo.abs
func.func @abs_exp(%a: tensor<4xcomplex<f32>>) -> (tensor<4xf32>, tensor<4xcomplex<f32>>) {
  %0 = mhlo.abs %a : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %1 = mhlo.exponential %a : tensor<4xcomplex<f32>>
  return %0, %1 : tensor<4xf32>, tensor<4xcomplex<f32>>
}

// -----

// log: (log |z|, atan2(im, re)); sqrt: selects on the sign of re and im.
// CHECK-LABEL: func.func @log_sqrt
// CHECK: mhlo.log {{.*}} : tensor<4xf32>
// CHECK: mhlo.atan2 {{.*}} : tensor<4xf32>
// CHECK: mhlo.compare GE
// CHECK: mhlo.compare LT
// CHECK-NOT: mhlo.sqrt {{.*}}complex
// CHECK: return
// SHLO-LABEL: func.func @log_sqrt
// SHLO: stablehlo.atan2
// SHLO: stablehlo.compare GE
func.func @log_sqrt(%a: tensor<4xcomplex<f32>>) -> (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) {
  %0 = mhlo.log %a : tensor<4xcomplex<f32>>
  %1 = mhlo.sqrt %a : tensor<4xcomplex<f32>>
  return %0, %1 : tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>
}

// -----

// Left alone: real abs/exp/log/sqrt and complex add (step 6's job).
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT: mhlo.abs %arg0 : tensor<4xf32>
// CHECK-NEXT: mhlo.sqrt
// CHECK-NEXT: mhlo.add %arg1, %arg1 : tensor<4xcomplex<f32>>
// SHLO-LABEL: func.func @untouched
// SHLO-NEXT: stablehlo.abs %arg0 : tensor<4xf32>
func.func @untouched(%a: tensor<4xf32>, %b: tensor<4xcomplex<f32>>) -> (tensor<4xf32>, tensor<4xcomplex<f32>>) {
  %0 = mhlo.abs %a : tensor<4xf32>
  %1 = mhlo.sqrt %0 : tensor<4xf32>
  %2 = mhlo.add %b, %b : tensor<4xcomplex<f32>>
  return %1, %2 : tensor<4xf32>, tensor<4xcomplex<f32>>
}
