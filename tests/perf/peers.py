#!/usr/bin/env python3
"""The sqlite and postgres targets beside their peers, in one invocation,
at the same durability and placement (whatever affinity this process was
started with: the caller pins it, and for postgres the scratch server too,
with taskset).

  peers.py sqlite BUILD      bench's sqlite target vs tests/perf/sqlite_peer.c
  peers.py postgres BUILD    bench's postgres target vs pgbench -M prepared
                             (run under scripts/pg-scratch.sh)

Each pair runs RUNS times, interleaved (bench, peer, bench, peer ...), each
run a fresh store; the figure of each side is the median of its runs, in
commands per second of the timed pass, and the ratio is bench over peer.
Every run is printed with its placement (bench's as its report records it,
the peer's as this process's affinity, which it inherits); the script
refuses, exit 1, to take a median over runs of different placements.
Goals (docs/benchmarks.md): sqlite >= 0.8x its peer, postgres >= 1.3x
pgbench, at normal and at full durability, at default placement. Exits 1
when a goal is missed, unless BENCH_PEER_REPORT_ONLY is set (pinned runs).
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
RUNS = int(os.environ.get("BENCH_PEER_RUNS", "5"))
WARMUP = 200
# timed cycles (4 commands each) per run, per durability: about a second
CYCLES = {
    "sqlite": {"normal": 4000, "full": 1000},
    "postgres": {"normal": 2000, "full": 1000},
}
GOALS = {"sqlite": 0.8, "postgres": 1.3}

# pgbench_pizzas.sql's values: what the postgres target binds for the cycle
PIZZA = '{"price_cents":1200,"size":"large"}'
BASIL = '{"name":"Basil","amount":3}'
OLIVE = '{"name":"Olive","amount":2}'
PGBENCH_VALUES = {
    "pizza": PIZZA,
    "empty": "[]",
    "one": f"[{BASIL}]",
    "two": f"[{BASIL},{OLIVE}]",
    "available": "available",
    "sold": "sold",
    "chris": "Chris",
    "order": "Order",
    "created_event": "PizzaCreated",
    "added_event": "ToppingAdded",
    "purchased_event": "PizzaPurchased",
    "created": '{"name":"pizza-0","pizza":' + PIZZA + "}",
    "basil": '{"name":"pizza-0","topping":' + BASIL + "}",
    "olive": '{"name":"pizza-0","topping":' + OLIVE + "}",
    "purchased": '{"name":"pizza-0","customer_name":"Chris","amount":1200}',
}


def perf_spec(path):
    """specs/pizzas.yaml with a target per engine and durability."""
    src = open(os.path.join(ROOT, "specs", "pizzas.yaml")).read()
    head = src[: src.index("  targets:")]
    targets = "".join(
        f"    - {engine}: {{label: {engine}-{d}, durability: {d}}}\n"
        for engine in ("sqlite", "postgres")
        for d in ("normal", "full")
    )
    with open(path, "w") as f:
        f.write(head + "  targets:\n" + targets)


def bench_run(build, spec, label, cycles):
    out = subprocess.run(
        [os.path.join(build, "bench"), "run", spec, "--targets", label, "--iterations",
         str(cycles), "--warmup", str(WARMUP), "--runs", "1", "--quiet", "--format", "json"],
        check=True, capture_output=True, text=True, cwd=ROOT).stdout
    report = json.loads(out)
    if report["failed"] or report["skipped"] or not report["results"]:
        sys.exit(f"peers: bench {label} did not run: {report['failed'] or report['skipped']}")
    result = report["results"][0]
    where = result.get("placement") or f"bench on CPUs {report['environment']['cpu_affinity']}"
    return (result["median"]["throughput_per_s"], result["median"]["round_trips_per_command"],
            where, report["environment"]["cpu_affinity"])


def sqlite_peer(build, durability, cycles):
    out = subprocess.run(
        [os.path.join(build, "perf_sqlite_peer"), durability, str(cycles), str(WARMUP)],
        check=True, capture_output=True, text=True).stdout
    return float(out.split()[1])


def psql(sql_args, env):
    subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", "bench"] + sql_args,
                   check=True, capture_output=True, text=True, env=env)


def pgbench(durability, cycles):
    """pgbench's commands per second: four per script run (its "tps")."""
    schema = f"bench_pgbench_{os.getpid()}"
    env = dict(os.environ)
    env["PGOPTIONS"] = (f"-c search_path={schema} "
                        f"-c synchronous_commit={'on' if durability == 'full' else 'off'}")
    setup = os.path.join(HERE, "pgbench_pizzas_setup.sql")
    psql(["-c", f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'], dict(os.environ))
    psql(["-v", f"schema={schema}", "-f", setup], dict(os.environ))
    try:
        args = ["pgbench", "-n", "-M", "prepared", "-c", "1", "-j", "1",
                "-f", os.path.join(HERE, "pgbench_pizzas.sql")]
        for k, v in PGBENCH_VALUES.items():
            args += ["-D", f"{k}={v}"]
        subprocess.run(args + ["-D", "n=0", "-t", str(WARMUP), "bench"], check=True,
                       capture_output=True, env=env)
        out = subprocess.run(args + ["-D", f"n={WARMUP}", "-t", str(cycles), "bench"],
                             check=True, capture_output=True, text=True, env=env).stdout
    finally:
        psql(["-c", f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'], dict(os.environ))
    m = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", out)
    if not m:
        sys.exit(f"peers: no tps in pgbench's output:\n{out}")
    return 4 * float(m.group(1))


def ensure_database():
    """The database bench, as the postgres target would create it."""
    out = subprocess.run(["psql", "-X", "-qtA", "-d", "postgres", "-c",
                          "SELECT 1 FROM pg_database WHERE datname = 'bench'"],
                         check=True, capture_output=True, text=True).stdout
    if out.strip() != "1":
        subprocess.run(["psql", "-X", "-q", "-d", "postgres", "-c", "CREATE DATABASE bench"],
                       check=True, capture_output=True)


def cpu_list():
    """This process's affinity as bench writes it: "0-1", "0,2-5"."""
    cpus, out = sorted(os.sched_getaffinity(0)), []
    for c in cpus:
        if out and out[-1][1] == c - 1:
            out[-1][1] = c
        else:
            out.append([c, c])
    return ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in out)


def placement():
    return f"cpus {cpu_list()} of {os.cpu_count()}"


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("sqlite", "postgres"):
        sys.exit("usage: peers.py sqlite|postgres BUILD")
    engine, build = sys.argv[1], os.path.abspath(sys.argv[2])
    if engine == "postgres":
        if not os.environ.get("BENCH_PG_SCRATCH"):
            print("postgres: skipped: no scratch PostgreSQL server (run under "
                  "scripts/pg-scratch.sh, which needs the postgresql package)")
            return 0
        ensure_database()
    missed, refused = 0, False
    with tempfile.TemporaryDirectory() as tmp:
        spec = os.path.join(tmp, "pizzas_peers.yaml")
        perf_spec(spec)
        for durability in ("normal", "full"):
            cycles = CYCLES[engine][durability]
            ours, theirs, trips, places = [], [], [], set()
            for k in range(RUNS):
                tput, rt, where, bench_cpus = bench_run(build, spec, f"{engine}-{durability}",
                                                        cycles)
                ours.append(tput)
                trips.append(rt)
                theirs.append(sqlite_peer(build, durability, cycles) if engine == "sqlite"
                              else pgbench(durability, cycles))
                peer_cpus = cpu_list()
                places.add((bench_cpus, peer_cpus))
                print(f"{engine} {durability} run {k + 1}: bench {tput:,.0f} commands/s "
                      f"({where}), peer {theirs[-1]:,.0f} commands/s (cpus {peer_cpus})")
            if len(places) > 1 or any(b != p for b, p in places):
                print(f"{engine} {durability}: refusing to take a median over runs of different "
                      f"placements (bench, peer CPUs: {sorted(places)})")
                refused = True
                continue
            a, b = statistics.median(ours), statistics.median(theirs)
            ratio = a / b
            goal = GOALS[engine]
            ok = ratio >= goal
            missed += not ok
            peer = "sqlite_peer.c" if engine == "sqlite" else "pgbench -M prepared"
            extra = (f", {statistics.median(trips):.2f} round trips per command"
                     if engine == "postgres" else "")
            verdict = (f"reported; the goal >= {goal} is for default placement"
                       if os.environ.get("BENCH_PEER_REPORT_ONLY")
                       else f"goal >= {goal}: {'met' if ok else 'MISSED'}")
            print(f"{engine} {durability}: bench {a:,.0f} commands/s (runs {min(ours):,.0f} to "
                  f"{max(ours):,.0f}{extra}), {peer} {b:,.0f} commands/s (runs {min(theirs):,.0f} "
                  f"to {max(theirs):,.0f}); ratio {ratio:.2f} ({verdict}); {RUNS} interleaved "
                  f"runs of {cycles} cycles, placement {placement()}")
    # a pinned run is reported; the goals are for default placement
    return 1 if refused or (missed and not os.environ.get("BENCH_PEER_REPORT_ONLY")) else 0


if __name__ == "__main__":
    sys.exit(main())
