// Tests placement errors, in TensorFlow's words, at the op's location
// (placer_test: TestNonexistentGpuNoAllowSoftPlacement,
// TestUnsupportedDeviceNoAllowSoftPlacement, TestNonExistentDevice,
// TestMalformedDeviceSpecification, TestResourceHandlesOnDifferentDevicesFails,
// TestHeterogeneousDeviceSetFailure, AssignedDeviceOfColocatedNodeIsRespected).
// RUN: gplace-opt %s -split-input-file -verify-diagnostics --gplace-place="devices=cpu:1,gpu:1"

// Tests a request naming no registered device, without soft placement.
func.func @nonexistentGpu() {
  // expected-error @+1 {{Cannot assign a device for operation 'b': Could not satisfy explicit device specification '/device:GPU:2' because no devices matching that specification are registered in this process; node 'b' was explicitly assigned to /device:GPU:2 but available devices are [ /job:localhost/replica:0/task:0/device:GPU:0, /job:localhost/replica:0/task:0/device:CPU:0 ]. Make sure the device specification refers to a valid device.}}
  %b = gplace.constant dense<1.0> : tensor<f32> {device = "/device:GPU:2", name = "b"}
  return
}

// -----

func.func @nonexistentJob() {
  // expected-error @+1 {{Cannot assign a device for operation 'Const': Could not satisfy explicit device specification '/job:foo/replica:17' because no devices matching that specification are registered in this process; node 'Const' was explicitly assigned to /job:foo/replica:17 but available devices are [ }}
  %0 = gplace.constant dense<1.0> : tensor<f32> {device = "/job:foo/replica:17"}
  return
}

// -----

// Tests a device type gplace has no devices of: valid syntax (TensorFlow's
// DeviceNameUtils), refused at placement.
func.func @customDeviceType() {
  // expected-error @+1 {{Cannot assign a device for operation 'Const': Could not satisfy explicit device specification '/device:myspecialdevice:13' because no devices matching that specification are registered in this process; node 'Const' was explicitly assigned to /device:myspecialdevice:13 but available devices are [ /job:localhost/replica:0/task:0/device:GPU:0, /job:localhost/replica:0/task:0/device:CPU:0 ]. Make sure the device specification refers to a valid device.}}
  %0 = gplace.constant dense<1.0> : tensor<f32> {device = "/device:myspecialdevice:13"}
  return
}

// -----

// Tests the seeds' integer variable on /gpu:0 without soft placement.
func.func @noKernelForDeviceType() {
  // expected-error @+1 {{Cannot assign a device for operation 'Variable': Could not satisfy explicit device specification '/gpu:0' because no supported kernel for GPU devices is available (VarHandleOp 'Variable' with element type i32 has kernels for CPU only; ReadVariableOp 'ReadVariableOp' with element type i32 has kernels for CPU only)}}
  %i = gplace.variable dense<3> : tensor<i32> {device = "/gpu:0"}
  %v = gplace.read %i : !gplace.resource<tensor<i32>>
  return
}

// -----

func.func @castOnGpu(%x: tensor<2xf32>) {
  // expected-error @+1 {{Could not satisfy explicit device specification '/gpu:0' because no supported kernel for GPU devices is available (Cast 'Cast' with element type i32 has kernels for CPU only)}}
  %0 = gplace.cast %x {device = "/gpu:0"} : tensor<2xf32> to tensor<2xi32>
  return
}

// -----

// Tests that every bad op is reported, not just the first.
func.func @everyErrorReported() {
  // expected-error @+1 {{Cannot assign a device for operation 'x'}}
  %0 = gplace.constant dense<1.0> : tensor<f32> {device = "/gpu:7", name = "x"}
  // expected-error @+1 {{Cannot assign a device for operation 'y'}}
  %1 = gplace.constant dense<1.0> : tensor<f32> {device = "/gpu:8", name = "y"}
  return
}

// -----

func.func @malformedDevice() {
  // expected-error @+1 {{Malformed device specification '/foo:bar': unknown field 'foo'}}
  %0 = gplace.constant dense<1.0> : tensor<f32> {device = "/foo:bar"}
  return
}

// -----

// expected-error @+1 {{gplace.default_device: Malformed device specification '/gpu:x': device id 'x' is not a non-negative integer}}
func.func @malformedScope() attributes {gplace.default_device = "/gpu:x"} {
  return
}

// -----

// Tests that an op's job conflicting with the function's scope is an error.
func.func @scopeConflict() attributes {gplace.default_device = "/job:localhost"} {
  // expected-error @+1 {{Cannot assign a device for operation 'Const': Cannot merge devices with incompatible jobs: '/job:localhost' and '/job:worker/device:GPU:0'}}
  %0 = gplace.constant dense<1.0> : tensor<f32> {device = "/job:worker/gpu:0"}
  return
}

// -----

// Tests that conflicting requests of ops colocated by gplace.colocate_with
// (no resource edge between them) name both ops and both requests.
func.func @colocationConflict(%x: tensor<f32>) {
  // expected-note @+1 {{'a' requests '/gpu:0' here}}
  %a = gplace.neg %x {device = "/gpu:0", name = "a"} : tensor<f32>
  // expected-error @+1 {{Cannot colocate nodes 'b' and 'a': Cannot merge devices with incompatible types: '/device:GPU:0' and '/device:CPU:0'}}
  %b = gplace.neg %a {device = "/cpu:0", name = "b", gplace.colocate_with = "a"} : tensor<f32>
  return
}

// -----

// Tests that when a member's kernels rule out the device another member
// requests, the error is at that member, in TensorFlow's words for a
// colocation group, with a note at the request.
func.func @colocatedWithIncompatibleGroup() {
  // expected-error @+1 {{Cannot assign a device for operation 'v': Could not satisfy explicit device specification '' because the node 'v' was colocated with a group of nodes that required incompatible device '/device:GPU:0'. All available devices [/job:localhost/replica:0/task:0/device:GPU:0, /job:localhost/replica:0/task:0/device:CPU:0]. (VarHandleOp 'v' with element type i32 has kernels for CPU only; ReadVariableOp 'r' with element type i32 has kernels for CPU only)}}
  %v = gplace.variable dense<3> : tensor<i32> {name = "v"}
  // expected-note @+1 {{'r' requests '/gpu:0' here}}
  %r = gplace.read %v {device = "/gpu:0", name = "r"} : !gplace.resource<tensor<i32>>
  return
}

// -----

// Tests that an op without a kernel on any device is reported in
// TensorFlow's words.
func.func @noOpKernel(%x: tensor<i1>) {
  %v = gplace.variable dense<true> : tensor<i1> {name = "v"}
  // expected-error @+1 {{Cannot assign a device for operation 'inc': No OpKernel was registered to support Op 'AssignAddVariableOp' used by node 'inc' with these attrs: [T=i1]; registered devices: [GPU, CPU]; registered kernels: <no registered kernels>}}
  %t = gplace.assign_add %v, %x {name = "inc"} : !gplace.resource<tensor<i1>>
  return
}

// -----

// Tests that an assigned device is kept, and reported when it is not a
// device of the set (TensorFlow: "Assigned device ... does not match any
// device").
func.func @assignedDeviceElsewhere(%x: tensor<2xf32>) {
  // expected-error @+1 {{Assigned device '/job:localhost/replica:0/task:0/device:GPU:7' does not match any device; available devices: /job:localhost/replica:0/task:0/device:GPU:0, /job:localhost/replica:0/task:0/device:CPU:0 (remove assigned_device to place the op again)}}
  %0 = gplace.neg %x {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:7"} : tensor<2xf32>
  return
}

// -----

func.func @assignedDevicePartial(%x: tensor<2xf32>) {
  // expected-error @+1 {{Assigned device '/gpu:0' does not match any device}}
  %0 = gplace.neg %x {assigned_device = "/gpu:0"} : tensor<2xf32>
  return
}

// -----

func.func @assignedDeviceWithoutKernel(%x: tensor<2xi32>) {
  // expected-error @+1 {{Assigned device '/job:localhost/replica:0/task:0/device:GPU:0' does not have registered OpKernel support for Neg (Neg 'Neg' with element type i32 has kernels for CPU only)}}
  %0 = gplace.neg %x {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"} : tensor<2xi32>
  return
}

// -----

func.func @assignedDevicesOfOneResource() {
  // expected-note @+1 {{'Variable' is assigned to '/job:localhost/replica:0/task:0/device:GPU:0' here}}
  %v = gplace.variable dense<1.0> : tensor<f32> {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"}
  // expected-error @+1 {{Cannot place the graph because a reference or resource edge connects colocation groups with incompatible assigned devices: '/job:localhost/replica:0/task:0/device:CPU:0' vs '/job:localhost/replica:0/task:0/device:GPU:0'}}
  %r = gplace.read %v {assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"} : !gplace.resource<tensor<f32>>
  return
}

// -----

// Tests a member without a kernel on the device its group is assigned to
// (placer_test: AssignedDeviceOfColocatedNodeIsRespected).
func.func @colocatedWithAssignedDevice(%x: tensor<2xf32>) {
  // expected-note @+1 {{'a' is assigned to '/job:localhost/replica:0/task:0/device:GPU:0' here}}
  %a = gplace.neg %x {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", name = "a"} : tensor<2xf32>
  // expected-error @+1 {{Cannot assign a device for operation 'b': Could not satisfy explicit device specification '' because the node 'b' was colocated with a group of nodes that required incompatible device '/job:localhost/replica:0/task:0/device:GPU:0'. All available devices [/job:localhost/replica:0/task:0/device:GPU:0, /job:localhost/replica:0/task:0/device:CPU:0]. (Cast 'b' with element type i32 has kernels for CPU only)}}
  %b = gplace.cast %a {gplace.colocate_with = "a", name = "b"} : tensor<2xf32> to tensor<2xi32>
  return
}
