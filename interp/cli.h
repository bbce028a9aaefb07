/* cli.h: the command line: `bench COMMAND [options] [args]`. */
#ifndef BENCH_CLI_H
#define BENCH_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "load.h"

/* Exit statuses, one meaning each across every command; cli_table.c's table
 * (printed by --help) says what each command means by each. */
enum {
    EXIT_CLEAN = 0,
    EXIT_FAILED = 1, /* what was checked or run failed: a spec has errors, a run,
                        a verify or a gate failed */
    EXIT_USAGE = 2,  /* bad usage, unreadable input, an output path that cannot
                        be written (found before any work) */
    EXIT_OUTPUT = 3, /* an output could not be written at the end (bench run
                        saves the results to a fallback file and names it) */
    EXIT_INTERRUPTED = 130,
};

/* The tables of cli_table.c: bench's commands (CLI_NCOMMANDS of them) and
 * the exit statuses of each. */
enum { CLI_NCOMMANDS = 14 };
/* Row i (from 0) of the exit statuses cmd lists (NULL: their meanings
 * across the commands) into *status and *meaning (lent); false past the last. */
bool cli_exit_code(const char *cmd, size_t i, int *status, const char **meaning);
/* Command i (from 0) of bench's commands, in --help's order: its name and
 * the one line --help shows for it (lent); false past the last. */
bool cli_command(size_t i, const char **name, const char **summary);

/* Prints "exit status:" and the table's rows for cmd (NULL: what each status
 * means across the commands) to out. */
void cli_print_exit_codes(const char *cmd, FILE *out);

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
/* Writes usage, the help text of cmd (NULL: the top level) in the layout
 * every --help uses, as the roff source of its manual page: bench-CMD(1),
 * or bench(1). cli_man.c; bench --man DIR calls it through cli_help. */
void cli_man_write(FILE *out, const char *cmd, const char *usage);
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
