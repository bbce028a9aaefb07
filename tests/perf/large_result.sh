#!/bin/sh
# Times `bench compare` of a large result file with a small one: a real
# pizzas run whose one run's intervals are repeated (gen_large_result.py,
# 200 buckets each) to 20 MB and 80 MB. Reports wall and user seconds and
# max RSS of each, and the ratios 80 MB / 20 MB (4.0 is linear). Goals
# (issue 15): linear, within 4.6x in user time and RSS, and the 80 MB
# file's max RSS within 4 times the file (one node tree, histograms packed;
# it was 65 times with cJSON's tree beside the validator's); the absolute
# figures are reported (docs/reliability.md). Exits 1 when a goal is missed.
# Usage: tests/perf/large_result.sh [BENCH]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bench=${1:-$here/../../build/release/bench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$bench" run "$here/../../specs/pizzas.yaml" --targets memory --iterations 200 --runs 1 \
    --quiet --format json --output "$tmp/small.json"
for mb in 20 80; do
    python3 "$here/gen_large_result.py" "$tmp/small.json" --mb $mb >"$tmp/$mb.json"
    /usr/bin/time -f "%e %U %M" -o "$tmp/$mb.time" "$bench" compare "$tmp/$mb.json" \
        "$tmp/small.json" >/dev/null
    read -r wall user rss <"$tmp/$mb.time"
    printf "compare of a %d-byte result file: %s s wall, %s s user, max RSS %d MB\n" \
        "$(wc -c <"$tmp/$mb.json")" "$wall" "$user" $((rss / 1024))
done
read -r _ user_20 rss_20 <"$tmp/20.time"
read -r _ user_80 rss_80 <"$tmp/80.time"
awk -v u20="$user_20" -v u80="$user_80" -v r20="$rss_20" -v r80="$rss_80" \
    -v size80="$(wc -c <"$tmp/80.json")" 'BEGIN {
    u = u80 / u20; r = r80 / r20; m = r80 * 1024 / size80
    linear = u <= 4.6 && r <= 4.6
    small = m <= 4
    printf "80 MB / 20 MB: %.2fx user time, %.2fx RSS (goal <= 4.6x, 4.0 is linear: %s)\n", u, r,
        linear ? "met" : "MISSED"
    printf "max RSS of the 80 MB compare: %.2f times the file (goal <= 4: %s)\n", m,
        small ? "met" : "MISSED"
    exit !(linear && small)
}'
