/* stats.c: run figures and their aggregation across runs. */
#include "stats.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fmt.h"

/* Runs are few; past this many the median sorts a heap copy. */
#define MEDIAN_LOCAL 64

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double stats_median(const double *xs, size_t n)
{
    double local[MEDIAN_LOCAL];
    double *buf = n <= MEDIAN_LOCAL ? local : malloc(n * sizeof *buf);
    if (!buf)
        return NAN;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(xs[i]))
            buf[m++] = xs[i];
    double med = NAN;
    if (m > 0) {
        qsort(buf, m, sizeof *buf, cmp_double);
        med = m % 2 ? buf[m / 2] : (buf[m / 2 - 1] + buf[m / 2]) / 2;
    }
    if (buf != local)
        free(buf);
    return med;
}

double stats_drift(const hist *first_tenth, const hist *last_tenth)
{
    if (hist_count(first_tenth) == 0 || hist_count(last_tenth) == 0)
        return NAN;
    /* Percentiles of a non-empty histogram are at least 1 ns: no zero divisor. */
    return (double)hist_percentile(last_tenth, 0.5) / (double)hist_percentile(first_tenth, 0.5);
}

/* 128-bit products: k * 10 cannot overflow whatever the cycle count. */
unsigned stats_tenth_of(uint64_t k, uint64_t cycles)
{
    if (cycles < STATS_TENTHS)
        return 0;
    return (unsigned)((hist_u128)k * STATS_TENTHS / cycles);
}

uint64_t stats_tenth_start(unsigned t, uint64_t cycles)
{
    if (cycles < STATS_TENTHS)
        return t == 0 ? 0 : cycles;
    return (uint64_t)(((hist_u128)t * cycles + STATS_TENTHS - 1) / STATS_TENTHS);
}

static double latency(const hist *h, double q)
{
    return hist_count(h) ? (double)hist_percentile(h, q) : NAN;
}

void stats_figures_from(const hist *all, const hist tenths[STATS_TENTHS], uint64_t commands,
                        double wall_seconds, run_figures *out)
{
    memset(out, 0, sizeof *out);
    out->commands = commands;
    out->wall_seconds = wall_seconds;
    out->throughput_per_s = wall_seconds > 0 ? (double)commands / wall_seconds : NAN;
    out->min_ns = latency(all, 0);
    out->p50_ns = latency(all, 0.5);
    out->p90_ns = latency(all, 0.9);
    out->p95_ns = latency(all, 0.95);
    out->p99_ns = latency(all, 0.99);
    out->p999_ns = latency(all, 0.999);
    out->max_ns = latency(all, 1);
    out->mean_ns = hist_mean(all);
    out->stddev_ns = hist_stddev(all);
    out->drift = stats_drift(&tenths[0], &tenths[STATS_TENTHS - 1]);
    for (int t = 0; t < STATS_TENTHS; t++) {
        out->tenths[t].p50_ns = latency(&tenths[t], 0.5);
        out->tenths[t].p99_ns = latency(&tenths[t], 0.99);
    }
}

/* Every double figure of run_figures, by offset, so the median walks a table. */
#define FIG(f) offsetof(run_figures, f)
static const size_t run_offsets[] = {
    FIG(wall_seconds), FIG(throughput_per_s), FIG(min_ns),    FIG(p50_ns),
    FIG(p90_ns),       FIG(p95_ns),           FIG(p99_ns),    FIG(p999_ns),
    FIG(max_ns),       FIG(mean_ns),          FIG(stddev_ns), FIG(drift),
};
#undef FIG
#define RUN_FIGURES (sizeof run_offsets / sizeof *run_offsets)
#define ALL_FIGURES ((size_t)RUN_FIGURES + 2 * (size_t)STATS_TENTHS)

/* Figure f of ALL_FIGURES: the run's own, then p50 and p99 of each tenth. */
static size_t figure_offset(size_t f)
{
    if (f < RUN_FIGURES)
        return run_offsets[f];
    f -= RUN_FIGURES;
    return offsetof(run_figures, tenths) + f / 2 * sizeof(tenth_figures) +
           (f % 2 ? offsetof(tenth_figures, p99_ns) : offsetof(tenth_figures, p50_ns));
}

static double figure_get(const run_figures *r, size_t offset)
{
    double x;
    memcpy(&x, (const char *)r + offset, sizeof x);
    return x;
}

static void figure_set(run_figures *r, size_t offset, double x)
{
    memcpy((char *)r + offset, &x, sizeof x);
}

/* The median of one figure across runs; xs is scratch for n values. */
static double median_of(const run_figures *runs, size_t n, size_t offset, double *xs)
{
    for (size_t i = 0; i < n; i++)
        xs[i] = figure_get(&runs[i], offset);
    return stats_median(xs, n);
}

void stats_figures_median(const run_figures *runs, size_t n, run_figures *out)
{
    double local[MEDIAN_LOCAL];
    double *xs = n <= MEDIAN_LOCAL ? local : malloc(n * sizeof *xs);
    memset(out, 0, sizeof *out);
    for (size_t f = 0; f < ALL_FIGURES; f++) {
        size_t offset = figure_offset(f);
        figure_set(out, offset, xs ? median_of(runs, n, offset, xs) : NAN);
    }
    for (size_t i = 0; xs && i < n; i++)
        xs[i] = (double)runs[i].commands;
    double commands = xs ? stats_median(xs, n) : NAN;
    out->commands = isnan(commands) ? 0 : (uint64_t)commands;
    if (xs != local)
        free(xs);
}

void stats_throughput_range(const run_figures *runs, size_t n, double *lo, double *hi)
{
    *lo = *hi = NAN;
    for (size_t i = 0; i < n; i++) {
        double x = runs[i].throughput_per_s;
        if (isnan(x))
            continue;
        if (isnan(*lo) || x < *lo)
            *lo = x;
        if (isnan(*hi) || x > *hi)
            *hi = x;
    }
}

/* ---- stability ---- */

/* Bins of the mode test: 1 ns up to HIST_MAX_NS (below 2^42). */
#define MODE_BINS (42 * STATS_MODE_BINS_PER_OCTAVE + 1)

static size_t mode_bin(uint64_t v)
{
    double b = floor(log2((double)v) * STATS_MODE_BINS_PER_OCTAVE);
    return b < 0 ? 0 : b >= MODE_BINS ? MODE_BINS - 1 : (size_t)b;
}

bool stats_two_modes(const hist *h, double *lo_ns, double *hi_ns)
{
    uint64_t n = hist_count(h);
    if (n < STATS_MODE_MIN_SAMPLES)
        return false;
    uint64_t c[MODE_BINS] = {0};
    hist_iter it = hist_iter_start(h);
    while (hist_iter_next(&it))
        c[mode_bin(it.mid)] += it.count;
    /* below[v]: the mass and tallest bin of bins < v; above: of bins > v */
    uint64_t below[MODE_BINS], top_below[MODE_BINS], above[MODE_BINS], top_above[MODE_BINS];
    size_t at_below[MODE_BINS], at_above[MODE_BINS];
    below[0] = top_below[0] = 0;
    at_below[0] = 0;
    for (size_t v = 1; v < MODE_BINS; v++) {
        below[v] = below[v - 1] + c[v - 1];
        bool taller = c[v - 1] > top_below[v - 1];
        top_below[v] = taller ? c[v - 1] : top_below[v - 1];
        at_below[v] = taller ? v - 1 : at_below[v - 1];
    }
    above[MODE_BINS - 1] = top_above[MODE_BINS - 1] = 0;
    at_above[MODE_BINS - 1] = MODE_BINS - 1;
    for (size_t v = MODE_BINS - 1; v-- > 0;) {
        above[v] = above[v + 1] + c[v + 1];
        bool taller = c[v + 1] > top_above[v + 1];
        top_above[v] = taller ? c[v + 1] : top_above[v + 1];
        at_above[v] = taller ? v + 1 : at_above[v + 1];
    }
    size_t apart = (size_t)STATS_MODE_OCTAVES * STATS_MODE_BINS_PER_OCTAVE;
    double share = STATS_MODE_SHARE * (double)n;
    size_t best = 0;
    bool found = false;
    for (size_t v = 1; v + 1 < MODE_BINS; v++) {
        uint64_t peak = top_below[v] < top_above[v] ? top_below[v] : top_above[v];
        if ((double)below[v] >= share && (double)above[v] >= share &&
            (double)c[v] < STATS_MODE_VALLEY * (double)peak && at_above[v] - at_below[v] >= apart &&
            (!found || c[v] < c[best])) {
            best = v;
            found = true;
        }
    }
    if (!found)
        return false;
    /* the median rank of each side, as a quantile */
    double lo_rank = (double)((below[best] + 1) / 2);
    double hi_rank = (double)(n - above[best] + (above[best] + 1) / 2);
    if (lo_ns)
        *lo_ns = (double)hist_percentile(h, lo_rank / (double)n);
    if (hi_ns)
        *hi_ns = (double)hist_percentile(h, hi_rank / (double)n);
    return true;
}

/* Appends one reason to buf[size] at *len, after "; " when not the first. */
static void add_reason(char *buf, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add_reason(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    if (*len + 1 >= size)
        return;
    if (*len) {
        int w = snprintf(buf + *len, size - *len, "; ");
        *len += w > 0 ? (size_t)w : 0;
        if (*len >= size) {
            *len = size - 1;
            return;
        }
    }
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    *len = w < 0 ? *len : *len + (size_t)w >= size ? size - 1 : *len + (size_t)w;
}

static const char *us_text(double ns, char *buf, size_t n)
{
    report_fmt_us(ns, buf, n);
    return buf;
}

bool stats_stability(const stability_input *in, char *reason, size_t size)
{
    size_t len = 0;
    char a[64], b[64];
    if (size)
        reason[0] = '\0';
    double lo = NAN, hi = NAN;
    bool judged = in->fig && in->fig->commands >= STATS_SPREAD_MIN_COMMANDS;
    for (int t = 0; judged && t < STATS_TENTHS; t++) {
        double x = in->fig->tenths[t].p50_ns;
        if (isnan(x))
            continue;
        lo = isnan(lo) || x < lo ? x : lo;
        hi = isnan(hi) || x > hi ? x : hi;
    }
    bool unstable = false;
    if (lo > 0 && hi / lo > STATS_TENTHS_SPREAD) {
        add_reason(reason, size, &len, "tenths' p50 spread %s to %s us (%.1fx)",
                   us_text(lo, a, sizeof a), us_text(hi, b, sizeof b), hi / lo);
        unstable = true;
    }
    for (size_t i = 0; i < in->nmodal; i++) {
        double m1, m2;
        if (!stats_two_modes(&in->modal[i], &m1, &m2))
            continue;
        add_reason(reason, size, &len, "two modes%s%s, at %s us and %s us", in->names ? " in " : "",
                   in->names ? in->names[i] : "", us_text(m1, a, sizeof a),
                   us_text(m2, b, sizeof b));
        unstable = true;
    }
    double f0 = in->floor_before_ns, f1 = in->floor_after_ns;
    if (f0 > 0 && f1 > 0 && fmax(f0, f1) / fmin(f0, f1) > STATS_FLOOR_MOVED) {
        add_reason(reason, size, &len, "the floor moved from %s to %s us", us_text(f0, a, sizeof a),
                   us_text(f1, b, sizeof b));
        unstable = true;
    }
    double p50 = in->fig ? in->fig->p50_ns : NAN;
    double floor_ns = isnan(f1) || f0 > f1 ? f0 : f1; /* the higher one */
    if (floor_ns > p50) {
        add_reason(reason, size, &len,
                   "the round-trip floor %s us is above the p50 %s us it should explain",
                   us_text(floor_ns, a, sizeof a), us_text(p50, b, sizeof b));
        unstable = true;
    }
    return unstable;
}
