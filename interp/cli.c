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
#include "cli_man.h"
#include "diag.h"
#include "env.h"
#include "spec.h"

/* The top-level help: the command list between the two comes from the
 * commands table (cli_table.c). */
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

/* What runs each command of cli_table.c's list, in its order. */
static int (*const runs[])(int argc, char **argv) = {
    cli_lint,   cli_plan,  cli_run,   cli_targets, cli_schema, cli_compare,  cli_gate,
    cli_report, cli_serve, cli_clean, cli_merge,   cli_setup,  cli_teardown, cli_verify,
};
_Static_assert(sizeof runs / sizeof *runs == CLI_NCOMMANDS, "a command without its run");
enum { NCOMMANDS = CLI_NCOMMANDS };

/* Command i's name. */
static const char *command_name(size_t i)
{
    const char *name, *summary;
    return cli_command(i, &name, &summary) ? name : NULL;
}

/* The top-level help, its command list from the table; the caller frees. */
static char *usage_top(void)
{
    size_t cap = sizeof usage_top_head + sizeof usage_top_tail, len = 0;
    const char *name, *summary;
    for (size_t i = 0; cli_command(i, &name, &summary); i++)
        cap += strlen(summary) + 16;
    char *s = xmalloc(cap);
    len += (size_t)snprintf(s, cap, "%s", usage_top_head);
    for (size_t i = 0; cli_command(i, &name, &summary); i++)
        len += (size_t)snprintf(s + len, cap - len, "  %-8s %s\n", name, summary);
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
        const char *name = i < NCOMMANDS ? command_name(i) : NULL;
        snprintf(path, sizeof path, "%s/bench%s%s.1", dir, name ? "-" : "", name ? name : "");
        if (!(man_out = fopen(path, "w"))) {
            fprintf(stderr, "bench: cannot write %s: %s\n", path, strerror(errno));
            return EXIT_USAGE;
        }
        char *help[] = {(char *)name, "--help", NULL};
        if (name)
            runs[i](2, help);
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
    printf("bench %s (commit %s, %s build, sanitizers %s)\n", BENCH_VERSION, bench_commit,
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
            if (!strcmp(command_name(i), cmd))
                return runs[i](2, sub);
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(command_name(i), cmd))
            return finish_stdout(cmd, runs[i](argc - 1, argv + 1));
    const char *names[NCOMMANDS];
    for (size_t i = 0; i < NCOMMANDS; i++)
        names[i] = command_name(i);
    const char *hint = diag_suggest(cmd, names, sizeof names / sizeof *names);
    if (hint)
        fprintf(stderr, "bench: '%s' is not a command; did you mean '%s'?\n", cmd, hint);
    else
        fprintf(stderr, "bench: '%s' is not a command (see 'bench --help')\n", cmd);
    return EXIT_USAGE;
}
