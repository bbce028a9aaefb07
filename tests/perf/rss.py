#!/usr/bin/env python3
"""Peak RSS of a null-target run at 10,000 and at 1,000,000 iterations, each
measured on its own child (resource.getrusage of the waited child), and their
ratio. Usage: rss.py BENCH SPEC"""
import os
import resource
import subprocess
import sys


def peak_rss_kib(cmd):
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.execv(cmd[0], cmd)
    _, status, usage = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(cmd)} failed")
    return usage.ru_maxrss


def main():
    bench, spec = sys.argv[1], sys.argv[2]
    base = [bench, "run", spec, "--targets", "null", "--warmup", "0", "--runs", "1", "--quiet"]
    small = peak_rss_kib(base + ["--iterations", "10000"])
    large = peak_rss_kib(base + ["--iterations", "1000000"])
    ratio = large / small
    print(f"peak RSS: {small} KiB at 10,000 iterations, {large} KiB at 1,000,000: "
          f"ratio {ratio:.3f} ({'within' if ratio <= 1.10 else 'OVER'} 10%)")
    sys.exit(0 if ratio <= 1.10 else 1)


if __name__ == "__main__":
    main()
