#!/bin/sh
# hlog_peer.sh LOG BUILD_DIR: reads the HdrHistogram interval log LOG with
# hdr-histogram-js, HdrHistogram's JavaScript port, and prints what it finds
# per tag (tests/hlog_read.js says what). The package is the version
# tests/hlog_peer/package-lock.json pins, installed with `npm ci` into
# BUILD_DIR/hlog_peer the first time (and again when the lock changes).
#
# Exit status 77: skipped, because node or npm is missing or the npm registry
# cannot be reached, and CI is not set; under CI=true these fail (status 1).
set -eu
log=$1
dir=$2/hlog_peer
here=$(cd "$(dirname "$0")" && pwd)

unavailable() {
    if [ -n "${CI:-}" ]; then
        echo "hlog_peer: $1 (CI is set, so this fails rather than skips)" >&2
        exit 1
    fi
    echo "hlog_peer: skipped: $1" >&2
    exit 77
}

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    unavailable "node or npm is not installed (scripts/install-deps.sh installs them)"
fi

# installed.lock: the lock of the last install that succeeded.
if ! cmp -s "$here/hlog_peer/package-lock.json" "$dir/installed.lock" 2>/dev/null; then
    mkdir -p "$dir"
    cp "$here/hlog_peer/package.json" "$here/hlog_peer/package-lock.json" "$dir/"
    if ! npm ci --prefix "$dir" --ignore-scripts --no-audit --no-fund --loglevel=error \
        --fetch-retries=1 >"$dir/npm.log" 2>&1; then
        if [ -z "${CI:-}" ] && ! npm ping >/dev/null 2>&1; then
            unavailable "the npm registry cannot be reached to install hdr-histogram-js"
        fi
        cat "$dir/npm.log" >&2
        echo "hlog_peer: npm ci of hdr-histogram-js failed (log above)" >&2
        exit 1
    fi
    cp "$dir/package-lock.json" "$dir/installed.lock"
fi

exec node "$here/hlog_read.js" "$dir/node_modules" "$log"
