// What --gplace-rematerialize="auto=true"'s estimate counts, read from the
// module's gplace.rematerialized attribute (estimated_before: the device's
// persistent bytes plus the most bytes live at once), on a GPU whose 1 MiB
// limit the estimate exceeds either way (nothing here is recomputable: no
// op has a backward user, so nothing is).
//
// Persistent on the GPU: the two 1 MiB variables and the learning rate
// (4 bytes; the seed is on the CPU).
// - The read of %w is a view of the variable's memory: every use of it
//   comes before the update that writes %w, on the same GPU (the
//   lowering's rule, readNeedsCopy), so it costs nothing. The read of %v
//   is returned and the update of %v follows it: the lowering copies it
//   (1 MiB, to the end).
// - Without in-place the peak is 4 MiB: %x (read by matmul_accumulate),
//   two of the chain %t, %e, %n, %a, and the copy of %v.
// - With in-place=true (the pipeline's `in-place`) %e takes %t's memory,
//   %n %e's, and matmul_accumulate's result its accumulator's (%n dies
//   there): 3 MiB, as the plan with --gplace-pipeline="in-place=true" has
//   it (3,145,792 bytes of intermediates).
// RUN: gplace-opt %s --gplace-assign-devices --gplace-place --gplace-rematerialize="auto=true" | FileCheck %s --check-prefix=KEPT
// KEPT: estimated_before = 6291460 : i64
// RUN: gplace-opt %s --gplace-assign-devices --gplace-place --gplace-rematerialize="auto=true in-place=true" | FileCheck %s --check-prefix=INPLACE
// INPLACE: estimated_before = 5242884 : i64

module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:GPU:0", memory_limit = 1048576>, #gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">]} {
  func.func @step() -> (tensor<512x512xf32>, tensor<512x512xf32>) {
    %s = gplace.constant dense<[1, 0]> : tensor<2xi64> {name = "seed"}
    %x = gplace.stateless_random_uniform %s {name = "x"} : tensor<2xi64> -> tensor<512x512xf32>
    %w = gplace.variable dense<0.5> : tensor<512x512xf32> {name = "w"}
    %v = gplace.variable dense<0.25> : tensor<512x512xf32> {name = "v"}
    %rw = gplace.read %w {name = "read_w"} : !gplace.resource<tensor<512x512xf32>>
    %rv = gplace.read %v {name = "read_v"} : !gplace.resource<tensor<512x512xf32>>
    %t = gplace.tanh %rw {name = "t"} : tensor<512x512xf32>
    %e = gplace.exp %t {name = "e"} : tensor<512x512xf32>
    %n = gplace.neg %e {name = "n"} : tensor<512x512xf32>
    %a = gplace.matmul_accumulate %n, %x, %rw {name = "acc"} : (tensor<512x512xf32>, tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
    %lr = gplace.constant dense<0.5> : tensor<f32> {name = "lr"}
    gplace.apply_gradient_descent %w, %lr, %a {name = "update_w"} : !gplace.resource<tensor<512x512xf32>>, tensor<f32>, tensor<512x512xf32>
    gplace.apply_gradient_descent %v, %lr, %a {name = "update_v"} : !gplace.resource<tensor<512x512xf32>>, tensor<f32>, tensor<512x512xf32>
    return %rv, %a : tensor<512x512xf32>, tensor<512x512xf32>
  }
}
