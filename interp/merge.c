/* merge.c: the shards' result files as one result (merge.h). */
#include "merge.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "runner.h"
#include "shard_set.h"
#include "stats.h"

/* ---- refusals ------------------------------------------------------------ */

typedef struct inputs {
    const report *const *in;
    const char *const *names;
    size_t n;
    char *err;
    size_t size;
} inputs;

static int refuse(const inputs *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int refuse(const inputs *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->err, x->size, fmt, ap);
    va_end(ap);
    return -1;
}

/* Every input is a shard of as many shards as the first; each shard once,
 * none missing. */
static int check_shards(const inputs *x)
{
    for (size_t i = 0; i < x->n; i++) {
        const shard_info *sh = &x->in[i]->config.shard;
        if (sh->count == 0)
            return refuse(x, "%s is not a shard's result: it was not run with bench run --shard",
                          x->names[i]);
        if (sh->index < 0)
            return refuse(x, "%s is a merge of %" PRId64 " shards, not a shard: merge the shards",
                          x->names[i], sh->count);
    }
    shard_ref *refs = xcalloc(x->n, sizeof *refs);
    for (size_t i = 0; i < x->n; i++)
        refs[i] =
            (shard_ref){x->in[i]->config.shard.index, x->in[i]->config.shard.count, x->names[i]};
    int rc = shard_set_check(refs, x->n, x->err, x->size);
    free(refs);
    return rc;
}

static bool same_text(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

/* The same bench, specs and seed as the first shard. */
static int check_origin(const inputs *x, size_t i)
{
    const report *a = x->in[0], *b = x->in[i];
    const char *an = x->names[0], *bn = x->names[i];
    if (!same_text(a->env.version, b->env.version) || !same_text(a->env.commit, b->env.commit))
        return refuse(x, "%s was written by bench %s (commit %s) and %s by bench %s (commit %s)",
                      an, a->env.version, a->env.commit, bn, b->env.version, b->env.commit);
    if (a->config.nspecs != b->config.nspecs)
        return refuse(x, "%s ran %zu specs and %s ran %zu", an, a->config.nspecs, bn,
                      b->config.nspecs);
    for (size_t s = 0; s < a->config.nspecs; s++)
        if (strcmp(a->config.specs[s].sha256, b->config.specs[s].sha256) != 0)
            return refuse(x,
                          "%s and %s ran different specs: %s has SHA-256 %.12s... in one and "
                          "%.12s... in the other",
                          an, bn, a->config.specs[s].path, a->config.specs[s].sha256,
                          b->config.specs[s].sha256);
    if (a->config.seed_given != b->config.seed_given || a->config.seed != b->config.seed)
        return refuse(x, "%s and %s ran with different seeds (--seed)", an, bn);
    return 0;
}

static bool same_list(const int64_t *a, size_t na, const int64_t *b, size_t nb)
{
    return na == nb && (na == 0 || !memcmp(a, b, na * sizeof *a));
}

static bool same_number(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

/* The settings that make a shard's share: equal in every shard. */
static const char *config_difference(const run_config *a, const run_config *b)
{
    if (a->warmup != b->warmup)
        return "warmup";
    if (a->iterations != b->iterations)
        return "iterations";
    if (a->runs != b->runs)
        return "runs";
    if (!same_list(a->prefill, a->nprefill, b->prefill, b->nprefill))
        return "prefill";
    if (!same_number(a->duration_s, b->duration_s))
        return "duration";
    if (!same_number(a->rate, b->rate))
        return "rate";
    if (a->clients != b->clients)
        return "clients";
    if (a->ntargets != b->ntargets)
        return "targets";
    for (size_t t = 0; t < a->ntargets; t++)
        if (!same_text(a->targets[t], b->targets[t]))
            return "targets";
    if (!same_text(a->store, b->store) || a->no_setup != b->no_setup)
        return "store (--schema, --store-file, --no-setup)";
    return NULL;
}

static const char *row_difference(const target_result *a, const target_result *b)
{
    if (!same_text(a->domain, b->domain) || !same_text(a->label, b->label) ||
        a->prefill != b->prefill || !same_text(a->durability, b->durability))
        return "result rows";
    size_t runs = a->nruns < b->nruns ? a->nruns : b->nruns;
    for (size_t k = 0; k < runs; k++) {
        const run_result *ra = &a->runs[k], *rb = &b->runs[k];
        if (ra->nverbs != rb->nverbs || ra->nflows != rb->nflows)
            return "verbs";
        for (size_t v = 0; v < ra->nverbs; v++)
            if (!same_text(ra->verbs[v].verb, rb->verbs[v].verb))
                return "verbs";
        for (size_t f = 0; f < ra->nflows; f++)
            if (!same_text(ra->flows[f].flow, rb->flows[f].flow))
                return "flows";
    }
    return NULL;
}

static int check_layout(const inputs *x, size_t i)
{
    const report *a = x->in[0], *b = x->in[i];
    const char *what = config_difference(&a->config, &b->config);
    if (!what && a->nresults != b->nresults)
        what = "result rows";
    for (size_t r = 0; !what && r < a->nresults; r++)
        what = row_difference(&a->results[r], &b->results[r]);
    if (what)
        return refuse(x, "%s and %s have different layouts: their %s differ", x->names[0],
                      x->names[i], what);
    return 0;
}

/* A shard's file holds the histograms a merge adds: every verb's. */
static int check_histograms(const inputs *x, size_t i)
{
    const report *b = x->in[i];
    for (size_t r = 0; r < b->nresults; r++)
        for (size_t k = 0; k < b->results[r].nruns; k++) {
            const run_result *run = &b->results[r].runs[k];
            for (size_t v = 0; v < run->nverbs; v++)
                if (run->verbs[v].count > 0 && run->verbs[v].hist.n == 0)
                    return refuse(x,
                                  "%s has no histogram for the verb %s: it was not written by "
                                  "bench run --shard",
                                  x->names[i], run->verbs[v].verb);
        }
    return 0;
}

/* ---- the merge ----------------------------------------------------------- */

/* A histogram rebuilt from a file's buckets, added into h. tmp is scratch. */
static void add_buckets(hist *h, const hist_buckets *b, hist *tmp)
{
    hist_reset(tmp);
    hist_buckets_into(b, tmp);
    hist_merge(h, tmp);
}

static double percentile_or_nan(const hist *h, double q)
{
    return hist_count(h) ? (double)hist_percentile(h, q) : NAN;
}

/* Sums and counts of the figures that are not histograms. */
typedef struct run_sums {
    double first_start, last_end, first_end;
    double mean_sum, sq_sum; /* sum of n * mean, of n * (stddev^2 + mean^2) */
    bool moments;            /* every shard had both */
    double trips, floor[64], floor_before[64];
    size_t nfloor, nfloor_before;
    uint64_t refusals, cycles;
    double spread;
} run_sums;

static void sum_figures(run_sums *s, const run_result *r)
{
    double end = r->start_epoch_s + r->fig.wall_seconds;
    s->first_start = r->start_epoch_s < s->first_start ? r->start_epoch_s : s->first_start;
    s->last_end = end > s->last_end ? end : s->last_end;
    s->first_end = end < s->first_end ? end : s->first_end;
    double n = (double)r->fig.commands;
    if (r->fig.commands && (!isfinite(r->fig.mean_ns) || !isfinite(r->fig.stddev_ns)))
        s->moments = false;
    if (r->fig.commands && isfinite(r->fig.mean_ns) && isfinite(r->fig.stddev_ns)) {
        s->mean_sum += n * r->fig.mean_ns;
        s->sq_sum += n * (r->fig.stddev_ns * r->fig.stddev_ns + r->fig.mean_ns * r->fig.mean_ns);
    }
    s->trips += isfinite(r->round_trips_per_command) ? r->round_trips_per_command * n : NAN;
    if (s->nfloor < 64)
        s->floor[s->nfloor++] = r->roundtrip_floor_p50_ns;
    if (s->nfloor_before < 64)
        s->floor_before[s->nfloor_before++] = r->roundtrip_floor_before_p50_ns;
    s->spread =
        isfinite(r->stop_spread_s) && r->stop_spread_s > s->spread ? r->stop_spread_s : s->spread;
}

static void merge_verbs(run_result *out, const run_result *const *rs, size_t n, hist *vh, hist *tmp,
                        run_sums *s)
{
    const run_result *a = rs[0];
    out->nverbs = a->nverbs;
    out->verbs = xcalloc(a->nverbs ? a->nverbs : 1, sizeof *out->verbs);
    for (size_t v = 0; v < a->nverbs; v++) {
        verb_result *o = &out->verbs[v];
        o->verb = a->verbs[v].verb;
        o->scan = a->verbs[v].scan;
        hist_reset(&vh[v]);
        double trips = 0;
        for (size_t i = 0; i < n; i++) {
            const verb_result *iv = &rs[i]->verbs[v];
            o->count += iv->count;
            o->refused += iv->refused;
            o->refused_counted += iv->refused_counted;
            o->rows_returned += iv->rows_returned;
            o->retries += iv->retries;
            o->scan = o->scan || iv->scan;
            trips += iv->count ? iv->round_trips_per_command * (double)iv->count : 0;
            add_buckets(&vh[v], &iv->hist, tmp);
        }
        o->p50_ns = percentile_or_nan(&vh[v], 0.5);
        o->p99_ns = percentile_or_nan(&vh[v], 0.99);
        o->round_trips_per_command = o->count ? trips / (double)o->count : NAN;
        hist_buckets_of(&vh[v], &o->hist);
        s->refusals += o->refused + o->refused_counted;
    }
}

static void merge_flows(run_result *out, const run_result *const *rs, size_t n, run_sums *s)
{
    const run_result *a = rs[0];
    out->nflows = a->nflows;
    out->flows = xcalloc(a->nflows ? a->nflows : 1, sizeof *out->flows);
    for (size_t f = 0; f < a->nflows; f++) {
        flow_result *o = &out->flows[f];
        *o = a->flows[f];
        o->cycles = o->skipped = o->refused_counted = 0;
        for (size_t i = 0; i < n; i++) {
            o->cycles += rs[i]->flows[f].cycles;
            o->skipped += rs[i]->flows[f].skipped;
            o->refused_counted += rs[i]->flows[f].refused_counted;
        }
        s->cycles += o->cycles;
    }
    for (size_t f = 0; f < out->nflows; f++)
        out->flows[f].achieved_share =
            s->cycles ? (double)out->flows[f].cycles / (double)s->cycles : NAN;
}

/* Interval k of every shard that has one, added bucket by bucket (shards
 * that began together, as --start-at makes them, line up within the skew). */
static void merge_intervals(run_result *out, const run_result *const *rs, size_t n, hist *h,
                            hist *tmp)
{
    size_t most = 0;
    for (size_t i = 0; i < n; i++)
        most = rs[i]->nintervals > most ? rs[i]->nintervals : most;
    out->intervals = xcalloc(most ? most : 1, sizeof *out->intervals);
    out->nintervals = most;
    for (size_t k = 0; k < most; k++) {
        interval *o = &out->intervals[k];
        hist_reset(h);
        bool first = true;
        for (size_t i = 0; i < n; i++) {
            if (k >= rs[i]->nintervals)
                continue;
            const interval *iv = &rs[i]->intervals[k];
            if (first)
                o->start_ns = iv->start_ns;
            first = false;
            o->length_ns = iv->length_ns > o->length_ns ? iv->length_ns : o->length_ns;
            o->commands += iv->commands;
            add_buckets(h, &iv->all, tmp);
        }
        o->p50_ns = percentile_or_nan(h, 0.5);
        o->p90_ns = percentile_or_nan(h, 0.9);
        o->p99_ns = percentile_or_nan(h, 0.99);
        o->max_ns = hist_count(h) ? (double)hist_max(h) : NAN;
        hist_buckets_of(h, &o->all);
    }
}

/* The open loop's counts add up; its service and lag histograms are not in
 * the files, so their percentiles are absent (null) rather than guessed. */
static void merge_open_loop(run_result *out, const run_result *const *rs, size_t n, double wall)
{
    out->service_p50_ns = out->service_p99_ns = out->lag_p50_ns = out->lag_p99_ns = NAN;
    out->lag_max_ns = out->offered_rate = out->achieved_rate = NAN;
    out->open_loop = rs[0]->open_loop;
    if (!out->open_loop)
        return;
    out->offered_rate = 0;
    out->lag_max_ns = 0;
    for (size_t i = 0; i < n; i++) {
        out->offered += rs[i]->offered;
        out->completed += rs[i]->completed;
        out->late += rs[i]->late;
        out->dropped += rs[i]->dropped;
        out->not_started += rs[i]->not_started;
        out->offered_rate += rs[i]->offered_rate;
        if (isfinite(rs[i]->lag_max_ns) && rs[i]->lag_max_ns > out->lag_max_ns)
            out->lag_max_ns = rs[i]->lag_max_ns;
    }
    out->achieved_rate = wall > 0 ? (double)out->completed / wall : NAN;
}

/* Every shard's clients, numbered on (shard s's client c is s * C + c, as
 * its ${client} was); Jain's index over all of them. */
static void merge_clients(run_result *out, const run_result *const *rs, size_t n, const run_sums *s)
{
    out->fairness = out->stop_spread_s = NAN;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += rs[i]->nclients;
    if (total == 0)
        return;
    out->clients = xcalloc(total, sizeof *out->clients);
    double sum = 0, sumsq = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < rs[i]->nclients; c++) {
            client_result *o = &out->clients[out->nclients];
            *o = rs[i]->clients[c];
            o->client = (int)out->nclients++;
            sum += o->throughput_per_s;
            sumsq += o->throughput_per_s * o->throughput_per_s;
        }
    for (size_t i = 0; i < n; i++)
        out->threads += rs[i]->threads;
    out->fairness = sumsq > 0 ? sum * sum / ((double)total * sumsq) : NAN;
    double across = s->last_end - s->first_end;
    out->stop_spread_s = across > s->spread ? across : s->spread;
}

/* Run k of result row j, from every shard's (rs[0..n)). */
static void merge_run(run_result *out, const run_result *const *rs, size_t n, hist *vh)
{
    hist tmp, tenths[STATS_TENTHS];
    hist_init(&tmp);
    for (int t = 0; t < STATS_TENTHS; t++)
        hist_init(&tenths[t]);
    out->run = rs[0]->run;
    hist_init(&out->all);
    run_sums s = {.first_start = INFINITY, .first_end = INFINITY, .moments = true};
    uint64_t commands = 0, lock_waits = 0, page_faults = 0;
    for (size_t i = 0; i < n; i++) {
        hist_merge(&out->all, &rs[i]->all);
        for (int t = 0; t < STATS_TENTHS; t++)
            add_buckets(&tenths[t], &rs[i]->tenth_hist[t], &tmp);
        commands += rs[i]->fig.commands;
        lock_waits += rs[i]->lock_waits;
        page_faults += rs[i]->page_faults;
        sum_figures(&s, rs[i]);
    }
    double wall = s.last_end > s.first_start ? s.last_end - s.first_start : 0;
    stats_figures_from(&out->all, tenths, commands, wall, &out->fig);
    /* the mean and deviation from the shards' exact ones: the buckets'
       midpoints would only approximate them */
    double mean = commands ? s.mean_sum / (double)commands : NAN;
    out->fig.mean_ns = s.moments ? mean : NAN;
    double var = commands ? s.sq_sum / (double)commands - mean * mean : NAN;
    out->fig.stddev_ns = s.moments ? sqrt(var > 0 ? var : 0) : NAN;
    out->start_epoch_s = s.first_start;
    merge_verbs(out, rs, n, vh, &tmp, &s);
    merge_flows(out, rs, n, &s);
    if (s.cycles < STATS_TENTHS)
        out->fig.drift = NAN;
    for (int t = 0; t < STATS_TENTHS; t++)
        hist_buckets_of(&tenths[t], &out->tenth_hist[t]);
    out->goodput_per_s = wall > 0 ? (double)(commands - s.refusals) / wall : NAN;
    out->round_trips_per_command = commands ? s.trips / (double)commands : NAN;
    out->roundtrip_floor_p50_ns = stats_median(s.floor, s.nfloor);
    out->roundtrip_floor_before_p50_ns = stats_median(s.floor_before, s.nfloor_before);
    out->lock_waits = lock_waits;
    out->page_faults = page_faults; /* every shard's process */
    merge_intervals(out, rs, n, &tenths[0], &tmp);
    merge_open_loop(out, rs, n, wall);
    merge_clients(out, rs, n, &s);
    const char **names = xcalloc(out->nverbs + 1, sizeof *names);
    for (size_t v = 0; v < out->nverbs; v++)
        names[v] = out->verbs[v].verb;
    stability_input in = {.fig = &out->fig,
                          .modal = vh,
                          .names = names,
                          .nmodal = out->nverbs,
                          .floor_before_ns = out->roundtrip_floor_before_p50_ns,
                          .floor_after_ns = out->roundtrip_floor_p50_ns};
    out->unstable = stats_stability(&in, out->unstable_reason, sizeof out->unstable_reason);
    free(names);
    hist_free(&tmp);
    for (int t = 0; t < STATS_TENTHS; t++)
        hist_free(&tenths[t]);
}

static void append(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void append(char *buf, size_t size, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
}

/* "shard S: TEXT" into buf[size], TEXT cut short to fit. */
static void shard_note(char *buf, size_t size, int64_t shard, const char *text)
{
    snprintf(buf, size, "shard %" PRId64 ": ", shard);
    append(buf, size, "%s", text);
}

/* The tallies of every shard added, name by name. */
static void merge_tallies(target_result *out, const target_result *const *ts, size_t n)
{
    out->tallies_exact = true;
    for (size_t i = 0; i < n; i++) {
        out->tallies_exact = out->tallies_exact && ts[i]->tallies && ts[i]->tallies_exact;
        for (size_t k = 0; ts[i]->tallies && k < ts[i]->ntallies; k++) {
            const tally *t = &ts[i]->tallies[k];
            size_t at = 0;
            while (at < out->ntallies && (out->tallies[at].event != t->event ||
                                          strcmp(out->tallies[at].name, t->name) != 0))
                at++;
            if (at == out->ntallies) {
                out->tallies = xrealloc(out->tallies, (out->ntallies + 1) * sizeof *out->tallies);
                out->tallies[out->ntallies++] = (tally){.name = t->name, .event = t->event};
            }
            out->tallies[at].n += t->n;
        }
    }
}

/* A verify level's rank: the least is what every shard reached. */
static int level_rank(const char *level)
{
    static const char *const levels[] = {"counts", "sample", "state", "full"};
    for (int i = 0; i < 4; i++)
        if (level && !strcmp(level, levels[i]))
            return i + 1;
    return 0;
}

/* Verify: a shared store's shards all say n/a (bench verify --results
 * checks it); shards with stores of their own pass only if every one did,
 * at the least level any reached. */
static void merge_verify(target_result *out, const target_result *const *ts, size_t n,
                         const inputs *x, const size_t *order)
{
    out->verify = VERIFY_PASS;
    out->verify_level = ts[0]->verify_level;
    for (size_t i = 0; i < n; i++) {
        const target_result *t = ts[i];
        if (level_rank(t->verify_level) < level_rank(out->verify_level))
            out->verify_level = t->verify_level;
        if (t->verify == VERIFY_PASS || out->verify == VERIFY_FAIL)
            continue;
        if (t->verify == VERIFY_FAIL)
            shard_note(out->verify_detail, sizeof out->verify_detail,
                       x->in[order[i]]->config.shard.index, t->verify_detail);
        else if (out->verify == VERIFY_PASS)
            snprintf(out->verify_detail, sizeof out->verify_detail, "%s", t->verify_detail);
        out->verify = t->verify;
    }
    if (out->verify != VERIFY_PASS)
        out->verify_level = NULL;
}

static void merge_result(target_result *out, const inputs *x, const size_t *order, size_t j)
{
    size_t n = x->n;
    const target_result **ts = xcalloc(n, sizeof *ts);
    size_t runs = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        ts[i] = &x->in[order[i]]->results[j];
        runs = ts[i]->nruns < runs ? ts[i]->nruns : runs;
    }
    const target_result *a = ts[0];
    out->domain = a->domain;
    out->target = a->target;
    out->label = a->label;
    out->prefill = a->prefill;
    out->durability = a->durability;
    out->sweep_of = a->sweep_of;
    out->sweep_clients = a->sweep_clients;
    snprintf(out->placement, sizeof out->placement, "%s", a->placement);
    out->runs = xcalloc(runs ? runs : 1, sizeof *out->runs);
    size_t most_verbs = 1;
    for (size_t k = 0; k < runs; k++)
        most_verbs = a->runs[k].nverbs > most_verbs ? a->runs[k].nverbs : most_verbs;
    hist *vh = xcalloc(most_verbs, sizeof *vh);
    for (size_t v = 0; v < most_verbs; v++)
        hist_init(&vh[v]);
    const run_result **rs = xcalloc(n, sizeof *rs);
    for (size_t k = 0; k < runs; k++) {
        for (size_t i = 0; i < n; i++)
            rs[i] = &ts[i]->runs[k];
        merge_run(&out->runs[out->nruns++], rs, n, vh);
    }
    for (size_t v = 0; v < most_verbs; v++)
        hist_free(&vh[v]);
    free(vh);
    free(rs);
    for (size_t i = 0; i < n; i++) {
        if (!ts[i]->failed || out->failed)
            continue;
        out->failed = true;
        out->failed_run = ts[i]->failed_run;
        shard_note(out->reason, sizeof out->reason, x->in[order[i]]->config.shard.index,
                   ts[i]->reason);
    }
    merge_verify(out, ts, n, x, order);
    merge_tallies(out, ts, n);
    for (size_t k = 0; k < out->nruns; k++)
        if (out->runs[k].unstable) {
            out->unstable = true;
            append(out->unstable_reason, sizeof out->unstable_reason, "%srun %d: %s",
                   out->unstable_reason[0] ? "; " : "", out->runs[k].run,
                   out->runs[k].unstable_reason);
        }
    run_figures *figs = xmalloc((out->nruns ? out->nruns : 1) * sizeof *figs);
    for (size_t k = 0; k < out->nruns; k++)
        figs[k] = out->runs[k].fig;
    stats_figures_median(figs, out->nruns, &out->median);
    stats_throughput_range(figs, out->nruns, &out->throughput_lo, &out->throughput_hi);
    free(figs);
    free(ts);
}

static void merge_lists(label_reason **list, size_t *nlist, const inputs *x, const size_t *order,
                        bool skipped)
{
    for (size_t i = 0; i < x->n; i++) {
        const report *r = x->in[order[i]];
        size_t m = skipped ? r->nskipped : r->nfailed;
        const label_reason *from = skipped ? r->skipped : r->failed;
        for (size_t k = 0; k < m; k++) {
            *list = xrealloc(*list, (*nlist + 1) * sizeof **list);
            label_reason *lr = &(*list)[(*nlist)++];
            snprintf(lr->label, sizeof lr->label, "%s", from[k].label);
            shard_note(lr->reason, sizeof lr->reason, r->config.shard.index, from[k].reason);
        }
    }
}

int merge_results(const report *const *in, const char *const *names, size_t n, report **out,
                  char *err, size_t size)
{
    *out = NULL;
    inputs x = {.in = in, .names = names, .n = n, .err = err, .size = size};
    if (n == 0)
        return refuse(&x, "no result files to merge");
    if (check_shards(&x) < 0)
        return -1;
    for (size_t i = 1; i < n; i++)
        if (check_origin(&x, i) < 0 || check_layout(&x, i) < 0)
            return -1;
    for (size_t i = 0; i < n; i++)
        if (check_histograms(&x, i) < 0)
            return -1;
    size_t *order = xcalloc(n, sizeof *order); /* inputs in shard order */
    for (size_t i = 0; i < n; i++)
        order[in[i]->config.shard.index] = i;
    report *r = xcalloc(1, sizeof *r);
    const report *first = in[order[0]];
    r->env = first->env;
    r->config = first->config;
    r->config.shard = (shard_info){.index = -1,
                                   .count = (int64_t)n,
                                   .start_at = first->config.shard.start_at,
                                   .lateness_s = NAN};
    double early = INFINITY, late = -INFINITY;
    double floors[64], costs[64];
    size_t nf = 0;
    for (size_t i = 0; i < n; i++) {
        double st = in[i]->config.shard.started_s;
        early = st < early ? st : early;
        late = st > late ? st : late;
        r->interrupted = r->interrupted || in[i]->interrupted;
        if (nf < 64) {
            floors[nf] = in[i]->harness_floor_p50_ns;
            costs[nf++] = in[i]->harness_cost_ns_per_command;
        }
    }
    r->config.shard.started_s = early;
    r->config.shard.skew_s = isfinite(late - early) ? late - early : NAN;
    r->harness_floor_p50_ns = stats_median(floors, nf);
    r->harness_cost_ns_per_command = stats_median(costs, nf);
    r->nresults = first->nresults;
    r->results = xcalloc(r->nresults ? r->nresults : 1, sizeof *r->results);
    for (size_t j = 0; j < r->nresults; j++)
        merge_result(&r->results[j], &x, order, j);
    merge_lists(&r->skipped, &r->nskipped, &x, order, true);
    merge_lists(&r->failed, &r->nfailed, &x, order, false);
    free(order);
    *out = r;
    return 0;
}

void merge_free(report *r)
{
    if (!r)
        return;
    report_free(r); /* the runner's own: a merge is built as the runner builds a report */
    free(r);
}
