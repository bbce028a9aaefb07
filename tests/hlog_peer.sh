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

. "$here/npm_peer.sh"
peer_install hlog_peer "$here/hlog_peer" "$dir" hdr-histogram-js

exec node "$here/hlog_read.js" "$dir/node_modules" "$log"
