// ONNX Runtime (CPU) as a server for benchmarks that time many models in one
// Node process (bench/onnx_suite.py), to save a process start per sample.
//
//   node ort_server.mjs
//
// Reads one JSON request a line on stdin and answers each with one JSON line
// on stdout, in order:
//
//   {"op": "check", "model": M, "inputs": [[NAME, NPY], ...],
//    "expected": [NPY, ...], "rtol": R, "atol": A}
//     Creates a session for M, runs it once on the inputs and compares
//     output i (in the model's order) with expected[i]: floats agree where
//     |actual - expected| <= atol + rtol * |expected| (NaN with NaN),
//     integers and booleans where equal. Answers {"ok": true|false,
//     "why": "..." (when not ok), "max_diff", "outputs"}. The session stays
//     open for the samples that follow.
//   {"op": "sample", "runs": K}
//     On the last checked model: a fresh session (its creation and one
//     untimed run not timed), then K session.run calls timed one by one;
//     answers {"ms_median", "ms_best", "ms_mean", "runs"} (per-run
//     milliseconds). A fresh session per sample, as gplace-run's sample is
//     a fresh process.
//   {"op": "info"}
//     Answers {"ort_version", "intra_op_threads", "node"}.
//
// An error answers {"error": "..."} and the server goes on. Inputs are .npy
// files (format 1.0-3.0, C order, little-endian) of dtype f2, f4, f8, i1,
// i2, i4, i8, u1, u2, u4, u8 or b1; strings are refused. Session options as
// run_model.mjs and ort.mjs: CPU execution provider, graph optimization
// "all", intraOpNumThreads = os.availableParallelism(), interOpNumThreads 1,
// sequential execution.
import fs from 'node:fs';
import os from 'node:os';
import readline from 'node:readline';
import ort from 'onnxruntime-node';

const intraOpThreads = os.availableParallelism();
const sessionOptions = {
  executionProviders: ['cpu'], graphOptimizationLevel: 'all',
  intraOpNumThreads: intraOpThreads, interOpNumThreads: 1,
  executionMode: 'sequential',
  logSeverityLevel: 3,  // errors only: old opsets warn on every session
};

// descr (without the byte order) -> [ORT type, typed array, bytes/element].
const DTYPES = {
  f2: ['float16', Uint16Array, 2], f4: ['float32', Float32Array, 4],
  f8: ['float64', Float64Array, 8], i1: ['int8', Int8Array, 1],
  i2: ['int16', Int16Array, 2], i4: ['int32', Int32Array, 4],
  i8: ['int64', BigInt64Array, 8], u1: ['uint8', Uint8Array, 1],
  u2: ['uint16', Uint16Array, 2], u4: ['uint32', Uint32Array, 4],
  u8: ['uint64', BigUint64Array, 8], b1: ['bool', Uint8Array, 1],
};

// {type, data, shape} of a .npy file, or an error naming the file.
function readNpy(file) {
  const bytes = fs.readFileSync(file);
  if (bytes.toString('latin1', 0, 6) !== '\x93NUMPY')
    throw new Error(`${file}: not a .npy file`);
  const major = bytes[6];
  const headerLength = major === 1 ? bytes.readUInt16LE(8)
                                   : bytes.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = bytes.toString('latin1', start, start + headerLength);
  const descr = /'descr':\s*'([<>|=])(\w+)'/.exec(header);
  if (!descr) throw new Error(`${file}: no descr in ${header}`);
  if (descr[1] === '>') throw new Error(`${file}: big-endian data`);
  if (/'fortran_order':\s*True/.test(header))
    throw new Error(`${file}: Fortran order`);
  const entry = DTYPES[descr[2]];
  if (!entry) throw new Error(`${file}: unsupported dtype ${descr[2]}`);
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)[1];
  const shape = shapeText.split(',').map((s) => s.trim()).filter((s) => s)
                    .map(Number);
  const [type, Array, size] = entry;
  const count = shape.reduce((a, b) => a * b, 1);
  const offset = start + headerLength;
  // A copy, so that the typed array is aligned.
  const buffer = bytes.buffer.slice(bytes.byteOffset + offset,
                                    bytes.byteOffset + offset + count * size);
  if (buffer.byteLength !== count * size)
    throw new Error(`${file}: truncated data`);
  return { type, data: new Array(buffer), shape };
}

// The float value of a float16 bit pattern.
function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

// [ok, why, max |difference|] of an output tensor against a .npy array.
function compare(tensor, expected, rtol, atol) {
  const dims = Array.from(tensor.dims);
  if (dims.length !== expected.shape.length ||
      dims.some((d, i) => d !== expected.shape[i]))
    return [false, `shape ${JSON.stringify(dims)}, expected ` +
                   `${JSON.stringify(expected.shape)}`, null];
  const floating = ['float16', 'float32', 'float64'].includes(expected.type);
  const value = (type, x) => (type === 'float16' ? halfToFloat(x) : Number(x));
  let maxDiff = 0;
  for (let i = 0; i < expected.data.length; ++i) {
    const a = value(tensor.type, tensor.data[i]);
    const e = value(expected.type, expected.data[i]);
    if (Number.isNaN(a) && Number.isNaN(e)) continue;
    const diff = a === e ? 0 : Math.abs(a - e);
    if (!(diff <= (floating ? atol + rtol * Math.abs(e) : 0)))
      return [false, `element ${i} is ${a}, expected ${e}`, diff];
    if (Number.isFinite(diff)) maxDiff = Math.max(maxDiff, diff);
  }
  return [true, null, maxDiff];
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]
                           : (sorted[mid - 1] + sorted[mid]) / 2;
}

let current = null;  // {model, feeds, session}

async function check(request) {
  if (current) await current.session.release();
  current = null;
  const feeds = {};
  for (const [name, file] of request.inputs) {
    const array = readNpy(file);
    feeds[name] = new ort.Tensor(array.type, array.data, array.shape);
  }
  const session = await ort.InferenceSession.create(request.model,
                                                    sessionOptions);
  current = { model: request.model, feeds, session };
  const results = await session.run(feeds);
  if (request.expected.length !== session.outputNames.length)
    return { ok: false, why: `${session.outputNames.length} outputs, ` +
                             `${request.expected.length} expected` };
  let maxDiff = 0;
  for (let i = 0; i < request.expected.length; ++i) {
    const [ok, why, diff] = compare(results[session.outputNames[i]],
                                    readNpy(request.expected[i]),
                                    request.rtol, request.atol);
    if (!ok) return { ok, why: `output ${i}: ${why}`, max_diff: diff };
    maxDiff = Math.max(maxDiff, diff);
  }
  return { ok: true, max_diff: maxDiff, outputs: session.outputNames.length };
}

async function sample(request) {
  if (!current) throw new Error('sample before a check');
  await current.session.release();
  current.session = await ort.InferenceSession.create(current.model,
                                                      sessionOptions);
  await current.session.run(current.feeds);
  const times = [];
  for (let i = 0; i < request.runs; ++i) {
    const start = process.hrtime.bigint();
    await current.session.run(current.feeds);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return { runs: request.runs, ms_median: median(times),
           ms_best: Math.min(...times),
           ms_mean: times.reduce((a, b) => a + b, 0) / times.length };
}

async function answer(line) {
  const request = JSON.parse(line);
  if (request.op === 'check') return check(request);
  if (request.op === 'sample') return sample(request);
  if (request.op === 'info') {
    const pkg = JSON.parse(fs.readFileSync(new URL(
        './node_modules/onnxruntime-node/package.json', import.meta.url)));
    return { ort_version: pkg.version, intra_op_threads: intraOpThreads,
             node: process.version };
  }
  throw new Error(`unknown op '${request.op}'`);
}

const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  let reply;
  try {
    reply = await answer(line);
  } catch (error) {
    reply = { error: String(error.message || error).split('\n')[0] };
  }
  process.stdout.write(JSON.stringify(reply) + '\n');
}
