// --mixed-precision=bf16 (--gplace-auto-mixed-precision) trains a 3-8-1
// ReLU MLP with SGD: the matmuls, bias_adds and relus run in bf16 (their
// gradients too), the loss and the updates in f32 on f32 variables. After
// 40 steps the loss has fallen as far as f32's, to within bf16's rounding,
// on the CPU and on emulated GPUs (where each cast is a CPU op between
// copies); f16 too, and with replicas and micro-batches (the pass runs
// before they clone the forward graph).
// DEFINE: %{inputs} = --input=8x3xf32=0.1,0.2,0.3,-0.4,0.5,-0.6,0.7,0.8,-0.9,1.0,-1.1,1.2,0.3,-0.2,0.1,0.9,0.8,-0.7,-0.6,0.5,0.4,0.3,0.2,-0.1 --input=8x1xf32=0.5,-0.5,0.25,0.75,-0.25,0.1,-0.9,0.6
// RUN: gplace-run %s --entry=train --iterations=1 %{inputs} > %t.f32.1
// RUN: gplace-run %s --entry=train --iterations=40 %{inputs} > %t.f32.40
// RUN: gplace-run %s --entry=train --iterations=1 %{inputs} --mixed-precision=bf16 > %t.bf16.1
// RUN: gplace-run %s --entry=train --iterations=40 %{inputs} --mixed-precision=bf16 > %t.bf16.40
// RUN: gplace-run %s --entry=train --iterations=40 %{inputs} --mixed-precision=bf16 --emulate-gpus=2 > %t.gpu.40
// RUN: gplace-run %s --entry=train --iterations=40 %{inputs} --mixed-precision=f16 > %t.f16.40
// RUN: gplace-run %s --entry=train --iterations=40 %{inputs} --mixed-precision=bf16 --replicas=2 --emulate-gpus=2 > %t.replicas.40
// RUN: gplace-run %s --entry=train --iterations=40 %{inputs} --mixed-precision=bf16 --accumulate-steps=2 > %t.accumulate.40
// RUN: %python %S/Inputs/compare_losses.py %t.f32.1 %t.f32.40 %t.bf16.1 %t.bf16.40 %t.gpu.40 %t.f16.40 %t.replicas.40 %t.accumulate.40
//
// The results keep their types: the prediction, computed in bf16, is cast
// back to f32 (its values are bf16's). The plan's matmuls are bf16, the
// forward ones and the backward ones.
// RUN: gplace-run %s --entry=train --iterations=40 %{inputs} --mixed-precision=bf16 | FileCheck %s --check-prefix=F32
// F32: result[0]: f32=0.0732
// F32: result[1]: 8x1xf32={{\[\[}}0.15136719], [-0.49804688],
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1 mixed-precision=bf16" | FileCheck %s --check-prefix=PLAN
// PLAN-COUNT-5: gplan.launch matmul({{.*}}bf16>
//
// Errors.
// RUN: not gplace-run %s --entry=train %{inputs} --mixed-precision=f8 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: --mixed-precision must be bf16 or f16, not 'f8'
// RUN: not gplace-opt %s --gplace-pipeline="mixed-precision=fp16" 2>&1 | FileCheck %s --check-prefix=BADPIPE
// BADPIPE: mixed-precision must be bf16 or f16, not 'fp16'
// RUN: not gplace-run %s --entry=train %{inputs} --loss-scale=none 2>&1 | FileCheck %s --check-prefix=BADSCALE
// BADSCALE: --loss-scale applies to mixed precision: give --mixed-precision=f16 too
// RUN: not gplace-run %s --entry=train %{inputs} --mixed-precision=f16 --loss-scale=static 2>&1 | FileCheck %s --check-prefix=BADSCALE2
// BADSCALE2: --loss-scale must be dynamic or none, not 'static'
// RUN: not gplace-opt %s --gplace-pipeline="loss-scale=none" 2>&1 | FileCheck %s --check-prefix=BADSCALE3
// BADSCALE3: loss-scale applies to mixed precision: give mixed-precision too
//
// --loss-scale: f16 scales its loss by default (the scale and the step
// count are variables of the plan); --loss-scale=none trains f16 without
// them, --loss-scale=dynamic gives bf16 the same scaling.
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1 mixed-precision=f16" | FileCheck %s --check-prefix=SCALED
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1 mixed-precision=bf16 loss-scale=dynamic" | FileCheck %s --check-prefix=SCALED
// SCALED: gplan.variable {{.*}}"loss_scale/current_loss_scale"
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1 mixed-precision=f16 loss-scale=none" | FileCheck %s --check-prefix=UNSCALED
// UNSCALED-NOT: loss_scale
// RUN: gplace-run %s --entry=train --iterations=40 %{inputs} --mixed-precision=f16 --loss-scale=none > %t.f16none.40
// RUN: %python %S/Inputs/compare_losses.py %t.f32.1 %t.f32.40 %t.bf16.1 %t.f16none.40

func.func @train(%x: tensor<8x3xf32>, %y: tensor<8x1xf32>) -> (tensor<f32>, tensor<8x1xf32>) {
  %w1 = gplace.variable dense<[[0.5, -0.25, 0.125, 0.3, -0.4, 0.2, 0.1, -0.6], [-0.3, 0.45, 0.2, -0.1, 0.35, -0.5, 0.25, 0.15], [0.2, 0.1, -0.35, 0.4, 0.05, 0.3, -0.2, 0.5]]> : tensor<3x8xf32> {name = "w1"}
  %b1 = gplace.variable dense<0.1> : tensor<8xf32> {name = "b1"}
  %w2 = gplace.variable dense<[[0.3], [-0.2], [0.4], [0.1], [-0.3], [0.25], [-0.15], [0.2]]> : tensor<8x1xf32> {name = "w2"}
  %w1r = gplace.read %w1 : !gplace.resource<tensor<3x8xf32>>
  %b1r = gplace.read %b1 : !gplace.resource<tensor<8xf32>>
  %w2r = gplace.read %w2 : !gplace.resource<tensor<8x1xf32>>
  %a = gplace.matmul %x, %w1r : (tensor<8x3xf32>, tensor<3x8xf32>) -> tensor<8x8xf32>
  %z = gplace.bias_add %a, %b1r : tensor<8x8xf32>, tensor<8xf32>
  %h = gplace.relu %z : tensor<8x8xf32>
  %p = gplace.matmul %h, %w2r : (tensor<8x8xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
  %d = gplace.sub %p, %y : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
  %sq = gplace.square %d : tensor<8x1xf32>
  %loss = gplace.reduce_mean %sq axes = [0, 1] : tensor<8x1xf32> -> tensor<f32>
  %g1, %gb, %g2 = gplace.gradients %loss wrt %w1r, %b1r, %w2r : tensor<f32> wrt tensor<3x8xf32>, tensor<8xf32>, tensor<8x1xf32>
  %lr = gplace.constant dense<0.2> : tensor<f32>
  %u1 = gplace.apply_gradient_descent %w1, %lr, %g1 : !gplace.resource<tensor<3x8xf32>>, tensor<f32>, tensor<3x8xf32>
  %u2 = gplace.apply_gradient_descent %b1, %lr, %gb : !gplace.resource<tensor<8xf32>>, tensor<f32>, tensor<8xf32>
  %u3 = gplace.apply_gradient_descent %w2, %lr, %g2 : !gplace.resource<tensor<8x1xf32>>, tensor<f32>, tensor<8x1xf32>
  %out = gplace.identity %p after(%u1, %u2, %u3) : tensor<8x1xf32>
  return %loss, %out : tensor<f32>, tensor<8x1xf32>
}
