#!/usr/bin/env node
// The ONNX Runtime side of bench/run.py: times one model in one process, the
// way the onnxcc harness (`onnxcc bench --keep DIR`, then DIR/run) times the
// compiled one.
//
// usage: node ort_bench.js MODEL [--threads N] [--iters N] [--warmup N]
//                          [--shape NAME=D0xD1...]... [--input FILE]...
//                          [--outputs DIR] [--seed S] [--optimization LEVEL]
//   --threads  intra-op threads (default 1); inter-op 1, sequential execution,
//              every graph optimization on (graphOptimizationLevel 'all')
//   --shape    dims of an input with symbolic dims (default: 1 for the first
//              dim, 64 for the others, as `onnxcc bench`)
//   --input    the raw bytes of each input, in the model's input order
//              (default: seeded random values: floats in [-1, 1], integers
//              0..9, bools)
//   --outputs  write output K of the last run to DIR/output_K.bin
//   --optimization  ONNX Runtime's graph optimization level: all (the
//              default) or disabled (test/models/quantize.py's references)
// Prints one key=value per line, like the onnxcc harness:
//   first_output_ms=T  process start (performance.timeOrigin) to the end of
//                      the first run: loading the runtime, creating the
//                      session and running once; printed when it happens
//   session_ms=T       of which creating the session
//   times_ms=T1,...    each timed run
//   peak_rss_kb=K      the process's peak RSS: VmHWM of /proc/self/status
//                      (process.resourceUsage().maxRSS where there is none;
//                      on Linux that can count the parent's memory)
// The runtime is found through $ONNXCC_ORT_DIR (a folder where
// `npm install onnxruntime-node` was run), else the usual module path.
'use strict';
const fs = require('fs');
const path = require('path');
const {performance} = require('perf_hooks');

function fail(message) {
  console.error(`ort_bench: ${message}`);
  process.exit(2);
}

function peakRssKb() {
  try {
    const match = /^VmHWM:\s*(\d+)/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]);
  } catch (e) { /* not Linux */ }
  return process.resourceUsage().maxRSS;
}

function parseArgs(argv) {
  const opts = {model: null, threads: 1, iters: 50, warmup: 5, shapes: {}, inputs: [],
                outputs: null, seed: 1, optimization: 'all'};
  const count = (flag, text) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 0) fail(`${flag} needs a non-negative integer, not '${text}'`);
    return n;
  };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) fail(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--threads') opts.threads = count(a, value());
    else if (a === '--iters') opts.iters = count(a, value());
    else if (a === '--warmup') opts.warmup = count(a, value());
    else if (a === '--seed') opts.seed = count(a, value());
    else if (a === '--input') opts.inputs.push(value());
    else if (a === '--outputs') opts.outputs = value();
    else if (a === '--optimization') {
      opts.optimization = value();
      if (!['all', 'disabled'].includes(opts.optimization))
        fail(`--optimization '${opts.optimization}' is not all or disabled`);
    }
    else if (a === '--shape') {
      const spec = value();
      const eq = spec.lastIndexOf('=');
      if (eq <= 0) fail(`--shape '${spec}' is not NAME=D0xD1x...`);
      opts.shapes[spec.slice(0, eq)] =
          spec.slice(eq + 1).split('x').map((d) => count('--shape', d));
    } else if (a.startsWith('--') || opts.model) fail(`unknown argument '${a}'`);
    else opts.model = a;
  }
  if (!opts.model) fail('usage: node ort_bench.js MODEL [--threads N] [--iters N] [--warmup N] ' +
                        '[--shape NAME=DIMS]... [--input FILE]... [--outputs DIR]');
  if (opts.iters < 1) fail('--iters must be at least 1');
  if (opts.threads < 1) fail('--threads must be at least 1');
  return opts;
}

// splitmix64, as the onnxcc harness (not the same draws: they do not need to
// be; parity runs pass --input to both).
function makeRandom(seed) {
  let s = BigInt.asUintN(64, BigInt(seed));
  const mask = (1n << 64n) - 1n;
  return () => {
    s = (s + 0x9e3779b97f4a7c15n) & mask;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & mask;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & mask;
    return z ^ (z >> 31n);
  };
}

const ARRAYS = {
  float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array,
  int16: Int16Array, uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array,
  int64: BigInt64Array, uint64: BigUint64Array, bool: Uint8Array,
};

function makeInput(ort, meta, index, opts, random) {
  const given = opts.shapes[meta.name];
  const shape = given ||
      meta.shape.map((d, k) => typeof d === 'number' && d >= 0 ? d : (k === 0 ? 1 : 64));
  const n = shape.reduce((a, b) => a * b, 1);
  const Array_ = ARRAYS[meta.type];
  if (!Array_) fail(`input '${meta.name}': dtype ${meta.type} is not supported here`);
  let data;
  if (opts.inputs.length) {
    const bytes = fs.readFileSync(opts.inputs[index]);
    if (bytes.length !== n * Array_.BYTES_PER_ELEMENT)
      fail(`${opts.inputs[index]}: input '${meta.name}' [${shape}] needs ` +
           `${n * Array_.BYTES_PER_ELEMENT} bytes, the file has ${bytes.length}`);
    data = new Array_(n);
    new Uint8Array(data.buffer).set(bytes);
  } else {
    data = new Array_(n);
    for (let i = 0; i < n; ++i) {
      const r = random();
      if (meta.type === 'float32' || meta.type === 'float64')
        data[i] = Number(r >> 40n) * (2 / 16777216) - 1;
      else if (meta.type === 'bool') data[i] = Number(r >> 63n);
      else if (Array_ === BigInt64Array || Array_ === BigUint64Array) data[i] = r % 10n;
      else data[i] = Number(r % 10n);
    }
  }
  return new ort.Tensor(meta.type, data, shape);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const dir = process.env.ONNXCC_ORT_DIR;
  const ort = require(dir ? path.resolve(dir, 'node_modules', 'onnxruntime-node')
                          : 'onnxruntime-node');
  const sessionStart = performance.now();
  const session = await ort.InferenceSession.create(opts.model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: opts.optimization,
    intraOpNumThreads: opts.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const sessionMs = performance.now() - sessionStart;
  if (opts.inputs.length && opts.inputs.length !== session.inputNames.length)
    fail(`${opts.inputs.length} --input files for ${session.inputNames.length} inputs`);
  const random = makeRandom(opts.seed);
  const feeds = {};
  session.inputMetadata.forEach((meta, k) => {
    feeds[meta.name] = makeInput(ort, meta, k, opts, random);
  });

  const times = [];
  let results;
  for (let r = 0; r < opts.warmup + opts.iters; ++r) {
    const start = process.hrtime.bigint();
    results = await session.run(feeds);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (r === 0) process.stdout.write(`first_output_ms=${performance.now().toFixed(6)}\n`);
    if (r >= opts.warmup) times.push(ms);
  }
  if (opts.outputs) {
    session.outputNames.forEach((name, k) => {
      const data = results[name].data;
      fs.writeFileSync(path.join(opts.outputs, `output_${k}.bin`),
                       Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    });
  }
  process.stdout.write(`session_ms=${sessionMs.toFixed(6)}\n` +
                       `times_ms=${times.map((t) => t.toFixed(6)).join(',')}\n` +
                       `peak_rss_kb=${peakRssKb()}\n`);
}

main().catch((e) => fail(e.message.split('\n')[0]));
