// --pipeline-stages=K (--gplace-pipeline-parallel, --gplace-schedule-pipeline)
// trains what --accumulate-steps trains: a 4-stage MLP (each layer's
// variable and ops requested on its own GPU) with a batch of 16 in 8
// micro-batches of 2, ten gradient-descent steps, gives the loss and the
// weights of one batch of 16 on the CPU, and those of
// --accumulate-steps=8 (the same running sums), under GPipe and 1F1B, and
// in 2 stages the cost model chooses (--pipeline-split=auto, which replaces
// the ops' requests). They are compared with a tolerance, not byte for
// byte: --gplace-remap fuses some of the running sums into GEMMs with
// beta = 1 (oneDNN's matmul with a sum post-op) and leaves others as
// oneDNN's product and an add, which round alike with AVX-512 but not
// with AVX2 (its GEMM starts the sums from the running sum).
// DEFINE: %{inputs} = --input=16x8xf32=0.76,0.88,0.89,0.77,0.55,0.26,-0.07,-0.39,-0.66,-0.83,-0.9,-0.84,-0.67,-0.41,-0.09,0.24,0.54,0.76,0.88,0.89,0.77,0.55,0.25,-0.08,-0.4,-0.66,-0.84,-0.9,-0.84,-0.67,-0.4,-0.09,0.24,0.54,0.76,0.88,0.88,0.77,0.54,0.25,-0.08,-0.4,-0.67,-0.84,-0.9,-0.84,-0.66,-0.4,-0.08,0.25,0.54,0.77,0.89,0.88,0.76,0.54,0.24,-0.09,-0.41,-0.67,-0.84,-0.9,-0.84,-0.66,-0.39,-0.07,0.25,0.55,0.77,0.89,0.88,0.76,0.53,0.24,-0.09,-0.41,-0.67,-0.84,-0.9,-0.83,-0.66,-0.39,-0.07,0.26,0.55,0.77,0.89,0.88,0.76,0.53,0.23,-0.1,-0.42,-0.68,-0.85,-0.9,-0.83,-0.65,-0.38,-0.06,0.27,0.56,0.78,0.89,0.88,0.75,0.52,0.22,-0.11,-0.42,-0.68,-0.85,-0.9,-0.83,-0.65,-0.38,-0.06,0.27,0.56,0.78,0.89,0.88,0.75,0.52,0.22,-0.11,-0.43,-0.69 --input=16x1xf32=0.5,0.13,-0.43,-0.36,0.23,0.49,0.03,-0.47,-0.28,0.32,0.45,-0.08,-0.5,-0.18,0.4,0.4
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --allow-soft-placement | FileCheck %s
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --emulate-gpus=4 --accumulate-steps=8 > %t.accumulate
// RUN: FileCheck %s < %t.accumulate
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --emulate-gpus=4 --pipeline-stages=4 --microbatches=8 > %t.1f1b
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --emulate-gpus=4 --pipeline-stages=4 --microbatches=8 --schedule=gpipe > %t.gpipe
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --emulate-gpus=4 --pipeline-stages=2 --pipeline-split=auto --microbatches=8 > %t.auto
// RUN: FileCheck %s < %t.1f1b
// RUN: %python %gplace_src_root/utils/compare-results.py %t.accumulate %t.auto
// RUN: %python %gplace_src_root/utils/compare-results.py %t.accumulate %t.1f1b
// RUN: %python %gplace_src_root/utils/compare-results.py %t.accumulate %t.gpipe
//
// Data parallel x pipeline parallel (--replicas=R with --pipeline-stages):
// two 4-stage pipelines on GPUs 0-3 and 4-7, each on 8 of the 16 examples
// in 4 micro-batches, give the bits of --accumulate-steps=8 (the same
// running sums, on replica 0's stages), and so do two pipelines of the 2
// stages split=auto cuts (GPUs 0-1 and 2-3).
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --emulate-gpus=8 --pipeline-stages=4 --microbatches=4 --replicas=2 > %t.dp
// RUN: %python %gplace_src_root/utils/compare-results.py %t.accumulate %t.dp
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --emulate-gpus=4 --pipeline-stages=2 --pipeline-split=auto --microbatches=4 --replicas=2 > %t.dpauto
// RUN: %python %gplace_src_root/utils/compare-results.py %t.accumulate %t.dpauto
// With bf16 mixed precision (--mixed-precision=bf16: each cast asks for its
// producer's device, else its user's, so the casts run on the stages, in
// their units): the bits of accumulation in bf16 (a loss other than f32's
// 0.12967248).
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --emulate-gpus=4 --accumulate-steps=8 --mixed-precision=bf16 > %t.accumulate16
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --emulate-gpus=4 --pipeline-stages=4 --microbatches=8 --mixed-precision=bf16 > %t.pipeline16
// RUN: %python %gplace_src_root/utils/compare-results.py %t.accumulate16 %t.pipeline16
// RUN: FileCheck %s --check-prefix=BF16 < %t.pipeline16
// Every cast on a stage, none on the host:
// RUN: gplace-run %s --entry=train %{inputs} --emulate-gpus=4 --pipeline-stages=4 --microbatches=8 --mixed-precision=bf16 --log-device-placement > %t.casts 2>&1
// RUN: FileCheck %s --check-prefix=CASTS < %t.casts
// RUN: not grep "(Cast): .*CPU" %t.casts
// CASTS-DAG: ReadVariableOp_3-0-CastToBf16-AutoMixedPrecision: (Cast): /job:localhost/replica:0/task:0/device:GPU:3
// CASTS-DAG: micro_batch_7/arg0-0-CastToBf16-AutoMixedPrecision: (Cast): /job:localhost/replica:0/task:0/device:GPU:0
// CASTS-DAG: {{^}}  micro_batch_0/arg0-0-CastToBf16-AutoMixedPrecision: stage 0, forward, its request '/device:GPU:0'
// BF16: result[0]: f32=0.1297029
// RUN: gplace-run %s --entry=train %{inputs} --emulate-gpus=8 --pipeline-stages=4 --microbatches=4 --replicas=2 --log-device-placement 2>&1 | FileCheck %s --check-prefix=DPXPP
// DPXPP: Pipeline schedule of @train (1f1b, 4 stages, 4 micro-batches, 2 replicas):
// DPXPP: replica 0 stage 0 on /job:localhost/replica:0/task:0/device:GPU:0: 3 forward + 3 backward ops per micro-batch; F0 F1 F2 F3 B0 B1 B2 B3
// DPXPP: replica 1 stage 3 on /job:localhost/replica:0/task:0/device:GPU:7: 6 forward + 4 backward ops per micro-batch; F0 B0 F1 B1 F2 B2 F3 B3
// DPXPP: {{^}}  micro_batch_4/MatMul_1: replica 1 stage 1, forward, its request '/job:localhost/replica:0/task:0/device:GPU:5'
// Mirrored variables (--replica-variables=mirrored): each replica's stages
// keep their own copies, sum their own 4 micro-batches, and one all-reduce
// per variable joins the replicas before each updates its own copy: the
// weights of --accumulate-steps=8 within f32 rounding (the sums are
// associated per replica), and the copies equal to the bit (--save refuses
// copies that differ), two 4-stage pipelines on 8 GPUs (over the
// collective, and over a ring) and two 2-stage split=auto ones on 4.
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --emulate-gpus=4 --accumulate-steps=8 --save=%t.dir/accumulate.npz > %t.dir/accumulate.txt
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --emulate-gpus=8 --pipeline-stages=4 --microbatches=4 --replicas=2 --replica-variables=mirrored --save=%t.dir/mirrored.npz > %t.dir/mirrored.txt
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --emulate-gpus=8 --pipeline-stages=4 --microbatches=4 --replicas=2 --replica-variables=mirrored --all-reduce=ring --schedule=gpipe --save=%t.dir/ring.npz > %t.dir/ring.txt
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --emulate-gpus=4 --pipeline-stages=2 --pipeline-split=auto --microbatches=4 --replicas=2 --replica-variables=mirrored --save=%t.dir/auto.npz > %t.dir/auto.txt
// RUN: %python %gplace_src_root/test/Tools/gplace-run/Inputs/compare_npz.py %t.dir/mirrored.npz %t.dir/accumulate.npz 1e-5 1e-6 | FileCheck %s --check-prefix=SAME
// RUN: %python %gplace_src_root/test/Tools/gplace-run/Inputs/compare_npz.py %t.dir/ring.npz %t.dir/accumulate.npz 1e-5 1e-6 | FileCheck %s --check-prefix=SAME
// RUN: %python %gplace_src_root/test/Tools/gplace-run/Inputs/compare_npz.py %t.dir/auto.npz %t.dir/accumulate.npz 1e-5 1e-6 | FileCheck %s --check-prefix=SAME
// SAME: 5 entries match
// RUN: %python %gplace_src_root/utils/compare-results.py %t.dir/mirrored.txt %t.dir/accumulate.txt --rtol=1e-5 --atol=1e-6
// RUN: %python %gplace_src_root/utils/compare-results.py %t.dir/auto.txt %t.dir/accumulate.txt --rtol=1e-5 --atol=1e-6
// An optimizer's slot that requests no device (momentum's accumulator of
// w3) goes with each replica's update, on its copy of the stage:
// RUN: gplace-run %S/Inputs/pipeline-momentum.mlir --entry=train --iterations=10 %{inputs} --emulate-gpus=4 --accumulate-steps=8 --save=%t.dir/momentum.npz > /dev/null
// RUN: gplace-run %S/Inputs/pipeline-momentum.mlir --entry=train --iterations=10 %{inputs} --emulate-gpus=8 --pipeline-stages=4 --microbatches=4 --replicas=2 --replica-variables=mirrored --save=%t.dir/momentum-mirrored.npz --log-device-placement > /dev/null 2> %t.dir/momentum.log
// RUN: %python %gplace_src_root/test/Tools/gplace-run/Inputs/compare_npz.py %t.dir/momentum-mirrored.npz %t.dir/momentum.npz 1e-5 1e-6 | FileCheck %s --check-prefix=MOMENTUM
// RUN: FileCheck %s --check-prefix=MOMENTUMLOG < %t.dir/momentum.log
// MOMENTUM: 6 entries match
// MOMENTUMLOG-DAG: w3/Momentum: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:3
// MOMENTUMLOG-DAG: w3/Momentum: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:7
// Each replica's copy on its own stage, the sums of its micro-batches
// there, and the all-reduce's members on both replicas' GPUs for a stage:
// RUN: gplace-run %s --entry=train %{inputs} --emulate-gpus=8 --pipeline-stages=4 --microbatches=4 --replicas=2 --replica-variables=mirrored --log-device-placement 2>&1 | FileCheck %s --check-prefix=MIRRORED
// MIRRORED-DAG: w0: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:0
// MIRRORED-DAG: w0: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:4
// MIRRORED-DAG: w3: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:7
// MIRRORED-DAG: accumulate_gradients/0/add_5: (AddV2): /job:localhost/replica:0/task:0/device:GPU:4
// MIRRORED-DAG: allreduce/0/CollectiveReduceV2_0: (CollectiveReduceV2): /job:localhost/replica:0/task:0/device:GPU:0
// MIRRORED-DAG: allreduce/0/CollectiveReduceV2_1: (CollectiveReduceV2): /job:localhost/replica:0/task:0/device:GPU:4
// MIRRORED-DAG: allreduce/3/CollectiveReduceV2_1: (CollectiveReduceV2): /job:localhost/replica:0/task:0/device:GPU:7
// MIRRORED-DAG: replica 1 stage 3 on /job:localhost/replica:0/task:0/device:GPU:7: 6 forward + 4 backward ops per micro-batch; F0 B0 F1 B1 F2 B2 F3 B3
// One all-reduce per variable and step, before placement: four.
// RUN: gplace-opt %s --gplace-assign-devices="devices=cpu:1,gpu:8" --gplace-pipeline-parallel="microbatches=4 replicas=2 variables=mirrored functions=train" | FileCheck %s --check-prefix=ONEEACH
// ONEEACH-COUNT-4: gplace.all_reduce {{.*}} reduction = "sum"
// ONEEACH-NOT: gplace.all_reduce
// With bf16 mixed precision: the running sums and the all-reduce in f32,
// the weights bf16 accumulation's within bf16's rounding of the forward.
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --emulate-gpus=4 --accumulate-steps=8 --mixed-precision=bf16 --save=%t.dir/accumulate16.npz > /dev/null
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --emulate-gpus=8 --pipeline-stages=4 --microbatches=4 --replicas=2 --replica-variables=mirrored --mixed-precision=bf16 --save=%t.dir/mirrored16.npz > /dev/null
// RUN: %python %gplace_src_root/test/Tools/gplace-run/Inputs/compare_npz.py %t.dir/mirrored16.npz %t.dir/accumulate16.npz 1e-5 1e-6 | FileCheck %s --check-prefix=SAME
//
// Errors: too few GPUs for R pipelines; the flags of other modes.
// RUN: not gplace-run %s --entry=train %{inputs} --emulate-gpus=4 --pipeline-stages=4 --replicas=2 2>&1 | FileCheck %s --check-prefix=DPGPUS
// DPGPUS: error: --gplace-pipeline-parallel replicas=2: @train's 4 stages need 8 GPUs for 2 pipelines; the devices have 4
// RUN: not gplace-run %s --entry=train %{inputs} --emulate-gpus=8 --pipeline-stages=4 --replicas=2 --replica-variables=host 2>&1 | FileCheck %s --check-prefix=DPVARS
// DPVARS: error: --replica-variables=host does not apply to a replicated pipeline: its variables stay on replica 0's stages (the default) or, with --replica-variables=mirrored, each replica's stages keep a copy
// RUN: not gplace-run %s --entry=train %{inputs} --emulate-gpus=8 --pipeline-stages=4 --replicas=2 --all-reduce=ring 2>&1 | FileCheck %s --check-prefix=DPRING
// DPRING: error: --all-reduce applies to a replicated pipeline's mirrored variables: give --replica-variables=mirrored too
// RUN: not gplace-run %s --entry=train %{inputs} --emulate-gpus=8 --pipeline-stages=4 --replica-variables=mirrored 2>&1 | FileCheck %s --check-prefix=DPNOREPLICAS
// DPNOREPLICAS: error: --replica-variables applies to replicas: give --replicas=N or --replicate too
// RUN: not gplace-run %s --entry=train %{inputs} --emulate-gpus=8 --pipeline-stages=4 --replicate=replicas=2 2>&1 | FileCheck %s --check-prefix=DPREPLICATE
// DPREPLICATE: error: --replicate and --pipeline-stages: give --replicas=N
// RUN: not gplace-opt %s --gplace-pipeline-parallel="replicas=2" 2>&1 | FileCheck %s --check-prefix=DPDEVICES
// DPDEVICES: error: --gplace-pipeline-parallel replicas=2 needs the module's devices
// CHECK: result[0]: f32=0.129672{{[0-9]*}}
// CHECK: result[1]: 8x8xf32={{\[\[}}-0.241493{{[0-9]*}}, 0.318459{{[0-9]*}}, -0.390551{{[0-9]*}},
// CHECK: result[2]: 8x1xf32={{\[\[}}-0.598558{{[0-9]*}}], [-0.491555{{[0-9]*}}], [-0.138226{{[0-9]*}}], [0.278016{{[0-9]*}}], [0.561967{{[0-9]*}}], [0.557892{{[0-9]*}}], [0.292023{{[0-9]*}}], [-0.131916{{[0-9]*}}]]
//
// The sums of each stage's gradients are on that stage; the host slices the
// batch.
// RUN: gplace-run %s --entry=train %{inputs} --emulate-gpus=4 --pipeline-stages=4 --microbatches=8 --log-device-placement 2>&1 | FileCheck %s --check-prefix=PLACED
// PLACED-DAG: micro_batch_7/split/arg0: (Slice): /job:localhost/replica:0/task:0/device:CPU:0
// PLACED-DAG: accumulate_gradients/0/add_6: (AddV2): /job:localhost/replica:0/task:0/device:GPU:0
// PLACED-DAG: accumulate_gradients/3/add_6: (AddV2): /job:localhost/replica:0/task:0/device:GPU:3
// PLACED-DAG: accumulate_gradients/3/mul: (Mul): /job:localhost/replica:0/task:0/device:GPU:3
// PLACED-DAG: Pipeline schedule of @train (1f1b, 4 stages, 8 micro-batches):
// PLACED-DAG: stage 0 on /job:localhost/replica:0/task:0/device:GPU:0: 3 forward + 3 backward ops per micro-batch; F0 F1 F2 F3 B0 F4 B1 F5 B2 F6 B3 F7 B4 B5 B6 B7
// PLACED-DAG: stage 3 on /job:localhost/replica:0/task:0/device:GPU:3: 6 forward + 4 backward ops per micro-batch; F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 F6 B6 F7 B7
// Each op's stage and why (micro-batch 0's ops):
// PLACED-DAG: {{^}}  micro_batch_0/Tanh_1: stage 1, forward, its request '/device:GPU:1'
// PLACED-DAG: {{^}}  gradients/micro_batch_0/Tanh_grad/TanhGrad: stage 0, backward, on its forward op's device
// PLACED-DAG: {{^}}  (gplace.copy): stage 1, forward, inserted on /job:localhost/replica:0/task:0/device:GPU:1
// RUN: gplace-run %s --entry=train %{inputs} --emulate-gpus=4 --pipeline-stages=2 --pipeline-split=auto --microbatches=8 --log-device-placement 2>&1 | FileCheck %s --check-prefix=AUTOLOG
// AUTOLOG: Pipeline schedule of @train (1f1b, 2 stages, 8 micro-batches):
// AUTOLOG: {{^}}  micro_batch_0/MatMul: stage 0, forward, split=auto's cut '/job:localhost/replica:0/task:0/device:GPU:0'
// AUTOLOG: {{^}}  micro_batch_0/Mean: stage 1, forward, split=auto's cut '/job:localhost/replica:0/task:0/device:GPU:1'
//
// The memory (@wide: 4 stages of 64-wide layers, a batch of 512 in 8
// micro-batches of 64; a stage keeps 32 KiB per micro-batch, its input and
// its tanh). GPipe keeps all 8 micro-batches' activations on stages 0-2
// (294,912 bytes = 9 x 32 KiB, with the one in flight); 1F1B keeps at most
// K - s: 180,224 bytes on stage 0 (5.5 x 32 KiB), 147,520 on stage 1,
// 114,752 on stage 2 and 33,600 on the last stage, which holds one.
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1,gpu:4 pipeline-stages=4 microbatches=8 schedule=gpipe print-memory-plan=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPIPE
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1,gpu:4 pipeline-stages=4 microbatches=8 schedule=1f1b print-memory-plan=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=1F1B
// GPIPE-DAG: device:GPU:0: peak {{[0-9]+}} bytes (persistent {{[0-9]+}}, arena 294912)
// GPIPE-DAG: device:GPU:1: peak {{[0-9]+}} bytes (persistent {{[0-9]+}}, arena 294976)
// GPIPE-DAG: device:GPU:2: peak {{[0-9]+}} bytes (persistent {{[0-9]+}}, arena 294976)
// GPIPE-DAG: device:GPU:3: peak {{[0-9]+}} bytes (persistent {{[0-9]+}}, arena 149568)
// 1F1B-DAG: device:GPU:0: peak {{[0-9]+}} bytes (persistent {{[0-9]+}}, arena 180224)
// 1F1B-DAG: device:GPU:1: peak {{[0-9]+}} bytes (persistent {{[0-9]+}}, arena 147520)
// 1F1B-DAG: device:GPU:2: peak {{[0-9]+}} bytes (persistent {{[0-9]+}}, arena 114752)
// 1F1B-DAG: device:GPU:3: peak {{[0-9]+}} bytes (persistent {{[0-9]+}}, arena 33600)
//
// Errors.
// RUN: not gplace-run %s --entry=train %{inputs} --emulate-gpus=4 --pipeline-stages=3 2>&1 | FileCheck %s --check-prefix=STAGES
// STAGES: error: --gplace-schedule-pipeline: @train asks for 3 pipeline stages, but its forward ops are placed on 4 device(s) (/job:localhost/replica:0/task:0/device:GPU:0, /job:localhost/replica:0/task:0/device:GPU:1, /job:localhost/replica:0/task:0/device:GPU:2, /job:localhost/replica:0/task:0/device:GPU:3); give each stage's ops its device
// RUN: not gplace-run %s --entry=train %{inputs} --emulate-gpus=4 --pipeline-stages=4 --microbatches=3 2>&1 | FileCheck %s --check-prefix=DIVIDE
// DIVIDE: error: argument #0 of @train, of type 'tensor<16x8xf32>': its batch of 16 does not divide into 3 micro-batches
// RUN: not gplace-run %s --entry=train %{inputs} --emulate-gpus=4 --microbatches=8 2>&1 | FileCheck %s --check-prefix=ALONE
// ALONE: error: --microbatches applies to pipeline parallelism: give --pipeline-stages=K too
// RUN: not gplace-run %s --entry=train %{inputs} --emulate-gpus=4 --pipeline-stages=4 --schedule=interleaved 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// SCHEDULE: error: --schedule must be gpipe or 1f1b, not 'interleaved'
// RUN: not gplace-run %s --entry=train %{inputs} --emulate-gpus=4 --pipeline-stages=2 --pipeline-split=greedy 2>&1 | FileCheck %s --check-prefix=SPLIT
// SPLIT: error: --pipeline-split must be placement or auto, not 'greedy'
// RUN: not gplace-run %s --entry=train %{inputs} --emulate-gpus=4 --pipeline-stages=4 --accumulate-steps=2 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: error: --accumulate-steps and --pipeline-stages both split the batch into micro-batches: give --microbatches=M alone
// RUN: not gplace-opt %s --gplace-pipeline-parallel="schedule=zigzag" 2>&1 | FileCheck %s --check-prefix=PASS
// PASS: error: --gplace-pipeline-parallel schedule must be gpipe or 1f1b, not 'zigzag'

func.func @train(%x: tensor<16x8xf32>, %y: tensor<16x1xf32>) -> (tensor<f32>, tensor<8x8xf32>, tensor<8x1xf32>) {
  %w0 = gplace.variable dense<[[-0.24, 0.32, -0.39, 0.45, -0.5, 0.54, -0.57, 0.59], [0.18, -0.1, 0.01, 0.07, -0.16, 0.24, -0.31, 0.38], [0.51, -0.46, 0.4, -0.34, 0.26, -0.18, 0.1, -0.02], [0.59, -0.6, 0.6, -0.58, 0.55, -0.51, 0.46, -0.41], [0.38, -0.44, 0.5, -0.54, 0.57, -0.59, 0.6, -0.6], [-0.02, -0.07, 0.15, -0.23, 0.31, -0.38, 0.44, -0.49], [-0.41, 0.34, -0.27, 0.19, -0.11, 0.02, 0.06, -0.15], [-0.6, 0.58, -0.55, 0.52, -0.47, 0.41, -0.34, 0.27]]> : tensor<8x8xf32> {name = "w0", device = "/device:GPU:0"}
  %r0 = gplace.read %w0 {device = "/device:GPU:0"} : !gplace.resource<tensor<8x8xf32>>
  %m0 = gplace.matmul %x, %r0 {device = "/device:GPU:0"} : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
  %h0 = gplace.tanh %m0 {device = "/device:GPU:0"} : tensor<16x8xf32>
  %w1 = gplace.variable dense<[[-0.44, 0.5, -0.54, 0.57, -0.59, 0.6, -0.6, 0.58], [-0.07, 0.15, -0.23, 0.31, -0.38, 0.44, -0.49, 0.54], [0.34, -0.27, 0.19, -0.11, 0.02, 0.06, -0.15, 0.23], [0.58, -0.55, 0.52, -0.47, 0.41, -0.34, 0.27, -0.19], [0.54, -0.57, 0.59, -0.6, 0.6, -0.58, 0.56, -0.52], [0.23, -0.3, 0.37, -0.44, 0.49, -0.53, 0.57, -0.59], [-0.19, 0.11, -0.03, -0.06, 0.14, -0.22, 0.3, -0.37], [-0.52, 0.47, -0.41, 0.35, -0.28, 0.2, -0.12, 0.03]]> : tensor<8x8xf32> {name = "w1", device = "/device:GPU:1"}
  %r1 = gplace.read %w1 {device = "/device:GPU:1"} : !gplace.resource<tensor<8x8xf32>>
  %m1 = gplace.matmul %h0, %r1 {device = "/device:GPU:1"} : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
  %h1 = gplace.tanh %m1 {device = "/device:GPU:1"} : tensor<16x8xf32>
  %w2 = gplace.variable dense<[[-0.57, 0.59, -0.6, 0.6, -0.58, 0.56, -0.52, 0.47], [-0.3, 0.37, -0.44, 0.49, -0.53, 0.57, -0.59, 0.6], [0.11, -0.03, -0.06, 0.14, -0.22, 0.3, -0.37, 0.43], [0.47, -0.41, 0.35, -0.28, 0.2, -0.12, 0.03, 0.05], [0.6, -0.6, 0.58, -0.56, 0.52, -0.47, 0.42, -0.35], [0.43, -0.49, 0.53, -0.57, 0.59, -0.6, 0.6, -0.58], [0.05, -0.14, 0.22, -0.29, 0.37, -0.43, 0.48, -0.53], [-0.35, 0.28, -0.2, 0.12, -0.04, -0.05, 0.13, -0.21]]> : tensor<8x8xf32> {name = "w2", device = "/device:GPU:2"}
  %r2 = gplace.read %w2 {device = "/device:GPU:2"} : !gplace.resource<tensor<8x8xf32>>
  %m2 = gplace.matmul %h1, %r2 {device = "/device:GPU:2"} : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
  %h2 = gplace.tanh %m2 {device = "/device:GPU:2"} : tensor<16x8xf32>
  %w3 = gplace.variable dense<[[-0.6], [-0.49], [-0.14], [0.28], [0.56], [0.56], [0.29], [-0.13]]> : tensor<8x1xf32> {name = "w3", device = "/device:GPU:3"}
  %r3 = gplace.read %w3 {device = "/device:GPU:3"} : !gplace.resource<tensor<8x1xf32>>
  %m3 = gplace.matmul %h2, %r3 {device = "/device:GPU:3"} : (tensor<16x8xf32>, tensor<8x1xf32>) -> tensor<16x1xf32>
  %d = gplace.sub %m3, %y {device = "/device:GPU:3"} : (tensor<16x1xf32>, tensor<16x1xf32>) -> tensor<16x1xf32>
  %sq = gplace.square %d {device = "/device:GPU:3"} : tensor<16x1xf32>
  %loss = gplace.reduce_mean %sq axes = [0, 1] {device = "/device:GPU:3"} : tensor<16x1xf32> -> tensor<f32>
  %g0, %g1, %g2, %g3 = gplace.gradients %loss wrt %r0, %r1, %r2, %r3 : tensor<f32> wrt tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x1xf32>
  %lr = gplace.constant dense<0.5> : tensor<f32>
  %u0 = gplace.apply_gradient_descent %w0, %lr, %g0 : !gplace.resource<tensor<8x8xf32>>, tensor<f32>, tensor<8x8xf32>
  %u1 = gplace.apply_gradient_descent %w1, %lr, %g1 : !gplace.resource<tensor<8x8xf32>>, tensor<f32>, tensor<8x8xf32>
  %u2 = gplace.apply_gradient_descent %w2, %lr, %g2 : !gplace.resource<tensor<8x8xf32>>, tensor<f32>, tensor<8x8xf32>
  %u3 = gplace.apply_gradient_descent %w3, %lr, %g3 : !gplace.resource<tensor<8x1xf32>>, tensor<f32>, tensor<8x1xf32>
  %a0 = gplace.read %w0 after(%u0) : !gplace.resource<tensor<8x8xf32>>
  %a3 = gplace.read %w3 after(%u3) : !gplace.resource<tensor<8x1xf32>>
  return %loss, %a0, %a3 : tensor<f32>, tensor<8x8xf32>, tensor<8x1xf32>
}

func.func @wide(%x: tensor<512x64xf32>, %y: tensor<512x1xf32>) -> tensor<f32> {
  %w0 = gplace.variable dense<0.01> : tensor<64x64xf32> {name = "w0", device = "/device:GPU:0"}
  %r0 = gplace.read %w0 {device = "/device:GPU:0"} : !gplace.resource<tensor<64x64xf32>>
  %m0 = gplace.matmul %x, %r0 {device = "/device:GPU:0"} : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32>
  %h0 = gplace.tanh %m0 {device = "/device:GPU:0"} : tensor<512x64xf32>
  %w1 = gplace.variable dense<0.02> : tensor<64x64xf32> {name = "w1", device = "/device:GPU:1"}
  %r1 = gplace.read %w1 {device = "/device:GPU:1"} : !gplace.resource<tensor<64x64xf32>>
  %m1 = gplace.matmul %h0, %r1 {device = "/device:GPU:1"} : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32>
  %h1 = gplace.tanh %m1 {device = "/device:GPU:1"} : tensor<512x64xf32>
  %w2 = gplace.variable dense<0.03> : tensor<64x64xf32> {name = "w2", device = "/device:GPU:2"}
  %r2 = gplace.read %w2 {device = "/device:GPU:2"} : !gplace.resource<tensor<64x64xf32>>
  %m2 = gplace.matmul %h1, %r2 {device = "/device:GPU:2"} : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32>
  %h2 = gplace.tanh %m2 {device = "/device:GPU:2"} : tensor<512x64xf32>
  %w3 = gplace.variable dense<0.04> : tensor<64x1xf32> {name = "w3", device = "/device:GPU:3"}
  %r3 = gplace.read %w3 {device = "/device:GPU:3"} : !gplace.resource<tensor<64x1xf32>>
  %m3 = gplace.matmul %h2, %r3 {device = "/device:GPU:3"} : (tensor<512x64xf32>, tensor<64x1xf32>) -> tensor<512x1xf32>
  %d = gplace.sub %m3, %y {device = "/device:GPU:3"} : (tensor<512x1xf32>, tensor<512x1xf32>) -> tensor<512x1xf32>
  %sq = gplace.square %d {device = "/device:GPU:3"} : tensor<512x1xf32>
  %loss = gplace.reduce_mean %sq axes = [0, 1] {device = "/device:GPU:3"} : tensor<512x1xf32> -> tensor<f32>
  %g0, %g1, %g2, %g3 = gplace.gradients %loss wrt %r0, %r1, %r2, %r3 : tensor<f32> wrt tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x1xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u0 = gplace.apply_gradient_descent %w0, %lr, %g0 : !gplace.resource<tensor<64x64xf32>>, tensor<f32>, tensor<64x64xf32>
  %u1 = gplace.apply_gradient_descent %w1, %lr, %g1 : !gplace.resource<tensor<64x64xf32>>, tensor<f32>, tensor<64x64xf32>
  %u2 = gplace.apply_gradient_descent %w2, %lr, %g2 : !gplace.resource<tensor<64x64xf32>>, tensor<f32>, tensor<64x64xf32>
  %u3 = gplace.apply_gradient_descent %w3, %lr, %g3 : !gplace.resource<tensor<64x1xf32>>, tensor<f32>, tensor<64x1xf32>
  return %loss : tensor<f32>
}
