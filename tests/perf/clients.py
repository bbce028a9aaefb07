#!/usr/bin/env python3
"""make bench: many clients on the memory target (issue 11's goal: 2 clients
on 2 CPUs give >= 1.5x the throughput of 1 client). pizzas with keys:
per_client (each client its own pools; ${n} unique across clients), the
same invocation but --clients, 5 pairs interleaved (1 client, then 2),
default placement (both CPUs); prints each median and the ratio. A miss is
reported, not fatal: the memory store locks the stripe of each record a
transaction touches (docs/spec.md, "Many clients"), so the two clients run
in parallel on their own records, and the ratio depends on the two CPUs
being free for them (the load average printed)."""
import json
import statistics
import subprocess
import sys

bench = sys.argv[1]
args = ["run", "specs/pizzas.yaml", "--targets", "memory", "--iterations", "100000",
        "--warmup", "1000", "--runs", "1", "--quiet", "--format", "json"]


def throughput(clients):
    out = subprocess.run([bench, *args, "--clients", str(clients)], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["results"][0]["median"]["throughput_per_s"]


with open("/proc/loadavg") as f:
    before = f.read().split()[:3]
one, two = [], []
for _ in range(5):
    one.append(throughput(1))
    two.append(throughput(2))
with open("/proc/loadavg") as f:
    after = f.read().split()[:3]
m1, m2 = statistics.median(one), statistics.median(two)
ratio = m2 / m1
print(f"  1 client {m1:,.0f} commands/s, 2 clients {m2:,.0f} (median of 5 interleaved): "
      f"{ratio:.2f}x (goal >= 1.5x: {'met' if ratio >= 1.5 else 'MISSED'}); load average "
      f"{' '.join(before)} before, {' '.join(after)} after")
