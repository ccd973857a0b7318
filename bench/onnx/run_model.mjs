// Runs an ONNX file with ONNX Runtime (CPU) on .npy inputs: the reference
// side of gplace's ONNX importer tests and benchmarks.
//
//   node run_model.mjs MODEL.onnx OUT_PREFIX IN0.npy [IN1.npy ...] [--runs K]
//
// Feeds the float32 arrays IN0.npy, IN1.npy, ... to the model's inputs in
// their order, runs it once with onnxruntime-node's CPU execution provider
// and writes output i (in the model's order) to OUT_PREFIX<i>.npy (float32,
// C order, .npy format 1.0). The session is created from the file's path, so
// external data next to the model is found.
//
// With --runs K, that first run is the warm-up; then K session.run calls are
// timed one by one, and one JSON line is printed: {"model", "runs",
// "ms_median", "ms_best", "intra_op_threads"} (per-run milliseconds).
// Session creation, the warm-up and writing the outputs are not timed.
import fs from 'node:fs';
import os from 'node:os';
import { readNpy } from './npy.mjs';
import ort from 'onnxruntime-node';

function usage(message) {
  process.stderr.write(`run_model.mjs: ${message}\n` +
    'usage: node run_model.mjs MODEL.onnx OUT_PREFIX IN0.npy [IN1.npy ...] ' +
    '[--runs K]\n');
  process.exit(2);
}

// The .npy (format 1.0) bytes of a float32 array in C order: the magic, the
// version, the header's length (little-endian uint16) and the header, padded
// with spaces and ended by a newline so that the data starts at a multiple
// of 64 bytes, then the little-endian data.
function npyBytes(data, shape) {
  const dims = shape.map((d) => `${d}`);
  const tuple = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header =
    `{'descr': '<f4', 'fortran_order': False, 'shape': ${tuple}, }`;
  const preamble = 10;  // magic (6), version (2), header length (2)
  header += ' '.repeat(63 - (preamble + header.length) % 64) + '\n';
  if (header.length > 0xffff) throw new Error('npy header too long');
  const out = Buffer.alloc(preamble + header.length + data.length * 4);
  out.write('\x93NUMPY', 0, 'latin1');
  out.writeUInt8(1, 6);
  out.writeUInt8(0, 7);
  out.writeUInt16LE(header.length, 8);
  out.write(header, preamble, 'latin1');
  for (let i = 0; i < data.length; ++i)
    out.writeFloatLE(data[i], preamble + header.length + 4 * i);
  return out;
}

// Writes through FILE.tmp and a rename, so that no torn file is left.
function writeAtomically(file, bytes) {
  fs.writeFileSync(`${file}.tmp`, bytes);
  fs.renameSync(`${file}.tmp`, file);
}

function parseArgs(argv) {
  const positional = [];
  let runs;
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--runs') {
      runs = Number(argv[++i]);
      if (!Number.isInteger(runs) || runs <= 0)
        usage('--runs needs a positive integer');
    } else if (argv[i].startsWith('--')) {
      usage(`unknown option '${argv[i]}'`);
    } else {
      positional.push(argv[i]);
    }
  }
  const [model, outPrefix, ...inputs] = positional;
  if (!model) usage('missing MODEL.onnx');
  if (outPrefix === undefined) usage('missing OUT_PREFIX');
  return { model, outPrefix, inputs, runs };
}

// As bench/onnx/ort.mjs: every core.
const intraOpThreads = os.availableParallelism();

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]
                           : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main() {
  const { model, outPrefix, inputs, runs } = parseArgs(process.argv.slice(2));
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'], graphOptimizationLevel: 'all',
    intraOpNumThreads: intraOpThreads, interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  if (inputs.length !== session.inputNames.length)
    throw new Error(`${model} has ${session.inputNames.length} inputs ` +
                    `(${session.inputNames.join(', ')}), ` +
                    `got ${inputs.length} .npy files`);
  const feeds = {};
  session.inputNames.forEach((name, i) => {
    const array = readNpy(inputs[i]);
    feeds[name] = new ort.Tensor('float32', array.data, array.shape);
  });

  const results = await session.run(feeds);
  session.outputNames.forEach((name, i) => {
    const tensor = results[name];
    if (tensor.type !== 'float32')
      throw new Error(`output ${i} ('${name}') is ${tensor.type}, ` +
                      'not float32');
    writeAtomically(`${outPrefix}${i}.npy`, npyBytes(tensor.data, tensor.dims));
  });

  if (runs === undefined) return;
  const times = [];
  for (let i = 0; i < runs; ++i) {
    const start = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  process.stdout.write(JSON.stringify({
    model, runs, ms_median: median(times), ms_best: Math.min(...times),
    intra_op_threads: intraOpThreads,
  }) + '\n');
}

main().catch((error) => {
  process.stderr.write(`run_model.mjs: ${error.message}\n`);
  process.exit(1);
});
