"""`lrelu bench`: a tiny run's table and JSON records, a cases file, the
OpenCL backend, and its errors. Every run here takes well under 10 s."""
import json
import os

import pytest

from cli_util import run

BENCH_JSON = os.path.join(os.path.dirname(__file__), "..", "..", "contract",
                          "v1", "bench.json")
REQUIRED = {"case", "dtype", "shape", "threads", "variant", "inplace",
            "median_ns", "gbps", "copy_ratio", "copy_loop_ratio", "backend"}


def contract_bench_cases():
    with open(BENCH_JSON) as f:
        return json.load(f)["cases"]


def opencl_available(lrelu):
    info = json.loads(run(lrelu, "info", "--json").stdout)
    return next(b for b in info["backends"] if b["name"] == "opencl")["available"]


def check_records(records, cases, variants, threads, backend="cpu"):
    assert isinstance(records, list)
    assert len(records) == len(cases) * len(variants) * len(threads)
    by_id = {c["id"]: c for c in cases}
    for r in records:
        assert REQUIRED <= set(r), REQUIRED - set(r)
        c = by_id[r["case"]]
        assert r["dtype"] == c["dtype"] and r["shape"] == c["shape"]
        assert r["inplace"] == c["in_place"]
        assert r["backend"] == backend
        assert r["variant"] in variants and r["threads"] in threads
        assert r["median_ns"] > 0 and r["gbps"] > 0
        assert r["copy_ratio"] > 0 and r["copy_loop_ratio"] > 0
        # GB/s counts every input read once and the output written once.
        assert r["gbps"] == pytest.approx(c["bytes_moved"] / r["median_ns"],
                                          rel=1e-6)


def test_tiny_run_writes_records(lrelu_path, tmp_path):
    out = tmp_path / "out.json"
    result = run(lrelu_path, "bench", "--filter", "float32/n=",
                 "--max-elements", "65536", "--json", out, "--repeat", "3",
                 "--threads", "1,2", "--variant", "auto,contiguous")
    assert result.returncode == 0 and result.stderr == "", result.stderr
    cases = [c for c in contract_bench_cases()
             if "float32/n=" in c["id"] and c["elements"] <= 65536]
    assert len(cases) == 16  # 1, 4, 16, 64 Ki x forward/backward x in place
    records = json.loads(out.read_text())
    check_records(records, cases, ["auto", "contiguous"], [1, 2])
    lines = result.stdout.splitlines()
    assert lines[1].split()[:3] == ["case", "variant", "thr"]
    assert len(lines) == 2 + len(records) + 1
    assert lines[-1].startswith(f"{len(records)} measured, 0 skipped, ")
    for r in records:
        if r["variant"] == "auto":
            assert r["variant_used"] == "contiguous"


def test_cases_file(lrelu_path, tmp_path):
    case = next(c for c in contract_bench_cases()
                if c["id"] == "backward/bfloat16/n=4Ki/in-place")
    path = tmp_path / "cases.json"
    path.write_text(json.dumps({"cases": [case]}))
    out = tmp_path / "out.json"
    result = run(lrelu_path, "bench", "--cases", path, "--json", out,
                 "--repeat", "1", "--variant", "reference,strided")
    assert result.returncode == 0, result.stderr
    check_records(json.loads(out.read_text()), [case],
                  ["reference", "strided"],
                  [json.loads(run(lrelu_path, "info", "--json").stdout)
                   ["hardware_threads"]])


def test_opencl(lrelu_path, tmp_path):
    if not opencl_available(lrelu_path):
        pytest.skip("no OpenCL device")
    out = tmp_path / "out.json"
    result = run(lrelu_path, "bench", "--backend", "opencl", "--filter",
                 "forward/float16/n=1Ki/", "--variant", "scalar,vec4",
                 "--threads", "1", "--repeat", "1", "--json", out)
    assert result.returncode == 0, result.stderr
    cases = [c for c in contract_bench_cases()
             if "forward/float16/n=1Ki/" in c["id"]]
    check_records(json.loads(out.read_text()), cases, ["scalar", "vec4"], [1],
                  backend="opencl")


def one_error_line(result, returncode):
    assert result.returncode == returncode, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("lrelu: error: "), lines
    return lines[0]


@pytest.mark.parametrize("args,returncode,message", [
    (["--filter", "no such case"], 1, "no case matches"),
    (["--max-elements", "0"], 2, "--max-elements"),
    (["--repeat", "0"], 2, "--repeat"),
    (["--threads", "1,,2"], 2, "--threads"),
    (["--threads", "1,1"], 2, "twice"),
    (["--variant", "vec4"], 2, "not a variant of the cpu backend"),
    (["--backend", "cuda"], 2, "--backend"),
    (["--cases", "/nonexistent/bench.json"], 1, "cannot read the cases file"),
    (["--json", "/nonexistent/out.json"], 1, "is not usable"),
])
def test_errors(lrelu_path, args, returncode, message):
    line = one_error_line(run(lrelu_path, "bench", *args), returncode)
    assert message in line


@pytest.mark.parametrize("text", ["[", "{}", "{\"cases\": []}",
                                  "{\"cases\": [{\"id\": \"x\"}]}",
                                  "{\"cases\": [{\"id\": \"x\", \"op\": "
                                  "\"forward\", \"dtype\": \"int8\", "
                                  "\"shape\": [4]}]}"])
def test_malformed_cases_file(lrelu_path, tmp_path, text):
    path = tmp_path / "cases.json"
    path.write_text(text)
    line = one_error_line(run(lrelu_path, "bench", "--cases", path), 1)
    assert str(path) in line
