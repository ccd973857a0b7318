//===- Passes.td - gplace graph passes ------------------------------------===//

#ifndef GPLACE_TRANSFORMS_PASSES
#define GPLACE_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def DifferentiatePass : Pass<"gplace-differentiate", "::mlir::ModuleOp"> {
  let summary = "Expands gplace.gradients into the backward graph";
  let dependentDialects = ["::gplace::graph::GraphDialect"];
  let description = [{
    Reverse-mode differentiation, as TensorFlow's `tf.gradients`: each
    `gplace.gradients %ys wrt %xs` is replaced by the ops computing the
    gradients of `sum(ys)` (or of `sum(ys * grad_ys)`) with respect to each
    x. The ops on a path from an x to a y are visited in reverse program
    order; each builds its operands' gradients from its results' through
    GradientOpInterface (the op's vector-Jacobian product), and the
    gradients a value receives from several users are summed with
    `gplace.add_n`. Ops with the NotDifferentiable trait stop the gradient;
    any other op without a gradient on the path is an error in TensorFlow's
    words (`No gradient defined for operation 'foo' (op type: Bar)`). An x
    no y depends on gets zeros.

    Each backward op is named `gradients/<forward op>_grad/<op type>` and
    carries `gplace.colocate_with = "<forward op>"`, so placement puts it
    on its forward op's device (TensorFlow's
    `colocate_gradients_with_ops=True`). Runs before placement; the
    pipelines and gplace-run run it first.

    ```mlir
    %y = gplace.matmul %x, %w : (tensor<2x3xf32>, tensor<3x1xf32>) -> tensor<2x1xf32>
    %loss = gplace.reduce_sum %y axes = [0, 1] : tensor<2x1xf32> -> tensor<f32>
    %gw = gplace.gradients %loss wrt %w : tensor<f32> wrt tensor<3x1xf32>
    // becomes, with %ones = 1.0 broadcast to y's shape:
    // %gw = gplace.matmul %x, %ones transpose_a {name = "gradients/MatMul_grad/MatMul", gplace.colocate_with = "MatMul"}
    ```
  }];
}

def LayoutPass : Pass<"gplace-layout", "::mlir::ModuleOp"> {
  let summary = "Runs NCHW window ops channels-last on the CPU, with "
                "transposes only at the layout's borders (Grappler's "
                "layout optimizer)";
  let dependentDialects = ["::gplace::graph::GraphDialect"];
  let description = [{
    TensorFlow's Grappler layout optimizer, for the CPU: each
    layout-sensitive op (`LayoutSensitiveOpInterface`: conv2d,
    fused_conv2d, depthwise_conv2d_native, max_pool, avg_pool,
    fused_batch_norm) with `data_format = "NCHW"` that can only run on a
    CPU of the module's `gplace.devices` (its `device` request matches CPUs
    alone, or it has none and the list has no GPU) runs NHWC, the layout
    oneDNN's CPU kernels run without reorders: a transpose to NHWC before
    each of its activations, its window attributes permuted, a transpose
    back after its result. Those transposes then move down through
    elementwise ops (an operand broadcast along channels, such as an
    imported convolution's `[C, 1, 1]` bias, is reshaped to `[1, 1, 1, C]`)
    and cancel in pairs, so a chain of such ops is transposed once on the
    way in and once on the way out; a transpose that moves only dimensions
    of size 1 becomes a reshape. Created ops are named as Grappler names
    them (`<op>-<i>-TransposeNCHWToNHWC-LayoutOptimizer` for its operand i,
    `<op>-<i>-TransposeNHWCToNCHW-LayoutOptimizer` for its result i) and
    request the
    op's device. Ops on GPUs keep their layout. `gplace-run
    --layout-optimizer=false` (pipeline option `layout-optimizer=false`)
    leaves the pass out.

    ```mlir
    %y = gplace.max_pool %x ksize = [1, 1, 2, 2] strides = [1, 1, 2, 2] padding = "VALID" {data_format = "NCHW"} : tensor<8x32x28x28xf32> -> tensor<8x32x14x14xf32>
    // becomes
    %t = gplace.transpose %x perm = [0, 2, 3, 1] {name = "MaxPool-0-TransposeNCHWToNHWC-LayoutOptimizer"} : tensor<8x32x28x28xf32> -> tensor<8x28x28x32xf32>
    %p = gplace.max_pool %t ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<8x28x28x32xf32> -> tensor<8x14x14x32xf32>
    %y = gplace.transpose %p perm = [0, 3, 1, 2] {name = "MaxPool-0-TransposeNHWCToNCHW-LayoutOptimizer"} : tensor<8x14x14x32xf32> -> tensor<8x32x14x14xf32>
    ```
  }];
}

def RemapPass : Pass<"gplace-remap", "::mlir::ModuleOp"> {
  let summary = "Fuses conv2d + bias_add, a bias add or an inference "
                "batch norm (+ relu) into fused_conv2d (Grappler's remapper)";
  let dependentDialects = ["::gplace::graph::GraphDialect"];
  let description = [{
    TensorFlow's Grappler remapper: a `gplace.conv2d` (NHWC) whose only use
    is a `gplace.bias_add`, whose only use (if any) is a `gplace.relu`,
    becomes one `gplace.fused_conv2d` with `fused_ops = ["BiasAdd"]` or
    `["BiasAdd", "Relu"]`, which the CPU runs as one oneDNN convolution with
    the bias and a ReLU post-op, without writing the intermediate tensors.
    An add of a `[C]` or `[1, 1, 1, C]` operand counts as a bias_add
    (Grappler's IsBiasSemanticAdd), and a `gplace.fused_batch_norm` in
    inference after the conv2d folds into its filter and a bias, computed
    by small ops on the batch norm's vectors. A matmul whose product an
    add adds to a tensor of its type becomes `gplace.matmul_accumulate`
    (GEMM with beta = 1 into that accumulator, at the matmul's place where
    the accumulator comes first): gradient accumulation's running sums.
    Ops fuse only when they request the same device, have the same assigned
    device and colocation, and the absorbed ops have no control
    dependencies. The fused op takes the last op's name; colocation
    constraints on the absorbed ops (their gradients') move to it, and the
    other ops keep their names. The patterns live with the ops
    (`graph::populateRemapperPatterns`). The fused convolutions have no
    gradient: the pipelines run the pass after `--gplace-differentiate` and before
    placement; `gplace-run --remapping=false` leaves it out.

    ```mlir
    %c = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "VALID" : tensor<8x28x28x1xf32>, tensor<5x5x1x32xf32> -> tensor<8x24x24x32xf32>
    %a = gplace.bias_add %c, %b : tensor<8x24x24x32xf32>, tensor<32xf32>
    %y = gplace.relu %a : tensor<8x24x24x32xf32>
    // becomes
    %y = gplace.fused_conv2d %x, %w, %b strides = [1, 1, 1, 1] padding = "VALID" fused_ops = ["BiasAdd", "Relu"] {name = "Relu"} : ...
    ```
  }];
}

def OutlineControlFlowPass
    : Pass<"gplace-outline-control-flow", "::mlir::ModuleOp"> {
  let summary = "Makes the regions of gplace.if and gplace.while functions";
  let dependentDialects = ["::gplace::graph::GraphDialect",
                           "::mlir::func::FuncDialect"];
  let description = [{
    TensorFlow's functional control flow: each region of a `gplace.if`
    (`then`, `else`) and of a `gplace.while` (`cond`, `body`) becomes a
    private function of the module, right after the function holding the
    op, named `@<function>/<op name>/<region>` (`@main/cond/then`), its
    arguments the region's and its results what the region yields; the op
    keeps its operands and names the functions (`then_branch`,
    `else_branch`; `cond`, `body`). Every later pass then places, lowers
    and plans each function as any other, so a region's ops are placed by
    the same rules and its memory is planned on its own. Nested control
    flow is outlined from the inside out. A region that declares a
    variable is refused (each run of a sub-plan would have its own copy).
    The pipelines run it first.
  }];
}

def DecomposePass : Pass<"gplace-decompose", "::mlir::ModuleOp"> {
  let summary = "Rewrites composite ops (elu, gemm, layer_norm, ...) into "
                "ops with kernels";
  let dependentDialects = ["::gplace::graph::GraphDialect"];
  let description = [{
    The composite graph ops (Graph_Composite: `gplace.elu`, `gplace.selu`,
    `gplace.hard_sigmoid`, `gplace.log_softmax`, `gplace.softmax_2d`,
    `gplace.log_softmax_2d`, `gplace.gemm`, `gplace.layer_norm`) have no
    kernels: each becomes the graph ops that
    compute it, with the patterns that live with the ops
    (`graph::populateDecompositionPatterns`, which the ONNX importer applies
    too). The new ops are named `<name>/<part>` after the composite, the
    last taking its name, and keep its device request and colocation.
    Unnamed composites get their default names first (as `--gplace-remap`
    pins them). The pipelines run it first, before differentiation, so the
    gradients are the parts'.

    ```mlir
    %y = gplace.log_softmax %x {name = "lsm"} : tensor<2x3xf32>
    // becomes
    %max = gplace.reduce_max %x axes = [1] keep_dims {name = "lsm/max"} : tensor<2x3xf32> -> tensor<2x1xf32>
    // ... sub, exp, reduce_sum, log, and
    %y = gplace.sub %shifted, %log {name = "lsm"} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def FoldConstantsPass : Pass<"gplace-fold-constants", "::mlir::ModuleOp"> {
  let summary = "Folds ops whose operands are constants into constants "
                "(Grappler's constant folding)";
  let dependentDialects = ["::gplace::graph::GraphDialect"];
  let description = [{
    TensorFlow's Grappler constant folding, with the folds the graph ops
    define (their `fold` hooks, lib/Dialect/Graph/GraphFolds.cpp): in
    program order, an op whose data operands are all `gplace.constant`s
    (or the results of ops folded before it) becomes one `gplace.constant`
    holding its result, named as the op was, so that the placement log and
    errors still say which op it was; a reshape, transpose, slice,
    broadcast or cast to its operand's own type forwards its operand.
    Constants the folded ops read and nothing else reads go too.

    Kept as they are: ops that request a device (`device = ...`: the user
    asked for the op to run there, and TensorFlow's placement log, printed
    before Grappler runs, shows it), ops with control dependencies in
    either direction, ops with side effects or resource operands (a read of
    a variable is never folded), placed ops, and results larger than
    Grappler's 10 MiB. The folds compute what the host kernel computes,
    bit for bit; functions the host evaluates with vectorized library
    calls (exp, log, tanh, sigmoid, pow) are not folded. A graph with
    nothing to fold is not touched. The pipelines run the pass after
    `--gplace-remap` (so a batch norm folded into a convolution leaves
    constants, not small ops that run every step) and before placement;
    `fold-constants=false` leaves it out.

    ```mlir
    %s = gplace.constant dense<[4, 3]> : tensor<2xi64>
    %i = gplace.constant dense<0> : tensor<1xi64>
    %b = gplace.gather %s[%i] axis = 0 {name = "Gather_4"} : (tensor<2xi64>, tensor<1xi64>) -> tensor<1xi64>
    // becomes
    %b = gplace.constant dense<4> : tensor<1xi64> {name = "Gather_4"}
    ```
  }];
}

def ReplicatePass : Pass<"gplace-replicate", "::mlir::ModuleOp"> {
  let summary = "Data parallelism: one tower per device, gradients averaged";
  let dependentDialects = ["::gplace::graph::GraphDialect"];
  let description = [{
    Turns a single-device training function (one with `gplace.gradients`)
    into `replicas` towers, as the seeds' hand-written multi-tower code and
    TensorFlow's MirroredStrategy do. Runs before --gplace-differentiate.

    - The batch arguments (every argument whose leading dimension equals
      the first argument's) are split along dimension 0 into `replicas`
      equal slices (`tower_<i>/split/...` on the host); a batch that does
      not divide is an error naming the argument.
    - Every op that depends on the batch, `gplace.gradients` included, is
      cloned once per replica, named `tower_<i>/<name>` and pinned to
      `/device:<device-type>:<i>`; a stateful op that depends on the batch
      is an error.
    - `variables=host` (seed 002's towers): the variables, their reads, the
      optimizer updates and everything else that does not depend on the
      batch stay once, on the host CPU; each gradient is the towers'
      gradients averaged there (`average_gradients/...`: add_n, then times
      1/replicas), so the update is the single-device one at the global
      batch.
    - Results that depend on the batch are combined on the host: a tensor
      whose leading dimension is the per-replica batch is concatenated
      (per-example results), any other float result is averaged (the
      loss).

    - `variables=mirrored` (the default; MirroredStrategy): the whole
      function is cloned per replica (replica 0 keeps the names, the
      others are `replica_<i>/...`), each replica with its own copy of
      every variable and optimizer slot under the variable's own name, so
      that a checkpoint or an --init function fills every copy; each
      gradient goes through a `gplace.all_reduce` (mean) over the replicas'
      devices (--gplace-lower-all-reduce makes it a ring); gradients of
      fewer than `bucket-bytes` bytes share one (flattened, concatenated,
      sliced back: Horovod's tensor fusion, DDP's buckets), and every
      replica applies the same update to its copy, so the copies stay
      identical.

    An op with an explicit device is an error: the pass places the towers
    itself.

    What is replicated, and how (TensorFlow's `strategy.run(fn)` and
    `strategy.reduce(op, value)`): `functions` names the functions to
    replicate (default: every function with a `gplace.gradients`);
    `batch-args` lists the argument numbers split along dimension 0
    (default: every argument whose leading dimension equals the first
    ranked argument's; an empty batch is allowed when mirrored: each replica
    then runs the whole function); `devices` lists the replicas' devices
    (e.g. `/gpu:2,/gpu:3`, the seeds' towers; `/gpu:*`, every GPU of the
    module's `gplace.devices`; default:
    `/device:<device-type>:0..replicas-1`); `reduce` is how a result that
    is not per example combines across replicas: `mean` (the default, a
    loss) or `sum` (the seeds' `tf.add_n` of the towers, `AddN` on the
    host).
  }];
  let options = [
    Option<"replicas", "replicas", "unsigned", /*default=*/"2",
           "The number of replicas (towers)">,
    Option<"deviceType", "device-type", "std::string", /*default=*/"\"GPU\"",
           "The type of the devices the towers run on (GPU or CPU)">,
    Option<"bucketBytes", "bucket-bytes", "int64_t", /*default=*/"262144",
           "Mirrored: gradients smaller than this many bytes share an "
           "all-reduce, up to this many bytes each (tensor fusion)">,
    Option<"variables", "variables", "std::string", /*default=*/"\"mirrored\"",
           "Where variables live: mirrored (a copy per replica, gradients "
           "all-reduced) or host (on the CPU, gradients averaged there)">,
    ListOption<"devices", "devices", "std::string",
               "The replicas' devices (sets the number of replicas)">,
    ListOption<"batchArgs", "batch-args", "unsigned",
               "The argument numbers split along the batch (default: those "
               "sharing the first argument's leading dimension)">,
    ListOption<"functions", "functions", "std::string",
               "The functions to replicate (default: those that train)">,
    Option<"reduce", "reduce", "std::string", /*default=*/"\"mean\"",
           "How results that are not per example combine: mean or sum">,
  ];
}

def AccumulateGradientsPass
    : Pass<"gplace-accumulate-gradients", "::mlir::ModuleOp"> {
  let summary = "Gradient accumulation: K micro-batches, one optimizer step";
  let dependentDialects = ["::gplace::graph::GraphDialect"];
  let description = [{
    Splits each training function's batch into `steps` micro-batches
    (`micro_batch_<i>/...`), runs the ops that depend on the batch once per
    micro-batch, one micro-batch after another (each slice of the batch
    waits for the previous micro-batch's gradients, so that one
    micro-batch's activations are live at a time), sums the gradients as
    they come (`accumulate_gradients/<k>/add`), divides the sums by `steps`
    and applies the optimizer once: the step on the whole batch, within
    floating-point reassociation, with about 1/steps of its activation
    memory (Horovod's backward_passes_per_step, PyTorch's accumulation
    loop). Runs before --gplace-differentiate, as --gplace-replicate does,
    and shares its rules: the batch arguments, a batch that must divide,
    results combined (concatenated per example, else averaged), a
    stateful op that depends on the batch is an error. Ops keep their
    device requests. The function needs exactly one `gplace.gradients`
    that depends on the batch.
  }];
  let options = [
    Option<"steps", "steps", "unsigned", /*default=*/"2",
           "The number of micro-batches per step (K)">,
    ListOption<"batchArgs", "batch-args", "unsigned",
               "The argument numbers split along the batch (default: those "
               "sharing the first argument's leading dimension)">,
    ListOption<"functions", "functions", "std::string",
               "The functions to accumulate (default: those that train)">,
  ];
}

def AutoMixedPrecisionPass
    : Pass<"gplace-auto-mixed-precision", "::mlir::ModuleOp"> {
  let summary = "Runs matmuls and convolutions in bf16 or f16, the rest in f32";
  let dependentDialects = ["::gplace::graph::GraphDialect"];
  let description = [{
    Automatic mixed precision, as TensorFlow Grappler's
    auto_mixed_precision: each op's list is its ODS trait
    (getMixedPrecisionList). Allow-listed ops (matmul, convolutions and
    their gradients) run in `type`; infer-listed ones (elementwise and
    shape ops) run in `type` when one of their float operands does, in
    program order; deny-listed ones (exp, log, softmax, reductions,
    losses, variable updates) and ops in no list stay in f32. A
    `gplace.cast` is inserted at each boundary, one per value and
    direction, named `<producer>-<result>-CastTo{Bf16,Fp16,Fp32}-AutoMixedPrecision`.
    Only f32 tensors change; variables, their reads and the optimizer's
    slots stay f32 (master weights: a cast of the read feeds the matmul),
    and so do the values `gplace.gradients` differentiates with respect to.
    An op runs in `type` only where every device type of the module's
    devices with an f32 kernel for it has a `type` kernel too (the kernel
    registry, as Grappler asks for an f16 kernel); an allow-listed op left
    in f32 for lack of one gets a remark. Runs before
    --gplace-differentiate, so that the backward graph follows the casts
    (the gradient of a cast is a cast back). With `loss-scale=dynamic`
    (f16's default), Keras's LossScaleOptimizer as graph ops: the loss's
    gradient starts at the scale (2^15), the gradients are divided by it,
    a step whose gradients are not all finite restores every variable the
    function writes after the gradients and halves the scale, 2000 finite
    steps in a row double it; the scale and the count are variables
    (`loss_scale/current_loss_scale`, `loss_scale/good_steps`).
  }];
  let options = [
    Option<"type", "type", "std::string", /*default=*/"\"bf16\"",
           "The 16-bit type: bf16 or f16">,
    Option<"lossScale", "loss-scale", "std::string", /*default=*/"",
           "dynamic (Keras's LossScaleOptimizer: the scale and its good "
           "steps are variables) or none; default: dynamic for f16, none "
           "for bf16">,
  ];
}

def RematerializePass : Pass<"gplace-rematerialize", "::mlir::ModuleOp"> {
  let summary = "Recomputes a scope's activations in the backward pass";
  let dependentDialects = ["::gplace::graph::GraphDialect"];
  let description = [{
    Rematerialization (gradient checkpointing) of named scopes, as
    TensorFlow's `tf.recompute_grad` and PyTorch's
    `torch.utils.checkpoint`: after --gplace-differentiate, every forward
    op whose name matches `scopes` (a regex over the whole name) and that
    is pure and reads no variable has the values the backward pass uses
    recomputed right before the first backward op that needs them, from
    the scope's inputs (values made outside the scope, the checkpoints),
    instead of being kept alive from the forward pass to the backward. The
    clones are named `<name>/recompute` and keep their ops' requests;
    program order is the streams' order, so the memory planner sees the
    shorter lives. Backward ops are those differentiation made (colocated
    with a forward op, or named `gradients/...`).

    With `auto=true`, on a placed graph (after --gplace-place): each
    device's peak is estimated by liveness in program order (its
    constants and variables, plus the tensors live at once); where it
    exceeds the device's memory limit, forward ops are added to the
    recomputed set one at a time, the one with the least recompute time
    (the cost model's) per byte of peak saved first, until the estimate
    fits or nothing more lowers it. The module's
    `gplace.rematerialized` attribute records, per device, what was
    recomputed and the estimated bytes saved, for the memory plan's
    table and its error.
  }];
  let options = [
    Option<"scopes", "scopes", "std::string", /*default=*/"",
           "The ops to recompute: a regular expression over whole op names "
           "(e.g. 'block[0-9]+/.*'); empty: none">,
    Option<"automatic", "auto", "bool", /*default=*/"false",
           "On a placed graph: where a device's estimated peak exceeds its "
           "memory limit, recompute the activations that cost the least "
           "recompute time per byte saved, until it fits">,
    Option<"profile", "profile", "std::string", /*default=*/"\"\"",
           "With auto: the cost model's rates (gplace-run --profile's "
           "file; empty: the defaults)">,
    Option<"print", "print", "bool", /*default=*/"false",
           "With auto: print what was recomputed, and why, on stderr">,
    Option<"reserve", "reserve", "int64_t", /*default=*/"0",
           "With auto: bytes to leave free under each memory limit besides "
           "the estimate (what it does not count: workspaces, packing)">,
    Option<"inPlace", "in-place", "bool", /*default=*/"false",
           "With auto: estimate as --gplace-plan-memory's in-place=true "
           "plans (an elementwise op's result in the memory of an operand "
           "that dies at it, an accumulating op's in its accumulator's)">,
  ];
}

def PipelineParallelPass
    : Pass<"gplace-pipeline-parallel", "::mlir::ModuleOp"> {
  let summary = "Pipeline parallelism: micro-batches flowing through stages";
  let dependentDialects = ["::gplace::graph::GraphDialect"];
  let description = [{
    Splits each training function's batch into `microbatches` (M)
    micro-batches as --gplace-accumulate-gradients does (the same slices,
    clones, running sums of the gradients and one optimizer update), but
    lets the micro-batches overlap: no micro-batch waits for the one before
    it, each forward clone is marked with its micro-batch
    (`gplace.micro_batch`), the sums of the gradients are colocated with
    the variables they update, and the function records the schedule
    (`gplace.pipeline = {microbatches, replicas, schedule, split, stages}`) for
    --gplace-schedule-pipeline, which orders each stage's ops after
    placement. Runs before --gplace-differentiate. The stages are the
    devices the forward ops are placed on (explicit requests,
    --gplace-assign-by-name scopes), in the order the forward pass reaches
    them. GPipe's and PipeDream-flush's (1F1B) schedules.
  }];
  let options = [
    Option<"microbatches", "microbatches", "unsigned", /*default=*/"4",
           "The number of micro-batches per step (M)">,
    Option<"schedule", "schedule", "std::string", /*default=*/"\"1f1b\"",
           "gpipe (all forwards, then all backwards) or 1f1b (one "
           "forward, one backward, at most K micro-batches live)">,
    Option<"stages", "stages", "unsigned", /*default=*/"0",
           "The number of stages (K): the placement must give K (0: any), "
           "or split=auto makes K">,
    Option<"split", "split", "std::string", /*default=*/"\"placement\"",
           "placement (the stages are the devices the forward ops are "
           "placed on) or auto (the cost model cuts the forward ops into "
           "`stages` balanced stages on the first GPUs, under their memory "
           "limits)">,
    Option<"profile", "profile", "std::string", /*default=*/"",
           "With split=auto: the cost model's rates (gplace-run --profile's "
           "file; empty: the defaults)">,
    Option<"printStages", "print-stages", "bool", /*default=*/"false",
           "With split=auto: print each stage's ops, predicted time and "
           "bytes on stderr">,
    Option<"replicas", "replicas", "unsigned", /*default=*/"1",
           "Data parallel x pipeline parallel: R pipelines, each on its own "
           "K devices (replica 0's are the stages' own; replica r's the "
           "next K of their type), each on its own slice of the batch in M "
           "micro-batches, the gradients of all R x M summed where each "
           "variable is (variables=shared) or each replica's summed on its "
           "own copies and all-reduced (variables=mirrored)">,
    Option<"variables", "variables", "std::string", /*default=*/"\"shared\"",
           "With replicas: shared (each variable once, on replica 0's "
           "stage; every replica reads it from there and sends it each "
           "micro-batch's gradients: the step --gplace-accumulate-gradients "
           "steps=RxM takes, to the bit) or mirrored (each replica's stage "
           "keeps its own copy of its variables, sums its own M "
           "micro-batches' gradients, and one gplace.all_reduce per "
           "variable across the R copies precedes each replica's update; "
           "Megatron-LM's and DeepSpeed's data x pipeline layout)">,
    Option<"bucketBytes", "bucket-bytes", "int64_t", /*default=*/"262144",
           "With variables=mirrored: the summed gradients of one stage "
           "smaller than B bytes share an all-reduce, as "
           "--gplace-replicate's bucket-bytes (0: none do; negative is an "
           "error)">,
    ListOption<"batchArgs", "batch-args", "unsigned",
               "The argument numbers split along the batch (default: those "
               "sharing the first argument's leading dimension)">,
    ListOption<"functions", "functions", "std::string",
               "The functions to pipeline (default: those that train)">,
  ];
}

def SchedulePipelinePass
    : Pass<"gplace-schedule-pipeline", "::mlir::ModuleOp"> {
  let summary = "Orders a pipelined function's ops by its schedule";
  let dependentDialects = ["::gplace::graph::GraphDialect"];
  let description = [{
    After placement, in each function that --gplace-pipeline-parallel
    marked: finds the stages (the devices of micro-batch 0's forward ops,
    in program order), gives each op its unit (stage, micro-batch, forward
    or backward) and reorders the function's ops so that each stage runs
    its units in the schedule's order: GPipe's F0..F(M-1), B0..B(M-1), or
    1F1B's K-1-s forwards, then one forward and one backward in turn, then
    the remaining backwards. Ops outside any unit (variables, the sums of
    the gradients, the optimizer) run as soon as their operands are ready.
    The plan's streams run in program order, so the order is the schedule
    the runtime follows and the memory planner plans for. Errors: a
    placement that gives a different number of stages than asked; a
    function that the schedule cannot order (a stage whose forward needs a
    later stage's). With `print=true`, prints each stage's device, its
    units in order and its ops per micro-batch on stderr.
  }];
  let options = [
    Option<"print", "print", "bool", /*default=*/"false",
           "Print each stage's device, units and ops on stderr">,
  ];
}

def LowerAllReducePass : Pass<"gplace-lower-all-reduce", "::mlir::ModuleOp"> {
  let summary = "Expands gplace.all_reduce into what the runtime runs";
  let dependentDialects = ["::gplace::graph::GraphDialect"];
  let description = [{
    With `algorithm=collective` (the default), each `gplace.all_reduce` of
    N tensors becomes N `gplace.collective_reduce` ops, member i pinned to
    the op's device i: TensorFlow's CollectiveReduceV2 per replica, which
    the runtime runs together (the members of this process add their
    inputs in member order, groups spanning tasks all-reduce the sum over
    MPI; docs/runtime.md, "Collectives"). The all-reduces of one list of
    devices share a `group_key`; each has its own `instance_key`, in
    program order. An all-reduce of one tensor is that tensor.

    With `algorithm=ring`, it becomes the ring all-reduce of Baidu's and
    Horovod's (NCCL's ring algorithm) in graph ops pinned to the op's
    devices, whose transfers --gplace-insert-copies makes: every tensor is
    flattened and cut into N chunks; in the reduce-scatter, chunk c starts
    on device c+1 and travels the ring, each device adding its own slice,
    so that after N-1 hops device c holds chunk c's sum (times 1/N for
    `mean`); in the all-gather, each reduced chunk travels the ring once
    more (an identity per hop), and each device concatenates the N chunks.
    Every device sends and receives 2(N-1)/N of the tensor, and every
    replica gets the same bits. A tensor of fewer than N elements is summed
    on the first device and sent to the others. Ops are named
    `<scope>/ring/...` after the op's `name`.

    Runs before placement (after --gplace-differentiate, whose gradients
    the op usually reduces).
  }];
  let options = [
    Option<"algorithm", "algorithm", "std::string", /*default=*/"\"collective\"",
           "collective (one collective_reduce per device, run together by "
           "the runtime) or ring (copies, slices and adds on the devices)">,
  ];
}

def VerifyDevicesPass : Pass<"gplace-verify-devices", "::mlir::ModuleOp"> {
  let summary = "Checks every device string of the graph";
  let description = [{
    Parses every op's `device` (a request, any TensorFlow spelling) and
    `assigned_device` (which must be a full name), and every function's
    `gplace.default_device`, with the device-name grammar of SPEC §1.1.
    Each bad string is reported at its op's location, naming the string and
    the offending part; the pass then fails. The IR is not changed.

    ```mlir
    %a = gplace.constant dense<1.0> : tensor<f32> {device = "/gpu:x"}
    // error: Malformed device specification '/gpu:x': device id 'x' is not a
    //        non-negative integer
    ```
  }];
}

def AssignByNamePass : Pass<"gplace-assign-by-name", "::mlir::ModuleOp"> {
  let summary = "Requests devices for ops by their names (tf.device scopes "
                "for graphs without them)";
  let description = [{
    The imported analogue of `with tf.device(...)` scopes: each rule
    `REGEX=DEVICE` of `rules=` gives the graph ops whose name (SPEC §2: the
    `name` attribute, else TensorFlow's default) matches REGEX as a whole
    the request `device = DEVICE`. The first matching rule wins; an op no
    rule matches, or one that has a `device` of its own (an inner scope),
    is left as it is. Placement then treats these requests as any other.

    ```mlir
    // gplace-opt --gplace-assign-by-name="rules=encoder/.*=/gpu:0,decoder/.*=/gpu:1"
    %e = gplace.relu %x {name = "encoder/Relu"} : tensor<4xf32>
    // becomes
    %e = gplace.relu %x {device = "/gpu:0", name = "encoder/Relu"} : tensor<4xf32>
    ```
  }];
  let options = [
    // A string, split here: MLIR 19's list options never return from a
    // value with an unbalanced parenthesis ("enc("), which a regex may have.
    Option<"rules", "rules", "std::string", /*default=*/"\"\"",
           "REGEX=DEVICE rules, comma-separated (commas inside (), [] or {} "
           "belong to the regex), first match wins "
           "(e.g. encoder/.*=/gpu:0,decoder/.*=/gpu:1)">,
  ];
}

def AssignDevicesPass : Pass<"gplace-assign-devices", "::mlir::ModuleOp"> {
  let summary = "Records the devices the module is compiled for";
  let dependentDialects = ["::gplace::graph::GraphDialect"];
  let description = [{
    Writes the module's `gplace.devices` attribute, the devices placement
    and the memory planner target (#gplace.device: full name, memory limit,
    description, GPU load). With `devices=` (e.g. `cpu:1,gpu:4`, or full
    names) it lists those devices, replacing any list already there;
    without, a list already in the module stays as it is, and a module
    without one gets this process's CPU alone. `gpu-memory-limit=MiB` sets
    the memory limit of every GPU of the list. gplace-run writes the list
    of the devices its runtime found (their limits, descriptions and, for
    the idle-gpu policy, loads), so that the IR it compiles, printed with
    `--mlir-print-ir-after-all`, compiles to the same plan in gplace-opt.

    ```mlir
    // gplace-opt --gplace-assign-devices="devices=cpu:1,gpu:1 gpu-memory-limit=1024"
    module attributes {gplace.devices = [
        #gplace.device<"/job:localhost/replica:0/task:0/device:GPU:0", memory_limit = 1073741824>,
        #gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">]} {
    }
    ```
  }];
  let options = [
    Option<"devices", "devices", "std::string", /*default=*/"\"\"",
           "The devices: TYPE:COUNT entries and full names, comma-separated "
           "(e.g. cpu:1,gpu:4); empty to keep the module's list">,
    Option<"gpuMemoryLimit", "gpu-memory-limit", "int64_t", /*default=*/"0",
           "Memory limit of each GPU in MiB (0: keep each GPU's)">,
  ];
}

def PlacePass : Pass<"gplace-place", "::mlir::ModuleOp"> {
  let summary = "Assigns every op of the graph a device";
  let dependentDialects = ["::gplace::graph::GraphDialect"];
  let description = [{
    TensorFlow's placer as a pass (SPEC §3). For each op, in order:

    1. colocation: a resource and every op that uses it (through identities)
       form a group placed on one device; conflicting requests in a group
       are an error naming both ops and both requests;
    2. the op's `device`, merged with the function's `gplace.default_device`
       (the inner request wins field by field);
    3. otherwise the placement policy's answer (`policy=` or the function's
       `gplace.device_policy`);
    4. otherwise TensorFlow's heuristics: an op with no data inputs and one
       result goes where its consumers go; identity and reshape go where
       their producer goes;
    5. otherwise the first device by priority: GPU before CPU, lowest id
       first.

    The device must match the request and have a kernel for the op and its
    element type (`gplace-opt --gplace-list-kernels`). When none does, the
    op is an error in TensorFlow's words or, with
    `allow-soft-placement=true`, moves to a device of the same task with a
    kernel (GPU before CPU). Each placed op gets `assigned_device`, the full
    canonical name; `device` stays as written.

    ```mlir
    // gplace-opt --gplace-place="devices=cpu:1,gpu:1"
    %c = gplace.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
    // becomes
    %c = gplace.matmul %a, %b {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"} : ...
    ```
  }];
  let options = [
    Option<"devices", "devices", "std::string", /*default=*/"\"\"",
           "The devices to place on: TYPE:COUNT entries and full names, "
           "comma-separated (e.g. cpu:1,gpu:4); empty for the module's "
           "gplace.devices (--gplace-assign-devices), else this process's "
           "CPU alone">,
    Option<"allowSoftPlacement", "allow-soft-placement", "bool",
           /*default=*/"false",
           "Move ops whose request cannot be satisfied to a device that can "
           "run them instead of failing (TensorFlow's allow_soft_placement)">,
    Option<"policy", "policy", "std::string", /*default=*/"\"\"",
           "Name of the placement policy for ops without a request (a "
           "function's gplace.device_policy overrides it); `auto` places "
           "them by the cost model under the devices' memory limits">,
    Option<"logDevicePlacement", "log-device-placement", "bool",
           /*default=*/"false",
           "Print the placement of every op on stderr, in TensorFlow's "
           "format (log_device_placement)">,
    Option<"profile", "profile", "std::string", /*default=*/"\"\"",
           "The cost model's device and link rates for policy=auto, as "
           "`gplace-run --profile` writes them (empty: the defaults)">,
  ];
}

def EstimatePass : Pass<"gplace-estimate", "::mlir::ModuleOp"> {
  let summary = "Prints the predicted step time and per-device peak memory "
                "of a placed graph";
  let description = [{
    For each function of a placed graph: the step time the cost model
    predicts (include/gplace/Transforms/CostModel.h), each device's busy
    time, and each device's peak memory as the static memory plan will
    find it (the pass lowers a copy of the module with
    --gplace-insert-copies, --gplace-insert-control-deps and
    --gplace-lower-to-plan and reads each gplan.device's peak_bytes), so
    that placements can be compared without running them. The module is
    not changed.
  }];
  let dependentDialects = ["::gplace::graph::GraphDialect",
                           "::gplace::plan::PlanDialect",
                           "::mlir::func::FuncDialect"];
  let options = [
    Option<"profile", "profile", "std::string", /*default=*/"\"\"",
           "The cost model's rates (gplace-run --profile; empty: the "
           "defaults)">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where the report goes: a file, or - for stderr">,
    Option<"trace", "trace", "std::string", /*default=*/"\"\"",
           "Also write the predicted timeline of each function's step to "
           "this file, in Chrome's trace event format (as gplace-run "
           "--trace writes the measured one); empty: none">,
  ];
}

def VerifyPlacementPass : Pass<"gplace-verify-placement", "::mlir::ModuleOp"> {
  let summary = "Checks that every op has a valid assigned device";
  let description = [{
    Ends the placement stage (as IREE's VerifyAffinities does): every graph
    op must have an `assigned_device` that is a full device name, whose
    device type has a kernel for the op and its element type, and every op
    that uses a resource must be on the resource's device. Later passes
    rely on these facts. The IR is not changed.
  }];
}

def PartitionTasksPass : Pass<"gplace-partition-tasks", "::mlir::ModuleOp"> {
  let summary = "Splits a placed graph by task: copies between tasks become "
                "send/recv pairs";
  let dependentDialects = ["::gplace::graph::GraphDialect"];
  let description = [{
    TensorFlow's graph partitioning for its distributed runtime: after
    --gplace-insert-copies and --gplace-insert-control-deps, every
    `gplace.copy` of a tensor whose source and destination are on
    different tasks (job, replica and task differ) becomes a
    `gplace.send` on the source task's CPU:0 and a `gplace.recv` on the
    destination task's CPU:0, with copies between a GPU and its task's
    CPU where needed (transfers go through host memory). The pair shares
    a tag (the transfers are numbered in program order, so every task,
    compiling the same graph, numbers them alike) and names the other
    end's MPI rank: `cluster` (TensorFlow's ClusterSpec, `worker:4` or
    `ps:1,worker:3`) gives the ranks in order, job by job. A result of the
    function on another task than the chief (the first job's task 0) is
    sent to the chief's CPU, which returns every result. Copies of the
    function's arguments are not transfers: every task has the inputs.
    A control dependency between tasks (a copied token) becomes the send
    of a one-element tensor after the token, made a token again on the
    other side (`gplace.group`), as TensorFlow sends a dummy tensor. A
    device on a task `cluster` does not have is an error.
  }];
  let options = [
    Option<"cluster", "cluster", "std::string", /*default=*/"",
           "The jobs and their task counts, in rank order (job:N,...)">,
  ];
}

def LocalizeTaskPass : Pass<"gplace-localize-task", "::mlir::ModuleOp"> {
  let summary = "Reads a cluster graph's requests for other tasks' devices "
                "as requests for this task's, one variable per name";
  let dependentDialects = ["::gplace::graph::GraphDialect"];
  let description = [{
    For a function that each task of a cluster runs on its own devices
    alone, as gplace-run's `--init` function (TensorFlow 1's initializer
    run on every worker): a `device` request or `gplace.default_device`
    that names another job or task than `job`/`task`
    (`/job:ps/task:0/cpu:0` on worker 1) loses its job, replica and task,
    so that it asks for this task's device (`/cpu:0`). Requests for this
    task and requests without a task are kept. Copies of one variable that
    the graph mirrored over several tasks then ask for one local device:
    the first variable of a name and type stands for the others (their
    uses are replaced and they are erased), as two variables of one name on
    one device are an error (--gplace-verify-placement).
  }];
  let options = [
    Option<"job", "job", "std::string", /*default=*/"",
           "This task's job (worker)">,
    Option<"task", "task", "int64_t", /*default=*/"0",
           "This task's number in its job">,
  ];
}

def InsertCopiesPass : Pass<"gplace-insert-copies", "::mlir::ModuleOp"> {
  let summary = "Inserts a gplace.copy on every data edge between devices";
  let dependentDialects = ["::gplace::graph::GraphDialect"];
  let description = [{
    After placement, every data edge whose producer and consumer are on
    different devices gets a `gplace.copy` from the producer's device to the
    consumer's (TensorFlow's _Send/_Recv). There is one copy per value and
    destination device, right after the producer, reused by every consumer
    on that device. Function arguments are fed from the host, the CPU of the
    local task (`/job:localhost/replica:0/task:0/device:CPU:0`). Resources
    are never copied: placement colocates their users.

    ```mlir
    %a = gplace.constant dense<1.0> : tensor<2xf32> {assigned_device = ".../device:CPU:0"}
    %b = gplace.exp %a {assigned_device = ".../device:GPU:0"} : tensor<2xf32>
    // becomes
    %a = gplace.constant ... {assigned_device = ".../device:CPU:0"}
    %0 = gplace.copy %a {assigned_device = ".../device:GPU:0", destination = ".../device:GPU:0", source = ".../device:CPU:0"} : tensor<2xf32>
    %b = gplace.exp %0 {assigned_device = ".../device:GPU:0"} : tensor<2xf32>
    ```
  }];
}

def EarlyUpdatesPass : Pass<"gplace-early-updates", "::mlir::ModuleOp"> {
  let summary = "Moves each variable's update up to when its inputs are ready";
  let dependentDialects = ["::gplace::graph::GraphDialect"];
  let description = [{
    Every op that writes a variable (an optimizer's update, an assign)
    moves up its function to just after the last op it must follow: the
    producers of its operands, the ops accessing the same variables (one of
    them writing), the users of values read from a variable it writes
    (through views, so that reads stay views), and ops with other memory
    effects. Operands made later by a variable's read or by an op without
    operands (a constant) move with it. So a weight is updated as soon as
    its gradient is complete, as PyTorch's per-parameter hooks do, and the
    gradient's buffer dies there rather than at the end of the backward
    pass. Results are the same bits: only the order changes.
  }];
}

def InsertControlDepsPass : Pass<"gplace-insert-control-deps",
                                 "::mlir::ModuleOp"> {
  let summary = "Orders stateful ops and makes cross-device ordering explicit";
  let dependentDialects = ["::gplace::graph::GraphDialect"];
  let description = [{
    1. Stateful ops on one resource keep program order (TensorFlow 2's
       automatic control dependencies): a read waits for the last assign
       before it, an assign for the last assign and every read since.
       Reads are turned into a token with a `gplace.group` for that.
    2. With `max-inflight-copies=N` (N > 0), the k-th tensor copy in program
       order waits for the (k-N)-th, so at most N transfers are in flight
       (the seeds' advice to run data-exchange-heavy ops in sequence).
    3. Every `after(...)` token produced on another device is replaced by a
       `gplace.copy` of the token to the op's device: explicit cross-device
       synchronisation.

    Dependencies already present (directly, or through a `gplace.group`)
    are not added again, so running the pass twice changes nothing.
  }];
  let options = [
    Option<"maxInflightCopies", "max-inflight-copies", "unsigned",
           /*default=*/"0",
           "At most this many tensor copies in flight at once (0: no limit)">,
  ];
}

#endif // GPLACE_TRANSFORMS_PASSES
