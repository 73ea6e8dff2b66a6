#!/usr/bin/env python3
"""Relative cost of the WGSL kernels against an older version of them (by
default the templates before the integer multiply, commit a9d929c), on
lavapipe through wgpu-py and on SwiftShader in headless Chromium.

    .venv/bin/python bench/wgsl/cost.py [--old-ref REF] [--n N] [--reps R]

Forward, alpha 0.01, n float32 elements of three kinds: ordinary values
(the float multiply), negative tiny normals whose product is subnormal and
negative subnormals (both the integer multiply). Prints ms per dispatch
(best of R) and new/old. These are CPU devices: numbers measured on a busy
shared machine are rough; compare the ratios.
"""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests/js"))
WORKGROUP = 256


def render(template, helpers, dtype, word, lanes):
    text = template.replace("{{HELPERS}}", helpers)
    for key, value in (("{{WORD}}", word), ("{{LANES}}", str(lanes)), ("{{DTYPE}}", dtype),
                       ("{{WORKGROUP_SIZE}}", str(WORKGROUP))):
        text = text.replace(key, value)
    return text


def new_sources():
    pkg = ROOT / "contract/v1"
    webgpu = json.loads((pkg / "metadata.json").read_text())["webgpu"]
    out = {}
    for v in webgpu["variants"]:
        words = v["words"]["float32"]
        helpers = "\n".join((pkg / h).read_text() for h in webgpu["helpers"]["float32"])
        out[v["name"]] = (render((pkg / v["template"]).read_text(), helpers, "float32",
                                 words["word"], words["lanes"]), words["lanes"])
    return out


def old_sources(ref):
    show = lambda path: subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:{path}"],
                                       check=True, capture_output=True, text=True).stdout
    helpers = show("src/wgsl/helpers-f32.wgsl")
    # The grammar Tint rejects, parenthesised (same meaning) so it compiles.
    helpers = helpers.replace(
        "let negative = (s >> vec4<u32>(31u)) == vec4<u32>(1u) &\n"
        "      (s & vec4<u32>(0x7fffffffu)) - vec4<u32>(1u) < vec4<u32>(0x7f800000u);",
        "let negative = ((s >> vec4<u32>(31u)) == vec4<u32>(1u)) &\n"
        "      ((s & vec4<u32>(0x7fffffffu)) - vec4<u32>(1u) < vec4<u32>(0x7f800000u));")
    return {"unary-vec4": (render(show("src/wgsl/unary-vec4.wgsl"), helpers, "float32", "vec4<u32>", 4), 4),
            "unary-scalar": (render(show("src/wgsl/unary-scalar.wgsl"), helpers, "float32", "u32", 1), 1)}


def datasets(n):
    rng = np.random.default_rng(0)
    ordinary = rng.standard_normal(n).astype(np.float32).view(np.uint32)
    tiny = (np.uint32(0x80000000) | (rng.integers(1, 20, n, dtype=np.uint32) << np.uint32(23))
            | rng.integers(0, 1 << 23, n, dtype=np.uint32))
    subnormal = np.uint32(0x80000000) | rng.integers(1, 1 << 23, n, dtype=np.uint32)
    return {"ordinary": ordinary, "subnormal-product": tiny, "subnormal-x": subnormal}


def cases(n, ref):
    alpha_bits = int(np.array([0.01], dtype=np.float32).view(np.uint32)[0])
    for version, sources in (("old", old_sources(ref)), ("new", new_sources())):
        for variant, (source, lanes) in sources.items():
            for kind in datasets(8):
                yield {"name": f"{version} {variant} {kind}", "source": source, "kind": kind,
                       "alphaBits": alpha_bits, "n": n, "words": n // lanes, "workgroup": WORKGROUP}


def run_lavapipe(n, ref, reps):
    import time  # pylint: disable=import-outside-toplevel
    import wgpu  # pylint: disable=import-outside-toplevel
    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    device = adapter.request_device_sync(required_limits={
        "max_storage_buffer_binding_size": adapter.limits["max-storage-buffer-binding-size"],
        "max_buffer_size": adapter.limits["max-buffer-size"]})
    data = datasets(n)
    results = {}
    for c in cases(n, ref):
        usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_DST
        v = device.create_buffer_with_data(data=data[c["kind"]].tobytes(), usage=usage)
        out = device.create_buffer(size=n * 4, usage=usage)
        params = device.create_buffer_with_data(
            data=np.array([c["alphaBits"], n, 0, 0], dtype=np.uint32).tobytes(),
            usage=wgpu.BufferUsage.UNIFORM)
        module = device.create_shader_module(code=c["source"])
        pipeline = device.create_compute_pipeline(layout="auto", compute={"module": module, "entry_point": "forward"})
        group = device.create_bind_group(layout=pipeline.get_bind_group_layout(0), entries=[
            {"binding": 0, "resource": {"buffer": v}}, {"binding": 2, "resource": {"buffer": out}},
            {"binding": 3, "resource": {"buffer": params}}])
        groups = -(-c["words"] // WORKGROUP)
        gx = min(groups, 65535)
        best = float("inf")
        for _ in range(reps):
            t0 = time.perf_counter()
            encoder = device.create_command_encoder()
            compute = encoder.begin_compute_pass()
            compute.set_pipeline(pipeline)
            compute.set_bind_group(0, group)
            compute.dispatch_workgroups(gx, -(-groups // gx), 1)
            compute.end()
            device.queue.submit([encoder.finish()])
            device.queue.on_submitted_work_done_sync()
            best = min(best, (time.perf_counter() - t0) * 1000)
        results[c["name"]] = best
    return adapter.info["device"], results


def run_swiftshader(n, ref, reps):
    import cdp  # pylint: disable=import-outside-toplevel
    import server  # pylint: disable=import-outside-toplevel
    with tempfile.TemporaryDirectory() as tmp:
        for kind, bits in datasets(n).items():
            (pathlib.Path(tmp) / f"{kind}.bin").write_bytes(bits.tobytes())
        all_cases = list(cases(n, ref))
        for c in all_cases:
            c["data"] = f"/data/{c['kind']}.bin"
        with server.Server(tmp) as web, cdp.Browser() as browser:
            page = browser.new_page()
            page.navigate(web.url("/page.html"))
            report = page.evaluate(
                f"(async () => {{ await import('/bench/wgsl/cost.js');"
                f" return lreluCost({json.dumps(all_cases)}, {reps}); }})()", timeout=590)
            return report["adapter"], {r["name"]: r["ms"] for r in report["results"]}


def table(title, device, results):
    print(f"\n{title}: {device}")
    print("| variant | data | old ms | new ms | new/old |\n|---|---|---:|---:|---:|")
    for variant in ("unary-vec4", "unary-scalar"):
        for kind in datasets(8):
            old, new = results[f"old {variant} {kind}"], results[f"new {variant} {kind}"]
            print(f"| {variant} | {kind} | {old:.1f} | {new:.1f} | {new / old:.2f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old-ref", default="a9d929c")
    parser.add_argument("--n", type=int, default=1 << 22)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--only", choices=["lavapipe", "swiftshader"])
    args = parser.parse_args()
    if args.only != "swiftshader":
        table("lavapipe (wgpu-py)", *run_lavapipe(args.n, args.old_ref, args.reps))
    if args.only != "lavapipe":
        table("SwiftShader (headless Chromium)", *run_swiftshader(args.n, args.old_ref, args.reps))


if __name__ == "__main__":
    main()
