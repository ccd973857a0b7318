// Tests that --gplace-assign-devices works on a module with no graph op
// (here a plan), whose graph dialect the parser never loaded: the pass
// loads it to make the #gplace.device attributes (it crashed; found by
// fuzz/PipelineFuzzer.cpp).
// RUN: gplace-opt %s --gplace-assign-devices="devices=cpu:1" | FileCheck %s
// CHECK: module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">]}
gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @main {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  gplan.return %0 : !gplan.buffer<4xf32>
}
