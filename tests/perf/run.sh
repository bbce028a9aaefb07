#!/bin/sh
# make bench: the performance benchmarks, on a release build without
# sanitizers, at default placement (no pinning) unless BENCH_CPU is set.
# Each line states what it measured and against which goal; the goals come
# from the issues and docs/benchmarks.md. Nothing here is a timed unit test.
set -eu
build=${1:-build/release}
bench=$build/bench
here=$(cd "$(dirname "$0")" && pwd)
cpu=${BENCH_CPU:+--cpu $BENCH_CPU}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
missed=0 # a missed goal says so and the rest still runs; any miss fails make bench at the end

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), placement: ${BENCH_CPU:-default}"

echo "== lint of generated 50 KB, 1 MB and 2 MB specs (goals: 50 KB well under 20 ms, 1 MB <= 100 ms, 2 MB <= 2.2x the 1 MB)"
"$here/lint_large.sh" "$bench" || missed=1

echo "== compare of generated 20 MB and 80 MB result files (long intervals[]; goal: linear, 80 MB"
echo "   within 4.6x the 20 MB in user time and RSS; the 80 MB's max RSS within 4x the file)"
"$here/large_result.sh" "$bench" || missed=1

echo "== histogram record cost"
"$build/perf_hist_record" | tail -3

echo "== random draw cost per distribution, pool of 1,000,000 (reported; no goal yet)"
"$build/perf_draw_cost"

echo "== memory and null targets: 100,000 timed cycles, 3 runs (goals: pizzas >= 1,000,000 commands/s"
echo "   with p50 <= 1 us; banking >= 500,000 commands/s; null >= 5,000,000 commands/s)"
# shellcheck disable=SC2086
"$bench" run specs/pizzas.yaml specs/banking.yaml --targets memory,null --iterations 100000 \
    --warmup 1000 --runs 3 --quiet --format json --output "$tmp/run.json" $cpu
python3 "$here/check_run.py" "$tmp/run.json" || missed=1

echo "== harness cost: null on pizzas, 5 invocations of 1,000,000 cycles x 3 runs on the highest CPU"
echo "   (goal, issue 13: the median harness cost, the null pass's wall time a command, <= 60 ns)"
python3 "$here/harness_cost.py" "$bench" || missed=1

echo "== memory target against a hand-written C program doing the same work (tests/perf/peer_memory.c),"
echo "   5 interleaved pairs pinned to one CPU (goals: throughput >= 0.8x, p50 <= 2x, pizzas and banking)"
python3 "$here/memory_peer.py" "$build" peer || missed=1

echo "== list growth: one list appended to, p50 at 10 entries vs at 16,000 (goal: within 1.5x)"
python3 "$here/memory_peer.py" "$build" growth || missed=1

echo "== max latency of the memory target on pizzas up to 2,000,000 records (goal: < 100 us quiet)"
python3 "$here/memory_peer.py" "$build" latency || missed=1
echo "   the machine's own floor for it: the first write to each page of 2 GB of fresh memory, nothing"
echo "   else (the 2M-record run grows the store by about 1.8 GB), pinned to the same CPU"
taskset -c "${BENCH_CPU:-1}" "$build/perf_page_touch" 2048

echo "== stability: 20 pinned runs of one quiet command, none flagged unstable (goal)"
python3 "$here/pinned_stable.py" "$bench" || missed=1

echo "== flat harness memory: peak RSS of a null run, 1,000,000 vs 10,000 iterations (goal: within 10%)"
python3 "$here/rss.py" "$bench" specs/pizzas.yaml || missed=1

echo "== open loop: schedule lag at half the memory target's capacity on pizzas (goal: p99 < 20 us)"
python3 "$here/open_loop_lag.py" "$bench"

echo "== many clients: memory, pizzas with keys: per_client, 2 clients vs 1 on 2 CPUs, and null (the harness alone), 5 interleaved"
echo "   rounds (goal: >= 1.5x throughput; reported, with the CPUs bench got: a busy machine caps it)"
python3 "$here/clients.py" "$bench"

echo "== many clients: postgres with 4 clients against pgbench -c 4 -j 2 running the same statements"
echo "   (pgbench_pizzas.sql with per-client names and FOR UPDATE), normal durability (reported)"
"$here/../../scripts/pg-scratch.sh" python3 "$here/clients_pg.py" "$build"

echo "== open-loop rate sweeps: memory at 50k, 100k, 200k cycles/s and postgres (normal durability) at"
echo "   500, 1,000, 2,000, one client, a row per rate (reported; docs/benchmarks.md quotes it)"
"$here/../../scripts/pg-scratch.sh" python3 "$here/rate_sweep.py" "$build"

echo "== process target (bench serve, memory store) against a raw C pipe ping-pong of the same line"
echo "   sizes, interleaved, at default placement and both pinned to CPU 0 (goals at default"
echo "   placement, one CPU: floor p50 <= 1.3x the ping-pong's p50; pizzas commands/s >= 0.8x its round"
echo "   trips/s, issue 13)"
"$here/process_vs_pipe.sh" "$build" || missed=1

echo "== sqlite target against a hand-written C program issuing the same statements"
echo "   (tests/perf/sqlite_peer.c), interleaved, at normal and full durability (goal: >= 0.8x at"
echo "   default placement; both pinned to CPU 0: reported)"
python3 "$here/peers.py" sqlite "$build" || missed=1
BENCH_PEER_REPORT_ONLY=1 taskset -c 0 python3 "$here/peers.py" sqlite "$build"

echo "== postgres target against pgbench -M prepared running the same statements one per round"
echo "   trip (tests/perf/pgbench_pizzas.sql), on a scratch server, interleaved, at normal and full"
echo "   durability (goal: >= 1.3x at default placement; client and server pinned to CPU 0: reported)"
"$here/../../scripts/pg-scratch.sh" python3 "$here/peers.py" postgres "$build" || missed=1
BENCH_PEER_REPORT_ONLY=1 taskset -c 0 "$here/../../scripts/pg-scratch.sh" \
    python3 "$here/peers.py" postgres "$build"
exit $missed
