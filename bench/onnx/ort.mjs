// The ONNX Runtime side of gplace's benchmarks against peers (bench/peers.py).
//
//   node ort.mjs CASE DIR --runs K [--ops N] [--initializers] [--save F]
//   node ort.mjs threads
//
// Builds the same graph as the .mlir file bench/peers.py wrote for gplace-run
// as an ONNX model (onnx-proto), runs it with onnxruntime-node on the CPU on
// the inputs DIR/in0.npy, DIR/in1.npy, ..., checks the result against the
// one gplace-run wrote to DIR/out.npy, warms up, then takes one sample, as
// gplace-run's --print-timing gives one: the mean time of K session.run
// calls in a row. Prints one JSON line: {"case", "ms_per_run", "runs",
// "ms_best", "ms_median", "ms_p99", "ms_max" (of the K runs, each timed on its own),
// "warmup_runs", "intra_op_threads", "max_abs_diff", "max_abs_ref"}. Session
// creation, the check and the warm-up are not timed. bench/peers.py runs
// this once per sample, in turn with gplace-run.
//
// `threads` prints the intraOpNumThreads the sessions use.
//
// CASE is one of
//   chain   x[4] through N elementwise ops (Add, Mul, Sub, Max with a
//           constant of ones, in the order bench/runtime.py's chain uses);
//   mlp     x[B,K] through layers relu(h @ w_i + b_i), the weights and biases
//           the inputs after x (pairs); --initializers makes them constant
//           initializers instead, which lets ONNX Runtime pre-pack them;
//   matmul  a @ b;
//   cnn     the seeds' conv_net at inference (conv 5x5 + ReLU, max-pool 2x2,
//           conv 3x3 + ReLU, max-pool 2x2, dense + ReLU, dense): x[B,H,W,C]
//           and the HWIO filters, biases and dense weights gplace-run takes
//           (NHWC, as TensorFlow's Conv2D) are rearranged here, untimed, for
//           ONNX's NCHW Conv: x to NCHW, filters to OIHW, and the first dense
//           weight's rows to the order an NCHW Flatten gives, so that the
//           model is the one an exporter writes for an NCHW network, with no
//           Transpose node; --initializers as for mlp.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readNpy } from './npy.mjs';
import onnxProto from 'onnx-proto';
import ort from 'onnxruntime-node';

const { onnx } = onnxProto;
const FLOAT = onnx.TensorProto.DataType.FLOAT;

function usage(message) {
  process.stderr.write(`ort.mjs: ${message}\n` +
    'usage: node ort.mjs chain|mlp|matmul|cnn DIR --runs K [--ops N] ' +
    '[--initializers] [--save F]\n       node ort.mjs threads\n');
  process.exit(2);
}

function valueInfo(name, dims) {
  return onnx.ValueInfoProto.create({
    name,
    type: { tensorType: { elemType: FLOAT,
                          shape: { dim: dims.map((d) => ({ dimValue: d })) } } },
  });
}

function initializer(name, dims, data) {
  return onnx.TensorProto.create({
    name, dims, dataType: FLOAT,
    rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
  });
}

function node(opType, inputs, output, ints = {}) {
  const attribute = Object.entries(ints).map(([name, values]) =>
    onnx.AttributeProto.create({
      name, ints: values, type: onnx.AttributeProto.AttributeType.INTS }));
  return onnx.NodeProto.create({ opType, input: inputs, output: [output],
                                 name: output, attribute });
}

// The array's data with its axes permuted: result axis i is input axis
// perm[i].
function permute(array, perm) {
  const shape = perm.map((p) => array.shape[p]);
  const inStrides = [];
  for (let i = array.shape.length - 1, s = 1; i >= 0; s *= array.shape[i--])
    inStrides[i] = s;
  const data = new Float32Array(array.data.length);
  const index = new Array(shape.length).fill(0);
  for (let out = 0; out < data.length; ++out) {
    let offset = 0;
    for (let i = 0; i < shape.length; ++i) offset += index[i] * inStrides[perm[i]];
    data[out] = array.data[offset];
    for (let i = shape.length - 1; i >= 0 && ++index[i] === shape[i]; --i)
      index[i] = 0;
  }
  return { data, shape };
}

// The weights of a network's inputs: constant initializers with
// --initializers, graph inputs fed at each run otherwise.
function addParameters(named, options, inputs, initializers, feeds) {
  for (const [name, array] of named) {
    if (options.initializers) {
      initializers.push(initializer(name, array.shape, array.data));
    } else {
      inputs.push([name, array.shape]);
      feeds[name] = new ort.Tensor('float32', array.data, array.shape);
    }
  }
}

function encodeModel({ nodes, inputs, output, initializers = [] }) {
  const graph = onnx.GraphProto.create({
    name: 'gplace_bench', node: nodes,
    input: inputs.map(([name, dims]) => valueInfo(name, dims)),
    output: [valueInfo(output[0], output[1])],
    initializer: initializers,
  });
  return onnx.ModelProto.encode(onnx.ModelProto.create({
    irVersion: 8, producerName: 'gplace-bench',
    opsetImport: [{ domain: '', version: 17 }], graph,
  })).finish();
}

// Each builder returns the model and the feeds for session.run.
const builders = {
  chain(arrays, options) {
    const [x] = arrays;
    const ops = options.ops;
    if (!(ops > 0)) usage('chain needs --ops N');
    const kinds = ['Add', 'Mul', 'Sub', 'Max'];
    const nodes = [];
    for (let i = 1; i <= ops; ++i)
      nodes.push(node(kinds[i % 4], [i === 1 ? 'x' : `x${i - 1}`, 'c'],
                      `x${i}`));
    const ones = new Float32Array(x.shape.reduce((a, b) => a * b, 1)).fill(1);
    return {
      model: encodeModel({ nodes, inputs: [['x', x.shape]],
                           output: [`x${ops}`, x.shape],
                           initializers: [initializer('c', x.shape, ones)] }),
      feeds: { x: new ort.Tensor('float32', x.data, x.shape) },
    };
  },
  mlp(arrays, options) {
    const [x, ...params] = arrays;
    if (params.length === 0 || params.length % 2 !== 0)
      usage('mlp needs x and (weight, bias) pairs');
    const nodes = [], inputs = [['x', x.shape]], initializers = [];
    const feeds = { x: new ort.Tensor('float32', x.data, x.shape) };
    let h = 'x', width = x.shape[1];
    for (let i = 0; i < params.length / 2; ++i) {
      const [w, b] = [params[2 * i], params[2 * i + 1]];
      addParameters([[`w${i}`, w], [`b${i}`, b]], options, inputs,
                    initializers, feeds);
      nodes.push(node('MatMul', [h, `w${i}`], `m${i}`));
      nodes.push(node('Add', [`m${i}`, `b${i}`], `a${i}`));
      nodes.push(node('Relu', [`a${i}`], `h${i}`));
      h = `h${i}`;
      width = w.shape[1];
    }
    return {
      model: encodeModel({ nodes, inputs, output: [h, [x.shape[0], width]],
                           initializers }),
      feeds,
    };
  },
  cnn(arrays, options) {
    if (arrays.length !== 9)
      usage('cnn needs x and 4 (weight, bias) pairs');
    const [x, f1, b1, f2, b2, w3, b3, w4, b4] = arrays;
    const nchw = permute(x, [0, 3, 1, 2]);
    // Height and width after each VALID conv and 2x2 max-pool.
    let [h, w] = [x.shape[1], x.shape[2]];
    for (const f of [f1, f2])
      [h, w] = [Math.floor((h - f.shape[0] + 1) / 2),
                Math.floor((w - f.shape[1] + 1) / 2)];
    const c = f2.shape[3];
    // gplace-run flattens [h, w, c], ONNX's Flatten of NCHW [c, h, w].
    const dense = permute({ data: w3.data, shape: [h, w, c, w3.shape[1]] },
                          [2, 0, 1, 3]);
    const inputs = [['x', nchw.shape]], initializers = [];
    const feeds = { x: new ort.Tensor('float32', nchw.data, nchw.shape) };
    addParameters([['f1', permute(f1, [3, 2, 0, 1])], ['b1', b1],
                   ['f2', permute(f2, [3, 2, 0, 1])], ['b2', b2],
                   ['w3', { data: dense.data, shape: w3.shape }], ['b3', b3],
                   ['w4', w4], ['b4', b4]], options, inputs, initializers,
                  feeds);
    const pool = { kernel_shape: [2, 2], strides: [2, 2] };
    const nodes = [
      node('Conv', ['x', 'f1', 'b1'], 'c1',
           { kernel_shape: f1.shape.slice(0, 2) }),
      node('Relu', ['c1'], 'h1'),
      node('MaxPool', ['h1'], 'p1', pool),
      node('Conv', ['p1', 'f2', 'b2'], 'c2',
           { kernel_shape: f2.shape.slice(0, 2) }),
      node('Relu', ['c2'], 'h2'),
      node('MaxPool', ['h2'], 'p2', pool),
      node('Flatten', ['p2'], 'flat'),
      node('MatMul', ['flat', 'w3'], 'm3'),
      node('Add', ['m3', 'b3'], 'a3'),
      node('Relu', ['a3'], 'h3'),
      node('MatMul', ['h3', 'w4'], 'm4'),
      node('Add', ['m4', 'b4'], 'logits'),
    ];
    return {
      model: encodeModel({ nodes, inputs,
                           output: ['logits', [x.shape[0], w4.shape[1]]],
                           initializers }),
      feeds,
    };
  },
  matmul(arrays) {
    const [a, b] = arrays;
    return {
      model: encodeModel({ nodes: [node('MatMul', ['a', 'b'], 'c')],
                           inputs: [['a', a.shape], ['b', b.shape]],
                           output: ['c', [a.shape[0], b.shape[1]]] }),
      feeds: { a: new ort.Tensor('float32', a.data, a.shape),
               b: new ort.Tensor('float32', b.data, b.shape) },
    };
  },
};

function parseArgs(argv) {
  const [name, dir, ...rest] = argv;
  if (!builders[name]) usage(`unknown case '${name ?? ''}'`);
  if (!dir) usage('missing DIR');
  const options = { initializers: false };
  for (let i = 0; i < rest.length; ++i) {
    if (rest[i] === '--ops') options.ops = Number(rest[++i]);
    else if (rest[i] === '--runs') options.runs = Number(rest[++i]);
    else if (rest[i] === '--initializers') options.initializers = true;
    else if (rest[i] === '--save') options.save = rest[++i];
    else usage(`unknown option '${rest[i]}'`);
  }
  if (!(options.runs > 0)) usage('needs --runs K');
  return { name, dir, options };
}

// Both sides use every core: gplace-run's OpenBLAS does by default.
const intraOpThreads = os.availableParallelism();
const WARMUP_RUNS = 3;

async function main() {
  if (process.argv[2] === 'threads') {
    process.stdout.write(`${intraOpThreads}\n`);
    return;
  }
  const { name, dir, options } = parseArgs(process.argv.slice(2));
  const arrays = [];
  for (let i = 0; fs.existsSync(path.join(dir, `in${i}.npy`)); ++i)
    arrays.push(readNpy(path.join(dir, `in${i}.npy`)));
  const { model, feeds } = builders[name](arrays, options);
  // --save F: the model as ONNX Runtime runs it, for gplace-run to read
  // the same file; nothing is timed.
  if (options.save) {
    fs.writeFileSync(options.save, model);
    return;
  }
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'], graphOptimizationLevel: 'all',
    intraOpNumThreads: intraOpThreads, interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const outputName = session.outputNames[0];
  const run = async () => (await session.run(feeds))[outputName];

  // Check the numbers before timing them.
  const result = await run();
  const expected = readNpy(path.join(dir, 'out.npy'));
  if (result.data.length !== expected.data.length)
    throw new Error(`ONNX Runtime gave ${result.data.length} values, ` +
                    `gplace-run ${expected.data.length}`);
  let maxDiff = 0, maxRef = 0;
  for (let i = 0; i < result.data.length; ++i) {
    maxDiff = Math.max(maxDiff, Math.abs(result.data[i] - expected.data[i]));
    maxRef = Math.max(maxRef, Math.abs(result.data[i]));
  }

  // Warm up (after the checked run), then one sample: a batch of K runs.
  for (let i = 0; i < WARMUP_RUNS; ++i) await run();
  // Each run is timed too (for the median, p99 and max per run that
  // bench/contention.py reports beside gplace-run's --print-timing).
  const runs = options.runs;
  const perRun = new Float64Array(runs);
  const start = process.hrtime.bigint();
  for (let i = 0, last = start; i < runs; ++i) {
    await run();
    const now = process.hrtime.bigint();
    perRun[i] = Number(now - last) / 1e6;
    last = now;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const sorted = Array.from(perRun).sort((a, b) => a - b);
  const rank = (q) => sorted[Math.min(runs - 1, Math.ceil(q * runs) - 1)];
  process.stdout.write(JSON.stringify({
    case: name, ms_per_run: seconds / runs * 1e3, runs,
    ms_best: sorted[0], ms_median: rank(0.5), ms_p99: rank(0.99),
    ms_max: sorted[runs - 1],
    warmup_runs: 1 + WARMUP_RUNS, intra_op_threads: intraOpThreads,
    max_abs_diff: maxDiff, max_abs_ref: maxRef,
  }) + '\n');
}

main().catch((error) => {
  process.stderr.write(`ort.mjs: ${error.message}\n`);
  process.exit(1);
});
