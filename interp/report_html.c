/* report_html.c: the HTML page of a result file. Everything is drawn here as
 * SVG with inline CSS, so the page opens anywhere without a network or a
 * script. Each result is a series with one colour in every chart. */
#include "report_html.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "report_fmt.h"
#include "stats.h"

/* Okabe-Ito first (readable with colour-blindness), then more. */
static const char *const palette[] = {"#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7",
                                      "#56b4e9", "#8c6d31", "#000000", "#7f7f7f", "#bcbd22"};
#define NPALETTE (sizeof palette / sizeof palette[0])

#define WIDTH 960.0 /* every chart's width in SVG units */

typedef struct series {
    char name[512];   /* "pizzas · memory@1000 (normal)" */
    char metric[512]; /* "pizzas.memory@1000", the metric names' prefix */
    const char *color;
    const target_result *t;
    double tput, lo, hi;                         /* commands/s: median and range */
    double p50, p99, drift;                      /* median figures, µs */
    hist all;                                    /* every run's histogram merged */
    double t50[STATS_TENTHS], t99[STATS_TENTHS]; /* µs, median across runs per tenth */
} series;

typedef struct page {
    FILE *out;
    const report *r;
    series *s;
    size_t n;
} page;

/* ---- reading the results --------------------------------------------------- */

/* A result is drawn unless it failed or has no throughput (no run finished). */
static bool drawn(const target_result *t)
{
    return !t->failed && isfinite(t->median.throughput_per_s);
}

/* The nearest-rank q-quantile of every run's commands, in µs. */
static double percentile_us(const series *s, double q)
{
    return (double)hist_percentile(&s->all, q) / 1000.0;
}

/* The median across runs of each tenth's p50 and p99, from the µs figures
 * the file holds. */
static void tenths_median(series *s)
{
    size_t nruns = s->t->nruns;
    double *a = calloc(nruns ? nruns : 1, sizeof *a), *b = calloc(nruns ? nruns : 1, sizeof *b);
    for (int t = 0; t < STATS_TENTHS; t++) {
        for (size_t k = 0; a && b && k < nruns; k++) {
            a[k] = report_us_of_ns(s->t->runs[k].fig.tenths[t].p50_ns);
            b[k] = report_us_of_ns(s->t->runs[k].fig.tenths[t].p99_ns);
        }
        s->t50[t] = a && b ? stats_median(a, nruns) : NAN;
        s->t99[t] = a && b ? stats_median(b, nruns) : NAN;
    }
    free(a);
    free(b);
}

static int collect(page *pg)
{
    const report *r = pg->r;
    pg->s = calloc(r->nresults ? r->nresults : 1, sizeof *pg->s);
    if (!pg->s)
        return -1;
    for (size_t i = 0; i < r->nresults; i++) {
        const target_result *t = &r->results[i];
        if (!drawn(t))
            continue;
        series *s = &pg->s[pg->n];
        if (hist_init(&s->all) < 0)
            return -1;
        pg->n++; /* its histogram is freed either way */
        s->t = t;
        s->color = palette[(pg->n - 1) % NPALETTE];
        char cell[400];
        results_target_cell(t, cell, sizeof cell);
        snprintf(s->name, sizeof s->name, "%s · %s", t->domain, cell);
        metric_prefix(t, s->metric, sizeof s->metric);
        s->tput = t->median.throughput_per_s;
        s->lo = t->throughput_lo;
        s->hi = t->throughput_hi;
        s->p50 = report_us_of_ns(t->median.p50_ns);
        s->p99 = report_us_of_ns(t->median.p99_ns);
        s->drift = t->median.drift;
        for (size_t k = 0; k < t->nruns; k++)
            hist_merge(&s->all, &t->runs[k].all);
        tenths_median(s);
    }
    return 0;
}

/* ---- text ----------------------------------------------------------------- */

static void esc(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*s, out);
        }
    }
}

/* 1234567 -> "1.23M", 56000 -> "56k", 0.5 -> "0.5". */
static void fmt_si(double v, char *buf, size_t n)
{
    double a = fabs(v);
    if (a >= 1e9)
        snprintf(buf, n, "%.3gG", v / 1e9);
    else if (a >= 1e6)
        snprintf(buf, n, "%.3gM", v / 1e6);
    else if (a >= 1e3)
        snprintf(buf, n, "%.3gk", v / 1e3);
    else
        snprintf(buf, n, "%.3g", v);
}

/* A latency in µs for an axis: "0.1 µs", "250 µs", "1.5 ms", "2 s". */
static void fmt_latency(double us, char *buf, size_t n)
{
    if (us >= 1e6)
        snprintf(buf, n, "%.3g s", us / 1e6);
    else if (us >= 1e3)
        snprintf(buf, n, "%.3g ms", us / 1e3);
    else
        snprintf(buf, n, "%.3g µs", us);
}

/* A µs figure as the Markdown report prints it. */
static void fmt_us(double us, char *buf, size_t n)
{
    report_fmt_us(isfinite(us) ? us * 1000.0 : NAN, buf, n);
}

/* The largest "nice" step (1, 2, 2.5 or 5 times a power of ten) that cuts
 * [0, max] into at most `ticks` parts. */
static double nice_step(double max, int ticks)
{
    double raw = max / ticks;
    double p = pow(10, floor(log10(raw)));
    static const double m[] = {1, 2, 2.5, 5, 10};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (m[i] * p >= raw)
            return m[i] * p;
    return 10 * p;
}

/* ---- SVG pieces ------------------------------------------------------------ */

static void svg_open(page *pg, const char *id, double height, const char *title, const char *desc)
{
    FILE *o = pg->out;
    fprintf(o,
            "<svg id=\"%s\" class=\"chart\" role=\"img\" aria-labelledby=\"%s-title %s-desc\" "
            "viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
            "xmlns=\"http://www.w3.org/2000/svg\">\n<title id=\"%s-title\">",
            id, id, id, WIDTH, height, WIDTH, height, id);
    esc(o, title);
    fprintf(o, "</title>\n<desc id=\"%s-desc\">", id);
    esc(o, desc);
    fputs("</desc>\n", o);
}

/* A legend row of series swatches from y, wrapping at the chart's width;
 * returns the height it took. */
static double legend_height(const page *pg)
{
    int per_row = 4;
    return 22.0 * (double)((pg->n + (size_t)per_row - 1) / (size_t)per_row);
}

static void legend(page *pg, double x0, double y0, bool line)
{
    FILE *o = pg->out;
    fputs("<g class=\"legend\">\n", o);
    for (size_t i = 0; i < pg->n; i++) {
        double x = x0 + (double)(i % 4) * 225.0, y = y0 + (double)(i / 4) * 22.0;
        if (line)
            fprintf(o,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                    "stroke-width=\"3\"/>",
                    x, y + 7, x + 18, y + 7, pg->s[i].color);
        else
            fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"14\" fill=\"%s\"/>", x, y,
                    pg->s[i].color);
        fprintf(o, "<text x=\"%.1f\" y=\"%.1f\">", x + 24, y + 11);
        esc(o, pg->s[i].name);
        fputs("</text>\n", o);
    }
    fputs("</g>\n", o);
}

/* ---- chart 1: throughput ---------------------------------------------------- */

static void chart_throughput(page *pg)
{
    FILE *o = pg->out;
    const double left = 250, right = 110, top = 34, row = 30, bar = 18, bottom = 52;
    double plot_w = WIDTH - left - right;
    double height = top + row * (double)pg->n + bottom;
    double max = 0;
    for (size_t i = 0; i < pg->n; i++)
        max = fmax(max, fmax(pg->s[i].tput, isfinite(pg->s[i].hi) ? pg->s[i].hi : 0));
    if (!(max > 0))
        max = 1;
    double step = nice_step(max, 6);
    double axis_max = ceil(max / step) * step;
    svg_open(pg, "chart-throughput", height, "Throughput per target",
             "Horizontal bars: the median commands per second across runs for each target; "
             "the whisker spans the slowest to the fastest run. Higher is better.");
    /* legend: what a bar and a whisker are */
    fprintf(o,
            "<g class=\"legend\"><rect x=\"%.1f\" y=\"8\" width=\"14\" height=\"14\" "
            "fill=\"#999\"/><text x=\"%.1f\" y=\"19\">median across runs</text>"
            "<line x1=\"%.1f\" y1=\"15\" x2=\"%.1f\" y2=\"15\" stroke=\"#222\" "
            "stroke-width=\"2\"/><line x1=\"%.1f\" y1=\"10\" x2=\"%.1f\" y2=\"20\" "
            "stroke=\"#222\" stroke-width=\"2\"/><line x1=\"%.1f\" y1=\"10\" x2=\"%.1f\" "
            "y2=\"20\" stroke=\"#222\" stroke-width=\"2\"/><text x=\"%.1f\" y=\"19\">range "
            "across runs (slowest to fastest)</text></g>\n",
            left, left + 20, left + 190, left + 220, left + 190, left + 190, left + 220, left + 220,
            left + 228);
    /* grid and x axis */
    double axis_y = top + row * (double)pg->n;
    fputs("<g class=\"axis x\">\n", o);
    for (double v = 0; v <= axis_max + step / 2; v += step) {
        double x = left + plot_w * v / axis_max;
        char label[32];
        fmt_si(v, label, sizeof label);
        fprintf(o,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                x, top, x, axis_y, x, axis_y + 16, label);
    }
    fprintf(o,
            "<line class=\"axis-line\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n"
            "<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">commands "
            "per second (higher is better)</text>\n</g>\n",
            left, axis_y, left + plot_w, axis_y, left + plot_w / 2, axis_y + 40);
    for (size_t i = 0; i < pg->n; i++) {
        const series *s = &pg->s[i];
        double y = top + row * (double)i + (row - bar) / 2;
        double w = plot_w * s->tput / axis_max;
        char value[64];
        report_fmt_throughput(s->tput, value, sizeof value);
        fprintf(o, "<text class=\"row-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", left - 8,
                y + bar / 2 + 4);
        esc(o, s->name);
        fprintf(o,
                "</text>\n<rect class=\"bar\" data-metric=\"%s.throughput_per_s\" x=\"%.1f\" "
                "y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
                s->metric, left, y, w, bar, s->color);
        esc(o, s->name);
        fprintf(o, ": %s commands/s", value);
        if (isfinite(s->lo) && isfinite(s->hi)) {
            char lo[64], hi[64];
            report_fmt_throughput(s->lo, lo, sizeof lo);
            report_fmt_throughput(s->hi, hi, sizeof hi);
            fprintf(o, ", runs from %s to %s", lo, hi);
            double x1 = left + plot_w * s->lo / axis_max, x2 = left + plot_w * s->hi / axis_max;
            double cy = y + bar / 2;
            fprintf(o,
                    "</title></rect>\n<line class=\"range\" x1=\"%.1f\" y1=\"%.1f\" "
                    "x2=\"%.1f\" y2=\"%.1f\"/><line class=\"range\" x1=\"%.1f\" y1=\"%.1f\" "
                    "x2=\"%.1f\" y2=\"%.1f\"/><line class=\"range\" x1=\"%.1f\" y1=\"%.1f\" "
                    "x2=\"%.1f\" y2=\"%.1f\"/>\n",
                    x1, cy, x2, cy, x1, cy - 5, x1, cy + 5, x2, cy - 5, x2, cy + 5);
            w = fmax(w, x2 - left);
        } else {
            fputs("</title></rect>\n", o);
        }
        fprintf(o, "<text class=\"value\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", left + w + 6,
                y + bar / 2 + 4, value);
    }
    fputs("</svg>\n", o);
}

/* ---- chart 2: latency distribution -------------------------------------------- */

/* x is the "nines" of a percentile: -log10(1 - q), so 90% is 1, 99% is 2. */
static void chart_latency(page *pg)
{
    FILE *o = pg->out;
    double lh = legend_height(pg);
    const double left = 80, right = 30, bottom = 56, plot_h = 340;
    double top = 14 + lh + 14;
    double plot_w = WIDTH - left - right;
    double height = top + plot_h + bottom;
    double max_total = 0, ymin = INFINITY, ymax = 0;
    for (size_t i = 0; i < pg->n; i++) {
        const series *s = &pg->s[i];
        if (hist_count(&s->all) == 0)
            continue;
        max_total = fmax(max_total, (double)hist_count(&s->all));
        ymin = fmin(ymin, (double)hist_min(&s->all) / 1000.0);
        ymax = fmax(ymax, (double)hist_max(&s->all) / 1000.0);
    }
    double xmax = max_total > 1 ? floor(log10(max_total)) : 2;
    xmax = fmin(fmax(xmax, 2), 6);
    if (!(ymin > 0) || !(ymax > 0)) {
        ymin = 0.1;
        ymax = 10;
    }
    double d0 = floor(log10(ymin)), d1 = ceil(log10(ymax));
    if (d1 <= d0)
        d1 = d0 + 1;
    svg_open(pg, "chart-latency", height, "Latency percentile distribution per target",
             "For each target, the latency (log scale) at every percentile of all timed "
             "commands of all runs, from the fastest (0%) through 90%, 99% and 99.9% "
             "towards the slowest; the horizontal axis is the number of nines. Lower is better.");
    legend(pg, left, 14, true);
#define LX(x) (left + plot_w * (x) / xmax)
#define LY(us) (top + plot_h * (d1 - log10(us)) / (d1 - d0))
    fputs("<g class=\"axis y\">\n", o);
    for (double d = d0; d <= d1; d++) {
        for (int m = 1; m < 10; m++) {
            double v = m * pow(10, d);
            if (d == d1 && m > 1)
                break;
            double y = LY(v);
            if (m == 1) {
                char label[32];
                fmt_latency(v, label, sizeof label);
                fprintf(o,
                        "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                        left, y, left + plot_w, y, left - 6, y + 4, label);
            } else {
                fprintf(o,
                        "<line class=\"grid minor\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                        "y2=\"%.1f\"/>\n",
                        left, y, left + plot_w, y);
            }
        }
    }
    fprintf(o,
            "<text class=\"axis-title\" transform=\"translate(16 %.1f) rotate(-90)\" "
            "text-anchor=\"middle\">latency (log scale, lower is better)</text>\n</g>\n",
            top + plot_h / 2);
    static const char *const pct_label[] = {"0%",     "90%",     "99%",     "99.9%",
                                            "99.99%", "99.999%", "99.9999%"};
    fputs("<g class=\"axis x\">\n", o);
    for (int k = 0; k <= (int)xmax; k++)
        fprintf(o,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                LX(k), top, LX(k), top + plot_h, LX(k), top + plot_h + 16, pct_label[k]);
    double x50 = log10(2);
    fprintf(o,
            "<line class=\"grid minor\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">50%%</text>\n",
            LX(x50), top, LX(x50), top + plot_h, LX(x50), top + plot_h + 16);
    fprintf(o,
            "<line class=\"axis-line\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
            "<line class=\"axis-line\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n"
            "<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">percentile "
            "of timed commands (log scale of 1 / (1 − p))</text>\n</g>\n",
            left, top + plot_h, left + plot_w, top + plot_h, left, top, left, top + plot_h,
            left + plot_w / 2, top + plot_h + 42);
    for (size_t i = 0; i < pg->n; i++) {
        const series *s = &pg->s[i];
        if (hist_count(&s->all) == 0)
            continue;
        double xend = fmin(xmax, log10((double)hist_count(&s->all)));
        fprintf(o,
                "<path class=\"series\" data-metric=\"%s\" fill=\"none\" stroke=\"%s\" "
                "stroke-width=\"2\" d=\"",
                s->metric, s->color);
        const int steps = 240;
        for (int k = 0; k <= steps; k++) {
            double x = xend * k / steps;
            double q = 1 - pow(10, -x);
            double v = percentile_us(s, q);
            fprintf(o, "%s%.1f %.1f", k ? " L" : "M", LX(x), LY(v));
        }
        fputs("\"><title>", o);
        esc(o, s->name);
        char p50[32], p99[32];
        fmt_us(percentile_us(s, 0.5), p50, sizeof p50);
        fmt_us(percentile_us(s, 0.99), p99, sizeof p99);
        fprintf(o, ": p50 %s µs, p99 %s µs</title></path>\n", p50, p99);
    }
#undef LX
#undef LY
    fputs("</svg>\n", o);
}

/* ---- chart 4: over time ------------------------------------------------------ */

/* Whether some drawn run has two intervals or more: then it is worth a
 * chart over time. */
static bool has_time_series(const page *pg)
{
    for (size_t i = 0; i < pg->n; i++)
        for (size_t k = 0; k < pg->s[i].t->nruns; k++)
            if (pg->s[i].t->runs[k].nintervals >= 2)
                return true;
    return false;
}

/* One polyline of a figure per interval of run rr: fig(interval) in the
 * plot's y (log of µs, or linear commands/s). */
static void time_line(FILE *o, const series *s, const run_result *rr, double left, double top,
                      double plot_w, double plot_h, double tmax, double y0, double y1, bool log_y,
                      int what)
{
    fprintf(o,
            "<path class=\"series\" data-metric=\"%s.run%d\" fill=\"none\" stroke=\"%s\" "
            "stroke-width=\"%s\"%s d=\"",
            s->metric, rr->run, s->color, what == 1 ? "1.5" : "2",
            what == 1 ? " stroke-dasharray=\"4 3\"" : "");
    bool first = true;
    for (size_t i = 0; i < rr->nintervals; i++) {
        const interval *it = &rr->intervals[i];
        double secs = (double)it->length_ns / 1e9;
        double v = what == 0   ? (secs > 0 ? (double)it->commands / secs : NAN)
                   : what == 1 ? it->p50_ns / 1000.0
                               : it->p99_ns / 1000.0;
        if (!isfinite(v) || (log_y && !(v > 0)))
            continue;
        double x = left + plot_w * ((double)(it->start_ns + it->length_ns / 2) / 1e9) / tmax;
        double f = log_y ? (log10(v) - y0) / (y1 - y0) : (v - y0) / (y1 - y0);
        fprintf(o, "%s%.1f %.1f", first ? "M" : " L", x, top + plot_h * (1 - f));
        first = false;
    }
    fputs("\"><title>", o);
    esc(o, s->name);
    fprintf(o, " run %d: %s per interval</title></path>\n", rr->run,
            what == 0   ? "commands/s"
            : what == 1 ? "p50"
                        : "p99");
}

/* Throughput and p50/p99 per interval of every run, against time. */
static void chart_over_time(page *pg)
{
    FILE *o = pg->out;
    double lh = legend_height(pg);
    const double left = 80, right = 30, gap = 40, plot_h = 200;
    double top = 14 + lh + 14, plot_w = WIDTH - left - right;
    double tmax = 0, rmax = 0, lmin = INFINITY, lmax = 0;
    for (size_t i = 0; i < pg->n; i++)
        for (size_t k = 0; k < pg->s[i].t->nruns; k++) {
            const run_result *rr = &pg->s[i].t->runs[k];
            for (size_t j = 0; j < rr->nintervals; j++) {
                const interval *it = &rr->intervals[j];
                double secs = (double)it->length_ns / 1e9;
                tmax = fmax(tmax, (double)(it->start_ns + it->length_ns) / 1e9);
                if (secs > 0)
                    rmax = fmax(rmax, (double)it->commands / secs);
                if (it->p50_ns > 0)
                    lmin = fmin(lmin, it->p50_ns / 1000.0);
                if (it->p99_ns > 0)
                    lmax = fmax(lmax, it->p99_ns / 1000.0);
            }
        }
    if (!(tmax > 0) || !(rmax > 0) || !(lmax > 0) || !isfinite(lmin))
        return;
    double d0 = floor(log10(lmin)), d1 = ceil(log10(lmax));
    d1 = d1 > d0 ? d1 : d0 + 1;
    double height = top + 2 * plot_h + gap + 56;
    svg_open(pg, "chart-time", height, "Throughput and latency over time, per run",
             "Above: commands per second in each interval of each run. Below: each interval's "
             "p50 (dashed) and p99 (solid), log scale; the horizontal axis is seconds from the "
             "start of the timed pass. A stall shows as a dip above and a spike below.");
    legend(pg, left, 14, true);
    double lower = top + plot_h + gap;
    fprintf(o,
            "<g class=\"axis\"><line class=\"axis-line\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
            "y2=\"%.1f\"/><line class=\"axis-line\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
            "y2=\"%.1f\"/>\n",
            left, top + plot_h, left + plot_w, top + plot_h, left, lower + plot_h, left + plot_w,
            lower + plot_h);
    char label[32];
    fmt_si(rmax, label, sizeof label);
    fprintf(o,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s/s</text><text x=\"%.1f\" "
            "y=\"%.1f\" text-anchor=\"end\">0</text>\n",
            left - 6, top + 4, label, left - 6, top + plot_h + 4);
    for (double d = d0; d <= d1; d++) {
        double y = lower + plot_h * (1 - (d - d0) / (d1 - d0));
        fmt_latency(pow(10, d), label, sizeof label);
        fprintf(o,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><text "
                "x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                left, y, left + plot_w, y, left - 6, y + 4, label);
    }
    for (int k = 0; k <= 4; k++) {
        double x = left + plot_w * k / 4;
        fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.1f s</text>\n", x,
                lower + plot_h + 16, tmax * k / 4);
    }
    fputs("</g>\n", o);
    for (size_t i = 0; i < pg->n; i++)
        for (size_t k = 0; k < pg->s[i].t->nruns; k++) {
            const run_result *rr = &pg->s[i].t->runs[k];
            if (rr->nintervals < 2)
                continue;
            time_line(o, &pg->s[i], rr, left, top, plot_w, plot_h, tmax, 0, rmax, false, 0);
            time_line(o, &pg->s[i], rr, left, lower, plot_w, plot_h, tmax, d0, d1, true, 1);
            time_line(o, &pg->s[i], rr, left, lower, plot_w, plot_h, tmax, d0, d1, true, 2);
        }
    fputs("</svg>\n", o);
}

/* ---- the capacity curve: a sweep's latency against its throughput ---------- */

static bool has_sweep(const page *pg)
{
    for (size_t i = 0; i < pg->n; i++)
        if (pg->s[i].t->sweep_of)
            return true;
    return false;
}

/* Whether series a and b are levels of one sweep. */
static bool same_sweep(const series *a, const series *b)
{
    return a->t->sweep_of && b->t->sweep_of && !strcmp(a->t->sweep_of, b->t->sweep_of) &&
           !strcmp(a->t->domain, b->t->domain) && a->t->prefill == b->t->prefill;
}

/* One sweep's p50 (dashed) or p99 (solid) through its levels, in the order
 * the sweep ran them, each point marked with its level. */
static void capacity_line(page *pg, size_t first, bool p99, double left, double top, double w,
                          double h, double xmax, double d0, double d1)
{
    FILE *o = pg->out;
    const series *f = &pg->s[first];
    fprintf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", f->color,
            p99 ? "" : " stroke-dasharray=\"5 4\"");
    for (size_t i = first; i < pg->n; i++) {
        const series *s = &pg->s[i];
        double us = p99 ? s->p99 : s->p50;
        if (!same_sweep(f, s) || !(us > 0))
            continue;
        double x = left + w * s->tput / xmax, y = top + h * (1 - (log10(us) - d0) / (d1 - d0));
        fprintf(o, "%.1f,%.1f ", x, y);
    }
    fputs("\"/>\n", o);
    for (size_t i = first; p99 && i < pg->n; i++) {
        const series *s = &pg->s[i];
        if (!same_sweep(f, s) || !(s->p99 > 0))
            continue;
        double x = left + w * s->tput / xmax, y = top + h * (1 - (log10(s->p99) - d0) / (d1 - d0));
        fprintf(o,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/><text x=\"%.1f\" "
                "y=\"%.1f\">c=%" PRId64 "</text>\n",
                x, y, f->color, x + 6, y - 6, s->t->sweep_clients);
    }
}

/* For a sweep (workload clients: [...]): each level's p50 and p99 against
 * the throughput it achieved, one line per swept target: where latency
 * turns up as throughput stops growing is the target's capacity. */
static void chart_capacity(page *pg)
{
    FILE *o = pg->out;
    const double left = 80, right = 30, top = 24, plot_h = 300;
    double plot_w = WIDTH - left - right, xmax = 0, lmin = INFINITY, lmax = 0;
    for (size_t i = 0; i < pg->n; i++) {
        const series *s = &pg->s[i];
        if (!s->t->sweep_of)
            continue;
        xmax = fmax(xmax, s->tput);
        if (s->p50 > 0)
            lmin = fmin(lmin, s->p50);
        lmax = fmax(lmax, s->p99);
    }
    if (!(xmax > 0) || !(lmax > 0) || !isfinite(lmin))
        return;
    double d0 = floor(log10(lmin)), d1 = ceil(log10(lmax));
    d1 = d1 > d0 ? d1 : d0 + 1;
    svg_open(pg, "chart-capacity", top + plot_h + 60, "Capacity curve: latency against throughput",
             "For each swept target, one point per level of clients: the median throughput it "
             "achieved (horizontal) and its p99 (solid, marked with the level) and p50 "
             "(dashed), log scale. Latency that climbs while throughput stops growing marks "
             "the target's capacity.");
    fprintf(o,
            "<g class=\"axis\"><line class=\"axis-line\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
            "y2=\"%.1f\"/>\n",
            left, top + plot_h, left + plot_w, top + plot_h);
    char label[32];
    for (double d = d0; d <= d1; d++) {
        double y = top + plot_h * (1 - (d - d0) / (d1 - d0));
        fmt_latency(pow(10, d), label, sizeof label);
        fprintf(o,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><text "
                "x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                left, y, left + plot_w, y, left - 6, y + 4, label);
    }
    for (int k = 0; k <= 4; k++) {
        fmt_si(xmax * k / 4, label, sizeof label);
        fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s/s</text>\n",
                left + plot_w * k / 4, top + plot_h + 16, label);
    }
    fputs("</g>\n", o);
    for (size_t i = 0; i < pg->n; i++) {
        bool first = pg->s[i].t->sweep_of != NULL;
        for (size_t k = 0; first && k < i; k++)
            first = !same_sweep(&pg->s[k], &pg->s[i]);
        if (!first)
            continue;
        capacity_line(pg, i, false, left, top, plot_w, plot_h, xmax, d0, d1);
        capacity_line(pg, i, true, left, top, plot_w, plot_h, xmax, d0, d1);
        fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">", left + 8, top + 14 + 16 * (double)i,
                pg->s[i].color);
        esc(o, pg->s[i].t->domain);
        fputs(" · ", o);
        esc(o, pg->s[i].t->sweep_of);
        fputs("</text>\n", o);
    }
    fputs("</svg>\n", o);
}

/* ---- chart 3: drift ---------------------------------------------------------- */

/* One figure (p50 or p99) per tenth in its own strip: a linear scale that
 * spans at least a quarter either side of the figure's median, so that a
 * real drift shows and run-to-run wobble stays small. */
static void drift_strip(FILE *o, const char *cls, const double *v, double x0, double y0, double w,
                        double h, const series *s)
{
    double xs[STATS_TENTHS], vmin = INFINITY, vmax = 0;
    size_t k = 0;
    for (int t = 0; t < STATS_TENTHS; t++)
        if (v[t] > 0) {
            xs[k++] = v[t];
            vmin = fmin(vmin, v[t]);
            vmax = fmax(vmax, v[t]);
        }
    fprintf(o, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", x0,
            y0, w, h);
    fprintf(o, "<text class=\"strip-label\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", x0 + 6, y0 + 13,
            cls);
    if (k == 0)
        return;
    double med = stats_median(xs, k);
    double lo = fmin(vmin, med / 1.25), hi = fmax(vmax, med * 1.25);
    double step = nice_step(hi - lo, 2);
    lo = floor(lo / step) * step;
    hi = ceil(hi / step) * step;
    /* room above for the strip's name, and between strips for the labels */
    const double pad_top = 16, pad_bottom = 6;
#define SY(u) (y0 + h - pad_bottom - (h - pad_top - pad_bottom) * ((u)-lo) / (hi - lo))
    for (double u = lo; u <= hi + step / 2; u += step) {
        char label[32];
        fmt_latency(u, label, sizeof label);
        fprintf(o,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                x0, SY(u), x0 + w, SY(u), x0 - 5, SY(u) + 4, label);
    }
    fprintf(o, "<path class=\"line %s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s d=\"", cls,
            s->color, !strcmp(cls, "p99") ? " stroke-dasharray=\"6 4\"" : "");
    bool pen = false;
    for (int t = 0; t < STATS_TENTHS; t++) {
        if (!(v[t] > 0)) {
            pen = false;
            continue;
        }
        fprintf(o, "%s%.1f %.1f", pen ? " L" : " M", x0 + w * (t + 0.5) / STATS_TENTHS, SY(v[t]));
        pen = true;
    }
    fputs("\"/>\n", o);
    for (int t = 0; t < STATS_TENTHS; t++) {
        if (!(v[t] > 0))
            continue;
        char text[32];
        fmt_us(v[t], text, sizeof text);
        fprintf(o,
                "<circle class=\"point %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\">"
                "<title>tenth %d, %s: %s µs</title></circle>\n",
                cls, x0 + w * (t + 0.5) / STATS_TENTHS, SY(v[t]), s->color, t + 1, cls, text);
    }
#undef SY
}

static void drift_panel(page *pg, const series *s, double px, double py, double pw, double ph)
{
    FILE *o = pg->out;
    const double left = 70, right = 12, top = 28, bottom = 26, gap = 10;
    double x0 = px + left, w = pw - left - right;
    double h = (ph - top - bottom - gap) / 2;
    fprintf(o, "<g class=\"panel\" data-metric=\"%s\">\n", s->metric);
    char drift[32];
    report_fmt_drift(s->drift, drift, sizeof drift);
    fprintf(o, "<text class=\"panel-title\" x=\"%.1f\" y=\"%.1f\">", px + 4, py + 18);
    esc(o, s->name);
    fprintf(o, " — drift %s</text>\n", drift);
    if (!(s->t50[STATS_TENTHS - 1] > 0)) {
        fprintf(o,
                "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">fewer than ten timed "
                "cycles: no tenths to draw</text>\n</g>\n",
                x0, py + top, w, 2 * h + gap, x0 + w / 2, py + top + h);
        return;
    }
    drift_strip(o, "p99", s->t99, x0, py + top, w, h, s);
    drift_strip(o, "p50", s->t50, x0, py + top + h + gap, w, h, s);
    for (int t = 0; t < STATS_TENTHS; t++)
        fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>\n",
                x0 + w * (t + 0.5) / STATS_TENTHS, py + top + 2 * h + gap + 15, t + 1);
    fputs("</g>\n", o);
}

static void chart_drift(page *pg)
{
    FILE *o = pg->out;
    size_t cols = pg->n <= 1 ? 1 : pg->n <= 4 ? 2 : 3;
    size_t rows = (pg->n + cols - 1) / cols;
    const double gap = 16, ph = 280, top = 36, bottom = 30;
    double pw = (WIDTH - gap * (double)(cols - 1)) / (double)cols;
    double height = top + (double)rows * ph + bottom;
    svg_open(pg, "chart-drift", height, "p50 and p99 per tenth of the timed pass",
             "One panel per target: the median across runs of p99 (dashed, upper strip) and "
             "p50 (solid, lower strip) latency in each tenth of the timed cycles, each strip "
             "on its own scale spanning at least 25% either side of its median. A line that "
             "climbs from left to right means commands got slower as the store grew.");
    fprintf(o, "<g class=\"legend\"><line x1=\"64\" y1=\"15\" x2=\"94\" y2=\"15\" stroke=\"#222\" "
               "stroke-width=\"2\"/><text x=\"100\" y=\"19\">p50</text><line x1=\"150\" y1=\"15\" "
               "x2=\"180\" y2=\"15\" stroke=\"#222\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>"
               "<text x=\"186\" y=\"19\">p99</text><text x=\"240\" y=\"19\">(median across runs; "
               "each strip on its own scale; colour: the target, as above)</text></g>\n");
    for (size_t i = 0; i < pg->n; i++)
        drift_panel(pg, &pg->s[i], (double)(i % cols) * (pw + gap), top + (double)(i / cols) * ph,
                    pw, ph);
    fprintf(o,
            "<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">tenth of "
            "the timed pass (1: the first cycles, 10: the last)</text>\n</svg>\n",
            WIDTH / 2, height - 8);
}

/* ---- the page ------------------------------------------------------------------- */

static const char css[] =
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
    "color:#1b1b1b;background:#fff;margin:0 auto;max-width:1000px;padding:16px 20px 40px}\n"
    "h1{font-size:1.6em;margin:.4em 0 .1em}h2{font-size:1.2em;margin:1.6em 0 .3em;"
    "border-bottom:1px solid #ddd;padding-bottom:.2em}\n"
    "p.sub{color:#555;margin:.2em 0 1em}\n"
    "table{border-collapse:collapse;font-size:.92em;margin:.4em 0}"
    "th,td{padding:3px 10px;border-bottom:1px solid #e4e4e4;text-align:left}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".swatch{display:inline-block;width:11px;height:11px;margin-right:6px;vertical-align:-1px}\n"
    ".badge{display:inline-block;margin-left:6px;padding:0 5px;border-radius:3px;font-size:.8em;"
    "color:#fff;background:#b35c00}.badge.failed{background:#b00020}\n"
    "svg.chart{display:block;max-width:100%;height:auto;margin:.5em 0}\n"
    "svg text{font:12px system-ui,'DejaVu Sans',sans-serif;fill:#222}\n"
    "svg .axis-title{font-size:12.5px;fill:#444}svg .panel-title{font-weight:600}\n"
    "svg .grid{stroke:#e2e2e2;stroke-width:1}svg .grid.minor{stroke:#f0f0f0}\n"
    "svg .axis-line{stroke:#777;stroke-width:1}svg .range{stroke:#222;stroke-width:2}\n"
    "svg .frame{fill:none;stroke:#ccc}svg .strip-label{fill:#777;font-size:11px}svg "
    ".value{fill:#333}\n"
    "dl{display:grid;grid-template-columns:max-content auto;gap:2px 16px;font-size:.92em}"
    "dt{color:#555}dd{margin:0}\n"
    "ul.notes{font-size:.92em}footer{margin-top:2em;color:#777;font-size:.85em}\n";

static void put_table(page *pg)
{
    FILE *o = pg->out;
    fputs("<table>\n<thead><tr><th>domain · target</th><th>commands/s</th><th>range across "
          "runs</th><th>p50 (µs)</th><th>p99 (µs)</th><th>drift</th><th>verify</th></tr>"
          "</thead>\n<tbody>\n",
          o);
    for (size_t i = 0; i < pg->n; i++) {
        const series *s = &pg->s[i];
        char t[64], lo[64], hi[64], p50[64], p99[64], drift[64];
        report_fmt_throughput(s->tput, t, sizeof t);
        report_fmt_throughput(s->lo, lo, sizeof lo);
        report_fmt_throughput(s->hi, hi, sizeof hi);
        fmt_us(s->p50, p50, sizeof p50);
        fmt_us(s->p99, p99, sizeof p99);
        report_fmt_drift(s->drift, drift, sizeof drift);
        fprintf(o, "<tr><td><span class=\"swatch\" style=\"background:%s\"></span>", s->color);
        esc(o, s->name);
        if (s->t->unstable) {
            fputs("<span class=\"badge\" title=\"", o);
            esc(o, s->t->unstable_reason);
            fputs("\">unstable</span>", o);
        }
        fprintf(o,
                "</td><td class=\"n\">%s</td><td class=\"n\">%s to %s</td><td class=\"n\">%s</td>"
                "<td class=\"n\">%s</td><td class=\"n\">%s</td><td>",
                t, lo, hi, p50, p99, drift);
        esc(o, results_verify_name(s->t->verify));
        fputs("</td></tr>\n", o);
    }
    fputs("</tbody>\n</table>\n", o);
}

static void note(page *pg, bool *any)
{
    fputs(*any ? "<li>" : "<ul class=\"notes\">\n<li>", pg->out);
    *any = true;
}

static void note_list(page *pg, bool *any, const char *what, const label_reason *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        note(pg, any);
        fprintf(pg->out, "%s ", what);
        esc(pg->out, v[i].label);
        fputs(": ", pg->out);
        esc(pg->out, v[i].reason);
        fputs("</li>\n", pg->out);
    }
}

/* Results not drawn, targets skipped or failed, an interruption. */
static void put_notes(page *pg)
{
    FILE *o = pg->out;
    const report *r = pg->r;
    bool any = false;
    for (size_t i = 0; i < r->nresults; i++) {
        const target_result *t = &r->results[i];
        if (drawn(t))
            continue;
        note(pg, &any);
        if (t->failed)
            fputs("<span class=\"badge failed\">failed</span> ", o);
        esc(o, t->domain);
        fputs(" · ", o);
        esc(o, t->label);
        fputs(": not drawn, ", o);
        esc(o, *t->reason ? t->reason : "no run finished");
        fputs("</li>\n", o);
    }
    for (size_t i = 0; i < r->nresults; i++) {
        const target_result *t = &r->results[i];
        if (!t->unstable)
            continue;
        note(pg, &any);
        esc(o, t->domain);
        fputs(" · ", o);
        esc(o, t->label);
        fputs("<span class=\"badge\">unstable</span>: ", o);
        esc(o, t->unstable_reason);
        fputs("</li>\n", o);
    }
    for (size_t i = 0; i < r->nresults; i++) {
        const target_result *t = &r->results[i];
        double g = report_goodput(t);
        char shares[1024], gs[64], ts[64];
        report_flow_shares(t, shares, sizeof shares);
        bool refused = isfinite(g) && g < t->median.throughput_per_s;
        if (!drawn(t) || (!refused && !shares[0]))
            continue;
        note(pg, &any);
        esc(o, t->domain);
        fputs(" · ", o);
        esc(o, t->label);
        fputs(": ", o);
        if (refused) {
            report_fmt_throughput(g, gs, sizeof gs);
            report_fmt_throughput(t->median.throughput_per_s, ts, sizeof ts);
            fprintf(o, "goodput %s of %s commands/s%s", gs, ts, shares[0] ? "; " : "");
        }
        if (shares[0]) {
            fputs("mix ", o);
            esc(o, shares);
        }
        fputs("</li>\n", o);
    }
    for (size_t i = 0; i < r->nresults; i++) { /* several clients: each one's share */
        char text[512];
        if (!drawn(&r->results[i]) || !report_clients_text(&r->results[i], text, sizeof text)[0])
            continue;
        note(pg, &any);
        esc(o, r->results[i].domain);
        fputs(" · ", o);
        esc(o, r->results[i].label);
        fputs(": ", o);
        esc(o, text);
        fputs("</li>\n", o);
    }
    note_list(pg, &any, "skipped", r->skipped, r->nskipped);
    note_list(pg, &any, "failed", r->failed, r->nfailed);
    if (r->interrupted) {
        note(pg, &any);
        fputs("The run was interrupted: only the runs that finished are shown.</li>\n", o);
    }
    if (any)
        fputs("</ul>\n", o);
}

static void dl_item(FILE *o, const char *name, const char *value)
{
    fprintf(o, "<dt>%s</dt><dd>", name);
    esc(o, value && *value ? value : "unknown");
    fputs("</dd>\n", o);
}

static void put_environment(page *pg)
{
    FILE *o = pg->out;
    const environment *e = &pg->r->env;
    const run_config *c = &pg->r->config;
    char buf[512];
    fputs("<dl>\n", o);
    dl_item(o, "CPU", e->cpu_model);
    snprintf(buf, sizeof buf, "%d", e->cores);
    dl_item(o, "Cores", buf);
    report_fmt_gib((double)e->memory_bytes, buf, sizeof buf);
    dl_item(o, "Memory", buf);
    dl_item(o, "OS", e->os);
    dl_item(o, "Kernel", e->kernel);
    dl_item(o, "Clock source", e->clock_source);
    dl_item(o, "CPU affinity", e->affinity);
    dl_item(o, "Compiler", e->compiler);
    snprintf(buf, sizeof buf, "%s (%s)", e->build_type, e->build_flags);
    dl_item(o, "Build", buf);
    dl_item(o, "Libraries", e->libraries);
    if (*e->postgres)
        dl_item(o, "PostgreSQL", e->postgres);
    snprintf(buf, sizeof buf, "%s, commit %s", e->version, e->commit);
    dl_item(o, "bench", buf);
    if (*e->label)
        dl_item(o, "Label", e->label);
    dl_item(o, "Date", e->date);
    for (size_t i = 0; i < c->nspecs; i++) {
        snprintf(buf, sizeof buf, "%s (SHA-256 %.12s…)", c->specs[i].path, c->specs[i].sha256);
        dl_item(o, "Spec", buf);
    }
    char timed[96];
    if (c->duration_s > 0)
        snprintf(timed, sizeof timed, "timed for %g s", c->duration_s);
    else
        snprintf(timed, sizeof timed, "%" PRId64 " timed cycles", c->iterations);
    int len = snprintf(buf, sizeof buf, "warmup %" PRId64 ", %s%s, %" PRId64 " runs, prefill",
                       c->warmup, timed, c->rate > 0 ? " (open loop)" : "", c->runs);
    for (size_t i = 0; i < c->nprefill; i++)
        if (len > 0 && (size_t)len < sizeof buf)
            len += snprintf(buf + len, sizeof buf - (size_t)len, "%s %" PRId64, i ? "," : "",
                            c->prefill[i]);
    if (c->nprefill == 0 && len > 0 && (size_t)len < sizeof buf)
        snprintf(buf + len, sizeof buf - (size_t)len, " 0");
    dl_item(o, "Settings", buf);
    char floor[64];
    report_fmt_us(pg->r->harness_floor_p50_ns, floor, sizeof floor);
    snprintf(buf, sizeof buf, "%s µs (p50 of the null target)", floor);
    dl_item(o, "Harness floor", buf);
    char cost[64];
    report_fmt_ns(pg->r->harness_cost_ns_per_command, cost, sizeof cost);
    snprintf(buf, sizeof buf, "%s ns per command (wall time of the null pass)", cost);
    dl_item(o, "Harness cost", buf);
    for (size_t i = 0; i < pg->r->nresults; i++) {
        const target_result *t = &pg->r->results[i];
        if (!*t->placement)
            continue;
        snprintf(buf, sizeof buf, "%s · %s: %s", t->domain, t->label, t->placement);
        dl_item(o, i ? "" : "Placement", buf);
    }
    fputs("</dl>\n", o);
}

static void put_page(page *pg, const char *source)
{
    FILE *o = pg->out;
    const environment *e = &pg->r->env;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<title>bench report: ",
          o);
    esc(o, source);
    fprintf(o,
            "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n<h1>bench report</h1>\n"
            "<p class=\"sub\">",
            css);
    esc(o, source);
    fputs(" · ", o);
    esc(o, e->date);
    fputs(" · ", o);
    esc(o, e->cpu_model);
    fprintf(o, ", %d cores</p>\n</header>\n", e->cores);
    fputs("<section id=\"results\">\n<h2>Results</h2>\n<p>Medians across runs; latencies are "
          "nearest-rank percentiles of every timed command, in microseconds.</p>\n",
          o);
    put_table(pg);
    put_notes(pg);
    fputs("</section>\n<section id=\"throughput\">\n<h2>Throughput per target</h2>\n", o);
    chart_throughput(pg);
    fputs("</section>\n<section id=\"latency\">\n<h2>Latency percentiles</h2>\n", o);
    chart_latency(pg);
    fputs("</section>\n<section id=\"drift\">\n<h2>Drift across the timed pass</h2>\n", o);
    chart_drift(pg);
    if (has_time_series(pg)) {
        fputs("</section>\n<section id=\"time\">\n<h2>Over time</h2>\n", o);
        chart_over_time(pg);
    }
    if (has_sweep(pg)) {
        fputs("</section>\n<section id=\"capacity\">\n<h2>Capacity curve</h2>\n", o);
        chart_capacity(pg);
    }
    fputs("</section>\n<section id=\"environment\">\n<h2>Environment</h2>\n", o);
    put_environment(pg);
    fputs("</section>\n<footer>Written by <code>bench report --html</code> from ", o);
    esc(o, source);
    fputs("; self-contained: no script, nothing fetched.</footer>\n</body>\n</html>\n", o);
}

int report_html(const report *r, const char *source, FILE *out)
{
    page pg = {.out = out, .r = r};
    int rc = collect(&pg);
    if (rc == 0)
        put_page(&pg, source ? source : "result.json");
    for (size_t i = 0; i < pg.n; i++)
        hist_free(&pg.s[i].all);
    free(pg.s);
    return rc == 0 && !ferror(out) ? 0 : -1;
}
