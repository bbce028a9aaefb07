#include "diag.h"

#include "alloc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

char *diag_vformat(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    char *s = xmalloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

/* Takes msg and path. */
static void push(diag_list *d, diag_severity sev, const char *file, int line, int col, char *msg,
                 char *path)
{
    if (d->count == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 16;
        d->items = xrealloc(d->items, d->cap * sizeof *d->items);
    }
    diag *g = &d->items[d->count++];
    g->severity = sev;
    g->file = file ? xstrdup(file) : NULL;
    g->line = line;
    g->col = col;
    g->message = msg;
    g->path = path;
    if (sev == DIAG_ERROR)
        d->errors++;
    else
        d->warnings++;
}

void diag_add(diag_list *d, diag_severity sev, const char *file, int line, int col, const char *fmt,
              ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = diag_vformat(fmt, ap);
    va_end(ap);
    push(d, sev, file, line, col, msg, NULL);
}

void diag_copy(diag_list *d, const diag *g)
{
    char *msg = xstrdup(g->message), *path = g->path ? xstrdup(g->path) : NULL;
    push(d, g->severity, g->file, g->line, g->col, msg, path);
}

void diag_error_at(diag_list *d, const node *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = diag_vformat(fmt, ap);
    va_end(ap);
    push(d, DIAG_ERROR, n ? n->file : NULL, n ? n->line : 0, n ? n->col : 0, msg, node_path(n));
}

void diag_warning_at(diag_list *d, const node *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = diag_vformat(fmt, ap);
    va_end(ap);
    push(d, DIAG_WARNING, n ? n->file : NULL, n ? n->line : 0, n ? n->col : 0, msg, node_path(n));
}

void diag_error_in(diag_list *d, const node *n, size_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = diag_vformat(fmt, ap);
    va_end(ap);
    int line, col;
    node_locate(n, offset, &line, &col);
    push(d, DIAG_ERROR, n->file, line, col, msg, node_path(n));
}

static int cmp_diag(const void *a, const void *b)
{
    const diag *x = a, *y = b;
    int c = strcmp(x->file ? x->file : "", y->file ? y->file : "");
    if (c)
        return c;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return 0;
}

void diag_sort(diag_list *d)
{
    /* a bottom-up merge sort: stable, and linearithmic for specs with many errors */
    if (d->count < 2)
        return;
    diag *tmp = xmalloc(d->count * sizeof *tmp);
    diag *from = d->items, *to = tmp;
    for (size_t w = 1; w < d->count; w *= 2) {
        for (size_t lo = 0; lo < d->count; lo += 2 * w) {
            size_t mid = lo + w < d->count ? lo + w : d->count;
            size_t hi = lo + 2 * w < d->count ? lo + 2 * w : d->count;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                to[k++] = cmp_diag(&from[j], &from[i]) < 0 ? from[j++] : from[i++];
            while (i < mid)
                to[k++] = from[i++];
            while (j < hi)
                to[k++] = from[j++];
        }
        diag *t = from;
        from = to, to = t;
    }
    if (from != d->items)
        memcpy(d->items, from, d->count * sizeof *from);
    free(tmp);
}

void diag_list_free(diag_list *d)
{
    for (size_t i = 0; i < d->count; i++) {
        free(d->items[i].file);
        free(d->items[i].message);
        free(d->items[i].path);
    }
    free(d->items);
    memset(d, 0, sizeof *d);
}

static const char *sev_name(diag_severity s)
{
    return s == DIAG_ERROR ? "error" : "warning";
}

diag_cursor diag_cursor_at(const char *text, size_t len)
{
    return (diag_cursor){.text = text, .end = text + len, .at = text, .line = 1};
}

/* The start of line `line`, moving the cursor there (forward from where it
 * is, or from the start for an earlier line), or NULL past the end. */
static const char *cursor_line(diag_cursor *c, int line)
{
    if (line < c->line) {
        c->at = c->text;
        c->line = 1;
    }
    while (c->line < line) {
        const char *nl = memchr(c->at, '\n', (size_t)(c->end - c->at));
        if (!nl)
            return NULL;
        c->at = nl + 1;
        c->line++;
    }
    return c->at;
}

static bool is_cont(char ch)
{
    return ((unsigned char)ch & 0xC0) == 0x80;
}

/* The byte after n code points from p (at most up to end). */
static const char *skip_points(const char *p, const char *end, size_t n)
{
    while (p < end && n > 0) {
        p++;
        while (p < end && is_cont(*p))
            p++;
        n--;
    }
    return p;
}

/* Prints [p, end) with control characters as '?' (a spec's own bytes, but
 * the terminal must not take them for escapes). */
static void print_source(FILE *out, const char *p, const char *end)
{
    for (; p < end; p++)
        fputc((unsigned char)*p < 0x20 && *p != '\t' ? '?' : *p, out);
}

void diag_print_text(FILE *out, const diag *g, diag_cursor *src)
{
    const char *file = g->file ? g->file : "bench";
    if (g->line > 0)
        fprintf(out, "%s:%d:%d: %s: %s\n", file, g->line, g->col, sev_name(g->severity),
                g->message);
    else
        fprintf(out, "%s: %s: %s\n", file, sev_name(g->severity), g->message);
    if (!src || g->line <= 0)
        return;
    const char *p = cursor_line(src, g->line);
    if (!p)
        return;
    const char *eol = memchr(p, '\n', (size_t)(src->end - p));
    if (!eol)
        eol = src->end;
    if (eol > p && eol[-1] == '\r')
        eol--;
    /* a window of DIAG_SOURCE_WINDOW code points around the column */
    size_t col = g->col > 1 ? (size_t)g->col - 1 : 0; /* code points before the caret */
    size_t first = col > DIAG_SOURCE_WINDOW / 2 ? col - DIAG_SOURCE_WINDOW / 2 : 0;
    const char *from = skip_points(p, eol, first);
    const char *to = skip_points(from, eol, DIAG_SOURCE_WINDOW);
    fputs("  ", out);
    if (from > p)
        fputs("…", out);
    print_source(out, from, to);
    if (to < eol)
        fputs("…", out);
    fputs("\n  ", out);
    if (from > p)
        fputc(' ', out);
    /* the caret sits under column col, counted in code points */
    const char *q = from;
    for (size_t k = first; k < col && q < to; k++) {
        fputc(*q == '\t' ? '\t' : ' ', out);
        q = skip_points(q, to, 1);
    }
    fputs("^\n", out);
}

static void github_escape(FILE *out, const char *s, bool property)
{
    for (; *s; s++) {
        switch (*s) {
        case '%': fputs("%25", out); break;
        case '\r': fputs("%0D", out); break;
        case '\n': fputs("%0A", out); break;
        case ':': property ? fputs("%3A", out) : fputc(':', out); break;
        case ',': property ? fputs("%2C", out) : fputc(',', out); break;
        default: fputc(*s, out);
        }
    }
}

void diag_print_github(FILE *out, const diag *g)
{
    fprintf(out, "::%s file=", sev_name(g->severity));
    github_escape(out, g->file ? g->file : "", true);
    if (g->line > 0)
        fprintf(out, ",line=%d,col=%d", g->line, g->col);
    fputs("::", out);
    github_escape(out, g->message, false);
    fputc('\n', out);
}

/* The Levenshtein distance between a and b when it is at most limit, and
 * limit + 1 otherwise: the distance is at least the difference in length,
 * and never less than the smallest entry of a row, so either bound ends the
 * work early (diag_suggest asks only whether a word is near). */
static size_t edit_distance(const char *a, const char *b, size_t limit)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64 || (la > lb ? la - lb : lb - la) > limit)
        return limit + 1;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t prev = row[0];
        row[0] = i;
        size_t least = row[0];
        for (size_t j = 1; j <= lb; j++) {
            size_t cur = row[j];
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = prev + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            prev = cur;
            if (best < least)
                least = best;
        }
        if (least > limit)
            return limit + 1;
    }
    return row[lb] <= limit ? row[lb] : limit + 1;
}

const char *diag_suggest(const char *word, const char *const *candidates, size_t n)
{
    const char *best = NULL;
    size_t wl = strlen(word);
    size_t limit = wl <= 3 ? 1 : wl <= 6 ? 2 : 3;
    size_t best_d = limit + 1;
    for (size_t i = 0; i < n && best_d > 0; i++) {
        /* a candidate only as near as the best so far is not taken: the
           first of the nearest wins, as before */
        size_t dist = edit_distance(word, candidates[i], best_d - 1);
        if (dist < best_d) {
            best_d = dist;
            best = candidates[i];
        }
    }
    return best;
}
