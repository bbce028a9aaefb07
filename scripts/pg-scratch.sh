#!/bin/sh
# Runs a command with a scratch PostgreSQL server: initdb in a temporary
# directory, a unix socket only (no TCP), trust authentication, run as the
# postgres user when invoked as root. The server is stopped and the directory
# removed when the command ends, whatever its outcome. The command sees
# PGHOST, PGPORT and PGUSER pointing at the server, and BENCH_PG_SCRATCH=1.
#
#   scripts/pg-scratch.sh COMMAND [ARGS...]
#   scripts/pg-scratch.sh --if-needed COMMAND [ARGS...]
#
# Where no PostgreSQL server binaries exist, the command runs without a
# server and BENCH_PG_SCRATCH is unset; tests that need one then skip and say so.
# With --if-needed (make run), a server that libpq's environment already
# reaches and lets us in is used as it is, and no scratch server starts.
set -u

if [ "${1:-}" = "--if-needed" ]; then
    shift
    if command -v psql >/dev/null 2>&1 &&
        PGCONNECT_TIMEOUT=2 psql -X -q -t -d template1 -c 'SELECT 1' >/dev/null 2>&1; then
        exec "$@"
    fi
fi

bindir=""
for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
        bindir=$d
        break
    fi
done
if [ -z "$bindir" ]; then
    echo "pg-scratch: no PostgreSQL server binaries found (install the postgresql package); PostgreSQL tests will be skipped" >&2
    exec "$@"
fi

dir=$(mktemp -d /tmp/bench-pg.XXXXXX)
chmod 755 "$dir"
as_pg=""
if [ "$(id -u)" -eq 0 ]; then
    chown postgres:postgres "$dir"
    as_pg="runuser -u postgres --"
fi
user=$(if [ -n "$as_pg" ]; then echo postgres; else id -un; fi)
port=$((20000 + $$ % 20000))

stop() {
    $as_pg "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
    rm -rf "$dir"
}
trap 'stop' EXIT
trap 'exit 130' INT TERM

if ! $as_pg "$bindir/initdb" -D "$dir/data" -A trust -U "$user" --no-sync >"$dir/initdb.log" 2>&1; then
    echo "pg-scratch: initdb failed:" >&2
    tail -5 "$dir/initdb.log" >&2
    exit 1
fi
if ! $as_pg "$bindir/pg_ctl" -D "$dir/data" -w -t 30 -l "$dir/server.log" \
    -o "-c listen_addresses='' -c unix_socket_directories='$dir' -p $port -c fsync=on" start >/dev/null; then
    echo "pg-scratch: the server did not start:" >&2
    tail -5 "$dir/server.log" >&2
    exit 1
fi
echo "pg-scratch: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on $dir port $port" >&2

PGHOST=$dir PGPORT=$port PGUSER=$user BENCH_PG_SCRATCH=1 "$@"
rc=$?
exit $rc
