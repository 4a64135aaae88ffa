// RUN: hilo-opt %s --split-input-file --lower-complex | FileCheck %s
// RUN: hilo-opt %s --split-input-file --hlo-legalize-to-stablehlo --stablehlo-lower-complex | FileCheck %s --check-prefix=SHLO

// multiply then add: the add reads the multiply's parts directly; one complex
// op rebuilds the returned value.
// CHECK-LABEL: func.func @mul_add
// CHECK-DAG: %[[AR:.*]] = mhlo.real %arg0
// CHECK-DAG: %[[AI:.*]] = mhlo.imag %arg0
// CHECK-DAG: %[[BR:.*]] = mhlo.real %arg1
// CHECK-DAG: %[[BI:.*]] = mhlo.imag %arg1
// CHECK: %[[RR:.*]] = mhlo.multiply %[[AR]], %[[BR]]
// CHECK: %[[II:.*]] = mhlo.multiply %[[AI]], %[[BI]]
// CHECK: %[[RE:.*]] = mhlo.subtract %[[RR]], %[[II]]
// CHECK: %[[RI:.*]] = mhlo.multiply %[[AR]], %[[BI]]
// CHECK: %[[IR:.*]] = mhlo.multiply %[[AI]], %[[BR]]
// CHECK: %[[IM:.*]] = mhlo.add %[[RI]], %[[IR]]
// CHECK: %[[SR:.*]] = mhlo.add %[[RE]], %[[AR]]
// CHECK: %[[SI:.*]] = mhlo.add %[[IM]], %[[AI]]
// CHECK: %[[C:.*]] = mhlo.complex %[[SR]], %[[SI]]
// CHECK-NOT: mhlo.complex
// CHECK: return %[[C]]
// SHLO-LABEL: func.func @mul_add
// SHLO-COUNT-2: stablehlo.real
// SHLO: stablehlo.subtract
// SHLO: stablehlo.complex
// SHLO-NOT: stablehlo.multiply %arg
func.func @mul_add(%a: tensor<4xcomplex<f32>>, %b: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %0 = mhlo.multiply %a, %b : tensor<4xcomplex<f32>>
  %1 = mhlo.add %0, %a : tensor<4xcomplex<f32>>
  return %1 : tensor<4xcomplex<f32>>
}

// -----

// divide and negate (f64 parts).
// CHECK-LABEL: func.func @div_neg
// CHECK: %[[DEN:.*]] = mhlo.add {{.*}} : tensor<2xf64>
// CHECK: mhlo.divide {{.*}}, %[[DEN]] : tensor<2xf64>
// CHECK: mhlo.divide {{.*}}, %[[DEN]] : tensor<2xf64>
// CHECK: mhlo.negate {{.*}} : tensor<2xf64>
// CHECK: mhlo.negate {{.*}} : tensor<2xf64>
// CHECK: mhlo.complex {{.*}} : tensor<2xcomplex<f64>>
// CHECK-NOT: mhlo.divide {{.*}}complex
func.func @div_neg(%a: tensor<2xcomplex<f64>>, %b: tensor<2xcomplex<f64>>) -> tensor<2xcomplex<f64>> {
  %0 = mhlo.divide %a, %b : tensor<2xcomplex<f64>>
  %1 = mhlo.negate %0 : tensor<2xcomplex<f64>>
  return %1 : tensor<2xcomplex<f64>>
}

// -----

// Left alone: real arithmetic, and the step-7 ops (exp of a complex).
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT: %[[M:.*]] = mhlo.multiply %arg0, %arg0 : tensor<4xf32>
// CHECK-NEXT: %[[E:.*]] = mhlo.exponential %arg1 : tensor<4xcomplex<f32>>
// CHECK-NEXT: return %[[M]], %[[E]]
// SHLO-LABEL: func.func @untouched
// SHLO-NEXT: stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
// SHLO-NEXT: stablehlo.exponential %arg1 : tensor<4xcomplex<f32>>
func.func @untouched(%a: tensor<4xf32>, %b: tensor<4xcomplex<f32>>) -> (tensor<4xf32>, tensor<4xcomplex<f32>>) {
  %0 = mhlo.multiply %a, %a : tensor<4xf32>
  %1 = mhlo.exponential %b : tensor<4xcomplex<f32>>
  return %0, %1 : tensor<4xf32>, tensor<4xcomplex<f32>>
}
