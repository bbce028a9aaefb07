/* cli.c: the top-level command line and the commands that only read specs
 * (lint, plan). */
#include "cli.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "diag.h"
#include "spec.h"

/* The top-level help: the command list between the two comes from the
 * commands table at the end of this file. */
static const char usage_top_head[] =
    "usage: bench [--version] [--help] COMMAND [ARGS]\n"
    "       bench --man DIR\n"
    "\n"
    "Checks workload specs, compiles them into dispatch plans and runs them\n"
    "against targets with one timing loop. --man writes the manual pages\n"
    "(bench.1 and bench-COMMAND.1, made from this help) into DIR.\n"
    "\n"
    "commands:\n";
static const char usage_top_tail[] = "\n"
                                     "Run 'bench COMMAND --help' for a command's options.\n";

static const char usage_lint[] =
    "usage: bench lint [--format text|json|github] [--strict] FILE...\n"
    "\n"
    "Checks each spec against the schema and the meaning rules and prints\n"
    "every problem as file:line:col: error: message.\n"
    "\n"
    "  --format FMT   text (default, with the source line and a caret),\n"
    "                 json, or github (workflow annotations)\n"
    "  --strict       treat warnings as errors\n"
    "  -h, --help     show this help\n"
    "\n"
    "FILE '-' reads a spec from stdin, named <stdin> in diagnostics.\n";

static const char usage_plan[] =
    "usage: bench plan [--format text|json] [--trace N [--seed N]] SPEC\n"
    "\n"
    "Prints the compiled plan: the domain as the compiler understood it, the\n"
    "setup and cycle steps (or the mix's flows) with their templates, the\n"
    "totals a run leaves in the store, and the targets with their options.\n"
    "\n"
    "  --format FMT   text (default) or json\n"
    "  --trace N      instead, the first N cycles of run 1 as drawn: each cycle's\n"
    "                 phase and flow, each step's arguments and outcome, run on\n"
    "                 the in-process memory store\n"
    "  --seed N       the seed of the trace's draws instead of workload.seed\n"
    "  -h, --help     show this help\n";

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

/* bench --man: while set, cli_help writes the page of the help it is given
 * here instead of printing the help. */
static FILE *man_out;

int cli_help(const char *cmd, const char *usage)
{
    if (man_out) {
        cli_man_write(man_out, cmd, usage);
        return EXIT_CLEAN;
    }
    fputs(usage, stdout);
    fputc('\n', stdout);
    cli_print_exit_codes(cmd, stdout);
    return EXIT_CLEAN;
}

int cli_once(const char *cmd, const char *flag, uint64_t *seen, unsigned bit)
{
    if (*seen & (UINT64_C(1) << bit))
        return cli_usage_error(cmd, "%s given twice", flag);
    *seen |= UINT64_C(1) << bit;
    return 0;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "bench %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see 'bench %s --help')\n", cmd);
    va_end(ap);
    return EXIT_USAGE;
}

int cli_parse_count(const char *cmd, const char *opt, const char *s, int64_t min, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < min)
        return cli_usage_error(cmd, "%s needs a whole number of at least %" PRId64 ", not '%s'",
                               opt, min, s);
    *out = v;
    return 0;
}

int cli_parse_bounded(const char *cmd, const char *opt, const char *s, int64_t min, int64_t max,
                      int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        return cli_usage_error(cmd,
                               "%s needs a whole number from %" PRId64 " to %" PRId64 ", not '%s'",
                               opt, min, max, s);
    *out = v;
    return 0;
}

static void print_diags_json(const diag_list *d, FILE *out)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "errors", (double)d->errors);
    cJSON_AddNumberToObject(root, "warnings", (double)d->warnings);
    cJSON *a = cJSON_AddArrayToObject(root, "diagnostics");
    for (size_t i = 0; i < d->count; i++) {
        const diag *g = &d->items[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "file", g->file ? g->file : "");
        cJSON_AddNumberToObject(o, "line", g->line);
        cJSON_AddNumberToObject(o, "col", g->col);
        cJSON_AddStringToObject(o, "severity", g->severity == DIAG_ERROR ? "error" : "warning");
        cJSON_AddStringToObject(o, "message", g->message);
        if (g->path)
            cJSON_AddStringToObject(o, "path", g->path);
        else
            cJSON_AddNullToObject(o, "path");
        cJSON_AddItemToArray(a, o);
    }
    char *s = cJSON_Print(root);
    if (s)
        fprintf(out, "%s\n", s);
    free(s);
    cJSON_Delete(root);
}

void cli_print_diags(const diag_list *d, const doc *dc, int format, FILE *out)
{
    diag_cursor src = dc ? diag_cursor_at(dc->source, dc->len) : (diag_cursor){0};
    for (size_t i = 0; i < d->count; i++) {
        const diag *g = &d->items[i];
        if (format == DIAG_FORMAT_GITHUB)
            diag_print_github(out, g);
        else
            diag_print_text(out, g, dc ? &src : NULL);
    }
}

static int parse_format(const char *cmd, const char *arg, bool allow_github, int *out)
{
    if (!strcmp(arg, "text"))
        *out = DIAG_FORMAT_TEXT;
    else if (!strcmp(arg, "json"))
        *out = DIAG_FORMAT_JSON;
    else if (allow_github && !strcmp(arg, "github"))
        *out = DIAG_FORMAT_GITHUB;
    else
        return cli_usage_error(cmd, "unknown format '%s'; use %s", arg,
                               allow_github ? "text, json or github" : "text or json");
    return 0;
}

int cli_lint(int argc, char **argv)
{
    static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                         {"strict", no_argument, NULL, 's'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int format = DIAG_FORMAT_TEXT, c;
    bool strict = false;
    uint64_t seen = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":hf:", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (cli_once("lint", "--format", &seen, 0) ||
                parse_format("lint", optarg, true, &format))
                return EXIT_USAGE;
            break;
        case 's': strict = true; break;
        case 'h': return cli_help("lint", usage_lint);
        case ':': return cli_usage_error("lint", "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error("lint", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_usage_error("lint", "no spec given");
    int status = EXIT_CLEAN;
    diag_list all = {0};
    for (int i = optind; i < argc; i++) {
        diag_list d = {0};
        spec s;
        spec_status st = spec_check(argv[i], &d, &s);
        diag_sort(&d);
        if (st == SPEC_IO) { /* not a finding about a spec: bench could not read it */
            cli_print_diags(&d, NULL, DIAG_FORMAT_TEXT, stderr);
        } else if (format == DIAG_FORMAT_JSON) {
            for (size_t k = 0; k < d.count; k++)
                diag_copy(&all, &d.items[k]);
        } else {
            cli_print_diags(&d, s.dc, format, stdout);
        }
        if (st == SPEC_IO)
            status = EXIT_USAGE;
        else if ((d.errors || (strict && d.warnings)) && status == EXIT_CLEAN)
            status = EXIT_FAILED;
        spec_close(&s);
        diag_list_free(&d);
    }
    if (format == DIAG_FORMAT_JSON)
        print_diags_json(&all, stdout);
    diag_list_free(&all);
    return status;
}

int cli_plan(int argc, char **argv)
{
    static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                         {"trace", required_argument, NULL, 't'},
                                         {"seed", required_argument, NULL, 's'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int format = DIAG_FORMAT_TEXT, c;
    int64_t trace = -1, seed = -1;
    uint64_t seen = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":hf:", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (cli_once("plan", "--format", &seen, 0) ||
                parse_format("plan", optarg, false, &format))
                return EXIT_USAGE;
            break;
        case 't':
            if (cli_once("plan", "--trace", &seen, 1) ||
                cli_parse_count("plan", "--trace", optarg, 1, &trace))
                return EXIT_USAGE;
            break;
        case 's':
            if (cli_once("plan", "--seed", &seen, 2) ||
                cli_parse_count("plan", "--seed", optarg, 0, &seed))
                return EXIT_USAGE;
            break;
        case 'h': return cli_help("plan", usage_plan);
        case ':': return cli_usage_error("plan", "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error("plan", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind != 1)
        return cli_usage_error("plan", "give exactly one spec");
    if (seed >= 0 && trace < 0)
        return cli_usage_error("plan", "--seed is for --trace");
    diag_list d = {0};
    spec s;
    spec_status st = spec_open(argv[optind], &d, &s);
    diag_sort(&d);
    cli_print_diags(&d, s.dc, DIAG_FORMAT_TEXT, stderr);
    int status = st == SPEC_IO ? EXIT_USAGE : st == SPEC_INVALID ? EXIT_FAILED : EXIT_CLEAN;
    if (st == SPEC_OK && trace > 0) {
        uint64_t sd = seed >= 0 ? (uint64_t)seed : s.p->work.seed;
        if (plan_trace(s.p, (uint64_t)trace, sd, format == DIAG_FORMAT_JSON, stdout) < 0)
            status = EXIT_FAILED;
    } else if (st == SPEC_OK) {
        if (format == DIAG_FORMAT_JSON)
            plan_print_json(s.p, stdout);
        else
            plan_print_text(s.p, stdout);
    }
    spec_close(&s);
    diag_list_free(&d);
    return status;
}

/* The commands, in the order --help lists them, each with the line it
 * shows there and in the NAME of its manual page. */
typedef struct command_entry {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command_entry;

static const command_entry commands[] = {
    {"lint", cli_lint, "check specs: structure, names, types, expressions"},
    {"plan", cli_plan, "print the compiled plan of a spec for review"},
    {"run", cli_run, "run specs against their targets and report the figures"},
    {"targets", cli_targets, "list the targets, whether each can run here, and their options"},
    {"schema", cli_schema, "print the spec schema (JSON Schema) that lint checks against"},
    {"compare", cli_compare, "compare two result files metric by metric"},
    {"gate", cli_gate, "fail when a metric got worse than a threshold against a baseline"},
    {"report", cli_report, "write a result file as an HTML page with charts, or as run printed it"},
    {"serve", cli_serve, "serve a spec's domain as a JSON-lines runtime (stdio, or a socket)"},
    {"clean", cli_clean, "remove the scratch stores of runs that were killed outright"},
    {"merge", cli_merge, "merge the result files of a run's shards into one result"},
    {"setup", cli_setup, "make a named store (postgres schema, sqlite file) for shards to share"},
    {"teardown", cli_teardown, "remove a named store that bench setup made"},
    {"verify", cli_verify, "check a named store against the merged shards' tallies"},
};
enum { NCOMMANDS = sizeof commands / sizeof *commands };

bool cli_command(size_t i, const char **name, const char **summary)
{
    if (i >= NCOMMANDS)
        return false;
    *name = commands[i].name;
    *summary = commands[i].summary;
    return true;
}

/* The top-level help, its command list from the table; the caller frees. */
static char *usage_top(void)
{
    size_t cap = sizeof usage_top_head + sizeof usage_top_tail, len = 0;
    for (size_t i = 0; i < NCOMMANDS; i++)
        cap += strlen(commands[i].summary) + 16;
    char *s = xmalloc(cap);
    len += (size_t)snprintf(s, cap, "%s", usage_top_head);
    for (size_t i = 0; i < NCOMMANDS; i++)
        len += (size_t)snprintf(s + len, cap - len, "  %-8s %s\n", commands[i].name,
                                commands[i].summary);
    snprintf(s + len, cap - len, "%s", usage_top_tail);
    return s;
}

static int top_help(FILE *out, int status)
{
    char *u = usage_top();
    if (out == stdout)
        cli_help(NULL, u);
    else
        fputs(u, out);
    free(u);
    return status;
}

/* bench --man DIR: each command's help as its page, bench.1 for the top. */
static int write_man_pages(const char *dir)
{
    int status = EXIT_CLEAN;
    for (size_t i = 0; i <= NCOMMANDS && status == EXIT_CLEAN; i++) {
        char path[4096];
        const char *name = i < NCOMMANDS ? commands[i].name : NULL;
        snprintf(path, sizeof path, "%s/bench%s%s.1", dir, name ? "-" : "", name ? name : "");
        if (!(man_out = fopen(path, "w"))) {
            fprintf(stderr, "bench: cannot write %s: %s\n", path, strerror(errno));
            return EXIT_USAGE;
        }
        char *help[] = {(char *)name, "--help", NULL};
        if (name)
            commands[i].run(2, help);
        else
            top_help(stdout, EXIT_CLEAN);
        if (fclose(man_out) != 0) {
            fprintf(stderr, "bench: cannot write %s: %s\n", path, strerror(errno));
            status = EXIT_OUTPUT;
        }
        man_out = NULL;
    }
    return status;
}

/* Whatever a command printed must have reached stdout: a full disk or a
 * closed pipe is EXIT_OUTPUT, not success (nor a failed check). */
static int finish_stdout(const char *cmd, int status)
{
    errno = 0;
    bool written = fflush(stdout) == 0 && !ferror(stdout);
    if (written || status == EXIT_OUTPUT) /* a command that said so already */
        return status;
    fprintf(stderr, "bench %s: cannot write to stdout: %s\n", cmd,
            errno ? strerror(errno) : "write error");
    return status == EXIT_USAGE || status == EXIT_INTERRUPTED ? status : EXIT_OUTPUT;
}

static void print_version(void)
{
    printf("bench %s (commit %s, %s build, sanitizers %s)\n", BENCH_VERSION, BENCH_COMMIT,
           BENCH_BUILD_TYPE, BENCH_SANITIZERS);
}

int cli_main(int argc, char **argv)
{
    if (argc < 2)
        return top_help(stderr, EXIT_USAGE);
    /* cJSON's own allocation failures would print nothing: out of memory is
     * one message and exit 1, wherever it happens */
    cJSON_InitHooks(&(cJSON_Hooks){.malloc_fn = xmalloc, .free_fn = free});
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
        return top_help(stdout, EXIT_CLEAN);
    if (!strcmp(cmd, "--man")) {
        if (argc == 3)
            return write_man_pages(argv[2]);
        fputs("bench: --man takes the directory to write the pages into\n", stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V") || !strcmp(cmd, "version")) {
        print_version();
        return EXIT_CLEAN;
    }
    if (!strcmp(cmd, "help")) {
        if (argc < 3)
            return top_help(stdout, EXIT_CLEAN);
        char *sub[] = {argv[2], "--help", NULL};
        cmd = argv[2];
        for (size_t i = 0; i < NCOMMANDS; i++)
            if (!strcmp(commands[i].name, cmd))
                return commands[i].run(2, sub);
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(commands[i].name, cmd))
            return finish_stdout(cmd, commands[i].run(argc - 1, argv + 1));
    const char *names[NCOMMANDS];
    for (size_t i = 0; i < NCOMMANDS; i++)
        names[i] = commands[i].name;
    const char *hint = diag_suggest(cmd, names, sizeof names / sizeof *names);
    if (hint)
        fprintf(stderr, "bench: '%s' is not a command; did you mean '%s'?\n", cmd, hint);
    else
        fprintf(stderr, "bench: '%s' is not a command (see 'bench --help')\n", cmd);
    return EXIT_USAGE;
}
