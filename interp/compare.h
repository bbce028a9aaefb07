/* compare.h: result files as metrics, and what changed between two of them
 * (DESIGN section 6): the model behind `bench compare`, `bench gate` and
 * `bench report`. A metric is named DOMAIN.LABEL.FIELD, with @N after the
 * label for a prefill size N > 0 (banking.sqlite@100000.p99_us); its value is
 * the result's median across runs, its range what the runs spanned. */
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

typedef enum verdict {
    VERDICT_BETTER,
    VERDICT_WORSE,
    VERDICT_NOISE,        /* the two files' run ranges overlap */
    VERDICT_ONLY_BASE,    /* missing from the current file */
    VERDICT_ONLY_CURRENT, /* missing from the base file */
} verdict;

/* "better", "worse", "within noise", "only in base", "only in current". */
const char *verdict_name(verdict v);

typedef struct comparison {
    const char *name;         /* lent from a metric */
    const metric *base, *cur; /* lent; NULL where absent */
    double change_pct;        /* (cur - base) / |base| * 100; NAN unless both exist
                               * and base is not 0 */
    double worse_pct;         /* how far in the bad direction, in percent: the change
                               * for latencies, minus it for throughput; 0 when not
                               * worse, INFINITY when base is 0 and cur is worse */
    bool overlap;             /* both ranges known and overlapping */
    verdict v;
} comparison;

/* Compares every metric of base with current: base's metrics in base's order,
 * then those only in current in current's order. The verdict is within noise
 * when the ranges overlap or the values are equal, else better or worse by the
 * metric's direction. Returns 0 and *out[*n] (the caller frees *out; it lends
 * base and cur, which must outlive it), or -1 when out of memory. */
int compare_results(const result_file *base, const result_file *cur, comparison **out, size_t *n);

/* Sentences that make a comparison suspect: the spec files differ (by
 * SHA-256), the machines differ (cpu_model, cores, memory_bytes), the builds
 * differ (build_type, build_flags). Returns how many, and *out (the caller
 * frees each and the array; NULL when none). -1 when out of memory. */
int compare_warnings(const result_file *base, const result_file *cur, char ***out);

/* Whether the gate fails c at threshold_pct: the metric is missing from a file,
 * or worse than threshold_pct in its bad direction (ranges overlapping or not). */
bool gate_fails(const comparison *c, double threshold_pct);

/* Whether name matches pattern: fnmatch(3) glob ('*' also matches dots), or
 * equality when the pattern has no '*', '?' or '['. */
bool metric_matches(const char *pattern, const char *name);

/* A metric's value as the reports print it, into buf[n]: throughput with
 * thousands separators (1,462,459), latencies in µs as the Markdown report
 * rounds them, drift with two decimals; "missing" for a NULL metric. */
void metric_format(const metric *m, char *buf, size_t n);

#endif
