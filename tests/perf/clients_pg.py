#!/usr/bin/env python3
"""make bench: the postgres target with 4 clients against pgbench -c 4 -j 2
running the same statements (issue 11 point 6). The pgbench script is
tests/perf/pgbench_pizzas.sql with the two changes 4 clients bring: each
client numbers its pizzas apart (as bench's ${n} is unique across clients)
and a command's SELECTs lock their rows (FOR UPDATE, as the postgres
target's loads do with several clients). Both at normal durability, on the
scratch server, at default placement, 3 interleaved runs; prints each
median and the ratio (reported: no goal is set for it)."""
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import peers  # noqa: E402  (its spec, values and helpers)

CLIENTS, RUNS, CYCLES = 4, 3, 500  # cycles per client


def script(path):
    text = open(os.path.join(HERE, "pgbench_pizzas.sql")).read()
    text = text.replace("\\set n :n + 1\n",
                        "\\set k :k + 1\n\\set n :k * %d + :client_id\n" % CLIENTS, 1)
    text = re.sub(r'(SELECT [^;]* WHERE "name" = :n);', r"\1 FOR UPDATE;", text)
    with open(path, "w") as f:
        f.write(text)


def pgbench(path):
    schema = f"bench_pgbench_{os.getpid()}"
    env = dict(os.environ)
    env["PGOPTIONS"] = f"-c search_path={schema} -c synchronous_commit=off"
    peers.psql(["-c", f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'], dict(os.environ))
    peers.psql(["-v", f"schema={schema}", "-f", os.path.join(HERE, "pgbench_pizzas_setup.sql")],
               dict(os.environ))
    try:
        args = ["pgbench", "-n", "-M", "prepared", "-c", str(CLIENTS), "-j", "2", "-f", path]
        for k, v in peers.PGBENCH_VALUES.items():
            args += ["-D", f"{k}={v}"]
        subprocess.run(args + ["-D", "k=0", "-t", str(peers.WARMUP), "bench"], check=True,
                       capture_output=True, env=env)
        out = subprocess.run(args + ["-D", f"k={peers.WARMUP}", "-t", str(CYCLES), "bench"],
                             check=True, capture_output=True, text=True, env=env).stdout
    finally:
        peers.psql(["-c", f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'], dict(os.environ))
    m = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", out)
    if not m:
        sys.exit(f"clients_pg: no tps in pgbench's output:\n{out}")
    return 4 * float(m.group(1))


def bench(build, spec):
    out = subprocess.run(
        [os.path.join(build, "bench"), "run", spec, "--targets", "postgres-normal", "--clients",
         str(CLIENTS), "--iterations", str(CYCLES), "--warmup", str(peers.WARMUP), "--runs",
         "1", "--quiet", "--format", "json"],
        check=True, capture_output=True, text=True, cwd=peers.ROOT).stdout
    report = peers.json.loads(out)
    if report["failed"] or report["skipped"] or not report["results"]:
        sys.exit(f"clients_pg: bench did not run: {report['failed'] or report['skipped']}")
    return report["results"][0]["median"]["throughput_per_s"]


def main():
    if not os.environ.get("BENCH_PG_SCRATCH"):
        print("  postgres with 4 clients: skipped: no scratch PostgreSQL server")
        return
    peers.ensure_database()
    build = os.path.abspath(sys.argv[1])
    with open("/proc/loadavg") as f:
        before = " ".join(f.read().split()[:3])
    ours, theirs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        spec, sql = os.path.join(tmp, "pizzas_peers.yaml"), os.path.join(tmp, "clients.sql")
        peers.perf_spec(spec)
        script(sql)
        for _ in range(RUNS):
            ours.append(bench(build, spec))
            theirs.append(pgbench(sql))
    with open("/proc/loadavg") as f:
        after = " ".join(f.read().split()[:3])
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"  postgres normal, 4 clients: bench {a:,.0f} commands/s, pgbench -c 4 -j 2 "
          f"{b:,.0f} (medians of {RUNS} interleaved runs of {CYCLES} cycles per client); ratio "
          f"{a / b:.2f} (reported); placement {peers.placement()}; load average {before} "
          f"before, {after} after")


main()
