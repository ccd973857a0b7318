// --gplace-rematerialize="auto=true" (gplace-run --rematerialize=auto):
// where a device's estimated peak exceeds its memory limit, the forward ops
// that cost the least recompute time per byte saved are recomputed in the
// backward pass, until it fits. Two blocks of two 256-wide tanh layers at
// batch 1024 (1 MiB per activation) on a GPU of 10 MiB (9 MiB for
// gplace-run below): kept, the plan needs 10 MiB and 256 bytes.
//
// The pass on a placed graph, leaving 1 MiB free besides its estimate
// (reserve=; gplace-run sets it from the plans it tries): the cheapest
// recompute per byte is the random input, regenerated right before the
// backward op that uses it.
// RUN: gplace-opt %s --gplace-assign-devices --gplace-differentiate --gplace-place --gplace-rematerialize="auto=true print=true reserve=1048576" 2> %t.log | FileCheck %s
// RUN: FileCheck %s --check-prefix=LOG < %t.log
// CHECK-LABEL: func.func @train
// CHECK: %[[X:.*]] = gplace.stateless_random_uniform %{{.*}} {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", name = "data/x"}
// CHECK: gplace.matmul %[[X]],
// CHECK: %[[RX:.*]] = gplace.stateless_random_uniform %{{.*}} {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", name = "data/x/recompute"}
// CHECK-NEXT: gplace.matmul %[[RX]], %{{.*}} transpose_a {{.*}}name = "gradients/block0/layer0/matmul_grad/MatMul_1"
// LOG: Rematerialize: recompute 'data/x' on /job:localhost/replica:0/task:0/device:GPU:0 (1 MiB of activations, {{[0-9.]+}} us to recompute): estimated peak [[BEFORE:[0-9]+]] -> [[AFTER:[0-9]+]] bytes, target 9437184 bytes
// LOG: Rematerialize: /job:localhost/replica:0/task:0/device:GPU:0: 1 ops recomputed, estimated peak [[BEFORE]] -> [[AFTER]] bytes, target 9437184 bytes (memory limit 10485760)
// Without reserve= the estimate fits: nothing is recomputed.
// RUN: gplace-opt %s --gplace-assign-devices --gplace-differentiate --gplace-place --gplace-rematerialize="auto=true print=true" 2>&1 | FileCheck %s --check-prefix=FITS --implicit-check-not=recompute
// FITS-LABEL: func.func @train
//
// gplace-run compiles, runs and gives the same bits as without a limit; the
// memory plan meets the limit and says what was recomputed.
// RUN: gplace-run %s --entry=train --iterations=3 --emulate-gpus=1 --print-memory-plan > %t.kept 2> %t.kept.log
// RUN: FileCheck %s --check-prefix=KEPT < %t.kept.log
// KEPT: Memory plan for /job:localhost/replica:0/task:0/device:GPU:0: peak 10486016 bytes
// RUN: gplace-run %s --entry=train --iterations=3 --emulate-gpus=1 --gpu-memory-limit=9 --rematerialize=auto --log-device-placement --print-memory-plan > %t.remat 2> %t.remat.log
// RUN: diff %t.kept %t.remat
// RUN: FileCheck %s --check-prefix=REMAT < %t.remat.log
// REMAT: Rematerialize: recompute 'data/x'
// REMAT: Rematerialize: recompute 'block0/layer0/tanh', 'block0/layer0/matmul'
// REMAT: Rematerialize: /job:localhost/replica:0/task:0/device:GPU:0: 3 ops recomputed
// REMAT: Memory plan for /job:localhost/replica:0/task:0/device:GPU:0: peak [[PEAK:[0-9]+]] bytes {{.*}}, limit 9437184 bytes, {{.*}}, rematerialized {{[0-9]+}} ops (estimated peak
// RUN: %python -c "import re,sys; p=int(re.search(r'GPU:0: peak ([0-9]+)', open(sys.argv[1]).read()).group(1)); assert p <= 9437184, p" %t.remat.log
//
// Under 10 MiB the estimate fits (10,223,692 bytes) and the plan misses by
// 256 bytes: the second try asks the estimate to go 256 bytes below what
// it reached (not 256 bytes below the limit, which it already was), and
// one recomputed op makes it fit.
// RUN: gplace-run %s --entry=train --iterations=3 --emulate-gpus=1 --gpu-memory-limit=10 --rematerialize=auto --print-memory-plan 2>&1 > %t.near | FileCheck %s --check-prefix=NEAR
// RUN: diff %t.kept %t.near
// NEAR: Memory plan for /job:localhost/replica:0/task:0/device:GPU:0: peak {{[0-9]+}} bytes {{.*}}, limit 10485760 bytes, {{.*}}, rematerialized 1 ops (estimated peak
// Where the first quiet compile fits and nothing more is printed, it is the
// plan: one compile, not two (each prints the IR after the last pass once);
// with --log-device-placement the log comes from a second compile.
// RUN: gplace-run %s --entry=train --iterations=3 --emulate-gpus=1 --rematerialize=auto --mlir-print-ir-after=gplace-verify-plan 2> %t.once.log > %t.once
// RUN: diff %t.kept %t.once
// RUN: grep -c "IR Dump After" %t.once.log | FileCheck %s --check-prefix=ONCE
// ONCE: {{^}}1{{$}}
// RUN: gplace-run %s --entry=train --iterations=3 --emulate-gpus=1 --rematerialize=auto --log-device-placement --mlir-print-ir-after=gplace-verify-plan 2>&1 > /dev/null | grep -c "IR Dump After" | FileCheck %s --check-prefix=TWICE
// TWICE: {{^}}2{{$}}
//
// Under a limit nothing recomputed meets, the memory planner's error stays
// and says rematerialization was tried (gplace-run exits 3, out of memory).
// RUN: not gplace-run %s --entry=train --emulate-gpus=1 --gpu-memory-limit=6 --rematerialize=auto 2>&1 | FileCheck %s --check-prefix=OOM
// OOM: error: device /job:localhost/replica:0/task:0/device:GPU:0 needs {{[0-9]+}} bytes ({{.*}}) of memory, {{.*}} but its memory limit is 6291456 bytes (6 MiB); --gplace-rematerialize tried: it rematerialized {{[0-9]+}} ops (estimated peak {{[0-9]+}} -> {{[0-9]+}} bytes) and nothing more it could recompute lowers it
// RUN: gplace-run %s --entry=train --emulate-gpus=1 --gpu-memory-limit=6 --rematerialize=auto > /dev/null 2>&1; test $? -eq 3

module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:GPU:0", memory_limit = 10485760>, #gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">]} {
  func.func @train() -> (tensor<f32>, tensor<256x256xf32>) {
    %s0 = gplace.constant dense<[1, 0]> : tensor<2xi64> {name = "data/seed_x"}
    %x = gplace.stateless_random_uniform %s0 {name = "data/x"} : tensor<2xi64> -> tensor<1024x256xf32>
    %s1 = gplace.constant dense<[2, 0]> : tensor<2xi64> {name = "data/seed_y"}
    %y = gplace.stateless_random_uniform %s1 {name = "data/y"} : tensor<2xi64> -> tensor<1024x256xf32>
    %w0 = gplace.variable dense<0.1> : tensor<256x256xf32> {name = "block0/layer0/w"}
    %r0 = gplace.read %w0 {name = "block0/layer0/read"} : !gplace.resource<tensor<256x256xf32>>
    %m0 = gplace.matmul %x, %r0 {name = "block0/layer0/matmul"} : (tensor<1024x256xf32>, tensor<256x256xf32>) -> tensor<1024x256xf32>
    %h0 = gplace.tanh %m0 {name = "block0/layer0/tanh"} : tensor<1024x256xf32>
    %w1 = gplace.variable dense<0.15000000000000002> : tensor<256x256xf32> {name = "block0/layer1/w"}
    %r1 = gplace.read %w1 {name = "block0/layer1/read"} : !gplace.resource<tensor<256x256xf32>>
    %m1 = gplace.matmul %h0, %r1 {name = "block0/layer1/matmul"} : (tensor<1024x256xf32>, tensor<256x256xf32>) -> tensor<1024x256xf32>
    %h1 = gplace.tanh %m1 {name = "block0/layer1/tanh"} : tensor<1024x256xf32>
    %w2 = gplace.variable dense<0.2> : tensor<256x256xf32> {name = "block1/layer2/w"}
    %r2 = gplace.read %w2 {name = "block1/layer2/read"} : !gplace.resource<tensor<256x256xf32>>
    %m2 = gplace.matmul %h1, %r2 {name = "block1/layer2/matmul"} : (tensor<1024x256xf32>, tensor<256x256xf32>) -> tensor<1024x256xf32>
    %h2 = gplace.tanh %m2 {name = "block1/layer2/tanh"} : tensor<1024x256xf32>
    %w3 = gplace.variable dense<0.25> : tensor<256x256xf32> {name = "block1/layer3/w"}
    %r3 = gplace.read %w3 {name = "block1/layer3/read"} : !gplace.resource<tensor<256x256xf32>>
    %m3 = gplace.matmul %h2, %r3 {name = "block1/layer3/matmul"} : (tensor<1024x256xf32>, tensor<256x256xf32>) -> tensor<1024x256xf32>
    %h3 = gplace.tanh %m3 {name = "block1/layer3/tanh"} : tensor<1024x256xf32>
    %d = gplace.sub %h3, %y {name = "loss/sub"} : (tensor<1024x256xf32>, tensor<1024x256xf32>) -> tensor<1024x256xf32>
    %sq = gplace.square %d {name = "loss/square"} : tensor<1024x256xf32>
    %loss = gplace.reduce_mean %sq axes = [0, 1] {name = "loss/mean"} : tensor<1024x256xf32> -> tensor<f32>
    %g0, %g1, %g2, %g3 = gplace.gradients %loss wrt %r0, %r1, %r2, %r3 : tensor<f32> wrt tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>
    %lr = gplace.constant dense<0.5> : tensor<f32>
    %u0 = gplace.apply_gradient_descent %w0, %lr, %g0 : !gplace.resource<tensor<256x256xf32>>, tensor<f32>, tensor<256x256xf32>
    %u1 = gplace.apply_gradient_descent %w1, %lr, %g1 : !gplace.resource<tensor<256x256xf32>>, tensor<f32>, tensor<256x256xf32>
    %u2 = gplace.apply_gradient_descent %w2, %lr, %g2 : !gplace.resource<tensor<256x256xf32>>, tensor<f32>, tensor<256x256xf32>
    %u3 = gplace.apply_gradient_descent %w3, %lr, %g3 : !gplace.resource<tensor<256x256xf32>>, tensor<f32>, tensor<256x256xf32>
    %a0 = gplace.read %w0 after(%u0) : !gplace.resource<tensor<256x256xf32>>
    return %loss, %a0 : tensor<f32>, tensor<256x256xf32>
  }
}
