/* cli_table.c: bench's commands and what each exit status means for each:
 * the tables that --help, the manual pages (cli_man.c) and the dispatch
 * (cli.c) share, so that each of them reads them from here. */
#include "cli_table.h"

#include <stdio.h>
#include <string.h>

/* The exit statuses: one meaning per status (the rows without a command),
 * and what each command means by the ones it can return. `bench --help`
 * prints the first, `bench COMMAND --help` its own; docs/cli.md is the same
 * table and tests/test_cli.c has a row for every status of every command. */
typedef struct exit_code_row {
    int status;
    const char *command; /* NULL: the meaning in general */
    const char *meaning;
} exit_code_row;

static const exit_code_row exit_codes[] = {
    {EXIT_CLEAN, NULL, "the command did what it was asked"},
    {EXIT_FAILED, NULL,
     "what it checked or ran failed: a spec has errors (in every command that\n"
     "reads one), a run, a verify or a gate failed"},
    {EXIT_USAGE, NULL,
     "usage: bad options or arguments, an input that cannot be read, or an\n"
     "output path that cannot be written (found before any work)"},
    {EXIT_OUTPUT, NULL,
     "an output could not be written at the end; bench run saves the results\n"
     "to a fallback file and names it"},
    {EXIT_INTERRUPTED, NULL,
     "interrupted (SIGINT, SIGTERM, SIGHUP); what finished is still written"},

    {EXIT_CLEAN, "lint", "every spec is clean (warnings allowed without --strict)"},
    {EXIT_FAILED, "lint", "a spec has errors (with --strict, warnings too)"},
    {EXIT_USAGE, "lint", "usage error, or a spec cannot be read"},
    {EXIT_OUTPUT, "lint", "stdout could not be written"},
    {EXIT_CLEAN, "plan", "the plan is printed"},
    {EXIT_FAILED, "plan", "the spec has errors"},
    {EXIT_USAGE, "plan", "usage error, or the spec cannot be read"},
    {EXIT_OUTPUT, "plan", "stdout could not be written"},
    {EXIT_CLEAN, "run", "everything ran (skips allowed)"},
    {EXIT_FAILED, "run", "a spec has errors, a run or a verify failed, or nothing ran"},
    {EXIT_USAGE, "run",
     "usage error, a spec cannot be read, or --output or --samples cannot\n"
     "be written (checked before the first run)"},
    {EXIT_OUTPUT, "run",
     "the results or the samples could not be written after the runs; the\n"
     "results are saved to a fallback file, named on stderr"},
    {EXIT_INTERRUPTED, "run", "interrupted; what finished is still written"},
    {EXIT_CLEAN, "targets", "listed"},
    {EXIT_USAGE, "targets", "usage error"},
    {EXIT_OUTPUT, "targets", "stdout could not be written"},
    {EXIT_CLEAN, "schema", "printed"},
    {EXIT_FAILED, "schema", "SPEC has errors"},
    {EXIT_USAGE, "schema", "usage error, or SPEC cannot be read"},
    {EXIT_OUTPUT, "schema", "stdout could not be written"},
    {EXIT_CLEAN, "serve", "stdin ended, or SIGTERM, SIGINT or SIGHUP stopped it"},
    {EXIT_FAILED, "serve",
     "the spec has errors, the store cannot be opened, (--listen) the address\n"
     "cannot be listened on, or reading a request or writing an answer failed"},
    {EXIT_USAGE, "serve", "usage error, or the spec cannot be read"},
    {EXIT_CLEAN, "compare", "compared"},
    {EXIT_USAGE, "compare", "usage error, or a result file cannot be read or is not one"},
    {EXIT_OUTPUT, "compare", "stdout could not be written"},
    {EXIT_CLEAN, "gate", "passed"},
    {EXIT_FAILED, "gate",
     "a regression beyond the threshold, a metric missing, or (--ab) a run that failed"},
    {EXIT_USAGE, "gate",
     "usage error, a result file unreadable or invalid, or (--ab) a binary that cannot be run "
     "or refused RUN_ARGS"},
    {EXIT_OUTPUT, "gate", "stdout could not be written"},
    {EXIT_CLEAN, "report", "the page (or, with --format, the report) is written"},
    {EXIT_USAGE, "report",
     "usage error, the result file (or --baseline's) cannot be read or is not\n"
     "one, or the page's path cannot be written (checked before reading)"},
    {EXIT_OUTPUT, "report", "the page (or the report) could not be written"},
    {EXIT_CLEAN, "clean", "cleaned (a postgres server that cannot be reached is skipped)"},
    {EXIT_FAILED, "clean", "--store postgres: the server cannot be reached"},
    {EXIT_USAGE, "clean", "usage error"},
    {EXIT_OUTPUT, "clean", "stdout could not be written"},
    {EXIT_CLEAN, "merge", "merged"},
    {EXIT_USAGE, "merge",
     "usage error, a result file unreadable or invalid, or shards that do not\n"
     "merge: not shards, different specs, seeds, layouts or versions, a shard\n"
     "given twice or missing"},
    {EXIT_OUTPUT, "merge", "the merged result (or --hlog) could not be written"},
    {EXIT_CLEAN, "setup", "the store is made and holds the setup steps' records"},
    {EXIT_FAILED, "setup",
     "the spec has errors, the store exists already or cannot be made, or a\n"
     "setup step failed (the store is removed again)"},
    {EXIT_USAGE, "setup", "usage error, or the spec cannot be read"},
    {EXIT_OUTPUT, "setup", "stdout could not be written"},
    {EXIT_CLEAN, "teardown", "the store is removed"},
    {EXIT_FAILED, "teardown",
     "the spec has errors, or there is no such store or it cannot be removed"},
    {EXIT_USAGE, "teardown", "usage error, or the spec cannot be read"},
    {EXIT_OUTPUT, "teardown", "stdout could not be written"},
    {EXIT_CLEAN, "verify", "the store holds what the setup and the shards left (or n/a)"},
    {EXIT_FAILED, "verify",
     "the spec has errors, the store holds something else, or it cannot be\n"
     "opened or counted"},
    {EXIT_USAGE, "verify",
     "usage error, the spec or the result file cannot be read, or the result\n"
     "did not run on a named store"},
    {EXIT_OUTPUT, "verify", "stdout could not be written"},
};

bool cli_exit_code(const char *cmd, size_t i, int *status, const char **meaning)
{
    for (size_t k = 0; k < sizeof exit_codes / sizeof *exit_codes; k++) {
        const exit_code_row *e = &exit_codes[k];
        if (cmd ? !e->command || strcmp(e->command, cmd) != 0 : e->command != NULL)
            continue;
        if (i-- == 0) {
            *status = e->status;
            *meaning = e->meaning;
            return true;
        }
    }
    return false;
}

void cli_print_exit_codes(const char *cmd, FILE *out)
{
    fputs("exit status:\n", out);
    int status;
    const char *meaning;
    for (size_t i = 0; cli_exit_code(cmd, i, &status, &meaning); i++) {
        fprintf(out, "  %3d  ", status);
        for (const char *p = meaning; *p; p++) { /* continuation lines indented */
            fputc(*p, out);
            if (*p == '\n')
                fputs("       ", out);
        }
        fputc('\n', out);
    }
}

/* The commands, in the order --help lists them, each with the line it
 * shows there and in the NAME of its manual page. */
typedef struct command_entry {
    const char *name;
    const char *summary;
} command_entry;

static const command_entry commands[] = {
    {"lint", "check specs: structure, names, types, expressions"},
    {"plan", "print the compiled plan of a spec for review"},
    {"run", "run specs against their targets and report the figures"},
    {"targets", "list the targets, whether each can run here, and their options"},
    {"schema", "print the spec schema (JSON Schema) that lint checks against"},
    {"compare", "compare two result files metric by metric"},
    {"gate", "fail when a metric got worse than a threshold against a baseline"},
    {"report", "write a result file as an HTML page with charts, or as run printed it"},
    {"serve", "serve a spec's domain as a JSON-lines runtime (stdio, or a socket)"},
    {"clean", "remove the scratch stores of runs that were killed outright"},
    {"merge", "merge the result files of a run's shards into one result"},
    {"setup", "make a named store (postgres schema, sqlite file) for shards to share"},
    {"teardown", "remove a named store that bench setup made"},
    {"verify", "check a named store against the merged shards' tallies"},
};
enum { NCOMMANDS = sizeof commands / sizeof *commands };
_Static_assert(sizeof commands / sizeof *commands == CLI_NCOMMANDS, "cli.h counts the commands");

bool cli_command(size_t i, const char **name, const char **summary)
{
    if (i >= NCOMMANDS)
        return false;
    *name = commands[i].name;
    *summary = commands[i].summary;
    return true;
}
