// Tests --gplace-lower-all-reduce=algorithm=ring: the ring over three
// devices (chunks of 2, 2 and 1 elements of a flattened 5-element tensor),
// the mean scaled on each chunk's owner, the gather around the ring, and the
// small case. The default algorithm (collective) is tested in
// lower-all-reduce-collective.mlir.
// RUN: gplace-opt %s --split-input-file --gplace-lower-all-reduce=algorithm=ring | FileCheck %s

// CHECK-LABEL: func.func @ring
// CHECK-NOT: gplace.all_reduce
// Chunk 0 starts on device 1 and ends, summed, on device 0.
// CHECK-DAG: %[[C0D1:.+]] = gplace.slice %{{.+}} begin = [0] size = [2] {device = "/device:GPU:1", name = "grads/slice_1_0"}
// CHECK-DAG: %[[C0D2:.+]] = gplace.slice %{{.+}} begin = [0] size = [2] {device = "/device:GPU:2", name = "grads/slice_2_0"}
// CHECK-DAG: %[[S1:.+]] = gplace.add %[[C0D1]], %[[C0D2]] {device = "/device:GPU:2", name = "grads/reduce_0_2"}
// CHECK-DAG: %[[C0D0:.+]] = gplace.slice %{{.+}} begin = [0] size = [2] {device = "/device:GPU:0", name = "grads/slice_0_0"}
// CHECK-DAG: %[[S2:.+]] = gplace.add %[[S1]], %[[C0D0]] {device = "/device:GPU:0", name = "grads/reduce_0_0"}
// CHECK-DAG: %[[M0:.+]] = gplace.mul %[[S2]], %{{.+}} {device = "/device:GPU:0", name = "grads/mean_0/mul"}
// Chunk 2 (one element) ends on device 2.
// CHECK-DAG: gplace.slice %{{.+}} begin = [4] size = [1] {device = "/device:GPU:0", name = "grads/slice_0_2"}
// The gather: chunk 0 on to devices 1 and 2.
// CHECK-DAG: %[[F1:.+]] = gplace.identity %[[M0]] {device = "/device:GPU:1", name = "grads/gather_0_1"}
// CHECK-DAG: gplace.identity %[[F1]] {device = "/device:GPU:2", name = "grads/gather_0_2"}
// CHECK-DAG: %[[J0:.+]] = gplace.concat %[[M0]], %{{.+}}, %{{.+}} axis = 0 {device = "/device:GPU:0", name = "grads/concat_0"}
// CHECK-DAG: %[[OUT0:.+]] = gplace.reshape %[[J0]] {device = "/device:GPU:0", name = "grads/reshape_0"} : tensor<5xf32> -> tensor<5x1xf32>
// CHECK: return %[[OUT0]]
func.func @ring(%a: tensor<5x1xf32>, %b: tensor<5x1xf32>, %c: tensor<5x1xf32>) -> (tensor<5x1xf32>, tensor<5x1xf32>, tensor<5x1xf32>) {
  %r:3 = gplace.all_reduce %a, %b, %c reduction = "mean" devices = ["/device:GPU:0", "/device:GPU:1", "/device:GPU:2"] {name = "grads"} : tensor<5x1xf32>, tensor<5x1xf32>, tensor<5x1xf32>
  return %r#0, %r#1, %r#2 : tensor<5x1xf32>, tensor<5x1xf32>, tensor<5x1xf32>
}

// -----

// Fewer elements than devices: summed on the first, sent to the others.
// CHECK-LABEL: func.func @small
// CHECK: %[[SUM:.+]] = gplace.add_n %arg0, %arg1, %arg2 {device = "/device:GPU:0", name = "AllReduce/AddN"}
// CHECK: %[[B1:.+]] = gplace.identity %[[SUM]] {device = "/device:GPU:1", name = "AllReduce/broadcast_1"}
// CHECK: %[[B2:.+]] = gplace.identity %[[SUM]] {device = "/device:GPU:2", name = "AllReduce/broadcast_2"}
// CHECK: return %[[SUM]], %[[B1]], %[[B2]]
func.func @small(%a: tensor<2xf32>, %b: tensor<2xf32>, %c: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %r:3 = gplace.all_reduce %a, %b, %c reduction = "sum" devices = ["/device:GPU:0", "/device:GPU:1", "/device:GPU:2"] : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  return %r#0, %r#1, %r#2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}


// -----

// An f16 mean: each input is scaled by 1/N on its own device before the
// sum (their sum could overflow where their mean does not); no scale after.
// CHECK-LABEL: func.func @halfMean
// CHECK: %[[A:.+]] = gplace.mul %arg0, %{{.+}} {device = "/device:GPU:0", name = "grads/prescale_0/mul"}
// CHECK: %[[B:.+]] = gplace.mul %arg1, %{{.+}} {device = "/device:GPU:1", name = "grads/prescale_1/mul"}
// CHECK: gplace.slice %[[B]]
// CHECK-NOT: mean_
// CHECK: return
func.func @halfMean(%a: tensor<4xf16>, %b: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>) {
  %r:2 = gplace.all_reduce %a, %b reduction = "mean" devices = ["/device:GPU:0", "/device:GPU:1"] {name = "grads"} : tensor<4xf16>, tensor<4xf16>
  return %r#0, %r#1 : tensor<4xf16>, tensor<4xf16>
}
