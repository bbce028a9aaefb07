#!/usr/bin/env python3
"""20 pinned runs of one quiet command are never flagged unstable (issue 12).
This is a timing property, so it lives here (make bench, release build)
rather than in make test, whose sanitizer build and shared load make tenths
of a 2,000-cycle run too noisy to judge. Usage: pinned_stable.py BENCH"""
import json
import os
import subprocess
import sys

bench = sys.argv[1]
cmd = [bench, "run", "specs/pizzas.yaml", "--targets", "memory", "--cpu", "0", "--runs", "20",
       "--iterations", "2000", "--format", "json", "--quiet"]
out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
doc = json.loads(out)
runs = doc["results"][0]["runs"]
flagged = [(r["run"], r.get("unstable_reason")) for r in runs if r.get("status") != "ok"]
load = os.getloadavg()[0]
print(f"{len(runs)} pinned runs, {len(flagged)} flagged unstable (load {load:.2f}, "
      f"{os.cpu_count()} cores): {' '.join(cmd[1:])}")
for run, why in flagged:
    print(f"  run {run}: {why}")
if len(runs) != 20 or flagged:
    print("goal (none flagged): MISSED")
    sys.exit(1)
print("goal (none flagged): met")
