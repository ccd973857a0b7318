// Tests TensorFlow's placer heuristics among soft placement's candidates
// (GetDevicesForNode returns GetSoftDeviceCandidates, every device of the
// task with a kernel, and heuristics A and B choose among them): a
// constant requesting a GPU that does not exist goes with its consumer on
// GPU:1, and an identity requesting one goes with its producer there (both
// went to GPU:0, the first candidate, adding copies). The log keeps the
// soft placement's reason.
// RUN: gplace-opt %s --gplace-place="devices=cpu:1,gpu:2 allow-soft-placement=true log-device-placement=true" 2> %t.log | FileCheck %s
// RUN: FileCheck %s --check-prefix=LOG < %t.log

// CHECK-LABEL: func.func @softCandidates
func.func @softCandidates() -> tensor<2xf32> {
  // CHECK: gplace.constant {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1", device = "/gpu:5"
  %a = gplace.constant dense<1.0> : tensor<2xf32> {device = "/gpu:5", name = "a"}
  // CHECK: gplace.neg {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1", device = "/gpu:1"
  %b = gplace.neg %a {device = "/gpu:1", name = "b"} : tensor<2xf32>
  // CHECK: gplace.identity {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1", device = "/gpu:7"
  %i = gplace.identity %b {device = "/gpu:7", name = "i"} : tensor<2xf32>
  return %i : tensor<2xf32>
}
// LOG: a: (Const): /job:localhost/replica:0/task:0/device:GPU:1 (soft placement: requested '/gpu:5', but no devices matching that specification are registered in this process)
// LOG: i: (Identity): /job:localhost/replica:0/task:0/device:GPU:1 (soft placement: requested '/gpu:7', but no devices matching that specification are registered in this process)
