// A Python pass (the printer) and upstream C++ passes in one pipeline, nested and flat.
// RUN: hilo-opt %s --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,func.func(canonicalize,cse),mhlo-to-py-penguin)' | FileCheck %s
// RUN: hilo-opt %s --stablehlo-legalize-to-hlo --cse --mhlo-to-py-penguin=root=my.penguin | FileCheck %s --check-prefix=FLAGS
// RUN: not hilo-opt %s --pass-pipeline='builtin.module(func.func(mhlo-to-py-penguin))' 2>&1 | FileCheck %s --check-prefix=NEST

// CHECK: import neuronxcc.starfish.penguin as m0
// CHECK: input_0 = {{.*}}.markInput(v0, index=0, is_parameter_tensor=False)
// CHECK: [[A:v[0-9]+]] = m1.AddOp(srcs=[input_0, input_0], {{.*}}xla_op='mhlo.add'
// CHECK-NEXT: [[M:v[0-9]+]] = m1.MultiplyOp(srcs=[[[A]], [[A]]], {{.*}}xla_op='mhlo.multiply'
// CHECK-NEXT: v0.markOutput([[M]], index=0, name={{.*}}, is_slow_changing=False)

// FLAGS: import my.penguin as m0
// FLAGS: MultiplyOp(srcs=[v1, v1]

// NEST: error: pass 'mhlo-to-py-penguin' anchors on 'builtin.module' and cannot be nested under 'func.func'

func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  %1 = stablehlo.add %a, %a : tensor<4xf32>
  %2 = stablehlo.multiply %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
