#!/usr/bin/env python3
"""A known slowdown for measuring the gate (docs/ci.md): the pizzas runtime of
examples/pizzas_runtime.py over the process protocol, which first spins for
BENCH_SPIN_US microseconds (0 by default) on every request. bench itself is
not changed: a wrapper that sets BENCH_SPIN_US for one side of
`bench gate --ab` makes that side's target slower by a set amount per command.
    bench run specs/pizzas.yaml --targets python \
        --process-cmd "python3 scripts/spin_runtime.py"
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
import pizzas_runtime as runtime  # noqa: E402

SPIN = float(os.environ.get("BENCH_SPIN_US", "0")) / 1e6
answer = runtime.answer


def slow_answer(*args):
    end = time.perf_counter() + SPIN
    while time.perf_counter() < end:
        pass
    return answer(*args)


if SPIN > 0:
    runtime.answer = slow_answer

if __name__ == "__main__":
    sys.exit(runtime.main(sys.argv))
