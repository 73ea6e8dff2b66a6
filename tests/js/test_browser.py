#!/usr/bin/env python3
"""The JavaScript package (js/) in real headless Chromium with WebGPU.

Serves js/ and a test page from 127.0.0.1, drives Chromium over the DevTools
protocol (--remote-debugging-pipe, cdp.py), imports the package through its
package.json `exports` entry and checks, bit for bit against the Python
oracle (contract/bits.py, directly or through contract/v1/test.json):
every float32 and float16 case of test.json, all 65,536 float16 patterns and
1 Mi random float32 patterns (subnormals, +-0, +-inf, NaN payloads), forward
and gradient, under alphas 0.01, 0.2, -1.5, 0, 1e-40, +-inf and NaN; the
errors the API promises; that the WGSL it renders is liblrelu's
(lrelu_kernel_source); and the demo page's plot, from a screenshot.

Run directly (ctest does): exits 77 (skipped) when chromium is not
installed. LRELU_LIBRARY names liblrelu.so; LRELU_SCREENSHOT names the PNG
to write (default: lrelu-demo-screenshot.png in the temporary directory).
"""
import ctypes
import io
import os
import pathlib
import struct
import subprocess
import sys
import tempfile

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "contract"))
import bits as B  # pylint: disable=wrong-import-position
import cdp  # pylint: disable=wrong-import-position
import server  # pylint: disable=wrong-import-position

ALPHAS = [0.01, 0.2, -1.5, 0.0, 1e-40, float("inf"), float("-inf"), float("nan")]
F32_COUNT = 1 << 20


def f64_hex(alpha):
    return struct.pack(">d", alpha).hex()


@pytest.fixture(scope="module")
def data_dir():
    with tempfile.TemporaryDirectory(prefix="lrelu-js-") as d:
        yield pathlib.Path(d)


@pytest.fixture(scope="module")
def web(data_dir):
    with server.Server(str(data_dir)) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser():
    with cdp.Browser() as b:
        yield b


@pytest.fixture(scope="module")
def page(browser, web):
    p = browser.new_page()
    p.navigate(web.url("/page.html"))
    p.evaluate("new Promise((ok, bad) => { let n = 0; const t = () => window.lreluReady ? ok() :"
               " ++n > 500 ? bad(new Error('the test module did not load')) : setTimeout(t, 20); t(); })",
               timeout=30)
    return p


def test_package_json_is_publishable():
    """The fields npm and bundlers read, and that they name real files."""
    import json  # pylint: disable=import-outside-toplevel
    pkg = json.loads((ROOT / "js/package.json").read_text())
    assert pkg["type"] == "module" and pkg["name"] and pkg["version"]
    assert "dependencies" not in pkg  # no runtime dependencies
    entry = pkg["exports"]["."]
    for path in (entry["default"], entry["types"], pkg["types"], pkg["main"]):
        assert (ROOT / "js" / path).is_file(), path
    for path in pkg["files"]:
        assert (ROOT / "js" / path).exists(), path
    # Every module the entry imports ships (relative imports inside src/).
    for js in (ROOT / "js/src").glob("*.js"):
        for line in js.read_text().splitlines():
            if line.startswith("import ") and " from " in line:
                target = line.split(" from ")[1].strip(' ";\'')
                assert target.startswith("./") and (js.parent / target).is_file(), (js, target)


def test_adapter(page):
    info = page.evaluate("lreluChecks.adapter()")
    print("adapter:", info["info"]["adapter"], "|", info["userAgent"])
    assert info["info"]["adapter"] is not None
    assert info["info"]["version"] == 1
    assert info["info"]["variants"] == ["unary-vec4", "unary-scalar"]


def library_source(dtype, variant):
    lib = ctypes.CDLL(os.environ.get("LRELU_LIBRARY", str(ROOT / "build/ci/src/liblrelu.so")))
    lib.lrelu_kernel_source.argtypes = [
        ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32,
        ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]
    code = {"float32": 1, "float16": 2}[dtype]
    length = ctypes.c_size_t()
    args = [b"wgsl", code, variant.encode(), 256]
    assert lib.lrelu_kernel_source(*args, None, 0, ctypes.byref(length)) == 0
    buf = ctypes.create_string_buffer(length.value + 1)
    assert lib.lrelu_kernel_source(*args, buf, len(buf), ctypes.byref(length)) == 0
    return buf.value.decode()


def test_sources_are_the_librarys(page):
    """The module and lrelu_kernel_source render the same package files."""
    sources = page.evaluate("lreluChecks.sources()")
    assert len(sources) == 4
    cli = os.environ.get("LRELU_CLI")
    for key, text in sources.items():
        dtype, variant = key.split("/")
        assert text == library_source(dtype, variant.replace("unary-", "")), key
        if cli:  # `lrelu emit` prints the same text
            emitted = subprocess.run(
                [cli, "emit", "--target", "wgsl", "--dtype", dtype, "--variant",
                 variant.replace("unary-", ""), "--workgroup-size", "256"],
                check=True, capture_output=True, text=True).stdout
            assert emitted.rstrip("\n") == text.rstrip("\n"), key


def test_every_test_json_case(page, web):
    import json  # pylint: disable=import-outside-toplevel
    doc = json.loads((ROOT / "contract/v1/test.json").read_text())
    want = {c["id"] for c in doc["cases"] if c["dtype"] in ("float32", "float16")}
    result = page.evaluate(f"lreluChecks.testJson({json.dumps(web.url('/pkg/v1/test.json'))})")
    assert result["failureCount"] == 0, result["failures"]
    assert result["cases"] == len(want) and result["runs"] >= 2 * len(want)


def write(data_dir, name, array):
    (data_dir / name).write_bytes(np.ascontiguousarray(array).tobytes())
    return "/data/" + name


def sweep(page, data_dir, tag, dtype, op, x, dy, variant, f16_kind="Uint16Array"):
    spec = {"dtype": dtype, "op": op, "variant": variant, "f16Kind": f16_kind,
            "x": write(data_dir, f"{tag}-x.bin", x), "alphas": []}
    if dy is not None:
        spec["dy"] = write(data_dir, f"{tag}-dy.bin", dy)
    for i, alpha in enumerate(ALPHAS):
        if op == "forward":
            expected, anynan = B.forward(x, alpha, dtype)
        else:
            expected, anynan = B.backward(dy, x, alpha, dtype)
        spec["alphas"].append({
            "alpha": f64_hex(alpha),
            "expected": write(data_dir, f"{tag}-e{i}.bin", expected),
            "anynan": write(data_dir, f"{tag}-n{i}.bin", anynan.astype(np.uint8))})
    import json  # pylint: disable=import-outside-toplevel
    result = page.evaluate(f"lreluChecks.sweep({json.dumps(spec)})")
    assert result["n"] == x.size
    assert result["inputUnchanged"]
    for r in result["results"]:
        assert r["bad"] == 0, (tag, r)
    return result


@pytest.mark.parametrize("variant", ["unary-vec4", "unary-scalar"])
@pytest.mark.parametrize("op", ["forward", "backward"])
def test_float16_every_pattern(page, data_dir, variant, op):
    x = np.arange(1 << 16, dtype=np.uint16)
    dy = None
    if op == "backward":  # every pattern as dy, against a shuffled x
        dy = x.copy()
        x = np.random.default_rng(5).permutation(x)
    kind = "Float16Array" if variant == "unary-scalar" else "Uint16Array"
    sweep(page, data_dir, f"f16-{op}-{variant}", "float16", op, x, dy, variant, kind)


def float32_patterns(n, rng):
    """A quarter each: any bits (NaN payloads included), subnormals, tiny
    normals (alpha * x subnormal), ordinary values with specials mixed in."""
    q = n // 4
    anything = rng.integers(0, 1 << 32, q, dtype=np.uint64).astype(np.uint32)
    sign = rng.integers(0, 2, n, dtype=np.uint32) << np.uint32(31)
    subnormal = rng.integers(1, 1 << 23, q, dtype=np.uint32) | sign[:q]
    exponent = rng.integers(1, 40, q, dtype=np.uint32) << np.uint32(23)
    tiny = exponent | rng.integers(0, 1 << 23, q, dtype=np.uint32) | sign[q:2 * q]
    ordinary = rng.standard_normal(n - 3 * q).astype(np.float32).view(np.uint32)
    specials = np.array([0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000,
                         0x7f800001, 0xff800001, 0xffa5a5a5, 1, 0x80000001, 0x807fffff,
                         0x80800000, 0xff7fffff, 0x7f7fffff], dtype=np.uint32)
    pick = rng.random(ordinary.size) < 0.1
    ordinary[pick] = specials[rng.integers(0, specials.size, pick.sum())]
    out = np.concatenate([anything, subnormal, tiny, ordinary])
    return rng.permutation(out)


@pytest.mark.parametrize("op", ["forward", "backward"])
def test_float32_random_patterns(page, data_dir, op):
    rng = np.random.default_rng(7 if op == "forward" else 8)
    x = float32_patterns(F32_COUNT, rng)
    dy = float32_patterns(F32_COUNT, rng) if op == "backward" else None
    result = sweep(page, data_dir, f"f32-{op}", "float32", op, x, dy, "unary-vec4")
    print(op, "ms per alpha:", [round(r["ms"]) for r in result["results"]])


def test_chunks(page):
    """Tensors split over many dispatches (48-byte chunks)."""
    import json  # pylint: disable=import-outside-toplevel
    rng = np.random.default_rng(11)
    xs = {"float32": float32_patterns(1001, rng), "float16": rng.integers(0, 1 << 16, 999, dtype=np.uint16)}
    got = page.evaluate(f"lreluChecks.chunked({json.dumps({d: B.to_hex(x, d) for d, x in xs.items()})})")
    assert len(got) == 4
    for key, (y, dx) in got.items():
        dtype = key.split("/")[1]
        x = xs[dtype]
        for bits, (want, anynan) in ((y, B.forward(x, -1.5, dtype)), (dx, B.backward(x, x, 0.2, dtype))):
            bits = np.array(bits, dtype=want.dtype)
            nan = B.is_nan_bits(bits, dtype)
            assert np.all((bits == want) | (anynan & nan)), key


def test_errors_name_the_problem(page, web):
    import json  # pylint: disable=import-outside-toplevel
    results = page.evaluate(f"lreluChecks.errors({json.dumps(web.url(''))})")
    assert len(results) == 20
    for r in results:
        assert r["code"] == r["expected"], r
        assert r["isKernelError"] and len(r["message"]) > 20, r
        print(r["code"], "-", r["message"])
    digest = next(r for r in results if r["code"] == "DIGEST_MISMATCH")
    assert server.TAMPERED_FILE in digest["message"]


def test_features(page, web):
    import json  # pylint: disable=import-outside-toplevel
    revision = "0123456789abcdef0123456789abcdef01234567"
    r = page.evaluate(f"lreluChecks.features({json.dumps(web.url(''))}, '{revision}')")
    assert r["shaPin"] == "bundled:ai.onnx.LeakyRelu@1"
    assert r["revisionPin"] == web.url(f"/rev/{revision}/")
    assert r["baseUrl"] == web.url("/pkg/v1/")
    assert r["ownDevice"]
    # The second call made no buffer and no pipeline.
    assert r["reuse"]["afterSecond"] == r["reuse"]["afterFirst"], r["reuse"]
    x = np.array([-3, 5, -0.0, 7], dtype=np.float32).view(np.uint32)
    as_list = lambda bits: bits.view(np.float32).tolist()
    assert r["values"][0] == as_list(B.forward(x, 0.5, "float32")[0])
    assert r["values"][1] == [2, 2]
    assert r["values"][2] == as_list(B.forward(x, 0.25, "float32")[0])
    for alpha, got in zip([1, 2, 3, 4], r["concurrent"]):
        assert got == as_list(B.forward(x, alpha, "float32")[0])
    four = np.array([-4], dtype=np.float32).view(np.uint32)
    assert r["rank0"] == {"data": as_list(B.forward(four, 0.01, "float32")[0]), "shape": []}
    assert r["empty"] == {"length": 0, "shape": [3, 0], "type": "Float32Array"}
    h = np.array([0xc000, 0x4200], dtype=np.uint16)
    want16 = B.forward(h, 0.01, "float16")[0]
    assert r["float16Array"]["type"] == "Float16Array"
    assert r["float16Array"]["data"] == want16.view(np.float16).astype(float).tolist()
    assert r["float16Bits"] == {"type": "Uint16Array", "data": want16.tolist(), "dtype": "float16"}
    assert r["variants"] == {"default": "unary-vec4", "chosen": "unary-scalar",
                             "perCall": "unary-scalar", "used": "unary-scalar"}


def test_demo_page_draws_the_curves(browser, web):
    """Screenshot of js/demo/: LeakyReLU (from the kernel) and ReLU are drawn
    where the oracle's values put them; elsewhere the plot is background."""
    from PIL import Image  # pylint: disable=import-outside-toplevel
    alpha = 0.2
    p = browser.new_page()
    p.navigate(web.url(f"/js/demo/index.html?alpha={alpha}"))
    demo = p.evaluate("new Promise((ok, bad) => { let n = 0; const t = () => window.demo ? ok(window.demo) :"
                      " ++n > 1000 ? bad(new Error('the demo did not finish')) : setTimeout(t, 20); t(); })",
                      timeout=60)
    assert "error" not in demo, demo
    png = p.screenshot()
    out = pathlib.Path(os.environ.get(
        "LRELU_SCREENSHOT", os.path.join(tempfile.gettempdir(), "lrelu-demo-screenshot.png")))
    out.write_bytes(png)
    print("screenshot:", out.resolve())
    image = Image.open(io.BytesIO(png)).convert("RGB")
    canvas, box = demo["canvas"], demo["box"]
    scale = canvas["cssWidth"] / canvas["width"]
    (x0, x1), (y0, y1) = demo["xRange"], demo["yRange"]

    def pixel_of(x, y):  # plot coordinates -> screenshot pixel
        cx = box["left"] + (x - x0) / (x1 - x0) * box["width"]
        cy = box["top"] + (y1 - y) / (y1 - y0) * box["height"]
        return round(canvas["left"] + cx * scale), round(canvas["top"] + cy * scale)

    def color(hex_color):
        return tuple(int(hex_color[i:i + 2], 16) for i in (1, 3, 5))

    def near(x, y, rgb, reach=3):
        px, py = pixel_of(x, y)
        for dy in range(-reach, reach + 1):
            got = image.getpixel((px, py + dy))
            if all(abs(a - b) <= 40 for a, b in zip(got, rgb)):
                return True
        return False

    red, blue = color(demo["colors"]["lrelu"]), color(demo["colors"]["relu"])
    xs = np.array([-3.5, -2.5, -1.25, 0.75, 2.0, 3.5], dtype=np.float32)
    ys = B.forward(xs.view(np.uint32), alpha, "float32")[0].view(np.float32)
    for x, y in zip(xs, ys):
        assert near(float(x), float(y), red), f"LeakyReLU not drawn at x={x}, y={y}"
        if x < 0:
            assert near(float(x), 0.0, blue), f"ReLU not drawn at x={x}"
            assert not near(float(x), float(y), blue), f"ReLU drawn on LeakyReLU at x={x}"
    for x, y in [(-3.0, 3.0), (2.5, -1.0), (-1.5, 2.2)]:  # away from both curves
        px, py = pixel_of(x, y)
        got = image.getpixel((px, py))
        assert min(got) > 200, f"not background at ({x}, {y}): {got}"


def main():
    if cdp.find_chromium() is None:
        print("test_browser: skipped: chromium is not installed (scripts/install-deps.sh)")
        return 77
    return pytest.main([__file__, "-q", "-s", "-p", "no:cacheprovider"] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
