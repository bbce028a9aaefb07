/* cli_merge.c: bench merge, the shards' result files as one (merge.h). */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "cli.h"
#include "hlog_merge.h"
#include "merge.h"
#include "report.h"

static const char usage_merge[] =
    "usage: bench merge [--output FILE] [--format json|markdown|csv] [--hlog FILE] IN.json...\n"
    "       bench merge --logs [--output FILE] IN.hlog...\n"
    "\n"
    "Merges the result files of the shards of one run (bench run --shard i/N)\n"
    "into one result: histograms are added bucket by bucket and every figure\n"
    "is computed again from them, so the merge reports what one run over the\n"
    "union of the shards' commands reports. Refuses results of different\n"
    "specs (SHA-256), seeds, layouts or bench versions, a shard given twice\n"
    "and shards missing. The merged file is a result that compare, gate,\n"
    "report and verify --results read.\n"
    "\n"
    "With --logs the inputs are the shards' interval logs (bench run --hlog)\n"
    "and the output one interval log: the k-th interval of each tag in every\n"
    "log is added to the k-th of that tag in the others. Refuses a file that\n"
    "is not an interval log, a bad payload, logs of different tag sets or\n"
    "significant digits and a file given twice.\n"
    "\n"
    "  --output FILE  the merged result (default stdout), written atomically\n"
    "  --format FMT   json (default), markdown or csv\n"
    "  --hlog FILE    the merged intervals in HdrHistogram's interval-log format\n"
    "  --logs         the inputs are interval logs; --output gets their merge\n"
    "  -h, --help     show this help\n";

typedef struct merge_args {
    const char *output, *hlog;
    const report_format *format;
    bool logs;
} merge_args;

static int parse(int argc, char **argv, merge_args *a)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'}, {"format", required_argument, NULL, 'f'},
        {"hlog", required_argument, NULL, 'l'},   {"logs", no_argument, NULL, 'L'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    uint64_t seen = 0;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":ho:f:", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            if (cli_once("merge", "--output", &seen, 0))
                return EXIT_USAGE;
            a->output = optarg;
            break;
        case 'f':
            if (cli_once("merge", "--format", &seen, 1))
                return EXIT_USAGE;
            if (!(a->format = report_format_find(optarg))) {
                char names[128];
                report_format_names(false, names, sizeof names);
                return cli_usage_error("merge", "--format is %s, not '%s'", names, optarg);
            }
            break;
        case 'l':
            if (cli_once("merge", "--hlog", &seen, 2))
                return EXIT_USAGE;
            a->hlog = optarg;
            break;
        case 'L':
            if (cli_once("merge", "--logs", &seen, 3))
                return EXIT_USAGE;
            a->logs = true;
            break;
        case 'h': return cli_help("merge", usage_merge) == EXIT_CLEAN ? -1 : EXIT_USAGE;
        case ':': return cli_usage_error("merge", "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error("merge", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (a->logs && (a->format || a->hlog))
        return cli_usage_error("merge",
                               "--logs writes the merged log to --output; %s is for "
                               "result files",
                               a->format ? "--format" : "--hlog");
    if (optind >= argc)
        return cli_usage_error("merge", a->logs ? "give the shards' interval logs to merge"
                                                : "give the shards' result files to merge");
    return 0;
}

static int write_hlog_file(FILE *out, const void *ctx)
{
    bench_error e = {0};
    return report_hlog(ctx, out, &e);
}

/* The merged result, and its log, each written atomically. */
static int write_outputs(const merge_args *a, const report *r)
{
    char err[1024];
    const report_format *f = a->format ? a->format : report_format_find("json");
    const char *out = a->output ? a->output : "-";
    if (report_write_atomic(out, f->write, r, err, sizeof err) != 0) {
        fprintf(stderr, "bench merge: %s\n", err);
        return EXIT_OUTPUT;
    }
    if (a->hlog && write_atomic(a->hlog, write_hlog_file, r, err, sizeof err) != 0) {
        fprintf(stderr, "bench merge: %s\n", err);
        return EXIT_OUTPUT;
    }
    return EXIT_CLEAN;
}

/* bench merge --logs: the interval logs as one (hlog_merge.h). */
static int merge_logs(const merge_args *a, const char *const *paths, size_t n)
{
    char err[1024];
    int rc = hlog_merge_files(paths, n, a->output ? a->output : "-", err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "bench merge: %s\n", err);
    else
        fprintf(stderr, "bench merge: %zu interval logs merged\n", n);
    return rc == 0 ? EXIT_CLEAN : rc == -1 ? EXIT_USAGE : EXIT_OUTPUT;
}

int cli_merge(int argc, char **argv)
{
    merge_args a = {0};
    int rc = parse(argc, argv, &a);
    if (rc != 0)
        return rc < 0 ? EXIT_CLEAN : rc;
    char err[1024];
    const char *paths[] = {a.output, a.hlog};
    for (size_t i = 0; i < 2; i++)
        if (paths[i] && output_check(paths[i], err, sizeof err) != 0)
            return cli_usage_error("merge", "%s", err);
    size_t n = (size_t)(argc - optind);
    if (a.logs)
        return merge_logs(&a, (const char *const *)(argv + optind), n);
    report **in = xcalloc(n, sizeof *in);
    const char **names = (const char **)(argv + optind);
    rc = EXIT_CLEAN;
    for (size_t i = 0; i < n && rc == EXIT_CLEAN; i++)
        if (results_load(names[i], &in[i], err, sizeof err) != 0) {
            fprintf(stderr, "bench merge: %s\n", err);
            rc = EXIT_USAGE;
        }
    report *merged = NULL;
    if (rc == EXIT_CLEAN &&
        merge_results((const report *const *)in, names, n, &merged, err, sizeof err) != 0) {
        fprintf(stderr, "bench merge: %s\n", err);
        rc = EXIT_USAGE;
    }
    if (rc == EXIT_CLEAN) {
        fprintf(stderr, "bench merge: %zu shards merged; start skew %.3f s\n", n,
                isfinite(merged->config.shard.skew_s) ? merged->config.shard.skew_s : 0.0);
        rc = write_outputs(&a, merged);
    }
    merge_free(merged);
    for (size_t i = 0; i < n; i++)
        results_free(in[i]);
    free(in);
    return rc;
}
