#!/bin/sh
# pg_multihost.sh: a postgres target whose dsn names two hosts (libpq's
# multi-host syntax, as CockroachDB, YugabyteDB and Citus deployments are
# reached; DESIGN section 12). Starts two scratch servers of its own (as
# scripts/pg-scratch.sh does: initdb in temporary directories, unix sockets
# only, as the postgres user when root), and:
#   1. with both up, a run reaches the first host (the database bench is
#      made there, not on the second);
#   2. with the first stopped, the same dsn fails over: the run passes on
#      the second host, whose database bench now exists.
# Every server started here is stopped and its directory removed, whatever
# the outcome. Exit 77 (a skip) without PostgreSQL server binaries.
#
#   tests/pg_multihost.sh BENCH
set -u
bench=$1

bindir=""
for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
        bindir=$d
        break
    fi
done
if [ -z "$bindir" ] || ! command -v psql >/dev/null 2>&1; then
    echo "pg_multihost: no PostgreSQL server binaries or psql; skipped" >&2
    exit 77
fi

dir=$(mktemp -d /tmp/bench-pgmulti.XXXXXX)
chmod 755 "$dir"
mkdir "$dir/a" "$dir/b"
chmod 755 "$dir/a" "$dir/b"
as_pg=""
if [ "$(id -u)" -eq 0 ]; then
    chown postgres:postgres "$dir/a" "$dir/b"
    as_pg="runuser -u postgres --"
fi
user=$(if [ -n "$as_pg" ]; then echo postgres; else id -un; fi)
port_a=$((20000 + ($$ + 104729) % 20000))
port_b=$((20000 + ($$ + 130363) % 20000))

cleanup() {
    for s in a b; do
        $as_pg "$bindir/pg_ctl" -D "$dir/$s/data" -m immediate -w stop >/dev/null 2>&1
    done
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
    echo "pg_multihost: FAIL: $*" >&2
    exit 1
}

start() { # a|b PORT
    $as_pg "$bindir/initdb" -D "$dir/$1/data" -A trust -U "$user" --no-sync \
        >"$dir/$1/initdb.log" 2>&1 || fail "initdb $1: $(tail -3 "$dir/$1/initdb.log")"
    $as_pg "$bindir/pg_ctl" -D "$dir/$1/data" -w -t 30 -l "$dir/$1/server.log" \
        -o "-c listen_addresses='' -c unix_socket_directories='$dir/$1' -p $2" start >/dev/null ||
        fail "server $1 did not start: $(tail -3 "$dir/$1/server.log")"
}

# whether the server in $1 (port $2) has the database bench: yes or no
has_bench() {
    psql -X -q -A -t -h "$dir/$1" -p "$2" -U "$user" -d postgres \
        -c "SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_database WHERE datname = 'bench') \
            THEN 'yes' ELSE 'no' END"
}

start a "$port_a"
start b "$port_b"
unset PGHOST PGPORT PGDATABASE
export PGUSER="$user"

# pizzas with one postgres target, reached through the two-host dsn
spec="$dir/multihost.yaml"
sed '/^  targets:/,$d' specs/pizzas.yaml >"$spec"
cat >>"$spec" <<EOF
  targets:
    - postgres: {dsn: "host=$dir/a,$dir/b port=$port_a,$port_b user=$user"}
EOF

run() {
    "$bench" run "$spec" --targets postgres --iterations 50 --warmup 10 --runs 1 --quiet \
        --format json --output "$dir/out.json" 2>"$dir/err"
}

# 1. both up: the first host
run || fail "both up: $(cat "$dir/err")"
[ "$(has_bench a "$port_a")" = yes ] || fail "both up: no database bench on the first host"
[ "$(has_bench b "$port_b")" = no ] || fail "both up: the run went to the second host"

# 2. the first down: libpq fails over to the second
$as_pg "$bindir/pg_ctl" -D "$dir/a/data" -m immediate -w stop >/dev/null || fail "stopping a"
run || fail "first host down: $(cat "$dir/err")"
[ "$(has_bench b "$port_b")" = yes ] || fail "first host down: no database bench on the second"
grep -Eq '"verify":[[:space:]]*"pass"' "$dir/out.json" ||
    fail "first host down: verify did not pass: $(grep -E '"(verify|reason)"' "$dir/out.json")"
echo "pg_multihost: ok"
