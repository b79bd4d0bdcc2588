#!/usr/bin/env node
// Runs ONNX models in ONNX Runtime (npm onnxruntime-node) on ONNX backend-test
// datasets (test_data_set_K/input_J.pb, output_J.pb) and compares with the
// expected outputs, for many models in one process.
//
// usage: node ort_datasets.js LIST
//   LIST has one test per line: NAME<TAB>TEST_DIR<TAB>MODEL[<TAB>MODEL...]
// For each model of each line it prints
//   NAME MODEL_INDEX pass|fail|error DETAIL
// (fail: an output differs by more than rtol 1e-3, atol 1e-5 after the
// backend tests' rule |a - e| <= atol + rtol * |e|; error: the runtime
// refused the model or its inputs). The runtime comes from $ONNXCC_ORT_DIR.
'use strict';
const fs = require('fs');
const path = require('path');

const ort = require(process.env.ONNXCC_ORT_DIR
  ? path.resolve(process.env.ONNXCC_ORT_DIR, 'node_modules', 'onnxruntime-node')
  : 'onnxruntime-node');

// --- A reader for the TensorProto fields the backend tests use. ---

function readVarint(buf, pos) {
  let result = 0n, shift = 0n;
  for (;;) {
    const b = buf[pos.i++];
    result |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) return result;
    shift += 7n;
  }
}

function signed64(v) { return BigInt.asIntN(64, v); }

// Calls fn(field, wireType, value) for every field of a message.
function forEachField(buf, fn) {
  const pos = {i: 0};
  while (pos.i < buf.length) {
    const key = Number(readVarint(buf, pos));
    const field = key >>> 3, wire = key & 7;
    if (wire === 0) fn(field, wire, readVarint(buf, pos));
    else if (wire === 1) { fn(field, wire, buf.subarray(pos.i, pos.i + 8)); pos.i += 8; }
    else if (wire === 5) { fn(field, wire, buf.subarray(pos.i, pos.i + 4)); pos.i += 4; }
    else if (wire === 2) {
      const len = Number(readVarint(buf, pos));
      fn(field, wire, buf.subarray(pos.i, pos.i + len));
      pos.i += len;
    } else throw new Error(`unsupported wire type ${wire}`);
  }
}

function packedVarints(bytes) {
  const out = [], pos = {i: 0};
  while (pos.i < bytes.length) out.push(readVarint(bytes, pos));
  return out;
}

// ONNX data type -> [ORT type name, typed array, bytes per element].
const TYPES = {
  1: ['float32', Float32Array, 4], 2: ['uint8', Uint8Array, 1], 3: ['int8', Int8Array, 1],
  4: ['uint16', Uint16Array, 2], 5: ['int16', Int16Array, 2], 6: ['int32', Int32Array, 4],
  7: ['int64', BigInt64Array, 8], 8: ['string', null, 0], 9: ['bool', Uint8Array, 1],
  10: ['float16', Uint16Array, 2], 11: ['float64', Float64Array, 8],
  12: ['uint32', Uint32Array, 4], 13: ['uint64', BigUint64Array, 8],
};

function readTensor(file) {
  const buf = fs.readFileSync(file);
  const dims = [], strings = [], varints = [], floats = [], doubles = [];
  let dataType = 0, raw = null;
  forEachField(buf, (field, wire, v) => {
    if (field === 1) { if (wire === 2) dims.push(...packedVarints(v).map(signed64)); else dims.push(signed64(v)); }
    else if (field === 2) dataType = Number(v);
    else if (field === 4) {
      if (wire === 2) for (let i = 0; i < v.length; i += 4) floats.push(v.readFloatLE(i));
      else floats.push(v.readFloatLE(0));
    } else if (field === 5 || field === 7 || field === 11) {
      if (wire === 2) varints.push(...packedVarints(v)); else varints.push(v);
    } else if (field === 6) strings.push(v.toString('utf8'));
    else if (field === 9) raw = v;
    else if (field === 10) {
      if (wire === 2) for (let i = 0; i < v.length; i += 8) doubles.push(v.readDoubleLE(i));
      else doubles.push(v.readDoubleLE(0));
    }
  });
  const t = TYPES[dataType];
  if (!t) throw new Error(`${path.basename(file)}: data type ${dataType} is not supported here`);
  const [name, Ctor, width] = t;
  const shape = dims.map(Number);
  const n = shape.reduce((a, b) => a * b, 1);
  if (name === 'string') return new ort.Tensor('string', strings, shape);
  let data;
  if (raw) {
    const copy = Buffer.from(raw); // aligned copy
    data = new Ctor(copy.buffer, copy.byteOffset, n);
  } else if (name === 'float32') data = Float32Array.from(floats);
  else if (name === 'float64') data = Float64Array.from(doubles);
  else if (name === 'int64') data = BigInt64Array.from(varints.map(signed64));
  else if (name === 'uint64') data = BigUint64Array.from(varints);
  else data = Ctor.from(varints.map((v) => (name === 'float16' || name.startsWith('uint') || name === 'bool') ? Number(v) : Number(BigInt.asIntN(32, v))));
  return new ort.Tensor(name, data, shape);
}

function halfToFloat(h) {
  const s = (h & 0x8000) ? -1 : 1, e = (h >> 10) & 0x1f, f = h & 0x3ff;
  if (e === 0) return s * f * Math.pow(2, -24);
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * Math.pow(2, e - 15);
}

function compare(actual, expected) {
  if (actual.dims.join('x') !== expected.dims.join('x'))
    return `shape [${actual.dims}] vs [${expected.dims}]`;
  const half = expected.type === 'float16';
  for (let i = 0; i < expected.data.length; ++i) {
    let a = actual.data[i], e = expected.data[i];
    if (expected.type === 'string') { if (a !== e) return `element ${i}: '${a}' vs '${e}'`; continue; }
    a = half ? halfToFloat(a) : Number(a); e = half ? halfToFloat(e) : Number(e);
    if (Number.isNaN(a) && Number.isNaN(e)) continue;
    if (a === e) continue;
    if (!(Math.abs(a - e) <= 1e-5 + 1e-3 * Math.abs(e))) return `element ${i}: ${a} vs ${e}`;
  }
  return null;
}

async function runOne(modelPath, testDir) {
  const session = await ort.InferenceSession.create(modelPath, {logSeverityLevel: 3});
  const sets = fs.readdirSync(testDir).filter((d) => d.startsWith('test_data_set_')).sort();
  for (const set of sets) {
    const dir = path.join(testDir, set);
    const feeds = {};
    session.inputNames.forEach((name, j) => {
      const file = path.join(dir, `input_${j}.pb`);
      if (fs.existsSync(file)) feeds[name] = readTensor(file);
    });
    const results = await session.run(feeds);
    for (let j = 0; j < session.outputNames.length; ++j) {
      const file = path.join(dir, `output_${j}.pb`);
      if (!fs.existsSync(file)) continue;
      const problem = compare(results[session.outputNames[j]], readTensor(file));
      if (problem) return ['fail', `${set} output ${j}: ${problem}`];
    }
  }
  return ['pass', ''];
}

async function main() {
  const lines = fs.readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean);
  for (const line of lines) {
    const [name, testDir, ...models] = line.split('\t');
    for (let k = 0; k < models.length; ++k) {
      let status, detail;
      try {
        [status, detail] = await runOne(models[k], testDir);
      } catch (e) {
        [status, detail] = ['error', String(e.message || e).split('\n')[0]];
      }
      console.log(`${name} ${k} ${status} ${detail}`);
    }
  }
}

// Also a module: test/difftest/ort_run.js reads its inputs with readTensor.
module.exports = {ort, TYPES, readTensor};

if (require.main === module)
  main().catch((e) => { console.error(`ort_datasets: ${e.message}`); process.exit(2); });
