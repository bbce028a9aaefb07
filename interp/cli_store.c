/* cli_store.c: the named stores that shards share (DESIGN section 12):
 * bench setup and teardown make and remove one, bench verify --results
 * holds it to the merged shards' tallies; and the parsing of --shard,
 * --start-at and --schema, which bench run shares. */
#define _GNU_SOURCE /* strptime */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "cli.h"
#include "runner.h"
#include "spec.h"
#include "store_postgres.h"
#include "store_sqlite.h"
#include "target.h"

static const char usage_setup[] =
    "usage: bench setup (--schema NAME | --store-file PATH) [--targets LIST] SPEC\n"
    "\n"
    "Makes a named store for the shards of one run to share (docs/scale.md):\n"
    "with --schema, the schema NAME in the database bench of SPEC's postgres\n"
    "target; with --store-file, the SQLite database PATH. Creates its tables\n"
    "and runs SPEC's setup steps in it, once. The shards then run with\n"
    "bench run --shard I/N --no-setup and the same --schema or --store-file;\n"
    "each fills its own share of the prefill. No stale-store cleanup ever\n"
    "removes a named store: bench teardown does.\n"
    "\n"
    "  --schema NAME      a postgres schema (lowercase letters, digits and _)\n"
    "  --store-file PATH  an SQLite database file\n"
    "  --targets LIST     the target entry to set up, when SPEC has several\n"
    "  -h, --help         show this help\n";

static const char usage_teardown[] =
    "usage: bench teardown (--schema NAME | --store-file PATH) [--targets LIST] SPEC\n"
    "\n"
    "Removes the named store bench setup made: the schema NAME (and every\n"
    "table in it) from the database bench of SPEC's postgres target, or the\n"
    "SQLite database PATH with its -wal and -shm files.\n"
    "\n"
    "  --schema NAME      a postgres schema\n"
    "  --store-file PATH  an SQLite database file\n"
    "  --targets LIST     the target entry whose dsn to use, when SPEC has several\n"
    "  -h, --help         show this help\n";

static const char usage_verify[] =
    "usage: bench verify --results FILE [--targets LIST] SPEC\n"
    "\n"
    "Checks the named store of a merged run (bench merge of shards that ran\n"
    "with --no-setup) against the merged tallies: the store must hold exactly\n"
    "the records per aggregate type and the events per name that SPEC's setup\n"
    "steps and every shard's commands that succeeded left. The store is the\n"
    "one FILE names (its --schema or --store-file).\n"
    "\n"
    "  --results FILE  the merged result (bench merge)\n"
    "  --targets LIST  the result rows to check (default every one with tallies)\n"
    "  -h, --help      show this help\n";

int cli_parse_shard(const char *cmd, const char *s, int64_t *index, int64_t *count)
{
    char *end;
    errno = 0;
    long long i = strtoll(s, &end, 10), n = 0;
    bool ok = end != s && *end == '/' && errno == 0;
    if (ok) {
        const char *at = end + 1;
        n = strtoll(at, &end, 10);
        ok = end != at && *end == '\0' && errno == 0;
    }
    if (!ok || n < 1 || n > CLI_MAX_SHARDS || i < 0 || i >= n)
        return cli_usage_error(cmd,
                               "--shard needs I/N, shard I (from 0) of N shards, 0 <= I < N <= %d, "
                               "not '%s'",
                               CLI_MAX_SHARDS, s);
    *index = i;
    *count = n;
    return 0;
}

int cli_parse_time(const char *cmd, const char *opt, const char *s, double *out)
{
    char *end;
    double secs = strtod(s, &end);
    if (end != s && *end == '\0' && isfinite(secs) && secs > 0) {
        *out = secs;
        return 0;
    }
    struct tm tm = {0};
    const char *rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    double frac = 0;
    if (rest && *rest == '.') {
        frac = strtod(rest, &end);
        rest = end;
    }
    if (!rest || strcmp(rest, "Z") != 0)
        return cli_usage_error(cmd,
                               "%s needs seconds since the epoch or a UTC time such as "
                               "2026-12-01T18:00:00Z, not '%s'",
                               opt, s);
    *out = (double)timegm(&tm) + frac;
    return 0;
}

int cli_check_schema(const char *cmd, const char *name)
{
    char why[256];
    if (postgres_check_schema_name(name, why, sizeof why) != 0)
        return cli_usage_error(cmd, "--schema: %s", why);
    return 0;
}

/* ---- what the three commands share --------------------------------------- */

typedef struct store_args {
    const char *schema, *file, *results;
    char *only_buf;
    const char *only[64];
    size_t nonly;
    const char *spec_path;
} store_args;

/* Parses the options of cmd; returns 0, -1 after --help, or EXIT_USAGE. */
static int parse(const char *cmd, const char *usage, int argc, char **argv, store_args *a)
{
    static const struct option opts[] = {
        {"schema", required_argument, NULL, 's'},  {"store-file", required_argument, NULL, 'f'},
        {"results", required_argument, NULL, 'r'}, {"targets", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    bool verify = !strcmp(cmd, "verify");
    uint64_t seen = 0;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        bool store_opt = c == 's' || c == 'f';
        if ((verify && store_opt) || (!verify && c == 'r'))
            return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        switch (c) {
        case 's':
        case 'f':
            if (cli_once(cmd, "--schema or --store-file", &seen, 0))
                return EXIT_USAGE;
            if (c == 's' && cli_check_schema(cmd, optarg))
                return EXIT_USAGE;
            *(c == 's' ? &a->schema : &a->file) = optarg;
            break;
        case 'r':
            if (cli_once(cmd, "--results", &seen, 1))
                return EXIT_USAGE;
            a->results = optarg;
            break;
        case 't':
            if (cli_once(cmd, "--targets", &seen, 2))
                return EXIT_USAGE;
            a->only_buf = xstrdup(optarg);
            for (char *tok = strtok(a->only_buf, ","); tok && a->nonly < 64;
                 tok = strtok(NULL, ","))
                a->only[a->nonly++] = tok;
            break;
        case 'h': cli_help(cmd, usage); return -1;
        case ':': return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(cmd, optind >= argc ? "give the spec" : "give one spec, not '%s'",
                               argv[optind < argc - 1 ? optind + 1 : optind]);
    a->spec_path = argv[optind];
    if (verify && !a->results)
        return cli_usage_error(cmd, "give --results, the merged result of the shards");
    if (!verify && !a->schema && !a->file)
        return cli_usage_error(cmd, "give the store: --schema NAME (postgres) or --store-file "
                                    "PATH (sqlite)");
    return 0;
}

static int open_spec(const char *cmd, const char *path, spec *s)
{
    diag_list d = {0};
    spec_status st = spec_open(path, &d, s);
    diag_sort(&d);
    cli_print_diags(&d, s->dc, DIAG_FORMAT_TEXT, stderr);
    diag_list_free(&d);
    if (st == SPEC_OK)
        return 0;
    (void)cmd;
    return st == SPEC_IO ? EXIT_USAGE : EXIT_FAILED;
}

/* The one target entry of the spec whose driver takes the store's option
 * (schema or file): the caller's, in *all (to free). */
static int store_target(const char *cmd, const store_args *a, const plan *p, run_options *o,
                        target_spec **all, const target_spec **out)
{
    o->only = a->nonly ? a->only : NULL;
    o->nonly = a->nonly;
    o->store_schema = a->schema;
    o->store_file = a->file;
    const char *opt = a->schema ? "schema" : "file";
    size_t n;
    *all = runner_targets(p, o, &n);
    *out = NULL;
    /* a label --targets names exactly outweighs the entries of its driver */
    for (size_t i = 0; i < n && !*out; i++)
        for (size_t k = 0; k < a->nonly && !*out; k++)
            if (target_spec_option(&(*all)[i], opt) && !strcmp((*all)[i].label, a->only[k]))
                *out = &(*all)[i];
    for (size_t i = 0; i < n && !(a->nonly && *out); i++) {
        if (!target_spec_option(&(*all)[i], opt))
            continue;
        if (*out)
            return cli_usage_error(cmd,
                                   "%s has more than one %s target (%s and %s): choose one with "
                                   "--targets",
                                   a->spec_path, a->schema ? "postgres" : "sqlite", (*out)->label,
                                   (*all)[i].label);
        *out = &(*all)[i];
    }
    if (!*out)
        return cli_usage_error(cmd, "%s has no %s target for %s (add --targets %s)", a->spec_path,
                               a->schema ? "postgres" : "sqlite",
                               a->schema ? "--schema" : "--store-file",
                               a->schema ? "postgres" : "sqlite");
    return 0;
}

static void free_args(store_args *a)
{
    free(a->only_buf);
}

/* ---- bench setup and teardown -------------------------------------------- */

/* The setup steps on the named store: bench run's runner, setup only. */
static int run_setup_steps(const store_args *a, const plan *p, const target_spec *ts)
{
    run_options o = {.iterations = -1,
                     .warmup = -1,
                     .runs = 1,
                     .clients = 1,
                     .quiet = true,
                     .setup_only = true,
                     .store_schema = a->schema,
                     .store_file = a->file};
    const char *only[] = {ts->label};
    o.only = only;
    o.nonly = 1;
    report r = {0};
    int rc = runner_run(&p, 1, &o, &r);
    if (rc != 0)
        fprintf(stderr, "bench setup: %s: %s\n", ts->label,
                r.nfailed    ? r.failed[0].reason
                : r.nskipped ? r.skipped[0].reason
                             : "it did not run");
    report_free(&r);
    return rc == 0 ? 0 : -1;
}

static int setup_or_teardown(const char *cmd, const char *usage, int argc, char **argv)
{
    store_args a = {0};
    int rc = parse(cmd, usage, argc, argv, &a);
    spec s = {0};
    if (rc == 0)
        rc = open_spec(cmd, a.spec_path, &s);
    target_spec *all = NULL;
    const target_spec *ts = NULL;
    run_options o = {0};
    if (rc == 0)
        rc = store_target(cmd, &a, s.p, &o, &all, &ts);
    bool setup = !strcmp(cmd, "setup");
    char err[1024];
    if (rc == 0 && ts) {
        const char *dsn = target_opt_str(ts, "dsn");
        int made = setup ? a.schema ? postgres_named_create(dsn, s.p, a.schema, err, sizeof err)
                                    : sqlite_named_create(s.p, a.file, err, sizeof err)
                   : a.schema ? postgres_named_drop(dsn, a.schema, err, sizeof err)
                              : sqlite_named_remove(a.file, err, sizeof err);
        if (made != 0) {
            fprintf(stderr, "bench %s: %s\n", cmd, err);
            rc = EXIT_FAILED;
        } else if (setup && run_setup_steps(&a, s.p, ts) != 0) {
            /* half a store is no store: it goes again */
            if (a.schema ? postgres_named_drop(dsn, a.schema, err, sizeof err)
                         : sqlite_named_remove(a.file, err, sizeof err))
                fprintf(stderr, "bench setup: %s\n", err);
            rc = EXIT_FAILED;
        } else {
            printf(setup ? "%s: made %s %s and ran the setup steps of %s\n" : "%s: removed %s %s\n",
                   ts->label, a.schema ? "the schema" : "the database",
                   a.schema ? a.schema : a.file, a.spec_path);
        }
    }
    free(all);
    if (s.dc || s.p)
        spec_close(&s);
    free_args(&a);
    return rc < 0 ? EXIT_CLEAN : rc;
}

int cli_setup(int argc, char **argv)
{
    return setup_or_teardown("setup", usage_setup, argc, argv);
}

int cli_teardown(int argc, char **argv)
{
    return setup_or_teardown("teardown", usage_teardown, argc, argv);
}

/* ---- bench verify --results ---------------------------------------------- */

/* What the setup steps leave, from a run of them on the memory store. */
static tally *setup_tallies(const plan *p, size_t *n)
{
    run_options o = {
        .iterations = -1, .warmup = -1, .runs = 1, .clients = 1, .quiet = true, .setup_only = true};
    const char *only[] = {"memory"};
    o.only = only;
    o.nonly = 1;
    report r = {0};
    tally *out = NULL;
    *n = 0;
    if (runner_run(&p, 1, &o, &r) == 0)
        for (size_t i = 0; i < r.nresults && !out; i++)
            if (!strcmp(r.results[i].target, "memory") && r.results[i].tallies) {
                *n = r.results[i].ntallies;
                out = xcalloc(*n + 1, sizeof *out);
                memcpy(out, r.results[i].tallies, *n * sizeof *out);
            }
    report_free(&r);
    return out;
}

static int64_t tally_of(const tally *t, size_t n, const char *name, bool event)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].event == event && !strcmp(t[i].name, name))
            return t[i].n;
    return 0;
}

/* One merged result row against the store its target names. Returns
 * EXIT_CLEAN, EXIT_FAILED, or EXIT_USAGE when it cannot be checked. */
static int verify_row(const plan *p, const report *merged, const target_result *tr,
                      const target_spec *ts, const tally *base, size_t nbase)
{
    const char *where = merged->config.store;
    if (!tr->tallies_exact) {
        printf("%s: n/a: some command's effect on the counts is not known (a for_each policy)\n",
               tr->label);
        return EXIT_CLEAN;
    }
    char err[1024] = "";
    target *t = NULL;
    if (target_open(target_spec_driver(ts), p, ts, 1, &t, err, sizeof err) != TARGET_OK) {
        fprintf(stderr, "bench verify: %s: %s\n", tr->label, err[0] ? err : "it did not open");
        return EXIT_FAILED;
    }
    uint64_t *aggs = xcalloc(p->naggs + 1, sizeof *aggs);
    uint64_t *events = xcalloc(p->nevents + 1, sizeof *events);
    int rc = target_count(t, aggs, events);
    int status = EXIT_CLEAN;
    if (rc != TARGET_OK) {
        fprintf(stderr, "bench verify: %s: %s\n", tr->label,
                rc == TARGET_UNSUPPORTED ? "the target cannot count" : t->message);
        status = EXIT_FAILED;
    }
    char held[768] = "";
    size_t len = 0;
    for (size_t i = 0; status == EXIT_CLEAN && i < p->naggs + p->nevents; i++) {
        bool event = i >= p->naggs;
        const char *name = event ? p->events[i - p->naggs].name : p->aggs[i].name;
        uint64_t have = event ? events[i - p->naggs] : aggs[i];
        int64_t want =
            tally_of(base, nbase, name, event) + tally_of(tr->tallies, tr->ntallies, name, event);
        want = want > 0 ? want : 0;
        if (have != (uint64_t)want) {
            printf("%s: fail: %s holds %" PRIu64 " %s%s, the setup and the %" PRId64
                   " shards' commands that succeeded left %" PRId64 "\n",
                   tr->label, where, have, name, event ? " events" : "", merged->config.shard.count,
                   want);
            status = EXIT_FAILED;
        } else if (len + 64 < sizeof held) {
            len += (size_t)snprintf(held + len, sizeof held - len, "%s%" PRIu64 " %s%s",
                                    len ? ", " : "", have, name, event ? " events" : "");
        }
    }
    if (status == EXIT_CLEAN)
        printf("%s: pass: %s holds %s, as the setup and the %" PRId64
               " shards' commands that succeeded left\n",
               tr->label, where, held, merged->config.shard.count);
    free(aggs);
    free(events);
    target_close(t);
    return status;
}

int cli_verify(int argc, char **argv)
{
    store_args a = {0};
    int rc = parse("verify", usage_verify, argc, argv, &a);
    report *merged = NULL;
    char err[1024];
    if (rc == 0 && results_load(a.results, &merged, err, sizeof err) != 0) {
        fprintf(stderr, "bench verify: %s\n", err);
        rc = EXIT_USAGE;
    }
    if (rc == 0 && !merged->config.store)
        rc = cli_usage_error("verify",
                             "%s did not run on a named store (bench run --schema or "
                             "--store-file): each run verified its own",
                             a.results);
    spec s = {0};
    if (rc == 0)
        rc = open_spec("verify", a.spec_path, &s);
    if (rc == 0 && a.spec_path &&
        (merged->config.nspecs != 1 || !merged->config.specs[0].path ||
         strcmp(merged->config.specs[0].path, a.spec_path) != 0))
        fprintf(stderr, "bench verify: note: %s ran %s\n", a.results,
                merged->config.nspecs && merged->config.specs[0].path ? merged->config.specs[0].path
                                                                      : "no spec");
    size_t nbase = 0;
    tally *base = rc == 0 ? setup_tallies(s.p, &nbase) : NULL;
    if (rc == 0 && !base) {
        fprintf(stderr, "bench verify: the setup steps of %s did not run on the memory store\n",
                a.spec_path);
        rc = EXIT_FAILED;
    }
    run_options o = {.store_schema = merged ? merged->config.store : NULL,
                     .store_file = merged ? merged->config.store : NULL};
    size_t nts = 0, checked = 0;
    target_spec *all = rc == 0 ? runner_targets(s.p, &o, &nts) : NULL;
    for (size_t r = 0; rc != EXIT_USAGE && merged && r < merged->nresults; r++) {
        const target_result *tr = &merged->results[r];
        bool wanted = a.nonly == 0;
        for (size_t k = 0; k < a.nonly && !wanted; k++)
            wanted = !strcmp(a.only[k], tr->label) || !strcmp(a.only[k], tr->target);
        const target_spec *ts = NULL;
        for (size_t k = 0; k < nts && !ts; k++)
            if (!strcmp(all[k].label, tr->label))
                ts = &all[k];
        /* rows on a store of their own (a fenced target) verified themselves */
        if (!wanted || !tr->tallies || !ts ||
            (!target_opt_str(ts, "schema") && !target_opt_str(ts, "file")))
            continue;
        checked++;
        int st = verify_row(s.p, merged, tr, ts, base, nbase);
        rc = st > rc ? st : rc;
    }
    if (rc == 0 && checked == 0)
        rc = cli_usage_error("verify", "%s has no result row with tallies that %s names", a.results,
                             a.spec_path);
    free(all);
    free(base);
    if (s.dc || s.p)
        spec_close(&s);
    results_free(merged);
    free_args(&a);
    return rc < 0 ? EXIT_CLEAN : rc;
}
