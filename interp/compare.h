/* compare.h: result files as metrics, and what changed between two of them
 * (DESIGN section 6): the model behind `bench compare`, `bench gate` and
 * `bench report`. A metric is named DOMAIN.LABEL.FIELD, with @N after the
 * label for a prefill size N > 0 (banking.sqlite@100000.p99_us); its value is
 * the result's median across runs, its range what the runs spanned.
 *
 * A change is called (better or worse) only when two things agree: the run
 * ranges do not overlap, and the exact two-sided Mann-Whitney U test over the
 * per-run figures gives p < COMPARE_ALPHA. Mann-Whitney because runs on a
 * shared machine are not normal (one run next to a neighbour's build is an
 * outlier, not a wider bell) and the exact test needs no such assumption. Its
 * price: with n and m runs the smallest p is 2 / C(n+m, n), reached only
 * when the ranges are disjoint, so at 0.05 a change needs 4 and 4 runs (or
 * 3 and 5); 3 and 3 runs can never call one (p >= 0.1). Two interleaved
 * binaries (`bench gate --ab`) are compared by the paired ratios and the
 * Wilcoxon signed-rank test instead (compare_paired). */
#ifndef BENCH_COMPARE_H
#define BENCH_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "results.h"

typedef enum metric_better {
    METRIC_HIGHER_BETTER, /* throughput */
    METRIC_LOWER_BETTER,  /* latencies, drift */
} metric_better;

/* The fields every result contributes, in this order; NULL-terminated. */
extern const char *const compare_fields[];

typedef struct metric {
    char *name;        /* DOMAIN.LABEL[@N].FIELD, owned */
    const char *field; /* the FIELD part of name */
    double value;      /* the median across runs */
    double lo, hi;     /* the runs' range: throughput_range for throughput, else the
                        * lowest and highest figure across runs[]; NAN when unknown */
    metric_better better;
    double *runs; /* the figure of each run (NAN where a run lacks it), owned */
    size_t nruns;
} metric;

typedef struct result_file {
    char *path;      /* as given, owned */
    report *r;       /* the file's results (results_load), owned */
    metric *metrics; /* one per field of every result whose figure is not null */
    size_t nmetrics;
    char **notes; /* sentences about the file itself (a failed target, a metric
                   * named twice), owned */
    size_t nnotes;
} result_file;

/* Loads the JSON result file at path with results_load (which parses and
 * validates it against schema/result.schema.json) and extracts its metrics
 * from the loaded report. Returns 0 and
 * *out (the caller's to result_file_free), or -1 with one sentence in
 * err[size] naming the file and what is wrong with it (unreadable, not JSON
 * and where, or the first schema violation with its JSON path). Results
 * that failed contribute no metrics (a note says so); a figure that is null
 * is no metric either. */
int result_file_load(const char *path, result_file **out, char *err, size_t size);
/* As result_file_load, for a document already in memory (copied; name is
 * what messages call it). */
int result_file_from_json(const char *name, const cJSON *root, result_file **out, char *err,
                          size_t size);
void result_file_free(result_file *f);

/* The metric names' prefix of a result: DOMAIN.LABEL, with @N for a prefill
 * size N > 0 (banking.sqlite@100000), into buf[n]. */
void metric_prefix(const target_result *t, char *buf, size_t n);

/* The metric of that name, or NULL. */
const metric *result_file_metric(const result_file *f, const char *name);

/* The significance level of both tests. */
#define COMPARE_ALPHA 0.05
/* What compare's p is, as the outputs name it. */
#define COMPARE_TEST "Mann-Whitney U (exact, two-sided)"
#define COMPARE_PAIRED_TEST "Wilcoxon signed-rank on log B/A (exact, two-sided)"

typedef enum verdict {
    VERDICT_BETTER,
    VERDICT_WORSE,
    VERDICT_NOISE,        /* not called: see noise_reason */
    VERDICT_ONLY_BASE,    /* missing from the current file */
    VERDICT_ONLY_CURRENT, /* missing from the base file */
} verdict;

/* "better", "worse", "within noise", "only in base", "only in current". */
const char *verdict_name(verdict v);

/* Why a change within noise was not called. */
typedef enum noise_reason {
    NOISE_NONE,            /* called, or a metric missing */
    NOISE_EQUAL,           /* the values are equal */
    NOISE_OVERLAP,         /* the run ranges overlap */
    NOISE_NOT_SIGNIFICANT, /* disjoint ranges (or paired), but p >= COMPARE_ALPHA */
    NOISE_NO_RUNS,         /* no per-run figures to test */
} noise_reason;

typedef struct comparison {
    const char *name;         /* lent from a metric */
    const metric *base, *cur; /* lent; NULL where absent */
    double change_pct;        /* (cur - base) / |base| * 100; NAN unless both exist
                               * and base is not 0 */
    double worse_pct;         /* how far in the bad direction, in percent: the change
                               * for latencies, minus it for throughput; 0 when not
                               * worse, INFINITY when base is 0 and cur is worse */
    bool overlap;             /* both ranges known and overlapping */
    double p;                 /* the test's two-sided p; NAN when not computed */
    bool paired;              /* p is compare_paired's signed-rank test, nb pairs */
    size_t nb, nc;            /* runs tested in base and current; paired: the pairs
                               * that differ, and all pairs with both figures */
    verdict v;
    noise_reason why; /* for VERDICT_NOISE */
} comparison;

/* Compares every metric of base with current: base's metrics in base's order,
 * then those only in current in current's order. The verdict is better or
 * worse (by the metric's direction) only when the run ranges are disjoint and
 * the Mann-Whitney p over the runs is below COMPARE_ALPHA; else within noise,
 * with the reason. Returns 0 and *out[*n] (the caller frees *out; it lends
 * base and cur, which must outlive it), or -1 when out of memory. */
int compare_results(const result_file *base, const result_file *cur, comparison **out, size_t *n);

/* Why c is what it is, as one phrase into buf[n]: "ranges overlap", "not
 * significant: p=0.10 with 3 and 3 runs (p < 0.05 needs 4 and 4)", "p=0.008,
 * 5 and 5 runs", "p=0.031 over 6 pairs"; "" for a missing metric. */
void comparison_reason(const comparison *c, char *buf, size_t n);

/* The fewest runs on each side (n and n) with which compare_results can call
 * a change (4 at 0.05), and the fewest pairs compare_paired can (6). */
size_t compare_runs_needed(void);
size_t compare_pairs_needed(void);

/* One metric of an interleaved A/B job (bench gate --ab): the ratio B/A of
 * each pair, and what their median says. */
typedef struct paired {
    comparison c;   /* base/cur: A's and B's figures across pairs (medians,
                     * ranges, runs[] per pair), owned here; change_pct and
                     * worse_pct from the median ratio; p the signed-rank test */
    metric a, b;    /* what c.base and c.cur point at */
    double *ratios; /* B/A of each pair, owned; NAN where either lacks it */
    size_t npairs;
    double median_ratio;
} paired;

/* Pairs a[i] (binary A) with b[i] (binary B), i < npairs, metric by metric
 * over the metrics of a[0]. A metric is missing (VERDICT_ONLY_BASE or
 * ONLY_CURRENT) when any file of A or of B lacks it. Otherwise the verdict is
 * better or worse only when the Wilcoxon signed-rank test over the pairs'
 * log ratios gives p < COMPARE_ALPHA (6 pairs at least: 5 give p >= 0.0625),
 * by the direction of the median ratio; else within noise. Pairing cancels
 * what drifts between sittings, so the run ranges are not consulted. Returns 0
 * and *out[*n] (the caller's to paired_free), or -1 when out of memory. */
int compare_paired(result_file *const *a, result_file *const *b, size_t npairs, paired **out,
                   size_t *n);
void paired_free(paired *v, size_t n);

/* Sentences that make a comparison suspect: the spec files differ (by
 * SHA-256), the machines differ (cpu_model, cores, memory_bytes), the builds
 * differ (build_type, build_flags). Returns how many, and *out (the caller
 * frees each and the array; NULL when none). -1 when out of memory. */
int compare_warnings(const result_file *base, const result_file *cur, char ***out);

/* Whether the gate fails c at threshold_pct: the metric is missing from a file,
 * or the change is called worse (compare_results, compare_paired) and is
 * beyond threshold_pct in its bad direction. Within noise never fails. */
bool gate_fails(const comparison *c, double threshold_pct);

/* Whether name matches pattern: fnmatch(3) glob ('*' also matches dots), or
 * equality when the pattern has no '*', '?' or '['. */
bool metric_matches(const char *pattern, const char *name);

/* A metric's value as the reports print it, into buf[n]: throughput with
 * thousands separators (1,462,459), latencies in µs as the Markdown report
 * rounds them, drift with two decimals; "missing" for a NULL metric. */
void metric_format(const metric *m, char *buf, size_t n);

#endif
