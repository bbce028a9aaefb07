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

/* ---- tests over runs (compare and gate) ---------------------------------- */

/* Mid-ranks, doubled so that they are integers: v[0..n) gets 2 * its 1-based
 * rank, the mean of the ranks of its ties. rank2[i] goes with v[i]. */
static int doubled_ranks(const double *v, size_t n, long *rank2)
{
    double *sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        return -1;
    memcpy(sorted, v, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_double);
    for (size_t i = 0; i < n; i++) {
        /* the first and last position of v[i] among the sorted values */
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (sorted[mid] < v[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t first = lo;
        hi = n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (sorted[mid] <= v[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        rank2[i] = (long)(first + 1 + lo); /* (first+1) + lo: twice the mean rank */
    }
    free(sorted);
    return 0;
}

/* The normal approximation's two-sided p for a statistic that is dev away
 * from its mean with that variance. */
static double normal_p(double dev, double var)
{
    if (var <= 0)
        return 1.0;
    return fmin(1.0, erfc(fabs(dev) / sqrt(2.0 * var)));
}

/* Values of v that are not NaN, copied into a new array; *m their count. */
static double *without_nan(const double *v, size_t n, size_t *m)
{
    double *out = malloc((n ? n : 1) * sizeof *out);
    *m = 0;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            out[(*m)++] = v[i];
    return out;
}

/* The share of the counts row[0..total] (ways to reach each weight sum) whose
 * sum s lies at least as far from the mean as obs: |2s - mean2| >= |2obs -
 * mean2|, mean2 being twice the mean. */
static double tail_share(const double *row, long total, long obs, double mean2)
{
    double far = 0, all = 0, limit = fabs(2.0 * (double)obs - mean2);
    for (long s = 0; s <= total; s++) {
        all += row[s];
        if (fabs(2.0 * (double)s - mean2) >= limit)
            far += row[s];
    }
    return all > 0 ? fmin(1.0, far / all) : NAN;
}

/* The permutation distribution of a sum of integer weights w[0..n): of the
 * subsets of size k (the rank-sum test), or of every size when k is
 * SIZE_MAX (the sign patterns of the signed-rank test), the share at least
 * as far from the mean as obs. ways[j][s] counts the subsets of size j with
 * sum s, built one item at a time; doubles count exactly well past
 * C(60, 30). */
static double subset_tail(const long *w, size_t n, size_t k, long obs, double mean2)
{
    long total = 0;
    for (size_t i = 0; i < n; i++)
        total += w[i];
    size_t cols = (size_t)total + 1, rows = k == SIZE_MAX ? 1 : k + 1;
    double *ways = calloc(rows * cols, sizeof *ways);
    if (!ways)
        return NAN;
    ways[0] = 1;
    for (size_t i = 0; i < n; i++) {
        if (k == SIZE_MAX) {
            for (long s = total; s >= w[i]; s--)
                ways[s] += ways[s - w[i]];
            continue;
        }
        for (size_t j = i + 1 < k ? i + 1 : k; j >= 1; j--)
            for (long s = total; s >= w[i]; s--)
                ways[j * cols + (size_t)s] += ways[(j - 1) * cols + (size_t)(s - w[i])];
    }
    double p = tail_share(ways + (rows - 1) * cols, total, obs, mean2);
    free(ways);
    return p;
}

double stats_mann_whitney_p(const double *x, size_t nx, const double *y, size_t ny)
{
    size_t mx, my;
    double *a = without_nan(x, nx, &mx), *b = without_nan(y, ny, &my);
    double p = NAN;
    size_t n = mx + my;
    double *pooled = a && b ? malloc((n ? n : 1) * sizeof *pooled) : NULL;
    long *rank2 = pooled ? malloc((n ? n : 1) * sizeof *rank2) : NULL;
    if (!rank2 || mx == 0 || my == 0)
        goto done;
    memcpy(pooled, a, mx * sizeof *pooled);
    memcpy(pooled + mx, b, my * sizeof *pooled);
    if (doubled_ranks(pooled, n, rank2) < 0)
        goto done;
    long obs = 0; /* x's doubled rank sum */
    for (size_t i = 0; i < mx; i++)
        obs += rank2[i];
    double mean2 = (double)mx * (double)(n + 1) * 2.0; /* twice x's mean doubled sum */
    if (n < STATS_EXACT_MAX) {
        p = subset_tail(rank2, n, mx, obs, mean2);
    } else {
        /* var of the rank sum with ties: mx my / 12 (n + 1 - sum(t^3 - t) / (n (n - 1))) */
        double ties = 0;
        for (size_t i = 0; i < n; i++) {
            double t = 0;
            for (size_t j = 0; j < n; j++)
                t += rank2[j] == rank2[i];
            ties += (t * t - 1); /* each member of a tie group adds t^2 - 1: sum t^3 - t */
        }
        double var =
            (double)mx * (double)my / 12.0 * ((double)n + 1 - ties / ((double)n * (double)(n - 1)));
        p = normal_p((double)obs / 2.0 - mean2 / 4.0, var);
    }
done:
    free(rank2);
    free(pooled);
    free(a);
    free(b);
    return p;
}

double stats_signed_rank_p(const double *d, size_t n, size_t *m)
{
    size_t k;
    double *v = without_nan(d, n, &k);
    if (m)
        *m = 0;
    if (!v)
        return NAN;
    size_t nz = 0;
    for (size_t i = 0; i < k; i++)
        if (v[i] != 0)
            v[nz++] = v[i];
    double p = nz == 0 ? (k ? 1.0 : NAN) : NAN;
    double *mag = nz ? malloc(nz * sizeof *mag) : NULL;
    long *rank2 = mag ? malloc(nz * sizeof *rank2) : NULL;
    if (m)
        *m = nz;
    if (!rank2)
        goto done;
    for (size_t i = 0; i < nz; i++)
        mag[i] = fabs(v[i]);
    if (doubled_ranks(mag, nz, rank2) < 0)
        goto done;
    long obs = 0, total = 0; /* doubled sum of the positive ranks, of all ranks */
    for (size_t i = 0; i < nz; i++) {
        total += rank2[i];
        if (v[i] > 0)
            obs += rank2[i];
    }
    if (nz < STATS_EXACT_MAX) {
        p = subset_tail(rank2, nz, SIZE_MAX, obs, (double)total);
    } else {
        double var = 0; /* of the positive-rank sum: sum(r^2) / 4 */
        for (size_t i = 0; i < nz; i++)
            var += (double)rank2[i] * (double)rank2[i] / 16.0;
        p = normal_p((double)obs / 2.0 - (double)total / 4.0, var);
    }
done:
    free(rank2);
    free(mag);
    free(v);
    return p;
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
