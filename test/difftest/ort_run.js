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

// The runtime, the ONNX data types and the TensorProto reader are those of
// test/models/ort_datasets.js (the runtime from $ONNXCC_ORT_DIR there too).
const {ort, TYPES, readTensor} = require('../models/ort_datasets.js');
const ONNX_TYPE = Object.fromEntries(Object.entries(TYPES).map(([k, v]) => [v[0], Number(k)]));

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
  if (tensor.type === 'string') {
    // string_data (field 6), one UTF-8 entry per element.
    for (const s of data) {
      const bytes = Buffer.from(s, 'utf8');
      parts.push(Buffer.from([0x32]), varint(bytes.length), bytes);
    }
    fs.writeFileSync(file, Buffer.concat(parts));
    return;
  }
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
