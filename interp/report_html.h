/* report_html.h: `bench report --html`: one self-contained HTML page (inline
 * CSS and SVG drawn here, no script, nothing fetched) from a result file:
 * the results table, throughput per target with its run range, the latency
 * percentile distribution per target on log scales, p50/p99 per tenth of the
 * timed pass, and the environment. */
#ifndef BENCH_REPORT_HTML_H
#define BENCH_REPORT_HTML_H

#include <stdio.h>

#include "results.h"

/* Writes the page for r, a result file as results_load reads it (lent);
 * source names it on the page. Latency percentiles come from every run's
 * histogram merged (hist_percentile). Each chart is an <svg role="img"> with a <title>: id
 * chart-throughput (a <rect class="bar"> and a <line class="range"> per result), chart-latency (a
 * <path class="series"> per result), chart-drift (a <g class="panel"> per result, each with <path
 * class="line p50"> and <path class="line p99">). Results that failed or have no runs are listed,
 * not drawn. Returns 0, or -1 when out of memory or when out reports a write error. */
int report_html(const report *r, const char *source, FILE *out);

#endif
