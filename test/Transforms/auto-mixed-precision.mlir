// Tests --gplace-auto-mixed-precision: allow-listed ops (matmul) run in the
// 16-bit type with casts of their f32 operands, infer-listed ones (add,
// bias_add, relu) follow their operands, deny-listed ones (exp, log,
// losses, reductions, updates) and ops in no list stay f32 with casts
// back; variables and their reads stay f32, and so do the values
// gplace.gradients differentiates with respect to; conv2d is 16-bit in a
// module with GPUs too.
// RUN: gplace-opt %s --split-input-file --gplace-auto-mixed-precision 2>/dev/null | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-auto-mixed-precision 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: gplace-opt %s --split-input-file --gplace-auto-mixed-precision=type=f16 2>/dev/null | FileCheck %s --check-prefix=F16
// RUN: gplace-opt %s --split-input-file --gplace-auto-mixed-precision=type=f16 2>&1 >/dev/null | FileCheck %s --check-prefix=F16-REMARK
// RUN: not gplace-opt %s --split-input-file --gplace-auto-mixed-precision=type=f8 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: gplace-auto-mixed-precision: type must be 'bf16' or 'f16', not 'f8'
// The pass's output is a fixed point, and differentiates.
// RUN: gplace-opt %s --split-input-file --gplace-auto-mixed-precision --gplace-auto-mixed-precision --gplace-differentiate 2>&1 | FileCheck %s --check-prefix=GRAD

// Every allow-listed op has 16-bit kernels on the CPU and on GPUs; on a
// CUDA GPU below the compute capability the type needs (bf16: 8.0; f16:
// 7.0, Grappler's), they stay f32 and say so. (The remarks, on stderr,
// come first: at the top of the file.)
// REMARK: remark: gplace-auto-mixed-precision: 'turing_conv' stays in f32: no bf16 kernel on GPU (/job:localhost/replica:0/task:0/device:GPU:0 has compute capability 7.5, and bf16 needs 8.0)
// REMARK: remark: gplace-auto-mixed-precision: 'pascal_conv' stays in f32: no bf16 kernel on GPU (/job:localhost/replica:0/task:0/device:GPU:1 has compute capability 6.0, and bf16 needs 8.0)
// REMARK-NOT: remark
// F16-REMARK: remark: gplace-auto-mixed-precision: 'pascal_conv' stays in f32: no f16 kernel on GPU (/job:localhost/replica:0/task:0/device:GPU:1 has compute capability 6.0, and f16 needs 7.0)
// F16-REMARK-NOT: remark

// CHECK-LABEL: func.func @train
// The arguments' casts come first, in order; variables stay f32.
// CHECK-NEXT: %[[X:.+]] = gplace.cast %arg0 {name = "arg0-0-CastToBf16-AutoMixedPrecision"} : tensor<4x3xf32> to tensor<4x3xbf16>
// CHECK-NEXT: %[[W:.+]] = gplace.variable {{.*}} : tensor<3x2xf32> {name = "dense/kernel"}
// CHECK-NEXT: %[[B:.+]] = gplace.variable {{.*}} : tensor<2xf32> {name = "dense/bias"}
// CHECK-NEXT: %[[WR:.+]] = gplace.read %[[W]] : !gplace.resource<tensor<3x2xf32>>
// CHECK-NEXT: %[[WC:.+]] = gplace.cast %[[WR]] {name = "ReadVariableOp-0-CastToBf16-AutoMixedPrecision"} : tensor<3x2xf32> to tensor<3x2xbf16>
// CHECK-NEXT: %[[BR:.+]] = gplace.read %[[B]] : !gplace.resource<tensor<2xf32>>
// CHECK-NEXT: %[[BC:.+]] = gplace.cast %[[BR]] {name = "ReadVariableOp_1-0-CastToBf16-AutoMixedPrecision"} : tensor<2xf32> to tensor<2xbf16>
// CHECK-NEXT: %[[MM:.+]] = gplace.matmul %[[X]], %[[WC]] : (tensor<4x3xbf16>, tensor<3x2xbf16>) -> tensor<4x2xbf16>
// CHECK-NEXT: %[[Z:.+]] = gplace.bias_add %[[MM]], %[[BC]] : tensor<4x2xbf16>, tensor<2xbf16>
// CHECK-NEXT: %[[H:.+]] = gplace.relu %[[Z]] : tensor<4x2xbf16>
// CHECK-NEXT: %[[H32:.+]] = gplace.cast %[[H]] {name = "Relu-0-CastToFp32-AutoMixedPrecision"} : tensor<4x2xbf16> to tensor<4x2xf32>
// CHECK-NEXT: %{{.+}}, %{{.+}} = gplace.sparse_softmax_cross_entropy_with_logits %[[H32]], %arg1 : tensor<4x2xf32>, tensor<4xi32>
// CHECK-NEXT: gplace.reduce_mean {{.*}} : tensor<4xf32> -> tensor<f32>
// CHECK-NEXT: gplace.gradients {{.*}} wrt %[[WR]], %[[BR]] : tensor<f32> wrt tensor<3x2xf32>, tensor<2xf32>
// CHECK-NEXT: gplace.constant {{.*}} : tensor<f32>
// CHECK-NEXT: gplace.apply_gradient_descent %[[W]], {{.*}} : !gplace.resource<tensor<3x2xf32>>, tensor<f32>, tensor<3x2xf32>
// CHECK-NEXT: gplace.apply_gradient_descent %[[B]], {{.*}} : !gplace.resource<tensor<2xf32>>, tensor<f32>, tensor<2xf32>
// CHECK-NEXT: gplace.identity {{.*}} : tensor<f32>
// CHECK-NEXT: return {{.*}} : tensor<f32>
// f16 gets dynamic loss scaling: the scale and its count are variables,
// the updates are skipped (restored) when a gradient is not finite.
// F16-LABEL: func.func @train
// F16-NEXT: %[[SCALE:.+]] = gplace.variable dense<3.276800e+04> : tensor<f32> {name = "loss_scale/current_loss_scale"}
// F16-NEXT: gplace.variable dense<0.000000e+00> : tensor<f32> {name = "loss_scale/good_steps"}
// F16: gplace.cast %arg0 {name = "arg0-0-CastToFp16-AutoMixedPrecision"} : tensor<4x3xf32> to tensor<4x3xf16>
// F16: gplace.matmul {{.*}} : (tensor<4x3xf16>, tensor<3x2xf16>) -> tensor<4x2xf16>
// F16: gplace.cast {{.*}} {name = "Relu-0-CastToFp32-AutoMixedPrecision"} : tensor<4x2xf16> to tensor<4x2xf32>
// F16: %[[S:.+]] = gplace.read %[[SCALE]] {name = "loss_scale/read"}
// F16-NEXT: %[[G:.+]]:2 = gplace.gradients {{.*}} grad_ys %[[S]] : tensor<f32> wrt tensor<3x2xf32>, tensor<2xf32> grad_ys tensor<f32>
// F16: %[[U:.+]] = gplace.div %[[G]]#0, %[[S]] {name = "loss_scale/unscale/0"}
// F16: %[[FINITE:.+]] = gplace.equal {{.*}} {name = "loss_scale/is_finite"}
// F16: %[[OLD:.+]] = gplace.read {{.*}} {name = "loss_scale/skip_0/old"}
// F16-NEXT: %[[UPDATE:.+]] = gplace.apply_gradient_descent {{.*}}, %[[U]] :
// F16-NEXT: %[[NEW:.+]] = gplace.read {{.*}} after(%[[UPDATE]]) {name = "loss_scale/skip_0/new"}
// F16-NEXT: %[[SEL:.+]] = gplace.select %[[FINITE]], %[[NEW]], %[[OLD]] {name = "loss_scale/skip_0/select"}
// F16-NEXT: gplace.assign {{.*}}, %[[SEL]] {name = "loss_scale/skip_0/assign"}
// F16: %[[DONE:.+]] = gplace.group {{.*}} {name = "loss_scale/done"}
// F16-NEXT: gplace.identity {{.*}} after(%[[DONE]], %[[DONE]])
// F16: gplace.assign %[[SCALE]], {{.*}} {name = "loss_scale/assign"}
// The backward graph follows the casts: bf16 matmuls, each weight's
// gradient cast to f32 before its f32 update.
// GRAD-LABEL: func.func @train
// GRAD-NOT: gplace.gradients
// GRAD-DAG: gplace.matmul {{.*}} transpose_a {{.*}}name = "gradients/MatMul_grad/MatMul_1"} : (tensor<4x3xbf16>, tensor<4x2xbf16>) -> tensor<3x2xbf16>
// GRAD-DAG: gplace.cast {{.*}}name = "gradients/ReadVariableOp-0-CastToBf16-AutoMixedPrecision_grad/Cast"} : tensor<3x2xbf16> to tensor<3x2xf32>
// GRAD: gplace.apply_gradient_descent {{.*}} : !gplace.resource<tensor<3x2xf32>>, tensor<f32>, tensor<3x2xf32>
func.func @train(%x: tensor<4x3xf32>, %labels: tensor<4xi32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<3x2xf32> {name = "dense/kernel"}
  %b = gplace.variable dense<0.0> : tensor<2xf32> {name = "dense/bias"}
  %wr = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  %br = gplace.read %b : !gplace.resource<tensor<2xf32>>
  %mm = gplace.matmul %x, %wr : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %z = gplace.bias_add %mm, %br : tensor<4x2xf32>, tensor<2xf32>
  %h = gplace.relu %z : tensor<4x2xf32>
  %xent, %bp = gplace.sparse_softmax_cross_entropy_with_logits %h, %labels : tensor<4x2xf32>, tensor<4xi32>
  %loss = gplace.reduce_mean %xent axes = [0] : tensor<4xf32> -> tensor<f32>
  %gw, %gb = gplace.gradients %loss wrt %wr, %br : tensor<f32> wrt tensor<3x2xf32>, tensor<2xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u1 = gplace.apply_gradient_descent %w, %lr, %gw : !gplace.resource<tensor<3x2xf32>>, tensor<f32>, tensor<3x2xf32>
  %u2 = gplace.apply_gradient_descent %b, %lr, %gb : !gplace.resource<tensor<2xf32>>, tensor<f32>, tensor<2xf32>
  %r = gplace.identity %loss after(%u1, %u2) : tensor<f32>
  return %r : tensor<f32>
}

// -----

// An infer-listed op of f32 operands alone stays f32 (the first add); one
// with a bf16 operand runs in bf16, its f32 operand cast; deny-listed ops
// get one cast back, shared.
// CHECK-LABEL: func.func @deny
// CHECK: %[[C:.+]] = gplace.add %arg2, %arg2 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT: %[[C16:.+]] = gplace.cast %[[C]] {name = "add-0-CastToBf16-AutoMixedPrecision"}
// CHECK-NEXT: %[[M:.+]] = gplace.matmul {{.*}} -> tensor<2x2xbf16>
// CHECK-NEXT: %[[S:.+]] = gplace.add %[[M]], %[[C16]] : (tensor<2x2xbf16>, tensor<2x2xbf16>) -> tensor<2x2xbf16>
// CHECK-NEXT: %[[S32:.+]] = gplace.cast %[[S]] {name = "add_1-0-CastToFp32-AutoMixedPrecision"} : tensor<2x2xbf16> to tensor<2x2xf32>
// CHECK-NEXT: gplace.exp %[[S32]] : tensor<2x2xf32>
// CHECK-NEXT: gplace.log %[[S32]] : tensor<2x2xf32>
func.func @deny(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>, %c: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = gplace.add %c, %c : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = gplace.matmul %x, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %2 = gplace.add %1, %0 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %3 = gplace.exp %2 : tensor<2x2xf32>
  %4 = gplace.log %2 : tensor<2x2xf32>
  return %3, %4 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// What gplace.gradients differentiates with respect to keeps its type
// (the relu stays f32: the gradient reaches it through its uses).
// CHECK-LABEL: func.func @wrt_activation
// CHECK: gplace.matmul {{.*}} -> tensor<2x2xbf16>
// CHECK-NEXT: %[[M32:.+]] = gplace.cast {{.*}} {name = "MatMul-0-CastToFp32-AutoMixedPrecision"}
// CHECK-NEXT: %[[R:.+]] = gplace.relu %[[M32]] : tensor<2x2xf32>
// CHECK-NEXT: gplace.tanh %[[R]] : tensor<2x2xf32>
// CHECK: gplace.gradients %{{.+}} wrt %[[R]] : tensor<f32> wrt tensor<2x2xf32>
// A function that trains nothing gets no loss scaling (no state).
// F16-LABEL: func.func @wrt_activation
// F16-NOT: loss_scale
// F16: return
func.func @wrt_activation(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %1 = gplace.matmul %x, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %2 = gplace.relu %1 : tensor<2x2xf32>
  %3 = gplace.tanh %2 : tensor<2x2xf32>
  %loss = gplace.reduce_sum %3 axes = [0, 1] : tensor<2x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %2 : tensor<f32> wrt tensor<2x2xf32>
  return %g : tensor<2x2xf32>
}

// -----

// On the CPU, conv2d has 16-bit kernels (computed in f32): it narrows,
// and so does the relu after it.
// CHECK-LABEL: func.func @conv
// CHECK: gplace.conv2d {{.*}} -> tensor<1x4x4x1xbf16>
// CHECK-NEXT: gplace.relu {{.*}} : tensor<1x4x4x1xbf16>
// F16-LABEL: func.func @conv
// F16: gplace.conv2d {{.*}} -> tensor<1x4x4x1xf16>
func.func @conv(%x: tensor<1x4x4x1xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x4x4x1xf32> {
  %y = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" {name = "conv"} : tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32> -> tensor<1x4x4x1xf32>
  %r = gplace.relu %y : tensor<1x4x4x1xf32>
  return %r : tensor<1x4x4x1xf32>
}

// -----

// On GPUs conv2d has bf16 and f16 kernels too (cuDNN's pseudo-half
// configurations): in a module with GPUs it is 16-bit as on the CPU.
// CHECK-LABEL: func.func @gpu_conv
// CHECK: gplace.conv2d {{.*}} -> tensor<1x4x4x1xbf16>
// CHECK-NEXT: gplace.relu {{.*}} : tensor<1x4x4x1xbf16>
// F16-LABEL: func.func @gpu_conv
// F16: gplace.conv2d {{.*}} -> tensor<1x4x4x1xf16>
module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">, #gplace.device<"/job:localhost/replica:0/task:0/device:GPU:0">]} {
  func.func @gpu_conv(%x: tensor<1x4x4x1xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x4x4x1xf32> {
    %y = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" {name = "gpu_conv"} : tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32> -> tensor<1x4x4x1xf32>
    %r = gplace.relu %y : tensor<1x4x4x1xf32>
    return %r : tensor<1x4x4x1xf32>
  }
}

// -----

// A CUDA GPU of compute capability 7.5 (its description, as gplace-run
// writes it) has no bf16 convolutions (the remark above), and f16 ones.
// CHECK-LABEL: func.func @turing_conv
// CHECK-NEXT: gplace.conv2d {{.*}} -> tensor<1x4x4x1xf32>
// F16-LABEL: func.func @turing_conv
// F16: gplace.conv2d {{.*}} -> tensor<1x4x4x1xf16>
module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">, #gplace.device<"/job:localhost/replica:0/task:0/device:GPU:0", description = "device: 0, name: Tesla T4, pci bus id: 0000:00:04.0, compute capability: 7.5">]} {
  func.func @turing_conv(%x: tensor<1x4x4x1xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x4x4x1xf32> {
    %y = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" {name = "turing_conv"} : tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32> -> tensor<1x4x4x1xf32>
    return %y : tensor<1x4x4x1xf32>
  }
}

// -----

// One GPU of 6.0 among newer ones: neither type on GPUs.
// CHECK-LABEL: func.func @pascal_conv
// CHECK-NEXT: gplace.conv2d {{.*}} -> tensor<1x4x4x1xf32>
// F16-LABEL: func.func @pascal_conv
// F16-NEXT: gplace.conv2d {{.*}} -> tensor<1x4x4x1xf32>
module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">, #gplace.device<"/job:localhost/replica:0/task:0/device:GPU:0", description = "device: 0, name: NVIDIA H100, pci bus id: 0000:00:04.0, compute capability: 9.0">, #gplace.device<"/job:localhost/replica:0/task:0/device:GPU:1", description = "device: 1, name: Tesla P100, pci bus id: 0000:00:05.0, compute capability: 6.0">]} {
  func.func @pascal_conv(%x: tensor<1x4x4x1xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x4x4x1xf32> {
    %y = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" {name = "pascal_conv"} : tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32> -> tensor<1x4x4x1xf32>
    return %y : tensor<1x4x4x1xf32>
  }
}

// -----

// Only f32 narrows: an f64 matmul and an integer one stay as they are.
// CHECK-LABEL: func.func @other_types
// CHECK-NOT: gplace.cast
// CHECK: return
func.func @other_types(%x: tensor<2x3xf64>, %w: tensor<3x2xf64>, %i: tensor<2x2xi32>) -> (tensor<2x2xf64>, tensor<2x2xi32>) {
  %1 = gplace.matmul %x, %w : (tensor<2x3xf64>, tensor<3x2xf64>) -> tensor<2x2xf64>
  %2 = gplace.matmul %i, %i : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  return %1, %2 : tensor<2x2xf64>, tensor<2x2xi32>
}

// -----

// A module with GPUs: matmul has bf16 kernels there too. A cast asks
// for its producer's device (Grappler's AMP), else for that of the op it
// is made for: the casts of the arguments for the matmul's GPU, the cast
// of the exp's result for /gpu:1 (casts between float types have GPU
// kernels).
// CHECK-LABEL: func.func @gpus
// CHECK: gplace.cast %arg0 {device = "/gpu:0", name = "arg0-0-CastToBf16-AutoMixedPrecision"}
// CHECK: gplace.cast %arg1 {device = "/gpu:0", name = "arg1-0-CastToBf16-AutoMixedPrecision"}
// CHECK: gplace.matmul {{.*}} -> tensor<2x2xbf16>
// CHECK: gplace.cast %{{.*}} {device = "/gpu:1", name = "Exp-0-CastToBf16-AutoMixedPrecision"}
module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">, #gplace.device<"/job:localhost/replica:0/task:0/device:GPU:0">, #gplace.device<"/job:localhost/replica:0/task:0/device:GPU:1">]} {
  func.func @gpus(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
    %1 = gplace.matmul %x, %w {device = "/gpu:0"} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
    %2 = gplace.exp %1 {device = "/gpu:1"} : tensor<2x2xf32>
    %3 = gplace.matmul %2, %2 {device = "/gpu:0"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    return %1, %3 : tensor<2x2xf32>, tensor<2x2xf32>
  }
}

// -----

// Updates that other updates wait for, as Adam's beta-power assigns wait
// for the group of the apply_adams (examples/train_fashion_mnist.mlir): the
// group waits for the restorations of what its ops wrote (they come before
// it), the later assigns still wait for that group, and what follows every
// restoration waits for `loss_scale/done`. Before, every wait went to
// `loss_scale/done`, after the last restoration, and the group used it
// before it was defined.
// F16-LABEL: func.func @update_chain
// F16: %[[U1:.+]] = gplace.apply_gradient_descent %[[W:[^,]+]],
// F16: %[[R1:.+]] = gplace.assign %[[W]], {{.*}} {name = "loss_scale/skip_0/assign"}
// F16-NEXT: %[[D1:.+]] = gplace.group %[[R1]] {name = "loss_scale/done_1"}
// F16: %[[U2:.+]] = gplace.apply_gradient_descent %[[B:[^,]+]],
// F16: %[[R2:.+]] = gplace.assign %[[B]], {{.*}} {name = "loss_scale/skip_1/assign"}
// F16-NEXT: %[[D2:.+]] = gplace.group %[[R2]] {name = "loss_scale/done_2"}
// F16-NEXT: %[[G:.+]] = gplace.group %[[D1]], %[[D2]] :
// F16: %[[S:.+]] = gplace.assign_add %[[STEP:[^,]+]], {{.*}} after(%[[G]])
// F16: %[[R3:.+]] = gplace.assign %[[STEP]], {{.*}} {name = "loss_scale/skip_2/assign"}
// F16-NEXT: %[[DONE:.+]] = gplace.group %[[R1]], %[[R2]], %[[R3]] {name = "loss_scale/done"}
// F16-NEXT: gplace.identity {{.*}} after(%[[DONE]])
// F16: gplace.assign {{.*}} {name = "loss_scale/assign"}
func.func @update_chain(%x: tensor<4x3xf32>, %labels: tensor<4xi32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<3x2xf32> {name = "dense/kernel"}
  %b = gplace.variable dense<0.0> : tensor<2xf32> {name = "dense/bias"}
  %step = gplace.variable dense<0.0> : tensor<f32> {name = "step"}
  %wr = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  %br = gplace.read %b : !gplace.resource<tensor<2xf32>>
  %mm = gplace.matmul %x, %wr : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %z = gplace.bias_add %mm, %br : tensor<4x2xf32>, tensor<2xf32>
  %xent, %bp = gplace.sparse_softmax_cross_entropy_with_logits %z, %labels : tensor<4x2xf32>, tensor<4xi32>
  %loss = gplace.reduce_mean %xent axes = [0] : tensor<4xf32> -> tensor<f32>
  %gw, %gb = gplace.gradients %loss wrt %wr, %br : tensor<f32> wrt tensor<3x2xf32>, tensor<2xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u1 = gplace.apply_gradient_descent %w, %lr, %gw : !gplace.resource<tensor<3x2xf32>>, tensor<f32>, tensor<3x2xf32>
  %u2 = gplace.apply_gradient_descent %b, %lr, %gb : !gplace.resource<tensor<2xf32>>, tensor<f32>, tensor<2xf32>
  %updated = gplace.group %u1, %u2 : !gplace.control, !gplace.control
  %one = gplace.constant dense<1.0> : tensor<f32>
  %s = gplace.assign_add %step, %one after(%updated) : !gplace.resource<tensor<f32>>
  %r = gplace.identity %loss after(%s) : tensor<f32>
  return %r : tensor<f32>
}
