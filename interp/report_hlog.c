/* report_hlog.c: bench run --hlog: every run's intervals in HdrHistogram's
 * interval-log format (hlog.h), so HdrHistogram's own readers and plotters
 * load them. One tag per run for all its commands, and one per verb:
 * "DOMAIN/LABEL[@PREFILL]/runK" and ".../runK/Verb" (a character a tag may
 * not hold becomes '_'). Interval times are seconds since the first timed
 * pass of the invocation began. */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hlog.h"

static void make_tag(char *buf, size_t n, const target_result *t, int run, const char *verb)
{
    char at[32] = "";
    if (t->prefill > 0)
        snprintf(at, sizeof at, "@%lld", (long long)t->prefill);
    snprintf(buf, n, "%s/%s%s/run%d%s%s", t->domain ? t->domain : "", t->label ? t->label : "", at,
             run, verb ? "/" : "", verb ? verb : "");
    for (char *c = buf; *c; c++)
        if (*c == ',' || *c == '=' || *c == ' ' || (unsigned char)*c < 0x21 || *c == 0x7f)
            *c = '_';
}

/* One interval's line for buckets b. */
static int put_line(FILE *out, hist *h, const char *tag, double base, const run_result *run,
                    const interval *it, const hist_buckets *b, bench_error *e)
{
    hist_reset(h);
    hist_buckets_into(b, h);
    double start = run->start_epoch_s - base + (double)it->start_ns / 1e9;
    return hlog_interval(out, tag, start, (double)it->length_ns / 1e9, h, e);
}

int report_hlog(const report *r, FILE *out, bench_error *e)
{
    double base = INFINITY;
    for (size_t i = 0; i < r->nresults; i++)
        for (size_t k = 0; k < r->results[i].nruns; k++)
            if (r->results[i].runs[k].start_epoch_s < base)
                base = r->results[i].runs[k].start_epoch_s;
    if (!isfinite(base))
        base = 0;
    /* a shard's log says which shard it is, for bench merge --logs; the
       version is cut so that the line stays within hlog_begin's 120 */
    char comment[128];
    const shard_info *sh = &r->config.shard;
    if (sh->count > 0 && sh->index >= 0)
        snprintf(comment, sizeof comment, "Logged with bench %.40s, shard %" PRId64 "/%" PRId64,
                 r->env.version, sh->index, sh->count);
    else if (sh->count > 0)
        snprintf(comment, sizeof comment, "Logged with bench %.40s, a merge of %" PRId64 " shards",
                 r->env.version, sh->count);
    else
        snprintf(comment, sizeof comment, "Logged with bench %.40s", r->env.version);
    if (hlog_begin(out, base, comment, e) < 0)
        return -1;
    hist h;
    if (hist_init(&h) < 0)
        return err_set(e, "out of memory");
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < r->nresults; i++) {
        const target_result *t = &r->results[i];
        for (size_t k = 0; rc == 0 && k < t->nruns; k++) {
            const run_result *run = &t->runs[k];
            for (size_t j = 0; rc == 0 && j < run->nintervals; j++) {
                const interval *it = &run->intervals[j];
                char tag[512];
                make_tag(tag, sizeof tag, t, run->run, NULL);
                rc = put_line(out, &h, tag, base, run, it, &it->all, e);
                for (size_t v = 0; rc == 0 && it->verbs && v < it->nverbs && v < run->nverbs; v++) {
                    make_tag(tag, sizeof tag, t, run->run, run->verbs[v].verb);
                    rc = put_line(out, &h, tag, base, run, it, &it->verbs[v], e);
                }
            }
        }
    }
    hist_free(&h);
    return rc;
}
