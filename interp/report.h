/* report.h: what `bench run` writes (DESIGN section 6): JSON described by
 * schema/result.schema.json, Markdown for people, CSV one row per result, and
 * the atomic write of any of them. Every writer lends the report and returns
 * 0, or -1 when out of memory or when out reports a write error. */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "report_fmt.h"
#include "results.h"

/* The JSON report, one document and a newline. Latencies are printed as µs
 * with exactly three decimals (the ns figure rounded to a whole ns); other
 * figures with the shortest text that reads back as the same double, so that
 * anything rounded from the JSON equals what was rounded from the report. */
int report_json(const report *r, FILE *out);
/* The Markdown report: environment bullets, the settings sentence, the table,
 * verify lines, floors, skipped, failed, interrupted. */
int report_markdown(const report *r, FILE *out);
/* CSV: a header and one row per result (median figures), LF line ends,
 * RFC 4180 quoting where a field needs it, an empty field for an absent figure. */
int report_csv(const report *r, FILE *out);

/* The formats `bench run --format` writes, one row each: the table that the
 * option's parsing, its usage line and its error message read. */
typedef struct report_format {
    const char *name; /* as --format takes it */
    int (*write)(const report *r, FILE *out);
} report_format;

/* The rows, ending in a row whose name is NULL; the first is the default. */
extern const report_format report_formats[];
/* The row of that name, or NULL. */
const report_format *report_format_find(const char *name);
/* The names as a phrase into buf[n]: "markdown, json or csv", with
 * " (default)" after the first when mark_default is set. */
void report_format_names(bool mark_default, char *buf, size_t n);

/* The JSON report as a tree, the caller's to cJSON_Delete. Its numbers are
 * plain cJSON numbers (a latency is round(ns) / 1000.0), so cJSON_GetNumberValue
 * works on every figure; absent figures are null. NULL when out of memory. */
cJSON *report_to_cjson(const report *r);

/* Writes the report to path atomically: writer(r, tmp) into a temporary file
 * made by mkstemp in path's directory, fflush, fsync, then rename over path
 * (mode 0666 less the umask). Returns 0, or -1 with one sentence in err[size]
 * (may be NULL); on failure the temporary is removed and path is untouched. */
int report_write_atomic(const char *path, int (*writer)(const report *, FILE *), const report *r,
                        char *err, size_t size);
/* The same for any content: writer(tmp, ctx) writes it (returns 0, or
 * nonzero on failure). */
int write_atomic(const char *path, int (*writer)(FILE *out, const void *ctx), const void *ctx,
                 char *err, size_t size);

/* The figures the reports print for t: its median and throughput range, or
 * every figure absent (NAN, commands 0) when no run finished, whatever the
 * struct holds then. */
void report_result_figures(const target_result *t, run_figures *median, double *lo, double *hi);
/* A result's median across its runs of the round-trip floor and of the round
 * trips per command (NAN when no run has one). */
double report_roundtrip_floor_ns(const target_result *t);
double report_round_trips_per_command(const target_result *t);

#endif
