/* report_json.c: the JSON report (schema/result.schema.json). One builder
 * makes both the tree that report_to_cjson lends out (plain numbers) and the
 * tree that report_json prints (raw number texts, so that latencies have
 * exactly three decimals and every other double reads back unchanged). */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

typedef struct jb {
    bool raw; /* numbers as our own texts (printing) or as cJSON numbers (the tree) */
    bool oom;
} jb;

/* The median across t's runs of the double at offset off in run_result. */
static double median_of_runs(const target_result *t, size_t off)
{
    double local[16] = {0};
    double *xs = t->nruns <= 16 ? local : malloc(t->nruns * sizeof *xs);
    if (!xs)
        return NAN;
    for (size_t i = 0; i < t->nruns; i++)
        memcpy(&xs[i], (const char *)&t->runs[i] + off, sizeof xs[i]);
    double m = stats_median(xs, t->nruns);
    if (xs != local)
        free(xs);
    return m;
}

double report_roundtrip_floor_ns(const target_result *t)
{
    return median_of_runs(t, offsetof(run_result, roundtrip_floor_p50_ns));
}

double report_round_trips_per_command(const target_result *t)
{
    return median_of_runs(t, offsetof(run_result, round_trips_per_command));
}

void report_result_figures(const target_result *t, run_figures *median, double *lo, double *hi)
{
    if (t->nruns > 0) {
        *median = t->median;
        *lo = t->throughput_lo;
        *hi = t->throughput_hi;
        return;
    }
    *median = (run_figures){.commands = 0};
    double *absent[] = {&median->wall_seconds, &median->throughput_per_s, &median->min_ns,
                        &median->p50_ns,       &median->p90_ns,           &median->p95_ns,
                        &median->p99_ns,       &median->p999_ns,          &median->max_ns,
                        &median->mean_ns,      &median->stddev_ns,        &median->drift};
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
        *absent[i] = NAN;
    for (int i = 0; i < STATS_TENTHS; i++)
        median->tenths[i] = (tenth_figures){NAN, NAN};
    *lo = *hi = NAN;
}

/* ---- values ------------------------------------------------------------- */

static void add(jb *b, cJSON *obj, const char *name, cJSON *v)
{
    if (!v) {
        b->oom = true;
        return;
    }
    if (cJSON_IsArray(obj))
        cJSON_AddItemToArray(obj, v);
    else
        cJSON_AddItemToObject(obj, name, v);
}

static cJSON *num_text(jb *b, double plain, const char *text)
{
    return b->raw ? cJSON_CreateRaw(text) : cJSON_CreateNumber(plain);
}

/* A latency in ns as µs: three decimals, null when absent. */
static cJSON *us_value(jb *b, double ns)
{
    if (!isfinite(ns))
        return cJSON_CreateNull();
    char text[64];
    report_fmt_us3(ns, text, sizeof text);
    return num_text(b, num_us_of_ns(ns), text);
}

static cJSON *double_value(jb *b, double v)
{
    if (!isfinite(v))
        return cJSON_CreateNull();
    char text[64];
    num_text_double(v, text, sizeof text);
    return num_text(b, v, text);
}

static cJSON *u64_value(jb *b, uint64_t v)
{
    char text[32];
    snprintf(text, sizeof text, "%" PRIu64, v);
    return num_text(b, (double)v, text);
}

static cJSON *i64_value(jb *b, int64_t v)
{
    char text[32];
    snprintf(text, sizeof text, "%" PRId64, v);
    return num_text(b, (double)v, text);
}

/* A string, or null for NULL and "". */
static cJSON *str_or_null(const char *s)
{
    return s && *s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static void add_us(jb *b, cJSON *o, const char *name, double ns)
{
    add(b, o, name, us_value(b, ns));
}

static void add_double(jb *b, cJSON *o, const char *name, double v)
{
    add(b, o, name, double_value(b, v));
}

static cJSON *new_object(jb *b, cJSON *parent, const char *name)
{
    cJSON *o = cJSON_CreateObject();
    add(b, parent, name, o);
    return o;
}

static cJSON *new_array(jb *b, cJSON *parent, const char *name)
{
    cJSON *a = cJSON_CreateArray();
    add(b, parent, name, a);
    return a;
}

/* ---- parts -------------------------------------------------------------- */

static void add_load(jb *b, cJSON *o, const char *name, const double load[3])
{
    cJSON *a = new_array(b, o, name);
    if (!a)
        return;
    for (int i = 0; i < 3; i++)
        add(b, a, NULL, load[i] >= 0 ? double_value(b, load[i]) : cJSON_CreateNull());
}

static void add_environment(jb *b, cJSON *root, const environment *e)
{
    cJSON *o = new_object(b, root, "environment");
    if (!o)
        return;
    add(b, o, "cpu_model", cJSON_CreateString(e->cpu_model));
    add(b, o, "cores", i64_value(b, e->cores));
    add(b, o, "memory_bytes", u64_value(b, e->memory_bytes));
    add(b, o, "os", cJSON_CreateString(e->os));
    add(b, o, "kernel", cJSON_CreateString(e->kernel));
    add(b, o, "clock_source", cJSON_CreateString(e->clock_source));
    add(b, o, "cpu_affinity", cJSON_CreateString(e->affinity));
    add(b, o, "compiler", cJSON_CreateString(e->compiler));
    add(b, o, "build_type", cJSON_CreateString(e->build_type));
    add(b, o, "build_flags", cJSON_CreateString(e->build_flags));
    add(b, o, "libraries", cJSON_CreateString(e->libraries));
    add(b, o, "postgres", str_or_null(e->postgres));
    add(b, o, "bench_version", cJSON_CreateString(e->version));
    add(b, o, "commit", cJSON_CreateString(e->commit));
    add_load(b, o, "load_average_before", e->load_before);
    add_load(b, o, "load_average_after", e->load_after);
    add(b, o, "label", str_or_null(e->label));
    add(b, o, "date", cJSON_CreateString(e->date));
}

static void add_shard(jb *b, cJSON *o, const shard_info *sh)
{
    if (sh->count == 0) {
        add(b, o, "shard", cJSON_CreateNull());
        return;
    }
    cJSON *so = new_object(b, o, "shard");
    if (!so)
        return;
    add(b, so, "index", sh->index >= 0 ? i64_value(b, sh->index) : cJSON_CreateNull());
    add(b, so, "count", i64_value(b, sh->count));
    add(b, so, "host", str_or_null(sh->host));
    add_double(b, so, "start_at", sh->start_at);
    add_double(b, so, "started_s", sh->started_s);
    add_double(b, so, "start_lateness_s", sh->lateness_s);
    add_double(b, so, "start_skew_s", sh->skew_s);
}

static void add_config(jb *b, cJSON *root, const run_config *c)
{
    cJSON *o = new_object(b, root, "config");
    if (!o)
        return;
    cJSON *specs = new_array(b, o, "specs");
    for (size_t i = 0; specs && i < c->nspecs; i++) {
        cJSON *s = new_object(b, specs, NULL);
        if (!s)
            break;
        add(b, s, "path", cJSON_CreateString(c->specs[i].path ? c->specs[i].path : ""));
        add(b, s, "sha256", cJSON_CreateString(c->specs[i].sha256));
    }
    add(b, o, "warmup", i64_value(b, c->warmup));
    add(b, o, "iterations", i64_value(b, c->iterations));
    add(b, o, "runs", i64_value(b, c->runs));
    cJSON *prefill = new_array(b, o, "prefill");
    for (size_t i = 0; prefill && i < c->nprefill; i++)
        add(b, prefill, NULL, i64_value(b, c->prefill[i]));
    cJSON *targets = new_array(b, o, "targets");
    for (size_t i = 0; targets && i < c->ntargets; i++)
        add(b, targets, NULL, cJSON_CreateString(c->targets[i] ? c->targets[i] : ""));
    add(b, o, "samples", cJSON_CreateBool(c->samples));
    add(b, o, "cpu", str_or_null(c->cpu));
    add(b, o, "seed", c->seed_given ? u64_value(b, c->seed) : cJSON_CreateNull());
    add(b, o, "duration_s",
        c->duration_s > 0 ? cJSON_CreateNumber(c->duration_s) : cJSON_CreateNull());
    add(b, o, "rate", c->rate > 0 ? cJSON_CreateNumber(c->rate) : cJSON_CreateNull());
    add(b, o, "clients", c->clients > 0 ? i64_value(b, c->clients) : cJSON_CreateNull());
    add(b, o, "threads", c->threads > 0 ? i64_value(b, c->threads) : cJSON_CreateNull());
    add(b, o, "store", str_or_null(c->store));
    add(b, o, "no_setup", cJSON_CreateBool(c->no_setup));
    add_shard(b, o, &c->shard);
}

/* The figures a run and a median share, in the schema's order. */
static void add_figures(jb *b, cJSON *o, const run_figures *f)
{
    add(b, o, "commands", u64_value(b, f->commands));
    add_double(b, o, "wall_seconds", f->wall_seconds);
    add_double(b, o, "throughput_per_s", f->throughput_per_s);
    add_us(b, o, "min_us", f->min_ns);
    add_us(b, o, "p50_us", f->p50_ns);
    add_us(b, o, "p90_us", f->p90_ns);
    add_us(b, o, "p95_us", f->p95_ns);
    add_us(b, o, "p99_us", f->p99_ns);
    add_us(b, o, "p999_us", f->p999_ns);
    add_us(b, o, "max_us", f->max_ns);
    add_us(b, o, "mean_us", f->mean_ns);
    add_us(b, o, "stddev_us", f->stddev_ns);
    add_double(b, o, "drift", f->drift);
}

static void add_histogram(jb *b, cJSON *o, const hist *h)
{
    cJSON *a = new_array(b, o, "histogram");
    if (!a || !h->counts)
        return;
    hist_iter it = hist_iter_start(h);
    while (hist_iter_next(&it)) {
        cJSON *pair = new_array(b, a, NULL);
        if (!pair)
            return;
        add(b, pair, NULL, u64_value(b, it.mid));
        add(b, pair, NULL, u64_value(b, it.count));
    }
}

static void add_buckets(jb *b, cJSON *o, const hist_buckets *hb)
{
    cJSON *a = new_array(b, o, "histogram");
    for (size_t i = 0; a && i < hb->n; i++) {
        cJSON *pair = new_array(b, a, NULL);
        if (!pair)
            return;
        add(b, pair, NULL, u64_value(b, hb->mid[i]));
        add(b, pair, NULL, u64_value(b, hb->count[i]));
    }
}

static void add_intervals(jb *b, cJSON *o, const run_result *run)
{
    add_double(b, o, "start_epoch_s", run->start_epoch_s);
    cJSON *a = new_array(b, o, "intervals");
    for (size_t i = 0; a && i < run->nintervals; i++) {
        const interval *it = &run->intervals[i];
        cJSON *io = new_object(b, a, NULL);
        if (!io)
            return;
        double secs = (double)it->length_ns / 1e9;
        add_double(b, io, "start_s", (double)it->start_ns / 1e9);
        add_double(b, io, "length_s", secs);
        add(b, io, "commands", u64_value(b, it->commands));
        add_double(b, io, "commands_per_s", secs > 0 ? (double)it->commands / secs : NAN);
        add_us(b, io, "p50_us", it->p50_ns);
        add_us(b, io, "p90_us", it->p90_ns);
        add_us(b, io, "p99_us", it->p99_ns);
        add_us(b, io, "max_us", it->max_ns);
        add_buckets(b, io, &it->all);
    }
}

static void add_open_loop(jb *b, cJSON *o, const run_result *run)
{
    if (!run->open_loop) {
        add(b, o, "open_loop", cJSON_CreateNull());
        return;
    }
    cJSON *ol = new_object(b, o, "open_loop");
    if (!ol)
        return;
    add_double(b, ol, "offered_rate", run->offered_rate);
    add_double(b, ol, "achieved_rate", run->achieved_rate);
    add(b, ol, "offered", u64_value(b, run->offered));
    add(b, ol, "completed", u64_value(b, run->completed));
    add(b, ol, "late", u64_value(b, run->late));
    add(b, ol, "dropped", u64_value(b, run->dropped));
    add(b, ol, "not_started", u64_value(b, run->not_started));
    add_us(b, ol, "service_p50_us", run->service_p50_ns);
    add_us(b, ol, "service_p99_us", run->service_p99_ns);
    add_us(b, ol, "lag_p50_us", run->lag_p50_ns);
    add_us(b, ol, "lag_p99_us", run->lag_p99_ns);
    add_us(b, ol, "lag_max_us", run->lag_max_ns);
}

static void add_clients(jb *b, cJSON *o, const run_result *run)
{
    if (run->nclients == 0) {
        add(b, o, "clients", cJSON_CreateNull());
        return;
    }
    cJSON *co = new_object(b, o, "clients");
    if (!co)
        return;
    add(b, co, "count", u64_value(b, run->nclients));
    add(b, co, "threads", i64_value(b, run->threads));
    add_double(b, co, "fairness", run->fairness);
    add_double(b, co, "stop_spread_s", run->stop_spread_s);
    cJSON *list = new_array(b, co, "per_client");
    for (size_t i = 0; list && i < run->nclients; i++) {
        const client_result *cr = &run->clients[i];
        cJSON *c = new_object(b, list, NULL);
        if (!c)
            break;
        add(b, c, "client", i64_value(b, cr->client));
        add(b, c, "commands", u64_value(b, cr->commands));
        add_double(b, c, "wall_seconds", cr->wall_seconds);
        add_double(b, c, "throughput_per_s", cr->throughput_per_s);
    }
}

static void add_run(jb *b, cJSON *runs, const run_result *run)
{
    cJSON *o = new_object(b, runs, NULL);
    if (!o)
        return;
    add(b, o, "run", i64_value(b, run->run));
    add_figures(b, o, &run->fig);
    add_double(b, o, "goodput_per_s", run->goodput_per_s);
    cJSON *tenths = new_array(b, o, "tenths");
    for (int i = 0; tenths && i < STATS_TENTHS; i++) {
        cJSON *t = new_object(b, tenths, NULL);
        if (!t)
            break;
        add_us(b, t, "p50_us", run->fig.tenths[i].p50_ns);
        add_us(b, t, "p99_us", run->fig.tenths[i].p99_ns);
        if (run->tenth_hist[i].n) /* a shard's, for bench merge */
            add_buckets(b, t, &run->tenth_hist[i]);
    }
    cJSON *verbs = new_object(b, o, "by_verb");
    for (size_t i = 0; verbs && i < run->nverbs; i++) {
        const verb_result *v = &run->verbs[i];
        cJSON *vo = new_object(b, verbs, v->verb ? v->verb : "");
        if (!vo)
            break;
        add(b, vo, "count", u64_value(b, v->count));
        add(b, vo, "refused", u64_value(b, v->refused));
        add(b, vo, "refused_counted", u64_value(b, v->refused_counted));
        add_us(b, vo, "p50_us", v->p50_ns);
        add_us(b, vo, "p99_us", v->p99_ns);
        add_double(b, vo, "round_trips_per_command", v->round_trips_per_command);
        if (v->scan)
            add(b, vo, "rows_returned", u64_value(b, v->rows_returned));
        add(b, vo, "retries", u64_value(b, v->retries));
        add(b, vo, "failed", u64_value(b, v->failed));
        if (v->hist.n) /* a shard's, for bench merge */
            add_buckets(b, vo, &v->hist);
    }
    cJSON *flows = new_object(b, o, "by_flow");
    for (size_t i = 0; flows && i < run->nflows; i++) {
        const flow_result *f = &run->flows[i];
        cJSON *fo = new_object(b, flows, f->flow ? f->flow : "");
        if (!fo)
            break;
        add(b, fo, "weight", i64_value(b, f->weight));
        add_double(b, fo, "requested_share", f->requested_share);
        add(b, fo, "cycles", u64_value(b, f->cycles));
        add_double(b, fo, "achieved_share", f->achieved_share);
        add(b, fo, "skipped", u64_value(b, f->skipped));
        add(b, fo, "refused_counted", u64_value(b, f->refused_counted));
        add(b, fo, "failed", u64_value(b, f->failed));
    }
    add_histogram(b, o, &run->all);
    add_open_loop(b, o, run);
    add_clients(b, o, run);
    add(b, o, "lock_waits", u64_value(b, run->lock_waits));
    add(b, o, "page_faults", u64_value(b, run->page_faults));
    add_intervals(b, o, run);
    add_us(b, o, "roundtrip_floor_p50_us", run->roundtrip_floor_p50_ns);
    add_us(b, o, "roundtrip_floor_before_p50_us", run->roundtrip_floor_before_p50_ns);
    add_double(b, o, "round_trips_per_command", run->round_trips_per_command);
    add(b, o, "status", cJSON_CreateString(results_run_status_name(run)));
    add(b, o, "unstable", cJSON_CreateBool(run->unstable));
    add(b, o, "unstable_reason", str_or_null(run->unstable_reason));
}

/* A shard's tallies: what its commands added, for bench verify --results. */
static void add_tallies(jb *b, cJSON *o, const target_result *t)
{
    cJSON *to = new_object(b, o, "tallies");
    cJSON *recs = to ? new_object(b, to, "records") : NULL;
    cJSON *events = to ? new_object(b, to, "events") : NULL;
    for (size_t i = 0; recs && events && i < t->ntallies; i++)
        add(b, t->tallies[i].event ? events : recs, t->tallies[i].name,
            i64_value(b, t->tallies[i].n));
    if (to)
        add(b, to, "exact", cJSON_CreateBool(t->tallies_exact));
}

static void add_result(jb *b, cJSON *results, const target_result *t)
{
    cJSON *o = new_object(b, results, NULL);
    if (!o)
        return;
    add(b, o, "domain", cJSON_CreateString(t->domain ? t->domain : ""));
    add(b, o, "target", cJSON_CreateString(t->target ? t->target : ""));
    add(b, o, "label", cJSON_CreateString(t->label ? t->label : ""));
    add(b, o, "prefill", i64_value(b, t->prefill));
    add(b, o, "durability", str_or_null(t->durability));
    cJSON *sweep = t->sweep_of ? new_object(b, o, "sweep") : NULL;
    if (!t->sweep_of)
        add(b, o, "sweep", cJSON_CreateNull());
    if (sweep) {
        add(b, sweep, "of", cJSON_CreateString(t->sweep_of));
        if (t->sweep_rate > 0)
            add(b, sweep, "rate", cJSON_CreateNumber(t->sweep_rate));
        else
            add(b, sweep, "clients", i64_value(b, t->sweep_clients));
    }
    cJSON *runs = new_array(b, o, "runs");
    for (size_t i = 0; runs && i < t->nruns; i++)
        add_run(b, runs, &t->runs[i]);
    run_figures fig;
    double lo, hi;
    report_result_figures(t, &fig, &lo, &hi);
    cJSON *median = new_object(b, o, "median");
    if (median) {
        add_figures(b, median, &fig);
        add_us(b, median, "roundtrip_floor_p50_us", report_roundtrip_floor_ns(t));
        add_double(b, median, "round_trips_per_command", report_round_trips_per_command(t));
    }
    cJSON *range = new_object(b, o, "throughput_range");
    if (range) {
        add_double(b, range, "min", lo);
        add_double(b, range, "max", hi);
    }
    add(b, o, "verify", cJSON_CreateString(results_verify_name(t->verify)));
    add(b, o, "verify_detail", str_or_null(t->verify_detail));
    add(b, o, "verify_level", str_or_null(t->verify_level));
    add(b, o, "failed", cJSON_CreateBool(t->failed));
    add(b, o, "reason", str_or_null(t->reason));
    add(b, o, "failed_run", t->failed_run > 0 ? i64_value(b, t->failed_run) : cJSON_CreateNull());
    add(b, o, "status", cJSON_CreateString(results_status_name(t)));
    add(b, o, "unstable", cJSON_CreateBool(t->unstable));
    add(b, o, "unstable_reason", str_or_null(t->unstable_reason));
    add(b, o, "placement", str_or_null(t->placement));
    if (t->tallies)
        add_tallies(b, o, t);
}

static void add_label_reasons(jb *b, cJSON *root, const char *name, const label_reason *v, size_t n)
{
    cJSON *a = new_array(b, root, name);
    for (size_t i = 0; a && i < n; i++) {
        cJSON *o = new_object(b, a, NULL);
        if (!o)
            return;
        add(b, o, "label", cJSON_CreateString(v[i].label));
        add(b, o, "reason", cJSON_CreateString(v[i].reason));
    }
}

static cJSON *build(const report *r, bool raw)
{
    jb b = {.raw = raw};
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    add(&b, root, "schema_version", i64_value(&b, RESULT_SCHEMA_VERSION));
    add_environment(&b, root, &r->env);
    add_config(&b, root, &r->config);
    cJSON *results = new_array(&b, root, "results");
    for (size_t i = 0; results && i < r->nresults; i++)
        add_result(&b, results, &r->results[i]);
    add_us(&b, root, "harness_floor_p50_us", r->harness_floor_p50_ns);
    add_double(&b, root, "harness_cost_ns_per_command", r->harness_cost_ns_per_command);
    add_label_reasons(&b, root, "skipped", r->skipped, r->nskipped);
    add_label_reasons(&b, root, "failed", r->failed, r->nfailed);
    add(&b, root, "interrupted", cJSON_CreateBool(r->interrupted));
    if (b.oom) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

cJSON *report_to_cjson(const report *r)
{
    return build(r, false);
}

int report_json(const report *r, FILE *out)
{
    cJSON *root = build(r, true);
    if (!root)
        return -1;
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return -1;
    int rc = fputs(text, out) < 0 || fputc('\n', out) == EOF || ferror(out) ? -1 : 0;
    cJSON_free(text);
    return rc;
}
