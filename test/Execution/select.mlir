// gplace.greater_equal, greater, equal, select and the logical ops
// (TensorFlow's GreaterEqual, Greater, Equal, SelectV2, LogicalAnd,
// LogicalOr, LogicalNot):
// numpy broadcasting of every operand, NaN compares false, only the chosen
// value reaches the result (a NaN or infinity not chosen stays out),
// integer and bool values. Folded (GraphFolds.cpp), and run on the CPU,
// on an emulated GPU, and with the ops alternating between two: the same
// values.
// RUN: gplace-run %s | FileCheck %s
// RUN: gplace-run %s --fold-constants=false | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --emulate-gpus=1 | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --emulate-gpus=2 --load-policy=%plugins/libGPlaceTestPolicies.so --policy=test-alternate-gpus --allow-soft-placement | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --emulate-gpus=1 --log-device-placement 2>&1 >/dev/null | FileCheck %s --check-prefix=PLACED
// PLACED-DAG: ge: (GreaterEqual): /job:localhost/replica:0/task:0/device:GPU:0
// PLACED-DAG: chosen: (SelectV2): /job:localhost/replica:0/task:0/device:GPU:0
// PLACED-DAG: gt: (Greater): /job:localhost/replica:0/task:0/device:GPU:0
// PLACED-DAG: eq: (Equal): /job:localhost/replica:0/task:0/device:GPU:0
// PLACED-DAG: and: (LogicalAnd): /job:localhost/replica:0/task:0/device:CPU:0
// PLACED-DAG: ints: (SelectV2): /job:localhost/replica:0/task:0/device:CPU:0

// CHECK: result[0]: 2x4xi1={{\[\[}}false, true, true, false], [false, true, true, true]]
// CHECK-NEXT: result[1]: 2x4xf32={{\[\[}}1, 20, inf, 40], [1, 2, -inf, 40]]
// CHECK-NEXT: result[2]: 2x3xi64={{\[\[}}7, -1, 7], [8, -1, 8]]
// CHECK-NEXT: result[3]: 3xi1=[false, true, true]
// CHECK-NEXT: result[4]: 2xf16=[0.5, -3]
// CHECK-NEXT: result[5]: 2x4xi1={{\[\[}}false, false, true, false], [false, false, false, false]]
// CHECK-NEXT: result[6]: 2x4xi1={{\[\[}}true, false, true, false], [false, false, false, false]]
// CHECK-NEXT: result[7]: 2x4xi1={{\[\[}}true, true, true, true], [false, false, false, true]]
// CHECK-NEXT: result[8]: 2x4xi1={{\[\[}}false, true, false, false], [false, true, true, true]]
func.func @main() -> (tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x3xi64>, tensor<3xi1>, tensor<2xf16>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>) {
  %x = gplace.constant dense<[[1.0, 2.0, 0x7F800000, 0x7FC00000], [1.0, 2.0, 0xFF800000, 4.0]]> : tensor<2x4xf32>
  %t = gplace.constant dense<[2.0, 2.0, 0xFF800000, 4.0]> : tensor<4xf32>
  %ge = gplace.greater_equal %x, %t {name = "ge"} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xi1>
  %else = gplace.constant dense<[[10.0], [20.0]]> : tensor<2x1xf32>
  %tens = gplace.constant dense<[10.0, 20.0, 30.0, 40.0]> : tensor<4xf32>
  %mask = gplace.constant dense<[[true, false, true, false], [true, true, true, false]]> : tensor<2x4xi1>
  %chosen = gplace.select %mask, %x, %tens {name = "chosen"} : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %rows = gplace.constant dense<[[true], [false]]> : tensor<2x1xi1>
  %cols = gplace.constant dense<[true, false, true]> : tensor<3xi1>
  %seven = gplace.constant dense<[[7], [8]]> : tensor<2x1xi64>
  %minus = gplace.constant dense<-1> : tensor<i64>
  %ints = gplace.select %cols, %seven, %minus {name = "ints"} : (tensor<3xi1>, tensor<2x1xi64>, tensor<i64>) -> tensor<2x3xi64>
  %i = gplace.constant dense<[1, 2, 3]> : tensor<3xi32>
  %two = gplace.constant dense<2> : tensor<i32>
  %ige = gplace.greater_equal %i, %two : (tensor<3xi32>, tensor<i32>) -> tensor<3xi1>
  %h = gplace.constant dense<[0.5, 2.0]> : tensor<2xf16>
  %hn = gplace.constant dense<-3.0> : tensor<f16>
  %hc = gplace.constant dense<[true, false]> : tensor<2xi1>
  %hs = gplace.select %hc, %h, %hn : (tensor<2xi1>, tensor<2xf16>, tensor<f16>) -> tensor<2xf16>
  %gt = gplace.greater %x, %t {name = "gt"} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xi1>
  %and = gplace.logical_and %mask, %rows {name = "and"} : (tensor<2x4xi1>, tensor<2x1xi1>) -> tensor<2x4xi1>
  %not = gplace.logical_not %mask : tensor<2x4xi1>
  %or = gplace.logical_or %and, %not : (tensor<2x4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
  %eq = gplace.equal %x, %t {name = "eq"} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xi1>
  return %ge, %chosen, %ints, %ige, %hs, %gt, %and, %or, %eq : tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x3xi64>, tensor<3xi1>, tensor<2xf16>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>
}
