#!/bin/sh
# pg_fault.sh: PostgreSQL going away under a run (issue 15). Starts its own
# scratch server (as scripts/pg-scratch.sh does: initdb in a temporary
# directory, a unix socket only, as the postgres user when root), and:
#   1. stops it with `pg_ctl stop -m immediate` during the timed pass: bench
#      exits 1 and says the connection to the server was lost; the run's
#      schema stays (nothing could drop it);
#   2. starts it again: the schema is still there, and the next run drops it
#      (its owner's advisory lock is free);
#   3. restarts it with `-m fast` during the timed pass: the server's
#      "terminating connection" reaches bench, which says the same.
# Every server started here is stopped and its directory removed, whatever
# the outcome. Exit 77 (a skip) without PostgreSQL server binaries.
#
#   tests/pg_fault.sh BENCH
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
    echo "pg_fault: no PostgreSQL server binaries or psql; skipped" >&2
    exit 77
fi

dir=$(mktemp -d /tmp/bench-pgfault.XXXXXX)
chmod 755 "$dir"
as_pg=""
if [ "$(id -u)" -eq 0 ]; then
    chown postgres:postgres "$dir"
    as_pg="runuser -u postgres --"
fi
user=$(if [ -n "$as_pg" ]; then echo postgres; else id -un; fi)
port=$((20000 + ($$ + 7919) % 20000))
bench_pid=""

cleanup() {
    [ -n "$bench_pid" ] && kill "$bench_pid" 2>/dev/null && wait "$bench_pid" 2>/dev/null
    $as_pg "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
    echo "pg_fault: FAIL: $*" >&2
    exit 1
}

start() {
    $as_pg "$bindir/pg_ctl" -D "$dir/data" -w -t 30 -l "$dir/server.log" \
        -o "-c listen_addresses='' -c unix_socket_directories='$dir' -p $port" start >/dev/null ||
        fail "the server did not start: $(tail -3 "$dir/server.log")"
}
stop() { # -m MODE
    $as_pg "$bindir/pg_ctl" -D "$dir/data" -m "$1" -w stop >/dev/null || fail "pg_ctl stop -m $1"
}

$as_pg "$bindir/initdb" -D "$dir/data" -A trust -U "$user" --no-sync >"$dir/initdb.log" 2>&1 ||
    fail "initdb: $(tail -3 "$dir/initdb.log")"
start
export PGHOST="$dir" PGPORT="$port" PGUSER="$user"

# the scratch schemas in the database bench, one a line
schemas() {
    psql -X -q -A -t -d bench -c "SELECT schema_name FROM information_schema.schemata \
        WHERE schema_name LIKE 'bench\\_%' ORDER BY 1"
}

# starts a long run in the background and waits until its timed pass is on
# (its schema holds events)
long_run() {
    "$bench" run specs/pizzas.yaml --targets postgres --duration 2m --runs 1 \
        --format json --output /dev/null 2>"$dir/err" &
    bench_pid=$!
    i=0
    while [ $i -lt 200 ]; do
        n=$(psql -X -q -A -t -d bench -c "SELECT COALESCE(sum(n_tup_ins), 0) \
            FROM pg_stat_user_tables WHERE schemaname LIKE 'bench\\_${bench_pid}\\_%' \
            AND relname = 'events'" 2>/dev/null)
        [ "${n:-0}" -gt 100 ] 2>/dev/null && return 0
        sleep 0.1
        i=$((i + 1))
    done
    fail "the run's timed pass did not start: $(cat "$dir/err")"
}

finish() { # expected exit status
    wait "$bench_pid"
    rc=$?
    bench_pid=""
    [ "$rc" -eq "$1" ] || fail "bench exited $rc, not $1: $(cat "$dir/err")"
}

lost='the connection to the server was lost \(the server stopped or restarted\)'
pre='^pizzas postgres run 1 failed: run 1, (warmup|timed) cycle [0-9]+, Order\.[A-Za-z]+ \(specs/pizzas\.yaml:[0-9]+\): Order\.[A-Za-z]+ failed: postgres: (committing|loading): '

# 1. stopped under the run
long_run
pid1=$bench_pid
stop immediate
finish 1
grep -Eq "${pre}${lost}: server closed the connection unexpectedly\$" "$dir/err" ||
    fail "stopped: $(cat "$dir/err")"
grep -Eq '^postgres: could not drop the schema bench_'"$pid1"'_[0-9a-f]+ in the database bench: .* \(the next postgres run on this server drops it\)$' "$dir/err" ||
    fail "stopped, the schema: $(cat "$dir/err")"
grep -q 'pipeline lost its sync' "$dir/err" && fail "stopped: $(cat "$dir/err")"

# 2. started again: the dead run's schema is there until the next run
start
stale=$(schemas)
echo "$stale" | grep -Eq "^bench_${pid1}_[0-9a-f]+\$" || fail "no stale schema: '$stale'"
"$bench" run specs/pizzas.yaml --targets postgres --iterations 20 --runs 1 --quiet \
    --format json --output /dev/null 2>"$dir/err" || fail "the next run: $(cat "$dir/err")"
left=$(schemas)
[ -z "$left" ] || fail "schemas left after the next run: '$left'"

# 3. restarted under the run (-m fast: the server says goodbye first)
long_run
pid3=$bench_pid
stop fast
start
finish 1
grep -Eq "${pre}${lost}: FATAL: terminating connection due to administrator command\$" "$dir/err" ||
    fail "restarted: $(cat "$dir/err")"
grep -q 'pipeline lost its sync' "$dir/err" && fail "restarted: $(cat "$dir/err")"
# the run could not drop its schema on the server being restarted (or did):
# either way the next run leaves none
"$bench" run specs/pizzas.yaml --targets postgres --iterations 20 --runs 1 --quiet \
    --format json --output /dev/null 2>"$dir/err" || fail "the run after: $(cat "$dir/err")"
left=$(schemas)
[ -z "$left" ] || fail "schemas left after the restart: '$left' (run $pid3)"
echo "pg_fault: ok"
