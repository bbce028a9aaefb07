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

. "$here/npm_peer.sh"
peer_install schema_peer "$here/schema_peer" "$dir" "ajv-cli and yaml-language-server"

case "$tool" in
ajv) exec node "$dir/node_modules/ajv-cli/dist/index.js" "$@" -c "$here/schema_peer/x_message.js" ;;
lsp) exec node "$here/schema_peer/lsp_check.js" "$dir/node_modules" "$@" ;;
*)
    echo "schema_peer: unknown tool '$tool' (ajv or lsp)" >&2
    exit 2
    ;;
esac
