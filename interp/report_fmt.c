/* report_fmt.c: the reports' rounding and number texts (see report_fmt.h). */
#include "report_fmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies the number text s into buf[n] with a comma between every three
 * digits of its integer part ("-1234567.8" -> "-1,234,567.8"). */
static void group_digits(const char *s, char *buf, size_t n)
{
    if (n == 0)
        return;
    size_t o = 0;
    if (*s == '-' && o + 1 < n)
        buf[o++] = *s++;
    size_t digits = strspn(s, "0123456789");
    for (size_t i = 0; s[i] && o + 1 < n; i++) {
        if (i > 0 && i < digits && (digits - i) % 3 == 0) {
            buf[o++] = ',';
            if (o + 1 >= n)
                break;
        }
        buf[o++] = s[i];
    }
    buf[o] = '\0';
}

/* printf, then group_digits, into buf[n]. */
static void grouped(char *buf, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void grouped(char *buf, size_t n, const char *fmt, ...)
{
    char text[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    group_digits(text, buf, n);
}

/* ns rounded to a whole ns (halves away from zero, as the JSON) as its
 * magnitude and sign; false when that does not fit 64 bits. */
static bool whole_ns(double ns, uint64_t *abs, bool *neg)
{
    double k = round(ns);
    if (!(fabs(k) < 9e18))
        return false;
    int64_t v = (int64_t)k;
    *neg = v < 0;
    *abs = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    return true;
}

static void na(char *buf, size_t n)
{
    if (n > 0)
        snprintf(buf, n, "n/a");
}

void report_fmt_throughput(double v, char *buf, size_t n)
{
    if (!isfinite(v)) {
        na(buf, n);
        return;
    }
    grouped(buf, n, "%.0f", round(v) + 0.0); /* + 0.0: no "-0" */
}

/* At least three significant digits, never finer than the nanosecond the
 * JSON carries: below 10 us three decimals (the JSON figure itself), below
 * 100 us two, above that one. Rounding goes through the JSON's whole ns
 * first, so every cell can be derived from the JSON. */
void report_fmt_us(double ns, char *buf, size_t n)
{
    if (!isfinite(ns)) {
        na(buf, n);
        return;
    }
    char text[400];
    uint64_t a;
    bool neg;
    if (whole_ns(ns, &a, &neg)) {
        /* decided after rounding, so 99995 ns is "100.0", not "100.00" */
        int decimals = a < 10000 ? 3 : (a + 5) / 10 < 10000 ? 2 : 1;
        uint64_t unit = decimals == 3 ? 1 : decimals == 2 ? 10 : 100;
        uint64_t q = (a + unit / 2) / unit; /* in units of the last digit, halves up */
        uint64_t per_us = 1000 / unit;
        snprintf(text, sizeof text, "%s%" PRIu64 ".%0*" PRIu64, neg && q ? "-" : "", q / per_us,
                 decimals, q % per_us);
    } else {
        snprintf(text, sizeof text, "%.1f", round(ns) / 1000.0);
    }
    group_digits(text, buf, n);
}

void report_fmt_drift(double d, char *buf, size_t n)
{
    if (!isfinite(d)) {
        na(buf, n);
        return;
    }
    grouped(buf, n, "%.2f", d);
}

void report_fmt_ns(double ns, char *buf, size_t n)
{
    if (!isfinite(ns)) {
        na(buf, n);
        return;
    }
    grouped(buf, n, "%.1f", ns);
}

void report_fmt_int(int64_t v, char *buf, size_t n)
{
    grouped(buf, n, "%" PRId64, v);
}

void report_fmt_gib(double bytes, char *buf, size_t n)
{
    snprintf(buf, n, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
}

void report_fmt_load(double load, char *buf, size_t n)
{
    if (isfinite(load) && load >= 0)
        snprintf(buf, n, "%.2f", load);
    else
        na(buf, n);
}

void report_fmt_us3(double ns, char *buf, size_t n)
{
    if (n == 0)
        return;
    if (!isfinite(ns)) {
        buf[0] = '\0';
        return;
    }
    uint64_t a;
    bool neg;
    if (whole_ns(ns, &a, &neg))
        snprintf(buf, n, "%s%" PRIu64 ".%03" PRIu64, neg ? "-" : "", a / 1000, a % 1000);
    else
        snprintf(buf, n, "%.3f", round(ns) / 1000.0);
}

double report_goodput(const target_result *t)
{
    double good[64];
    size_t n = 0;
    for (size_t k = 0; k < t->nruns && n < 64; k++)
        good[n++] = t->runs[k].goodput_per_s;
    return stats_median(good, n);
}

void report_client_figures(const target_result *t, client_figures *out)
{
    *out = (client_figures){.clients = 1, .threads = 1};
    double fair[64], spread[64], lo[64], hi[64];
    size_t n = 0;
    for (size_t k = 0; k < t->nruns && n < 64; k++) {
        const run_result *run = &t->runs[k];
        if (run->nclients == 0)
            continue;
        lo[n] = hi[n] = run->clients[0].throughput_per_s;
        for (size_t c = 1; c < run->nclients; c++) {
            double x = run->clients[c].throughput_per_s;
            lo[n] = x < lo[n] ? x : lo[n];
            hi[n] = x > hi[n] ? x : hi[n];
        }
        fair[n] = run->fairness;
        spread[n++] = run->stop_spread_s;
    }
    if (n == 0) {
        out->fairness = out->stop_spread_s = out->slowest_per_s = out->fastest_per_s = NAN;
        return;
    }
    out->clients = (int)t->runs[0].nclients;
    out->threads = t->runs[0].threads;
    out->fairness = stats_median(fair, n);
    out->stop_spread_s = stats_median(spread, n);
    out->slowest_per_s = stats_median(lo, n);
    out->fastest_per_s = stats_median(hi, n);
}

const char *report_clients_text(const target_result *t, char *buf, size_t size)
{
    client_figures cf;
    report_client_figures(t, &cf);
    buf[0] = '\0';
    if (cf.clients <= 1)
        return buf;
    char lo[64], hi[64];
    report_fmt_throughput(cf.slowest_per_s, lo, sizeof lo);
    report_fmt_throughput(cf.fastest_per_s, hi, sizeof hi);
    snprintf(buf, size,
             "%d clients on %d thread%s; per client %s to %s commands/s; Jain's fairness index "
             "%.3f; stop spread %.3f ms (run medians)",
             cf.clients, cf.threads, cf.threads == 1 ? "" : "s", lo, hi, cf.fairness,
             cf.stop_spread_s * 1e3);
    return buf;
}

/* A verb's counter (a uint64_t at offset in verb_result) over every run. */
static uint64_t verb_total(const target_result *t, size_t v, size_t offset)
{
    uint64_t sum = 0;
    for (size_t k = 0; k < t->nruns; k++)
        if (v < t->runs[k].nverbs)
            sum += *(const uint64_t *)((const char *)&t->runs[k].verbs[v] + offset);
    return sum;
}

/* " (Verb N, Verb M)": the verbs whose counter at offset is above 0, after
 * buf[*used]. */
static void put_per_verb(const target_result *t, size_t offset, char *buf, size_t size,
                         size_t *used)
{
    const run_result *first = t->nruns ? &t->runs[0] : NULL;
    const char *sep = " (";
    char n[32];
    for (size_t v = 0; first && v < first->nverbs && *used < size; v++) {
        uint64_t per = verb_total(t, v, offset);
        if (!per)
            continue;
        report_fmt_int((int64_t)per, n, sizeof n);
        *used +=
            (size_t)snprintf(buf + *used, size - *used, "%s%s %s", sep, first->verbs[v].verb, n);
        sep = ", ";
    }
    if (*sep == ',' && *used < size)
        *used += (size_t)snprintf(buf + *used, size - *used, ")");
}

const char *report_failed_text(const target_result *t, uint64_t *failed, char *buf, size_t size)
{
    *failed = 0;
    buf[0] = '\0';
    for (size_t v = 0; t->nruns && v < t->runs[0].nverbs; v++)
        *failed += verb_total(t, v, offsetof(verb_result, failed));
    if (!*failed)
        return buf;
    char n[32];
    report_fmt_int((int64_t)*failed, n, sizeof n);
    size_t used = (size_t)snprintf(buf, size, "%s command%s", n, *failed == 1 ? "" : "s");
    put_per_verb(t, offsetof(verb_result, failed), buf, size, &used);
    if (used < size)
        snprintf(buf + used, size - used,
                 " failed on the last try, each rolled back, kept out of the latencies and its "
                 "cycle abandoned (all runs)");
    return buf;
}

const char *report_contention_text(const target_result *t, uint64_t *retries, uint64_t *waits,
                                   char *buf, size_t size)
{
    *retries = *waits = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < t->nruns; k++) {
        *waits += t->runs[k].lock_waits;
        for (size_t v = 0; v < t->runs[k].nverbs; v++)
            *retries += t->runs[k].verbs[v].retries;
    }
    if (!*retries && !*waits)
        return buf;
    char n[32];
    report_fmt_int((int64_t)*retries, n, sizeof n);
    size_t used = (size_t)snprintf(buf, size, "%s retr%s", n, *retries == 1 ? "y" : "ies");
    if (*retries)
        put_per_verb(t, offsetof(verb_result, retries), buf, size, &used);
    report_fmt_int((int64_t)*waits, n, sizeof n);
    if (used < size)
        snprintf(buf + used, size - used, "; %s lock wait%s (all runs)", n, *waits == 1 ? "" : "s");
    return buf;
}

const char *report_flow_shares(const target_result *t, char *buf, size_t size)
{
    buf[0] = '\0';
    if (t->nruns == 0 || t->runs[0].nflows < 2)
        return buf;
    size_t used = 0;
    uint64_t all = 0;
    for (size_t k = 0; k < t->nruns; k++)
        for (size_t f = 0; f < t->runs[k].nflows; f++)
            all += t->runs[k].flows[f].cycles;
    for (size_t f = 0; f < t->runs[0].nflows && used < size; f++) {
        uint64_t cycles = 0, skipped = 0, counted = 0;
        for (size_t k = 0; k < t->nruns; k++)
            if (f < t->runs[k].nflows) {
                cycles += t->runs[k].flows[f].cycles;
                skipped += t->runs[k].flows[f].skipped;
                counted += t->runs[k].flows[f].refused_counted;
            }
        const flow_result *fr = &t->runs[0].flows[f];
        int w = snprintf(buf + used, size - used, "%s%s %.1f%% asked, %.1f%% ran", f ? "; " : "",
                         fr->flow, 100.0 * fr->requested_share,
                         all ? 100.0 * (double)cycles / (double)all : 0.0);
        used += w > 0 ? (size_t)w : 0;
        if (skipped && used < size) {
            w = snprintf(buf + used, size - used, ", %" PRIu64 " cycle%s it could not run", skipped,
                         skipped == 1 ? "" : "s");
            used += w > 0 ? (size_t)w : 0;
        }
        if (counted && used < size) {
            w = snprintf(buf + used, size - used, ", %" PRIu64 " refusal%s counted", counted,
                         counted == 1 ? "" : "s");
            used += w > 0 ? (size_t)w : 0;
        }
    }
    return buf;
}
