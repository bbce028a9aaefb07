#!/bin/sh
# Times `bench lint` on a generated 50 KB spec: the median wall time of 30
# runs, process start included. Usage: tests/perf/lint_large.sh [BENCH]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bench=${1:-$here/../../build/release/bench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/gen_large_spec.py" --kb 50 >"$tmp/large.yaml"
"$bench" lint "$tmp/large.yaml" >/dev/null
size=$(wc -c <"$tmp/large.yaml")
i=0
while [ $i -lt 30 ]; do
    t0=$(date +%s%N)
    "$bench" lint "$tmp/large.yaml" >/dev/null
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000))
    i=$((i + 1))
done | sort -n | awk -v size="$size" '{a[NR]=$1} END {
    printf "lint of a %d-byte spec: median %.2f ms, min %.2f ms, max %.2f ms over %d runs\n",
        size, (a[15] + a[16]) / 2000, a[1] / 1000, a[NR] / 1000, NR }'
