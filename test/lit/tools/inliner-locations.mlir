// Ops inlined by call-inliner get callsite(<callee loc> at <call loc>), as
// MLIR's inliner gives them, so diagnostics and the printer's DebugLocation
// name the user's file and line.
// RUN: hilo-opt %s --call-inliner --mlir-print-debuginfo | FileCheck %s
// RUN: hilo-opt %s --pass-pipeline='builtin.module(call-inliner,stablehlo-legalize-to-hlo,mhlo-to-py-penguin)' | FileCheck %s --check-prefix=PENGUIN

// CHECK-LABEL: func.func @main
// CHECK: stablehlo.negate %arg0 : tensor<4xf32> loc([[NEG:#loc[0-9]+]])
// CHECK: stablehlo.exponential %{{.*}} : tensor<4xf32> loc([[EXP:#loc[0-9]+]])
// CHECK-DAG: [[NEGNAME:#loc[0-9]*]] = loc("neg")
// CHECK-DAG: [[CALLEE:#loc[0-9]*]] = loc("model.py":3:5)
// CHECK-DAG: [[CALL:#loc[0-9]*]] = loc("model.py":12:9)
// CHECK-DAG: [[NEG]] = loc(callsite([[NEGNAME]] at [[CALL]]))
// CHECK-DAG: [[EXP]] = loc(callsite([[CALLEE]] at [[CALL]]))

// The negate has only a name in the callee: its DebugLocation is the call's line.
// PENGUIN: NegateOp({{.*}}DebugLocation(file='model.py', line=12, col=9, name='neg'
// PENGUIN: ExponentialOp({{.*}}DebugLocation(file='model.py', line=3, col=5,

func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @act(%a) : (tensor<4xf32>) -> tensor<4xf32> loc("model.py":12:9)
  return %0 : tensor<4xf32>
}
func.func private @act(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %a : tensor<4xf32> loc("neg")
  %1 = stablehlo.exponential %0 : tensor<4xf32> loc("model.py":3:5)
  return %1 : tensor<4xf32>
}
