/* report_html.c: the HTML page of a result file. Everything is drawn here as
 * SVG with inline CSS, so the page opens anywhere without a network or a
 * script. Each result is a series with one colour in every chart. */
#include "report_html.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "compare.h"
#include "report_fmt.h"
#include "stats.h"

/* The targets' hues: Okabe-Ito's (readable with colour-blindness) without its
 * yellow and black, which do not show on white; past them, hues a golden
 * angle apart (target_hue). */
static const unsigned okabe_ito[] = {0x0072b2, 0xe69f00, 0x009e73, 0xd55e00, 0xcc79a7, 0x56b4e9};
#define NOKABE (sizeof okabe_ito / sizeof okabe_ito[0])

#define WIDTH 960.0 /* every chart's width in SVG units */

typedef struct series {
    char name[512];   /* "pizzas · memory@1000 (normal)" */
    char metric[512]; /* "pizzas.memory@1000", the metric names' prefix */
    char color[8];    /* "#rrggbb": its target's hue, in its own shade (assign_colors) */
    char hue[8];      /* its target's colour, unshaded: the lines of the cost chart */
    size_t group;     /* its target's index among the page's targets (by label) */
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
    const result_file *cur, *base; /* the baseline section's files; base NULL: none */
    comparison *cmp;               /* base against cur, ncmp of them */
    size_t ncmp;
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
            a[k] = num_us_of_ns(s->t->runs[k].fig.tenths[t].p50_ns);
            b[k] = num_us_of_ns(s->t->runs[k].fig.tenths[t].p99_ns);
        }
        s->t50[t] = a && b ? stats_median(a, nruns) : NAN;
        s->t99[t] = a && b ? stats_median(b, nruns) : NAN;
    }
    free(a);
    free(b);
}

/* ---- colours ---------------------------------------------------------------- */

/* Target i's colour: Okabe-Ito's first, then HSL hues a golden angle apart
 * (saturation 0.65, lightness 0.42), which never repeat. */
static unsigned target_hue(size_t i)
{
    if (i < NOKABE)
        return okabe_ito[i];
    double h = fmod((double)(i - NOKABE) * 137.508 + 20.0, 360.0) / 60.0, s = 0.65, l = 0.42;
    double c = (1 - fabs(2 * l - 1)) * s, x = c * (1 - fabs(fmod(h, 2) - 1)), m = l - c / 2;
    double rgb[3][6] = {{c, x, 0, 0, x, c}, {x, c, c, x, 0, 0}, {0, 0, x, c, c, x}};
    int k = (int)h % 6;
    unsigned out = 0;
    for (int j = 0; j < 3; j++)
        out = out << 8 | (unsigned)lround((rgb[j][k] + m) * 255);
    return out;
}

/* rgb moved towards black (f < 0) or white (f > 0) by |f|. */
static unsigned shade(unsigned rgb, double f)
{
    unsigned out = 0;
    for (int sh = 16; sh >= 0; sh -= 8) {
        double v = (double)(rgb >> sh & 0xff);
        v = f < 0 ? v * (1 + f) : v + (255 - v) * f;
        out = out << 8 | (unsigned)lround(v);
    }
    return out;
}

/* One hue per target (results of one label, whatever the domain or prefill
 * size), and within a target one shade per result, from darker to lighter in
 * the order they appear: every row a colour of its own. */
static void assign_colors(page *pg)
{
    size_t cap = pg->n ? pg->n : 1, ngroups = 0;
    const char **labels = xcalloc(cap, sizeof *labels);
    size_t *size = xcalloc(cap, sizeof *size), *seen = xcalloc(cap, sizeof *seen);
    for (size_t i = 0; i < pg->n; i++) {
        size_t g = 0;
        while (g < ngroups && strcmp(labels[g], pg->s[i].t->label) != 0)
            g++;
        if (g == ngroups)
            labels[ngroups++] = pg->s[i].t->label;
        pg->s[i].group = g;
        size[g]++;
    }
    for (size_t i = 0; i < pg->n; i++) {
        series *s = &pg->s[i];
        unsigned hue = target_hue(s->group);
        size_t k = size[s->group], j = seen[s->group]++;
        double f = k < 2 ? 0 : -0.35 + 0.85 * (double)j / (double)(k - 1);
        snprintf(s->hue, sizeof s->hue, "#%06x", hue);
        snprintf(s->color, sizeof s->color, "#%06x", shade(hue, f));
    }
    free(labels);
    free(size);
    free(seen);
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
        char cell[400];
        results_target_cell(t, cell, sizeof cell);
        snprintf(s->name, sizeof s->name, "%s · %s", t->domain, cell);
        metric_prefix(t, s->metric, sizeof s->metric);
        s->tput = t->median.throughput_per_s;
        s->lo = t->throughput_lo;
        s->hi = t->throughput_hi;
        s->p50 = num_us_of_ns(t->median.p50_ns);
        s->p99 = num_us_of_ns(t->median.p99_ns);
        s->drift = t->median.drift;
        for (size_t k = 0; k < t->nruns; k++)
            hist_merge(&s->all, &t->runs[k].all);
        tenths_median(s);
    }
    assign_colors(pg);
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

/* The throughput metric of s in the baseline, or NULL. */
static const metric *baseline_throughput(const page *pg, const series *s)
{
    if (!pg->base)
        return NULL;
    char name[600];
    snprintf(name, sizeof name, "%s.throughput_per_s", s->metric);
    return result_file_metric(pg->base, name);
}

/* Bars on a log scale (targets differ by orders of magnitude: a linear
 * scale leaves the slow ones a pixel wide), each with its value printed and,
 * with a baseline, a tick where the baseline's median was. The axis starts
 * a little below the smallest figure's decade, so the shortest bar still has
 * length. */
static void chart_throughput(page *pg)
{
    FILE *o = pg->out;
    const double left = 250, right = 110, top = 34, row = 30, bar = 18, bottom = 52;
    double plot_w = WIDTH - left - right;
    double height = top + row * (double)pg->n + bottom;
    double vmin = INFINITY, vmax = 0;
    for (size_t i = 0; i < pg->n; i++) {
        const metric *b = baseline_throughput(pg, &pg->s[i]);
        double v[] = {pg->s[i].tput, pg->s[i].lo, pg->s[i].hi, b ? b->value : NAN};
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            if (isfinite(v[k]) && v[k] > 0) {
                vmin = fmin(vmin, v[k]);
                vmax = fmax(vmax, v[k]);
            }
    }
    if (!(vmax > 0))
        vmin = 1, vmax = 10;
    double d0 = floor(log10(vmin) - 0.15), d1 = ceil(log10(vmax));
    if (d1 <= d0)
        d1 = d0 + 1;
#define TX(v) (left + plot_w * (log10(v) - d0) / (d1 - d0))
    svg_open(pg, "chart-throughput", height, "Throughput per target",
             "Horizontal bars on a log scale: the median commands per second across runs for "
             "each target, its value printed beside it; the whisker spans the slowest to the "
             "fastest run; with a baseline, a black tick marks the baseline's median. Higher is "
             "better.");
    /* legend: what a bar and a whisker are */
    fprintf(o,
            "<g class=\"legend\"><rect x=\"%.1f\" y=\"8\" width=\"14\" height=\"14\" "
            "fill=\"#999\"/><text x=\"%.1f\" y=\"19\">median across runs</text>"
            "<line x1=\"%.1f\" y1=\"15\" x2=\"%.1f\" y2=\"15\" stroke=\"#222\" "
            "stroke-width=\"2\"/><line x1=\"%.1f\" y1=\"10\" x2=\"%.1f\" y2=\"20\" "
            "stroke=\"#222\" stroke-width=\"2\"/><line x1=\"%.1f\" y1=\"10\" x2=\"%.1f\" "
            "y2=\"20\" stroke=\"#222\" stroke-width=\"2\"/><text x=\"%.1f\" y=\"19\">range "
            "across runs (slowest to fastest)</text>",
            left, left + 20, left + 190, left + 220, left + 190, left + 190, left + 220, left + 220,
            left + 228);
    if (pg->base)
        fprintf(o,
                "<line x1=\"%.1f\" y1=\"6\" x2=\"%.1f\" y2=\"24\" stroke=\"#000\" "
                "stroke-width=\"3\"/><text x=\"%.1f\" y=\"19\">baseline</text>",
                left + 500, left + 500, left + 508);
    fputs("</g>\n", o);
    /* grid (every decade, and its 2..9) and x axis */
    double axis_y = top + row * (double)pg->n;
    fputs("<g class=\"axis x\">\n", o);
    for (double d = d0; d <= d1; d++)
        for (int m = 1; m < 10 && (d < d1 || m == 1); m++) {
            double v = m * pow(10, d), x = TX(v);
            if (m > 1) {
                fprintf(o,
                        "<line class=\"grid minor\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                        "y2=\"%.1f\"/>\n",
                        x, top, x, axis_y);
                continue;
            }
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
            "per second (log scale, higher is better)</text>\n</g>\n",
            left, axis_y, left + plot_w, axis_y, left + plot_w / 2, axis_y + 40);
    for (size_t i = 0; i < pg->n; i++) {
        const series *s = &pg->s[i];
        double y = top + row * (double)i + (row - bar) / 2;
        double w = s->tput > 0 ? TX(s->tput) - left : 0;
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
        if (isfinite(s->lo) && isfinite(s->hi) && s->lo > 0 && s->hi > 0) {
            char lo[64], hi[64];
            report_fmt_throughput(s->lo, lo, sizeof lo);
            report_fmt_throughput(s->hi, hi, sizeof hi);
            fprintf(o, ", runs from %s to %s", lo, hi);
            double x1 = TX(s->lo), x2 = TX(s->hi);
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
        const metric *b = baseline_throughput(pg, s);
        if (b && b->value > 0) {
            char bv[64];
            report_fmt_throughput(b->value, bv, sizeof bv);
            fprintf(o,
                    "<line class=\"baseline\" data-metric=\"%s.throughput_per_s\" x1=\"%.1f\" "
                    "y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"><title>baseline: %s commands/s"
                    "</title></line>\n",
                    s->metric, TX(b->value), y - 3, TX(b->value), y + bar + 3, bv);
            w = fmax(w, TX(b->value) - left);
        }
        fprintf(o, "<text class=\"value\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", left + w + 6,
                y + bar / 2 + 4, value);
    }
#undef TX
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

/* ---- chart 5: cost against store size ------------------------------------------ */

/* Whether a and b are results of one target (label) on one domain. */
static bool same_target(const series *a, const series *b)
{
    return strcmp(a->t->label, b->t->label) == 0 && strcmp(a->t->domain, b->t->domain) == 0;
}

/* Whether some target (domain and label) ran at two prefill sizes or more. */
static bool has_prefill_sweep(const page *pg)
{
    for (size_t i = 0; i < pg->n; i++)
        for (size_t j = i + 1; j < pg->n; j++)
            if (same_target(&pg->s[i], &pg->s[j]) && pg->s[i].t->prefill != pg->s[j].t->prefill)
                return true;
    return false;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* p50 (solid) and p99 (dashed) against the prefill size, one line per target
 * and domain in the target's colour, a point per result in the result's; the
 * sizes are evenly spaced (a sweep is usually 0, 1k, 100k: neither linear
 * nor log spacing shows 0 and both others). */
static void chart_cost(page *pg)
{
    FILE *o = pg->out;
    int64_t *sizes = xcalloc(pg->n ? pg->n : 1, sizeof *sizes);
    size_t nsizes = 0;
    double lmin = INFINITY, lmax = 0;
    for (size_t i = 0; i < pg->n; i++) {
        size_t k = 0;
        while (k < nsizes && sizes[k] != pg->s[i].t->prefill)
            k++;
        if (k == nsizes)
            sizes[nsizes++] = pg->s[i].t->prefill;
        double v[] = {pg->s[i].p50, pg->s[i].p99};
        for (size_t j = 0; j < 2; j++)
            if (isfinite(v[j]) && v[j] > 0) {
                lmin = fmin(lmin, v[j]);
                lmax = fmax(lmax, v[j]);
            }
    }
    qsort(sizes, nsizes, sizeof *sizes, cmp_i64);
    if (!(lmax > 0))
        lmin = 0.1, lmax = 10;
    double d0 = floor(log10(lmin)), d1 = ceil(log10(lmax));
    d1 = d1 > d0 ? d1 : d0 + 1;
    double lh = legend_height(pg);
    const double left = 80, right = 40, bottom = 56, plot_h = 300;
    double top = 14 + lh + 14, plot_w = WIDTH - left - right, height = top + plot_h + bottom;
    svg_open(pg, "chart-cost", height, "Latency against store size",
             "For each target, the median p50 (solid) and p99 (dashed) latency across runs, log "
             "scale, at each prefill size (the records the store held before the timed pass). A "
             "line that climbs to the right means commands cost more as the store grows.");
    legend(pg, left, 14, false);
#define CX(k) (left + plot_w * ((double)(k) + 0.5) / (double)nsizes)
#define CY(us) (top + plot_h * (d1 - log10(us)) / (d1 - d0))
    fputs("<g class=\"axis\">\n", o);
    for (double d = d0; d <= d1; d++) {
        char label[32];
        fmt_latency(pow(10, d), label, sizeof label);
        fprintf(o,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                left, CY(pow(10, d)), left + plot_w, CY(pow(10, d)), left - 6, CY(pow(10, d)) + 4,
                label);
    }
    for (size_t k = 0; k < nsizes; k++) {
        char label[32];
        fmt_si((double)sizes[k], label, sizeof label);
        fprintf(o,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                CX(k), top, CX(k), top + plot_h, CX(k), top + plot_h + 16, label);
    }
    fprintf(o,
            "<line class=\"axis-line\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n"
            "<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">prefill: "
            "records in the store before the timed pass</text>\n"
            "<text class=\"axis-title\" transform=\"translate(16 %.1f) rotate(-90)\" "
            "text-anchor=\"middle\">latency (log scale, lower is better)</text>\n</g>\n",
            left, top + plot_h, left + plot_w, top + plot_h, left + plot_w / 2, top + plot_h + 42,
            top + plot_h / 2);
    /* one line per target and domain, through its results in size order */
    for (size_t i = 0; i < pg->n; i++) {
        const series *first = &pg->s[i];
        bool earlier = false;
        for (size_t j = 0; j < i && !earlier; j++)
            earlier = same_target(&pg->s[j], first);
        if (earlier)
            continue;
        for (int fig = 0; fig < 2; fig++) {
            fprintf(o,
                    "<path class=\"series cost %s\" fill=\"none\" stroke=\"%s\" "
                    "stroke-width=\"2\"%s d=\"",
                    fig ? "p99" : "p50", first->hue, fig ? " stroke-dasharray=\"6 4\"" : "");
            bool pen = false;
            for (size_t k = 0; k < nsizes; k++)
                for (size_t j = i; j < pg->n; j++) {
                    const series *s = &pg->s[j];
                    double v = fig ? s->p99 : s->p50;
                    if (s->t->prefill != sizes[k] || !same_target(s, first) || !(v > 0))
                        continue;
                    fprintf(o, "%s%.1f %.1f", pen ? " L" : "M", CX(k), CY(v));
                    pen = true;
                    break;
                }
            fputs("\"><title>", o);
            esc(o, first->t->domain);
            fputs(" · ", o);
            esc(o, first->t->label);
            fprintf(o, ": %s against prefill</title></path>\n", fig ? "p99" : "p50");
        }
    }
    for (size_t j = 0; j < pg->n; j++) {
        const series *s = &pg->s[j];
        size_t k = 0;
        while (k < nsizes && sizes[k] != s->t->prefill)
            k++;
        char p50[32], p99[32];
        fmt_us(s->p50, p50, sizeof p50);
        fmt_us(s->p99, p99, sizeof p99);
        for (int fig = 0; fig < 2; fig++) {
            double v = fig ? s->p99 : s->p50;
            if (!(v > 0))
                continue;
            fprintf(o,
                    "<circle class=\"point\" data-metric=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
                    "fill=\"%s\"><title>",
                    s->metric, CX(k), CY(v), s->color);
            esc(o, s->name);
            fprintf(o, ": p50 %s µs, p99 %s µs</title></circle>\n", p50, p99);
        }
    }
#undef CX
#undef CY
    fputs("</svg>\n", o);
    free(sizes);
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
        char level[48];
        if (s->t->sweep_rate > 0) /* the offered rate: the x axis shows the achieved one */
            fmt_si(s->t->sweep_rate, level, sizeof level);
        else
            snprintf(level, sizeof level, "%" PRId64, s->t->sweep_clients);
        fprintf(o,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/><text x=\"%.1f\" "
                "y=\"%.1f\">%s=%s</text>\n",
                x, y, f->color, x + 6, y - 6, s->t->sweep_rate > 0 ? "r" : "c", level);
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
             "For each swept target, one point per level (of clients, c=N, or of offered "
             "rates, r=R cycles/s, whose latencies are response times): the median "
             "throughput it achieved (horizontal) and its p99 (solid, marked with the level) "
             "and p50 (dashed), log scale. Latency that climbs while throughput stops "
             "growing marks the target's capacity.");
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
    "td.n{text-align:right;font-variant-numeric:tabular-nums}"
    "tr.refused td{background:#fff4e0}tr.better td,td.better{background:#e6f4ea}"
    "tr.worse td,td.worse{background:#fde7e9}h3{font-size:1.05em;margin:1.2em 0 .2em}\n"
    ".swatch{display:inline-block;width:11px;height:11px;margin-right:6px;vertical-align:-1px}\n"
    ".badge{display:inline-block;margin-left:6px;padding:0 5px;border-radius:3px;font-size:.8em;"
    "color:#fff;background:#b35c00}.badge.failed{background:#b00020}\n"
    "svg.chart{display:block;max-width:100%;height:auto;margin:.5em 0}\n"
    "svg text{font:12px system-ui,'DejaVu Sans',sans-serif;fill:#222}\n"
    "svg .axis-title{font-size:12.5px;fill:#444}svg .panel-title{font-weight:600}\n"
    "svg .grid{stroke:#e2e2e2;stroke-width:1}svg .grid.minor{stroke:#f0f0f0}\n"
    "svg .axis-line{stroke:#777;stroke-width:1}svg .range{stroke:#222;stroke-width:2}"
    "svg .baseline{stroke:#000;stroke-width:3}\n"
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

/* "domain · label: text" as a note. */
static void result_note(page *pg, bool *any, const target_result *t, const char *text)
{
    note(pg, any);
    esc(pg->out, t->domain);
    fputs(" · ", pg->out);
    esc(pg->out, t->label);
    fputs(": ", pg->out);
    esc(pg->out, text);
    fputs("</li>\n", pg->out);
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
    for (size_t i = 0; i < r->nresults; i++) { /* conflicts after the last try */
        char text[1024];
        uint64_t failed;
        if (drawn(&r->results[i]) &&
            report_failed_text(&r->results[i], &failed, text, sizeof text)[0])
            result_note(pg, &any, &r->results[i], text);
    }
    for (size_t i = 0; i < r->nresults; i++) { /* several clients: each one's share */
        char text[512];
        if (drawn(&r->results[i]) && report_clients_text(&r->results[i], text, sizeof text)[0])
            result_note(pg, &any, &r->results[i], text);
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

/* The cell of a target: its swatch and name. */
static void target_cell(FILE *o, const series *s)
{
    fprintf(o, "<td><span class=\"swatch\" style=\"background:%s\"></span>", s->color);
    esc(o, s->name);
    fputs("</td>", o);
}

/* The median across s's runs of verb v's p50 (or p99), in µs. */
static double verb_median_us(const series *s, size_t v, bool p99)
{
    double *x = xcalloc(s->t->nruns ? s->t->nruns : 1, sizeof *x);
    size_t k = 0;
    for (size_t r = 0; r < s->t->nruns; r++)
        if (v < s->t->runs[r].nverbs)
            x[k++] = p99 ? s->t->runs[r].verbs[v].p99_ns : s->t->runs[r].verbs[v].p50_ns;
    double m = k ? stats_median(x, k) : NAN;
    free(x);
    return num_us_of_ns(m);
}

/* Every verb of every drawn result: its timed commands and refusals over all
 * runs, and its median p50 and p99 across runs. A row with refusals is
 * marked. */
static void put_verbs(page *pg)
{
    FILE *o = pg->out;
    fputs("<table id=\"verbs\">\n<thead><tr><th>domain · target</th><th>verb</th><th>timed "
          "commands</th><th>refused (expected)</th><th>refused (counted)</th><th>p50 (µs)</th>"
          "<th>p99 (µs)</th></tr></thead>\n<tbody>\n",
          o);
    for (size_t i = 0; i < pg->n; i++) {
        const series *s = &pg->s[i];
        size_t nverbs = s->t->nruns ? s->t->runs[0].nverbs : 0;
        for (size_t v = 0; v < nverbs; v++) {
            uint64_t count = 0, refused = 0, counted = 0;
            for (size_t r = 0; r < s->t->nruns; r++)
                if (v < s->t->runs[r].nverbs) {
                    count += s->t->runs[r].verbs[v].count;
                    refused += s->t->runs[r].verbs[v].refused;
                    counted += s->t->runs[r].verbs[v].refused_counted;
                }
            char p50[32], p99[32];
            fmt_us(verb_median_us(s, v, false), p50, sizeof p50);
            fmt_us(verb_median_us(s, v, true), p99, sizeof p99);
            fprintf(o, "<tr%s>", refused || counted ? " class=\"refused\"" : "");
            target_cell(o, s);
            fputs("<td><code>", o);
            esc(o, s->t->runs[0].verbs[v].verb);
            fprintf(o,
                    "</code></td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
                    "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%s</td><td "
                    "class=\"n\">%s</td></tr>\n",
                    count, refused, counted, p50, p99);
        }
    }
    fputs("</tbody>\n</table>\n", o);
}

/* Every flow of every drawn result that has a mix (or skips or counts
 * refusals): its share asked for and got, cycles, skips and counted
 * refusals over all runs. */
static void put_flows(page *pg)
{
    FILE *o = pg->out;
    fputs("<table id=\"flows\">\n<thead><tr><th>domain · target</th><th>flow</th><th>weight</th>"
          "<th>share asked</th><th>share run</th><th>timed cycles</th><th>skipped (empty "
          "pool)</th><th>refused (counted)</th></tr></thead>\n<tbody>\n",
          o);
    for (size_t i = 0; i < pg->n; i++) {
        const series *s = &pg->s[i];
        size_t nflows = s->t->nruns ? s->t->runs[0].nflows : 0;
        uint64_t all = 0;
        for (size_t r = 0; r < s->t->nruns; r++)
            for (size_t f = 0; f < s->t->runs[r].nflows; f++)
                all += s->t->runs[r].flows[f].cycles;
        for (size_t f = 0; f < nflows; f++) {
            const flow_result *fl = &s->t->runs[0].flows[f];
            uint64_t cycles = 0, skipped = 0, counted = 0;
            for (size_t r = 0; r < s->t->nruns; r++)
                if (f < s->t->runs[r].nflows) {
                    cycles += s->t->runs[r].flows[f].cycles;
                    skipped += s->t->runs[r].flows[f].skipped;
                    counted += s->t->runs[r].flows[f].refused_counted;
                }
            fprintf(o, "<tr%s>", counted ? " class=\"refused\"" : "");
            target_cell(o, s);
            fputs("<td>", o);
            esc(o, fl->flow);
            fprintf(o,
                    "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%.1f%%</td><td "
                    "class=\"n\">%.1f%%</td><td class=\"n\">%" PRIu64
                    "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64 "</td></tr>\n",
                    fl->weight, fl->requested_share * 100,
                    all ? (double)cycles * 100 / (double)all : 0.0, cycles, skipped, counted);
        }
    }
    fputs("</tbody>\n</table>\n", o);
}

/* Whether some drawn result has more than one flow. */
static bool has_mix(const page *pg)
{
    for (size_t i = 0; i < pg->n; i++)
        if (pg->s[i].t->nruns && pg->s[i].t->runs[0].nflows > 1)
            return true;
    return false;
}

static const char *verdict_class(verdict v)
{
    return v == VERDICT_BETTER  ? "better"
           : v == VERDICT_WORSE ? "worse"
           : v == VERDICT_NOISE ? "noise"
                                : "missing";
}

/* The length of c's metric name without its field: the result it is of. */
static size_t prefix_len(const comparison *c)
{
    const metric *m = c->cur ? c->cur : c->base;
    return strlen(c->name) - strlen(m->field) - 1;
}

/* A comparison's figures as text: base, current, change. */
typedef struct cmp_text {
    char base[64], cur[64], change[32];
} cmp_text;

static cmp_text comparison_text(const comparison *c)
{
    cmp_text t;
    metric_format(c->base, t.base, sizeof t.base);
    metric_format(c->cur, t.cur, sizeof t.cur);
    if (isfinite(c->change_pct))
        snprintf(t.change, sizeof t.change, "%+.1f%%", c->change_pct + 0.0);
    else
        snprintf(t.change, sizeof t.change, "n/a");
    return t;
}

/* One comparison as a cell: base → current, change, verdict. */
static void baseline_cell(FILE *o, const comparison *c)
{
    if (!c) {
        fputs("<td></td>", o);
        return;
    }
    cmp_text t = comparison_text(c);
    fprintf(o, "<td class=\"n %s\" data-metric=\"", verdict_class(c->v));
    esc(o, c->name);
    fprintf(o, "\">%s → %s<br>%s, ", t.base, t.cur, t.change);
    esc(o, verdict_name(c->v));
    fputs("</td>", o);
}

/* Every metric against the baseline's (compare_results, as bench compare
 * BASE RESULT): a row per result with its throughput, p50 and p99 (base,
 * current, change, verdict) and how many of its other metrics got better or
 * worse; then every metric with the test's reason, folded. */
static void put_baseline(page *pg)
{
    FILE *o = pg->out;
    fputs("<p>Base: <code>", o);
    esc(o, pg->base->path);
    fputs("</code> (", o);
    esc(o, pg->base->r->env.date);
    fputs(", commit ", o);
    esc(o, pg->base->r->env.commit);
    fputs("). A change is called better or worse only when the run ranges are disjoint and "
          "the runs differ significantly (" COMPARE_TEST ", p &lt; 0.05); anything else is "
          "within noise.</p>\n<table id=\"baseline-table\">\n<thead><tr><th>result</th>"
          "<th>commands/s</th><th>p50 (µs)</th><th>p99 (µs)</th><th>other metrics</th></tr>"
          "</thead>\n<tbody>\n",
          o);
    static const char *const shown[] = {"throughput_per_s", "p50_us", "p99_us"};
    for (size_t i = 0; i < pg->ncmp; i++) {
        size_t len = prefix_len(&pg->cmp[i]);
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen =
                prefix_len(&pg->cmp[j]) == len && !strncmp(pg->cmp[j].name, pg->cmp[i].name, len);
        if (seen)
            continue;
        const comparison *cells[3] = {NULL};
        size_t better = 0, worse = 0, others = 0;
        for (size_t j = i; j < pg->ncmp; j++) {
            const comparison *c = &pg->cmp[j];
            if (prefix_len(c) != len || strncmp(c->name, pg->cmp[i].name, len) != 0)
                continue;
            size_t k = 0;
            while (k < 3 && strcmp(c->name + len + 1, shown[k]) != 0)
                k++;
            if (k < 3) {
                cells[k] = c;
                continue;
            }
            others++;
            better += c->v == VERDICT_BETTER;
            worse += c->v == VERDICT_WORSE;
        }
        fputs("<tr><td><code>", o);
        fwrite(pg->cmp[i].name, 1, len, o); /* metric names are identifiers, dots, @ and digits */
        fputs("</code></td>", o);
        for (size_t k = 0; k < 3; k++)
            baseline_cell(o, cells[k]);
        fprintf(o, "<td>%zu better, %zu worse of %zu</td></tr>\n", better, worse, others);
    }
    fprintf(o,
            "</tbody>\n</table>\n<details><summary>Every metric (%zu)</summary>\n<table "
            "id=\"baseline-metrics\">\n<thead><tr><th>metric</th><th>base</th><th>current</th>"
            "<th>change</th><th>verdict</th></tr></thead>\n<tbody>\n",
            pg->ncmp);
    for (size_t i = 0; i < pg->ncmp; i++) {
        const comparison *c = &pg->cmp[i];
        char why[160];
        cmp_text t = comparison_text(c);
        fprintf(o, "<tr class=\"%s\"><td><code>", verdict_class(c->v));
        esc(o, c->name);
        fprintf(o,
                "</code></td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s"
                "</td><td>",
                t.base, t.cur, t.change);
        esc(o, verdict_name(c->v));
        comparison_reason(c, why, sizeof why);
        if (why[0]) {
            fputs(" (", o);
            esc(o, why);
            fputs(")", o);
        }
        fputs("</td></tr>\n", o);
    }
    fputs("</tbody>\n</table>\n</details>\n", o);
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
    if (pg->base) {
        fputs("</section>\n<section id=\"baseline\">\n<h2>Against the baseline</h2>\n", o);
        put_baseline(pg);
    }
    fputs("</section>\n<section id=\"latency\">\n<h2>Latency percentiles</h2>\n", o);
    chart_latency(pg);
    if (has_prefill_sweep(pg)) {
        fputs("</section>\n<section id=\"cost\">\n<h2>Cost against store size</h2>\n", o);
        chart_cost(pg);
    }
    fputs("</section>\n<section id=\"drift\">\n<h2>Drift across the timed pass</h2>\n", o);
    chart_drift(pg);
    if (has_time_series(pg)) {
        fputs("</section>\n<section id=\"time\">\n<h2>Over time</h2>\n", o);
        chart_over_time(pg);
    }
    fputs("</section>\n<section id=\"per-verb\">\n<h2>Verbs and refusals</h2>\n<p>Each "
          "verb's timed commands and refusals over all runs (expected: <code>expect: "
          "refused</code>; counted: <code>on_refusal: count</code>), and its latencies, the "
          "median across runs. Rows with refusals are marked.</p>\n",
          o);
    put_verbs(pg);
    if (has_mix(pg)) {
        fputs("<h3>Flows</h3>\n", o);
        put_flows(pg);
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

static int write_page(page *pg, const char *source)
{
    int rc = collect(pg);
    if (rc == 0 && pg->base)
        rc = compare_results(pg->base, pg->cur, &pg->cmp, &pg->ncmp);
    if (rc == 0)
        put_page(pg, source ? source : "result.json");
    for (size_t i = 0; i < pg->n; i++)
        hist_free(&pg->s[i].all);
    free(pg->s);
    free(pg->cmp);
    return rc == 0 && !ferror(pg->out) ? 0 : -1;
}

int report_html(const report *r, const char *source, FILE *out)
{
    page pg = {.out = out, .r = r};
    return write_page(&pg, source);
}

int report_html_compared(const result_file *cur, const result_file *base, FILE *out)
{
    page pg = {.out = out, .r = cur->r, .cur = cur, .base = base};
    return write_page(&pg, cur->path);
}
