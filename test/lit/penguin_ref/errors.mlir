// hilo-penguin-run reports a statement it cannot execute, bad inputs and a bad program as one line
// naming the op and its DebugLocation, exit code 1, no traceback.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save(r'%t/x.npy', np.zeros(3, np.float32)); np.save(r'%t/x4.npy', np.zeros(4, np.float32)); np.save(r'%t/x64.npy', np.zeros(3))"
// RUN: touch %t/empty.npy %t/a-file
// RUN: %python %S/Inputs/write_program.py %t/bad-op/penguin.py frobnicate
// RUN: not hilo-penguin-run %t/bad-op/penguin.py --inputs %t/x.npy --out %t/o 2>&1 | FileCheck --check-prefix=OP %s
// RUN: not hilo-penguin-run %t/bad-op/penguin.py --inputs %t/x4.npy --out %t/o 2>&1 | FileCheck --check-prefix=SHAPE %s
// RUN: not hilo-penguin-run %t/bad-op/penguin.py --inputs %t/x64.npy --out %t/o 2>&1 | FileCheck --check-prefix=DTYPE %s
// RUN: not hilo-penguin-run %t/bad-op/penguin.py --inputs %t/empty.npy --out %t/o 2>&1 | FileCheck --check-prefix=EMPTY %s
// RUN: not hilo-penguin-run %t/bad-op/penguin.py --inputs %t/x.npy --out %t/a-file 2>&1 | FileCheck --check-prefix=OUTFILE %s
// RUN: not hilo-penguin-run %t/bad-op/penguin.py --inputs %t/x.npy %t/x.npy --out %t/o 2>&1 | FileCheck --check-prefix=COUNT %s
// RUN: not hilo-penguin-run %t/missing.py --inputs %t/x.npy --out %t/o 2>&1 | FileCheck --check-prefix=MISSING %s
// RUN: not hilo-penguin-run %t/no-such-dir --inputs %t/x.npy --out %t/o 2>&1 | FileCheck --check-prefix=MISSING-DIR %s
// RUN: %python %S/Inputs/write_program.py %t/syntax/penguin.py syntax
// RUN: not hilo-penguin-run %t/syntax/penguin.py --inputs %t/x.npy --out %t/o 2>&1 | FileCheck --check-prefix=SYNTAX %s
// RUN: %python %S/Inputs/write_program.py %t/npy/penguin.py npyfile
// RUN: not hilo-penguin-run %t/npy/penguin.py --inputs %t/x.npy --out %t/o 2>&1 | FileCheck --check-prefix=NPYFILE %s

// OP: model.py:12:5: error: penguin_ref: cannot execute 'stablehlo.frobnicate' (FrobnicateOp -> v0) [jit(f)/frob] (penguin.py line 7): no numpy implementation for this op
// OP-NOT: Traceback
// SHAPE: hilo-penguin-run: error: input 0 ('{{.*}}x4.npy') is float32 (4,), the program's input_0 is float32 (3,)
// SHAPE-NOT: error
// DTYPE: hilo-penguin-run: error: input 0 ('{{.*}}x64.npy') is float64 (3,), the program's input_0 is float32 (3,)
// DTYPE-NOT: error
// EMPTY: hilo-penguin-run: error: cannot read input '{{.*}}empty.npy': the file is empty (not a .npy array)
// EMPTY-NOT: error
// OUTFILE: hilo-penguin-run: error: cannot write the outputs to '{{.*}}a-file': it is a file, not a folder
// OUTFILE-NOT: error
// COUNT: error: penguin_ref: the program has 1 inputs, 2 given
// MISSING-DIR: hilo-penguin-run: error: cannot open input file '{{.*}}no-such-dir': no such file
// MISSING: hilo-penguin-run: error: cannot open input file '{{.*}}missing.py': no such file
// SYNTAX: error: penguin_ref: {{.*}}penguin.py is not valid Python: invalid syntax (line 7)
// NPYFILE: error: penguin_ref: constant file 'const_0.npy' not found (looked beside the program in {{.*}}npy and in the in-memory files)

func.func @main() {
  return
}
