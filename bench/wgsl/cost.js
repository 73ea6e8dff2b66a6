// Page side of bench/wgsl/cost.py: times WGSL sources with raw WebGPU in
// the browser (SwiftShader in headless Chromium). Each source is run `reps`
// times over the same buffers; the best time per dispatch is reported.
// The pass is the package's own (js/src/dispatch.js, served under /js/).
import { encodePass } from "/js/src/dispatch.js";

window.lreluCost = async function lreluCost(cases, reps) {
  const adapter = await navigator.gpu.requestAdapter();
  const device = await adapter.requestDevice({
    requiredLimits: { maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
                      maxBufferSize: adapter.limits.maxBufferSize } });
  const results = [];
  for (const c of cases) {
    const bits = new Uint32Array(await (await fetch(c.data)).arrayBuffer());
    const bytes = bits.byteLength;
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
    const v = device.createBuffer({ size: bytes, usage });
    const out = device.createBuffer({ size: bytes, usage });
    const params = device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(v, 0, bits);
    device.queue.writeBuffer(params, 0, new Uint32Array([c.alphaBits, c.n, 0, 0]));
    const module = device.createShaderModule({ code: c.source });
    const pipeline = await device.createComputePipelineAsync({ layout: "auto", compute: { module, entryPoint: "forward" } });
    const group = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [
      { binding: 0, resource: { buffer: v } }, { binding: 2, resource: { buffer: out } },
      { binding: 3, resource: { buffer: params } }] });
    const groups = Math.ceil(c.words / c.workgroup);
    let best = Infinity;
    for (let r = 0; r < reps; r++) {
      const t0 = performance.now();
      const encoder = device.createCommandEncoder();
      encodePass(encoder, pipeline, group, groups, 65535);
      device.queue.submit([encoder.finish()]);
      await device.queue.onSubmittedWorkDone();
      best = Math.min(best, performance.now() - t0);
    }
    results.push({ name: c.name, ms: best });
    v.destroy(); out.destroy(); params.destroy();
  }
  device.destroy();
  return { adapter: adapter.info ? { vendor: adapter.info.vendor, architecture: adapter.info.architecture } : null, results };
};
window.lreluCostReady = true;
