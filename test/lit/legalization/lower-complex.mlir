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

// Left alone: real arithmetic, and the step-7 ops (log of a complex).
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT: %[[M:.*]] = mhlo.multiply %arg0, %arg0 : tensor<4xf32>
// CHECK-NEXT: %[[E:.*]] = mhlo.log %arg1 : tensor<4xcomplex<f32>>
// CHECK-NEXT: return %[[M]], %[[E]]
// SHLO-LABEL: func.func @untouched
// SHLO-NEXT: stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
// SHLO-NEXT: stablehlo.log %arg1 : tensor<4xcomplex<f32>>
func.func @untouched(%a: tensor<4xf32>, %b: tensor<4xcomplex<f32>>) -> (tensor<4xf32>, tensor<4xcomplex<f32>>) {
  %0 = mhlo.multiply %a, %a : tensor<4xf32>
  %1 = mhlo.log %b : tensor<4xcomplex<f32>>
  return %0, %1 : tensor<4xf32>, tensor<4xcomplex<f32>>
}

// -----

// abs (upstream's lower-complex set, at step 6): the scaled hypot m * sqrt(1 + (n/m)^2), not
// upstream's sqrt(re^2 + im^2), whose squares under/overflow; where it is NaN with no NaN part
// (0/0, inf/inf) the result is n.
// CHECK-LABEL: func.func @abs
// CHECK-DAG: %[[R:.*]] = mhlo.real %arg0
// CHECK-DAG: %[[I:.*]] = mhlo.imag %arg0
// CHECK: %[[AR:.*]] = mhlo.abs %[[R]] : tensor<4xf32>
// CHECK: %[[AI:.*]] = mhlo.abs %[[I]] : tensor<4xf32>
// CHECK: %[[M:.*]] = mhlo.maximum %[[AR]], %[[AI]]
// CHECK: %[[N:.*]] = mhlo.minimum %[[AR]], %[[AI]]
// CHECK: %[[Q:.*]] = mhlo.divide %[[N]], %[[M]]
// CHECK: %[[ONE:.*]] = mhlo.constant dense<1.000000e+00>
// CHECK: %[[QQ:.*]] = mhlo.multiply %[[Q]], %[[Q]]
// CHECK: %[[S:.*]] = mhlo.add %[[ONE]], %[[QQ]]
// CHECK: %[[SQ:.*]] = mhlo.sqrt %[[S]]
// CHECK: %[[H:.*]] = mhlo.multiply %[[M]], %[[SQ]]
// CHECK: %[[NAN:.*]] = mhlo.compare NE, %[[H]], %[[H]]
// CHECK: %[[ABS:.*]] = mhlo.select %[[NAN]], %[[N]], %[[H]]
// CHECK-NOT: mhlo.abs {{.*}}complex
// CHECK: return %[[ABS]]
// SHLO-LABEL: func.func @abs
// SHLO: stablehlo.maximum
// SHLO: stablehlo.sqrt
// SHLO: stablehlo.select
// SHLO-NOT: stablehlo.abs {{.*}}complex
func.func @abs(%a: tensor<4xcomplex<f32>>) -> tensor<4xf32> {
  %0 = mhlo.abs %a : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// abs needs the splat constant 1: left alone on a dynamic shape.
// CHECK-LABEL: func.func @abs_dynamic
// CHECK-NEXT: mhlo.abs %arg0 : (tensor<?xcomplex<f32>>) -> tensor<?xf32>
// SHLO-LABEL: func.func @abs_dynamic
// SHLO-NEXT: stablehlo.abs %arg0
func.func @abs_dynamic(%a: tensor<?xcomplex<f32>>) -> tensor<?xf32> {
  %0 = mhlo.abs %a : (tensor<?xcomplex<f32>>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// exponential on a dynamic shape: (e^re cos im, e^re sin im) with im = ±0 kept exact
// (exp(inf + 0i) = (inf, 0), not (inf, NaN)); no constants, so dynamic shapes too.
// CHECK-LABEL: func.func @exp
// CHECK-DAG: %[[R:.*]] = mhlo.real %arg0
// CHECK-DAG: %[[I:.*]] = mhlo.imag %arg0
// CHECK: %[[C:.*]] = mhlo.cosine %[[I]]
// CHECK: %[[S:.*]] = mhlo.sine %[[I]]
// CHECK: %[[E:.*]] = mhlo.exponential %[[R]] : tensor<?xf32>
// CHECK: %[[RE:.*]] = mhlo.multiply %[[E]], %[[C]]
// CHECK: %[[IM:.*]] = mhlo.multiply %[[E]], %[[S]]
// CHECK: %[[NI:.*]] = mhlo.negate %[[I]]
// CHECK: %[[ZERO:.*]] = mhlo.compare EQ, %[[I]], %[[NI]]
// CHECK: %[[IM2:.*]] = mhlo.select %[[ZERO]], %[[I]], %[[IM]]
// CHECK: %[[Z:.*]] = mhlo.complex %[[RE]], %[[IM2]] : tensor<?xcomplex<f32>>
// CHECK: return %[[Z]]
// SHLO-LABEL: func.func @exp
// SHLO: stablehlo.exponential {{.*}} : tensor<?xf32>
// SHLO: stablehlo.select
// SHLO: stablehlo.complex
func.func @exp(%a: tensor<?xcomplex<f32>>) -> tensor<?xcomplex<f32>> {
  %0 = mhlo.exponential %a : tensor<?xcomplex<f32>>
  return %0 : tensor<?xcomplex<f32>>
}

// -----

// exponential on a static shape: e^re applied as h * (h * cos im), h = e^(re/2), so that
// exp(89 + 1i) in f32 has a finite real part.
// CHECK-LABEL: func.func @exp_static
// CHECK-DAG: %[[R:.*]] = mhlo.real %arg0
// CHECK-DAG: %[[I:.*]] = mhlo.imag %arg0
// CHECK: %[[C:.*]] = mhlo.cosine %[[I]]
// CHECK: %[[S:.*]] = mhlo.sine %[[I]]
// CHECK: %[[HALF:.*]] = mhlo.constant dense<5.000000e-01> : tensor<4xf32>
// CHECK: %[[R2:.*]] = mhlo.multiply %[[R]], %[[HALF]]
// CHECK: %[[H:.*]] = mhlo.exponential %[[R2]]
// CHECK: %[[HC:.*]] = mhlo.multiply %[[H]], %[[C]]
// CHECK: %[[RE:.*]] = mhlo.multiply %[[H]], %[[HC]]
// CHECK: %[[HS:.*]] = mhlo.multiply %[[H]], %[[S]]
// CHECK: %[[IM:.*]] = mhlo.multiply %[[H]], %[[HS]]
// CHECK: %[[NI:.*]] = mhlo.negate %[[I]]
// CHECK: %[[ZERO:.*]] = mhlo.compare EQ, %[[I]], %[[NI]]
// CHECK: %[[IM2:.*]] = mhlo.select %[[ZERO]], %[[I]], %[[IM]]
// CHECK: mhlo.complex %[[RE]], %[[IM2]] : tensor<4xcomplex<f32>>
// SHLO-LABEL: func.func @exp_static
// SHLO: stablehlo.constant dense<5.000000e-01>
// SHLO: stablehlo.select
func.func @exp_static(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %0 = mhlo.exponential %a : tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

// compare EQ: both parts equal (and); NE: either part differs (or); compare_type kept.
// CHECK-LABEL: func.func @compare
// CHECK-DAG: %[[AR:.*]] = mhlo.real %arg0
// CHECK-DAG: %[[AI:.*]] = mhlo.imag %arg0
// CHECK-DAG: %[[BR:.*]] = mhlo.real %arg1
// CHECK-DAG: %[[BI:.*]] = mhlo.imag %arg1
// CHECK: %[[ER:.*]] = mhlo.compare EQ, %[[AR]], %[[BR]]
// CHECK: %[[EI:.*]] = mhlo.compare EQ, %[[AI]], %[[BI]]
// CHECK: %[[EQ:.*]] = mhlo.and %[[ER]], %[[EI]] : tensor<3xi1>
// CHECK: %[[NR:.*]] = mhlo.compare NE, %[[AR]], %[[BR]], FLOAT
// CHECK: %[[NI:.*]] = mhlo.compare NE, %[[AI]], %[[BI]], FLOAT
// CHECK: %[[NE:.*]] = mhlo.or %[[NR]], %[[NI]] : tensor<3xi1>
// CHECK: return %[[EQ]], %[[NE]]
// SHLO-LABEL: func.func @compare
// SHLO: stablehlo.and
// SHLO: stablehlo.or
// SHLO-NOT: complex<f32>>) -> tensor<3xi1>
func.func @compare(%a: tensor<3xcomplex<f32>>, %b: tensor<3xcomplex<f32>>) -> (tensor<3xi1>, tensor<3xi1>) {
  %0 = mhlo.compare EQ, %a, %b : (tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>) -> tensor<3xi1>
  %1 = mhlo.compare NE, %a, %b, FLOAT : (tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>) -> tensor<3xi1>
  return %0, %1 : tensor<3xi1>, tensor<3xi1>
}

// -----

// sine: (sin re cosh im, cos re sinh im), cosh = (e^im + e^-im)/2 as upstream, sinh through expm1
// (upstream's (e^im - e^-im)/2 cancels for small |im|).
// CHECK-LABEL: func.func @sine
// CHECK-DAG: %[[R:.*]] = mhlo.real %arg0
// CHECK-DAG: %[[I:.*]] = mhlo.imag %arg0
// CHECK: %[[HALF:.*]] = mhlo.constant dense<5.000000e-01>
// CHECK: %[[NI:.*]] = mhlo.negate %[[I]]
// CHECK: %[[EP:.*]] = mhlo.exponential %[[I]]
// CHECK: %[[EN:.*]] = mhlo.exponential %[[NI]]
// CHECK: %[[CS:.*]] = mhlo.add %[[EP]], %[[EN]]
// CHECK: %[[COSH:.*]] = mhlo.multiply %[[CS]], %[[HALF]]
// CHECK: %[[MP:.*]] = mhlo.exponential_minus_one %[[I]]
// CHECK: %[[MN:.*]] = mhlo.exponential_minus_one %[[NI]]
// CHECK: %[[SD:.*]] = mhlo.subtract %[[MP]], %[[MN]]
// CHECK: %[[SINH:.*]] = mhlo.multiply %[[SD]], %[[HALF]]
// CHECK: %[[S:.*]] = mhlo.sine %[[R]]
// CHECK: %[[C:.*]] = mhlo.cosine %[[R]]
// CHECK: %[[RE:.*]] = mhlo.multiply %[[S]], %[[COSH]]
// CHECK: %[[IM:.*]] = mhlo.multiply %[[C]], %[[SINH]]
// CHECK: %[[Z:.*]] = mhlo.complex %[[RE]], %[[IM]]
// CHECK: return %[[Z]]
// SHLO-LABEL: func.func @sine
// SHLO: stablehlo.exponential_minus_one
// SHLO: stablehlo.complex
func.func @sine(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %0 = mhlo.sine %a : tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

// cosine: (cos re cosh im, -(sin re sinh im)).
// CHECK-LABEL: func.func @cosine
// CHECK: %[[COSH:.*]] = mhlo.multiply {{.*}} : tensor<4xf64>
// CHECK: %[[SINH:.*]] = mhlo.multiply {{.*}} : tensor<4xf64>
// CHECK: %[[S:.*]] = mhlo.sine
// CHECK: %[[C:.*]] = mhlo.cosine
// CHECK: %[[RE:.*]] = mhlo.multiply %[[C]], %[[COSH]]
// CHECK: %[[SS:.*]] = mhlo.multiply %[[S]], %[[SINH]]
// CHECK: %[[IM:.*]] = mhlo.negate %[[SS]]
// CHECK: %[[Z:.*]] = mhlo.complex %[[RE]], %[[IM]] : tensor<4xcomplex<f64>>
// CHECK: return %[[Z]]
// SHLO-LABEL: func.func @cosine
// SHLO: stablehlo.negate
// SHLO: stablehlo.complex
func.func @cosine(%a: tensor<4xcomplex<f64>>) -> tensor<4xcomplex<f64>> {
  %0 = mhlo.cosine %a : tensor<4xcomplex<f64>>
  return %0 : tensor<4xcomplex<f64>>
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
