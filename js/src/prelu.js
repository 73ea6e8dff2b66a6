// PReLU forward (contract ai.onnx.PRelu v1): y = x < 0 ? alpha * x : x with
// alpha a tensor of x's dtype that broadcasts to x (ONNX's unidirectional
// rule: per channel [C,1,1] for NCHW, [C] for NHWC). The WGSL is the
// ai.onnx.PRelu package's (contract/prelu/v1/prelu-vec4.wgsl.jinja by
// default, or prelu.wgsl.jinja; liblrelu's variants "prelu-vec4" and
// "prelu"), each file checked against the package's metadata.json,
// rendered with the LeakyRelu package's verified helpers, so every element
// follows LeakyReLU's exact rule with its own alpha.
import { PRELU_PACKAGE } from "./bundled.js";
import { encodePass } from "./dispatch.js";
import { fail } from "./errors.js";
import { sha256Hex } from "./package.js";

const USAGE = globalThis.GPUBufferUsage ||
    { MAP_READ: 0x1, COPY_SRC: 0x4, COPY_DST: 0x8, UNIFORM: 0x40, STORAGE: 0x80 };
const MAP_READ = globalThis.GPUMapMode ? globalThis.GPUMapMode.READ : 0x1;
const MAX_DIMS = 8;
/** kernel.prelu's variants, the default first. */
export const PRELU_VARIANTS = Object.freeze(["prelu-vec4", "prelu"]);

/** The package's template, words and element rules of a variant. */
function preluVariant(webgpu, variant) {
  if (variant === "prelu") return webgpu;
  if (variant === "prelu-vec4") return webgpu.vec4;
  return fail("INVALID_OPTION", `PReLU variant "${variant}" is not one of ` +
              PRELU_VARIANTS.map((v) => `"${v}"`).join(", "));
}

/**
 * The memory-order walk of a C-contiguous x over a C-contiguous alpha:
 * [extent, alpha stride] pairs, outermost first, neighbours merged where
 * alpha steps over the inner one exactly (as liblrelu does).
 */
export function preluWalk(xShape, alphaShape) {
  const ok = alphaShape.length <= xShape.length && alphaShape.every(
      (e, j) => e === 1 || e === xShape[xShape.length - alphaShape.length + j]);
  if (!ok) {
    fail("SHAPE_MISMATCH", `alpha has shape [${alphaShape}], which does not broadcast to x's ` +
         `shape [${xShape}] (ONNX unidirectional broadcasting: alpha's shape, aligned to the right ` +
         "of x's, has each extent equal to x's or 1; per channel is [C,1,1] for NCHW, [C] for NHWC)");
  }
  const strides = new Array(alphaShape.length).fill(0);
  for (let j = alphaShape.length - 1, c = 1; j >= 0; --j) {
    strides[j] = alphaShape[j] > 1 ? c : 0;
    c *= alphaShape[j];
  }
  const aligned = new Array(xShape.length - alphaShape.length).fill(0).concat(strides);
  const dims = [];
  xShape.forEach((extent, i) => {
    if (extent === 1) return;
    const last = dims[dims.length - 1];
    if (last && last[1] === aligned[i] * extent) {
      last[0] *= extent;
      last[1] = aligned[i];
    } else {
      dims.push([extent, aligned[i]]);
    }
  });
  if (dims.length === 0) dims.push([1, 0]);
  if (dims.length > MAX_DIMS) {
    fail("SHAPE_MISMATCH", `alpha's broadcast pattern needs ${dims.length} dimensions after ` +
         `merging neighbours, more than ${MAX_DIMS}`);
  }
  return dims;
}

let preluFiles = null;

/**
 * The ai.onnx.PRelu package's metadata and run-time files, each checked
 * against the sha256 and size metadata.json lists (once; a mismatch is
 * DIGEST_MISMATCH on every call).
 * @returns {Promise<{metadata: object, files: Record<string, string>}>}
 */
export function verifiedPrelu(bundle = PRELU_PACKAGE) {
  const check = async () => {
    const metadata = JSON.parse(bundle["metadata.json"]);
    const listed = { ...metadata.templates, "manifest.json": metadata.files["manifest.json"] };
    const files = {};
    for (const [name, entry] of Object.entries(listed)) {
      if (bundle[name] === undefined) {
        fail("DIGEST_MISMATCH", `ai.onnx.PRelu: metadata.json lists ${name}, which the bundle lacks`);
      }
      const bytes = new TextEncoder().encode(bundle[name]);
      const have = await sha256Hex(bytes);
      if (have !== entry.sha256 || bytes.length !== entry.bytes) {
        fail("DIGEST_MISMATCH", `ai.onnx.PRelu ${name}: sha256 ${have} (${bytes.length} bytes) does not ` +
             `match metadata.json's ${entry.sha256} (${entry.bytes} bytes); the file was modified, refusing it`);
      }
      files[name] = bundle[name];
    }
    return { metadata, files };
  };
  if (bundle !== PRELU_PACKAGE) return check();
  if (preluFiles === null) preluFiles = check();
  return preluFiles;
}

/**
 * The WGSL for a dtype (float32, float16), workgroup size and variant
 * ("prelu-vec4" or "prelu"): prelu is verifiedPrelu()'s result, pkg the
 * LeakyRelu package (the helpers).
 */
export function renderPrelu(pkg, prelu, dtype, workgroupSize, variant = PRELU_VARIANTS[0]) {
  const webgpu = prelu.metadata.webgpu;
  const form = preluVariant(webgpu, variant);
  const from = webgpu.helpers.package;
  if (pkg.metadata.id !== from.id || pkg.metadata.contract_version !== from.contract_version) {
    fail("UNKNOWN_VERSION", `PReLU's WGSL takes its helpers from ${from.id} v${from.contract_version}, ` +
         `not ${pkg.metadata.id} v${pkg.metadata.contract_version}`);
  }
  const helpers = webgpu.helpers[dtype];
  if (helpers === undefined || form.element_rule[dtype] === undefined) {
    fail("UNSUPPORTED_DTYPE", `PReLU's WGSL renders float32 and float16, not ${dtype}`);
  }
  const own = prelu.files[form.element_rule[dtype]];
  const replace = (text, key, value) => text.split(key).join(value);
  let source = prelu.files[form.template];
  source = replace(source, "{{HELPERS}}", helpers.map((name) => pkg.files[name]).join("\n") + "\n" + own);
  source = replace(source, "{{WORD}}", form.words[dtype].word);
  source = replace(source, "{{LANES}}", String(form.words[dtype].lanes));
  source = replace(source, "{{DTYPE}}", dtype);
  return replace(source, "{{WORKGROUP_SIZE}}", String(workgroupSize));
}

/**
 * Runs PReLU on the runner's device: x and alpha checked tensors (alpha of
 * x's dtype), variant one of PRELU_VARIANTS. Returns a new ArrayBuffer with
 * y's bytes. x goes through in chunks of the runner's chunkBytes (the
 * device's binding limit applies too): each dispatch binds its part of x
 * and y and the whole alpha, and Params.first (the part's first element)
 * keeps each element's alpha.
 */
export async function runPrelu(runner, pkg, x, alpha, variant = PRELU_VARIANTS[0]) {
  if (alpha.dtype !== x.dtype) {
    fail("UNSUPPORTED_DTYPE", `alpha is ${alpha.dtype} but x is ${x.dtype}: alpha must have x's dtype`);
  }
  const dims = preluWalk(x.shape, alpha.shape);
  const elementBytes = x.dtype === "float32" ? 4 : 2;
  const result = new ArrayBuffer(x.count * elementBytes);
  if (x.count === 0) return result;
  const { device } = runner;
  const prelu = await verifiedPrelu();
  // Elements a word (an invocation's), as the package's metadata says:
  // prelu-vec4 four in 16 (float32) or 8 (float16) bytes, prelu one u32.
  const lanes = preluVariant(prelu.metadata.webgpu, variant).words[x.dtype].lanes;
  const wordBytes = lanes * elementBytes;
  const aBytes = Math.max(4, Math.ceil(alpha.count * elementBytes / 4) * 4);
  const limit = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
  if (aBytes > limit || x.count >= 2 ** 32) {
    fail("SHAPE_MISMATCH", `alpha is larger than this device binds at once (${limit} bytes), ` +
         "or x has 2^32 elements or more; PReLU binds the whole alpha in every dispatch");
  }
  // Elements a dispatch: runner.chunkBytes is a multiple of 16 (and below
  // the binding limit), so a part starts on a word (Params.first a
  // multiple of lanes).
  const chunk = runner.chunkBytes / elementBytes;
  const chunkWords = Math.ceil(Math.min(chunk, x.count) / lanes);
  const xBytes = chunkWords * wordBytes;
  const key = `${variant}/${x.dtype}`;
  if (!runner.pipelines.has(key)) {
    runner.pipelines.set(key, (async () => {
      const code = renderPrelu(pkg, prelu, x.dtype, runner.workgroupSize, variant);
      const module = device.createShaderModule({ code, label: `lrelu ${variant} ${x.dtype}` });
      const info = module.getCompilationInfo ? await module.getCompilationInfo() : { messages: [] };
      const errors = info.messages.filter((m) => m.type === "error");
      if (errors.length > 0) {
        fail("SHADER_FAILED", `the ${variant} ${x.dtype} WGSL does not compile on this device: ` +
             errors.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`).join("; "));
      }
      return device.createComputePipelineAsync({ layout: "auto", compute: { module, entryPoint: "forward" } });
    })());
  }
  const pipeline = await runner.pipelines.get(key);
  const padded = (bytes, size) => {
    const out = new Uint8Array(size);
    out.set(bytes);
    return out;
  };
  const storage = USAGE.STORAGE | USAGE.COPY_DST | USAGE.COPY_SRC;
  const bx = device.createBuffer({ size: xBytes, usage: storage });
  const ba = device.createBuffer({ size: aBytes, usage: storage });
  const by = device.createBuffer({ size: xBytes, usage: storage });
  const bp = device.createBuffer({ size: 16 + 16 * MAX_DIMS, usage: USAGE.UNIFORM | USAGE.COPY_DST });
  const staging = device.createBuffer({ size: xBytes, usage: USAGE.MAP_READ | USAGE.COPY_DST });
  try {
    device.queue.writeBuffer(ba, 0, padded(alpha.bytes, aBytes));
    const params = new Uint32Array(4 + 4 * MAX_DIMS);
    params[1] = dims.length;
    dims.forEach(([extent, stride], d) => {
      params[4 + 4 * d] = extent;
      params[5 + 4 * d] = stride;
    });
    const group = device.createBindGroup({
      layout: pipeline.getBindGroupLayout(0),
      entries: [bx, ba, by, bp].map((buffer, binding) => ({ binding, resource: { buffer } })),
    });
    for (let first = 0; first < x.count; first += chunk) {
      const n = Math.min(chunk, x.count - first);
      const words = Math.ceil(n / lanes);
      const dataBytes = n * elementBytes;
      const part = x.bytes.subarray(first * elementBytes, first * elementBytes + dataBytes);
      device.queue.writeBuffer(bx, 0, dataBytes % wordBytes === 0 ? part : padded(part, words * wordBytes));
      params[0] = n;
      params[3] = first;
      device.queue.writeBuffer(bp, 0, params);
      const encoder = device.createCommandEncoder();
      encodePass(encoder, pipeline, group, Math.ceil(words / runner.workgroupSize), runner.maxGroups);
      encoder.copyBufferToBuffer(by, 0, staging, 0, words * wordBytes);
      device.queue.submit([encoder.finish()]);
      await staging.mapAsync(MAP_READ, 0, words * wordBytes);
      new Uint8Array(result, first * elementBytes, dataBytes)
          .set(new Uint8Array(staging.getMappedRange(0, words * wordBytes), 0, dataBytes));
      staging.unmap();
    }
  } finally {
    for (const b of [bx, ba, by, bp, staging]) b.destroy();
  }
  return result;
}
