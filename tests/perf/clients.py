#!/usr/bin/env python3
"""make bench: many clients on the memory target (issue 11's goal: 2 clients
on 2 CPUs give >= 1.5x the throughput of 1 client). pizzas with keys:
per_client (each client its own pools; ${n} unique across clients), the
same invocation but --clients, 5 rounds interleaved (memory 1 client, 2,
then null 1 client, 2), default placement (both CPUs); prints each median
and the ratio. The null target has no store: its ratio is what the harness
alone scales to, the ceiling of the memory target's.

Beside each ratio: the CPUs each invocation got (its CPU time over its
elapsed time, from the kernel's accounting of the child) and what the rest
of the machine used meanwhile (/proc/stat's busy time less the child's).
Two clients cannot go faster than one when the two-client process gets no
more CPU than the one-client process, as happens while other processes
keep both CPUs busy; a miss is then the machine's, and these figures say
so. A miss is reported, not fatal. BENCH_CLIENTS_ITERATIONS sets the cycles
per client (default 100,000: about 0.2 s a pass here, where the threads'
start and the first touches of the store's memory are a larger part than in
a longer pass)."""
import json
import os
import resource
import statistics
import subprocess
import sys
import time

bench = sys.argv[1]
ITERATIONS = os.environ.get("BENCH_CLIENTS_ITERATIONS", "100000")  # cycles per client
args = ["run", "specs/pizzas.yaml", "--iterations", ITERATIONS, "--warmup", "1000", "--runs", "1",
        "--quiet", "--format", "json"]
TICK = os.sysconf("SC_CLK_TCK")
NCPU = os.cpu_count() or 1


def busy_seconds():
    """Every CPU's busy time so far (user, nice, system, irq, softirq, steal)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return (sum(fields[:3]) + sum(fields[5:8])) / TICK


def run(target, clients):
    """(throughput, CPUs the child got, CPUs the rest of the machine used)."""
    before, busy0, wall0 = resource.getrusage(resource.RUSAGE_CHILDREN), busy_seconds(), time.time()
    out = subprocess.run([bench, *args, "--targets", target, "--clients", str(clients)],
                         check=True, capture_output=True, text=True).stdout
    after, busy1, wall1 = resource.getrusage(resource.RUSAGE_CHILDREN), busy_seconds(), time.time()
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    elapsed = wall1 - wall0
    others = max(0.0, (busy1 - busy0) - cpu) / elapsed
    return json.loads(out)["results"][0]["median"]["throughput_per_s"], cpu / elapsed, others


with open("/proc/loadavg") as f:
    before = f.read().split()[:3]
runs = {(t, c): [] for t in ("memory", "null") for c in (1, 2)}
for _ in range(5):
    for key in runs:
        runs[key].append(run(*key))
with open("/proc/loadavg") as f:
    after = f.read().split()[:3]


def med(key, i):
    return statistics.median(r[i] for r in runs[key])


for target in ("memory", "null"):
    m1, m2 = med((target, 1), 0), med((target, 2), 0)
    ratio = m2 / m1
    verdict = f" (goal >= 1.5x: {'met' if ratio >= 1.5 else 'MISSED'})" if target == "memory" else \
        " (the harness alone, no store)"
    print(f"  {target}: 1 client {m1:,.0f} commands/s, 2 clients {m2:,.0f} (medians of 5 "
          f"interleaved): {ratio:.2f}x{verdict}")
    print(f"    CPUs bench got: {med((target, 1), 1):.2f} with 1 client, {med((target, 2), 1):.2f} "
          f"with 2; the rest of the machine used {med((target, 1), 2):.2f} and "
          f"{med((target, 2), 2):.2f} of {NCPU}")
print(f"  {int(ITERATIONS):,} cycles per client; load average {' '.join(before)} before, "
      f"{' '.join(after)} after")
