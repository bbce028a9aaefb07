/* cli_compare.c: `bench compare`, `bench gate` and `bench report`, the
 * commands that read result files instead of specs. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
    "current, change in percent and a verdict: better or worse (throughput is\n"
    "better higher; latencies and drift lower), within noise (the two files'\n"
    "run ranges overlap), only in base, only in current. Warns in bold when\n"
    "the spec files, the machines or the builds differ.\n"
    "\n"
    "  --format FMT   markdown (default) or json\n"
    "  -h, --help     show this help\n";

static const char usage_gate[] =
    "usage: bench gate [--threshold PCT] [--metric NAME[=PCT]]... BASE.json CURRENT.json\n"
    "\n"
    "Fails when a gated metric is worse than PCT percent in its bad direction\n"
    "(throughput lower, latency or drift higher), whether or not the run\n"
    "ranges overlap, or when it is missing from either file. Prints one line\n"
    "per gated metric with its verdict.\n"
    "\n"
    "  --threshold PCT  how much worse a metric may get, in percent (default 10)\n"
    "  --metric NAME    gate this metric (repeatable); a glob such as\n"
    "                   '*.throughput_per_s' gates every metric of the base file\n"
    "                   it matches; NAME=PCT gives it its own threshold;\n"
    "                   default: every metric of the base file\n"
    "  -h, --help       show this help\n";

static const char usage_report[] =
    "usage: bench report RESULT.json --html FILE\n"
    "\n"
    "Writes one self-contained HTML page (inline CSS and SVG, no script, no\n"
    "network) for a result file of `bench run --format json`: the results\n"
    "table, throughput per target with its run range, the latency percentile\n"
    "distribution per target on log scales, and p50/p99 per tenth of the timed\n"
    "pass, so that drift shows.\n"
    "\n"
    "  --html FILE    the page to write: atomically for a regular file (a\n"
    "                 symlink's target is replaced, the link kept), in place for a\n"
    "                 FIFO or a device; '-' is stdout\n"
    "  -h, --help     show this help\n";

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
    fputs("\n| metric | base | current | change | verdict |\n|---|---:|---:|---:|---|\n", out);
    for (size_t i = 0; i < n; i++) {
        char b[64], c[64], change[32];
        metric_format(v[i].base, b, sizeof b);
        metric_format(v[i].cur, c, sizeof c);
        format_change(&v[i], change, sizeof change);
        fputs("| ", out);
        put_cell(out, v[i].name);
        fprintf(out, " | %s | %s | %s | %s |\n", b, c, change, verdict_name(v[i].v));
        count[v[i].v]++;
    }
    fprintf(out,
            "\n%zu metrics: %zu better, %zu worse, %zu within noise, %zu only in base, %zu only "
            "in current. Throughput is better higher; latencies (us) and drift are better "
            "lower; within noise means the two files' run ranges overlap.\n",
            n, count[VERDICT_BETTER], count[VERDICT_WORSE], count[VERDICT_NOISE],
            count[VERDICT_ONLY_BASE], count[VERDICT_ONLY_CURRENT]);
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
        cJSON_AddStringToObject(o, "verdict", verdict_name(c->v));
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
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hf:", opts, NULL)) != -1) {
        switch (c) {
        case 'f': format = optarg; break;
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

typedef struct gate_metric {
    char *pattern;    /* a name or a glob, owned */
    double threshold; /* its own =PCT, or NAN for --threshold */
} gate_metric;

typedef struct gate_args {
    double threshold;
    gate_metric *metrics; /* --metric, in order */
    size_t nmetrics;
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
    double threshold;   /* in percent, for this metric */
    bool named_missing; /* a --metric NAME found in neither file */
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
            rows[(*nrows)++] = (gate_row){.c = {.name = pat, .change_pct = NAN},
                                          .threshold = threshold,
                                          .named_missing = true};
    }
    return rows;
}

static void row_reason(const gate_row *r, bool fails, char *buf, size_t n)
{
    const comparison *c = &r->c;
    double threshold = r->threshold;
    if (r->named_missing)
        snprintf(buf, n, "%s",
                 strpbrk(c->name, "*?[") ? "matches no metric of the base file"
                                         : "in neither file");
    else if (!c->cur)
        snprintf(buf, n, "missing from the current file");
    else if (!c->base)
        snprintf(buf, n, "missing from the base file");
    else if (fails)
        snprintf(buf, n, "worse beyond %g%%%s", threshold,
                 c->overlap ? ", though the run ranges overlap" : "");
    else if (c->worse_pct > 0)
        snprintf(buf, n, "within %g%%%s", threshold, c->overlap ? ", run ranges overlap" : "");
    else
        snprintf(buf, n, "%s", c->overlap ? "run ranges overlap" : "");
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
    size_t failed = 0;
    bool one_threshold = true;
    for (size_t i = 0; i < nrows; i++) {
        const gate_row *r = &rows[i];
        bool fails = r->named_missing || gate_fails(&r->c, r->threshold);
        failed += fails;
        one_threshold = one_threshold && r->threshold == rows[0].threshold;
        char change[32], reason[160];
        format_change(&r->c, change, sizeof change);
        row_reason(r, fails, reason, sizeof reason);
        const char *word = r->named_missing ? "missing" : verdict_name(r->c.v);
        fprintf(stdout, "%-4s  %-15s  %-*s  %-*s  %7s%s%s\n", fails ? "FAIL" : "ok", word, name_w,
                r->c.name, vals_w, vals[i], change, *reason ? "  " : "", reason);
    }
    free(vals);
    char beyond[64] = "their thresholds";
    if (nrows > 0 && one_threshold)
        snprintf(beyond, sizeof beyond, "%g%%", rows[0].threshold);
    if (nrows == 0)
        printf("gate: FAIL: there is no metric to gate (is the base file empty of results?)\n");
    else if (failed)
        printf("gate: FAIL: %zu of %zu metrics worse beyond %s or missing\n", failed, nrows,
               beyond);
    else
        printf("gate: ok: %zu metrics, none worse beyond %s\n", nrows, beyond);
    return nrows == 0 || failed ? EXIT_FAILED : EXIT_CLEAN;
}

static void free_gate_args(gate_args *g)
{
    for (size_t i = 0; i < g->nmetrics; i++)
        free(g->metrics[i].pattern);
    free(g->metrics);
}

int cli_gate(int argc, char **argv)
{
    static const struct option opts[] = {{"threshold", required_argument, NULL, 't'},
                                         {"metric", required_argument, NULL, 'm'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    gate_args g = {.threshold = GATE_DEFAULT_THRESHOLD};
    g.metrics = calloc((size_t)argc, sizeof *g.metrics);
    if (!g.metrics)
        return EXIT_FAILED;
    int c, status = EXIT_CLEAN;
    optind = 1;
    opterr = 0;
    while (status == EXIT_CLEAN && (c = getopt_long(argc, argv, "ht:m:", opts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (parse_pct(optarg, &g.threshold) < 0)
                status = cli_usage_error(
                    "gate", "--threshold takes a percentage of 0 or more, not '%s'", optarg);
            break;
        case 'm': status = parse_metric(optarg, &g.metrics[g.nmetrics++]); break;
        case 'h': free_gate_args(&g); return cli_help("gate", usage_gate);
        default:
            status =
                cli_usage_error("gate", "unknown option or missing value: '%s'", argv[optind - 1]);
        }
    }
    if (status == EXIT_CLEAN && argc - optind != 2)
        status = cli_usage_error("gate", "give two result files: BASE.json CURRENT.json");
    result_file *base = NULL, *cur = NULL;
    if (status == EXIT_CLEAN)
        status = load_pair("gate", argv + optind, &base, &cur);
    if (status != EXIT_CLEAN) {
        free_gate_args(&g);
        return status;
    }
    comparison *v = NULL;
    size_t n = 0, nrows = 0;
    char **warnings = NULL;
    int nwarnings = compare_warnings(base, cur, &warnings);
    gate_row *rows = NULL;
    if (nwarnings < 0 || compare_results(base, cur, &v, &n) < 0 ||
        !(rows = select_rows(&g, v, n, &nrows))) {
        fputs("bench gate: out of memory\n", stderr);
        status = EXIT_FAILED;
    } else {
        for (int i = 0; i < nwarnings; i++)
            printf("warning: %s\n", warnings[i]);
        for (size_t i = 0; i < cur->nnotes; i++)
            printf("note: %s\n", cur->notes[i]);
        status = gate_print(rows, nrows);
    }
    /* cli_main checks that stdout was written (EXIT_OUTPUT) */
    free(rows);
    free(v);
    free_strings(warnings, nwarnings > 0 ? nwarnings : 0);
    result_file_free(base);
    result_file_free(cur);
    free_gate_args(&g);
    return status;
}

/* ---- report ----------------------------------------------------------------- */

static int write_page(FILE *out, const void *ctx)
{
    const result_file *f = ctx;
    return report_html(f->r, f->path, out);
}

/* Writes the page atomically, as every report bench writes. */
static int write_html_atomic(const result_file *f, const char *path)
{
    char err[1024];
    if (write_atomic(path, write_page, f, err, sizeof err) == 0)
        return 0;
    fprintf(stderr, "bench report: %s\n", err);
    return -1;
}

int cli_report(int argc, char **argv)
{
    static const struct option opts[] = {{"html", required_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *html = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': html = optarg; break;
        case 'h': return cli_help("report", usage_report);
        default:
            return cli_usage_error("report", "unknown option or missing value: '%s'",
                                   argv[optind - 1]);
        }
    }
    if (argc - optind != 1)
        return cli_usage_error("report", "give one result file");
    if (!html || !*html)
        return cli_usage_error("report", "give the page to write with --html FILE");
    char err[1024];
    if (output_check(html, err, sizeof err) != 0) {
        fprintf(stderr, "bench report: %s\n", err);
        return EXIT_USAGE;
    }
    result_file *f;
    if (result_file_load(argv[optind], &f, err, sizeof err) < 0) {
        fprintf(stderr, "bench report: %s\n", err);
        return EXIT_USAGE;
    }
    int rc = write_html_atomic(f, html);
    result_file_free(f);
    return rc == 0 ? EXIT_CLEAN : EXIT_OUTPUT;
}
