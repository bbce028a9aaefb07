/* report_html.h: `bench report --html`: one self-contained HTML page (inline
 * CSS and SVG drawn here, no script, nothing fetched) from a result file:
 * the results table, throughput per target on a log scale with its run
 * range, the latency percentile distribution per target on log scales,
 * latency against store size for a prefill sweep, p50/p99 per tenth of the
 * timed pass, the intervals over time, each verb and flow with its refusals,
 * optionally the deltas against a baseline, and the environment. Each row
 * has a colour of its own: its target's hue, in a shade of its own. */
#ifndef BENCH_REPORT_HTML_H
#define BENCH_REPORT_HTML_H

#include <stdio.h>

#include "compare.h"
#include "results.h"

/* Writes the page for r, a result file as results_load reads it (lent);
 * source names it on the page. Latency percentiles come from every run's
 * histogram merged (hist_percentile). Each chart is an <svg role="img"> with a <title>: id
 * chart-throughput (a <rect class="bar"> and a <line class="range"> per result), chart-latency (a
 * <path class="series"> per result), chart-drift (a <g class="panel"> per result, each with <path
 * class="line p50"> and <path class="line p99">), chart-cost when some target ran at two prefill
 * sizes (a <path class="series cost p50"> and one p99 per target and domain, a <circle
 * class="point"> per figure), a <table id="verbs"> with a row per verb. Results that failed or have
 * no runs are listed, not drawn. Returns 0, or -1 when out of memory or when out reports a write
 * error. */
int report_html(const report *r, const char *source, FILE *out);
/* As report_html for cur's report (its path names it), and with base (may be
 * NULL) a section "Against the baseline" (id baseline: compare_results of
 * base against cur, a row per metric with base, current, change and
 * verdict) and a <line class="baseline"> on each throughput bar that base
 * has. Both are lent. */
int report_html_compared(const result_file *cur, const result_file *base, FILE *out);

#endif
