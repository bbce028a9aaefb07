/* cli_compare.c: `bench compare`, `bench gate` and `bench report`, the
 * commands that read result files instead of specs. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "compare.h"
#include "report.h"
#include "report_html.h"

/* The gate's default threshold, in percent, as the seed's example uses. */
#define GATE_DEFAULT_THRESHOLD 10.0

static const char usage_compare[] =
    "usage: bench compare [--format markdown|json] BASE.json CURRENT.json\n"
    "\n"
    "Compares two result files of `bench run --format json`, metric by metric\n"
    "(DOMAIN.LABEL.FIELD, with @N after the label for a prefill size): base,\n"
    "current, change in percent, the p-value of the exact two-sided\n"
    "Mann-Whitney U test over the runs, and a verdict: better or worse\n"
    "(throughput is better higher; latencies and drift lower) only when the\n"
    "two files' run ranges are disjoint and p < 0.05, which takes 4 and 4 runs\n"
    "or more; else within noise, with the reason (ranges overlap, or not\n"
    "significant). Only in base, only in current. Warns in bold when the spec\n"
    "files, the machines or the builds differ.\n"
    "\n"
    "  --format FMT   markdown (default) or json\n"
    "  -h, --help     show this help\n";

static const char usage_gate[] =
    "usage: bench gate [--threshold PCT] [--metric NAME[=PCT]]... BASE.json CURRENT.json\n"
    "       bench gate --ab [--pairs N] [--threshold PCT] [--metric NAME[=PCT]]...\n"
    "                  BIN_A BIN_B -- RUN_ARGS...\n"
    "\n"
    "Fails when a gated metric is a regression beyond PCT percent in its bad\n"
    "direction (throughput lower, latency or drift higher), or is missing from\n"
    "either side. A regression is a change compare calls worse: run ranges\n"
    "disjoint and Mann-Whitney p < 0.05 over the runs (4 and 4 runs or more).\n"
    "A change within noise never fails, however large. One line per gated\n"
    "metric: REGRESSION, missing, ok (worse), ok (better) or ok (within noise),\n"
    "with the reason.\n"
    "\n"
    "With --ab, runs `BIN run RUN_ARGS --quiet --format json --output TMP`\n"
    "for BIN_A and BIN_B alternately, A B A B, N pairs, and gates on the\n"
    "median of the pairs' ratios B/A: a regression is a median beyond PCT\n"
    "with the Wilcoxon signed-rank test over the pairs' log ratios at p < 0.05\n"
    "(6 pairs or more). Prints each pair's ratio. A is the reference.\n"
    "\n"
    "  --threshold PCT  how much worse a metric may get, in percent (default 10)\n"
    "  --metric NAME    gate this metric (repeatable); a glob such as\n"
    "                   '*.throughput_per_s' gates every metric of the base file\n"
    "                   (A's first file) it matches; NAME=PCT gives it its own\n"
    "                   threshold; default: every metric of the base file\n"
    "  --ab             run two binaries interleaved instead of reading two files\n"
    "  --pairs N        with --ab, how many A B pairs (default 8)\n"
    "  -h, --help       show this help\n";

static const char usage_report[] =
    "usage: bench report RESULT.json --html FILE [--baseline BASE.json]\n"
    "       bench report RESULT.json --format FMT\n"
    "\n"
    "Writes one self-contained HTML page (inline CSS and SVG, no script, no\n"
    "network) for a result file of `bench run --format json`: the results\n"
    "table, throughput per target on a log scale with its run range, the latency\n"
    "percentile distribution per target on log scales, p50/p99 per tenth of the\n"
    "timed pass (so that drift shows), cost against store size when the file\n"
    "holds a prefill sweep, each verb and flow with its refusals, and the\n"
    "intervals over time when the runs have them. With --format, prints the\n"
    "result file as `bench run --format FMT` printed it instead.\n"
    "\n"
    "  --html FILE          the page to write: atomically for a regular file (a\n"
    "                       symlink's target is replaced, the link kept), in place\n"
    "                       for a FIFO or a device; '-' is stdout\n"
    "  --baseline BASE.json with --html: a section comparing every metric with\n"
    "                       BASE's (change and verdict, as bench compare BASE RESULT)\n"
    "  --format FMT         markdown, json or csv to stdout, instead of --html\n"
    "  -h, --help           show this help\n";

/* Loads both files; on failure prints the sentence and returns EXIT_USAGE. */
static int load_pair(const char *cmd, char **paths, result_file **base, result_file **cur)
{
    char err[1024];
    *base = *cur = NULL;
    if (result_file_load(paths[0], base, err, sizeof err) < 0 ||
        result_file_load(paths[1], cur, err, sizeof err) < 0) {
        fprintf(stderr, "bench %s: %s\n", cmd, err);
        result_file_free(*base);
        *base = NULL;
        return EXIT_USAGE;
    }
    return 0;
}

static void free_strings(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void format_change(const comparison *c, char *buf, size_t n)
{
    if (!isnan(c->change_pct))
        snprintf(buf, n, "%+.1f%%", c->change_pct + 0.0);
    else if (c->base && c->cur && c->worse_pct > 0)
        snprintf(buf, n, "from 0");
    else
        snprintf(buf, n, "n/a");
}

static void format_p(const comparison *c, char *buf, size_t n)
{
    if (isnan(c->p))
        snprintf(buf, n, "n/a");
    else
        snprintf(buf, n, "%.2g", c->p);
}

/* ---- compare ---------------------------------------------------------------- */

static const char *known(const char *s)
{
    return *s ? s : "unknown";
}

/* Prints s on one line with a Markdown table's '|' escaped. */
static void put_cell(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", out);
        else
            fputc(*s == '\n' ? ' ' : *s, out);
    }
}

static void markdown_file_line(FILE *out, const char *role, const result_file *f)
{
    const environment *e = &f->r->env;
    fprintf(out, "- %s: `%s` (%s, bench %s commit %s, %s", role, f->path, known(e->date),
            known(e->version), known(e->commit), known(e->cpu_model));
    if (*e->label)
        fprintf(out, ", label %s", e->label);
    fputs(")\n", out);
}

static void print_markdown(const result_file *base, const result_file *cur, const comparison *v,
                           size_t n, char **warnings, int nwarnings)
{
    FILE *out = stdout;
    fputs("## bench compare\n\n", out);
    markdown_file_line(out, "base", base);
    markdown_file_line(out, "current", cur);
    for (int i = 0; i < nwarnings; i++) {
        fputs("\n**Warning: ", out);
        put_cell(out, warnings[i]);
        fputs(".**\n", out);
    }
    size_t count[5] = {0};
    fputs("\n| metric | base | current | change | p | verdict |\n|---|---:|---:|---:|---:|---|\n",
          out);
    for (size_t i = 0; i < n; i++) {
        char b[64], c[64], change[32], p[32], why[160];
        metric_format(v[i].base, b, sizeof b);
        metric_format(v[i].cur, c, sizeof c);
        format_change(&v[i], change, sizeof change);
        format_p(&v[i], p, sizeof p);
        fputs("| ", out);
        put_cell(out, v[i].name);
        fprintf(out, " | %s | %s | %s | %s | %s", b, c, change, p, verdict_name(v[i].v));
        if (v[i].v == VERDICT_NOISE) {
            comparison_reason(&v[i], why, sizeof why);
            fprintf(out, " (%s)", why);
        }
        fputs(" |\n", out);
        count[v[i].v]++;
    }
    fprintf(out,
            "\n%zu metrics: %zu better, %zu worse, %zu within noise, %zu only in base, %zu only "
            "in current. Throughput is better higher; latencies (us) and drift are better "
            "lower. p is the exact two-sided Mann-Whitney U test over the runs; a change is "
            "called better or worse only when the two files' run ranges are disjoint and p < "
            "%g, which needs %zu and %zu runs or more; otherwise it is within noise.\n",
            n, count[VERDICT_BETTER], count[VERDICT_WORSE], count[VERDICT_NOISE],
            count[VERDICT_ONLY_BASE], count[VERDICT_ONLY_CURRENT], COMPARE_ALPHA,
            compare_runs_needed(), compare_runs_needed());
    if (base->nnotes + cur->nnotes > 0) {
        fputs("\nNotes:\n", out);
        for (size_t i = 0; i < base->nnotes; i++)
            fprintf(out, "- %s.\n", base->notes[i]);
        for (size_t i = 0; i < cur->nnotes; i++)
            fprintf(out, "- %s.\n", cur->notes[i]);
    }
}

static cJSON *number_or_null(double v)
{
    return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static cJSON *range_json(const metric *m)
{
    if (!m || isnan(m->lo) || isnan(m->hi))
        return cJSON_CreateNull();
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, cJSON_CreateNumber(m->lo));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(m->hi));
    return a;
}

static int print_json(const result_file *base, const result_file *cur, const comparison *v,
                      size_t n, char **warnings, int nwarnings)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "base", base->path);
    cJSON_AddStringToObject(root, "current", cur->path);
    cJSON *w = cJSON_AddArrayToObject(root, "warnings");
    for (int i = 0; i < nwarnings; i++)
        cJSON_AddItemToArray(w, cJSON_CreateString(warnings[i]));
    cJSON *notes = cJSON_AddArrayToObject(root, "notes");
    for (size_t i = 0; i < base->nnotes; i++)
        cJSON_AddItemToArray(notes, cJSON_CreateString(base->notes[i]));
    for (size_t i = 0; i < cur->nnotes; i++)
        cJSON_AddItemToArray(notes, cJSON_CreateString(cur->notes[i]));
    cJSON *metrics = cJSON_AddArrayToObject(root, "metrics");
    for (size_t i = 0; i < n; i++) {
        const comparison *c = &v[i];
        const metric *m = c->base ? c->base : c->cur;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "metric", c->name);
        cJSON_AddStringToObject(o, "better",
                                m->better == METRIC_HIGHER_BETTER ? "higher" : "lower");
        cJSON_AddItemToObject(o, "base", number_or_null(c->base ? c->base->value : NAN));
        cJSON_AddItemToObject(o, "current", number_or_null(c->cur ? c->cur->value : NAN));
        cJSON_AddItemToObject(o, "base_range", range_json(c->base));
        cJSON_AddItemToObject(o, "current_range", range_json(c->cur));
        cJSON_AddItemToObject(o, "change_pct", number_or_null(c->change_pct));
        cJSON_AddBoolToObject(o, "ranges_overlap", c->overlap);
        cJSON_AddStringToObject(o, "test", COMPARE_TEST);
        cJSON_AddItemToObject(o, "p", number_or_null(c->p));
        cJSON_AddNumberToObject(o, "base_runs", (double)c->nb);
        cJSON_AddNumberToObject(o, "current_runs", (double)c->nc);
        cJSON_AddStringToObject(o, "verdict", verdict_name(c->v));
        char why[160];
        comparison_reason(c, why, sizeof why);
        cJSON_AddStringToObject(o, "reason", why);
        cJSON_AddItemToArray(metrics, o);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return -1;
    puts(text);
    cJSON_free(text);
    return 0;
}

int cli_compare(int argc, char **argv)
{
    static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *format = "markdown";
    int c;
    uint64_t seen = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hf:", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (cli_once("compare", "--format", &seen, 0))
                return EXIT_USAGE;
            format = optarg;
            break;
        case 'h': return cli_help("compare", usage_compare);
        default:
            return cli_usage_error("compare", "unknown option or missing value: '%s'",
                                   argv[optind - 1]);
        }
    }
    if (strcmp(format, "markdown") != 0 && strcmp(format, "json") != 0)
        return cli_usage_error("compare", "unknown format '%s'; use markdown or json", format);
    if (argc - optind != 2)
        return cli_usage_error("compare", "give two result files: BASE.json CURRENT.json");
    result_file *base, *cur;
    if (load_pair("compare", argv + optind, &base, &cur))
        return EXIT_USAGE;
    comparison *v = NULL;
    size_t n = 0;
    char **warnings = NULL;
    int nwarnings = compare_warnings(base, cur, &warnings);
    int status = EXIT_CLEAN;
    if (nwarnings < 0 || compare_results(base, cur, &v, &n) < 0) {
        fputs("bench compare: out of memory\n", stderr);
        status = EXIT_FAILED;
    } else if (!strcmp(format, "json")) {
        if (print_json(base, cur, v, n, warnings, nwarnings) < 0)
            status = EXIT_FAILED;
    } else {
        print_markdown(base, cur, v, n, warnings, nwarnings);
    }
    /* cli_main checks that stdout was written (EXIT_OUTPUT) */
    free(v);
    free_strings(warnings, nwarnings);
    result_file_free(base);
    result_file_free(cur);
    return status;
}

/* ---- gate ------------------------------------------------------------------- */

/* --ab's default number of pairs: 8 let one pair of 8 go the other way and
 * still reach p < 0.05 (p = 0.016), where 6 need all six alike. */
#define GATE_DEFAULT_PAIRS 8

typedef struct gate_metric {
    char *pattern;    /* a name or a glob, owned */
    double threshold; /* its own =PCT, or NAN for --threshold */
} gate_metric;

typedef struct gate_args {
    double threshold;
    gate_metric *metrics; /* --metric, in order */
    size_t nmetrics;
    bool ab;         /* --ab: argv holds BIN_A BIN_B -- RUN_ARGS */
    long pairs;      /* --pairs */
    char **run_args; /* after "--", lent from argv */
    int nrun_args;
} gate_args;

/* A percentage of 0 or more, with an optional '%'; -1 if s is not one. */
static int parse_pct(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end != s && *end == '%')
        end++;
    if (errno || end == s || *end || !isfinite(v) || v < 0)
        return -1;
    *out = v;
    return 0;
}

/* --metric NAME or NAME=PCT. */
static int parse_metric(const char *arg, gate_metric *m)
{
    m->threshold = NAN;
    m->pattern = strdup(arg);
    if (!m->pattern)
        return EXIT_FAILED;
    char *eq = strrchr(m->pattern, '=');
    if (eq) {
        *eq = '\0';
        if (parse_pct(eq + 1, &m->threshold) < 0)
            return cli_usage_error("gate",
                                   "--metric NAME=PCT needs a percentage of 0 or more after '=', "
                                   "not '%s'",
                                   eq + 1);
    }
    if (!*m->pattern)
        return cli_usage_error("gate", "--metric needs a metric name, not '%s'", arg);
    return 0;
}

/* One gated line. */
typedef struct gate_row {
    comparison c;
    double threshold;    /* in percent, for this metric */
    bool named_missing;  /* a --metric NAME found in neither file */
    const paired *pairs; /* --ab: its pairs (lent), else NULL */
} gate_row;

static bool rows_have(const gate_row *rows, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(rows[i].c.name, name))
            return true;
    return false;
}

/* The gated rows: every base metric, or what the --metric names select. */
static gate_row *select_rows(const gate_args *g, const comparison *v, size_t n, size_t *nrows)
{
    gate_row *rows = calloc(n + g->nmetrics + 1, sizeof *rows);
    *nrows = 0;
    if (!rows)
        return NULL;
    if (g->nmetrics == 0) {
        for (size_t i = 0; i < n; i++)
            if (v[i].base)
                rows[(*nrows)++] = (gate_row){.c = v[i], .threshold = g->threshold};
        return rows;
    }
    for (size_t k = 0; k < g->nmetrics; k++) {
        const char *pat = g->metrics[k].pattern;
        double threshold = isnan(g->metrics[k].threshold) ? g->threshold : g->metrics[k].threshold;
        bool glob = strpbrk(pat, "*?[") != NULL, found = false;
        for (size_t i = 0; i < n; i++) {
            /* a glob selects from the base file; a plain name from either */
            if ((glob && !v[i].base) || !metric_matches(pat, v[i].name))
                continue;
            found = true;
            if (!rows_have(rows, *nrows, v[i].name))
                rows[(*nrows)++] = (gate_row){.c = v[i], .threshold = threshold};
        }
        if (!found)
            rows[(*nrows)++] = (gate_row){.c = {.name = pat, .change_pct = NAN, .p = NAN},
                                          .threshold = threshold,
                                          .named_missing = true};
    }
    return rows;
}

/* The first column: what the line means for the gate. Never "FAIL" next to
 * "within noise": a change within noise is ok, whatever its size. */
static const char *row_word(const gate_row *r, bool fails)
{
    if (r->named_missing || !r->c.base || !r->c.cur)
        return "missing";
    if (fails)
        return "REGRESSION";
    switch (r->c.v) {
    case VERDICT_WORSE: return "ok (worse)";
    case VERDICT_BETTER: return "ok (better)";
    default: return "ok (within noise)";
    }
}

static void row_reason(const gate_row *r, bool fails, char *buf, size_t n)
{
    const comparison *c = &r->c;
    char why[160];
    comparison_reason(c, why, sizeof why);
    if (r->named_missing)
        snprintf(buf, n, "%s",
                 strpbrk(c->name, "*?[") ? "matches no metric of the base file"
                                         : "in neither file");
    else if (!c->cur)
        snprintf(buf, n, "missing from the %s", c->paired ? "runs of B" : "current file");
    else if (!c->base)
        snprintf(buf, n, "missing from the %s", c->paired ? "runs of A" : "base file");
    else if (fails)
        snprintf(buf, n, "worse beyond %g%%; %s", r->threshold, why);
    else if (c->v == VERDICT_WORSE)
        snprintf(buf, n, "within %g%%; %s", r->threshold, why);
    else
        snprintf(buf, n, "%s", why);
}

/* --ab: the pairs' ratios B/A under the line. */
static void print_ratios(const paired *p)
{
    fputs("      B/A per pair:", stdout);
    for (size_t i = 0; i < p->npairs; i++) {
        if (isnan(p->ratios[i]))
            fputs(" n/a", stdout);
        else
            printf(" %.3f", p->ratios[i]);
    }
    if (!isnan(p->median_ratio))
        printf("  (median %.3f)", p->median_ratio);
    fputc('\n', stdout);
}

static int gate_print(const gate_row *rows, size_t nrows)
{
    int name_w = 0, vals_w = 0;
    char(*vals)[160] = calloc(nrows ? nrows : 1, sizeof *vals);
    if (!vals)
        return -1;
    for (size_t i = 0; i < nrows; i++) {
        char b[64], c[64];
        metric_format(rows[i].c.base, b, sizeof b);
        metric_format(rows[i].c.cur, c, sizeof c);
        snprintf(vals[i], sizeof vals[i], "%s -> %s", b, c);
        int len = (int)strlen(rows[i].c.name);
        name_w = len > name_w ? len : name_w;
        len = (int)strlen(vals[i]);
        vals_w = len > vals_w ? len : vals_w;
    }
    size_t regressions = 0, missing = 0, noise = 0, tolerated = 0;
    bool one_threshold = true;
    for (size_t i = 0; i < nrows; i++) {
        const gate_row *r = &rows[i];
        bool absent = r->named_missing || !r->c.base || !r->c.cur;
        bool fails = !absent && gate_fails(&r->c, r->threshold);
        regressions += fails;
        missing += absent;
        noise += !absent && r->c.v == VERDICT_NOISE;
        tolerated += !absent && !fails && r->c.v == VERDICT_WORSE;
        one_threshold = one_threshold && r->threshold == rows[0].threshold;
        char change[32], reason[256];
        format_change(&r->c, change, sizeof change);
        row_reason(r, fails, reason, sizeof reason);
        fprintf(stdout, "%-17s  %-*s  %-*s  %7s%s%s\n", row_word(r, fails), name_w, r->c.name,
                vals_w, vals[i], change, *reason ? "  " : "", reason);
        if (r->pairs && !absent)
            print_ratios(r->pairs);
    }
    free(vals);
    char beyond[64] = "their thresholds";
    if (nrows > 0 && one_threshold)
        snprintf(beyond, sizeof beyond, "%g%%", rows[0].threshold);
    if (nrows == 0)
        printf("gate: failed: there is no metric to gate (is the base file empty of results?)\n");
    else if (regressions + missing)
        printf("gate: failed: %zu of %zu metrics: %zu regressed beyond %s, %zu missing\n",
               regressions + missing, nrows, regressions, beyond, missing);
    else
        printf("gate: ok: %zu metrics, no regression beyond %s (%zu within noise, %zu worse "
               "within it)\n",
               nrows, beyond, noise, tolerated);
    return nrows == 0 || regressions + missing ? EXIT_FAILED : EXIT_CLEAN;
}

static void free_gate_args(gate_args *g)
{
    for (size_t i = 0; i < g->nmetrics; i++)
        free(g->metrics[i].pattern);
    free(g->metrics);
}

/* Prints the warnings about a pair of files and the notes of the current. */
static int print_warnings(const result_file *base, const result_file *cur)
{
    char **warnings = NULL;
    int nwarnings = compare_warnings(base, cur, &warnings);
    if (nwarnings < 0)
        return -1;
    for (int i = 0; i < nwarnings; i++)
        printf("warning: %s\n", warnings[i]);
    for (size_t i = 0; i < cur->nnotes; i++)
        printf("note: %s\n", cur->notes[i]);
    free_strings(warnings, nwarnings);
    return 0;
}

static int gate_files(const gate_args *g, char **paths)
{
    result_file *base = NULL, *cur = NULL;
    int status = load_pair("gate", paths, &base, &cur);
    if (status != EXIT_CLEAN)
        return status;
    comparison *v = NULL;
    size_t n = 0, nrows = 0;
    gate_row *rows = NULL;
    if (print_warnings(base, cur) < 0 || compare_results(base, cur, &v, &n) < 0 ||
        !(rows = select_rows(g, v, n, &nrows))) {
        fputs("bench gate: out of memory\n", stderr);
        status = EXIT_FAILED;
    } else {
        status = gate_print(rows, nrows);
    }
    free(rows);
    free(v);
    result_file_free(base);
    result_file_free(cur);
    return status;
}

/* ---- gate --ab: two binaries, interleaved ------------------------------------ */

/* Runs `bin run RUN_ARGS --quiet --format json --output path` with its stdout
 * on /dev/null and its stderr ours. Returns EXIT_CLEAN, or prints a sentence
 * naming the run and returns EXIT_USAGE (it cannot be run, or refused its
 * arguments) or EXIT_FAILED (it failed or was killed). */
static int run_child(const gate_args *g, const char *role, size_t pair, const char *bin,
                     const char *path)
{
    size_t argc = (size_t)g->nrun_args + 8;
    char **argv = calloc(argc, sizeof *argv);
    if (!argv)
        return EXIT_FAILED;
    size_t k = 0;
    argv[k++] = (char *)bin;
    argv[k++] = "run";
    for (int i = 0; i < g->nrun_args; i++)
        argv[k++] = g->run_args[i];
    argv[k++] = "--quiet";
    argv[k++] = "--format";
    argv[k++] = "json";
    argv[k++] = "--output";
    argv[k++] = (char *)path;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDOUT_FILENO);
        execvp(bin, argv);
        fprintf(stderr, "bench gate: cannot run %s (%s): %s\n", role, bin, strerror(errno));
        _exit(127);
    }
    free(argv);
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0) {
        fprintf(stderr, "bench gate: cannot run %s (%s): %s\n", role, bin, strerror(errno));
        return EXIT_USAGE;
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return EXIT_CLEAN;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
        return EXIT_USAGE; /* the child said why */
    if (WIFEXITED(st))
        fprintf(stderr, "bench gate: pair %zu: %s (%s run) exited with status %d%s\n", pair, role,
                bin, WEXITSTATUS(st),
                WEXITSTATUS(st) == EXIT_USAGE ? " (a usage error: check RUN_ARGS)" : "");
    else
        fprintf(stderr, "bench gate: pair %zu: %s (%s run) was killed by signal %d\n", pair, role,
                bin, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == EXIT_USAGE ? EXIT_USAGE : EXIT_FAILED;
}

/* Runs one side of pair i into dir and loads its file, which is then removed. */
static int run_side(const gate_args *g, const char *dir, const char *role, const char *bin,
                    size_t pair, result_file **out)
{
    char path[4096], err[1024];
    snprintf(path, sizeof path, "%s/%s%zu.json", dir, role, pair);
    int status = run_child(g, role, pair, bin, path);
    if (status == EXIT_CLEAN && result_file_load(path, out, err, sizeof err) < 0) {
        fprintf(stderr, "bench gate: pair %zu: %s: %s\n", pair, role, err);
        status = EXIT_FAILED;
    }
    unlink(path); /* there or not */
    return status;
}

static int gate_ab(const gate_args *g, char **bins)
{
    size_t npairs = (size_t)g->pairs;
    result_file **a = calloc(npairs, sizeof *a), **b = calloc(npairs, sizeof *b);
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/bench-gate-ab-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!a || !b || !mkdtemp(dir)) {
        fprintf(stderr, "bench gate: cannot make a scratch directory: %s\n", strerror(errno));
        free(a);
        free(b);
        return EXIT_USAGE;
    }
    printf("gate --ab: %zu pairs, A B A B: A = %s, B = %s, each `run", npairs, bins[0], bins[1]);
    for (int i = 0; i < g->nrun_args; i++)
        printf(" %s", g->run_args[i]);
    printf("`\n");
    if (npairs < compare_pairs_needed())
        printf("note: with %zu pairs no change can be called at p < %g (%zu pairs or more)\n",
               npairs, COMPARE_ALPHA, compare_pairs_needed());
    int status = EXIT_CLEAN;
    for (size_t i = 0; i < npairs && status == EXIT_CLEAN; i++) {
        status = run_side(g, dir, "A", bins[0], i + 1, &a[i]);
        if (status == EXIT_CLEAN)
            status = run_side(g, dir, "B", bins[1], i + 1, &b[i]);
    }
    rmdir(dir);
    paired *p = NULL;
    comparison *v = NULL;
    gate_row *rows = NULL;
    size_t n = 0, nrows = 0;
    if (status == EXIT_CLEAN) {
        if (print_warnings(a[0], b[0]) < 0 || compare_paired(a, b, npairs, &p, &n) < 0 ||
            !(v = calloc(n ? n : 1, sizeof *v))) {
            fputs("bench gate: out of memory\n", stderr);
            status = EXIT_FAILED;
        }
    }
    if (status == EXIT_CLEAN) {
        for (size_t i = 0; i < n; i++)
            v[i] = p[i].c;
        if (!(rows = select_rows(g, v, n, &nrows))) {
            fputs("bench gate: out of memory\n", stderr);
            status = EXIT_FAILED;
        }
    }
    if (status == EXIT_CLEAN) {
        for (size_t r = 0; r < nrows; r++)
            for (size_t i = 0; i < n && !rows[r].named_missing; i++)
                if (!strcmp(p[i].c.name, rows[r].c.name))
                    rows[r].pairs = &p[i];
        status = gate_print(rows, nrows);
    }
    free(rows);
    free(v);
    paired_free(p, n);
    for (size_t i = 0; i < npairs; i++) {
        result_file_free(a[i]);
        result_file_free(b[i]);
    }
    free(a);
    free(b);
    return status;
}

/* --pairs N: a whole number from 1 to 1000. */
static int parse_pairs(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > 1000)
        return -1;
    *out = v;
    return 0;
}

int cli_gate(int argc, char **argv)
{
    static const struct option opts[] = {{"threshold", required_argument, NULL, 't'},
                                         {"metric", required_argument, NULL, 'm'},
                                         {"ab", no_argument, NULL, 'a'},
                                         {"pairs", required_argument, NULL, 'p'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    gate_args g = {.threshold = GATE_DEFAULT_THRESHOLD, .pairs = GATE_DEFAULT_PAIRS};
    /* what follows "--" is RUN_ARGS, never options of the gate */
    int end = argc;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--")) {
            end = i;
            g.run_args = argv + i + 1;
            g.nrun_args = argc - i - 1;
            break;
        }
    g.metrics = calloc((size_t)argc, sizeof *g.metrics);
    if (!g.metrics)
        return EXIT_FAILED;
    int c, status = EXIT_CLEAN;
    bool pairs_given = false;
    uint64_t seen = 0;
    optind = 1;
    opterr = 0;
    while (status == EXIT_CLEAN && (c = getopt_long(end, argv, "ht:m:", opts, NULL)) != -1) {
        switch (c) {
        case 't':
            if ((status = cli_once("gate", "--threshold", &seen, 0)))
                break;
            if (parse_pct(optarg, &g.threshold) < 0)
                status = cli_usage_error(
                    "gate", "--threshold takes a percentage of 0 or more, not '%s'", optarg);
            break;
        case 'm': status = parse_metric(optarg, &g.metrics[g.nmetrics++]); break;
        case 'a': g.ab = true; break;
        case 'p':
            pairs_given = true;
            if ((status = cli_once("gate", "--pairs", &seen, 1)))
                break;
            if (parse_pairs(optarg, &g.pairs) < 0)
                status = cli_usage_error(
                    "gate", "--pairs takes a whole number from 1 to 1000, not '%s'", optarg);
            break;
        case 'h': free_gate_args(&g); return cli_help("gate", usage_gate);
        default:
            status =
                cli_usage_error("gate", "unknown option or missing value: '%s'", argv[optind - 1]);
        }
    }
    if (status == EXIT_CLEAN && g.ab && (end - optind != 2 || end == argc))
        status = cli_usage_error("gate", "--ab takes two binaries and the run's arguments: "
                                         "BIN_A BIN_B -- RUN_ARGS...");
    else if (status == EXIT_CLEAN && !g.ab && (pairs_given || end != argc))
        status = cli_usage_error("gate", "--pairs and '--' RUN_ARGS go with --ab");
    else if (status == EXIT_CLEAN && !g.ab && argc - optind != 2)
        status = cli_usage_error("gate", "give two result files: BASE.json CURRENT.json");
    if (status == EXIT_CLEAN)
        status = g.ab ? gate_ab(&g, argv + optind) : gate_files(&g, argv + optind);
    /* cli_main checks that stdout was written (EXIT_OUTPUT) */
    free_gate_args(&g);
    return status;
}

/* ---- report ----------------------------------------------------------------- */

typedef struct page_args {
    const result_file *cur, *base; /* base NULL: no comparison */
} page_args;

static int write_page(FILE *out, const void *ctx)
{
    const page_args *a = ctx;
    return report_html_compared(a->cur, a->base, out);
}

/* Writes the page atomically, as every report bench writes. */
static int write_html_atomic(const page_args *a, const char *path)
{
    char err[1024];
    if (write_atomic(path, write_page, a, err, sizeof err) == 0)
        return 0;
    fprintf(stderr, "bench report: %s\n", err);
    return -1;
}

int cli_report(int argc, char **argv)
{
    static const struct option opts[] = {{"html", required_argument, NULL, 'o'},
                                         {"baseline", required_argument, NULL, 'b'},
                                         {"format", required_argument, NULL, 'f'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *html = NULL, *baseline = NULL;
    const report_format *format = NULL;
    int c;
    uint64_t seen = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            if (cli_once("report", "--html", &seen, 0))
                return EXIT_USAGE;
            html = optarg;
            break;
        case 'b':
            if (cli_once("report", "--baseline", &seen, 1))
                return EXIT_USAGE;
            baseline = optarg;
            break;
        case 'f':
            if (cli_once("report", "--format", &seen, 2))
                return EXIT_USAGE;
            if (!(format = report_format_find(optarg))) {
                char names[128];
                report_format_names(false, names, sizeof names);
                return cli_usage_error("report", "unknown format '%s' (use %s)", optarg, names);
            }
            break;
        case 'h': return cli_help("report", usage_report);
        default:
            return cli_usage_error("report", "unknown option or missing value: '%s'",
                                   argv[optind - 1]);
        }
    }
    if (argc - optind != 1)
        return cli_usage_error("report", "give one result file");
    if (format && (html || baseline))
        return cli_usage_error("report", "--format prints to stdout: give it without --html "
                                         "and --baseline");
    if (!format && (!html || !*html))
        return cli_usage_error("report", "give the page to write with --html FILE, or --format");
    char err[1024];
    if (html && output_check(html, err, sizeof err) != 0) {
        fprintf(stderr, "bench report: %s\n", err);
        return EXIT_USAGE;
    }
    result_file *f = NULL, *base = NULL;
    if (result_file_load(argv[optind], &f, err, sizeof err) < 0 ||
        (baseline && result_file_load(baseline, &base, err, sizeof err) < 0)) {
        fprintf(stderr, "bench report: %s\n", err);
        result_file_free(f);
        return EXIT_USAGE;
    }
    int rc;
    if (format) {
        /* cli_main checks that stdout was written (EXIT_OUTPUT) */
        rc = format->write(f->r, stdout);
    } else {
        page_args a = {.cur = f, .base = base};
        rc = write_html_atomic(&a, html);
    }
    result_file_free(base);
    result_file_free(f);
    return rc == 0 ? EXIT_CLEAN : EXIT_OUTPUT;
}
