// Pipeline strings that do not parse, unknown passes and unknown options:
// one error line, exit 1, nothing on stdout.
// RUN: not hilo-opt %s --pass-pipeline='builtin.module(cse' 2>&1 | FileCheck %s --check-prefix=PAREN
// RUN: not hilo-opt %s --pass-pipeline='builtin.module(,cse)' 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not hilo-opt %s --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not hilo-opt %s --pass-pipeline='builtin.module(canonicalise)' 2>&1 | FileCheck %s --check-prefix=CLOSE
// RUN: not hilo-opt %s --pass-pipeline='builtin.module(mhlo-to-py-penguin{nope=1})' 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not hilo-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=abc})' 2>&1 | FileCheck %s --check-prefix=CPPOPT
// RUN: not hilo-opt %s --no-such-flag 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not hilo-opt %s --pass-pipeline='func.func(cse)' 2>&1 | FileCheck %s --check-prefix=ROOT
// RUN: not hilo-opt %s --pass-pipeline='builtin.module(mhlo-to-py-penguin{output=-},cse)' 2>&1 | FileCheck %s --check-prefix=LATE
// RUN: not hilo-opt %s --pass-pipeline='builtin.module(mhlo-to-py-penguin,func.func(cse))' 2>&1 | FileCheck %s --check-prefix=LATE
// RUN: not hilo-opt %s --mhlo-to-py-penguin --cse 2>&1 | FileCheck %s --check-prefix=LATEFLAG
// RUN: not hilo-opt %s --pass-pipeline='builtin.module(mhlo-to-py-penguin,mhlo-to-py-penguin)' 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not hilo-opt %s --pass-pipeline='builtin.module(cse' 2>/dev/null | FileCheck %s --allow-empty --check-prefix=NOOUT
// NOOUT-NOT: {{.}}

// PAREN: error: invalid pass pipeline 'builtin.module(cse': expected ')' at column 19
// EMPTY: error: invalid pass pipeline 'builtin.module(,cse)': expected a pass or op name at column 16
// UNKNOWN: error: unknown pass 'no-such-pass' (pass pipeline column 16)
// CLOSE: error: unknown pass 'canonicalise' (did you mean 'canonicalize'
// OPT: error: pass 'mhlo-to-py-penguin' has no option 'nope' (options: root, model-type, output, inline-constant-max-elements)
// CPPOPT: {{^}}hilo-opt: error: invalid options for pass 'canonicalize': for the --max-iterations option: 'abc' value invalid for long argument!{{.*}}(pass pipeline column 16)
// CPPOPT-NOT: {{.}}
// FLAG: hilo-opt: error: unrecognized arguments: --no-such-flag
// LATE: {{^}}hilo-opt: error: --pass-pipeline: 'mhlo-to-py-penguin' is a printer pass: nothing can run after it; put 'cse' before it{{$}}
// LATE-NOT: {{.}}
// LATEFLAG: {{^}}hilo-opt: error: --mhlo-to-py-penguin: 'mhlo-to-py-penguin' is a printer pass: nothing can run after it; put 'cse' before it{{$}}
// TWO: {{^}}hilo-opt: error: --pass-pipeline: 'mhlo-to-py-penguin' is a printer pass: nothing can run after it; a pipeline runs one printer pass, last{{$}}
// ROOT: hilo-opt: error: can't run 'func.func' pass manager on 'builtin.module' op (nest it: 'builtin.module(func.func(cse))')

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
