#!/usr/bin/env python3
"""tests/k8s_recipe.py BENCH: examples/k8s/bench-shards.yml run without a
cluster. It reads the manifest as Kubernetes would (PyYAML, every document),
checks what the recipe promises (three Jobs; the shards' Job Indexed, as
many completions as parallelism, backoffLimit 0 everywhere, the shard given
as $JOB_COMPLETION_INDEX/completions), then runs each Job's container
command here, in order, as the pods would: the setup, every shard at once
(JOB_COMPLETION_INDEX set, one START_AT), then the merge, verify, gate and
teardown. /specs is the repository's specs/, /results a scratch directory;
the database is the scratch PostgreSQL that the environment names (PGHOST,
PGPORT, PGUSER from scripts/pg-scratch.sh). The gate's baseline, which a
user provides, is the merged result itself. Fails with a sentence."""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

bench = os.path.abspath(sys.argv[1])
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fail(msg):
    sys.exit("k8s_recipe: " + msg)


if not os.environ.get("BENCH_PG_SCRATCH"):
    print("k8s_recipe: skipped: no scratch PostgreSQL (run under scripts/pg-scratch.sh)")
    sys.exit(77)

with open(os.path.join(root, "examples/k8s/bench-shards.yml")) as f:
    docs = [d for d in yaml.safe_load_all(f) if d]
jobs = {d["metadata"]["name"]: d for d in docs}
if [d["kind"] for d in docs] != ["Job"] * 3 or list(jobs) != ["bench-setup", "bench-shards",
                                                               "bench-merge"]:
    fail("the manifest is not the three Jobs bench-setup, bench-shards, bench-merge in order")
for name, d in jobs.items():
    if d["spec"].get("backoffLimit") != 0:
        fail(f"{name}: backoffLimit is not 0")
    if d["spec"]["template"]["spec"].get("restartPolicy") != "Never":
        fail(f"{name}: restartPolicy is not Never")
shards = jobs["bench-shards"]["spec"]
if shards.get("completionMode") != "Indexed":
    fail("bench-shards is not an Indexed Job")
n = shards["completions"]
if shards.get("parallelism") != n:
    fail("bench-shards: parallelism differs from completions, so the shards do not start together")

scratch = tempfile.mkdtemp(prefix="bench-k8s-")
run_name = "k8s_recipe_%d" % os.getpid()
results = os.path.join(scratch, "results")
os.mkdir(results)
shutil.copytree(os.path.join(root, "specs"), os.path.join(scratch, "specs"))
shutil.copytree(os.path.join(root, "examples"), os.path.join(scratch, "examples"))
os.mkdir(os.path.join(scratch, "bin"))
os.symlink(bench, os.path.join(scratch, "bin", "bench"))


def argv_of(job, start_at):
    c = job["spec"]["template"]["spec"]["containers"][0]
    words = list(c["command"]) + list(c.get("args", []))
    subst = lambda w: (w.replace("RUN_NAME", run_name).replace("/specs/", scratch + "/specs/")
                       .replace("/results", results).replace("START_AT_VALUE", str(start_at)))
    env = {e["name"]: subst(e["value"]) for e in c.get("env", [])}
    return [subst(w) for w in words], env


def start(job, start_at, extra_env):
    argv, env = argv_of(job, start_at)
    e = dict(os.environ, PATH=os.path.join(scratch, "bin") + ":" + os.environ["PATH"])
    e.update(env)
    e.update(extra_env)
    return subprocess.Popen(argv, env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def finish(name, p):
    out, _ = p.communicate(timeout=600)
    if p.returncode != 0:
        fail(f"{name} exited {p.returncode}:\n{out}")
    return out


try:
    finish("bench-setup", start(jobs["bench-setup"], 0, {}))
    argv, _ = argv_of(jobs["bench-shards"], 0)
    if f'"$JOB_COMPLETION_INDEX/{n}"' not in " ".join(argv):
        fail(f"bench-shards does not run --shard \"$JOB_COMPLETION_INDEX/{n}\"")
    start_at = int(time.time()) + 3
    pods = [start(jobs["bench-shards"], start_at, {"JOB_COMPLETION_INDEX": str(i)})
            for i in range(n)]
    for i, p in enumerate(pods):
        finish(f"bench-shards pod {i}", p)
    # the baseline a user keeps beside the results: here, the merge itself
    subprocess.run([bench, "merge", *[os.path.join(results, f"shard-{i}.json") for i in range(n)],
                    "--output", os.path.join(results, "baseline.json")], check=True,
                   capture_output=True)
    out = finish("bench-merge", start(jobs["bench-merge"], 0, {}))
    if not os.path.exists(os.path.join(results, "merged.json")):
        fail("bench-merge wrote no merged.json")
    print(out.strip())
    print(f"k8s_recipe: ok ({n} shards, merge, verify, gate and teardown on schema {run_name})")
finally:
    subprocess.run([bench, "teardown", os.path.join(scratch, "specs/pizzas.yaml"), "--targets",
                    "postgres", "--schema", run_name], capture_output=True)
    shutil.rmtree(scratch, ignore_errors=True)
