/* stats.h: the figures of one run, from its histograms and timings, and their
 * aggregation across runs (DESIGN.md section 5). A figure that does not exist
 * (no samples, no time, fewer than ten cycles for drift) is NAN: JSON null. */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"

#define STATS_TENTHS 10

typedef struct tenth_figures {
    double p50_ns, p99_ns;
} tenth_figures;

/* Latencies are in ns, as doubles so that runs aggregate alike. */
typedef struct run_figures {
    uint64_t commands;       /* timed commands */
    double wall_seconds;     /* wall time of the timed pass */
    double throughput_per_s; /* commands / wall_seconds */
    double min_ns, p50_ns, p90_ns, p95_ns, p99_ns, p999_ns, max_ns;
    double mean_ns, stddev_ns;          /* population standard deviation */
    double drift;                       /* p50 of the last tenth / p50 of the first */
    tenth_figures tenths[STATS_TENTHS]; /* per tenth of the timed cycles */
} run_figures;

/* The median of xs[0..n), the mean of the two middle values for an even
 * count, leaving xs untouched. NaNs are absent figures and are skipped.
 * NAN when no value is left (or, past 64 values, when out of memory). */
double stats_median(const double *xs, size_t n);

/* p50(last_tenth) / p50(first_tenth); NAN when either has no samples. The
 * caller makes drift null for fewer than ten cycles; stats_tenth_of does so by
 * putting every cycle in the first tenth. */
double stats_drift(const hist *first_tenth, const hist *last_tenth);

/* The tenth (0..9) of the timed pass that cycle k (0-based, k < cycles) falls
 * in: k * 10 / cycles, so tenths differ in size by at most one cycle. With
 * fewer than ten cycles every cycle is in tenth 0 and tenths 1..9 stay empty,
 * which makes drift NAN. */
unsigned stats_tenth_of(uint64_t k, uint64_t cycles);
/* The first cycle of tenth t (0..10; t = 10 gives cycles): cycle k is in
 * tenth t exactly when stats_tenth_start(t) <= k < stats_tenth_start(t + 1).
 * Lets the runner switch histograms without a division per cycle. */
uint64_t stats_tenth_start(unsigned t, uint64_t cycles);

/* Fills out from the run's histogram of every timed command, the histograms of
 * its tenths, the number of timed commands and the wall time of the timed
 * pass. Latency figures are NAN when all is empty, throughput when
 * wall_seconds is not positive. */
void stats_figures_from(const hist *all, const hist tenths[STATS_TENTHS], uint64_t commands,
                        double wall_seconds, run_figures *out);

/* The median across runs[0..n) of every figure, each on its own (so the
 * result need not be one of the runs), NaNs skipped as in stats_median;
 * commands is the median rounded down. Past 64 runs it allocates scratch, and
 * when out of memory every figure is NAN and commands 0. */
void stats_figures_median(const run_figures *runs, size_t n, run_figures *out);
/* The lowest and highest throughput across runs[0..n), NaNs skipped; both
 * NAN when none is left. */
void stats_throughput_range(const run_figures *runs, size_t n, double *lo, double *hi);

/* ---- tests over runs (compare and gate) ---------------------------------- */

/* Below this total count the tests give exact p-values (the permutation
 * distribution of the rank statistic, ties as mid-ranks); at or above it the
 * normal approximation with the tie correction. Runs and pairs are few. */
#define STATS_EXACT_MAX 60

/* The two-sided p-value of the Mann-Whitney U (Wilcoxon rank-sum) test that
 * x[0..nx) and y[0..ny) come from one distribution: the share of the
 * C(nx+ny, nx) ways of splitting the pooled values into groups of nx and ny
 * whose rank sum is at least as far from its mean as x's. No normality
 * assumption. With complete separation it is 2 / C(nx+ny, nx), the smallest
 * it can be: 0.1 for 3 and 3 values, 0.057 for 3 and 4, 0.029 for 4 and 4,
 * 0.0079 for 5 and 5. NaNs are skipped; NAN when either side is left empty
 * or when out of memory. */
double stats_mann_whitney_p(const double *x, size_t nx, const double *y, size_t ny);

/* The two-sided p-value of the Wilcoxon signed-rank test that the paired
 * differences d[0..n) are centred on 0: the share of the 2^m sign patterns of
 * the m non-zero differences (zeros dropped, as Wilcoxon did) whose
 * positive-rank sum is at least as far from its mean as d's. Its *m is set
 * when m is not NULL. With every difference on one side it is 2 / 2^m: 0.0625
 * for 5 pairs, 0.031 for 6, 0.0078 for 8. NaNs are skipped; 1 when no
 * difference is left but zeros, NAN when none at all or out of memory. */
double stats_signed_rank_p(const double *d, size_t n, size_t *m);

/* ---- stability (DESIGN.md section 11) ----
 *
 * A run is unstable when any of these holds:
 * - the p50s of its tenths spread past STATS_TENTHS_SPREAD (the highest over
 *   the lowest of the tenths that have samples), in a run of at least
 *   STATS_SPREAD_MIN_COMMANDS timed commands;
 * - one of its histograms has two separate modes (stats_two_modes);
 * - its floor moved: the floors before and after the timed pass differ by
 *   more than STATS_FLOOR_MOVED (the higher over the lower);
 * - a floor is above the run's p50, which it is meant to explain, and (when
 *   the spread is looked at) above every tenth's p50 too: a floor within the
 *   tenths' p50s is taken at one of the pass's own moments. */
#define STATS_TENTHS_SPREAD 1.5
#define STATS_FLOOR_MOVED 1.5
/* Below this many timed commands (20 a tenth) a tenth's p50 is too noisy to
 * judge: the spread is not looked at. */
#define STATS_SPREAD_MIN_COMMANDS 200
/* Two separate modes: the histogram, rebinned into STATS_MODE_BINS_PER_OCTAVE
 * bins per octave (by bucket midpoint), has a valley bin v such that the
 * bins below v and the bins above v each hold at least STATS_MODE_SHARE of
 * the samples, the tallest bin on each side holds more than 1/STATS_MODE_VALLEY
 * times what v holds, and those two peaks are at least STATS_MODE_OCTAVES
 * octaves apart (4x in latency: a process that moves between sharing its
 * child's CPU and not moves 10x; two steps of one verb that differ 2x, as
 * an append to a list of one and of two items can under ASan, stay one). Histograms with fewer than
 * STATS_MODE_MIN_SAMPLES samples are never called two-mode. A unimodal
 * density, however wide, rises to its peak and falls after it, so no bin of
 * it is a valley that deep on both sides. */
#define STATS_MODE_BINS_PER_OCTAVE 4
#define STATS_MODE_SHARE 0.10
#define STATS_MODE_VALLEY 0.25
#define STATS_MODE_OCTAVES 2
#define STATS_MODE_MIN_SAMPLES 100

/* True when h has two separate modes as defined above; then *lo_ns and *hi_ns
 * (either may be NULL) are the medians of the samples below and above the
 * valley. */
bool stats_two_modes(const hist *h, double *lo_ns, double *hi_ns);

/* What stats_stability (stability.c) looks at; every pointer is lent. */
typedef struct stability_input {
    const run_figures *fig;   /* the run's p50 and tenths */
    const hist *modal;        /* histograms tested for two modes (one per verb) */
    const char *const *names; /* their names for the reason, or NULL */
    size_t nmodal;
    double floor_before_ns, floor_after_ns; /* NAN when the target has no floor */
} stability_input;

/* True when the run is unstable; the reasons, joined by "; ", go into
 * reason[size] ("" when stable), e.g. "tenths' p50 spread 6.000 to 57.20 us
 * (9.5x); two modes in Order.AddTopping, at 2.600 us and 38.00 us". */
bool stats_stability(const stability_input *in, char *reason, size_t size);

#endif
