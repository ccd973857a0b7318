// gplace.check_range: its operand forwarded when every element is in
// [low, high]; else the run fails at the step, naming the first element
// outside and the range; i32 and i64, negative bounds; on the CPU, and on
// the CPU beside an emulated GPU: it has no GPU kernel, so a request for a
// GPU is refused, as TensorFlow refuses it, unless soft placement moves
// it to the CPU.
// RUN: gplace-run %s --allow-soft-placement --input=2xi64=3,0 --input=3xi32=-2,0,2 | FileCheck %s
// RUN: gplace-run %s --allow-soft-placement --emulate-gpus=1 --input=2xi64=3,0 --input=3xi32=-2,0,2 | FileCheck %s
// CHECK: result[0]: 2xi64=[4, 2]
// CHECK-NEXT: result[1]: 3xi32=[-2, 0, 2]
// RUN: gplace-run %s --allow-soft-placement --emulate-gpus=1 --log-device-placement --input=2xi64=3,0 --input=3xi32=-2,0,2 2>&1 >/dev/null | FileCheck %s --check-prefix=PLACED
// PLACED: lens_check: (CheckRange): /job:localhost/replica:0/task:0/device:CPU:0 (soft placement: requested '/device:GPU:0', but no supported kernel for GPU devices is available)
// RUN: not gplace-run %s --emulate-gpus=1 --input=2xi64=3,0 --input=3xi32=-2,0,2 2>&1 | FileCheck %s --check-prefix=HARD
// HARD: error: Cannot assign a device for operation 'lens_check': Could not satisfy explicit device specification '/device:GPU:0' because no supported kernel for GPU devices is available (CheckRange 'lens_check' with element type i64 has kernels for CPU only)
// RUN: not gplace-run %s --allow-soft-placement --input=2xi64=3,4 --input=3xi32=-2,0,2 2>&1 | FileCheck %s --check-prefix=HIGH
// HIGH: error: lens_check (gplace.check_range) on /job:localhost/replica:0/task:0/device:CPU:0: gplace.check_range: x[1] = 4 is not in [0, 3]
// RUN: not gplace-run %s --allow-soft-placement --emulate-gpus=1 --input=2xi64=-1,4 --input=3xi32=-2,0,2 2>&1 | FileCheck %s --check-prefix=LOW
// LOW: error: lens_check {{.*}}: gplace.check_range: x[0] = -1 is not in [0, 3]
// RUN: not gplace-run %s --allow-soft-placement --input=2xi64=3,0 --input=3xi32=-2,0,3 2>&1 | FileCheck %s --check-prefix=I32
// I32: error: signed {{.*}}: gplace.check_range: x[2] = 3 is not in [-2, 2]
func.func @main(%lens: tensor<2xi64>, %offsets: tensor<3xi32>) -> (tensor<2xi64>, tensor<3xi32>) {
  %ok = gplace.check_range %lens low = 0 high = 3 {name = "lens_check", device = "/device:GPU:0"} : tensor<2xi64>
  %c = gplace.constant dense<[1, 2]> : tensor<2xi64>
  %s = gplace.add %ok, %c {name = "add"} : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %o = gplace.check_range %offsets low = -2 high = 2 {name = "signed"} : tensor<3xi32>
  return %s, %o : tensor<2xi64>, tensor<3xi32>
}
