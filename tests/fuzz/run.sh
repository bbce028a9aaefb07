#!/bin/sh
# run.sh BUILD NAME SECONDS [libFuzzer flags...]: runs the harness
# BUILD/fuzz_NAME from the repository's root: its committed seeds
# (tests/fuzz/corpus/NAME, and for the spec front end specs/, examples/ and
# the lint corpus tests/lint/) replayed, then SECONDS of fuzzing, with its
# dictionary. New inputs go to BUILD/fuzz-corpus/NAME, never into the tree;
# a crash is written to BUILD/fuzz-crashes/ and fails the run.
set -eu
build=$1
name=$2
seconds=$3
shift 3
work=$build/fuzz-corpus/$name
crashes=$build/fuzz-crashes
mkdir -p "$work" "$crashes"
seeds=tests/fuzz/corpus/$name
[ "$name" = spec ] && seeds="$seeds specs examples tests/lint"
[ "$name" = results ] && seeds="$seeds tests/fixtures/results"
# shellcheck disable=SC2086
exec "$build/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=1024 -print_final_stats=1 -dict="tests/fuzz/$name.dict" \
    -artifact_prefix="$crashes/$name-" "$@" "$work" $seeds
