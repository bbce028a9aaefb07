#!/bin/sh
# rate.sh BUILD NAME [RUNS]: the executions per second of BUILD/fuzz_NAME
# over RUNS executions (default 20000) from a fresh working corpus: the
# committed seeds replayed (as run.sh gives them), then mutation, with a
# fixed -seed so that two builds are timed on the same inputs. Prints
# "NAME: N runs in S s, R exec/s (libFuzzer: R')": R over the wall time of
# the whole run, R' libFuzzer's own average (whole seconds). The figures in
# docs/reliability.md come from this, two builds interleaved A B A B.
set -eu
build=$1
name=$2
runs=${3:-20000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seeds=tests/fuzz/corpus/$name
[ "$name" = spec ] && seeds="$seeds specs examples tests/lint"
[ "$name" = results ] && seeds="$seeds tests/fixtures/results"
t0=$(date +%s.%N)
# shellcheck disable=SC2086
"$build/fuzz_$name" -runs="$runs" -seed=1 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -print_final_stats=1 -dict="tests/fuzz/$name.dict" -artifact_prefix="$work/" "$work" $seeds \
    >"$work/log" 2>&1 || { tail -20 "$work/log" >&2; exit 1; }
t1=$(date +%s.%N)
units=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log")
awk -v name="$name" -v units="$units" -v rate="$rate" -v t0="$t0" -v t1="$t1" 'BEGIN {
    printf "%s: %d runs in %.1f s, %.0f exec/s (libFuzzer: %s)\n", name, units, t1 - t0,
        units / (t1 - t0), rate
}'
