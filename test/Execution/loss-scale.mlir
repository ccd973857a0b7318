// Dynamic loss scaling (--mixed-precision=f16, Keras's
// LossScaleOptimizer): the loss's gradient starts at 2^15, and an f16
// gradient that overflows skips the step and halves the scale. Here the
// f16 gradient of the weights is 2 * 4 * scale: 262144, 131072 and 65536
// overflow f16 (whose largest value is 65504), so the first three steps
// leave w as it was and the scale falls to 4096; the fourth updates w by
// 0.01 * 8 (the unscaled gradient) and counts one good step. The scale and
// the count are variables, in the checkpoint.
// RUN: rm -rf %t && mkdir -p %t
// RUN: gplace-run %s --entry=train --iterations=3 --input=2x2xf32=4,4,4,4 --mixed-precision=f16 | FileCheck %s --check-prefix=SKIPPED
// SKIPPED: result[0]: 2x2xf32={{\[\[}}1, 1], [1, 1]]
// RUN: gplace-run %s --entry=train --iterations=4 --input=2x2xf32=4,4,4,4 --mixed-precision=f16 --save=%t/f16.npz | FileCheck %s --check-prefix=UPDATED
// RUN: gplace-run %s --entry=train --iterations=4 --input=2x2xf32=4,4,4,4 --mixed-precision=f16 --emulate-gpus=1 | FileCheck %s --check-prefix=UPDATED
// The scaling's ops (the count of good steps an f32) all have GPU kernels:
// the step stays one CUDA graph, its skip inside the graph.
// RUN: gplace-run %s --entry=train --iterations=2 --input=2x2xf32=4,4,4,4 --mixed-precision=f16 --emulate-gpus=1 --log-device-placement 2>&1 >/dev/null | FileCheck %s --check-prefix=GRAPH
// GRAPH-NOT: device:CPU:0
// GRAPH: CUDA graphs: on: /job:localhost/replica:0/task:0/device:GPU:0 replays its {{[0-9]+}} steps as one graph per run
// UPDATED: result[0]: 2x2xf32={{\[\[}}0.92{{[0-9]*}}, 0.92{{[0-9]*}}], [0.92{{[0-9]*}}, 0.92{{[0-9]*}}]]
// RUN: %python %S/Inputs/print_npz_scalars.py %t/f16.npz | FileCheck %s --check-prefix=STATE
// STATE: loss_scale/current_loss_scale = 4096.0
// STATE: loss_scale/good_steps = 1.0
// 2000 finite steps in a row double the scale and start the count again.
// RUN: gplace-run %s --entry=train --iterations=1999 --input=2x2xf32=0.001,0.001,0.001,0.001 --mixed-precision=f16 --save=%t/1999.npz
// RUN: %python %S/Inputs/print_npz_scalars.py %t/1999.npz | FileCheck %s --check-prefix=COUNT
// COUNT: loss_scale/current_loss_scale = 32768.0
// COUNT: loss_scale/good_steps = 1999.0
// RUN: gplace-run %s --entry=train --iterations=2000 --input=2x2xf32=0.001,0.001,0.001,0.001 --mixed-precision=f16 --save=%t/2000.npz
// RUN: %python %S/Inputs/print_npz_scalars.py %t/2000.npz | FileCheck %s --check-prefix=GROW
// GROW: loss_scale/current_loss_scale = 65536.0
// GROW: loss_scale/good_steps = 0.0
// Without scaling (bf16's default, or loss-scale=none) nothing is skipped.
// RUN: gplace-run %s --entry=train --iterations=1 --input=2x2xf32=4,4,4,4 --mixed-precision=bf16 | FileCheck %s --check-prefix=BF16
// BF16: result[0]: 2x2xf32={{\[\[}}0.92{{[0-9]*}}, 0.92{{[0-9]*}}], [0.92{{[0-9]*}}, 0.92{{[0-9]*}}]]
// RUN: gplace-opt %s --gplace-auto-mixed-precision="type=f16 loss-scale=none" | FileCheck %s --check-prefix=NONE
// NONE-NOT: loss_scale
// RUN: not gplace-opt %s --gplace-auto-mixed-precision="type=f16 loss-scale=static" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: gplace-auto-mixed-precision: loss-scale must be 'dynamic' or 'none', not 'static'

func.func @train(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = gplace.variable dense<1.0> : tensor<2x2xf32> {name = "w"}
  %r = gplace.read %w : !gplace.resource<tensor<2x2xf32>>
  %p = gplace.matmul %x, %r : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %loss = gplace.reduce_sum %p axes = [0, 1] : tensor<2x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %r : tensor<f32> wrt tensor<2x2xf32>
  %lr = gplace.constant dense<0.01> : tensor<f32>
  %u = gplace.apply_gradient_descent %w, %lr, %g : !gplace.resource<tensor<2x2xf32>>, tensor<f32>, tensor<2x2xf32>
  %after = gplace.read %w after(%u) : !gplace.resource<tensor<2x2xf32>>
  return %after : tensor<2x2xf32>
}
