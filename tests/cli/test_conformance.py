"""`lrelu test`: the contract's cases on every CPU variant, layout and SIMD
target, on OpenCL, and on broken or malformed case files."""
import copy
import json
import os
import re

import pytest

from cli_util import run

TEST_JSON = os.path.join(os.path.dirname(__file__), "..", "..", "contract",
                         "v1", "test.json")
# `lrelu test` runs the PRelu package's cases too (CPU only: on a device
# backend they count as skipped).
PRELU_TEST_JSON = os.path.join(os.path.dirname(__file__), "..", "..",
                               "contract", "prelu", "v1", "test.json")
CLOSING = re.compile(r"(\d+) passed, (\d+) failed(?:, (\d+) skipped)?")
RUNS = re.compile(r"(\d+) configurations x (\d+) cases: (\d+) runs passed, "
                  r"(\d+) failed(?:, (\d+) skipped)?")
# Per SIMD target: reference and strided on both layouts, contiguous on the
# contiguous one, each in place and out of place.
CPU_RUNS_PER_TARGET = 10


def contract_cases():
    with open(TEST_JSON) as f:
        return json.load(f)


def prelu_count():
    with open(PRELU_TEST_JSON) as f:
        return len(json.load(f)["cases"])


def all_count():
    """Cases `lrelu test` runs by default: LeakyRelu's and PRelu's."""
    return len(contract_cases()["cases"]) + prelu_count()


def info(lrelu):
    return json.loads(run(lrelu, "info", "--json").stdout)


def backend(lrelu, name):
    return next(b for b in info(lrelu)["backends"] if b["name"] == name)


def run_test(lrelu, *args, timeout=300):
    """Runs `lrelu test`; returns (result, closing counts, runs line)."""
    result = run(lrelu, "test", *args, timeout=timeout)
    lines = result.stdout.splitlines()
    assert lines, result.stderr
    closing = CLOSING.fullmatch(lines[-1])
    assert closing, lines[-1]
    runs = RUNS.fullmatch(lines[-2])
    assert runs, lines[-2]
    counts = tuple(int(g or 0) for g in closing.groups())
    return result, counts, tuple(int(g or 0) for g in runs.groups())


def write_cases(path, cases):
    doc = contract_cases()
    doc["cases"] = cases
    path.write_text(json.dumps(doc))
    return path


def flip_first_expected_bit(case):
    case = copy.deepcopy(case)
    out = "y" if case["op"] == "forward" else "dx"
    bits = case["expected"][out][0]
    case["expected"][out][0] = format(int(bits, 16) ^ 1, "0%dx" % len(bits))
    return case


def test_default_runs_every_cpu_variant(lrelu_path):
    result, (passed, failed, skipped), runs = run_test(lrelu_path)
    n = all_count()
    assert result.returncode == 0 and result.stderr == ""
    assert (passed, failed, skipped) == (n, 0, 0)
    # PReLU's cases skip the forced contiguous variant (two runs).
    prelu_skips = 2 * prelu_count()
    assert runs == (CPU_RUNS_PER_TARGET, n,
                    CPU_RUNS_PER_TARGET * n - prelu_skips, 0, prelu_skips)
    assert "FAIL" not in result.stdout


def test_every_cpu_target(lrelu_path):
    targets = info(lrelu_path)["cpu_targets_runnable"]
    result, counts, runs = run_test(lrelu_path, "--cpu-target", "all",
                                    "--verbose")
    n = all_count()
    assert result.returncode == 0, result.stdout
    assert counts == (n, 0, 0)
    assert runs[0] == CPU_RUNS_PER_TARGET * len(targets)
    for target in targets:
        for variant in ["reference", "contiguous", "strided"]:
            assert f"ok   cpu/{variant}/{target} (contiguous layout, in place)" \
                in result.stdout
        assert f"ok   cpu/strided/{target} (strided layout, out of place)" \
            in result.stdout


@pytest.mark.parametrize("variant,configurations", [
    ("reference", 4), ("contiguous", 2), ("strided", 4),
    ("auto", 4), ("contiguous,strided", 6)])
def test_variant_selection(lrelu_path, variant, configurations):
    result, counts, runs = run_test(lrelu_path, "--variant", variant,
                                    "--threads", "2")
    assert result.returncode == 0 and counts[1] == 0
    assert runs[0] == configurations


def test_opencl(lrelu_path):
    opencl = backend(lrelu_path, "opencl")
    if not opencl["available"]:
        pytest.skip("no OpenCL device: " + opencl["unavailable_reason"])
    result, counts, runs = run_test(lrelu_path, "--backend", "opencl",
                                    "--verbose")
    n = len(contract_cases()["cases"])
    assert result.returncode == 0, result.stdout
    assert counts == (n, 0, prelu_count())  # PReLU runs on the CPU only
    # scalar and vec4 per device, in place and not, contiguous layout only.
    assert runs[0] == 4 * opencl["device_count"]
    assert "n/a opencl: strided layout" in result.stdout
    assert "ok   opencl/vec4/device0 (contiguous layout, in place)" \
        in result.stdout


def test_all_backends_and_targets(lrelu_path):
    result, counts, runs = run_test(lrelu_path, "--backend", "all",
                                    "--cpu-target", "all")
    n = all_count()
    assert result.returncode == 0, result.stdout
    assert counts == (n, 0, 0)
    # PReLU's cases skip the forced contiguous variant of each SIMD target.
    targets = info(lrelu_path)["cpu_targets_runnable"]
    skipped_runs = 2 * prelu_count() * len(targets)
    for b in info(lrelu_path)["backends"]:
        if not b["available"]:
            assert f"SKIP {b['name']}: not available: " \
                f"{b['unavailable_reason']}" in result.stdout
            skipped_runs += 4 * n  # scalar and vec4, in place and not
        elif b["name"] != "cpu":
            # PReLU's cases on each device's scalar and vec4 runs.
            skipped_runs += 4 * b["device_count"] * prelu_count()
    assert runs[4] == skipped_runs


def test_unavailable_backend_is_skipped(lrelu_path):
    cuda = backend(lrelu_path, "cuda")
    if cuda["available"]:
        pytest.skip("this machine has a CUDA device")
    result, counts, runs = run_test(lrelu_path, "--backend", "cuda")
    n = all_count()
    assert result.returncode == 0
    assert counts == (0, 0, n)
    assert result.stdout.splitlines()[-1] == f"0 passed, 0 failed, {n} skipped"
    assert result.stdout.startswith("SKIP cuda: not available: ")


def test_broken_case_fails(lrelu_path, tmp_path):
    cases = contract_cases()["cases"]
    good = next(c for c in cases if c["op"] == "forward" and "expected" in c)
    broken = flip_first_expected_bit(good)
    broken["id"] += "/broken"
    path = write_cases(tmp_path / "broken.json", [broken])
    result, counts, runs = run_test(lrelu_path, "--cases", path)
    assert result.returncode == 1 and result.stderr == ""
    assert result.stdout.splitlines()[-1] == "0 passed, 1 failed"
    assert counts == (0, 1, 0)
    fails = [l for l in result.stdout.splitlines() if l.startswith("FAIL ")]
    assert len(fails) == runs[0] == runs[3] == CPU_RUNS_PER_TARGET
    target = info(lrelu_path)["cpu_target_selected"]
    assert fails[0].startswith(f"FAIL cpu/reference/{target} {broken['id']}: ")
    assert "expected" in fails[0] and "got" in fails[0]

    # A good case next to it still passes.
    path = write_cases(tmp_path / "mixed.json", [good, broken])
    result, counts, _ = run_test(lrelu_path, "--cases", path)
    assert result.returncode == 1
    assert result.stdout.splitlines()[-1] == "1 passed, 1 failed"


def test_broken_backward_case_fails_on_opencl(lrelu_path, tmp_path):
    if not backend(lrelu_path, "opencl")["available"]:
        pytest.skip("no OpenCL device")
    cases = contract_cases()["cases"]
    good = next(c for c in cases if c["op"] == "backward" and "expected" in c)
    path = write_cases(tmp_path / "broken.json", [flip_first_expected_bit(good)])
    result, counts, _ = run_test(lrelu_path, "--cases", path, "--backend",
                                 "opencl", "--variant", "vec4")
    assert result.returncode == 1
    assert counts == (0, 1, 0)
    assert "FAIL opencl/vec4/device0 " in result.stdout


def one_error_line(result, returncode):
    assert result.returncode == returncode, result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("lrelu: error: "), lines
    return lines[0]


@pytest.mark.parametrize("name,text,message", [
    ("not-json", "{\"cases\": [", "is not usable"),
    ("no-cases", "{}", "is not usable"),
    ("empty", "{\"cases\": []}", "has no cases"),
    ("missing-field", "{\"cases\": [{\"id\": \"a\"}]}", "is not usable"),
    ("bad-bits", None, "is not usable"),
    ("wrong-length", None, "is not usable"),
])
def test_malformed_cases_file(lrelu_path, tmp_path, name, text, message):
    path = tmp_path / (name + ".json")
    if text is not None:
        path.write_text(text)
    else:
        case = copy.deepcopy(contract_cases()["cases"][0])
        if name == "bad-bits":
            case["inputs"]["x"][0] = "zz\nzz"
        else:
            case["inputs"]["x"].append("0000")
        write_cases(path, [case])
    line = one_error_line(run(lrelu_path, "test", "--cases", path), 1)
    assert message in line and str(path) in line


def test_missing_cases_file(lrelu_path, tmp_path):
    line = one_error_line(
        run(lrelu_path, "test", "--cases", tmp_path / "none.json"), 1)
    assert "cannot read the cases file" in line


@pytest.mark.parametrize("args", [
    ["--backend", "gpu"], ["--variant", "vec4"], ["--variant", "bogus"],
    ["--variant", "reference,"], ["--cpu-target", "NOPE"],
    ["--threads", "x"], ["--bogus"]])
def test_bad_command_line(lrelu_path, args):
    one_error_line(run(lrelu_path, "test", *args), 2)
