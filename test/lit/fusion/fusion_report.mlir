// RUN: rm -rf %t && hilo-opt %s --pass-pipeline='builtin.module(raise-logistic{report=%t},stablehlo-neuron-op-fusion{fuse-dot-logistic=true report=%t})' | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --input-file=%t/fusion_report.json
// RUN: FileCheck %s --input-file=%t/fusion_report.html --check-prefix=HTML

// The fusion report of the {report=DIR} option: raise-logistic turns the
// sigmoid into a logistic; Pass A fuses the SiLU in @silu and refuses the
// logistic of @gate (its result has two uses), naming the user that decided.

// IR-LABEL: func.func @silu
// IR: stablehlo.composite "neuron.DotLogistic"
// IR-LABEL: func.func @gate
// IR-NOT: stablehlo.composite
func.func @silu(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %one = stablehlo.constant dense<1.0> : tensor<4x4xf32>
  %n = stablehlo.negate %d : tensor<4x4xf32>
  %e = stablehlo.exponential %n : tensor<4x4xf32>
  %a = stablehlo.add %one, %e : tensor<4x4xf32>
  %s = stablehlo.divide %one, %a : tensor<4x4xf32>
  %m = stablehlo.multiply %d, %s : tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}

func.func @gate(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %l = stablehlo.logistic %d : tensor<4x4xf32>
  %m = stablehlo.multiply %d, %l : tensor<4x4xf32>
  %u = stablehlo.add %l, %l : tensor<4x4xf32>
  return %m, %u : tensor<4x4xf32>, tensor<4x4xf32>
}

// CHECK: "functions": [
// CHECK: "name": "silu"
// CHECK: "pass": "raise-logistic"
// CHECK: "kind": "Logistic"
// CHECK: "name": "stablehlo.divide"
// CHECK-NEXT: "loc": "{{.*}}fusion_report.mlir:19:8"
// CHECK: "pass": "stablehlo-neuron-op-fusion"
// CHECK-NEXT: "rule": "fuseDotLogisticOp"
// CHECK-NEXT: "kind": "DotLogistic"
// CHECK: "name": "gate"
// CHECK: "refused": [
// CHECK: "kind": "DotLogistic"
// CHECK-NEXT: "anchor": {
// CHECK-NEXT: "name": "stablehlo.logistic"
// CHECK-NEXT: "loc": "{{.*}}fusion_report.mlir:26:8"
// CHECK: "reason": "logistic-multi-use:3 uses"
// CHECK-NEXT: "code": "logistic-multi-use"
// CHECK-NEXT: "culprit": {
// CHECK-NEXT: "name": "stablehlo.add"
// CHECK: "summary": {
// CHECK: "DotLogistic": {
// CHECK-NEXT: "formed": 1
// CHECK-NEXT: "refused": 1

// HTML: <!DOCTYPE html>
// HTML: <h2>Per kind</h2>
// HTML: <td>DotLogistic</td><td class="n">1</td><td class="n">1</td><td>logistic-multi-use 1</td>
// HTML: <code>logistic-multi-use:3 uses</code>
