#!/bin/sh
# install_check.sh BUILD_DIR: installs that build into a scratch prefix and
# uses what was installed, from a directory outside the source tree: the
# binary on a bundled spec, the manual pages through man, the bash and zsh
# completion; then builds the .deb with cpack, checks that it declares every
# library the binary needs, unpacks it with dpkg-deb and runs that bench.
set -eu

build=$(cd "$1" && pwd)
scratch=$(mktemp -d /tmp/bench-install-check-XXXXXX)
trap 'rm -rf "$scratch"' EXIT INT TERM
fail() {
    echo "install_check: $*" >&2
    exit 1
}

# ---- cmake --install into a prefix -------------------------------------------
prefix=$scratch/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
bench=$prefix/bin/bench
[ -x "$bench" ] || fail "no $bench"
share=$prefix/share
for f in bench/schema/spec.schema.json bench/schema/result.schema.json bench/specs/pizzas.yaml \
    bench/examples/pizzeria.yaml bench/examples/pizzas_runtime.py bash-completion/completions/bench \
    zsh/site-functions/_bench man/man1/bench.1.gz; do
    [ -f "$share/$f" ] || fail "cmake --install did not install share/$f"
done
[ -e "$share/bench/examples/ci" ] && fail "examples/ci is a workflow, not a bundled example"

# the installed bench on its installed specs, from elsewhere: nothing it reads
# may be found relative to the source tree or the working directory
cd "$scratch"
commands=$("$bench" --help | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
[ -n "$commands" ] || fail "bench --help lists no commands"
"$bench" lint --strict "$share"/bench/specs/*.yaml "$share"/bench/examples/*.yaml ||
    fail "the installed specs do not lint clean"
out=$("$bench" run --quiet --targets memory --iterations 50 --runs 1 "$share/bench/specs/pizzas.yaml") ||
    fail "the installed bench cannot run specs/pizzas.yaml"
echo "$out" | grep -q '^| pizzas | memory[ @|]' || fail "no memory row in: $out"
if command -v python3 >/dev/null 2>&1; then
    # the python runtime is found beside the installed spec (./pizzas_runtime.py)
    out=$("$bench" run --quiet --targets python --iterations 20 --runs 1 \
        "$share/bench/examples/pizzeria.yaml") || fail "the installed pizzeria does not run: $out"
    echo "$out" | grep -q '^| pizzeria | python' || fail "no python row in: $out"
fi

# ---- the manual: a page per command, each rendered by man without a warning --
# shellcheck disable=SC2086 # the commands are a list
for page in bench $(printf 'bench-%s\n' $commands); do
    file=$share/man/man1/$page.1.gz
    [ -f "$file" ] || fail "no manual page $page.1.gz"
    gzip -t "$file" || fail "$page.1.gz is not gzip"
    text=$(MANWIDTH=80 man --warnings -E UTF-8 -l "$file" 2>"$scratch/man.err") ||
        fail "man cannot render $page.1"
    [ -s "$scratch/man.err" ] && fail "man warns about $page.1: $(cat "$scratch/man.err")"
    echo "$text" | grep -q '^NAME' || fail "$page.1 has no NAME section"
    echo "$text" | grep -q '^EXIT STATUS' || fail "$page.1 has no EXIT STATUS section"
done
MANPATH=$share/man man -w bench-run >/dev/null || fail "man does not find bench-run in the prefix"
MANWIDTH=80 man -l "$share/man/man1/bench-run.1.gz" 2>/dev/null | grep -q -- '--iterations N' ||
    fail "bench-run(1) lacks --iterations"

# ---- bash completion ----------------------------------------------------------
# complete WORDS...: what the completion offers for the last word
complete_bash() {
    PATH=$prefix/bin:$PATH bash --norc --noprofile -c '
        . "$0"
        complete -p bench >/dev/null || exit 3
        COMP_WORDS=("$@")
        COMP_CWORD=$(($# - 1))
        _bench
        printf "%s\n" "${COMPREPLY[@]}"' "$share/bash-completion/completions/bench" "$@"
}
expect_bash() { # WANT WORDS...: WANT is one of the offers
    want=$1
    shift
    complete_bash "$@" | grep -Fqx -- "$want" ||
        fail "bash: '$*' does not offer '$want' (it offers: $(complete_bash "$@" | tr '\n' ' '))"
}
expect_bash run bench r
expect_bash report bench r
expect_bash lint bench help l
expect_bash --targets bench run --ta
expect_bash --iterations bench run --it
expect_bash --strict bench lint --
expect_bash memory bench run --targets mem
expect_bash memory,null bench run --targets memory,nu
expect_bash github bench lint --format ''
expect_bash csv bench run --format ''
expect_bash state bench run --verify ''
expect_bash merge bench me
expect_bash --shard bench run --sh
expect_bash --results bench verify --re
mkdir -p "$scratch/specs" && touch "$scratch/specs/a.yaml" "$scratch/specs/b.txt"
expect_bash "specs/a.yaml " bench run specs/
complete_bash bench run specs/ | grep -q b.txt && fail "bash offers a .txt file as a spec"

# ---- zsh completion: _bench with the completion system's builtins stubbed -----
if command -v zsh >/dev/null 2>&1; then
    complete_zsh() {
        PATH=$prefix/bin:$PATH zsh -f -c '
            fpath=("$0" $fpath)
            autoload -U _bench
            compadd() { if [[ $1 == -a ]]; then local n=$2; print -rl -- ${(P)n}; else print -rl -- "$@"; fi; }
            _describe() { local n=$2; print -rl -- ${${(P)n}%%:*}; }
            _values() { shift 2; print -rl -- "$@"; }
            _files() { print _files "$@"; }
            _message() { :; }
            words=("$@")
            CURRENT=$#
            PREFIX=${words[-1]}
            _bench' "$share/zsh/site-functions" "$@"
    }
    expect_zsh() {
        want=$1
        shift
        complete_zsh "$@" | grep -Fqx -- "$want" ||
            fail "zsh: '$*' does not offer '$want' (it offers: $(complete_zsh "$@" | tr '\n' ' '))"
    }
    expect_zsh run bench r
    expect_zsh merge bench m
    expect_zsh --targets bench run --
    expect_zsh memory bench run --targets ''
    expect_zsh json bench compare --format ''
    expect_zsh "_files -g *.(yaml|yml)" bench lint ''
else
    fail "zsh is not installed (scripts/install-deps.sh installs it)"
fi

# ---- the .deb -------------------------------------------------------------------
command -v dpkg-deb >/dev/null 2>&1 || fail "no dpkg-deb"
(cd "$build" && cpack -G DEB -B "$scratch/deb" >"$scratch/cpack.log" 2>&1) ||
    fail "cpack failed: $(cat "$scratch/cpack.log")"
deb=$(ls "$scratch"/deb/*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
# every library the binary links, by the package that ships it, and libpq5
needs=$(objdump -p "$build/bench" | sed -n 's/^ *NEEDED *//p')
for lib in $needs; do
    path=$(ldconfig -p | sed -n "s/^[[:space:]]*$lib (.*x86-64.*) => //p" | head -n 1)
    [ -n "$path" ] || path=$(ldconfig -p | sed -n "s/^[[:space:]]*$lib .* => //p" | head -n 1)
    # by the real file: merged /usr means dpkg may know it as /lib/... or /usr/lib/...
    real=$(readlink -f "$path")
    pkg=$({ dpkg -S "$real" || dpkg -S "${real#/usr}" || dpkg -S "/usr$real"; } 2>/dev/null |
        head -n 1 | cut -d: -f1)
    [ -n "$pkg" ] || fail "no package ships $lib ($path)"
    echo "$depends" | tr ',' '\n' | grep -q "^ *$pkg\( \|$\)" ||
        fail "the .deb does not declare $pkg (for $lib): Depends: $depends"
done
for pkg in libpq5 libyaml-0-2 libsqlite3-0 libpcre2-8-0 libcjson1 libnettle8 zlib1g libc6; do
    echo "$depends" | tr ',' '\n' | grep -q "^ *$pkg\( \|$\)" ||
        fail "the .deb does not declare $pkg: Depends: $depends"
done
root=$scratch/root
dpkg-deb -x "$deb" "$root"
for f in usr/bin/bench usr/share/man/man1/bench-run.1.gz usr/share/bash-completion/completions/bench \
    usr/share/zsh/vendor-completions/_bench usr/share/bench/specs/pizzas.yaml; do
    [ -e "$root/$f" ] || fail "the .deb has no /$f"
done
out=$("$root/usr/bin/bench" run --quiet --targets memory --iterations 50 --runs 1 \
    "$root/usr/share/bench/specs/pizzas.yaml") || fail "the packaged bench cannot run pizzas.yaml"
echo "$out" | grep -q '^| pizzas | memory[ @|]' || fail "no memory row from the packaged bench: $out"
echo "install_check: ok ($(basename "$deb"); Depends: $depends)"
