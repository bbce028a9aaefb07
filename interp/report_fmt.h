/* report_fmt.h: every rounding and number text the reports use, in one
 * place: the Markdown's cells (docs/benchmarks.md states their rounding),
 * the JSON's own number texts (shared with the CSV), and the few words and
 * cells every writer prints alike. The Markdown, JSON, CSV and HTML writers
 * and compare call these and repeat no rule. */
#ifndef BENCH_REPORT_FMT_H
#define BENCH_REPORT_FMT_H

#include <stddef.h>
#include <stdint.h>

#include "num.h"
#include "results.h"

/* Each report_fmt_* writes a NUL-terminated string into buf[n] (truncated if
 * n is too small); the Markdown ones write "n/a" for NAN or infinity.
 *
 * report_fmt_throughput: the nearest integer (halves away from zero) with
 *     thousands separators: 53849.5 -> "53,850".
 * report_fmt_us: a latency given in ns, first rounded to a whole ns (halves
 *     away from zero), exactly as the JSON's µs figure, then shown in µs with
 *     at least three significant digits: three decimals below 10 µs (the JSON
 *     figure itself: 449.6 -> "0.450"), two below 100 µs (to 10 ns, halves up:
 *     12345 -> "12.35"), one from 100 µs (to 100 ns, halves up: 1476950 ->
 *     "1,477.0", 999950 -> "1,000.0"), with thousands separators.
 * report_fmt_drift: two decimals, rounded to nearest from the double's exact
 *     binary value as printf's "%.2f" does: 1.1071 -> "1.11".
 * report_fmt_ns: nanoseconds with one decimal, rounded as printf's "%.1f":
 *     85.26 -> "85.3" (the harness cost per command).
 * report_fmt_int: the integer with thousands separators: -1234567 -> "-1,234,567".
 * report_fmt_gib: bytes in GiB with one decimal: 8589934592 -> "8.0 GiB".
 * report_fmt_load: a load average with two decimals, "n/a" when negative. */
void report_fmt_throughput(double v, char *buf, size_t n);
void report_fmt_us(double ns, char *buf, size_t n);
void report_fmt_drift(double d, char *buf, size_t n);
void report_fmt_ns(double ns, char *buf, size_t n);
void report_fmt_int(int64_t v, char *buf, size_t n);
void report_fmt_gib(double bytes, char *buf, size_t n);
void report_fmt_load(double load, char *buf, size_t n);

/* The JSON's own number texts, shared with the CSV; "" when absent (NAN or
 * infinity). report_fmt_us3: ns as µs with three decimals, from round(ns)
 * (halves away from zero): 1476950.4 -> "1476.950" (its number is
 * num_us_of_ns's); a double's text is num_text_double's (num.h). */
void report_fmt_us3(double ns, char *buf, size_t n);

/* A result's goodput (timed commands that succeeded per second), the
 * median across its runs; NAN when unknown. */
double report_goodput(const target_result *t);

/* Several clients (DESIGN section 10): a result's clients and threads (its
 * first run's; 1 and 1 with one client) and the median across its runs of
 * Jain's fairness index, the stop spread (s), and the lowest and highest
 * client throughput (NAN with one client). */
typedef struct client_figures {
    int clients, threads;
    double fairness, stop_spread_s, slowest_per_s, fastest_per_s;
} client_figures;
void report_client_figures(const target_result *t, client_figures *out);
/* "4 clients on 2 threads; per client 41,000 to 43,000 commands/s; Jain's
 * fairness index 0.998; stop spread 0.120 ms (run medians)" into buf
 * (returned); "" with one client. */
const char *report_clients_text(const target_result *t, char *buf, size_t size);
/* A result's retries and lock waits over every run, in *retries and
 * *waits; and "12 retries (Counter.Increment 12); 3 lock waits" into buf
 * (returned), "" when both are 0. */
const char *report_contention_text(const target_result *t, uint64_t *retries, uint64_t *waits,
                                   char *buf, size_t size);
/* A result's commands that failed on the retry option's last try, over
 * every run, in *failed; and "12 commands (Counter.Increment 12) failed on
 * the last try, ..." into buf (returned), "" when there were none. */
const char *report_failed_text(const target_result *t, uint64_t *failed, char *buf, size_t size);
/* "order 10.0% asked, 9.8% ran; top 80.0% asked, 80.2% ran, 3 cycles it
 * could not run, 2 refusals counted": each flow's requested share and the share of the timed
 * cycles it ran, over every run, into buf (returned); "" for one flow. */
const char *report_flow_shares(const target_result *t, char *buf, size_t size);

#endif
