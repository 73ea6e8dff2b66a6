// The WebGPU side: one device, compiled pipelines per (dtype, variant,
// entry point) and buffers that grow as needed, reused across calls.
import { encodePass } from "./dispatch.js";
import { fail } from "./errors.js";
import { renderWgsl } from "./render.js";

// GPUBufferUsage / GPUMapMode values (WebGPU spec), for callers' devices in
// environments that do not define the globals.
const USAGE = globalThis.GPUBufferUsage ||
    { MAP_READ: 0x1, COPY_SRC: 0x4, COPY_DST: 0x8, UNIFORM: 0x40, STORAGE: 0x80 };
const MAP_READ = globalThis.GPUMapMode ? globalThis.GPUMapMode.READ : 0x1;
// Largest chunk one dispatch handles; a multiple of every word size.
const CHUNK_BYTES_CAP = 64 << 20;

export class Runner {
  /**
   * @param {GPUDevice} device
   * @param {{files: object, metadata: object}} pkg the verified package
   * @param {number} workgroupSize
   * @param {number} chunkBytes the most bytes one dispatch covers (a
   *     multiple of 16; the device's binding limit applies too)
   */
  constructor(device, pkg, workgroupSize, chunkBytes = CHUNK_BYTES_CAP) {
    this.device = device;
    this.pkg = pkg;
    this.workgroupSize = workgroupSize;
    this.pipelines = new Map();
    this.buffers = null;
    this.capacity = 0;
    this.tail = Promise.resolve();
    const limits = device.limits;
    const most = Math.min(limits.maxStorageBufferBindingSize, limits.maxBufferSize, chunkBytes);
    this.chunkBytes = Math.floor(most / 16) * 16;
    this.maxGroups = limits.maxComputeWorkgroupsPerDimension;
  }

  source(dtype, variant) {
    const { files, metadata } = this.pkg;
    return renderWgsl(files, metadata.webgpu, dtype, variant, this.workgroupSize);
  }

  async pipeline(dtype, variant, entry) {
    const key = `${dtype}/${variant}/${entry}`;
    if (!this.pipelines.has(key)) {
      this.pipelines.set(key, this.compile(dtype, variant, entry));
    }
    return this.pipelines.get(key);
  }

  async compile(dtype, variant, entry) {
    const rendered = this.source(dtype, variant);
    const module = this.device.createShaderModule({ code: rendered.source, label: `lrelu ${variant} ${dtype}` });
    const info = module.getCompilationInfo ? await module.getCompilationInfo() : { messages: [] };
    const errors = info.messages.filter((m) => m.type === "error");
    if (errors.length > 0) {
      fail("SHADER_FAILED", `the ${variant} ${dtype} WGSL does not compile on this device: ` +
           errors.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`).join("; "));
    }
    let pipeline;
    try {
      pipeline = await this.device.createComputePipelineAsync({
        layout: "auto", compute: { module, entryPoint: entry },
      });
    } catch (e) {
      fail("SHADER_FAILED", `the ${variant} ${dtype} pipeline (${entry}) failed on this device: ${e.message}`);
    }
    return { pipeline, lanes: rendered.lanes, wordBytes: rendered.wordBytes, group: null };
  }

  /** v, s, out (storage), staging (readback) and params, at least `bytes`. */
  ensureBuffers(bytes) {
    if (bytes <= this.capacity) return;
    this.destroyBuffers();
    const capacity = Math.max(Math.ceil(bytes / 16) * 16, 256);
    const make = (usage) => this.device.createBuffer({ size: capacity, usage });
    const storage = USAGE.STORAGE | USAGE.COPY_DST | USAGE.COPY_SRC;
    this.buffers = {
      v: make(storage), s: make(storage), out: make(storage),
      staging: make(USAGE.MAP_READ | USAGE.COPY_DST),
      params: this.device.createBuffer({ size: 16, usage: USAGE.UNIFORM | USAGE.COPY_DST }),
    };
    this.capacity = capacity;
    this.generation = (this.generation || 0) + 1;  // bind groups name the old buffers
  }

  destroyBuffers() {
    if (this.buffers) {
      for (const b of Object.values(this.buffers)) b.destroy();
    }
    this.buffers = null;
    this.capacity = 0;
  }

  /** Calls run one after another: they share the buffers. */
  serialise(task) {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => {});
    return result;
  }

  /**
   * out = s < 0 ? alpha * v : v over `count` elements of `dtype` (bytes of v
   * and s as Uint8Arrays; s null for forward). Returns a new ArrayBuffer.
   */
  run(entry, dtype, variant, v, s, count, alpha) {
    return this.serialise(() => this.runNow(entry, dtype, variant, v, s, count, alpha));
  }

  async runNow(entry, dtype, variant, v, s, count, alpha) {
    const elementBytes = dtype === "float32" ? 4 : 2;
    const result = new ArrayBuffer(count * elementBytes);
    if (count === 0) return result;
    const compiled = await this.pipeline(dtype, variant, entry);
    const chunkElements = this.chunkBytes / elementBytes;
    this.ensureBuffers(Math.min(this.chunkBytes, Math.ceil(count / compiled.lanes) * compiled.wordBytes));
    const { device } = this;
    const b = this.buffers;
    for (let first = 0; first < count; first += chunkElements) {
      const n = Math.min(chunkElements, count - first);
      const words = Math.ceil(n / compiled.lanes);
      const bindBytes = words * compiled.wordBytes;
      const dataBytes = n * elementBytes;
      const put = (buffer, bytes) => {
        const part = bytes.subarray(first * elementBytes, first * elementBytes + dataBytes);
        if (dataBytes % 4 === 0) {
          device.queue.writeBuffer(buffer, 0, part);
        } else {  // writeBuffer moves whole 4-byte units
          const padded = new Uint8Array(dataBytes + 2);
          padded.set(part);
          device.queue.writeBuffer(buffer, 0, padded);
        }
      };
      put(b.v, v);
      if (s !== null) put(b.s, s);
      device.queue.writeBuffer(b.params, 0, new Uint32Array([alpha, n, 0, 0]));

      // Whole buffers are bound (the shader reads params.n), so one bind
      // group per pipeline serves every call until the buffers grow.
      if (compiled.group === null || compiled.generation !== this.generation) {
        const entries = [
          { binding: 0, resource: { buffer: b.v } },
          { binding: 2, resource: { buffer: b.out } },
          { binding: 3, resource: { buffer: b.params } },
        ];
        if (entry === "backward") entries.push({ binding: 1, resource: { buffer: b.s } });
        compiled.group = device.createBindGroup({ layout: compiled.pipeline.getBindGroupLayout(0), entries });
        compiled.generation = this.generation;
      }
      const group = compiled.group;
      const encoder = device.createCommandEncoder();
      encodePass(encoder, compiled.pipeline, group, Math.ceil(words / this.workgroupSize),
                 this.maxGroups);
      encoder.copyBufferToBuffer(b.out, 0, b.staging, 0, bindBytes);
      device.queue.submit([encoder.finish()]);
      await b.staging.mapAsync(MAP_READ, 0, bindBytes);
      new Uint8Array(result, first * elementBytes, dataBytes)
          .set(new Uint8Array(b.staging.getMappedRange(0, bindBytes), 0, dataBytes));
      b.staging.unmap();
    }
    return result;
  }

  destroy() {
    this.destroyBuffers();
    this.pipelines.clear();
  }
}
