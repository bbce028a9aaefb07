/* cli.h: the command line: `bench COMMAND [options] [args]`. */
#ifndef BENCH_CLI_H
#define BENCH_CLI_H

#include <stdio.h>

#include "diag.h"
#include "load.h"

/* Exit statuses, as DESIGN section 5 and pgbench users expect. */
enum {
    EXIT_CLEAN = 0,
    EXIT_FAILED = 1, /* a spec has errors; a run or verify failed */
    EXIT_USAGE = 2,  /* bad usage, unreadable input */
    EXIT_INTERRUPTED = 130,
};

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
int cli_serve(int argc, char **argv); /* serve.c */

/* Prints "bench COMMAND: message" to stderr and returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints diagnostics in the chosen format; text mode shows caret lines from dc. */
void cli_print_diags(const diag_list *d, const doc *dc, int format, FILE *out);

#endif
