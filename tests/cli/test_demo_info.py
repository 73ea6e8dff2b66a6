"""`lrelu demo`, `lrelu info`, help and version."""
import json
import re

from cli_util import run


def test_no_subcommand_prints_help(lrelu_path):
    result = run(lrelu_path)
    assert result.returncode == 0
    for word in ["Usage", "apply", "demo", "info"]:
        assert word in result.stdout


def test_help_and_version(lrelu_path):
    for args in [["--help"], ["apply", "--help"], ["demo", "--help"],
                 ["info", "--help"]]:
        result = run(lrelu_path, *args)
        assert result.returncode == 0 and "Usage" in result.stdout, args
    assert "--in-place" in run(lrelu_path, "apply", "--help").stdout
    info = json.loads(run(lrelu_path, "info", "--json").stdout)
    version = run(lrelu_path, "--version")
    assert version.returncode == 0
    assert info["version"] in version.stdout


def test_info_json(lrelu_path):
    result = run(lrelu_path, "info", "--json")
    assert result.returncode == 0 and result.stderr == ""
    info = json.loads(result.stdout)
    assert re.fullmatch(r"\d+\.\d+\.\d+", info["version"])
    assert info["contract_version"] == 1
    assert info["hardware_threads"] >= 1
    assert info["cpu_targets_runnable"], "no runnable SIMD target"
    assert info["cpu_target_selected"] == info["cpu_targets_runnable"][0]
    assert set(info["cpu_targets_runnable"]) <= set(info["cpu_targets_compiled"])


def test_info_text(lrelu_path):
    result = run(lrelu_path, "info")
    assert result.returncode == 0
    info = json.loads(run(lrelu_path, "info", "--json").stdout)
    assert info["version"] in result.stdout
    assert "SIMD target selected:   " + info["cpu_target_selected"] in result.stdout
    assert "hardware threads:       %d" % info["hardware_threads"] in result.stdout


def test_demo(lrelu_path):
    result = run(lrelu_path, "demo", timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "x = [-2, -1, 0, 1, 2]" in out
    assert "y = [-0.02, -0.01, 0, 1, 2]" in out
    assert "x = -3: y = -0.6 (float32)" in out
    assert "(0x80000000) -> -0    (0x80000000)" in out       # -0 stays -0
    assert "(0x7fc12345) -> nan   (0x7fc12345)" in out       # NaN payload kept
    assert "(0xff800000) -> -inf  (0xff800000)" in out       # -inf * alpha
    for dtype in ["float32", "float16", "bfloat16", "float64"]:
        assert re.search(rf"^   {dtype} +\d+ elements .*: OK$", out, re.M), dtype
    rows = re.findall(r"^   (float32|float16) +\d+ [KM]i +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+$",
                      out, re.M)
    assert len(rows) == 8, out


def test_demo_options(lrelu_path):
    result = run(lrelu_path, "demo", "--no-throughput", "--threads", "3")
    assert result.returncode == 0, result.stderr
    assert "Throughput" not in result.stdout
    assert result.stdout.count(": OK") == 4
    bad = run(lrelu_path, "demo", "--threads", "-2")
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and bad.stderr.startswith("lrelu: error: ")
