#!/usr/bin/env python3
"""Prints the medians of a `bench run --format json` report against the
performance goals of docs/benchmarks.md, one line per row, and exits 1 when
a goal is missed."""
import json
import sys

GOALS = {
    ("pizzas", "memory"): {"throughput": 1_000_000, "p50_us": 1.0},
    ("banking", "memory"): {"throughput": 500_000},
    ("pizzas", "null"): {"throughput": 5_000_000},
    ("banking", "null"): {"throughput": 5_000_000},
}


def main():
    report = json.load(open(sys.argv[1]))
    missed = 0
    for r in report["results"]:
        m = r["median"]
        goal = GOALS.get((r["domain"], r["label"]), {})
        verdicts = []
        if "throughput" in goal:
            ok = m["throughput_per_s"] >= goal["throughput"]
            missed += not ok
            verdicts.append(f"throughput goal {goal['throughput']:,}: {'met' if ok else 'MISSED'}")
        if "p50_us" in goal:
            ok = m["p50_us"] <= goal["p50_us"]
            missed += not ok
            verdicts.append(f"p50 goal {goal['p50_us']} us: {'met' if ok else 'MISSED'}")
        rng = r["throughput_range"]
        print(f"{r['domain']:8} {r['label']:8} {m['throughput_per_s']:>14,.0f} commands/s "
              f"(range {rng['min']:,.0f} to {rng['max']:,.0f}), p50 {m['p50_us']:.3f} us, "
              f"p99 {m['p99_us']:.3f} us, verify {r['verify']}; " + "; ".join(verdicts))
    print(f"harness floor (null, p50): {report['harness_floor_p50_us']} us")
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
