#!/bin/sh
# Installs the Debian packages bench needs to build, test and run; does
# nothing when all of them are present. Run as root (or through sudo).
set -eu

packages="build-essential cmake pkg-config libyaml-dev libcjson-dev libsqlite3-dev libpq-dev
libpcre2-dev nettle-dev zlib1g-dev libcmocka-dev postgresql postgresql-client json-schema-test-suite
python3 python3-yaml clang-format clang-tidy clang libclang-rt-14-dev
man-db zsh"
# python3-yaml is PyYAML, a YAML 1.1 reader: tests/test_yaml11.c checks that it
# reads every bundled spec as bench does.
# man-db and zsh: tests/install_check.sh renders the installed manual pages
# with man and runs the zsh completion (the bash one needs only bash).
# clang and libclang-rt-14-dev (libFuzzer) build tests/fuzz: `make fuzz`,
# and the fuzzers' smoke in `make test`.
# BENCH_DEPS=build: only what building and running bench needs (the GitHub
# Action in action.yml installs this much): no test tools, no server.
if [ "${BENCH_DEPS:-all}" = build ]; then
    packages="build-essential cmake pkg-config libyaml-dev libcjson-dev libsqlite3-dev libpq-dev
libpcre2-dev nettle-dev zlib1g-dev python3"
    BENCH_WITH_CHROMIUM=0
fi
# chromium renders `bench report --html` pages in tests/test_html.c (an ~80 MB
# download, ~290 MB installed, about 20 s to install on a 2-core machine);
# BENCH_WITH_CHROMIUM=0 leaves it out, and that check then says it skipped.
[ "${BENCH_WITH_CHROMIUM:-1}" = 1 ] && packages="$packages chromium"
# node and npm run hdr-histogram-js, the peer that reads `--hlog` files in
# tests/test_hlog.c. A Node.js that is already there (Debian's or another
# packager's, whose nodejs package may bundle npm) is used as it is.
if [ "${BENCH_DEPS:-all}" != build ] &&
    { ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; }; then
    packages="$packages nodejs npm"
fi

missing=""
for p in $packages; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case "$status" in
    *"install ok installed"*) ;;
    *) missing="$missing $p" ;;
    esac
done

if [ -z "$missing" ]; then
    exit 0
fi

echo "install-deps: installing:$missing" >&2
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=sudo
    else
        echo "install-deps: missing packages:$missing; run as root to install them" >&2
        exit 1
    fi
else
    SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
