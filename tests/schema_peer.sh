#!/bin/sh
# schema_peer.sh BUILD_DIR ajv ARGS...: runs ajv-cli (Ajv, the most used JSON
#     Schema validator) with ARGS, x-message declared (tests/schema_peer/x_message.js).
# schema_peer.sh BUILD_DIR lsp SCHEMA SPEC: drives yaml-language-server over
#     stdio as an editor would (tests/schema_peer/lsp_check.js says what it prints).
# Both are the versions tests/schema_peer/package-lock.json pins, installed
# with `npm ci` into BUILD_DIR/schema_peer the first time (and again when the
# lock changes).
#
# Exit status 77: skipped, because node or npm is missing or the npm registry
# cannot be reached, and CI is not set; under CI=true these fail (status 1).
set -eu
dir=$1/schema_peer
tool=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)

unavailable() {
    if [ -n "${CI:-}" ]; then
        echo "schema_peer: $1 (CI is set, so this fails rather than skips)" >&2
        exit 1
    fi
    echo "schema_peer: skipped: $1" >&2
    exit 77
}

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    unavailable "node or npm is not installed (scripts/install-deps.sh installs them)"
fi

# installed.lock: the lock of the last install that succeeded.
if ! cmp -s "$here/schema_peer/package-lock.json" "$dir/installed.lock" 2>/dev/null; then
    mkdir -p "$dir"
    cp "$here/schema_peer/package.json" "$here/schema_peer/package-lock.json" "$dir/"
    if ! npm ci --prefix "$dir" --ignore-scripts --no-audit --no-fund --loglevel=error \
        --fetch-retries=1 >"$dir/npm.log" 2>&1; then
        if [ -z "${CI:-}" ] && ! npm ping >/dev/null 2>&1; then
            unavailable "the npm registry cannot be reached to install ajv-cli and yaml-language-server"
        fi
        cat "$dir/npm.log" >&2
        echo "schema_peer: npm ci of ajv-cli and yaml-language-server failed (log above)" >&2
        exit 1
    fi
    cp "$dir/package-lock.json" "$dir/installed.lock"
fi

case "$tool" in
ajv) exec node "$dir/node_modules/ajv-cli/dist/index.js" "$@" -c "$here/schema_peer/x_message.js" ;;
lsp) exec node "$here/schema_peer/lsp_check.js" "$dir/node_modules" "$@" ;;
*)
    echo "schema_peer: unknown tool '$tool' (ajv or lsp)" >&2
    exit 2
    ;;
esac
