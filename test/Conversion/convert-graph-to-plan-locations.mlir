// Tests the names and locations --gplace-convert-graph-to-plan gives steps:
// each launch its op's name (`name "..."`, which profiles and the runtime's
// messages print) and its op's location; a copy --gplace-insert-copies made,
// the name of the step that wrote the tensor it moves (`act`, not `Copy_2`);
// a copy of an input or of a variable's value its own name.
// RUN: gplace-opt %s --gplace-assign-devices="devices=cpu:1,gpu:1" --gplace-place --gplace-insert-copies --gplace-insert-control-deps --gplace-convert-graph-to-plan --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s

// CHECK-LABEL: gplan.program @main
// CHECK: %[[X:.+]] = gplan.copy %{{.+}} to @gpu0 name "Copy" : !gplan.buffer<2x2xf32> loc("{{.*}}":[[@LINE+9]]:17)
// CHECK: %[[R:.+]] = gplan.copy %{{.+}} to @gpu0 name "Copy_1" : !gplan.buffer<2x2xf32> loc("{{.*}}":[[@LINE+10]]:8)
// CHECK: gplan.launch matmul(%[[X]], %[[R]]) on @gpu0 name "MatMul" : {{.*}} loc("{{.*}}":[[@LINE+10]]:8)
// CHECK: %[[T:.+]] = gplan.launch tanh({{.*}} name "act" : {{.*}} loc("{{.*}}":[[@LINE+10]]:8)
// CHECK: %[[TC:.+]] = gplan.copy %[[T]] to @cpu0 name "act" : !gplan.buffer<2x2xf32> loc("{{.*}}":[[@LINE+9]]:8)
// CHECK: gplan.launch add(%[[TC]], {{.*}} name "add" : {{.*}} loc("{{.*}}":[[@LINE+9]]:8)
// The matmul's result goes to the CPU through the tanh: no other copy.
// CHECK-NOT: gplan.copy
// CHECK: gplan.return
func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = gplace.variable dense<1.0> : tensor<2x2xf32> {device = "/cpu:0", name = "w"}
  %r = gplace.read %w : !gplace.resource<tensor<2x2xf32>>
  %m = gplace.matmul %x, %r {device = "/gpu:0"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %t = gplace.tanh %m {device = "/gpu:0", name = "act"} : tensor<2x2xf32>
  %y = gplace.add %t, %x {device = "/cpu:0"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
