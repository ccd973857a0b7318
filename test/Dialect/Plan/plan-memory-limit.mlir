// Tests that --gplace-plan-memory reports a device whose peak exceeds its
// memory limit, naming the device, the need and the limit.
// RUN: gplace-opt %s --gplace-plan-memory -verify-diagnostics

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {memory_limit = 1500 : i64}
// expected-error @+1 {{device /job:localhost/replica:0/task:0/device:GPU:0 needs 2048 bytes of memory, 1024 bytes for constants and variables and 1024 bytes for intermediates, but its memory limit is 1500 bytes}}
gplan.program @main {
  %k = gplan.constant @gpu0 dense<1.0> : tensor<16x16xf32>
  %1 = gplan.launch exp(%k) on @gpu0 stream 0 : (!gplan.buffer<16x16xf32>) -> !gplan.buffer<16x16xf32>
  gplan.return %1 : !gplan.buffer<16x16xf32>
}
