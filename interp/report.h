/* report.h: what `bench run` writes (DESIGN section 6): JSON described by
 * schema/result.schema.json, Markdown for people, CSV one row per result, and
 * the atomic write of any of them. Every writer lends the report and returns
 * 0, or -1 when out of memory or when out reports a write error. */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "error.h"
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
/* bench run --hlog: every run's intervals in HdrHistogram's interval-log
 * format, one tag per run and per verb. Returns 0, or -1 with e set. */
int report_hlog(const report *r, FILE *out, bench_error *e);

/* The formats `bench run --format` writes, one row each: the table that the
 * option's parsing, its usage line and its error message read. */
typedef struct report_format {
    const char *name; /* as --format takes it */
    const char *ext;  /* a file name's extension, for the fallback file */
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

/* Checks, before any work, that path can be written: "-" (stdout); an
 * existing file that is not a directory and that bench may write (a regular
 * one also needs its directory writable, for the temporary beside it); or a
 * new name in a directory that exists and that bench may make files in.
 * Symlinks are followed. Returns 0, or -1 with one sentence naming path in
 * err[size] (may be NULL). */
int output_check(const char *path, char *err, size_t size);

/* A file being written so that what it replaces changes all at once. */
typedef struct atomic_file {
    FILE *f;      /* write here */
    char *path;   /* as given, for messages */
    char *target; /* the file changed: a symlink's target, or path; NULL for stdout */
    char *tmp;    /* the temporary beside target, renamed over it at commit;
                     NULL when f writes in place (stdout, a FIFO, a device) */
} atomic_file;

/* Opens path for writing: "-" is stdout; a symlink is followed and its
 * target written; an existing file that is not a regular one (a FIFO, a
 * character device, a socket) is written in place, never replaced; anything
 * else is a temporary made by mkstemp beside the target (with the old file's
 * mode, or 0666 less the umask for a new one). Returns 0, or -1 with one
 * sentence in err[size] (may be NULL); either way *af is set so that
 * atomic_file_abort is safe. */
int atomic_file_open(const char *path, atomic_file *af, char *err, size_t size);
/* Flushes af (and fsyncs and renames a temporary over its target); a write
 * error, such as ENOSPC from /dev/full, is a failure. Returns 0, or -1 with
 * one sentence in err; on failure the temporary is removed and the target
 * holds what it held. Releases af either way. */
int atomic_file_commit(atomic_file *af, char *err, size_t size);
/* Releases af without committing: the temporary is removed. */
void atomic_file_abort(atomic_file *af);

/* Writes content to path as atomic_file_open says: writer(out, ctx) writes
 * it (returns 0, or nonzero on failure). Returns 0, or -1 with one sentence
 * in err[size] (may be NULL); on failure a replaced file is untouched. */
int write_atomic(const char *path, int (*writer)(FILE *out, const void *ctx), const void *ctx,
                 char *err, size_t size);
/* The same for a report: writer(r, out). */
int report_write_atomic(const char *path, int (*writer)(const report *, FILE *), const report *r,
                        char *err, size_t size);
/* When the path asked for could not be written: writes the content to
 * $TMPDIR (else /tmp)/bench-results-PID-YYYYMMDD-HHMMSS.EXT atomically and
 * puts that path in path[path_size]. Returns 0, or -1 with one sentence in
 * err[size]. */
int write_fallback(const char *ext, int (*writer)(FILE *out, const void *ctx), const void *ctx,
                   char *path, size_t path_size, char *err, size_t size);
int report_write_fallback(const char *ext, int (*writer)(const report *, FILE *), const report *r,
                          char *path, size_t path_size, char *err, size_t size);

/* The figures the reports print for t: its median and throughput range, or
 * every figure absent (NAN, commands 0) when no run finished, whatever the
 * struct holds then. */
void report_result_figures(const target_result *t, run_figures *median, double *lo, double *hi);
/* A result's median across its runs of the round-trip floor and of the round
 * trips per command (NAN when no run has one). */
double report_roundtrip_floor_ns(const target_result *t);
double report_round_trips_per_command(const target_result *t);

#endif
