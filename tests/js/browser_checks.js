// Browser side of tests/js/test_browser.py: imports the package by its name
// (the page's import map points it at package.json's `exports` entry) and
// exposes checks that the test calls through the DevTools protocol. Each
// returns JSON; expected bits come from the Python oracle (contract/bits.py,
// through test.json or the /data/ files the test writes).
import { getKernel, KernelError } from "lrelu-webgpu";

const ID = "webgpu-kernels/ai.onnx.LeakyRelu";
const kernels = new Map();
function kernel(variant = "auto") {
  if (!kernels.has(variant)) kernels.set(variant, getKernel(ID, { version: 1, variant }));
  return kernels.get(variant);
}

const isNaN32 = (b) => (b & 0x7fffffff) >>> 0 > 0x7f800000;
const isNaN16 = (b) => (b & 0x7fff) > 0x7c00;

function hexArray(strings, dtype) {
  const bits = strings.map((s) => parseInt(s, 16));
  return dtype === "float32" ? new Uint32Array(bits) : new Uint16Array(bits);
}

function f64FromHex(hex) {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt("0x" + hex));
  return view.getFloat64(0);
}

// A typed array the API takes, over a copy of the bits.
function asInput(bits, dtype, f16Kind) {
  if (dtype === "float32") return { data: new Float32Array(bits.slice().buffer), dtype: undefined };
  if (f16Kind === "Float16Array") return { data: new Float16Array(bits.slice().buffer), dtype: undefined };
  return { data: bits.slice(), dtype: "float16" };
}

function bitsOf(tensor) {
  const d = tensor.data;
  return tensor.dtype === "float32" ? new Uint32Array(d.buffer, d.byteOffset, d.length)
                                    : new Uint16Array(d.buffer, d.byteOffset, d.length);
}

// Compares got with expected; anynan(i) says where any NaN passes.
function compare(got, expected, anynan, dtype) {
  const nan = dtype === "float32" ? isNaN32 : isNaN16;
  let bad = 0;
  const first = [];
  if (got.length !== expected.length) return { bad: -1, first: [`length ${got.length} != ${expected.length}`] };
  for (let i = 0; i < got.length; i++) {
    if (got[i] !== expected[i] && !(anynan(i) && nan(got[i]))) {
      if (first.length < 5) first.push({ i, got: got[i].toString(16), expected: expected[i].toString(16) });
      bad++;
    }
  }
  return { bad, first };
}

async function runCase(k, c, f16Kind, variant) {
  const alpha = c.attributes.alpha === undefined ? undefined : f64FromHex(c.attributes.alpha.f64);
  const attributes = alpha === undefined ? {} : { alpha };
  const tensor = (name) => {
    const bits = hexArray(c.inputs[name], c.dtype);
    const { data, dtype } = asInput(bits, c.dtype, f16Kind);
    return { t: dtype ? { data, shape: c.shape, dtype } : { data, shape: c.shape }, bits };
  };
  let result;
  let inputs;
  try {
    if (c.op === "forward") {
      inputs = { x: tensor("x") };
      result = (await k({ x: inputs.x.t }, attributes, { variant })).y;
    } else {
      const source = c.attributes.grad_source;
      inputs = { dy: tensor("dy"), [source]: tensor(source) };
      result = (await k.backward({ dy: inputs.dy.t, [source]: inputs[source].t }, attributes, { variant })).dx;
    }
  } catch (e) {
    if (c.expected_error !== undefined && e instanceof KernelError && e.code === "INVALID_ALPHA") return null;
    return `threw ${e.code || e.name}: ${e.message}`;
  }
  if (c.expected_error !== undefined) return `expected error ${c.expected_error}, got a result`;
  // The input is never modified.
  for (const [name, input] of Object.entries(inputs)) {
    const now = bitsOf({ data: input.t.data, dtype: c.dtype });
    if (now.some((b, i) => b !== input.bits[i])) return `input ${name} was modified`;
  }
  const outName = c.op === "forward" ? "y" : "dx";
  if (JSON.stringify(result.shape) !== JSON.stringify(c.shape) || result.dtype !== c.dtype) {
    return `shape/dtype ${JSON.stringify(result.shape)} ${result.dtype}`;
  }
  if (c.dtype === "float16" && (f16Kind === "Float16Array") !== (result.data instanceof Float16Array)) {
    return `float16 output array type ${result.data.constructor.name}`;
  }
  const anynan = new Set((c.anynan && c.anynan[outName]) || []);
  const cmp = compare(bitsOf(result), hexArray(c.expected[outName], c.dtype), (i) => anynan.has(i), c.dtype);
  return cmp.bad === 0 ? null : `${cmp.bad} mismatches, first ${JSON.stringify(cmp.first)}`;
}

async function fetchBits(path, dtype) {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  const buffer = await response.arrayBuffer();
  if (dtype === "uint8") return new Uint8Array(buffer);
  return dtype === "float32" ? new Uint32Array(buffer) : new Uint16Array(buffer);
}

async function expectError(code, action) {
  try {
    await action();
  } catch (e) {
    return { expected: code, code: e.code || e.name, message: e.message, isKernelError: e instanceof KernelError };
  }
  return { expected: code, code: "no error", message: "" };
}

window.lreluChecks = {
  async adapter() {
    const k = await kernel();
    return { info: k.info, hasFloat16Array: typeof Float16Array === "function", userAgent: navigator.userAgent };
  },

  async sources() {
    const k = await kernel();
    const out = {};
    for (const dtype of k.info.dtypes) for (const variant of k.info.variants) out[`${dtype}/${variant}`] = k.source(dtype, variant);
    return out;
  },

  // Every float32 and float16 case of test.json, each with both variants
  // (and float16 as Uint16Array bits and as Float16Array).
  async testJson(url) {
    const doc = await (await fetch(url)).json();
    const k = await kernel();
    const failures = [];
    let runs = 0;
    const ran = new Set();
    for (const c of doc.cases) {
      if (c.dtype !== "float32" && c.dtype !== "float16") continue;
      const kinds = c.dtype === "float16" ? ["Uint16Array", "Float16Array"] : ["Float32Array"];
      for (const variant of k.info.variants) {
        for (const kind of kinds) {
          const problem = await runCase(k, c, kind, variant);
          runs++;
          if (problem !== null) failures.push(`${c.id} [${variant}, ${kind}]: ${problem}`);
        }
      }
      ran.add(c.id);
    }
    return { cases: ran.size, runs, failures: failures.slice(0, 20), failureCount: failures.length };
  },

  // spec: { dtype, op, variant, x, dy, alphas: [{alpha, expected, anynan}] }
  // with /data/ paths; alpha as f64 hex.
  async sweep(spec) {
    const k = await kernel();
    const x = await fetchBits(spec.x, spec.dtype);
    const dy = spec.dy ? await fetchBits(spec.dy, spec.dtype) : null;
    const kind = spec.f16Kind || "Uint16Array";
    const xIn = asInput(x, spec.dtype, kind);
    const dyIn = dy ? asInput(dy, spec.dtype, kind) : null;
    const tensor = (input) => (input.dtype ? { data: input.data, shape: [input.data.length], dtype: input.dtype }
                                            : { data: input.data, shape: [input.data.length] });
    const results = [];
    for (const a of spec.alphas) {
      const alpha = f64FromHex(a.alpha);
      const expected = await fetchBits(a.expected, spec.dtype);
      const anynan = await fetchBits(a.anynan, "uint8");
      const t0 = performance.now();
      const out = spec.op === "forward"
          ? (await k({ x: tensor(xIn) }, { alpha }, { variant: spec.variant })).y
          : (await k.backward({ dy: tensor(dyIn), x: tensor(xIn) }, { alpha }, { variant: spec.variant })).dx;
      const ms = performance.now() - t0;
      const cmp = compare(bitsOf(out), expected, (i) => anynan[i] !== 0, spec.dtype);
      results.push({ alpha: a.alpha, bad: cmp.bad, first: cmp.first, ms });
    }
    const unchanged = bitsOf(xIn.dtype === "float16" ? { data: xIn.data, dtype: "float16" }
                                                    : { data: xIn.data, dtype: spec.dtype }).every((b, i) => b === x[i]);
    return { n: x.length, results, inputUnchanged: unchanged };
  },

  // Small chunks: tensors of many chunks, odd float16 counts, both
  // variants; the bits go back to Python for the oracle.
  async chunked(xs) {
    const out = {};
    for (const variant of ["unary-vec4", "unary-scalar"]) {
      const k = await getKernel(ID, { version: 1, variant, chunkBytes: 48 });
      for (const [dtype, hex] of Object.entries(xs)) {
        const bits = hexArray(hex, dtype);
        const x = dtype === "float32" ? { data: new Float32Array(bits.buffer), shape: [bits.length] }
                                      : { data: bits, shape: [bits.length], dtype };
        const { y } = await k({ x }, { alpha: -1.5 });
        const { dx } = await k.backward({ dy: x, x }, { alpha: 0.2 });
        out[`${variant}/${dtype}`] = [Array.from(bitsOf(y)), Array.from(bitsOf(dx))];
      }
      k.destroy();
    }
    return out;
  },

  // Each error the API promises, with its code and message.
  async errors(base) {
    const k = await kernel();
    const f32 = new Float32Array([-1, 2]);
    const out = [];
    out.push(await expectError("UNKNOWN_KERNEL", () => getKernel("webgpu-kernels/ai.onnx.Nope", { version: 1 })));
    out.push(await expectError("UNKNOWN_VERSION", () => getKernel(ID, { version: 2 })));
    out.push(await expectError("INVALID_OPTION", () => getKernel(ID, {})));
    out.push(await expectError("UNKNOWN_VERSION", () => getKernel(ID, { sha256: "0".repeat(64) })));
    out.push(await expectError("INVALID_OPTION", () => getKernel(ID, { revision: "a".repeat(40) })));
    out.push(await expectError("DIGEST_MISMATCH", () => getKernel(ID, { version: 1, baseUrl: `${base}/tampered/v1/` })));
    out.push(await expectError("FETCH_FAILED", () => getKernel(ID, { version: 1, baseUrl: `${base}/missing/` })));
    out.push(await expectError("INVALID_OPTION", () => getKernel(ID, { version: 1, variant: "unary-vec8" })));
    out.push(await expectError("UNSUPPORTED_DTYPE", () => k({ x: { data: f32, shape: [2], dtype: "bfloat16" } })));
    out.push(await expectError("UNSUPPORTED_ARRAY", () => k({ x: { data: new Float64Array(2), shape: [2] } })));
    out.push(await expectError("UNSUPPORTED_ARRAY", () => k({ x: { data: [1, 2], shape: [2] } })));
    out.push(await expectError("UNSUPPORTED_ARRAY", () => k({ x: { data: new Uint16Array(2), shape: [2] } })));
    out.push(await expectError("UNSUPPORTED_ARRAY", () => k({ x: { data: f32, shape: [2], dtype: "float16" } })));
    out.push(await expectError("SHAPE_MISMATCH", () => k({ x: { data: f32, shape: [3] } })));
    out.push(await expectError("SHAPE_MISMATCH", () => k({ x: { data: f32, shape: [2, -1] } })));
    out.push(await expectError("SHAPE_MISMATCH", () => k.backward({ dy: { data: f32, shape: [2] }, x: { data: new Float32Array(3), shape: [3] } })));
    out.push(await expectError("INVALID_ALPHA", () => k.backward({ dy: { data: f32, shape: [2] }, y: { data: f32, shape: [2] } }, { alpha: -0.5 })));
    out.push(await expectError("INVALID_OPTION", () => k({ x: { data: f32, shape: [2] } }, { alpha: "0.2" })));
    out.push(await expectError("INVALID_OPTION", () => k({})));
    // No WebGPU: hide navigator.gpu for one call.
    Object.defineProperty(navigator, "gpu", { value: undefined, configurable: true });
    try {
      out.push(await expectError("NO_WEBGPU", () => getKernel(ID, { version: 1 })));
    } finally {
      delete navigator.gpu;
    }
    return out;
  },

  // Pins, base URLs, the caller's device, reuse, rank 0, empty, variants.
  async features(base, revision) {
    const k = await kernel();
    const report = {};
    const sha = k.info.manifestSha256;
    report.shaPin = (await getKernel("ai.onnx.LeakyRelu", { sha256: sha })).info.origin;
    report.revisionPin = (await getKernel(ID, { revision, baseUrl: `${base}/rev/{revision}/` })).info.origin;
    report.baseUrl = (await getKernel(ID, { version: 1, baseUrl: `${base}/pkg/v{version}` })).info.origin;

    // The caller's device: used as is, buffers and pipelines reused.
    const adapter = await navigator.gpu.requestAdapter();
    const device = await adapter.requestDevice();
    let buffersMade = 0;
    let pipelinesMade = 0;
    const createBuffer = device.createBuffer.bind(device);
    device.createBuffer = (d) => { buffersMade++; return createBuffer(d); };
    const createPipeline = device.createComputePipelineAsync.bind(device);
    device.createComputePipelineAsync = (d) => { pipelinesMade++; return createPipeline(d); };
    const mine = await getKernel(ID, { version: 1, device });
    report.ownDevice = mine.device === device;
    const x = new Float32Array([-3, 5, -0.0, 7]);
    const first = await mine({ x: { data: x, shape: [2, 2] } }, { alpha: 0.5 });
    const counts = [buffersMade, pipelinesMade];
    const second = await mine({ x: { data: x, shape: [4] } }, { alpha: 0.25 });
    report.reuse = { afterFirst: counts, afterSecond: [buffersMade, pipelinesMade] };
    report.values = [Array.from(first.y.data), first.y.shape, Array.from(second.y.data)];
    // Concurrent calls share the buffers one after another.
    const many = await Promise.all([1, 2, 3, 4].map((a) => mine({ x: { data: x, shape: [4] } }, { alpha: a })));
    report.concurrent = many.map((r) => Array.from(r.y.data));

    const scalar = await k({ x: { data: new Float32Array([-4]), shape: [] } });
    report.rank0 = { data: Array.from(scalar.y.data), shape: scalar.y.shape };
    const empty = await k({ x: { data: new Float32Array(0), shape: [3, 0] } });
    report.empty = { length: empty.y.data.length, shape: empty.y.shape, type: empty.y.data.constructor.name };
    const f16 = await k({ x: { data: new Float16Array([-2, 3]), shape: [2] } });
    report.float16Array = { type: f16.y.data.constructor.name, data: Array.from(f16.y.data), dtype: f16.y.dtype };
    const bits = await k({ x: { data: new Uint16Array([0xc000, 0x4200]), shape: [2], dtype: "float16" } });
    report.float16Bits = { type: bits.y.data.constructor.name, data: Array.from(bits.y.data), dtype: bits.y.dtype };
    const scalarVariant = await getKernel(ID, { version: 1, variant: "unary-scalar" });
    report.variants = {
      default: k.info.variant,
      chosen: scalarVariant.info.variant,
      perCall: (await k({ x: { data: x, shape: [4] } }, {}, { variant: "unary-scalar" })).variant,
      used: (await scalarVariant({ x: { data: x, shape: [4] } })).variant,
    };
    mine.destroy();
    return report;
  },
};
window.lreluReady = true;
