// --gplace-assign-by-name: REGEX=DEVICE rules give ops device requests by
// their names, the first matching rule winning; an op's own request (an
// inner scope) and ops no rule matches are left alone; default names
// (TensorFlow's, "Neg") match as the log prints them; a regex matches the
// whole name; commas inside braces belong to the regex.
// RUN: gplace-opt %s --gplace-assign-by-name="rules=encoder/.*=/gpu:0,decoder/.*=/gpu:1,Neg=/cpu:0" | FileCheck %s
// RUN: gplace-opt %s --gplace-assign-by-name="rules=.*Relu=/gpu:1,.*=/gpu:0" | FileCheck %s --check-prefix=FIRST
// RUN: gplace-opt %s --gplace-assign-by-name="rules=coder=/gpu:0,x{1,2}=/gpu:1" | FileCheck %s --check-prefix=WHOLE
// No rules: nothing changes.
// RUN: gplace-opt %s --gplace-assign-by-name | FileCheck %s --check-prefix=NONE
// Through the pipeline and gplace-run: the ops run where the rules say.
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1,gpu:2 assign-by-name=encoder/.*=/gpu:0,decoder/.*=/gpu:1" | FileCheck %s --check-prefix=PIPELINE
// RUN: gplace-run %s --entry=model --input=4xf32=1,-2,3,-4 --emulate-gpus=2 --assign-by-name='encoder/.*=/gpu:0,decoder/.*=/gpu:1' --log-device-placement 2>&1 | FileCheck %s --check-prefix=LOG

func.func @model(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: gplace.relu %{{.*}} {device = "/gpu:0", name = "encoder/Relu"}
  // FIRST: gplace.relu %{{.*}} {device = "/gpu:1", name = "encoder/Relu"}
  // WHOLE: gplace.relu %{{.*}} {name = "encoder/Relu"}
  // NONE: gplace.relu %{{.*}} {name = "encoder/Relu"}
  %e = gplace.relu %x {name = "encoder/Relu"} : tensor<4xf32>
  // CHECK: gplace.tanh %{{.*}} {device = "/cpu:0", name = "encoder/Tanh"}
  // FIRST: gplace.tanh %{{.*}} {device = "/cpu:0", name = "encoder/Tanh"}
  %f = gplace.tanh %e {name = "encoder/Tanh", device = "/cpu:0"} : tensor<4xf32>
  // CHECK: gplace.relu %{{.*}} {device = "/gpu:1", name = "decoder/Relu"}
  // FIRST: gplace.relu %{{.*}} {device = "/gpu:1", name = "decoder/Relu"}
  // WHOLE: gplace.relu %{{.*}} {name = "decoder/Relu"}
  %d = gplace.relu %f {name = "decoder/Relu"} : tensor<4xf32>
  // CHECK: gplace.neg %{{.*}} {device = "/cpu:0"}
  // FIRST: gplace.neg %{{.*}} {device = "/gpu:0"}
  // WHOLE: gplace.neg %{{.*}} : tensor<4xf32>
  %n = gplace.neg %d : tensor<4xf32>
  // CHECK: gplace.neg %{{.*}} {name = "unmatched"}
  // WHOLE: gplace.neg %{{.*}} {device = "/gpu:1", name = "xx"}
  %m = gplace.neg %n {name = "unmatched"} : tensor<4xf32>
  %o = gplace.neg %m {name = "xx"} : tensor<4xf32>
  return %o : tensor<4xf32>
}

// PIPELINE: gplan.launch relu{{.*}} on @gpu0
// PIPELINE: gplan.launch tanh{{.*}} on @cpu0
// PIPELINE: gplan.launch relu{{.*}} on @gpu1
// LOG: encoder/Relu: (Relu): /job:localhost/replica:0/task:0/device:GPU:0
// LOG: encoder/Tanh: (Tanh): /job:localhost/replica:0/task:0/device:CPU:0
// LOG: decoder/Relu: (Relu): /job:localhost/replica:0/task:0/device:GPU:1
// LOG: result[0]: 4xf32=[-0.7615942, -0, -0.9950548, -0]
