// RUN: hilo-opt %s --split-input-file --lower-complex-extra | FileCheck %s
// RUN: hilo-opt %s --split-input-file --hlo-legalize-to-stablehlo --stablehlo-lower-complex-extra | FileCheck %s --check-prefix=SHLO

// abs gives a real result: scaled hypot m * sqrt(1 + (n/m)^2) (no re*re, which
// under/overflows), n where that is NaN (m == 0, inf/inf); exp uses cos/sin of
// the imaginary part.
// CHECK-LABEL: func.func @abs_exp
// CHECK-DAG: %[[R:.*]] = mhlo.real %arg0
// CHECK-DAG: %[[I:.*]] = mhlo.imag %arg0
// CHECK-NOT: mhlo.multiply %[[R]], %[[R]]
// CHECK: %[[AR:.*]] = mhlo.abs %[[R]] : tensor<4xf32>
// CHECK: %[[AI:.*]] = mhlo.abs %[[I]] : tensor<4xf32>
// CHECK: %[[M:.*]] = mhlo.maximum %[[AR]], %[[AI]]
// CHECK: %[[N:.*]] = mhlo.minimum %[[AR]], %[[AI]]
// CHECK: %[[Q:.*]] = mhlo.divide %[[N]], %[[M]]
// CHECK: %[[ONE:.*]] = mhlo.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK: %[[QQ:.*]] = mhlo.multiply %[[Q]], %[[Q]]
// CHECK: %[[S:.*]] = mhlo.add %[[ONE]], %[[QQ]]
// CHECK: %[[SQ:.*]] = mhlo.sqrt %[[S]] : tensor<4xf32>
// CHECK: %[[H:.*]] = mhlo.multiply %[[M]], %[[SQ]]
// CHECK: %[[NAN:.*]] = mhlo.compare NE, %[[H]], %[[H]]
// CHECK: %[[ABS:.*]] = mhlo.select %[[NAN]], %[[N]], %[[H]]
// CHECK: mhlo.cosine
// CHECK: mhlo.sine
// CHECK: %[[E:.*]] = mhlo.exponential %{{.*}} : tensor<4xf32>
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

// log: (log(m) + log1p((n/m)^2)/2, atan2(im, re)), log(m) where n/m is NaN;
// sqrt: the scaled |z|, then selects on the sign of re and im.
// CHECK-LABEL: func.func @log_sqrt
// CHECK: %[[M:.*]] = mhlo.maximum
// CHECK: %[[Q:.*]] = mhlo.divide %{{.*}}, %[[M]]
// CHECK: %[[LM:.*]] = mhlo.log %[[M]] : tensor<4xf32>
// CHECK: %[[QQ:.*]] = mhlo.multiply %[[Q]], %[[Q]]
// CHECK: %[[L1P:.*]] = mhlo.log_plus_one %[[QQ]]
// CHECK: %[[HALF:.*]] = mhlo.multiply %{{.*}}, %[[L1P]]
// CHECK: %[[SUM:.*]] = mhlo.add %[[LM]], %[[HALF]]
// CHECK: %[[QNAN:.*]] = mhlo.compare NE, %[[Q]], %[[Q]]
// CHECK: %[[LRE:.*]] = mhlo.select %[[QNAN]], %[[LM]], %[[SUM]]
// CHECK: %[[LIM:.*]] = mhlo.atan2 {{.*}} : tensor<4xf32>
// CHECK: mhlo.complex %[[LRE]], %[[LIM]]
// CHECK: mhlo.maximum
// CHECK: mhlo.minimum
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

// -----

// Left alone: abs/log/sqrt on a dynamic shape (the scaled |z| needs splat
// constants); exp needs none and is lowered.
// CHECK-LABEL: func.func @dynamic
// CHECK: mhlo.abs %arg0 : (tensor<?xcomplex<f32>>) -> tensor<?xf32>
// CHECK: mhlo.log %arg0 : tensor<?xcomplex<f32>>
// CHECK: mhlo.sqrt %arg0 : tensor<?xcomplex<f32>>
// CHECK: mhlo.cosine {{.*}} : tensor<?xf32>
// SHLO-LABEL: func.func @dynamic
// SHLO: stablehlo.abs %arg0 : (tensor<?xcomplex<f32>>) -> tensor<?xf32>
func.func @dynamic(%a: tensor<?xcomplex<f32>>) -> (tensor<?xf32>, tensor<?xcomplex<f32>>, tensor<?xcomplex<f32>>, tensor<?xcomplex<f32>>) {
  %0 = mhlo.abs %a : (tensor<?xcomplex<f32>>) -> tensor<?xf32>
  %1 = mhlo.log %a : tensor<?xcomplex<f32>>
  %2 = mhlo.sqrt %a : tensor<?xcomplex<f32>>
  %3 = mhlo.exponential %a : tensor<?xcomplex<f32>>
  return %0, %1, %2, %3 : tensor<?xf32>, tensor<?xcomplex<f32>>, tensor<?xcomplex<f32>>, tensor<?xcomplex<f32>>
}
