#!/bin/sh
# Instructions a dispatch of the memory target, counted by callgrind (the
# same for the same binary and inputs, whatever else the machine is doing):
# the inclusive cost of the runtime target's dispatch over a run of 20,000
# cycles less one of 10,000, over the 40,000 commands between them, for
# specs/pizzas.yaml and specs/banking.yaml (or the SPECs given). BUILD is
# a build directory with bench in it, e.g. build/release (callgrind finds
# rt_dispatch in its symbol table). A measurement for docs/benchmarks.md,
# not part of make bench (about a minute under valgrind).
#
# usage: tests/perf/dispatch_instructions.sh BUILD [SPEC...]
set -eu
build=${1:?usage: dispatch_instructions.sh BUILD [SPEC...]}
shift
[ $# -gt 0 ] || set -- specs/pizzas.yaml specs/banking.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for spec in "$@"; do
    for n in 10000 20000; do
        valgrind --tool=callgrind --callgrind-out-file="$tmp/$n" --toggle-collect=rt_dispatch \
            "$build/bench" run "$spec" --targets memory --iterations $n --warmup 0 --runs 1 \
            --quiet --format json >/dev/null 2>&1
    done
    a=$(awk '/^totals:/ {print $2}' "$tmp/10000")
    b=$(awk '/^totals:/ {print $2}' "$tmp/20000")
    echo "$spec: $(((b - a) / 40000)) instructions a dispatch (callgrind, 20,000 less 10,000 cycles)"
done
