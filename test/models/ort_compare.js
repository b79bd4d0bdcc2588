#!/usr/bin/env node
// Runs two ONNX models in ONNX Runtime (npm onnxruntime-node) on the same
// seeded random inputs and compares their outputs: the check that a model
// written by `onnxcc optimize` computes what the original computes.
//
// usage: node ort_compare.js ORIGINAL.onnx OTHER.onnx [--dims NAME=N,...]
//                            [--int-max N] [--tol T] [--seed S]
//   --dims     values of symbolic dims (default 1 for every one)
//   --int-max  integer inputs are drawn from [0, N) (default 10)
//   --tol      largest allowed |a - b| / max(1, |a|) (default 1e-4)
// The runtime is found through $ONNXCC_ORT_DIR (a folder where
// `npm install onnxruntime-node` was run), else the usual module path.
// Prints one line per output and exits 1 when any differs by more than tol.
'use strict';
const path = require('path');

function loadOrt() {
  const dir = process.env.ONNXCC_ORT_DIR;
  return require(dir ? path.resolve(dir, 'node_modules', 'onnxruntime-node') : 'onnxruntime-node');
}

function parseArgs(argv) {
  const opts = {models: [], dims: {}, intMax: 10, tol: 1e-4, seed: 1};
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--dims') {
      for (const kv of argv[++i].split(',')) {
        const [k, v] = kv.split('=');
        opts.dims[k] = Number(v);
      }
    } else if (a === '--int-max') opts.intMax = Number(argv[++i]);
    else if (a === '--tol') opts.tol = Number(argv[++i]);
    else if (a === '--seed') opts.seed = Number(argv[++i]);
    else opts.models.push(a);
  }
  if (opts.models.length !== 2) {
    console.error('usage: node ort_compare.js ORIGINAL.onnx OTHER.onnx [--dims N=V,...] ' +
                  '[--int-max N] [--tol T] [--seed S]');
    process.exit(2);
  }
  return opts;
}

// A small deterministic generator (xorshift32), so runs are repeatable.
function makeRandom(seed) {
  let s = (seed >>> 0) || 1;
  return () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s / 4294967296;
  };
}

function makeInput(ort, meta, opts, rand) {
  const shape = meta.shape.map((d) => typeof d === 'number' ? d : (opts.dims[d] ?? 1));
  const n = shape.reduce((a, b) => a * b, 1);
  switch (meta.type) {
    case 'float32': return new ort.Tensor('float32', Float32Array.from({length: n}, () => rand() * 2 - 1), shape);
    case 'float64': return new ort.Tensor('float64', Float64Array.from({length: n}, () => rand() * 2 - 1), shape);
    case 'int64': return new ort.Tensor('int64', BigInt64Array.from({length: n}, () => BigInt(Math.floor(rand() * opts.intMax))), shape);
    case 'int32': return new ort.Tensor('int32', Int32Array.from({length: n}, () => Math.floor(rand() * opts.intMax)), shape);
    case 'bool': return new ort.Tensor('bool', Uint8Array.from({length: n}, () => (rand() < 0.5 ? 1 : 0)), shape);
    default: throw new Error(`input '${meta.name}': dtype ${meta.type} is not supported here`);
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const ort = loadOrt();
  const [a, b] = await Promise.all(opts.models.map((m) => ort.InferenceSession.create(m)));
  const rand = makeRandom(opts.seed);
  const feeds = {};
  for (const meta of a.inputMetadata) feeds[meta.name] = makeInput(ort, meta, opts, rand);
  const [ra, rb] = [await a.run(feeds), await b.run(feeds)];
  let ok = true;
  for (const name of a.outputNames) {
    const x = ra[name], y = rb[name];
    if (!y) { console.log(`${name}: missing from ${opts.models[1]}`); ok = false; continue; }
    if (x.dims.join('x') !== y.dims.join('x')) {
      console.log(`${name}: shape [${x.dims}] vs [${y.dims}]`); ok = false; continue;
    }
    let worst = 0;
    for (let i = 0; i < x.data.length; ++i) {
      const p = Number(x.data[i]), q = Number(y.data[i]);
      const d = (Number.isNaN(p) && Number.isNaN(q)) ? 0 : Math.abs(p - q) / Math.max(1, Math.abs(p));
      if (!(d <= worst)) worst = d;
    }
    const pass = worst <= opts.tol;
    ok = ok && pass;
    console.log(`${name}: [${x.dims}] max rel diff ${worst.toExponential(2)} ${pass ? 'ok' : 'FAIL'}`);
  }
  process.exit(ok ? 0 : 1);
}

main().catch((e) => { console.error(`ort_compare: ${e.message}`); process.exit(2); });
