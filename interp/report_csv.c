/* report_csv.c: one row per result with its median figures, its status
 * (ok, unstable, failed) and why, for spreadsheets; the harness floor and
 * cost repeat on every row. Numbers are the JSON's own texts (µs with three decimals,
 * other figures exact); an absent figure is an empty field. */
#include "report.h"

#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

static const char csv_header[] =
    "domain,target,label,prefill,durability,runs,commands_per_s,throughput_min,throughput_max,"
    "p50_us,p90_us,p99_us,p999_us,max_us,mean_us,drift,verify,verify_level,status,failed_run,"
    "status_reason,"
    "placement,harness_floor_p50_us,harness_cost_ns_per_command,goodput_per_s,flow_shares,"
    "clients,threads,fairness,stop_spread_s,retries,lock_waits,failed\n";

/* A field, quoted as RFC 4180 asks when it holds a comma, a quote or a line
 * break (or starts or ends with a space, which some readers trim). */
static void put_field(FILE *out, const char *s)
{
    s = s ? s : "";
    size_t len = strlen(s);
    bool quote = strpbrk(s, ",\"\r\n") != NULL || (len > 0 && (s[0] == ' ' || s[len - 1] == ' '));
    if (!quote) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void put_us(FILE *out, double ns)
{
    char buf[64];
    report_fmt_us3(ns, buf, sizeof buf);
    fprintf(out, ",%s", buf);
}

static void put_double(FILE *out, double v)
{
    char buf[64];
    num_text_double(v, buf, sizeof buf);
    fprintf(out, ",%s", buf);
}

static void put_row(FILE *out, const report *r, const target_result *t)
{
    run_figures m;
    double lo, hi;
    report_result_figures(t, &m, &lo, &hi);
    put_field(out, t->domain);
    fputc(',', out);
    put_field(out, t->target);
    fputc(',', out);
    put_field(out, t->label);
    fprintf(out, ",%" PRId64 ",", t->prefill);
    put_field(out, t->durability);
    fprintf(out, ",%zu", t->nruns);
    put_double(out, m.throughput_per_s);
    put_double(out, lo);
    put_double(out, hi);
    put_us(out, m.p50_ns);
    put_us(out, m.p90_ns);
    put_us(out, m.p99_ns);
    put_us(out, m.p999_ns);
    put_us(out, m.max_ns);
    put_us(out, m.mean_ns);
    put_double(out, m.drift);
    fprintf(out, ",%s,", results_verify_name(t->verify));
    put_field(out, t->verify_level);
    fprintf(out, ",%s,", results_status_name(t));
    if (t->failed_run > 0)
        fprintf(out, "%d", t->failed_run);
    fputc(',', out);
    put_field(out, t->failed ? t->reason : t->unstable_reason);
    fputc(',', out);
    put_field(out, t->placement);
    put_us(out, r->harness_floor_p50_ns);
    put_double(out, r->harness_cost_ns_per_command);
    put_double(out, report_goodput(t));
    char shares[1024];
    fputc(',', out);
    put_field(out, report_flow_shares(t, shares, sizeof shares));
    client_figures cf;
    report_client_figures(t, &cf);
    fprintf(out, ",%d,%d", cf.clients, cf.threads);
    put_double(out, cf.fairness);
    put_double(out, cf.stop_spread_s);
    uint64_t retries, waits;
    report_contention_text(t, &retries, &waits, shares, sizeof shares);
    uint64_t failed;
    report_failed_text(t, &failed, shares, sizeof shares);
    fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", retries, waits, failed);
}

int report_csv(const report *r, FILE *out)
{
    fputs(csv_header, out);
    for (size_t i = 0; i < r->nresults; i++)
        put_row(out, r, &r->results[i]);
    return ferror(out) ? -1 : 0;
}
