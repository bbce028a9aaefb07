#!/usr/bin/env python3
"""Writes a large valid result file: a real small one (from `bench run`)
whose one run's intervals are repeated until the file is about --mb MB, each
interval with a histogram of --buckets [value, count] pairs (a long run with
--interval and wide latencies). Usage:
  gen_large_result.py SMALL.json --mb 182 [--buckets 200] > BIG.json"""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("small")
    ap.add_argument("--mb", type=float, required=True)
    ap.add_argument("--buckets", type=int, default=200)
    args = ap.parse_args()
    with open(args.small) as f:
        doc = json.load(f)
    run = doc["results"][0]["runs"][0]
    hist = [[180 + 10 * i, 1 + i % 7] for i in range(args.buckets)]
    commands = sum(c for _, c in hist)
    one = {"start_s": 0, "length_s": 0.001, "commands": commands,
           "commands_per_s": commands * 1000.0, "p50_us": 1.18, "p90_us": 1.9,
           "p99_us": 2.1, "max_us": 2.17, "histogram": hist}
    size = len(json.dumps(one, separators=(",", ":")))
    n = max(1, int(args.mb * 1e6 / size))
    run["intervals"] = [dict(one, start_s=round(i * 0.001, 3)) for i in range(n)]
    json.dump(doc, sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
