// Tests TensorFlow's hint when a GPU is requested and the device set has
// none (placer_test: TestUseGpuWithNoCuda).
// RUN: gplace-opt %s -split-input-file -verify-diagnostics --gplace-place="devices=cpu:1"

func.func @gpuWithoutGpus() {
  // expected-error @+1 {{Cannot assign a device for operation 'var': Could not satisfy explicit device specification '/device:gpu:0' because no devices matching that specification are registered in this process; node 'var' was explicitly assigned to /device:gpu:0 but available devices are [ /job:localhost/replica:0/task:0/device:CPU:0 ]. Make sure the device specification refers to a valid device. The requested device appears to be a GPU, but CUDA is not enabled.}}
  %v = gplace.variable dense<1.0> : tensor<f32> {device = "/device:gpu:0", name = "var"}
  return
}

// -----

// Tests that a request without a device type gets no GPU hint.
func.func @jobWithoutGpus() {
  // expected-error-re @+1 {{Make sure the device specification refers to a valid device.{{$}}}}
  %v = gplace.constant dense<1.0> : tensor<f32> {device = "/job:worker"}
  return
}
