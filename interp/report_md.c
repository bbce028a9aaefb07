/* report_md.c: the Markdown report, laid out as the seed's benchmark page:
 * environment bullets, one sentence of settings, the table, then verify,
 * floors, skips and failures. Every figure goes through the report_fmt_*
 * helpers, whose rounding docs/benchmarks.md states. */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- printing ----------------------------------------------------------- */

/* Prints s on one line: line breaks and tabs become spaces, and in a table
 * cell a '|' is escaped. */
static void put_inline(FILE *out, const char *s, bool cell)
{
    for (; s && *s; s++) {
        if (*s == '\n' || *s == '\r' || *s == '\t')
            fputc(' ', out);
        else if (*s == '|' && cell)
            fputs("\\|", out);
        else
            fputc(*s, out);
    }
}

static void put_int(FILE *out, int64_t v)
{
    char buf[48];
    report_fmt_int(v, buf, sizeof buf);
    fputs(buf, out);
}

/* "N cycle" or "N cycles". */
static void put_count(FILE *out, int64_t v, const char *one, const char *many)
{
    put_int(out, v);
    fprintf(out, " %s", v == 1 ? one : many);
}

static void put_load(FILE *out, const double load[3])
{
    for (int i = 0; i < 3; i++) {
        if (i)
            fputs(", ", out);
        char text[64];
        report_fmt_load(load[i], text, sizeof text);
        fputs(text, out);
    }
}

static void bullet(FILE *out, const char *name, const char *value)
{
    fprintf(out, "- %s: ", name);
    put_inline(out, value && *value ? value : "unknown", false);
    fputc('\n', out);
}

static void put_environment(FILE *out, const environment *e)
{
    bullet(out, "CPU", e->cpu_model);
    fprintf(out, "- Cores: %d\n", e->cores);
    char memory[64] = "unknown";
    if (e->memory_bytes > 0)
        report_fmt_gib((double)e->memory_bytes, memory, sizeof memory);
    fprintf(out, "- Memory: %s\n", memory);
    bullet(out, "OS", e->os);
    bullet(out, "Kernel", e->kernel);
    bullet(out, "Clock source", e->clock_source);
    bullet(out, "CPU affinity", e->affinity);
    bullet(out, "Compiler", e->compiler);
    fputs("- Build: ", out);
    put_inline(out, *e->build_type ? e->build_type : "unknown", false);
    if (*e->build_flags) {
        fputs(" (", out);
        put_inline(out, e->build_flags, false);
        fputc(')', out);
    }
    fputc('\n', out);
    bullet(out, "Libraries", e->libraries);
    if (*e->postgres)
        bullet(out, "PostgreSQL", e->postgres);
    fputs("- bench: ", out);
    put_inline(out, *e->version ? e->version : "unknown", false);
    fputs(", commit ", out);
    put_inline(out, *e->commit ? e->commit : "unknown", false);
    fputs("\n- Load average (1, 5, 15 min): ", out);
    put_load(out, e->load_before);
    fputs(" before → ", out);
    put_load(out, e->load_after);
    fputs(" after\n", out);
    if (*e->label)
        bullet(out, "Label", e->label);
    bullet(out, "Date", e->date);
}

/* A sweep of rates: " offered at 500, 1000 cycles/s (a sweep, one row per
 * rate; open loop)", the levels in the order they ran; false without one. */
static bool put_rate_sweep(FILE *out, const report *r)
{
    bool any = false;
    for (size_t i = 0; i < r->nresults; i++) {
        const target_result *t = &r->results[i];
        bool seen = !(t->sweep_rate > 0);
        for (size_t k = 0; k < i && !seen; k++)
            seen = r->results[k].sweep_rate == t->sweep_rate;
        if (seen)
            continue;
        fprintf(out, "%s%.15g", any ? ", " : " offered at ", t->sweep_rate);
        any = true;
    }
    if (any)
        fputs(" cycles/s (a sweep, one row per rate; open loop)", out);
    return any;
}

static void put_settings(FILE *out, const report *r)
{
    const run_config *c = &r->config;
    fputs("Warmup ", out);
    put_count(out, c->warmup, "cycle", "cycles");
    fputs(", ", out);
    if (c->duration_s > 0)
        fprintf(out, "timed for %g s", c->duration_s);
    else
        put_count(out, c->iterations, "timed cycle", "timed cycles");
    if (!put_rate_sweep(out, r) && c->rate > 0)
        fprintf(out, " offered at %g cycles/s (open loop)", c->rate);
    if (c->clients > 1) {
        fputs(" per client and run, ", out);
        put_count(out, c->clients, "client", "clients");
        fputs(" at once", out);
    }
    fputs(" per run, ", out);
    put_count(out, c->runs, "run", "runs");
    fputs(" per target, prefill ", out);
    bool all_zero = true;
    for (size_t i = 0; i < c->nprefill; i++) {
        if (i)
            fputs(i + 1 == c->nprefill ? " and " : ", ", out);
        put_int(out, c->prefill[i]);
        all_zero = all_zero && c->prefill[i] == 0;
    }
    if (c->nprefill == 0)
        fputc('0', out);
    fputs(all_zero ? "" : " cycles", out);
    fputs("; latencies are nearest-rank percentiles of every timed command, medians across runs.",
          out);
    if (c->cpu) {
        fputs(" Placement: --cpu ", out);
        put_inline(out, c->cpu, false);
        fputc('.', out);
    }
    if (c->samples)
        fputs(" Raw samples were recorded (--samples).", out);
    fputc('\n', out);
}

static void put_row(FILE *out, const target_result *t)
{
    char target[512], tput[64], lo[64], hi[64], p50[64], p99[64], drift[64];
    run_figures m;
    double tlo, thi;
    report_result_figures(t, &m, &tlo, &thi);
    results_target_cell(t, target, sizeof target);
    report_fmt_throughput(m.throughput_per_s, tput, sizeof tput);
    report_fmt_throughput(tlo, lo, sizeof lo);
    report_fmt_throughput(thi, hi, sizeof hi);
    report_fmt_us(m.p50_ns, p50, sizeof p50);
    report_fmt_us(m.p99_ns, p99, sizeof p99);
    report_fmt_drift(m.drift, drift, sizeof drift);
    fputs("| ", out);
    put_inline(out, t->domain, true);
    fputs(" | ", out);
    put_inline(out, target, true);
    if (t->failed) { /* the runs that finished are not the row's figures */
        fputs(" | failed | ", out);
        if (t->failed_run > 0)
            fprintf(out, "in run %d", t->failed_run);
        fputs(" | n/a | n/a | n/a |\n", out);
        return;
    }
    if (t->unstable)
        fputs(" (unstable)", out);
    fprintf(out, " | %s | ", tput);
    if (!isfinite(tlo) && !isfinite(thi))
        fputs("n/a", out);
    else
        fprintf(out, "%s to %s", lo, hi);
    fprintf(out, " | %s | %s | %s |\n", p50, p99, drift);
}

static bool same(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Whether result i is the first of its domain. */
static bool first_of_domain(const report *r, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (same(r->results[j].domain, r->results[i].domain))
            return false;
    return true;
}

/* One line per domain, in the order domains first appear. */
static void put_verify(FILE *out, const report *r)
{
    for (size_t i = 0; i < r->nresults; i++) {
        const char *domain = r->results[i].domain;
        if (!first_of_domain(r, i))
            continue;
        fputs("Verify (", out);
        put_inline(out, domain, false);
        fputs("): ", out);
        bool first = true;
        for (size_t j = i; j < r->nresults; j++) {
            const target_result *t = &r->results[j];
            if (!same(t->domain, domain))
                continue;
            char target[512];
            results_target_cell(t, target, sizeof target);
            fputs(first ? "" : ", ", out);
            put_inline(out, target, false);
            fprintf(out, " %s", results_verify_name(t->verify));
            const char *level = results_verify_level_text(t->verify_level);
            if (t->verify == VERIFY_PASS && level)
                fprintf(out, " (%s)", level);
            if (t->verify == VERIFY_FAIL && *t->verify_detail) {
                fputs(" (", out);
                put_inline(out, t->verify_detail, false);
                fputc(')', out);
            }
            first = false;
        }
        fputs(".\n", out);
    }
}

/* The median of one open-loop figure across a result's runs. */
static double open_median(const target_result *t, size_t offset)
{
    double v[64];
    size_t n = 0;
    for (size_t k = 0; k < t->nruns && n < 64; k++)
        v[n++] = *(const double *)((const char *)&t->runs[k] + offset);
    return stats_median(v, n);
}

/* "Open loop: target (domain): offered R cycles/s, achieved A; latencies
 * are response times ...; service p50/p99; lag p50/p99/max; N late, M
 * dropped[, K not started when the duration ended]." and a sentence when
 * the target fell behind. */
static void put_open_loop(FILE *out, const report *r)
{
    for (size_t i = 0; i < r->nresults; i++) {
        const target_result *t = &r->results[i];
        if (t->failed || !t->nruns || !t->runs[0].open_loop)
            continue;
        uint64_t late = 0, dropped = 0, not_started = 0, offered = 0, completed = 0;
        for (size_t k = 0; k < t->nruns; k++) {
            late += t->runs[k].late;
            dropped += t->runs[k].dropped;
            not_started += t->runs[k].not_started;
            offered += t->runs[k].offered;
            completed += t->runs[k].completed;
        }
        char target[512], off[64], ach[64], s50[64], s99[64], l50[64], l99[64], lmax[64];
        results_target_cell(t, target, sizeof target);
        double offered_rate = open_median(t, offsetof(run_result, offered_rate));
        double achieved = open_median(t, offsetof(run_result, achieved_rate));
        report_fmt_throughput(offered_rate, off, sizeof off);
        report_fmt_throughput(achieved, ach, sizeof ach);
        report_fmt_us(open_median(t, offsetof(run_result, service_p50_ns)), s50, sizeof s50);
        report_fmt_us(open_median(t, offsetof(run_result, service_p99_ns)), s99, sizeof s99);
        report_fmt_us(open_median(t, offsetof(run_result, lag_p50_ns)), l50, sizeof l50);
        report_fmt_us(open_median(t, offsetof(run_result, lag_p99_ns)), l99, sizeof l99);
        report_fmt_us(open_median(t, offsetof(run_result, lag_max_ns)), lmax, sizeof lmax);
        fputs("Open loop: ", out);
        put_inline(out, target, false);
        fputs(" (", out);
        put_inline(out, t->domain, false);
        fprintf(out,
                "): offered %s cycles/s, achieved %s; its latencies are response times (from "
                "each cycle's intended start); service time p50 %s us, p99 %s us; schedule "
                "lag p50 %s us, p99 %s us, max %s us; %" PRIu64 " of %" PRIu64
                " cycles late, %" PRIu64 " dropped",
                off, ach, s50, s99, l50, l99, lmax, late, completed, dropped);
        if (not_started)
            fprintf(out, ", %" PRIu64 " not started when the duration ended", not_started);
        fputs(" (all runs).\n", out);
        if (isfinite(achieved) && isfinite(offered_rate) && achieved < 0.95 * offered_rate) {
            fputs("Behind: ", out);
            put_inline(out, target, false);
            fprintf(out,
                    " completed %s of the %s cycles/s offered (%" PRIu64 " of %" PRIu64
                    " cycles): it cannot keep up, and its response times include the "
                    "backlog.",
                    ach, off, completed, offered);
            if (not_started)
                fprintf(out,
                        " The %" PRIu64 " cycles not started when the duration ended have no "
                        "response time: the backlog was longer than these figures show.",
                        not_started);
            fputs(t->runs[0].nclients > 1
                      ? "\n"
                      : " One client runs one cycle at a time: this is what one client reaches "
                        "here, and more clients may reach the rate offered.\n",
                  out);
        }
    }
}

/* "Label: target (domain): ", the start of a line about one result. */
static void put_result_head(FILE *out, const char *label, const target_result *t)
{
    char target[512];
    results_target_cell(t, target, sizeof target);
    fputs(label, out);
    put_inline(out, target, false);
    fputs(" (", out);
    put_inline(out, t->domain, false);
    fputs("): ", out);
}

/* "What: target (domain): text." for one result. */
static void put_result_line(FILE *out, const char *what, const target_result *t, const char *text)
{
    char label[64];
    snprintf(label, sizeof label, "%s: ", what);
    put_result_head(out, label, t);
    put_inline(out, text, false);
    fputs(".\n", out);
}

/* "Mix: target (domain): order 10.0% asked, 9.8% ran; ..." for each result
 * of a workload of several flows. */
static void put_mix(FILE *out, const report *r)
{
    for (size_t i = 0; i < r->nresults; i++) {
        char shares[1024];
        if (report_flow_shares(&r->results[i], shares, sizeof shares)[0])
            put_result_line(out, "Mix", &r->results[i], shares);
    }
}

/* "Goodput: target (domain): G of T commands/s succeeded; refused and
 * counted: Verb N." for each result whose timed commands were refused
 * (expect: refused or on_refusal: count); goodput is the median across runs. */
static void put_goodput(FILE *out, const report *r)
{
    for (size_t i = 0; i < r->nresults; i++) {
        const target_result *t = &r->results[i];
        uint64_t refusals = 0, counted = 0;
        for (size_t k = 0; k < t->nruns; k++)
            for (size_t v = 0; v < t->runs[k].nverbs; v++) {
                refusals += t->runs[k].verbs[v].refused + t->runs[k].verbs[v].refused_counted;
                counted += t->runs[k].verbs[v].refused_counted;
            }
        double g = report_goodput(t);
        if (t->failed || refusals == 0 || !isfinite(g))
            continue;
        char target[512], gs[64], ts[64];
        run_figures m;
        double tlo, thi;
        report_result_figures(t, &m, &tlo, &thi);
        results_target_cell(t, target, sizeof target);
        report_fmt_throughput(g, gs, sizeof gs);
        report_fmt_throughput(m.throughput_per_s, ts, sizeof ts);
        fputs("Goodput: ", out);
        put_inline(out, target, false);
        fputs(" (", out);
        put_inline(out, t->domain, false);
        fprintf(out, "): %s of %s commands/s succeeded", gs, ts);
        bool first = true;
        for (size_t v = 0; counted && t->nruns && v < t->runs[0].nverbs; v++) {
            uint64_t c = 0;
            for (size_t k = 0; k < t->nruns; k++)
                c += v < t->runs[k].nverbs ? t->runs[k].verbs[v].refused_counted : 0;
            if (!c)
                continue;
            fputs(first ? "; refused and counted (all runs): " : ", ", out);
            first = false;
            put_inline(out, t->runs[0].verbs[v].verb, false);
            fprintf(out, " %" PRIu64, c);
        }
        fputs(".\n", out);
    }
}

/* "Scans: target (domain): User.Scan 51,200 rows in 1,000 scans (51.2 a
 * scan), all runs." for each result with a scan verb, so that what the
 * scans read can be compared across targets. */
static void put_scans(FILE *out, const report *r)
{
    for (size_t i = 0; i < r->nresults; i++) {
        const target_result *t = &r->results[i];
        bool first = true;
        for (size_t v = 0; !t->failed && t->nruns && v < t->runs[0].nverbs; v++) {
            if (!t->runs[0].verbs[v].scan)
                continue;
            uint64_t rows = 0, scans = 0;
            for (size_t k = 0; k < t->nruns; k++)
                if (v < t->runs[k].nverbs) {
                    rows += t->runs[k].verbs[v].rows_returned;
                    scans += t->runs[k].verbs[v].count;
                }
            if (first)
                put_result_head(out, "Scans: ", t);
            else
                fputs("; ", out);
            first = false;
            char rs[32], ss[32];
            report_fmt_int((int64_t)rows, rs, sizeof rs);
            report_fmt_int((int64_t)scans, ss, sizeof ss);
            put_inline(out, t->runs[0].verbs[v].verb, false);
            fprintf(out, " %s rows in %s scans (%.1f a scan)", rs, ss,
                    scans ? (double)rows / (double)scans : 0.0);
        }
        if (!first)
            fputs(", all runs.\n", out);
    }
}

/* "Unstable: target (domain): run N: reasons." for each unstable result. */
static void put_unstable(FILE *out, const report *r)
{
    for (size_t i = 0; i < r->nresults; i++) {
        const target_result *t = &r->results[i];
        if (!t->unstable)
            continue;
        put_result_head(out, "Unstable: ", t);
        put_inline(out, t->unstable_reason, false);
        fputs(".\n", out);
    }
}

/* One line per domain: where each target ran. */
static void put_placement(FILE *out, const report *r)
{
    for (size_t i = 0; i < r->nresults; i++) {
        const char *domain = r->results[i].domain;
        if (!first_of_domain(r, i))
            continue;
        bool first = true;
        for (size_t j = i; j < r->nresults; j++) {
            const target_result *t = &r->results[j];
            if (!same(t->domain, domain) || !*t->placement)
                continue;
            char target[512];
            results_target_cell(t, target, sizeof target);
            if (first) {
                fputs("Placement (", out);
                put_inline(out, domain, false);
                fputs("): ", out);
            }
            fputs(first ? "" : "; ", out);
            put_inline(out, target, false);
            fputs(": ", out);
            put_inline(out, t->placement, false);
            first = false;
        }
        if (!first)
            fputs(".\n", out);
    }
}

static void put_floors(FILE *out, const report *r)
{
    char v[64], cost[64];
    report_fmt_us(r->harness_floor_p50_ns, v, sizeof v);
    report_fmt_ns(r->harness_cost_ns_per_command, cost, sizeof cost);
    fprintf(out,
            "Harness floor (null target, p50): %s%s; harness cost (null target, wall time per "
            "command): %s%s.\n",
            v, isfinite(r->harness_floor_p50_ns) ? " us" : "", cost,
            isfinite(r->harness_cost_ns_per_command) ? " ns" : "");
    for (size_t i = 0; i < r->nresults; i++) {
        const target_result *t = &r->results[i];
        double floor_ns = report_roundtrip_floor_ns(t);
        if (!isfinite(floor_ns))
            continue;
        char target[512];
        results_target_cell(t, target, sizeof target);
        report_fmt_us(floor_ns, v, sizeof v);
        fputs("Round-trip floor (p50) for ", out);
        put_inline(out, target, false);
        fputs(" (", out);
        put_inline(out, t->domain, false);
        fprintf(out, "): %s us.\n", v);
    }
}

static void put_list(FILE *out, const char *title, const label_reason *v, size_t n)
{
    if (n == 0)
        return;
    fprintf(out, "\n%s\n", title);
    for (size_t i = 0; i < n; i++) {
        fputs("- ", out);
        put_inline(out, v[i].label, false);
        fputs(": ", out);
        put_inline(out, v[i].reason, false);
        fputc('\n', out);
    }
}

/* "Clients: target (domain): N clients on T threads; ..." (report_clients_text). */
static void put_clients(FILE *out, const report *r)
{
    for (size_t i = 0; i < r->nresults; i++) {
        char text[512];
        if (!r->results[i].failed && report_clients_text(&r->results[i], text, sizeof text)[0])
            put_result_line(out, "Clients", &r->results[i], text);
    }
}

/* "Contention: target (domain): N retries (Verb N); M lock waits (all runs)." */
static void put_contention(FILE *out, const report *r)
{
    for (size_t i = 0; i < r->nresults; i++) {
        char text[1024];
        uint64_t retries, waits;
        if (report_contention_text(&r->results[i], &retries, &waits, text, sizeof text)[0])
            put_result_line(out, "Contention", &r->results[i], text);
    }
}

/* "Failed after retries: target (domain): N commands (Verb N) failed on
 * the last try, ..." */
static void put_failed(FILE *out, const report *r)
{
    for (size_t i = 0; i < r->nresults; i++) {
        char text[1024];
        uint64_t failed;
        if (report_failed_text(&r->results[i], &failed, text, sizeof text)[0])
            put_result_line(out, "Failed after retries", &r->results[i], text);
    }
}

int report_markdown(const report *r, FILE *out)
{
    put_environment(out, &r->env);
    fputc('\n', out);
    put_settings(out, r);
    fputs("\n| domain | target | commands/s | range across runs | p50 (us) | p99 (us) | drift |\n"
          "|---|---|---:|---:|---:|---:|---:|\n",
          out);
    for (size_t i = 0; i < r->nresults; i++)
        put_row(out, &r->results[i]);
    if (r->nresults > 0) {
        fputc('\n', out);
        put_verify(out, r);
        put_goodput(out, r);
        put_scans(out, r);
        put_open_loop(out, r);
        put_clients(out, r);
        put_contention(out, r);
        put_failed(out, r);
        put_mix(out, r);
        put_unstable(out, r);
        put_placement(out, r);
    }
    fputc('\n', out);
    put_floors(out, r);
    put_list(out, "Skipped:", r->skipped, r->nskipped);
    put_list(out, "Failed:", r->failed, r->nfailed);
    if (r->interrupted)
        fputs("\nInterrupted: the runs that finished are reported.\n", out);
    return ferror(out) ? -1 : 0;
}
