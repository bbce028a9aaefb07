/* stats.c: run figures and their aggregation across runs. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
