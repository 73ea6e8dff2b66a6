// Compiled (never run) by tsc in ctest js_types: the README's usage against
// js/src/index.d.ts, so the declarations stay complete and consistent.
import { getKernel, KernelError, ERROR_CODES } from "lrelu-webgpu";
import type { LeakyReluKernel, PreluVariant, Tensor, KernelErrorCode } from "lrelu-webgpu";

export async function example(xData: Float32Array, bits: Uint16Array): Promise<number> {
  const kernel: LeakyReluKernel = await getKernel("webgpu-kernels/ai.onnx.LeakyRelu", { version: 1 });
  const { y } = await kernel({ x: { data: xData, shape: [5] } });
  const half = await kernel({ x: { data: bits, shape: [bits.length], dtype: "float16" } }, { alpha: 0.2 },
                            { variant: "unary-scalar" });
  const { dx } = await kernel.backward({ dy: { data: xData, shape: [5] }, x: { data: xData, shape: [5] } },
                                       { alpha: 0.01 });
  const pinned = await getKernel("ai.onnx.LeakyRelu", { sha256: kernel.info.manifestSha256, variant: "auto" });
  const wgsl: string = pinned.source("float16", "unary-vec4");
  const { y: py } = await kernel.prelu({ x: { data: xData, shape: [1, 5] },
                                         alpha: { data: new Float32Array([0.25]), shape: [1] } });
  const scalar = await kernel.prelu({ x: { data: xData, shape: [5] }, alpha: { data: xData, shape: [5] } },
                                    { variant: "prelu" });
  const form: PreluVariant = scalar.variant;
  const t: Tensor = dx;
  try {
    await getKernel("ai.onnx.LeakyRelu", { revision: "0".repeat(40), baseUrl: "https://example.invalid/{revision}/" });
  } catch (e) {
    if (e instanceof KernelError) {
      const code: KernelErrorCode = e.code;
      return code.length + ERROR_CODES.length;
    }
  }
  kernel.destroy();
  return y.data.length + py.data.length + scalar.y.data.length + form.length + half.y.shape.length + wgsl.length + t.shape.length + (kernel.info.adapter ? 1 : 0);
}
