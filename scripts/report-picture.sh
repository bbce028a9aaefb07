#!/bin/sh
# report-picture.sh [BENCH]: makes docs/report.png, the picture of a
# `bench report --html` page in README.md and docs/ci.md: both bundled specs
# on the memory, sqlite and null targets at two store sizes, drawn by
# headless Chromium (1200 pixels wide, the page's top: results, throughput,
# latency). BENCH is the binary (build/release/bench by default). About 7
# minutes on a 2-core machine: SQLite at full durability syncs every commit.
set -eu
bench=${1:-build/release/bench}
out=docs/report.png
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$bench" run specs/pizzas.yaml specs/banking.yaml --targets memory,sqlite,null \
    --prefill 0,1000 --iterations 2000 --runs 3 --quiet --format json --output "$dir/result.json"
"$bench" report "$dir/result.json" --html "$dir/report.html"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$dir/profile" \
    --screenshot="$out" --window-size=1200,2000 "file://$dir/report.html" 2>/dev/null
echo "report-picture: wrote $out"
