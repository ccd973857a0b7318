// Tests the gplan verifiers.
// RUN: gplace-opt %s -split-input-file -verify-diagnostics

gplan.program @copyTypes {
  %0 = gplan.input 0 : !gplan.buffer<tensor<2xf32>>
  %1 = gplan.input 1 : !gplan.buffer<tensor<3xf32>>
  // expected-error @+1 {{'gplan.copy' op copies between buffers of different types '!gplan.buffer<tensor<2xf32>>' and '!gplan.buffer<tensor<3xf32>>'}}
  gplan.copy %0 -> %1 on @gpu0 stream 1 : !gplan.buffer<tensor<2xf32>>, !gplan.buffer<tensor<3xf32>>
  gplan.return
}

// -----

// expected-error @+1 {{'gplan.program' op must end with gplan.return}}
"gplan.program"() <{sym_name = "noReturn"}> ({
  %0 = gplan.input 0 : !gplan.buffer<tensor<2xf32>>
}) : () -> ()

// -----

gplan.program @constantType {
  // expected-error @+2 {{'gplan.constant' op failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) '!gplan.buffer<tensor<2xf32>>' are incompatible with return type(s) of operation '!gplan.buffer<tensor<3xf32>>'}}
  %0 = "gplan.constant"() <{device = @cpu0, value = dense<1.0> : tensor<2xf32>}> : () -> !gplan.buffer<tensor<3xf32>>
  gplan.return
}
