/* cli_run.c: `bench run`, `bench targets` and `bench schema`. */
#define _GNU_SOURCE /* sched_setaffinity */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#include "alloc.h"
#include "arrival.h"
#include "env.h"
#include "report.h"
#include "runner.h"
#include "sha256.h"
#include "spec.h"
#include "target.h"
#include <cjson/cJSON.h>

static const char usage_run[] =
    "usage: bench run [options] SPEC...\n"
    "\n"
    "Runs each spec's cycle against its targets and reports commands/s, latency\n"
    "percentiles and drift. Flags override the spec. Each is given once, but\n"
    "--targets, whose lists add up.\n"
    "\n"
    "  --targets LIST     labels or target names to run, comma-separated (a\n"
    "                     label picks its entry alone, a name every entry of\n"
    "                     that target)\n"
    "  --iterations N     timed cycles per run\n"
    "  --warmup N         untimed cycles before timing\n"
    "  --runs N           fresh boots per target (the report shows medians)\n"
    "  --prefill N[,N..]  untimed cycles that grow the store first; one row per size\n"
    "                     (each size once)\n"
    "  --duration D       time the pass for D (30s, 500ms, 2m) instead of --iterations\n"
    "  --rate R[,R..]     open loop: start R cycles per second on a Poisson schedule\n"
    "                     (the spec's arrival process if it has one); latencies are\n"
    "                     then response times, from each cycle's intended start;\n"
    "                     several rates are a sweep, one row per rate (each once)\n"
    "  --interval D       the length of the intervals of the JSON's latency over time\n"
    "                     (default 1s, or --progress's)\n"
    "  --hlog FILE        the intervals in HdrHistogram's interval-log format, one tag\n"
    "                     per run and per verb, written as --output writes\n"
    "  --clients N[,N..]  closed-loop callers at once, each with its own session\n"
    "                     (iterations and warmup are per client); several numbers\n"
    "                     are a sweep, one row per number\n"
    "  --threads T        threads that drive the clients (default: the CPUs in\n"
    "                     force, at most the clients); a thread takes its clients\n"
    "                     in turn, one cycle each\n"
    "  --seed N           the seed of every draw (flows, pick, take, uniform) instead\n"
    "                     of the spec's workload.seed\n"
    "  --format FMT       ";
/* After the formats, which report_formats lists. */
static const char usage_run_rest[] =
    "  --output FILE      write the report to FILE instead of stdout: atomically for\n"
    "                     a regular file (a symlink's target is replaced, the link\n"
    "                     kept), in place for a FIFO or a device; '-' is stdout.\n"
    "                     Checked before the first run; if the write fails at the\n"
    "                     end, the report goes to a fallback file in $TMPDIR or\n"
    "                     /tmp and the message names it\n"
    "  --samples FILE     write every timed latency as CSV (buffered in memory),\n"
    "                     as --output writes; '-' is stdout when the report is not\n"
    "                     (give --output FILE too)\n"
    "  --label TEXT       a label recorded in the environment\n"
    "  --cpu LIST         pin the harness (and its children) to these CPUs, e.g. 0 or 0-1\n"
    "  --process-cmd CMD  the command of every target with a command option (split\n"
    "                     on spaces)\n"
    "  --progress SEC     a line every SEC seconds of a timed pass (the intervals'\n"
    "                     length, unless --interval sets it): rate, p50 and p99\n"
    "  --quiet            no progress on stderr (by default one line per run, and\n"
    "                     a live line during timed passes when stderr is a terminal)\n"
    "  --keep             keep the scratch stores of the targets with a keep option,\n"
    "                     and say where\n"
    "  --verify LEVEL     what verify reads back: counts (and a sample of records),\n"
    "                     state (every record) or full (and the shadow's counts)\n"
    "  --shard I/N        run shard I (from 0) of N: its own cycle numbers, random\n"
    "                     streams and prefill share, 1/N of an arrival rate; the\n"
    "                     result keeps what bench merge needs (docs/scale.md)\n"
    "  --start-at TIME    start the first timed pass at TIME (seconds since the\n"
    "                     epoch, or YYYY-MM-DDTHH:MM:SS[.fff]Z); the result records\n"
    "                     how late it began\n"
    "  --schema NAME      postgres targets use the schema NAME that bench setup made\n"
    "  --store-file PATH  sqlite targets use the database PATH that bench setup made\n"
    "  --no-setup         skip the setup steps: the named store holds them (with\n"
    "                     --schema or --store-file, and --runs 1); bench verify\n"
    "                     --results checks the store after bench merge\n"
    "  -h, --help         show this help\n";

static const char usage_targets[] =
    "usage: bench targets\n"
    "\n"
    "Lists every target bench has, whether it can run here (and why not), what it\n"
    "can do, and its options (each with its type, default and meaning), as the\n"
    "targets declare them.\n";

static const char usage_schema[] =
    "usage: bench schema [SPEC]\n"
    "\n"
    "Prints the spec schema (JSON Schema draft-07) that lint checks specs against,\n"
    "with each target's options as its driver declares them; schema/spec.schema.json\n"
    "is the same document, for editors.\n"
    "\n"
    "With SPEC, prints the schema of that spec's domain: a step's keys are its verbs,\n"
    "each with its parameters, their types and which are required, and a policy's\n"
    "when and run its events and commands. Point an editor at it to complete verbs\n"
    "and arguments and flag a verb the domain does not have (docs/spec.md, \"Editor\n"
    "support\"). SPEC must compile; its errors are printed as lint prints them.\n";

typedef struct run_args {
    run_options o;
    const char *format, *output, *samples, *label, *cpu, *hlog;
    char *only_buf;
    const char **only;
    int64_t *prefill;
    double *rates;
    int64_t *clients;
} run_args;

static int parse_count(const char *opt, const char *s, int64_t min, int64_t *out)
{
    return cli_parse_count("run", opt, s, min, out);
}

static size_t split_commas(char *s, const char **out, size_t max)
{
    size_t n = 0;
    for (char *tok = strtok(s, ","); tok && n < max; tok = strtok(NULL, ","))
        out[n++] = tok;
    return n;
}

/* The whole numbers of flag opt's comma-separated list s, each from min to
 * max and each once (a level twice would be two rows of one metric name),
 * into *out (freed first; the caller frees it), their count in *n. Returns
 * 0, or the usage error's status. */
static int parse_levels(const char *opt, const char *s, int64_t min, int64_t max, int64_t **out,
                        size_t *n)
{
    char *buf = xstrdup(s);
    size_t most = strlen(s) / 2 + 1; /* k numbers take 2k - 1 characters or more */
    const char **parts = xcalloc(most, sizeof *parts);
    *n = split_commas(buf, parts, most);
    free(*out);
    *out = xcalloc(*n ? *n : 1, sizeof **out);
    int rc = 0;
    for (size_t i = 0; i < *n && rc == 0; i++) {
        rc = cli_parse_bounded("run", opt, parts[i], min, max, &(*out)[i]);
        for (size_t k = 0; k < i && rc == 0; k++)
            if ((*out)[k] == (*out)[i])
                rc = cli_usage_error("run", "%s lists %" PRId64 " twice", opt, (*out)[i]);
    }
    free(parts);
    free(buf);
    return rc;
}

/* --prefill: the sizes, each once. */
static int parse_prefill(run_args *a, const char *s)
{
    size_t n;
    int rc = parse_levels("--prefill", s, 0, CLI_MAX_CYCLES, &a->prefill, &n);
    if (rc)
        return rc;
    if (n == 0)
        return cli_usage_error("run", "--prefill needs at least one size");
    a->o.prefill = a->prefill;
    a->o.nprefill = n;
    return 0;
}

/* --rate: one rate, or a sweep of them, each once (a rate twice would be
 * two rows of one metric name). */
static int parse_rate(run_args *a, const char *s)
{
    char *buf = xstrdup(s);
    size_t max = strlen(s) / 2 + 1;
    const char **parts = xcalloc(max, sizeof *parts);
    size_t n = split_commas(buf, parts, max);
    free(a->rates);
    a->rates = xcalloc(n ? n : 1, sizeof *a->rates);
    int rc = n == 0 ? cli_usage_error("run",
                                      "--rate needs a number of cycles per second above "
                                      "0, not '%s'",
                                      s)
                    : 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char *end;
        a->rates[i] = strtod(parts[i], &end);
        if (end == parts[i] || *end || !(a->rates[i] > 0) || !isfinite(a->rates[i]))
            rc = cli_usage_error("run",
                                 "--rate needs a number of cycles per second above 0, "
                                 "not '%s'",
                                 parts[i]);
        for (size_t k = 0; k < i && rc == 0; k++)
            if (a->rates[k] == a->rates[i])
                rc = cli_usage_error("run", "--rate lists %.15g twice", a->rates[i]);
    }
    free(parts);
    free(buf);
    if (rc == 0) {
        a->o.rate = a->rates[0];
        a->o.rates = n > 1 ? a->rates : NULL;
        a->o.nrates = n > 1 ? n : 0;
    }
    return rc;
}

/* --clients: one number of clients, or a sweep of them, each once. */
static int parse_clients(run_args *a, const char *s)
{
    size_t n;
    int rc = parse_levels("--clients", s, 1, CLI_MAX_CLIENTS, &a->clients, &n);
    if (rc == 0 && n == 0) /* nothing between the commas: the flag's own message */
        rc = cli_parse_bounded("run", "--clients", s, 1, CLI_MAX_CLIENTS, &a->clients[0]);
    if (rc == 0) {
        a->o.clients = a->clients[0];
        a->o.client_levels = n > 1 ? a->clients : NULL;
        a->o.nclient_levels = n > 1 ? n : 0;
    }
    return rc;
}

/* --targets is cumulative: `--targets a --targets b` is `--targets a,b`. */
static void add_targets(run_args *a, const char *s)
{
    size_t old = a->only_buf ? strlen(a->only_buf) : 0;
    a->only_buf = xrealloc(a->only_buf, old + strlen(s) + 2);
    snprintf(a->only_buf + old, strlen(s) + 2, "%s%s", old ? "," : "", s);
}

static int parse_cpu(const char *s)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    char *buf = xstrdup(s), *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
        char *dash = strchr(tok, '-'), *end;
        long lo = strtol(tok, &end, 10), hi = lo;
        if (dash)
            hi = strtol(dash + 1, &end, 10);
        if (*end || lo < 0 || hi < lo || hi >= CPU_SETSIZE)
            rc =
                cli_usage_error("run", "--cpu takes a CPU list such as 0, 0-1 or 0,2; not '%s'", s);
        for (long c = lo; rc == 0 && c <= hi; c++)
            CPU_SET((int)c, &set);
    }
    free(buf);
    if (rc == 0 && sched_setaffinity(0, sizeof set, &set) != 0)
        rc = cli_usage_error("run", "cannot pin to CPUs %s: %s", s, strerror(errno));
    return rc;
}

static int parse_run_args(int argc, char **argv, run_args *a)
{
    enum {
        O_TARGETS = 256,
        O_ITER,
        O_WARM,
        O_RUNS,
        O_PREFILL,
        O_FORMAT,
        O_OUTPUT,
        O_SAMPLES,
        O_LABEL,
        O_CPU,
        O_QUIET,
        O_KEEP,
        O_PROGRESS,
        O_PROCESS,
        O_VERIFY,
        O_SEED,
        O_DURATION,
        O_RATE,
        O_INTERVAL,
        O_HLOG,
        O_CLIENTS,
        O_THREADS,
        O_SHARD,
        O_START_AT,
        O_SCHEMA,
        O_STORE_FILE,
        O_NO_SETUP
    };
    static const struct option opts[] = {{"targets", required_argument, NULL, O_TARGETS},
                                         {"iterations", required_argument, NULL, O_ITER},
                                         {"warmup", required_argument, NULL, O_WARM},
                                         {"runs", required_argument, NULL, O_RUNS},
                                         {"prefill", required_argument, NULL, O_PREFILL},
                                         {"format", required_argument, NULL, O_FORMAT},
                                         {"output", required_argument, NULL, O_OUTPUT},
                                         {"samples", required_argument, NULL, O_SAMPLES},
                                         {"label", required_argument, NULL, O_LABEL},
                                         {"cpu", required_argument, NULL, O_CPU},
                                         {"quiet", no_argument, NULL, O_QUIET},
                                         {"progress", required_argument, NULL, O_PROGRESS},
                                         {"process-cmd", required_argument, NULL, O_PROCESS},
                                         {"keep", no_argument, NULL, O_KEEP},
                                         {"verify", required_argument, NULL, O_VERIFY},
                                         {"seed", required_argument, NULL, O_SEED},
                                         {"duration", required_argument, NULL, O_DURATION},
                                         {"rate", required_argument, NULL, O_RATE},
                                         {"interval", required_argument, NULL, O_INTERVAL},
                                         {"hlog", required_argument, NULL, O_HLOG},
                                         {"clients", required_argument, NULL, O_CLIENTS},
                                         {"threads", required_argument, NULL, O_THREADS},
                                         {"shard", required_argument, NULL, O_SHARD},
                                         {"start-at", required_argument, NULL, O_START_AT},
                                         {"schema", required_argument, NULL, O_SCHEMA},
                                         {"store-file", required_argument, NULL, O_STORE_FILE},
                                         {"no-setup", no_argument, NULL, O_NO_SETUP},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    a->o.iterations = a->o.warmup = a->o.runs = a->o.clients = -1;
    a->o.floor_cycles = 2000;
    a->format = report_formats[0].name;
    int c, rc = 0, at;
    int64_t secs = 0;
    uint64_t seen = 0;
    optind = 1;
    opterr = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, ":h", opts, &at)) != -1) {
        /* every option with a value is given once, but the list --targets */
        char flag[32];
        snprintf(flag, sizeof flag, "--%s", c >= O_ITER && c <= O_NO_SETUP ? opts[at].name : "");
        if (c >= O_ITER && c <= O_NO_SETUP && c != O_QUIET && c != O_KEEP && c != O_NO_SETUP &&
            (rc = cli_once("run", flag, &seen, (unsigned)(c - O_TARGETS))))
            break;
        switch (c) {
        case O_TARGETS: add_targets(a, optarg); break;
        case O_ITER:
            rc = cli_parse_bounded("run", "--iterations", optarg, 1, CLI_MAX_CYCLES,
                                   &a->o.iterations);
            break;
        case O_WARM:
            rc = cli_parse_bounded("run", "--warmup", optarg, 0, CLI_MAX_CYCLES, &a->o.warmup);
            break;
        case O_RUNS:
            rc = cli_parse_bounded("run", "--runs", optarg, 1, CLI_MAX_RUNS, &a->o.runs);
            break;
        case O_CLIENTS: rc = parse_clients(a, optarg); break;
        case O_THREADS:
            rc = cli_parse_bounded("run", "--threads", optarg, 1, CLI_MAX_CLIENTS, &a->o.threads);
            break;
        case O_PREFILL: rc = parse_prefill(a, optarg); break;
        case O_FORMAT: a->format = optarg; break;
        case O_OUTPUT: a->output = optarg; break;
        case O_SAMPLES: a->samples = optarg; break;
        case O_LABEL: a->label = optarg; break;
        case O_CPU: a->cpu = optarg; break;
        case O_QUIET: a->o.quiet = true; break;
        case O_KEEP: a->o.keep = true; break;
        case O_PROGRESS:
            rc = cli_parse_bounded("run", "--progress", optarg, 1, CLI_MAX_PROGRESS_S, &secs);
            a->o.progress_seconds = (double)secs;
            break;
        case O_PROCESS: a->o.process_cmd = optarg; break;
        case O_DURATION:
        case O_INTERVAL:
            if (duration_parse(optarg, c == O_DURATION ? &a->o.duration_ns : &a->o.interval_ns))
                rc =
                    cli_usage_error("run", "%s needs a duration such as 30s, 250ms or 2m, not '%s'",
                                    c == O_DURATION ? "--duration" : "--interval", optarg);
            break;
        case O_RATE: rc = parse_rate(a, optarg); break;
        case O_HLOG: a->hlog = optarg; break;
        case O_SHARD:
            rc = cli_parse_shard("run", optarg, &a->o.shard_index, &a->o.shard_count);
            break;
        case O_START_AT: rc = cli_parse_time("run", "--start-at", optarg, &a->o.start_at); break;
        case O_SCHEMA:
            rc = cli_check_schema("run", optarg);
            a->o.store_schema = optarg;
            break;
        case O_STORE_FILE: a->o.store_file = optarg; break;
        case O_NO_SETUP: a->o.no_setup = true; break;
        case O_SEED: {
            int64_t seed = 0;
            rc = parse_count("--seed", optarg, 0, &seed);
            a->o.seed_given = rc == 0;
            a->o.seed = (uint64_t)seed;
            break;
        }
        case O_VERIFY:
            if (!(a->o.verify = verify_level_of(optarg)))
                rc = cli_usage_error("run", "--verify is one of counts, state, full, not '%s'",
                                     optarg);
            break;
        case 'h': {
            char names[256];
            report_format_names(true, names, sizeof names);
            char usage[sizeof usage_run + sizeof usage_run_rest + sizeof names];
            snprintf(usage, sizeof usage, "%s%s\n%s", usage_run, names, usage_run_rest);
            cli_help("run", usage);
            return -1;
        }
        case ':': rc = cli_usage_error("run", "%s needs a value", argv[optind - 1]); break;
        default: rc = cli_usage_error("run", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (rc)
        return rc;
    if (a->only_buf) {
        a->only = xcalloc(strlen(a->only_buf) / 2 + 1, sizeof *a->only);
        a->o.nonly = split_commas(a->only_buf, a->only, strlen(a->only_buf) / 2 + 1);
        a->o.only = a->only;
    }
    if (!report_format_find(a->format)) {
        char names[256];
        report_format_names(false, names, sizeof names);
        return cli_usage_error("run", "unknown format '%s'; use %s", a->format, names);
    }
    if (optind >= argc)
        return cli_usage_error("run", "no spec given");
    if (a->samples && !strcmp(a->samples, "-") && (!a->output || !strcmp(a->output, "-")))
        return cli_usage_error("run", "--samples - and the report would both go to stdout; give "
                                      "--output FILE or --samples FILE");
    if (a->cpu && parse_cpu(a->cpu))
        return EXIT_USAGE;
    if (a->o.no_setup && !a->o.store_schema && !a->o.store_file)
        return cli_usage_error("run", "--no-setup needs the store bench setup made: give --schema "
                                      "NAME or --store-file PATH");
    if (a->o.no_setup && a->o.runs > 1)
        return cli_usage_error("run",
                               "--no-setup takes one run: a shared store is not a fresh "
                               "boot, so --runs %" PRId64 " would run on what run 1 left",
                               a->o.runs);
    if (a->o.no_setup)
        a->o.runs = 1;
    a->o.live = isatty(STDERR_FILENO) != 0;
    return 0;
}

static void free_run_args(run_args *a)
{
    free(a->only_buf);
    free(a->only);
    free(a->prefill);
    free(a->rates);
    free(a->clients);
}

static void on_sigint(int sig)
{
    (void)sig;
    runner_interrupted = 1;
}

static int check_only(const run_args *a, const plan *const *plans, size_t n)
{
    for (size_t i = 0; i < a->o.nonly; i++)
        if (!runner_target_known(plans, n, a->only[i]))
            return cli_usage_error("run",
                                   "--targets names '%s', which is neither a target nor a label "
                                   "in the specs",
                                   a->only[i]);
    return 0;
}

/* One sweep at a time: --rate R1,R2,.. is one, --clients N1,N2,..
 * another, and a spec whose clients is a list (unless --clients chose)
 * or whose arrival rate is one (unless --rate chose) another. */
static int check_sweeps(const run_args *a, const plan *const *plans, size_t n)
{
    if (a->o.nrates > 1 && a->o.nclient_levels > 1)
        return cli_usage_error("run", "--rate and --clients each list several: two sweeps, and "
                                      "one runs at a time");
    for (size_t i = 0; a->o.nclient_levels > 1 && !(a->o.rate > 0) && i < n; i++)
        if (plans[i]->work.nrate_levels > 1)
            return cli_usage_error("run",
                                   "--clients with several numbers is a sweep, and %s's arrival "
                                   "rate is a list, another: one sweep at a time (add --rate R)",
                                   plans[i]->path);
    for (size_t i = 0; a->o.nrates > 1 && a->o.clients <= 0 && i < n; i++)
        if (plans[i]->work.nclient_levels > 1)
            return cli_usage_error("run",
                                   "--rate with several rates is a sweep, and %s's clients is a "
                                   "list, another: one sweep at a time (add --clients N)",
                                   plans[i]->path);
    return 0;
}

static int open_specs(int argc, char **argv, spec *specs, size_t *n)
{
    int status = 0;
    for (int i = 0; i < argc; i++) {
        diag_list d = {0};
        spec_status st = spec_open(argv[i], &d, &specs[*n]);
        diag_sort(&d);
        cli_print_diags(&d, specs[*n].dc, DIAG_FORMAT_TEXT, stderr);
        if (st != SPEC_OK) { /* unreadable (2) outweighs invalid (1) */
            if (st == SPEC_IO || status == 0)
                status = st == SPEC_IO ? EXIT_USAGE : EXIT_FAILED;
            spec_close(&specs[*n]);
        } else {
            (*n)++;
        }
        diag_list_free(&d);
    }
    return status;
}

static void fill_config(run_args *a, spec *specs, size_t n, report *r)
{
    run_config *c = &r->config;
    c->specs = xcalloc(n, sizeof *c->specs);
    c->nspecs = n;
    for (size_t i = 0; i < n; i++) {
        c->specs[i].path = specs[i].p->path;
        sha256_hex(specs[i].p->source->source, specs[i].p->source->len, c->specs[i].sha256);
    }
    const workload *w = n ? &specs[0].p->work : NULL;
    c->warmup = a->o.warmup >= 0 ? a->o.warmup : w ? w->warmup : 0;
    c->iterations = a->o.iterations >= 0 ? a->o.iterations : w ? w->iterations : 0;
    c->runs = a->o.runs >= 0 ? a->o.runs : w ? w->runs : 0;
    c->prefill = a->o.prefill ? a->prefill : w ? w->prefill : NULL;
    c->nprefill = a->o.prefill ? a->o.nprefill : w ? w->nprefill : 0;
    c->seed_given = a->o.seed_given;
    c->duration_s = (double)(a->o.duration_ns ? a->o.duration_ns : w ? w->duration_ns : 0) / 1e9;
    c->rate = a->o.rate > 0 ? a->o.rate : w ? w->arrival.rate : 0;
    c->clients = a->o.clients > 0 ? a->o.clients : w && w->clients > 1 ? w->clients : 1;
    c->threads = a->o.threads;
    c->seed = a->o.seed;
    /* the labels of every target entry that runs, in order, once each */
    for (size_t i = 0; i < n; i++) {
        size_t nt;
        target_spec *ts = runner_targets(specs[i].p, &a->o, &nt);
        c->targets = xrealloc(c->targets, (c->ntargets + nt + 1) * sizeof *c->targets);
        for (size_t t = 0; t < nt; t++) {
            bool seen = false;
            for (size_t k = 0; k < c->ntargets && !seen; k++)
                seen = !strcmp(c->targets[k], ts[t].label);
            if (!seen) /* the label is the plan's or the driver's: it outlives ts */
                c->targets[c->ntargets++] = ts[t].label;
        }
        free(ts);
    }
    c->samples = a->samples != NULL;
    c->cpu = a->cpu;
    c->store = a->o.store_schema ? a->o.store_schema : a->o.store_file;
    c->no_setup = a->o.no_setup;
    if (a->o.shard_count > 0) {
        c->shard.index = a->o.shard_index;
        c->shard.count = a->o.shard_count;
        if (gethostname(c->shard.host, sizeof c->shard.host - 1) != 0)
            c->shard.host[0] = '\0';
        c->shard.start_at = a->o.start_at > 0 ? a->o.start_at : NAN;
        c->shard.started_s = c->shard.lateness_s = c->shard.skew_s = NAN;
    }
}

/* What the targets that talk to a server saw of it, for the environment. */
static void add_servers(environment *env)
{
    size_t n;
    const target_driver *const *all = target_all(&n);
    for (size_t i = 0; i < n; i++) {
        char server[256], lib[64];
        if (all[i]->environment &&
            all[i]->environment(all[i], server, sizeof server, lib, sizeof lib) == 0)
            env_add_postgres(env, server, lib);
    }
}

/* --output and --samples, before the first run: a path that cannot be
 * written is found now, not after the whole run. */
static int check_outputs(const run_args *a)
{
    const char *paths[] = {a->output, a->samples, a->hlog};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        char err[1024];
        if (paths[i] && output_check(paths[i], err, sizeof err) != 0) {
            fprintf(stderr, "bench run: %s Nothing was run.\n", err);
            return EXIT_USAGE;
        }
    }
    return 0;
}

/* The report to --output (or stdout); when that fails the report goes to a
 * fallback file, and the message says where. Returns 0 or EXIT_OUTPUT. */
static int write_report(const run_args *a, const report *r)
{
    const report_format *fmt = report_format_find(a->format);
    const char *where = a->output ? a->output : "-";
    char err[1024], fallback[512], ferr[1024];
    if (report_write_atomic(where, fmt->write, r, err, sizeof err) == 0)
        return 0;
    if (report_write_fallback(fmt->ext, fmt->write, r, fallback, sizeof fallback, ferr,
                              sizeof ferr) == 0) {
        fprintf(stderr, "bench run: %s The results are saved in %s instead.\n", err, fallback);
        return EXIT_OUTPUT;
    }
    /* the last place left: the results on stderr rather than nowhere */
    fprintf(stderr,
            "bench run: %s\nbench run: the fallback failed too: %s\nbench run: the results "
            "follow on stderr.\n",
            err, ferr);
    fmt->write(r, stderr);
    return EXIT_OUTPUT;
}

/* The samples file, written beside its target and renamed over it at the
 * end, so that a failed run never leaves a truncated file over an old one. */
static int open_samples(const char *path, atomic_file *af)
{
    char err[1024];
    if (atomic_file_open(path, af, err, sizeof err) != 0) {
        fprintf(stderr, "bench run: %s Nothing was run.\n", err);
        return EXIT_USAGE;
    }
    return 0;
}

static int commit_samples(atomic_file *af, const char *what)
{
    char err[1024];
    if (atomic_file_commit(af, err, sizeof err) == 0)
        return 0;
    fprintf(stderr, "bench run: the %s were not written: %s\n", what, err);
    return EXIT_OUTPUT;
}

/* --hlog, from the finished report. */
static int write_hlog(const report *r, atomic_file *af)
{
    bench_error e = {{0}};
    if (report_hlog(r, af->f, &e) == 0)
        return commit_samples(af, "HdrHistogram intervals");
    fprintf(stderr, "bench run: the HdrHistogram intervals were not written: %s\n", e.msg);
    return EXIT_OUTPUT;
}

int cli_run(int argc, char **argv)
{
    run_args a = {0};
    int rc = parse_run_args(argc, argv, &a);
    if (rc) {
        free_run_args(&a);
        return rc < 0 ? EXIT_CLEAN : rc;
    }
    size_t nspecs = 0;
    spec *specs = xcalloc((size_t)(argc - optind), sizeof *specs);
    int first = optind;
    rc = open_specs(argc - first, argv + first, specs, &nspecs);
    const plan **plans = xcalloc(nspecs ? nspecs : 1, sizeof *plans);
    for (size_t i = 0; i < nspecs; i++)
        plans[i] = specs[i].p;
    if (rc == 0)
        rc = check_only(&a, plans, nspecs);
    if (rc == 0)
        rc = check_sweeps(&a, plans, nspecs);
    if (rc == 0)
        rc = check_outputs(&a);
    atomic_file samples = {0}, hlog = {0};
    if (rc == 0 && a.samples)
        rc = open_samples(a.samples, &samples);
    if (rc == 0 && a.hlog)
        rc = open_samples(a.hlog, &hlog);
    if (rc == 0) {
        report r = {0};
        env_collect(&r.env);
        if (a.label)
            snprintf(r.env.label, sizeof r.env.label, "%s", a.label);
        fill_config(&a, specs, nspecs, &r);
        if (samples.f)
            fputs("domain,label,run,verb,cycle,nanoseconds\n", samples.f);
        a.o.samples = samples.f;
        /* a closed terminal (SIGHUP) stops the runs as Ctrl-C does: scratch
         * stores are removed and what finished is written */
        struct sigaction sa = {.sa_handler = on_sigint}, old_int, old_term, old_hup;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        sigaction(SIGHUP, &sa, &old_hup);
        rc = runner_run(plans, nspecs, &a.o, &r);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        sigaction(SIGHUP, &old_hup, NULL);
        char why[128];
        bool none = runner_nothing_ran(&r, why, sizeof why);
        if (rc != EXIT_INTERRUPTED && none)
            fprintf(stderr, "bench run: nothing ran: %s%s\n", why, a.o.quiet ? "" : " (see above)");
        /* the samples file describes this invocation, as the report does:
         * replaced even when no timed pass finished, and then said so */
        if (samples.f && none && strcmp(a.samples, "-") != 0)
            fprintf(stderr, "bench run: %s holds only the CSV header: no timed pass finished\n",
                    a.samples);
        env_load_after(&r.env);
        add_servers(&r.env);
        /* an output that failed outweighs a failed run or an interruption:
         * the results are not where they were asked for */
        if (write_report(&a, &r) != 0)
            rc = EXIT_OUTPUT;
        if (samples.f && commit_samples(&samples, "samples") != 0)
            rc = EXIT_OUTPUT;
        if (hlog.f && write_hlog(&r, &hlog) != 0)
            rc = EXIT_OUTPUT;
        free(r.config.specs);
        free(r.config.targets);
        report_free(&r);
    }
    atomic_file_abort(&samples);
    atomic_file_abort(&hlog);
    free(plans);
    for (size_t i = 0; i < nspecs; i++)
        spec_close(&specs[i]);
    free(specs);
    free_run_args(&a);
    return rc;
}

static const char *option_type_name(const target_option *o, char *buf, size_t n)
{
    switch (o->type) {
    case TARGET_OPT_STRING: return "string";
    case TARGET_OPT_INT: snprintf(buf, n, "integer >= %" PRId64, o->min); return buf;
    case TARGET_OPT_BOOL: return "true or false";
    case TARGET_OPT_ARGV: return "list of strings";
    case TARGET_OPT_VERBS: return "verb: name";
    case TARGET_OPT_TRIES: snprintf(buf, n, "{max_tries: N}, N >= %" PRId64, o->min); return buf;
    case TARGET_OPT_ENUM: break;
    }
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; o->values[i] && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? " | " : "", o->values[i]);
    return buf;
}

/* One driver: its line, what it can do, and its options. */
static void print_driver(const target_driver *d)
{
    const target_spec ts = {.name = d->name, .label = d->name, .driver = d};
    char why[1024] = "";
    int ok = target_available(d, &ts, why, sizeof why) == 0;
    printf("%-9s %-4s %s\n", d->name, ok ? "yes" : "no", ok ? d->about : why);
    char can[256] = "";
    size_t len = 0;
    for (unsigned bit = 1; bit && len < sizeof can; bit <<= 1) {
        const char *name = (d->caps & bit) ? target_capability_name(bit) : NULL;
        if (name)
            len += (size_t)snprintf(can + len, sizeof can - len, "%s%s", len ? ", " : "", name);
    }
    printf("%14s can: %s\n", "", can[0] ? can : "dispatch only");
    for (size_t i = 0; i < d->noptions; i++) {
        const target_option *o = &d->options[i];
        char type[128];
        printf("%14s %s (%s%s%s): %s\n", "", o->name, option_type_name(o, type, sizeof type),
               o->dflt ? ", default " : "", o->dflt ? o->dflt : "", o->about);
    }
}

int cli_targets(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
        return cli_help("targets", usage_targets);
    if (argc > 1)
        return cli_usage_error("targets", "takes no arguments");
    size_t n;
    const target_driver *const *all = target_all(&n);
    for (size_t i = 0; i < n; i++)
        print_driver(all[i]);
    const char *const *names, *const *reasons;
    size_t nrefused = target_refused(&names, &reasons);
    for (size_t i = 0; i < nrefused; i++)
        printf("%-9s %-4s not registered: %s\n", names[i], "no", reasons[i]);
    return EXIT_CLEAN;
}

int cli_schema(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
        return cli_help("schema", usage_schema);
    if (argc > 2 || (argc == 2 && argv[1][0] == '-'))
        return cli_usage_error("schema", argc > 2 ? "give at most one spec" : "unknown option '%s'",
                               argv[1]);
    spec s = {0};
    cJSON *own = NULL;
    const cJSON *schema = spec_schema();
    if (argc == 2) {
        diag_list d = {0};
        spec_status st = spec_open(argv[1], &d, &s);
        diag_sort(&d);
        cli_print_diags(&d, s.dc, DIAG_FORMAT_TEXT, stderr);
        diag_list_free(&d);
        if (st != SPEC_OK) {
            spec_close(&s);
            return st == SPEC_IO ? EXIT_USAGE : EXIT_FAILED;
        }
        schema = own = spec_schema_for(s.p);
    }
    char *text = schema ? cJSON_Print(schema) : NULL;
    cJSON_Delete(own);
    spec_close(&s);
    if (!text) {
        fputs("bench schema: out of memory\n", stderr);
        return EXIT_FAILED;
    }
    puts(text); /* cli_main checks that stdout was written (EXIT_OUTPUT) */
    cJSON_free(text);
    return EXIT_CLEAN;
}
