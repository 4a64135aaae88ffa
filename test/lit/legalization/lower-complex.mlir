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

// divide (Smith's algorithm: no br*br + bi*bi, which under/overflows) and
// negate (f64 parts). p = |br| >= |bi| picks the larger part c of b and the
// matching part x of a; r = s/c, den = c + s*r, re = (x + y*r)/den,
// im = p ? t : -t with t = (y - x*r)/den.
// CHECK-LABEL: func.func @div_neg
// CHECK-DAG: %[[AR:.*]] = mhlo.real %arg0
// CHECK-DAG: %[[AI:.*]] = mhlo.imag %arg0
// CHECK-DAG: %[[BR:.*]] = mhlo.real %arg1
// CHECK-DAG: %[[BI:.*]] = mhlo.imag %arg1
// CHECK-NOT: mhlo.multiply %[[BR]], %[[BR]]
// CHECK: %[[ABR:.*]] = mhlo.abs %[[BR]] : tensor<2xf64>
// CHECK: %[[ABI:.*]] = mhlo.abs %[[BI]] : tensor<2xf64>
// CHECK: %[[P:.*]] = mhlo.compare GE, %[[ABR]], %[[ABI]]
// CHECK: %[[C:.*]] = mhlo.select %[[P]], %[[BR]], %[[BI]]
// CHECK: %[[S:.*]] = mhlo.select %[[P]], %[[BI]], %[[BR]]
// CHECK: %[[X:.*]] = mhlo.select %[[P]], %[[AR]], %[[AI]]
// CHECK: %[[Y:.*]] = mhlo.select %[[P]], %[[AI]], %[[AR]]
// CHECK: %[[R:.*]] = mhlo.divide %[[S]], %[[C]]
// CHECK: %[[SR:.*]] = mhlo.multiply %[[S]], %[[R]]
// CHECK: %[[DEN:.*]] = mhlo.add %[[C]], %[[SR]]
// CHECK: %[[YR:.*]] = mhlo.multiply %[[Y]], %[[R]]
// CHECK: %[[RN:.*]] = mhlo.add %[[X]], %[[YR]]
// CHECK: %[[RE:.*]] = mhlo.divide %[[RN]], %[[DEN]]
// CHECK: %[[XR:.*]] = mhlo.multiply %[[X]], %[[R]]
// CHECK: %[[TN:.*]] = mhlo.subtract %[[Y]], %[[XR]]
// CHECK: %[[T:.*]] = mhlo.divide %[[TN]], %[[DEN]]
// CHECK: %[[NT:.*]] = mhlo.negate %[[T]]
// CHECK: %[[IM:.*]] = mhlo.select %[[P]], %[[T]], %[[NT]]
// CHECK: %[[NRE:.*]] = mhlo.negate %[[RE]] : tensor<2xf64>
// CHECK: %[[NIM:.*]] = mhlo.negate %[[IM]] : tensor<2xf64>
// CHECK: %[[Z:.*]] = mhlo.complex %[[NRE]], %[[NIM]] : tensor<2xcomplex<f64>>
// CHECK-NOT: mhlo.divide {{.*}}complex
// CHECK: return %[[Z]]
// SHLO-LABEL: func.func @div_neg
// SHLO: stablehlo.compare GE
// SHLO-COUNT-4: stablehlo.select
// SHLO: stablehlo.divide
// SHLO-NOT: stablehlo.divide {{.*}}complex
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

// -----

// Divide needs no constants: dynamic shapes are lowered too.
// CHECK-LABEL: func.func @div_dynamic
// CHECK: mhlo.compare GE, {{.*}} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xi1>
// CHECK: mhlo.complex {{.*}} : tensor<?xcomplex<f32>>
// SHLO-LABEL: func.func @div_dynamic
// SHLO: stablehlo.compare GE
func.func @div_dynamic(%a: tensor<?xcomplex<f32>>, %b: tensor<?xcomplex<f32>>) -> tensor<?xcomplex<f32>> {
  %0 = mhlo.divide %a, %b : tensor<?xcomplex<f32>>
  return %0 : tensor<?xcomplex<f32>>
}
