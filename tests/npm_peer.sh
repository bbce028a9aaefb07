# npm_peer.sh: sourced by the scripts that run an npm package as a peer
# (tests/hlog_peer.sh, tests/schema_peer.sh): the install, pinned, and the
# skip when it cannot be done.

# peer_unavailable TAG REASON: exit 77 (skipped) with REASON, or status 1
# under CI=true, where the peers must run.
peer_unavailable() {
    if [ -n "${CI:-}" ]; then
        echo "$1: $2 (CI is set, so this fails rather than skips)" >&2
        exit 1
    fi
    echo "$1: skipped: $2" >&2
    exit 77
}

# peer_install TAG SRC DIR WHAT: installs the packages SRC/package-lock.json
# pins with `npm ci` into DIR the first time, and again when the lock
# changes (DIR/installed.lock: the lock of the last install that succeeded).
# WHAT names them in messages.
peer_install() {
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        peer_unavailable "$1" "node or npm is not installed (scripts/install-deps.sh installs them)"
    fi
    if cmp -s "$2/package-lock.json" "$3/installed.lock" 2>/dev/null; then
        return 0
    fi
    mkdir -p "$3"
    cp "$2/package.json" "$2/package-lock.json" "$3/"
    if ! npm ci --prefix "$3" --ignore-scripts --no-audit --no-fund --loglevel=error \
        --fetch-retries=1 >"$3/npm.log" 2>&1; then
        if [ -z "${CI:-}" ] && ! npm ping >/dev/null 2>&1; then
            peer_unavailable "$1" "the npm registry cannot be reached to install $4"
        fi
        cat "$3/npm.log" >&2
        echo "$1: npm ci of $4 failed (log above)" >&2
        exit 1
    fi
    cp "$3/package-lock.json" "$3/installed.lock"
}
