/* cli_table.h: bench's exit statuses, its commands, and what each status
 * means for each command (cli_table.c's tables, which --help, the manual
 * pages and the dispatch read). */
#ifndef BENCH_CLI_TABLE_H
#define BENCH_CLI_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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

#endif
