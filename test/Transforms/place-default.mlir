// Tests placement without requests: TensorFlow's default priority (GPU before
// CPU, lowest id first), kernels that exist only on the CPU, and the placer's
// two heuristics (placer_test: TestNoConstraints, TestDeviceTypeConstraints,
// TestHeuristicGeneratorFollowsSingleConsumer,
// TestIgnoreGeneratorHeuristicIfWrongDevice, TestMetadataColocatedWithInput).
// RUN: gplace-opt %s --gplace-place="devices=cpu:1,gpu:2" | FileCheck %s
// RUN: gplace-opt %s --gplace-place="devices=cpu:1,gpu:2" --gplace-place="devices=cpu:1,gpu:2" | FileCheck %s
// RUN: gplace-opt %s --gplace-place="devices=cpu:1 allow-soft-placement=true" | FileCheck %s --check-prefix=CPUONLY
// RUN: gplace-opt %s --gplace-place=allow-soft-placement=true | FileCheck %s --check-prefix=CPUONLY

// CHECK-LABEL: func.func @defaultPriority
// CPUONLY-LABEL: func.func @defaultPriority
func.func @defaultPriority(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // CHECK: gplace.matmul {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"}
  // CPUONLY: gplace.matmul {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"}
  %0 = gplace.matmul %x, %x : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// Tests that integer ops and cast have no GPU kernel and so run on the CPU,
// and that a CPU-only op can be fed by a GPU op (the copy comes later).
// CHECK-LABEL: func.func @cpuOnlyKernels
func.func @cpuOnlyKernels(%x: tensor<2x2xf32>, %i: tensor<4xi32>) -> tensor<2x2xi32> {
  // CHECK: gplace.add {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"} : (tensor<4xi32>
  %0 = gplace.add %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: gplace.matmul {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"}
  %1 = gplace.matmul %x, %x : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK: gplace.cast {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"}
  %2 = gplace.cast %1 : tensor<2x2xf32> to tensor<2x2xi32>
  // CHECK: gplace.variable dense<1> : tensor<i64> {assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"}
  %3 = gplace.variable dense<1> : tensor<i64>
  return %2 : tensor<2x2xi32>
}

// Tests that a cast between float types (what mixed precision inserts)
// has a GPU kernel, and that a cast from or to an integer or bool type
// does not, whichever side the integer is on.
// CHECK-LABEL: func.func @floatCasts
func.func @floatCasts(%x: tensor<2xf32>, %p: tensor<2xui8>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xi1>) {
  // CHECK: gplace.cast {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"} : tensor<2xf32> to tensor<2xbf16>
  %0 = gplace.cast %x : tensor<2xf32> to tensor<2xbf16>
  // CHECK: gplace.cast {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"} : tensor<2xbf16> to tensor<2xf32>
  %1 = gplace.cast %0 : tensor<2xbf16> to tensor<2xf32>
  // CHECK: gplace.cast {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"} : tensor<2xui8> to tensor<2xf32>
  %2 = gplace.cast %p : tensor<2xui8> to tensor<2xf32>
  // CHECK: gplace.cast {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"} : tensor<2xf32> to tensor<2xi1>
  %3 = gplace.cast %x : tensor<2xf32> to tensor<2xi1>
  return %1, %2, %3 : tensor<2xf32>, tensor<2xf32>, tensor<2xi1>
}

// Tests heuristic A: a generator (no data inputs, one result) goes where
// its consumers go, if they agree and it has a kernel there.
// CHECK-LABEL: func.func @generatorFollowsConsumer
func.func @generatorFollowsConsumer() {
  // CHECK: %[[A:.+]] = gplace.constant {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"}
  %a = gplace.constant dense<1.0> : tensor<2xf32>
  // CHECK: gplace.exp %[[A]] {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %b = gplace.exp %a {device = "/gpu:1"} : tensor<2xf32>
  // Consumers on two devices: the default rule.
  // CHECK: %[[C:.+]] = gplace.constant {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"}
  %c = gplace.constant dense<1.0> : tensor<2xf32>
  %d = gplace.exp %c {device = "/gpu:1"} : tensor<2xf32>
  %e = gplace.exp %c {device = "/cpu:0"} : tensor<2xf32>
  // A consumer on the CPU pulls the generator there.
  // CHECK: gplace.constant {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"}
  %f = gplace.constant dense<1.0> : tensor<2xf32>
  %g = gplace.cast %f : tensor<2xf32> to tensor<2xi32>
  // Waiting on a token does not make an op a non-generator.
  // CHECK: gplace.constant dense<2.000000e+00> : tensor<2xf32> after({{.*}}) {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"}
  %t = gplace.group %b : tensor<2xf32>
  %h = gplace.constant dense<2.0> : tensor<2xf32> after(%t)
  %i = gplace.exp %h {device = "/gpu:1"} : tensor<2xf32>
  return
}

// Tests that a function's results do not count as consumers (a TensorFlow
// session places the graph before it adds its fetch nodes): a constant
// returned and consumed on the CPU goes to the CPU (it went to GPU:0).
// CHECK-LABEL: func.func @returnedGeneratorFollowsConsumer
func.func @returnedGeneratorFollowsConsumer() -> (tensor<2xf32>, tensor<2xf32>) {
  // CHECK: gplace.constant {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"}
  %a = gplace.constant dense<1.0> : tensor<2xf32>
  %b = gplace.neg %a {device = "/cpu:0"} : tensor<2xf32>
  return %a, %b : tensor<2xf32>, tensor<2xf32>
}

// Tests that the generator heuristic is ignored when the generator has no
// kernel on its consumer's device (an i32 constant cannot follow a GPU op).
// CHECK-LABEL: func.func @ignoreGeneratorHeuristicIfWrongDevice
func.func @ignoreGeneratorHeuristicIfWrongDevice() {
  // CHECK: gplace.constant dense<1> : tensor<i32> {assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"}
  %a = gplace.constant dense<1> : tensor<i32>
  // CHECK: gplace.group {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %t = gplace.group %a {device = "/gpu:1"} : tensor<i32>
  return
}

// Tests heuristic B: identity and reshape go where their producer is.
// CHECK-LABEL: func.func @forwardingOpsFollowProducer
func.func @forwardingOpsFollowProducer(%x: tensor<2x3xf32>) {
  %a = gplace.exp %x {device = "/gpu:1"} : tensor<2x3xf32>
  // CHECK: gplace.identity {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"}
  %b = gplace.identity %a : tensor<2x3xf32>
  // CHECK: gplace.reshape {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"}
  %c = gplace.reshape %b : tensor<2x3xf32> -> tensor<6xf32>
  // Other ops take the default: GPU:0.
  // CHECK: gplace.transpose {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"}
  %d = gplace.transpose %a perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %e = gplace.exp %x {device = "/cpu:0"} : tensor<2x3xf32>
  // CHECK: gplace.reshape {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"}
  %f = gplace.reshape %e : tensor<2x3xf32> -> tensor<3x2xf32>
  // A function argument has no producer: the default.
  // CHECK: gplace.identity {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"}
  %g = gplace.identity %x : tensor<2x3xf32>
  return
}

// Tests that the heuristics apply to ops with a request too, within the
// devices it allows (TensorFlow restricts them to GetDevicesForNode): a
// scope that matches every device no longer sends a constant feeding a
// CPU-only op to GPU:0, and a request that excludes the consumer's device
// is kept.
// CHECK-LABEL: func.func @heuristicsWithinRequest
func.func @heuristicsWithinRequest(%x: tensor<2xf32>) attributes {gplace.default_device = "/job:localhost/replica:0/task:0"} {
  // CHECK: gplace.constant dense<1.000000e+00> {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"}
  %a = gplace.constant dense<1.0> : tensor<2xf32>
  %b = gplace.cast %a : tensor<2xf32> to tensor<2xi32>
  // CHECK: gplace.constant dense<2.000000e+00> {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %c = gplace.constant dense<2.0> : tensor<2xf32> {device = "/gpu:1"}
  %d = gplace.cast %c : tensor<2xf32> to tensor<2xi32>
  // Heuristic B within a request: the identity follows its producer.
  // CHECK: gplace.exp {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %e = gplace.exp %x {device = "/gpu:1"} : tensor<2xf32>
  // CHECK: gplace.identity {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %f = gplace.identity %e {device = "/device:GPU"} : tensor<2xf32>
  return
}
