#!/bin/sh
# Times `bench lint` on generated specs of 50 KB, 1 MB and 2 MB: the median
# wall time of 10 runs of each, process start included, and the ratio of the
# 2 MB median to the 1 MB one (2.0 is linear). Goals (issue 9): 50 KB well
# under 20 ms, 1 MB <= 100 ms, 2 MB <= 2.2x the 1 MB. Exits 1 when a goal is
# missed. Usage: tests/perf/lint_large.sh [BENCH]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bench=${1:-$here/../../build/release/bench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# median_us FILE: the median wall time of 10 runs of `bench lint FILE`, in us
median_us() {
    "$bench" lint "$1" >/dev/null # warm the page cache; a spec with errors stops here
    i=0
    while [ $i -lt 10 ]; do
        t0=$(date +%s%N)
        "$bench" lint "$1" >/dev/null
        t1=$(date +%s%N)
        echo $(((t1 - t0) / 1000))
        i=$((i + 1))
    done | sort -n | awk '{a[NR]=$1} END {printf "%d\n", (a[5] + a[6]) / 2}'
}

# verdict OK: "met" or "MISSED"
verdict() { if [ "$1" = 1 ]; then echo met; else echo MISSED; fi; }

missed=0
for kb in 50 1024 2048; do
    python3 "$here/gen_large_spec.py" --kb $kb >"$tmp/$kb.yaml"
    us=$(median_us "$tmp/$kb.yaml")
    eval "us_$kb=$us"
    size=$(wc -c <"$tmp/$kb.yaml")
    case $kb in
    50) goal="goal < 20 ms"; ok=$((us < 20000)) ;;
    1024) goal="goal <= 100 ms"; ok=$((us <= 100000)) ;;
    *) goal=""; ok=1 ;;
    esac
    [ "$ok" = 1 ] || missed=1
    printf "lint of a %d-byte spec: median %.2f ms over 10 runs%s\n" "$size" \
        "$(echo "$us" | awk '{print $1 / 1000}')" "${goal:+ ($goal: $(verdict $ok))}"
done
ratio=$(awk -v a="$us_2048" -v b="$us_1024" 'BEGIN {printf "%.2f", a / b}')
ok=$(awk -v r="$ratio" 'BEGIN {print (r <= 2.2) ? 1 : 0}')
[ "$ok" = 1 ] || missed=1
echo "2 MB / 1 MB: ${ratio}x (goal <= 2.2x, 2.0 is linear: $(verdict "$ok"))"
exit $missed
