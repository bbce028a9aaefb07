/* cli.h: the command line: `bench COMMAND [options] [args]`. */
#ifndef BENCH_CLI_H
#define BENCH_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli_table.h"
#include "diag.h"
#include "load.h"

/* Runs bench with argv; returns the exit status. */
int cli_main(int argc, char **argv);

/* The subcommands; each parses its own options from argv[0] = its name. */
int cli_lint(int argc, char **argv);
int cli_plan(int argc, char **argv);
int cli_run(int argc, char **argv);
int cli_targets(int argc, char **argv);
int cli_schema(int argc, char **argv);  /* cli_run.c, beside targets */
int cli_compare(int argc, char **argv); /* cli_compare.c: compare, gate, report */
int cli_gate(int argc, char **argv);
int cli_report(int argc, char **argv);
int cli_serve(int argc, char **argv); /* cli_serve.c */
int cli_clean(int argc, char **argv); /* cli_clean.c */
int cli_merge(int argc, char **argv); /* cli_merge.c */
int cli_setup(int argc, char **argv); /* cli_store.c: setup, teardown, verify */
int cli_teardown(int argc, char **argv);
int cli_verify(int argc, char **argv);
/* --shard I/N into *index and *count (0 <= I < N <= CLI_MAX_SHARDS);
 * returns 0, or the usage error (reported). cli_store.c. */
int cli_parse_shard(const char *cmd, const char *s, int64_t *index, int64_t *count);
/* A wall-clock instant (seconds since the epoch, or YYYY-MM-DDTHH:MM:SS[.f]Z)
 * for option opt into *out; returns 0, or the usage error (reported). */
int cli_parse_time(const char *cmd, const char *opt, const char *s, double *out);
/* --schema NAME: 0 when NAME can be a named postgres schema, else the usage
 * error (reported). */
int cli_check_schema(const char *cmd, const char *name);

/* Prints usage, a blank line and cmd's exit statuses to stdout; returns
 * EXIT_CLEAN. cmd NULL: the top level. */
int cli_help(const char *cmd, const char *usage);
/* Refuses a single-valued option given twice: bit (below 64) is flag's bit
 * in *seen. Returns 0 the first time, else the usage error (reported)
 * "bench CMD: FLAG given twice". */
int cli_once(const char *cmd, const char *flag, uint64_t *seen, unsigned bit);
/* Prints "bench COMMAND: message" to stderr and returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A whole number of at least min for option opt of cmd into *out; returns
 * 0, or the usage error (reported) when s is not one. */
int cli_parse_count(const char *cmd, const char *opt, const char *s, int64_t min, int64_t *out);
/* The same, refusing a number above max ("from min to max"). */
int cli_parse_bounded(const char *cmd, const char *opt, const char *s, int64_t min, int64_t max,
                      int64_t *out);

/* The most a count from the user may be, on the command line as in a spec
 * (schema/spec.schema.json says the same maximum): every product the
 * plan's totals and the runner's buffers take of them then fits in 64 bits
 * or is refused where it is made. */
#define CLI_MAX_CYCLES INT64_C(1000000000000000) /* iterations, warmup, prefill: 10^15 */
#define CLI_MAX_RUNS 10000
#define CLI_MAX_CLIENTS 10000    /* clients (and --threads): each is a session */
#define CLI_MAX_PROGRESS_S 86400 /* --progress: a day */
#define CLI_MAX_SHARDS 10000     /* --shard I/N: N at most */
/* Prints diagnostics in the chosen format; text mode shows caret lines from dc. */
void cli_print_diags(const diag_list *d, const doc *dc, int format, FILE *out);

#endif
