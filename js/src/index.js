// lrelu-webgpu: LeakyReLU (ai.onnx.LeakyRelu, contract v1) as a WebGPU
// kernel package. getKernel loads the contract package (bundled, or from a
// base URL), checks every file's sha256 against metadata.json, renders the
// package's WGSL templates and returns a callable kernel:
//
//   const kernel = await getKernel("webgpu-kernels/ai.onnx.LeakyRelu", { version: 1 });
//   const { y } = await kernel({ x: { data: xData, shape: [5] } });
//
// y = x < 0 ? alpha * x : x, bit for bit as contract v1 states (alpha rounded
// to float32 once, one correctly rounded multiply, subnormals kept, every NaN
// and +-0 and +inf passed through), on every WebGPU implementation: the
// WGSL uses integer code wherever WGSL allows an implementation to flush
// subnormals or to ignore inf/NaN.
import { KernelError, ERROR_CODES, fail } from "./errors.js";
import { loadPackage, normaliseId } from "./package.js";
import { PRELU_VARIANTS, runPrelu } from "./prelu.js";
import { Runner } from "./runner.js";
import { alphaBits, checkTensor, makeTensor } from "./tensor.js";

export { KernelError, ERROR_CODES };

async function acquireDevice(options) {
  if (options.device !== undefined) {
    const d = options.device;
    if (d === null || typeof d !== "object" || typeof d.createBuffer !== "function") {
      fail("INVALID_OPTION", "options.device must be a GPUDevice");
    }
    return { device: d, adapterInfo: d.adapterInfo || null };
  }
  const gpu = globalThis.navigator && globalThis.navigator.gpu;
  if (!gpu) {
    fail("NO_WEBGPU", "WebGPU is not available here (navigator.gpu is missing): it needs a browser " +
         "with WebGPU enabled and a secure context (https:, or http://localhost / 127.0.0.1)");
  }
  const adapter = await gpu.requestAdapter(options.powerPreference ? { powerPreference: options.powerPreference } : undefined);
  if (!adapter) {
    fail("NO_WEBGPU", "WebGPU is available but navigator.gpu.requestAdapter() found no adapter");
  }
  let device;
  try {
    device = await adapter.requestDevice();
  } catch (e) {
    fail("NO_WEBGPU", `the WebGPU adapter gave no device: ${e.message}`);
  }
  return { device, adapterInfo: adapter.info || null, owned: true };
}

function plainInfo(info) {
  if (!info) return null;
  const out = {};
  for (const key of ["vendor", "architecture", "device", "description"]) out[key] = info[key] || "";
  return out;
}

/**
 * Loads a kernel. See index.d.ts for the options.
 * @param {string} id "ai.onnx.LeakyRelu" or "webgpu-kernels/ai.onnx.LeakyRelu"
 * @param {object} options
 */
export async function getKernel(id, options = {}) {
  if (options === null || typeof options !== "object") {
    fail("INVALID_OPTION", "getKernel(id, options): options must be an object such as { version: 1 }");
  }
  const kernelId = normaliseId(id);
  const pkg = await loadPackage(kernelId, options);
  const webgpu = pkg.metadata.webgpu;
  const variants = webgpu.variants.map((v) => v.name);
  const defaultVariant = resolveVariant(options.variant, variants);
  const workgroupSize = options.workgroupSize === undefined ? webgpu.workgroup_size.default : options.workgroupSize;
  if (!Number.isInteger(workgroupSize) || workgroupSize < 1 || workgroupSize > webgpu.workgroup_size.max) {
    fail("INVALID_OPTION", `workgroupSize must be an integer in 1..${webgpu.workgroup_size.max}, not ${workgroupSize}`);
  }
  const chunkBytes = options.chunkBytes === undefined ? 64 << 20 : options.chunkBytes;
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes < 16 || chunkBytes % 16 !== 0) {
    fail("INVALID_OPTION", `chunkBytes must be a positive multiple of 16, not ${chunkBytes}`);
  }
  const { device, adapterInfo, owned } = await acquireDevice(options);
  const runner = new Runner(device, pkg, workgroupSize, chunkBytes);
  const alphaSpec = pkg.manifest.attributes.find((a) => a.name === "alpha");
  const dtypes = webgpu.dtypes.filter((d) => pkg.manifest.type_constraints[0].allowed.includes(d));

  function alphaOf(attributes) {
    if (attributes === null || typeof attributes !== "object") {
      fail("INVALID_OPTION", "attributes must be an object such as { alpha: 0.2 }");
    }
    const alpha = attributes.alpha === undefined ? alphaSpec.default : attributes.alpha;
    if (typeof alpha !== "number") {
      fail("INVALID_OPTION", `alpha must be a number, not ${typeof alpha}`);
    }
    return alpha;
  }

  /** y = x < 0 ? alpha * x : x. */
  async function kernel(inputs, attributes = {}, callOptions = {}) {
    if (inputs === null || typeof inputs !== "object") {
      fail("INVALID_OPTION", "kernel(inputs): pass { x: { data, shape } }");
    }
    const x = checkTensor("x", inputs.x, dtypes);
    const alpha = alphaOf(attributes);
    const variant = resolveVariant(callOptions.variant, variants, defaultVariant);
    const out = await runner.run("forward", x.dtype, variant, x.bytes, null, x.count, alphaBits(alpha));
    return { y: makeTensor(x, out), variant };
  }

  /**
   * dx = s < 0 ? alpha * dy : dy, s = x, or y (then alpha must be > 0).
   */
  kernel.backward = async function backward(inputs, attributes = {}, callOptions = {}) {
    if (inputs === null || typeof inputs !== "object") {
      fail("INVALID_OPTION", "kernel.backward(inputs): pass { dy, x } or { dy, y }");
    }
    const fromY = inputs.x === undefined && inputs.y !== undefined;
    if ((inputs.x === undefined) === (inputs.y === undefined)) {
      fail("INVALID_OPTION", "kernel.backward(inputs): pass exactly one of x and y next to dy");
    }
    const dy = checkTensor("dy", inputs.dy, dtypes);
    const s = checkTensor(fromY ? "y" : "x", fromY ? inputs.y : inputs.x, dtypes);
    if (s.dtype !== dy.dtype || s.shape.length !== dy.shape.length || s.shape.some((d, i) => d !== dy.shape[i])) {
      fail("SHAPE_MISMATCH", `dy is ${dy.dtype} [${dy.shape}] but ${fromY ? "y" : "x"} is ${s.dtype} [${s.shape}]`);
    }
    const alpha = alphaOf(attributes);
    if (fromY && !(alpha > 0)) {
      fail("INVALID_ALPHA", `the gradient from y needs alpha > 0 (y < 0 exactly when x < 0), not ${alpha}; pass x`);
    }
    const variant = resolveVariant(callOptions.variant, variants, defaultVariant);
    const out = await runner.run("backward", dy.dtype, variant, dy.bytes, s.bytes, dy.count, alphaBits(alpha));
    return { dx: makeTensor(dy, out), variant };
  };

  /**
   * PReLU forward (contract ai.onnx.PRelu v1): y = x < 0 ? alpha * x : x,
   * alpha a tensor of x's dtype broadcast to x (ONNX unidirectional).
   * callOptions.variant: "prelu-vec4" (four elements an invocation, the
   * default) or "prelu" (one u32 word); the same bits.
   */
  kernel.prelu = async function prelu(inputs, callOptions = {}) {
    if (inputs === null || typeof inputs !== "object") {
      fail("INVALID_OPTION", "kernel.prelu(inputs): pass { x, alpha }");
    }
    const x = checkTensor("x", inputs.x, dtypes);
    const alpha = checkTensor("alpha", inputs.alpha, dtypes);
    const variant = resolveVariant(callOptions.variant, PRELU_VARIANTS);
    const out = await runner.serialise(() => runPrelu(runner, pkg, x, alpha, variant));
    return { y: makeTensor(x, out), variant };
  };

  /** The WGSL this kernel runs for a dtype and variant. */
  kernel.source = (dtype, variant = defaultVariant) => runner.source(dtype, variant).source;
  kernel.info = Object.freeze({
    id: kernelId,
    version: pkg.metadata.contract_version,
    manifestSha256: pkg.metadata.files["manifest.json"].sha256,
    origin: pkg.origin,
    dtypes: Object.freeze(dtypes.slice()),
    variants: Object.freeze(variants.slice()),
    variant: defaultVariant,
    workgroupSize,
    adapter: plainInfo(adapterInfo),
  });
  kernel.device = device;
  kernel.metadata = pkg.metadata;
  kernel.manifest = pkg.manifest;
  /** Frees the buffers (and the device, when getKernel made it). */
  kernel.destroy = () => {
    runner.destroy();
    if (owned) device.destroy();
  };
  return kernel;
}

function resolveVariant(asked, variants, fallback = variants[0]) {
  if (asked === undefined || asked === "auto") return fallback;
  if (!variants.includes(asked)) {
    fail("INVALID_OPTION", `variant "${asked}" is not one of "auto", ${variants.map((v) => `"${v}"`).join(", ")}`);
  }
  return asked;
}
