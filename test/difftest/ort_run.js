#!/usr/bin/env node
// Runs many ONNX models in ONNX Runtime (npm onnxruntime-node, CPU, graph
// optimizations off) in one process, and writes what it computes as the
// expected outputs of an ONNX backend dataset: difftest's reference side.
//
// usage: node ort_run.js < REQUESTS
//   Each request line is MODEL<TAB>DATASET_DIR. The inputs are read from
//   DATASET_DIR/input_K.pb (TensorProto with raw_data, in the order of the
//   model's inputs); the outputs are written to DATASET_DIR/output_K.pb.
//   For each request one line is printed: `ok` or `error MESSAGE` (ORT
//   refused the model or its inputs).
// The runtime comes from $ONNXCC_ORT_DIR (a folder where `npm install
// onnxruntime-node` was run), else the usual module path.
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');

const ort = require(process.env.ONNXCC_ORT_DIR
  ? path.resolve(process.env.ONNXCC_ORT_DIR, 'node_modules', 'onnxruntime-node')
  : 'onnxruntime-node');

// ONNX data type <-> ORT type and typed array.
const TYPES = {
  1: ['float32', Float32Array], 2: ['uint8', Uint8Array], 3: ['int8', Int8Array],
  4: ['uint16', Uint16Array], 5: ['int16', Int16Array], 6: ['int32', Int32Array],
  7: ['int64', BigInt64Array], 9: ['bool', Uint8Array], 10: ['float16', Uint16Array],
  11: ['float64', Float64Array], 12: ['uint32', Uint32Array], 13: ['uint64', BigUint64Array],
};
const ONNX_TYPE = Object.fromEntries(Object.entries(TYPES).map(([k, v]) => [v[0], Number(k)]));

function readVarint(buf, pos) {
  let result = 0n, shift = 0n;
  for (;;) {
    const b = buf[pos.i++];
    result |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) return result;
    shift += 7n;
  }
}

// The TensorProto fields gen_graph.py writes: dims, data_type, raw_data.
function readTensor(file) {
  const buf = fs.readFileSync(file);
  const pos = {i: 0}, dims = [];
  let dataType = 0, raw = Buffer.alloc(0);
  while (pos.i < buf.length) {
    const key = Number(readVarint(buf, pos));
    const field = key >>> 3, wire = key & 7;
    if (wire === 0) {
      const v = readVarint(buf, pos);
      if (field === 1) dims.push(Number(BigInt.asIntN(64, v)));
      else if (field === 2) dataType = Number(v);
    } else if (wire === 2) {
      const len = Number(readVarint(buf, pos));
      const bytes = buf.subarray(pos.i, pos.i + len);
      pos.i += len;
      if (field === 1) {
        const p = {i: 0};
        while (p.i < bytes.length) dims.push(Number(BigInt.asIntN(64, readVarint(bytes, p))));
      } else if (field === 9) raw = bytes;
    } else if (wire === 1) pos.i += 8;
    else if (wire === 5) pos.i += 4;
    else throw new Error(`${path.basename(file)}: wire type ${wire}`);
  }
  const t = TYPES[dataType];
  if (!t) throw new Error(`${path.basename(file)}: data type ${dataType}`);
  const [name, Ctor] = t;
  const n = dims.reduce((a, b) => a * b, 1);
  const copy = Buffer.alloc(Math.max(raw.length, 8)); // aligned copy
  raw.copy(copy);
  const data = new Ctor(copy.buffer, copy.byteOffset, n);
  return new ort.Tensor(name, name === 'bool' ? Uint8Array.from(data).map((x) => x !== 0) : data, dims);
}

function varint(value) {
  let v = BigInt.asUintN(64, BigInt(value));
  const out = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return Buffer.from(out);
}

function writeTensor(file, tensor, name) {
  const type = ONNX_TYPE[tensor.type];
  if (!type) throw new Error(`output '${name}' has type ${tensor.type}`);
  const parts = [];
  for (const d of tensor.dims) parts.push(Buffer.from([0x08]), varint(d));
  parts.push(Buffer.from([0x10]), varint(type));
  const nameBytes = Buffer.from(name, 'utf8');
  parts.push(Buffer.from([0x42]), varint(nameBytes.length), nameBytes);
  let data = tensor.data;
  if (tensor.type === 'bool') data = Uint8Array.from(data, (x) => (x ? 1 : 0));
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  parts.push(Buffer.from([0x4a]), varint(bytes.length), bytes);
  fs.writeFileSync(file, Buffer.concat(parts));
}

async function runOne(model, dir) {
  const session = await ort.InferenceSession.create(model, {
    graphOptimizationLevel: 'disabled', executionProviders: ['cpu'], logSeverityLevel: 3,
    intraOpNumThreads: 1, interOpNumThreads: 1,
  });
  try {
    const feeds = {};
    session.inputNames.forEach((name, k) => { feeds[name] = readTensor(path.join(dir, `input_${k}.pb`)); });
    const results = await session.run(feeds);
    session.outputNames.forEach((name, k) => {
      writeTensor(path.join(dir, `output_${k}.pb`), results[name], name);
    });
  } finally {
    await session.release();
  }
}

async function main() {
  const rl = readline.createInterface({input: process.stdin, crlfDelay: Infinity});
  for await (const line of rl) {
    if (!line) continue;
    const [model, dir] = line.split('\t');
    let reply = 'ok';
    try {
      await runOne(model, dir);
    } catch (e) {
      reply = 'error ' + String(e.message || e).replace(/\s+/g, ' ').slice(0, 400);
    }
    process.stdout.write(reply + '\n');
  }
}

main().catch((e) => { console.error(`ort_run: ${e.message}`); process.exit(2); });
