// Tests --gplace-assign-devices: the module's gplace.devices from the
// option, kept without it, this process's CPU when there is none, GPU
// memory limits from gpu-memory-limit; placement reads the list.
// RUN: gplace-opt %s --split-input-file --gplace-assign-devices="devices=cpu:1,gpu:2 gpu-memory-limit=1024" | FileCheck %s --check-prefix=OPTION
// RUN: gplace-opt %s --split-input-file --gplace-assign-devices | FileCheck %s --check-prefix=KEEP
// RUN: gplace-opt %s --split-input-file --gplace-assign-devices --gplace-assign-devices | FileCheck %s --check-prefix=KEEP
// RUN: gplace-opt %s --split-input-file --gplace-assign-devices --gplace-place | FileCheck %s --check-prefix=PLACE
// RUN: not gplace-opt %s --split-input-file --gplace-assign-devices="devices=tpu:1" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not gplace-opt %s --split-input-file --gplace-assign-devices="gpu-memory-limit=-1" 2>&1 | FileCheck %s --check-prefix=LIMIT

// OPTION: module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:GPU:0", memory_limit = 1073741824>, #gplace.device<"/job:localhost/replica:0/task:0/device:GPU:1", memory_limit = 1073741824>, #gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">]}
// KEEP: module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:GPU:0", memory_limit = 2048, description = "device: 0, name: my GPU", processes = 0, free_mib = 100, utilization = 5>, #gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">]}
// PLACE: gplace.matmul {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"
// BAD: error: gplace-assign-devices: invalid device list 'tpu:1'
// LIMIT: error: gplace-assign-devices: gpu-memory-limit must be from 0 to 8796093022207 MiB, but is -1
module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:GPU:0", memory_limit = 2048, description = "device: 0, name: my GPU", processes = 0, free_mib = 100, utilization = 5>, #gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">]} {
  func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
    %y = gplace.matmul %x, %x : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    return %y : tensor<2x2xf32>
  }
}

// -----

// A module without a list gets this process's CPU.
// KEEP: module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">]}
// PLACE: gplace.neg {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %y = gplace.neg %x : tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
