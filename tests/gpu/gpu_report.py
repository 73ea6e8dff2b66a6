#!/usr/bin/env python3
"""The tables of scripts/gpu-check.sh: steps.csv (step,status,seconds,detail)
plus, when the device ran, bench_kernels.csv (cuda_bench) and
bench_peers.csv (gpu_check.py bench) become results.md and a short summary
on stdout.

  gpu_report.py DIR            write DIR/results.md, print it; exit 1 when a
                               step failed or a kernel was not exact
  gpu_report.py --self-test    the writer on made-up numbers (CI)

Per dtype x pass x size: cudaMemcpy and copy-kernel GB/s, the library's own
call, the best exact variant (and its ratio to cudaMemcpy), torch and
Triton. Bandwidth counts bytes read + written (gradient: 3 streams), so a
ratio is a fraction of the copy's bandwidth. The verdict line checks the
goal: >= 0.9 x cudaMemcpy at >= 2^26 elements for every dtype and pass.
"""
import csv
import os
import sys
import tempfile

GOAL = 0.9
GOAL_LOG2 = 26


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def steps_table(steps):
    lines = ["| step | status | seconds | detail |", "|---|---|---|---|"]
    for s in steps:
        lines.append(f"| {s['step']} | {s['status']} | {s['seconds']} | {s['detail']} |")
    return lines


def bench_tables(kernels, peers):
    """Returns (markdown lines, verdict line, best variant per dtype/pass)."""
    lines = []
    by_key = {}
    for r in kernels:
        by_key.setdefault((r["dtype"], r["pass"], int(r["log2n"])), []).append(r)
    peer_key = {}
    for r in peers:
        peer_key.setdefault((r["dtype"], r["pass"], int(r["log2n"])), {})[r["impl"]] = r
    if not by_key:
        return lines, "performance: not run (no device)", {}
    # The variant that wins most often at >= 2^GOAL_LOG2, per dtype and pass.
    wins = {}
    misses = []
    lines += ["| dtype | pass | n | memcpy GB/s | copy kernel GB/s | library GB/s (x memcpy) "
              "| best variant | best GB/s (x memcpy) | torch GB/s | triton GB/s |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for key in sorted(by_key, key=lambda k: (k[0], k[1], k[2])):
        rows = by_key[key]
        memcpy = next(r for r in rows if r["impl"] == "memcpy")
        copies = [r for r in rows if r["impl"] == "copy_kernel"]
        library = next((r for r in rows if r["impl"] == "lrelu_library"), None)
        exact = [r for r in rows if r["impl"] == "lrelu_kernel" and r["exact"] == "1"]
        best = max(exact, key=lambda r: float(r["gbps"])) if exact else None
        peer = peer_key.get(key, {})
        fmt = lambda r: f"{float(r['gbps']):.0f} ({float(r['ratio_memcpy']):.2f})" if r else "-"
        torch_gbps = peer.get("torch", {}).get("gbps", "not run")
        triton_gbps = peer.get("triton", {}).get("gbps", "not run")
        best_copy = max((float(r["gbps"]) for r in copies), default=0.0)
        lines.append(f"| {key[0]} | {key[1]} | 2^{key[2]} | {float(memcpy['gbps']):.0f} | "
                     f"{best_copy:.0f} | {fmt(library)} | {best['variant'] if best else '-'} | "
                     f"{fmt(best)} | {torch_gbps} | {triton_gbps} |")
        if key[2] >= GOAL_LOG2:
            if best is not None:
                wins.setdefault((key[0], key[1]), {}).setdefault(best["variant"], 0)
                wins[(key[0], key[1])][best["variant"]] += 1
            ratio = float(library["ratio_memcpy"]) if library else 0.0
            if ratio < GOAL:
                misses.append(f"{key[0]} {key[1]} 2^{key[2]}: library {ratio:.2f}")
    chosen = {k: max(v, key=v.get) for k, v in wins.items()}
    verdict = (f"goal >= {GOAL} x cudaMemcpy at >= 2^{GOAL_LOG2} (library call): "
               + ("MET for every dtype and pass" if not misses else
                  "MISSED at " + "; ".join(misses)))
    # The library against torch and Triton at every size (same method).
    behind = []
    for key, rows in sorted(by_key.items()):
        library = next((r for r in rows if r["impl"] == "lrelu_library"), None)
        for peer_name, peer in sorted(peer_key.get(key, {}).items()):
            if peer_name in ("torch", "triton") and library and \
                    float(library["gbps"]) < float(peer["gbps"]):
                behind.append(f"{key[0]} {key[1]} 2^{key[2]} < {peer_name}")
    if peer_key:
        verdict += "\n\nlibrary >= torch and Triton at every size: " + (
            "yes" if not behind else "no: " + "; ".join(behind))
    lines += ["", "Best exact variant at >= 2^%d elements (most wins):" % GOAL_LOG2, ""]
    lines += [f"- {d} {p}: {v}" for (d, p), v in sorted(chosen.items())]
    return lines, verdict, chosen


def report(folder):
    steps = read_csv(os.path.join(folder, "steps.csv"))
    kernels = read_csv(os.path.join(folder, "bench_kernels.csv"))
    peers = read_csv(os.path.join(folder, "bench_peers.csv"))
    bench, verdict, _ = bench_tables(kernels, peers)
    not_exact = [r for r in kernels if r.get("exact") == "0"]
    md = ["# lrelu GPU check", ""] + steps_table(steps) + ["", verdict, ""] + bench
    if not_exact:
        md += ["", f"NOT EXACT: {len(not_exact)} kernel rows (see bench_kernels.csv)"]
    text = "\n".join(md) + "\n"
    with open(os.path.join(folder, "results.md"), "w") as f:
        f.write(text)
    print(text)
    failed = [s for s in steps if s["status"] == "FAIL"]
    return 1 if failed or not_exact else 0


def self_test():
    """The writer on made-up rows: the best exact variant is chosen, a
    variant that is not exact never is, the verdict names a miss, and a
    device-less run reports performance as not run."""
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "steps.csv"), "w") as f:
            f.write("step,status,seconds,detail\ncpu_targets,PASS,3,AVX2 SSE4\n"
                    "cuda_library,NOT RUN,0,no device\n")
        assert report(d) == 0
        text = open(os.path.join(d, "results.md")).read()
        assert "performance: not run (no device)" in text and "| cuda_library | NOT RUN |" in text
        header = ("dtype,pass,log2n,n,impl,variant,ilp,cache,blocks_per_sm,min_blocks,"
                  "median_us,min_us,gbps,ratio_memcpy,ratio_copy_kernel,exact\n")
        rows = []
        for log2 in (20, 26):
            rows.append(f"float32,forward,{log2},1,memcpy,cudaMemcpy,0,0,0,0,1,1,4000,1.0,0,1")
            rows.append(f"float32,forward,{log2},1,copy_kernel,copy,2,0,8,1,1,1,3900,0.975,1,1")
            rows.append(f"float32,forward,{log2},1,lrelu_kernel,fast_but_wrong,2,0,8,1,1,1,"
                        f"4100,1.025,1.05,0")
            rows.append(f"float32,forward,{log2},1,lrelu_kernel,good,2,0,8,1,1,1,3800,0.95,0.97,1")
            rows.append(f"float32,forward,{log2},1,lrelu_library,auto,0,0,0,0,1,1,3400,0.85,0.87,1")
        with open(os.path.join(d, "bench_kernels.csv"), "w") as f:
            f.write(header + "\n".join(rows) + "\n")
        lines, verdict, chosen = bench_tables(read_csv(os.path.join(d, "bench_kernels.csv")), [])
        assert chosen == {("float32", "forward"): "good"}, chosen
        assert "MISSED at float32 forward 2^26: library 0.85" in verdict, verdict
        assert any("| good |" in line and "not run" in line for line in lines), lines
        assert report(d) == 1  # a kernel row is not exact
        peers = [{"dtype": "float32", "pass": "forward", "log2n": "26", "impl": "torch",
                  "gbps": "3500"}]
        _, verdict, _ = bench_tables(read_csv(os.path.join(d, "bench_kernels.csv")), peers)
        assert "no: float32 forward 2^26 < torch" in verdict, verdict
    print("gpu_report self-test: ok")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        sys.exit(self_test())
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(report(sys.argv[1]))
