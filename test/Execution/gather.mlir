// gplace.gather (TensorFlow's GatherV2, ONNX's Gather): rows along axis 0,
// columns along a negative axis, 2-d and scalar indices, i32 and i64
// indices, an integer table; its gradient (an embedding's: repeated ids
// add up, unsorted_segment_sum) along axis 0 and 1; on the CPU and on an
// emulated GPU. An index or segment id out of range is TensorFlow's error
// on the CPU, naming it; on a GPU (an emulated one too) the gather gives a
// row of zeros and the segment sum drops it, as TensorFlow's GPU kernels. The gathers of constants fold (--gplace-fold-constants) by
// default; --fold-constants=false runs the kernels, with the same results.
// RUN: gplace-run %s | FileCheck %s
// RUN: gplace-run %s --fold-constants=false | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --emulate-gpus=1 | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --emulate-gpus=1 --log-device-placement 2>&1 >/dev/null | FileCheck %s --check-prefix=PLACED
// PLACED: rows: (GatherV2): /job:localhost/replica:0/task:0/device:GPU:0
// RUN: not gplace-run %s --entry=outOfRange 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: error: {{.*}}gplace.gather: indices[1] = 5 is not in [0, 5)
// RUN: gplace-run %s --entry=outOfRange --emulate-gpus=1 | FileCheck %s --check-prefix=GPU-RANGE
// RUN: gplace-run %s --entry=outOfRange --emulate-gpus=1 --fold-constants=false | FileCheck %s --check-prefix=GPU-RANGE
// GPU-RANGE: result[0]: 2x3xf32={{\[\[}}1, 1, 1], [0, 0, 0]]
// RUN: gplace-run %s --entry=segmentOutOfRange --emulate-gpus=1 --fold-constants=false | FileCheck %s --check-prefix=GPU-SEGMENT
// GPU-SEGMENT: result[0]: 4xf32=[1, 0, 0, 0]
// RUN: gplace-run %s --entry=gradients | FileCheck %s --check-prefix=GRAD
// RUN: gplace-run %s --entry=gradients --emulate-gpus=1 | FileCheck %s --check-prefix=GRAD
// GRAD: result[0]: 4x2xf32={{\[\[}}1, 1], [0, 0], [5, 5], [3, 3]]
// GRAD-NEXT: result[1]: 2x3xf32={{\[\[}}2, 0, 1], [2, 0, 1]]
// RUN: not gplace-run %s --entry=segmentOutOfRange 2>&1 | FileCheck %s --check-prefix=SEGMENT
// SEGMENT: error: {{.*}}gplace.unsorted_segment_sum: segment_ids[1] = 4 is out of range [0, 4)
// A negative segment id is dropped, as in TensorFlow.
// RUN: gplace-run %s --entry=segmentNegative | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: result[0]: 3xf32=[0, 0, 3]

// CHECK: result[0]: 2x3xf32={{\[\[}}12, 13, 14], [0, 1, 2]]
// CHECK-NEXT: result[1]: 5x2x2xf32={{\[\[\[}}2, 0], [1, 1]], {{\[\[}}5, 3], [4, 4]], {{\[\[}}8, 6], [7, 7]], {{\[\[}}11, 9], [10, 10]], {{\[\[}}14, 12], [13, 13]]]
// CHECK-NEXT: result[2]: 3xf32=[9, 10, 11]
// CHECK-NEXT: result[3]: 2xi32=[30, 10]
func.func @main() -> (tensor<2x3xf32>, tensor<5x2x2xf32>, tensor<3xf32>, tensor<2xi32>) {
  %table = gplace.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0], [9.0, 10.0, 11.0], [12.0, 13.0, 14.0]]> : tensor<5x3xf32>
  %ids = gplace.constant dense<[4, 0]> : tensor<2xi64>
  %rows = gplace.gather %table[%ids] axis = 0 {name = "rows"} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %cols = gplace.constant dense<[[2, 0], [1, 1]]> : tensor<2x2xi32>
  %picked = gplace.gather %table[%cols] axis = -1 : (tensor<5x3xf32>, tensor<2x2xi32>) -> tensor<5x2x2xf32>
  %three = gplace.constant dense<3> : tensor<i32>
  %row3 = gplace.gather %table[%three] axis = 0 : (tensor<5x3xf32>, tensor<i32>) -> tensor<3xf32>
  %ints = gplace.constant dense<[10, 20, 30]> : tensor<3xi32>
  %which = gplace.constant dense<[2, 0]> : tensor<2xi64>
  %picks = gplace.gather %ints[%which] axis = 0 : (tensor<3xi32>, tensor<2xi64>) -> tensor<2xi32>
  return %rows, %picked, %row3, %picks : tensor<2x3xf32>, tensor<5x2x2xf32>, tensor<3xf32>, tensor<2xi32>
}

func.func @outOfRange() -> tensor<2x3xf32> {
  %table = gplace.constant dense<1.0> : tensor<5x3xf32>
  %ids = gplace.constant dense<[0, 5]> : tensor<2xi64>
  %rows = gplace.gather %table[%ids] axis = 0 : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %rows : tensor<2x3xf32>
}

// d/dtable of sum(weights * gather(table, ids)): each row gets the weights
// of the positions that gathered it (ids 2 twice: 2 + 3).
func.func @gradients() -> (tensor<4x2xf32>, tensor<2x3xf32>) {
  %table = gplace.constant dense<0.5> : tensor<4x2xf32>
  %ids = gplace.constant dense<[2, 0, 3, 2]> : tensor<4xi64>
  %rows = gplace.gather %table[%ids] axis = 0 : (tensor<4x2xf32>, tensor<4xi64>) -> tensor<4x2xf32>
  %w = gplace.constant dense<[[2.0, 2.0], [1.0, 1.0], [3.0, 3.0], [3.0, 3.0]]> : tensor<4x2xf32>
  %p = gplace.mul %rows, %w : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %loss = gplace.reduce_sum %p axes = [0, 1] : tensor<4x2xf32> -> tensor<f32>
  %cols = gplace.constant dense<0.25> : tensor<2x3xf32>
  %c = gplace.constant dense<[0, 2, 0]> : tensor<3xi32>
  %picked = gplace.gather %cols[%c] axis = 1 : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  %loss2 = gplace.reduce_sum %picked axes = [0, 1] : tensor<2x3xf32> -> tensor<f32>
  %total = gplace.add %loss, %loss2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %gt, %gc = gplace.gradients %total wrt %table, %cols : tensor<f32> wrt tensor<4x2xf32>, tensor<2x3xf32>
  return %gt, %gc : tensor<4x2xf32>, tensor<2x3xf32>
}

func.func @segmentOutOfRange() -> tensor<4xf32> {
  %d = gplace.constant dense<1.0> : tensor<2xf32>
  %ids = gplace.constant dense<[0, 4]> : tensor<2xi64>
  %s = gplace.unsorted_segment_sum %d, %ids : (tensor<2xf32>, tensor<2xi64>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

func.func @segmentNegative() -> tensor<3xf32> {
  %d = gplace.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %ids = gplace.constant dense<[-1, 2]> : tensor<2xi64>
  %s = gplace.unsorted_segment_sum %d, %ids : (tensor<2xf32>, tensor<2xi64>) -> tensor<3xf32>
  return %s : tensor<3xf32>
}
