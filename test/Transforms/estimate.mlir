// --gplace-estimate: the report to a file (output=), a placement over its
// device's limit (figures, then the memory planner's error; the pass does
// not fail), and its errors: an unplaced op, a bad profile.
// The second chunk (unplaced) fails; the first writes the file.
// RUN: not gplace-opt %s --split-input-file --gplace-estimate="output=%t.txt" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STDERR
// STDERR-NOT: predicted
// STDERR: error: cannot estimate the step time
// RUN: FileCheck %s --input-file=%t.txt
// Over its limit the pass still succeeds, and leaves the module as it was.
// RUN: not gplace-opt %s --split-input-file --gplace-estimate="output=%t.2.txt" 2>/dev/null | FileCheck %s --check-prefix=KEPT
// KEPT: func.func @over
// KEPT: gplace.matmul
// RUN: not gplace-opt %s --gplace-estimate="profile=%t.missing.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROFILE
// PROFILE: <unknown>:0: error: gplace-estimate: cannot read profile '{{.*}}missing.json': No such file or directory

// A 1 MiB variable on a GPU of 512 KiB.
// CHECK: @over: predicted step time {{[0-9.]+}} ms (default rates)
// CHECK: /job:localhost/replica:0/task:0/device:GPU:0 {{[0-9.]+}} {{[0-9]+}} {{[0-9]+}} 524288
// CHECK: the memory plan fails:
// CHECK-NEXT: device /job:localhost/replica:0/task:0/device:GPU:0 needs {{.*}} but its memory limit is 524288 bytes
module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:GPU:0", memory_limit = 524288>, #gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">]} {
  func.func @over(%x: tensor<4x512xf32>) -> tensor<4x512xf32> {
    %w = gplace.variable dense<1.0> : tensor<512x512xf32> {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"}
    %r = gplace.read %w {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"} : !gplace.resource<tensor<512x512xf32>>
    %y = gplace.matmul %x, %r {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"} : (tensor<4x512xf32>, tensor<512x512xf32>) -> tensor<4x512xf32>
    return %y : tensor<4x512xf32>
  }
}

// -----

// RUN: not gplace-opt %s --split-input-file --gplace-estimate -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNPLACED
// UNPLACED: error: cannot estimate the step time: the op has no assigned device of the device set (run --gplace-place first)
func.func @unplaced(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = gplace.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
