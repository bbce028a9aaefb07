/* stability.c: whether a run is unstable, and why in words
 * (stats_stability, declared in stats.h): the statistics are stats.c's, the
 * latencies in the reasons are report_fmt_us's, so that stats.c needs no
 * report formatting. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "report_fmt.h"
#include "stats.h"

/* Appends one reason to buf[size] at *len, after "; " when not the first. */
static void add_reason(char *buf, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add_reason(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    if (*len + 1 >= size)
        return;
    if (*len) {
        int w = snprintf(buf + *len, size - *len, "; ");
        *len += w > 0 ? (size_t)w : 0;
        if (*len >= size) {
            *len = size - 1;
            return;
        }
    }
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    *len = w < 0 ? *len : *len + (size_t)w >= size ? size - 1 : *len + (size_t)w;
}

static const char *us_text(double ns, char *buf, size_t n)
{
    report_fmt_us(ns, buf, n);
    return buf;
}

bool stats_stability(const stability_input *in, char *reason, size_t size)
{
    size_t len = 0;
    char a[64], b[64];
    if (size)
        reason[0] = '\0';
    double lo = NAN, hi = NAN;
    bool judged = in->fig && in->fig->commands >= STATS_SPREAD_MIN_COMMANDS;
    for (int t = 0; judged && t < STATS_TENTHS; t++) {
        double x = in->fig->tenths[t].p50_ns;
        if (isnan(x))
            continue;
        lo = isnan(lo) || x < lo ? x : lo;
        hi = isnan(hi) || x > hi ? x : hi;
    }
    bool unstable = false;
    if (lo > 0 && hi / lo > STATS_TENTHS_SPREAD) {
        add_reason(reason, size, &len, "tenths' p50 spread %s to %s us (%.2fx)",
                   us_text(lo, a, sizeof a), us_text(hi, b, sizeof b), hi / lo);
        unstable = true;
    }
    for (size_t i = 0; i < in->nmodal; i++) {
        double m1, m2;
        if (!stats_two_modes(&in->modal[i], &m1, &m2))
            continue;
        add_reason(reason, size, &len, "two modes%s%s, at %s us and %s us", in->names ? " in " : "",
                   in->names ? in->names[i] : "", us_text(m1, a, sizeof a),
                   us_text(m2, b, sizeof b));
        unstable = true;
    }
    double f0 = in->floor_before_ns, f1 = in->floor_after_ns;
    if (f0 > 0 && f1 > 0 && fmax(f0, f1) / fmin(f0, f1) > STATS_FLOOR_MOVED) {
        add_reason(reason, size, &len, "the floor moved from %s to %s us", us_text(f0, a, sizeof a),
                   us_text(f1, b, sizeof b));
        unstable = true;
    }
    double p50 = in->fig ? in->fig->p50_ns : NAN;
    double floor_ns = isnan(f1) || f0 > f1 ? f0 : f1; /* the higher one */
    /* where the tenths are judged, a floor within their p50s is one of the
       pass's own moments, a floor probe being 500 round trips at one of
       them: above the run's p50 it must also be above every tenth's */
    bool tenths = judged && hi > p50;
    if (floor_ns > p50 && !(tenths && floor_ns <= hi)) {
        char c[64];
        if (tenths)
            add_reason(reason, size, &len,
                       "the round-trip floor %s us is above the p50 %s us it should explain, "
                       "and every tenth's (at most %s us)",
                       us_text(floor_ns, a, sizeof a), us_text(p50, b, sizeof b),
                       us_text(hi, c, sizeof c));
        else
            add_reason(reason, size, &len,
                       "the round-trip floor %s us is above the p50 %s us it should explain",
                       us_text(floor_ns, a, sizeof a), us_text(p50, b, sizeof b));
        unstable = true;
    }
    return unstable;
}
