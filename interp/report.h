/* report.h: what `bench run` writes (DESIGN section 6): JSON described by
 * schema/result.schema.json, Markdown for people, CSV one row per result, and
 * the atomic write of any of them. Every writer lends the report and returns
 * 0, or -1 when out of memory or when out reports a write error. */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include <stdio.h>

#include <cjson/cJSON.h>

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

/* The rounding the Markdown uses, exported for tests and docs. Each writes a
 * NUL-terminated string into buf[n] (truncated if n is too small), and "n/a"
 * for NAN or infinity.
 *
 * report_fmt_throughput: the nearest integer (halves away from zero) with
 *     thousands separators: 53849.5 -> "53,850".
 * report_fmt_us: a latency given in ns, first rounded to a whole ns (halves
 *     away from zero), exactly as the JSON's µs figure, then shown in µs with
 *     at least three significant digits: three decimals below 10 µs (the JSON
 *     figure itself: 449.6 -> "0.450"), two below 100 µs (to 10 ns, halves up:
 *     12345 -> "12.35"), one from 100 µs (to 100 ns, halves up: 1476950 ->
 *     "1,477.0", 999950 -> "1,000.0"), with thousands separators.
 * report_fmt_drift: two decimals, rounded to nearest from the double's exact
 *     binary value as printf's "%.2f" does: 1.1071 -> "1.11". */
void report_fmt_throughput(double v, char *buf, size_t n);
void report_fmt_us(double ns, char *buf, size_t n);
void report_fmt_drift(double d, char *buf, size_t n);

/* The target cell of a result: its label, "@N" when prefill > 0, and the
 * durability in parentheses when there is one ("sqlite@1000 (normal)"). */
void report_target_cell(const target_result *t, char *buf, size_t n);

/* The JSON's own number texts, shared with the CSV; "" when absent (NAN or
 * infinity). report_fmt_us3: ns as µs with three decimals, from round(ns)
 * (halves away from zero): 1476950.4 -> "1476.950". report_fmt_double: the
 * shortest "%.15g".."%.17g" text that strtod reads back as exactly v. */
void report_fmt_us3(double ns, char *buf, size_t n);
void report_fmt_double(double v, char *buf, size_t n);

/* The figures the reports print for t: its median and throughput range, or
 * every figure absent (NAN, commands 0) when no run finished, whatever the
 * struct holds then. */
void report_result_figures(const target_result *t, run_figures *median, double *lo, double *hi);
/* A result's median across its runs of the round-trip floor and of the round
 * trips per command (NAN when no run has one). */
double report_roundtrip_floor_ns(const target_result *t);
double report_round_trips_per_command(const target_result *t);

#endif
