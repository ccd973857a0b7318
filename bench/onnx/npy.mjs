// The .npy reading the ONNX Runtime scripts share (ort.mjs, run_model.mjs).
import fs from 'node:fs';
import { parse } from 'npyjs';

// `file` as npyjs parses it; float32 data in C order, else an error.
export function readNpy(file) {
  const bytes = fs.readFileSync(file);
  const array = parse(bytes.buffer.slice(bytes.byteOffset,
                                         bytes.byteOffset + bytes.byteLength));
  if (!(array.data instanceof Float32Array))
    throw new Error(`${file}: expected float32 data, got ${array.dtype}`);
  if (array.fortranOrder)
    throw new Error(`${file}: expected C order, got Fortran order`);
  return array;
}
