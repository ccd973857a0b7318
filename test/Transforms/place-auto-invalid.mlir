// Tests policy=auto's errors: a graph that fits no device names the op, the
// devices' memory and the largest tensors; a bad profile is an option error.
// RUN: gplace-opt %s --split-input-file --verify-diagnostics --gplace-place="policy=auto"
// RUN: not gplace-opt %s --gplace-place="policy=auto profile=%t.missing.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: echo '{"version": 1, "devices": {"GPU": {"flops_per_second": -1, "bytes_per_second": 1, "launch_seconds": 1}}}' > %t.bad.json
// RUN: not gplace-opt %s --gplace-place="policy=auto profile=%t.bad.json" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: echo 'not json' > %t.text.json
// RUN: not gplace-opt %s --gplace-place="policy=auto profile=%t.text.json" 2>&1 | FileCheck %s --check-prefix=TEXT
// RUN: echo '{"devices": {}}' > %t.noversion.json
// RUN: not gplace-opt %s --gplace-place="policy=auto profile=%t.noversion.json" 2>&1 | FileCheck %s --check-prefix=VERSION

// MISSING: <unknown>:0: error: gplace-place: cannot read profile '{{.*}}missing.json': No such file or directory
// BAD: <unknown>:0: error: gplace-place: {{.*}}bad.json: devices.GPU.flops_per_second must be a positive number
// TEXT: <unknown>:0: error: gplace-place: profile '{{.*}}text.json' is not JSON: {{.*}}
// VERSION: <unknown>:0: error: gplace-place: {{.*}}noversion.json: not a gplace profile (expected an object with "version": 1)

// Three layers of 256 KiB weights that must go on GPUs of 400 KiB: one layer
// on each, the third fits nowhere.
module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:GPU:0", memory_limit = 409600>, #gplace.device<"/job:localhost/replica:0/task:0/device:GPU:1", memory_limit = 409600>, #gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">]} {
  func.func @tooLarge(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
    %w0 = gplace.variable dense<1.0> : tensor<256x256xf32> {name = "w0", device = "/gpu:*"}
    %w1 = gplace.variable dense<1.0> : tensor<256x256xf32> {name = "w1", device = "/gpu:*"}
    %w2 = gplace.variable dense<1.0> : tensor<256x256xf32> {name = "w2", device = "/gpu:*"}
    %r0 = gplace.read %w0 : !gplace.resource<tensor<256x256xf32>>
    %m0 = gplace.matmul %x, %r0 {name = "layer0", device = "/gpu:*"} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
    %r1 = gplace.read %w1 : !gplace.resource<tensor<256x256xf32>>
    %m1 = gplace.matmul %m0, %r1 {name = "layer1", device = "/gpu:*"} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
    %r2 = gplace.read %w2 : !gplace.resource<tensor<256x256xf32>>
    // expected-error @+1 {{Cannot place 'layer2' under the devices' memory limits (policy=auto): it needs 256 KiB for constants and variables and 128 KiB for tensors on one device; GPU:0 has 384 KiB in use of 400 KiB, GPU:1 has 384 KiB in use of 400 KiB; the largest tensors: 'w0' (256 KiB), 'w1' (256 KiB), 'w2' (256 KiB)}}
    %m2 = gplace.matmul %m1, %r2 {name = "layer2", device = "/gpu:*"} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
    return %m2 : tensor<64x256xf32>
  }
}
