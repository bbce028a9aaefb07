/* compare.c: result files as metrics (from the results.h model that
 * results_load fills) and comparing two of them. */
#include "compare.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "diag.h"
#include "report_fmt.h"
#include "stats.h"

/* Each field: its name, the run_figures member it comes from, whether that
 * member is a latency in ns (the metric is then the JSON's µs figure), and
 * which way is better. */
#define COMPARE_FIELDS(X)                                                                          \
    X(throughput_per_s, throughput_per_s, false, METRIC_HIGHER_BETTER)                             \
    X(p50_us, p50_ns, true, METRIC_LOWER_BETTER)                                                   \
    X(p90_us, p90_ns, true, METRIC_LOWER_BETTER)                                                   \
    X(p95_us, p95_ns, true, METRIC_LOWER_BETTER)                                                   \
    X(p99_us, p99_ns, true, METRIC_LOWER_BETTER)                                                   \
    X(p999_us, p999_ns, true, METRIC_LOWER_BETTER)                                                 \
    X(mean_us, mean_ns, true, METRIC_LOWER_BETTER)                                                 \
    X(max_us, max_ns, true, METRIC_LOWER_BETTER)                                                   \
    X(drift, drift, false, METRIC_LOWER_BETTER)

#define FIELD_NAME(name, member, us, better) #name,
const char *const compare_fields[] = {COMPARE_FIELDS(FIELD_NAME) NULL};
#undef FIELD_NAME

typedef struct field_def {
    size_t offset; /* of a double in run_figures */
    bool us;
    metric_better better;
} field_def;

#define FIELD_DEF(name, member, us, better) {offsetof(run_figures, member), us, better},
static const field_def field_defs[] = {COMPARE_FIELDS(FIELD_DEF)};
#undef FIELD_DEF

/* Appends a sentence to a string list; -1 when out of memory. */
static int strings_add(char ***v, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int strings_add(char ***v, size_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = diag_vformat(fmt, ap);
    va_end(ap);
    char **grown = s ? realloc(*v, (*n + 1) * sizeof **v) : NULL;
    if (!grown) {
        free(s);
        return -1;
    }
    grown[(*n)++] = s;
    *v = grown;
    return 0;
}

/* ---- metrics ------------------------------------------------------------ */

const metric *result_file_metric(const result_file *f, const char *name)
{
    for (size_t i = 0; i < f->nmetrics; i++)
        if (!strcmp(f->metrics[i].name, name))
            return &f->metrics[i];
    return NULL;
}

void metric_prefix(const target_result *t, char *buf, size_t n)
{
    if (t->prefill > 0)
        snprintf(buf, n, "%s.%s@%" PRId64, t->domain, t->label, t->prefill);
    else
        snprintf(buf, n, "%s.%s", t->domain, t->label);
}

/* Field f of figures, as the metric carries it (µs for a latency). */
static double figure(const run_figures *fig, const field_def *f)
{
    double v;
    memcpy(&v, (const char *)fig + f->offset, sizeof v);
    return f->us ? num_us_of_ns(v) : v;
}

/* The lowest and highest of field f across the result's runs. */
static void run_range(const target_result *t, const field_def *f, double *lo, double *hi)
{
    *lo = *hi = NAN;
    for (size_t i = 0; i < t->nruns; i++) {
        double v = figure(&t->runs[i].fig, f);
        if (isnan(v))
            continue;
        if (isnan(*lo) || v < *lo)
            *lo = v;
        if (isnan(*hi) || v > *hi)
            *hi = v;
    }
}

static int add_metric(result_file *f, size_t *cap, const target_result *t, const char *prefix,
                      size_t field)
{
    const field_def *def = &field_defs[field];
    double value = figure(&t->median, def);
    if (isnan(value))
        return 0; /* a figure that does not exist: no metric */
    metric m = {.value = value, .better = def->better};
    if (def->better == METRIC_HIGHER_BETTER) {
        m.lo = t->throughput_lo;
        m.hi = t->throughput_hi;
    } else {
        run_range(t, def, &m.lo, &m.hi);
    }
    const char *name = compare_fields[field];
    size_t len = strlen(prefix) + strlen(name) + 2;
    m.name = malloc(len);
    m.runs = malloc((t->nruns ? t->nruns : 1) * sizeof *m.runs);
    if (!m.name || !m.runs) {
        free(m.name);
        free(m.runs);
        return -1;
    }
    for (size_t i = 0; i < t->nruns; i++)
        m.runs[m.nruns++] = figure(&t->runs[i].fig, def);
    snprintf(m.name, len, "%s.%s", prefix, name);
    m.field = m.name + strlen(prefix) + 1;
    if (result_file_metric(f, m.name)) {
        int rc = strings_add(&f->notes, &f->nnotes,
                             "%s names %s twice (two specs with one domain?); the first is used",
                             f->path, m.name);
        free(m.name);
        free(m.runs);
        return rc;
    }
    if (f->nmetrics == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        metric *grown = realloc(f->metrics, ncap * sizeof *grown);
        if (!grown) {
            free(m.name);
            free(m.runs);
            return -1;
        }
        f->metrics = grown;
        *cap = ncap;
    }
    f->metrics[f->nmetrics++] = m;
    return 0;
}

static int extract(result_file *f)
{
    size_t cap = 0;
    const report *r = f->r;
    for (size_t i = 0; i < r->nresults; i++) {
        const target_result *t = &r->results[i];
        char prefix[600];
        metric_prefix(t, prefix, sizeof prefix);
        if (t->failed) {
            if (strings_add(&f->notes, &f->nnotes, "%s: %s failed, so it has no metrics: %s",
                            f->path, prefix, *t->reason ? t->reason : "no reason given") < 0)
                return -1;
            continue;
        }
        for (size_t k = 0; compare_fields[k]; k++)
            if (add_metric(f, &cap, t, prefix, k) < 0)
                return -1;
    }
    for (size_t i = 0; i < r->nskipped; i++)
        if (strings_add(&f->notes, &f->nnotes, "%s: %s was skipped: %s", f->path,
                        r->skipped[i].label, r->skipped[i].reason) < 0)
            return -1;
    if (r->interrupted &&
        strings_add(&f->notes, &f->nnotes,
                    "%s: the run was interrupted; only the runs that finished are in it",
                    f->path) < 0)
        return -1;
    return 0;
}

void result_file_free(result_file *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->nmetrics; i++) {
        free(f->metrics[i].name);
        free(f->metrics[i].runs);
    }
    for (size_t i = 0; i < f->nnotes; i++)
        free(f->notes[i]);
    free(f->metrics);
    free(f->notes);
    results_free(f->r);
    free(f->path);
    free(f);
}

/* Takes r (freed on failure). */
static int finish_load(const char *name, report *r, result_file **out, char *err, size_t size)
{
    result_file *f = calloc(1, sizeof *f);
    if (f) {
        f->r = r;
        f->path = xstrdup(name);
    } else {
        results_free(r);
    }
    if (!f || !f->path || extract(f) < 0) {
        result_file_free(f);
        if (err && size)
            snprintf(err, size, "cannot load %s: out of memory.", name);
        return -1;
    }
    *out = f;
    return 0;
}

int result_file_load(const char *path, result_file **out, char *err, size_t size)
{
    report *r;
    *out = NULL;
    if (results_load(path, &r, err, size) < 0)
        return -1;
    return finish_load(path, r, out, err, size);
}

int result_file_from_json(const char *name, const cJSON *root, result_file **out, char *err,
                          size_t size)
{
    report *r;
    *out = NULL;
    if (results_from_json(name, root, &r, err, size) < 0)
        return -1;
    return finish_load(name, r, out, err, size);
}

/* ---- comparing ---------------------------------------------------------- */

const char *verdict_name(verdict v)
{
    switch (v) {
    case VERDICT_BETTER: return "better";
    case VERDICT_WORSE: return "worse";
    case VERDICT_NOISE: return "within noise";
    case VERDICT_ONLY_BASE: return "only in base";
    case VERDICT_ONLY_CURRENT: return "only in current";
    }
    return "?";
}

static bool ranges_overlap(const metric *a, const metric *b)
{
    if (isnan(a->lo) || isnan(a->hi) || isnan(b->lo) || isnan(b->hi))
        return false;
    return a->lo <= b->hi && b->lo <= a->hi;
}

/* Change and worse_pct of c from the base value b and the current x. */
static void set_change(comparison *c, metric_better better, double b, double x)
{
    if (b != 0)
        c->change_pct = (x - b) / fabs(b) * 100.0;
    bool worse = better == METRIC_HIGHER_BETTER ? x < b : x > b;
    if (worse)
        c->worse_pct = isnan(c->change_pct) ? INFINITY : fabs(c->change_pct);
}

/* The verdict of a change from b to x that the test gave p for, unless a
 * reason not to call it is already known (why). */
static void set_verdict(comparison *c, metric_better better, double b, double x, noise_reason why)
{
    if (why == NOISE_NONE && x == b)
        why = NOISE_EQUAL;
    if (why == NOISE_NONE && isnan(c->p))
        why = NOISE_NO_RUNS;
    if (why == NOISE_NONE && !(c->p < COMPARE_ALPHA))
        why = NOISE_NOT_SIGNIFICANT;
    c->why = why;
    if (why != NOISE_NONE)
        c->v = VERDICT_NOISE;
    else
        c->v = (better == METRIC_HIGHER_BETTER ? x < b : x > b) ? VERDICT_WORSE : VERDICT_BETTER;
}

static size_t count_known(const double *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += !isnan(v[i]);
    return k;
}

static comparison compare_one(const metric *base, const metric *cur)
{
    comparison c = {.name = base ? base->name : cur->name,
                    .base = base,
                    .cur = cur,
                    .change_pct = NAN,
                    .p = NAN};
    if (!base || !cur) {
        c.v = base ? VERDICT_ONLY_BASE : VERDICT_ONLY_CURRENT;
        return c;
    }
    set_change(&c, base->better, base->value, cur->value);
    c.overlap = ranges_overlap(base, cur);
    c.nb = count_known(base->runs, base->nruns);
    c.nc = count_known(cur->runs, cur->nruns);
    c.p = stats_mann_whitney_p(base->runs, base->nruns, cur->runs, cur->nruns);
    set_verdict(&c, base->better, base->value, cur->value, c.overlap ? NOISE_OVERLAP : NOISE_NONE);
    return c;
}

int compare_results(const result_file *base, const result_file *cur, comparison **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t total = base->nmetrics + cur->nmetrics;
    comparison *v = calloc(total ? total : 1, sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < base->nmetrics; i++)
        v[(*n)++] = compare_one(&base->metrics[i], result_file_metric(cur, base->metrics[i].name));
    for (size_t i = 0; i < cur->nmetrics; i++)
        if (!result_file_metric(base, cur->metrics[i].name))
            v[(*n)++] = compare_one(NULL, &cur->metrics[i]);
    *out = v;
    return 0;
}

bool gate_fails(const comparison *c, double threshold_pct)
{
    return !c->base || !c->cur || (c->v == VERDICT_WORSE && c->worse_pct > threshold_pct);
}

/* The fewest runs n on each side with which p < COMPARE_ALPHA can be reached
 * (disjoint ranges give 2 / C(2n, n)). */
size_t compare_runs_needed(void)
{
    double c = 2; /* C(2n, n) for n = 1 */
    size_t n = 1;
    while (2.0 / c >= COMPARE_ALPHA) {
        c = c * (double)(2 * n + 1) * (double)(2 * n + 2) / (double)((n + 1) * (n + 1));
        n++;
    }
    return n;
}

/* The fewest pairs that can reach p < COMPARE_ALPHA: 2 / 2^n < alpha. */
size_t compare_pairs_needed(void)
{
    size_t n = 1;
    while (2.0 / ldexp(1.0, (int)n) >= COMPARE_ALPHA)
        n++;
    return n;
}

void comparison_reason(const comparison *c, char *buf, size_t n)
{
    char counts[96];
    if (c->paired && c->nc > c->nb)
        snprintf(counts, sizeof counts, "over %zu pairs (%zu equal, left out)", c->nb,
                 c->nc - c->nb);
    else if (c->paired)
        snprintf(counts, sizeof counts, "over %zu pairs", c->nb);
    else
        snprintf(counts, sizeof counts, "with %zu and %zu runs", c->nb, c->nc);
    if (!c->base || !c->cur) {
        snprintf(buf, n, "%s", "");
        return;
    }
    switch (c->why) {
    case NOISE_EQUAL: snprintf(buf, n, "equal"); break;
    case NOISE_OVERLAP: snprintf(buf, n, "ranges overlap"); break;
    case NOISE_NO_RUNS: snprintf(buf, n, "no runs to test"); break;
    case NOISE_NOT_SIGNIFICANT: {
        /* say what it takes when the counts are why */
        size_t need = c->paired ? compare_pairs_needed() : compare_runs_needed();
        char hint[96] = "";
        if (c->paired && c->nb < need)
            snprintf(hint, sizeof hint, "; p < %g needs %zu pairs or more", COMPARE_ALPHA, need);
        else if (!c->paired && (c->nb < need || c->nc < need))
            snprintf(hint, sizeof hint, "; p < %g needs %zu and %zu runs or more", COMPARE_ALPHA,
                     need, need);
        snprintf(buf, n, "not significant: p=%.2g %s%s", c->p, counts, hint);
        break;
    }
    case NOISE_NONE: snprintf(buf, n, "p=%.2g %s", c->p, counts); break;
    }
}

/* ---- paired (interleaved A/B) --------------------------------------------- */

void paired_free(paired *v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++) {
        free(v[i].ratios);
        free(v[i].a.runs);
        free(v[i].b.runs);
    }
    free(v);
}

/* A side's metric across pairs: each pair's value as a run, their median and
 * range. Takes runs. */
static metric side_metric(const metric *like, double *runs, size_t n)
{
    metric m = {.name = like->name, .field = like->field, .better = like->better};
    m.runs = runs;
    m.nruns = n;
    m.value = stats_median(runs, n);
    m.lo = m.hi = NAN;
    for (size_t i = 0; i < n; i++) {
        if (isnan(runs[i]))
            continue;
        m.lo = isnan(m.lo) || runs[i] < m.lo ? runs[i] : m.lo;
        m.hi = isnan(m.hi) || runs[i] > m.hi ? runs[i] : m.hi;
    }
    return m;
}

/* One metric over the pairs; -1 when out of memory. */
static int pair_one(const metric *first, result_file *const *a, result_file *const *b,
                    size_t npairs, paired *p)
{
    double *av = malloc(npairs * sizeof *av), *bv = malloc(npairs * sizeof *bv);
    double *logs = malloc(npairs * sizeof *logs);
    p->ratios = malloc(npairs * sizeof *p->ratios);
    if (!av || !bv || !logs || !p->ratios) {
        free(av);
        free(bv);
        free(logs);
        return -1;
    }
    p->npairs = npairs;
    bool in_a = true, in_b = true;
    for (size_t i = 0; i < npairs; i++) {
        const metric *ma = result_file_metric(a[i], first->name);
        const metric *mb = result_file_metric(b[i], first->name);
        in_a = in_a && ma;
        in_b = in_b && mb;
        av[i] = ma ? ma->value : NAN;
        bv[i] = mb ? mb->value : NAN;
        p->ratios[i] = ma && mb && av[i] != 0 ? bv[i] / av[i] : NAN;
        logs[i] = p->ratios[i] > 0 ? log(p->ratios[i]) : NAN;
    }
    p->a = side_metric(first, av, npairs);
    p->b = side_metric(first, bv, npairs);
    comparison *c = &p->c;
    *c = (comparison){.name = first->name,
                      .base = in_a ? &p->a : NULL,
                      .cur = in_b ? &p->b : NULL,
                      .change_pct = NAN,
                      .p = NAN,
                      .paired = true};
    p->median_ratio = stats_median(p->ratios, npairs);
    if (!in_a || !in_b) {
        c->v = in_a ? VERDICT_ONLY_BASE : VERDICT_ONLY_CURRENT;
        free(logs);
        return 0;
    }
    c->overlap = ranges_overlap(&p->a, &p->b);
    if (!isnan(p->median_ratio))
        set_change(c, first->better, 1.0, p->median_ratio);
    c->p = stats_signed_rank_p(logs, npairs, &c->nb);
    c->nc = count_known(logs, npairs); /* nb of them differ */
    free(logs);
    set_verdict(c, first->better, 1.0, isnan(p->median_ratio) ? 1.0 : p->median_ratio, NOISE_NONE);
    return 0;
}

int compare_paired(result_file *const *a, result_file *const *b, size_t npairs, paired **out,
                   size_t *n)
{
    *out = NULL;
    *n = 0;
    if (npairs == 0)
        return 0;
    const result_file *first = a[0];
    paired *v = calloc(first->nmetrics ? first->nmetrics : 1, sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < first->nmetrics; i++) {
        if (pair_one(&first->metrics[i], a, b, npairs, &v[i]) < 0) {
            paired_free(v, i + 1);
            return -1;
        }
    }
    *out = v;
    *n = first->nmetrics;
    return 0;
}

bool metric_matches(const char *pattern, const char *name)
{
    if (!strpbrk(pattern, "*?["))
        return !strcmp(pattern, name);
    return fnmatch(pattern, name, 0) == 0;
}

void metric_format(const metric *m, char *buf, size_t n)
{
    if (!m)
        snprintf(buf, n, "missing");
    else if (m->better == METRIC_HIGHER_BETTER)
        report_fmt_throughput(m->value, buf, n);
    else if (!strcmp(m->field, "drift"))
        report_fmt_drift(m->value, buf, n);
    else
        report_fmt_us(m->value * 1000.0, buf, n);
}

/* ---- warnings ----------------------------------------------------------- */

/* The spec of that SHA-256 (by_path false) or path in f's config, or NULL. */
static const spec_config *find_spec(const result_file *f, bool by_path, const char *value)
{
    const run_config *c = &f->r->config;
    for (size_t i = 0; i < c->nspecs; i++)
        if (!strcmp(by_path ? c->specs[i].path : c->specs[i].sha256, value))
            return &c->specs[i];
    return NULL;
}

static int spec_warnings(const result_file *base, const result_file *cur, char ***out, size_t *n)
{
    const run_config *bc = &base->r->config, *cc = &cur->r->config;
    for (size_t i = 0; i < bc->nspecs; i++) {
        const char *path = bc->specs[i].path, *sha = bc->specs[i].sha256;
        if (find_spec(cur, false, sha))
            continue;
        const spec_config *same = find_spec(cur, true, path);
        int rc =
            same ? strings_add(out, n,
                               "the spec %s differs between the files (SHA-256 %.12s in "
                               "base, %.12s in current): the workloads are not the same",
                               path, sha, same->sha256)
                 : strings_add(out, n, "the spec %s (SHA-256 %.12s) is in base only", path, sha);
        if (rc < 0)
            return -1;
    }
    for (size_t i = 0; i < cc->nspecs; i++) {
        const char *path = cc->specs[i].path, *sha = cc->specs[i].sha256;
        if (!find_spec(base, false, sha) && !find_spec(base, true, path) &&
            strings_add(out, n, "the spec %s (SHA-256 %.12s) is in current only", path, sha) < 0)
            return -1;
    }
    return 0;
}

static void append(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void append(char *buf, size_t size, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
}

int compare_warnings(const result_file *base, const result_file *cur, char ***out)
{
    *out = NULL;
    size_t n = 0;
    if (spec_warnings(base, cur, out, &n) < 0)
        goto oom;
    const environment *be = &base->r->env, *ce = &cur->r->env;
    char diff[2048] = "";
    const char *sep = "";
    if (strcmp(be->cpu_model, ce->cpu_model) != 0) {
        append(diff, sizeof diff, "cpu_model '%s' in base, '%s' in current", be->cpu_model,
               ce->cpu_model);
        sep = "; ";
    }
    if (be->cores != ce->cores) {
        append(diff, sizeof diff, "%scores %d in base, %d in current", sep, be->cores, ce->cores);
        sep = "; ";
    }
    /* Memory within 1%: the same machine reports a slightly different total
     * after a kernel update. */
    double mb = (double)be->memory_bytes, mc = (double)ce->memory_bytes;
    if (fabs(mb - mc) > 0.01 * fmax(mb, mc))
        append(diff, sizeof diff, "%smemory_bytes %.0f in base, %.0f in current", sep, mb, mc);
    if (*diff && strings_add(out, &n, "the machines differ: %s", diff) < 0)
        goto oom;
    diff[0] = '\0';
    sep = "";
    if (strcmp(be->build_type, ce->build_type) != 0) {
        append(diff, sizeof diff, "build_type %s in base, %s in current", be->build_type,
               ce->build_type);
        sep = "; ";
    }
    if (strcmp(be->build_flags, ce->build_flags) != 0)
        append(diff, sizeof diff, "%sbuild_flags '%s' in base, '%s' in current", sep,
               be->build_flags, ce->build_flags);
    if (*diff && strings_add(out, &n, "the builds differ: %s", diff) < 0)
        goto oom;
    return (int)n;
oom:
    for (size_t i = 0; i < n; i++)
        free((*out)[i]);
    free(*out);
    *out = NULL;
    return -1;
}
