// dl=DebugLocation(file, line, col, name[, parent]) from the op's MLIR location (docs/penguin_format.md
// section 5): file/line/col from the first file location inside it, name from the outermost name location.
// RUN: hilo-opt %s --stablehlo-to-py-penguin=output=- -o /dev/null | FileCheck %s

// CHECK-LABEL: 'module=locations'))
// CHECK: {{v[0-9]+}} = m1.AbsOp({{.*}}dl=m2.DebugLocation(file='model.py', line=3, col=7, name=''))
// CHECK-NEXT: {{v[0-9]+}} = m1.NegateOp({{.*}}dl=m2.DebugLocation(file='', line=0, col=0, name='jit(f)/neg'))
// CHECK-NEXT: {{v[0-9]+}} = m1.SineOp({{.*}}dl=m2.DebugLocation(file='model.py', line=9, col=2, name='jit(f)/sin'))
// CHECK-NEXT: {{v[0-9]+}} = m1.CosineOp({{.*}}dl=m2.DebugLocation(file='a.py', line=1, col=2, name=''))
// CHECK-NEXT: {{v[0-9]+}} = m1.TanhOp({{.*}}dl=m2.DebugLocation(file='inner.py', line=5, col=6, name='callee'))
// CHECK-NEXT: {{v[0-9]+}} = m1.ExponentialOp({{.*}}dl=m2.DebugLocation(file='', line=0, col=0, name=''))
// CHECK-NEXT: v0.markOutput({{v[0-9]+}}, index=0,
module @locations {
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.abs %x : tensor<4xf32> loc("model.py":3:7)
  %1 = stablehlo.negate %0 : tensor<4xf32> loc("jit(f)/neg")
  %2 = stablehlo.sine %1 : tensor<4xf32> loc("jit(f)/sin"("model.py":9:2 to :10))
  %3 = stablehlo.cosine %2 : tensor<4xf32> loc(fused["a.py":1:2, "b.py":3:4])
  %4 = stablehlo.tanh %3 : tensor<4xf32> loc(callsite("callee"("inner.py":5:6) at "outer.py":7:8))
  %5 = stablehlo.exponential %4 : tensor<4xf32> loc(unknown)
  return %5 : tensor<4xf32>
}
}
