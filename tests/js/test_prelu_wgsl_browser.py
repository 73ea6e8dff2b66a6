#!/usr/bin/env python3
"""The WGSL PReLU templates (lrelu_kernel_source(wgsl, dtype, "prelu") and
"prelu-vec4") run in headless Chromium's WebGPU (SwiftShader here, which flushes f32 subnormals
in float arithmetic: the template's integer multiply must cover them) and
compared bit for bit with the NumPy statement of the contract and liblrelu's
CPU backend, as tests/gpu/wgsl_prelu_test.py does on wgpu/lavapipe.

Run directly (ctest does): exits 77 (skipped) without chromium or WebGPU.
LRELU_LIBRARY names liblrelu.so.
"""
import base64
import json
import pathlib
import sys
import tempfile

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "gpu"))
import cdp  # noqa: E402
import server  # noqa: E402
import wgsl_prelu_test as wp  # noqa: E402  (patterns, walk, oracles)

base = wp.base
WORKGROUP = base.WORKGROUP

# Defines window.preluRun(spec): one dispatch of the rendered template.
RUNNER_JS = r"""
window.preluRun = async (spec) => {
  if (!window.preluDevice) {
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) throw new Error("no WebGPU adapter");
    window.preluAdapter = adapter.info || {};
    window.preluDevice = await adapter.requestDevice();
    window.preluPipelines = {};
  }
  const device = window.preluDevice;
  device.pushErrorScope("validation");
  const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const buffer = (data, usage) => {
    const b = device.createBuffer({ size: Math.max(4, Math.ceil(data.length / 4) * 4),
                                    usage, mappedAtCreation: true });
    new Uint8Array(b.getMappedRange()).set(data);
    b.unmap();
    return b;
  };
  let pipeline = window.preluPipelines[spec.code];
  if (!pipeline) {
    const module = device.createShaderModule({ code: spec.code });
    const info = await module.getCompilationInfo();
    const errors = info.messages.filter((m) => m.type === "error");
    if (errors.length) throw new Error("WGSL: " + errors.map((m) => m.message).join("; "));
    pipeline = device.createComputePipeline({ layout: "auto",
                                              compute: { module, entryPoint: "forward" } });
    window.preluPipelines[spec.code] = pipeline;
  }
  const S = GPUBufferUsage.STORAGE;
  const x = buffer(bytes(spec.x), S);
  const alpha = buffer(bytes(spec.alpha), S);
  const y = buffer(bytes(spec.y), S | GPUBufferUsage.COPY_SRC);
  const params = buffer(bytes(spec.params), GPUBufferUsage.UNIFORM);
  const group = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [x, alpha, y, params].map((b, i) => ({ binding: i, resource: { buffer: b } })),
  });
  const read = device.createBuffer({ size: y.size,
                                     usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, group);
  pass.dispatchWorkgroups(spec.gx, spec.gy, 1);
  pass.end();
  encoder.copyBufferToBuffer(y, 0, read, 0, y.size);
  device.queue.submit([encoder.finish()]);
  const error = await device.popErrorScope();
  if (error) throw new Error("WebGPU: " + error.message);
  await read.mapAsync(GPUMapMode.READ);
  const out = new Uint8Array(read.getMappedRange()).slice();
  read.unmap();
  for (const b of [x, alpha, y, params, read]) b.destroy();
  let text = "";
  for (let i = 0; i < out.length; i += 8192) {
    text += String.fromCharCode.apply(null, out.subarray(i, i + 8192));
  }
  return btoa(text);
};
true
"""


# Defines window.preluModule(spec): kernel.prelu of the js/ package.
MODULE_JS = r"""
window.preluModule = async (spec) => {
  const m = await import("/js/src/index.js");
  if (!window.preluKernel) {
    window.preluKernel = await m.getKernel("ai.onnx.LeakyRelu", { version: 1, workgroupSize: 64 });
    // 48-byte chunks: every tensor in many dispatches.
    window.preluChunked = await m.getKernel("ai.onnx.LeakyRelu",
                                            { version: 1, workgroupSize: 64, chunkBytes: 48 });
  }
  const kernel = spec.chunked ? window.preluChunked : window.preluKernel;
  const options = spec.variant ? { variant: spec.variant } : {};
  const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)).buffer;
  const tensor = (b64, shape) => spec.dtype === "float32"
      ? { data: new Float32Array(bytes(b64)), shape }
      : { data: new Uint16Array(bytes(b64)), shape, dtype: "float16" };
  try {
    const { y, variant } = await kernel.prelu({ x: tensor(spec.x, spec.xShape),
                                                alpha: tensor(spec.alpha, spec.alphaShape) }, options);
    const out = new Uint8Array(y.data.buffer, y.data.byteOffset, y.data.byteLength);
    let text = "";
    for (let i = 0; i < out.length; i += 8192) {
      text += String.fromCharCode.apply(null, out.subarray(i, i + 8192));
    }
    return { y: btoa(text), variant };
  } catch (e) {
    return { code: e.code || "", message: e.message };
  }
};
true
"""


@pytest.fixture(scope="module")
def page():
    if cdp.find_chromium() is None:
        pytest.skip("chromium is not installed")
    with tempfile.TemporaryDirectory(prefix="lrelu-prelu-") as d:
        (pathlib.Path(d) / "blank.html").write_text("<!doctype html><title>prelu</title>")
        with server.Server(d) as web, cdp.Browser() as browser:
            p = browser.new_page()
            p.navigate(web.url("/data/blank.html"))  # 127.0.0.1: a secure context
            if not p.evaluate("!!navigator.gpu"):
                pytest.skip("no navigator.gpu in this Chromium")
            p.evaluate(RUNNER_JS)
            p.evaluate(MODULE_JS)
            yield p


VARIANTS = ["prelu", "prelu-vec4"]


def run(page, dtype, x, alpha, dims, variant="prelu", first=0):
    """One dispatch of a template: y's first n elements; the lanes past n
    of the last word (an invocation's) must keep their contents."""
    n = x.size
    if variant == "prelu-vec4":
        lanes = 4  # a vec4<u32> (float32) or vec2<u32> (float16) word
    else:
        lanes = 2 if dtype == base.FLOAT16 else 1
    units = -(-n // lanes)
    sentinel = x.dtype.type(0xa5a5a5a5 & (0xffffffff if x.itemsize == 4 else 0xffff))
    def padded(bits, count, fill=0):
        out = np.full(count + 2, fill, dtype=bits.dtype)
        out[:bits.size] = bits
        return base64.b64encode(out.tobytes()).decode()
    params = np.zeros(4 + 4 * wp.MAX_DIMS, dtype=np.uint32)
    params[0], params[1], params[3] = n, len(dims), first
    for d, (extent, stride) in enumerate(dims):
        params[4 + 4 * d], params[5 + 4 * d] = extent, stride
    groups = -(-units // WORKGROUP)
    gx = min(groups, 65535)
    spec = {"code": base.render(dtype, variant), "x": padded(x, units * lanes),
            "alpha": padded(alpha, alpha.size + 1),
            "y": padded(np.full(units * lanes, sentinel, dtype=x.dtype), units * lanes, sentinel),
            "params": base64.b64encode(params.tobytes()).decode(),
            "gx": gx, "gy": -(-groups // gx)}
    raw = np.frombuffer(base64.b64decode(page.evaluate(f"preluRun({json.dumps(spec)})")),
                        dtype=x.dtype)
    assert np.all(raw[n:units * lanes] == sentinel), "a lane past n of y changed"
    return raw[:n].copy()


def check_case(page, dtype, x_shape, alpha_shape, rng, variant="prelu"):
    n = int(np.prod(x_shape))
    x = base.random_bits(dtype, n, rng)
    alpha = base.random_bits(dtype, int(np.prod(alpha_shape)), rng)
    full = np.broadcast_to(alpha.reshape(alpha_shape), x_shape).reshape(-1).copy()
    got = run(page, dtype, x, alpha, wp.walk(x_shape, alpha_shape), variant)
    expected = wp.numpy_oracle(dtype, x, full)
    base.check(dtype, x, x, got, expected, "per element")
    base.check(dtype, x, x, wp.cpu_prelu(dtype, x, x_shape, alpha, alpha_shape), expected, "cpu")


def test_adapter(page):
    rng = np.random.default_rng(1)
    check_case(page, base.FLOAT32, (4, 5), (5,), rng)
    info = page.evaluate("({vendor: preluAdapter.vendor, architecture: preluAdapter.architecture})")
    print("adapter:", info)
    assert info["vendor"] or info["architecture"]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("dtype", [base.FLOAT32, base.FLOAT16])
def test_patterns(page, dtype, variant):
    rng = np.random.default_rng(7)
    for x_shape, alpha_shape in wp.PATTERNS:
        check_case(page, dtype, x_shape, alpha_shape, rng, variant)


@pytest.mark.parametrize("dtype", [base.FLOAT32, base.FLOAT16])
def test_vec4_carries(page, dtype):
    """prelu-vec4 steps from an invocation's first element to the next three
    by carrying digits: extents of 1 to 5 (a word spanning up to four
    rows, planes or periods of alpha), a carry through every dimension at
    once, counts that end inside a word, and Params.first past 0."""
    rng = np.random.default_rng(21)
    cases = [((5, 1), (5, 1)), ((3, 2, 2), (3, 1, 1)), ((2, 3, 1, 1), (3, 1, 1)),
             ((7, 3), (3,)), ((4, 2, 3), (2, 3)), ((2, 2, 2, 2, 2, 2, 2, 2), (2, 1, 2, 1, 2, 1, 2, 1)),
             ((9, 5), (9, 1)), ((3, 1, 7), (3, 1, 1)), ((13,), (1,)), ((1, 6, 1, 7), (6, 1, 1))]
    for x_shape, alpha_shape in cases:
        check_case(page, dtype, x_shape, alpha_shape, rng, "prelu-vec4")
    # A part of a larger tensor: Params.first = 12 (a multiple of 4),
    # elements 12..41 of a [6, 7] x with alpha [6, 1].
    x_shape, alpha_shape, first = (6, 7), (6, 1), 12
    whole = base.random_bits(dtype, 42, rng)
    alpha = base.random_bits(dtype, 6, rng)
    x = whole[first:].copy()
    full = np.broadcast_to(alpha.reshape(alpha_shape), x_shape).reshape(-1)[first:].copy()
    got = run(page, dtype, x, alpha, wp.walk(x_shape, alpha_shape), "prelu-vec4", first=first)
    base.check(dtype, x, x, got, wp.numpy_oracle(dtype, x, full), "first=12")


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("dtype", [base.FLOAT32, base.FLOAT16])
def test_specials_against_special_alphas(page, dtype, variant):
    sp = base.specials(dtype)
    x = np.repeat(sp, sp.size)
    alpha = np.tile(sp, sp.size)
    got = run(page, dtype, x, alpha, [(x.size, 1)], variant)
    base.check(dtype, x, x, got, wp.numpy_oracle(dtype, x, alpha), "specials")


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("dtype", [base.FLOAT32, base.FLOAT16])
def test_subnormal_products_and_large(page, dtype, variant):
    """Products in the subnormal range (SwiftShader's float multiply would
    flush them), then a 2^18-element NHWC tensor."""
    rng = np.random.default_rng(9)
    n = 4096
    if dtype == base.FLOAT32:
        x = (-rng.random(n, dtype=np.float32) * 1e-20).astype(np.float32).view(np.uint32)
        alpha = (rng.random(64, dtype=np.float32) * 1e-19).astype(np.float32).view(np.uint32)
    else:
        x = (-rng.random(n) * 1e-3).astype(np.float16).view(np.uint16)
        alpha = (rng.random(64) * 1e-3).astype(np.float16).view(np.uint16)
    full = np.broadcast_to(alpha, (n // 64, 64)).reshape(-1).copy()
    got = run(page, dtype, x, alpha, wp.walk((n // 64, 64), (64,)), variant)
    base.check(dtype, x, x, got, wp.numpy_oracle(dtype, x, full), "subnormal products")
    check_case(page, dtype, (1, 4096, 64), (64,), rng, variant)


def module_prelu(page, dtype, x, x_shape, alpha, alpha_shape, chunked=False, variant=None):
    spec = {"dtype": "float32" if dtype == base.FLOAT32 else "float16",
            "x": base64.b64encode(x.tobytes()).decode(), "xShape": list(x_shape),
            "alpha": base64.b64encode(alpha.tobytes()).decode(), "alphaShape": list(alpha_shape),
            "chunked": chunked, "variant": variant}
    result = page.evaluate(f"preluModule({json.dumps(spec)})")
    if "y" in result:  # the default is prelu-vec4
        assert result["variant"] == (variant or "prelu-vec4"), result["variant"]
    return result


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("dtype", [base.FLOAT32, base.FLOAT16])
def test_js_package_prelu_chunks(page, dtype, variant):
    """kernel.prelu in 48-byte chunks (12 float32 or 24 float16 elements a
    dispatch): parts that start inside a row, a plane or a broadcast
    period, odd float16 counts, alpha broadcast over outer axes (its index
    wraps inside a part): Params.first keeps every element's alpha."""
    rng = np.random.default_rng(12)
    cases = [((3, 5, 7), (5, 1)), ((2, 3, 4, 5), (3, 1, 1)), ((7, 9), (9,)),
             ((5, 1, 13), (1, 13)), ((4, 6, 5), (4, 1, 5)), ((301,), (1,)), ((2, 2, 51), (2, 1, 51))]
    for x_shape, alpha_shape in cases:
        n = int(np.prod(x_shape))
        x = base.random_bits(dtype, n, rng)
        alpha = base.random_bits(dtype, int(np.prod(alpha_shape)), rng)
        result = module_prelu(page, dtype, x, x_shape, alpha, alpha_shape, chunked=True,
                              variant=variant)
        assert "y" in result, result
        got = np.frombuffer(base64.b64decode(result["y"]), dtype=x.dtype)
        full = np.broadcast_to(alpha.reshape(alpha_shape), x_shape).reshape(-1)
        base.check(dtype, x, x, got, wp.numpy_oracle(dtype, x, full.copy()), f"chunks {x_shape}")


@pytest.mark.parametrize("variant", [None, "prelu"])
@pytest.mark.parametrize("dtype", [base.FLOAT32, base.FLOAT16])
def test_js_package_prelu(page, dtype, variant):
    """kernel.prelu of the js/ package (the same templates, rendered in JS;
    prelu-vec4 by default)."""
    rng = np.random.default_rng(11)
    for x_shape, alpha_shape in wp.PATTERNS + [((3, 5, 7), (5, 1)), ((1, 2049, 64), (64,))]:
        n = int(np.prod(x_shape))
        x = base.random_bits(dtype, n, rng)
        alpha = base.random_bits(dtype, int(np.prod(alpha_shape)), rng)
        result = module_prelu(page, dtype, x, x_shape, alpha, alpha_shape, variant=variant)
        assert "y" in result, result
        got = np.frombuffer(base64.b64decode(result["y"]), dtype=x.dtype)
        full = np.broadcast_to(alpha.reshape(alpha_shape), x_shape).reshape(-1)
        base.check(dtype, x, x, got, wp.numpy_oracle(dtype, x, full.copy()), f"js {x_shape}")


def test_js_package_prelu_errors(page):
    x = np.zeros(24, dtype=np.uint32)
    bad = module_prelu(page, base.FLOAT32, x, (4, 6), np.zeros(4, dtype=np.uint32), (4,))
    assert bad.get("code") == "SHAPE_MISMATCH" and "[4]" in bad["message"], bad
    unknown = module_prelu(page, base.FLOAT32, x, (4, 6), np.zeros(6, dtype=np.uint32), (6,),
                           variant="unary-vec4")
    assert unknown.get("code") == "INVALID_OPTION" and "prelu-vec4" in unknown["message"], unknown
    half = module_prelu(page, base.FLOAT16, np.zeros(6, dtype=np.uint16), (2, 3),
                        np.zeros(3, dtype=np.uint16), (3,))
    assert "y" in half, half


def test_js_package_prelu_files_are_checked(page):
    """kernel.prelu renders the ai.onnx.PRelu package's files only after
    their sha256 matches metadata.json: the bundle passes, and each file
    changed by one character is refused with DIGEST_MISMATCH."""
    result = page.evaluate(r"""(async () => {
      const p = await import("/js/src/prelu.js");
      const b = await import("/js/src/bundled.js");
      const ok = await p.verifiedPrelu();
      const refused = {};
      const names = Object.keys(JSON.parse(b.PRELU_PACKAGE["metadata.json"]).templates);
      for (const name of names) {
        const bundle = { ...b.PRELU_PACKAGE };
        bundle[name] = bundle[name].replace("u32", "i32");
        try {
          await p.verifiedPrelu(bundle);
          refused[name] = "accepted";
        } catch (e) {
          refused[name] = e.code;
        }
      }
      return { files: Object.keys(ok.files).sort(), refused };
    })()""")
    templates = ("prelu.wgsl.jinja", "prelu-f32.wgsl", "prelu-f16.wgsl",
                 "prelu-vec4.wgsl.jinja", "prelu-vec4-f32.wgsl", "prelu-vec4-f16.wgsl")
    assert result["files"] == sorted(("manifest.json",) + templates), result
    assert result["refused"] == {name: "DIGEST_MISMATCH" for name in templates}, result


def main():
    if cdp.find_chromium() is None:
        print("test_prelu_wgsl_browser: skipped: chromium is not installed")
        return 77
    return pytest.main([__file__, "-q", "-s", "-p", "no:cacheprovider"])


if __name__ == "__main__":
    sys.exit(main())
