// Browser side of tests/js/test_browser.py: imports the package by its name
// (the page's import map points it at package.json's `exports` entry) and
// exposes checks the test calls through the DevTools protocol. Results go
// back as JSON; the Python side compares them with the oracle's bits.
import { getKernel, KernelError } from "lrelu-webgpu";

const ID = "webgpu-kernels/ai.onnx.LeakyRelu";
let kernelPromise = null;
function kernel() {
  if (kernelPromise === null) kernelPromise = getKernel(ID, { version: 1 });
  return kernelPromise;
}

window.lreluChecks = {
  async adapter() {
    const k = await kernel();
    return { info: k.info, hasFloat16Array: typeof Float16Array === "function" };
  },
  async source(dtype, variant) {
    return (await kernel()).source(dtype, variant);
  },
  async smoke() {
    const k = await kernel();
    const { y, variant } = await k({ x: { data: new Float32Array([-2, -1, 0, 1, 2]), shape: [5] } });
    return { y: Array.from(y.data), shape: y.shape, dtype: y.dtype, variant };
  },
};
window.lreluReady = true;
