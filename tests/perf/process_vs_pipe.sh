#!/bin/sh
# process_vs_pipe.sh BUILD: the process target against its peer, a raw C
# pipe ping-pong of the same line sizes (perf_pipe_pingpong), in one
# invocation with the same placement: first at default placement (the
# goals: the round-trip floor's p50 at most 1.3x the ping-pong's p50, and
# pizzas throughput at least 0.6x the ping-pong's round trips per second),
# then with both pinned to CPU 0 (reported, no goal). The process target
# runs `bench serve` on the memory store. A round is a 200,000 round-trip
# ping-pong then a 100,000-cycle run (400,000 commands); five rounds at
# default placement, three pinned. Exits 1 when a goal is missed.
set -eu
build=${1:-build/release}
bench=$build/bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# pizzas with only the default process target (bench serve), not the python one
grep -v 'label: python' specs/pizzas.yaml >"$tmp/pizzas.yaml"

# measure PLACEMENT ROUNDS PIN BENCH_CPU_FLAGS: rounds of a ping-pong run then a
# bench run, so that load from outside falls on both alike. Each round gives
# its two ratios, and the median of those is compared with the goal: at
# default placement on a small machine a round trip is bimodal (both
# processes on one CPU, or each on its own), and a round's two runs usually
# land in the same mode, where a ratio of medians would mix the modes.
measure() {
    placement=$1
    rounds=$2
    pin=$3
    cpu=$4
    for round in $(seq "$rounds"); do
        # shellcheck disable=SC2086
        $pin "$build/perf_pipe_pingpong" 200000 1 | tail -1 >"$tmp/pipe$round.txt"
        # shellcheck disable=SC2086
        "$bench" run "$tmp/pizzas.yaml" --targets process --iterations 100000 --warmup 1000 \
            --runs 1 --quiet --format json --output "$tmp/process$round.json" $cpu
    done
    python3 - "$placement" "$tmp" "$rounds" <<'EOF'
import json, statistics, sys
placement, tmp, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
pipe_p50, pipe_rps, floor, rps, p50 = [], [], [], [], []
for k in range(1, rounds + 1):
    last = open(f"{tmp}/pipe{k}.txt").read().split()
    pipe_p50.append(float(last[2]))
    pipe_rps.append(float(last[4]))
    r = json.load(open(f"{tmp}/process{k}.json"))
    row = r["results"][0]
    if row.get("failed"):
        print(f"process target failed: {row.get('reason')}")
        sys.exit(1)
    m = row["median"]
    floor.append(m["roundtrip_floor_p50_us"])
    rps.append(m["throughput_per_s"])
    p50.append(m["p50_us"])
med = statistics.median
floor_ratios = [f / p for f, p in zip(floor, pipe_p50)]
rps_ratios = [c / p for c, p in zip(rps, pipe_rps)]
floor_ratio, rps_ratio = med(floor_ratios), med(rps_ratios)
fmt = lambda xs, f: ", ".join(f.format(x) for x in xs)
print(f"{placement} (affinity {r['environment'].get('cpu_affinity', '?')}), {rounds} rounds:")
print(f"  pipe ping-pong p50 by round (us): {fmt(pipe_p50, '{:.3f}')}; "
      f"round trips/s: {fmt(pipe_rps, '{:,.0f}')}")
print(f"  process floor p50 by round (us): {fmt(floor, '{:.3f}')}; pizzas p50 (us): "
      f"{fmt(p50, '{:.3f}')}; commands/s: {fmt(rps, '{:,.0f}')}")
goal = placement == "default placement"
ok1, ok2 = floor_ratio <= 1.3, rps_ratio >= 0.6
v1 = f" (goal <= 1.3: {'met' if ok1 else 'MISSED'})" if goal else ""
v2 = f" (goal >= 0.6: {'met' if ok2 else 'MISSED'})" if goal else ""
print(f"  floor p50 / ping-pong p50, median of the rounds' ratios = {floor_ratio:.2f}{v1} "
      f"(by round: {fmt(floor_ratios, '{:.2f}')})")
print(f"  process commands/s / ping-pong round trips/s, median = {rps_ratio:.2f}{v2} "
      f"(by round: {fmt(rps_ratios, '{:.2f}')})")
sys.exit(1 if goal and not (ok1 and ok2) else 0)
EOF
}

status=0
measure "default placement" 5 "" "" || status=1
if command -v taskset >/dev/null 2>&1; then
    measure "both pinned to CPU 0" 3 "taskset -c 0" "--cpu 0" || status=1
else
    echo "both pinned to CPU 0: not measured (taskset is not installed)"
fi
exit $status
