#!/usr/bin/env python3
"""What a SCHED_IDLE process takes from a normal one here (docs/benchmarks.md,
"Many clients"): a normal busy loop's share of a CPU, alone, beside one
SCHED_IDLE busy loop per CPU in its own session, and beside the same loops
each in a session of its own (setsid: with autogroup on, a session is a
scheduling group, and groups share the CPUs evenly whatever the policy of
the tasks inside). 3 rounds, interleaved; prints the medians. Not part of
`make bench`: it explains the CPUs bench gets while the fuzzers run."""
import os
import statistics
import subprocess
import sys
import time

SECONDS = 1.0
NCPU = os.cpu_count() or 1
BURN = "import time\nend = time.time() + %f\nwhile time.time() < end: pass\n"


def burners(own_session):
    def idle():
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    return [subprocess.Popen([sys.executable, "-c", BURN % (SECONDS + 0.4)], preexec_fn=idle,
                             start_new_session=own_session) for _ in range(NCPU)]


def share():
    """A busy loop's CPU time over its wall time."""
    w0, c0 = time.monotonic(), time.thread_time()
    while time.monotonic() - w0 < SECONDS:
        pass
    return (time.thread_time() - c0) / (time.monotonic() - w0)


def measure(own_session):
    procs = burners(own_session) if own_session is not None else []
    time.sleep(0.1)
    s = share()
    for p in procs:
        p.wait()
    return s


with open("/proc/sys/kernel/sched_autogroup_enabled") as f:
    autogroup = f.read().strip() == "1"
rows = {"alone": [], "beside SCHED_IDLE loops in this session": [],
        "beside SCHED_IDLE loops each in its own session": []}
for _ in range(3):
    for name, own in zip(rows, (None, False, True)):
        rows[name].append(measure(own))
with open("/proc/loadavg") as f:
    load = " ".join(f.read().split()[:3])
print(f"  a normal busy loop's share of a CPU ({NCPU} CPUs, autogroup "
      f"{'on' if autogroup else 'off'}, load average {load}):")
for name, v in rows.items():
    print(f"    {name}: {statistics.median(v):.2f}")
