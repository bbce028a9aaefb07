#!/usr/bin/env python3
"""Two builds of bench side by side: interleaved runs of the same spec on
the memory target, each pair one run of A then one of B, pinned to one CPU,
and the median of the pairs' throughput ratios (B / A). For measuring a
change on a shared, noisy machine: the two builds see the same moments.

  ab_pairs.py BENCH_A BENCH_B SPEC [PAIRS] [CPU]

Each run: bench run SPEC --targets memory --iterations 300000 --warmup 1000
--runs 3 --cpu CPU (the median of its 3 runs). PAIRS defaults to 5, CPU
to 1. Prints each pair (commands/s and p50 of both) and the median ratio."""
import json
import statistics
import subprocess
import sys


def run(bench, spec, cpu):
    out = subprocess.run(
        [bench, "run", spec, "--targets", "memory", "--iterations", "300000", "--warmup", "1000",
         "--runs", "3", "--cpu", cpu, "--quiet", "--format", "json"],
        capture_output=True, text=True, check=True).stdout
    median = json.loads(out)["results"][0]["median"]
    return median["throughput_per_s"], median["p50_us"]


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    a, b, spec = sys.argv[1:4]
    pairs = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    cpu = sys.argv[5] if len(sys.argv) > 5 else "1"
    ratios = []
    for _ in range(pairs):
        ra, rb = run(a, spec, cpu), run(b, spec, cpu)
        ratios.append(rb[0] / ra[0])
        print(f"A {ra[0]:,.0f} commands/s p50 {ra[1]:.3f} us | B {rb[0]:,.0f} commands/s "
              f"p50 {rb[1]:.3f} us | B/A {ratios[-1]:.3f}", flush=True)
    print(f"median B/A of {pairs} interleaved pairs on CPU {cpu}: {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
