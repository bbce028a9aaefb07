#!/usr/bin/env python3
"""make bench: sweeps of open-loop rates (issue 11), reported, no goal.

Pizzas on the memory target at 50,000, 100,000 and 200,000 cycles/s with one
client, and (under scripts/pg-scratch.sh) on the postgres target at normal
durability at 500, 1,000 and 2,000 cycles/s: one bench run per target with
--rate R1,R2,R3, one row per rate. Prints the command and, per rate, what was
offered and achieved, the response time p50 and p99 (the headline) and the
service time p50, with the load average before and after.

    python3 tests/perf/rate_sweep.py build/release [memory|postgres]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

import peers

SWEEPS = {
    "memory": {"rates": "50000,100000,200000", "iterations": 100000, "spec": None},
    "postgres": {"rates": "500,1000,2000", "iterations": 2000, "spec": "postgres-normal"},
}
RUNS = 3


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def median(result, key):
    values = [run["open_loop"][key] for run in result["runs"] if run.get("open_loop")]
    return statistics.median(values) if values else float("nan")


def sweep(build, which, spec, label):
    s = SWEEPS[which]
    cmd = [os.path.join(build, "bench"), "run", spec, "--targets", label, "--rate", s["rates"],
           "--clients", "1", "--iterations", str(s["iterations"]), "--runs", str(RUNS),
           "--quiet", "--format", "json"]
    before = loadavg()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=peers.ROOT).stdout
    after = loadavg()
    report = json.loads(out)
    if report["failed"] or report["skipped"] or not report["results"]:
        sys.exit(f"rate_sweep: bench did not run: {report['failed'] or report['skipped']}")
    shown = " ".join(
        "SPEC" if c == spec and which == "postgres" else
        os.path.relpath(c, peers.ROOT) if os.path.isabs(c) else c for c in cmd)
    if which == "postgres":
        shown += " (SPEC: specs/pizzas.yaml with a postgres-normal target, tests/perf/peers.py)"
    print(f"  {which}: {shown}")
    for r in report["results"]:
        m = r["median"]
        print(f"    {r['label']}: offered {median(r, 'offered_rate'):,.0f} cycles/s, achieved "
              f"{median(r, 'achieved_rate'):,.0f}; response time p50 {m['p50_us']:,.3f} us, "
              f"p99 {m['p99_us']:,.1f} us; service time p50 "
              f"{median(r, 'service_p50_us'):,.3f} us")
    print(f"    {RUNS} runs per rate (medians), placement {peers.placement()}; load average "
          f"{before} before, {after} after")


def main():
    build = os.path.abspath(sys.argv[1])
    which = sys.argv[2:] or ["memory", "postgres"]
    if "memory" in which:
        sweep(build, "memory", "specs/pizzas.yaml", "memory")
    if "postgres" in which:
        if not os.environ.get("BENCH_PG_SCRATCH"):
            print("  postgres rate sweep: skipped: no scratch PostgreSQL server")
            return
        peers.ensure_database()
        with tempfile.TemporaryDirectory() as tmp:
            spec = os.path.join(tmp, "pizzas_peers.yaml")
            peers.perf_spec(spec)
            sweep(build, "postgres", spec, "postgres-normal")


main()
