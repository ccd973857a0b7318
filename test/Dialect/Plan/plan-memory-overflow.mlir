// Tests that --gplace-plan-memory reports byte counts beyond 64 bits as
// errors (they wrapped to negative arena and peak sizes that only the
// verifier caught): tensors of one device that total more than 2^63 bytes,
// and a device whose constants and intermediates fit apart but not
// together. Each tensor here is 2^62 bytes (2^60 f32s).
// RUN: gplace-opt %s --split-input-file --gplace-plan-memory -verify-diagnostics

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
// expected-error @+1 {{'gplan.program' op needs more than 2^63 bytes of memory on @cpu0 for its tensors}}
gplan.program @main {
  %k = gplan.constant @cpu0 dense<1.0> : tensor<1152921504606846976xf32>
  %1 = gplan.launch exp(%k) on @cpu0 stream 0 : (!gplan.buffer<1152921504606846976xf32>) -> !gplan.buffer<1152921504606846976xf32>
  %2 = gplan.launch exp(%1) on @cpu0 stream 0 : (!gplan.buffer<1152921504606846976xf32>) -> !gplan.buffer<1152921504606846976xf32>
  %3 = gplan.launch add(%1, %2) on @cpu0 stream 0 : (!gplan.buffer<1152921504606846976xf32>, !gplan.buffer<1152921504606846976xf32>) -> !gplan.buffer<1152921504606846976xf32>
  gplan.return %3 : !gplan.buffer<1152921504606846976xf32>
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
// expected-error @+1 {{device /job:localhost/replica:0/task:0/device:CPU:0 needs more than 2^63 bytes of memory: 4611686018427387904 bytes (4398046511104 MiB) for constants and variables and 4611686018427387904 bytes (4398046511104 MiB) for intermediates}}
gplan.program @main {
  %k = gplan.constant @cpu0 dense<1.0> : tensor<1152921504606846976xf32>
  %1 = gplan.launch exp(%k) on @cpu0 stream 0 : (!gplan.buffer<1152921504606846976xf32>) -> !gplan.buffer<1152921504606846976xf32>
  gplan.return %1 : !gplan.buffer<1152921504606846976xf32>
}
