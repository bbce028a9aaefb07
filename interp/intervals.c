/* intervals.c: latency over time (intervals.h). */
#include "intervals.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

int intervals_init(intervals *iv, uint64_t every_ns, uint64_t start, size_t nverbs)
{
    memset(iv, 0, sizeof *iv);
    iv->every_ns = every_ns ? every_ns : 1000000000u;
    iv->start = start;
    iv->next_end = start + iv->every_ns;
    iv->nverbs = nverbs;
    iv->cur_verbs = xcalloc_lines(nverbs ? nverbs : 1, sizeof *iv->cur_verbs); /* one client's */
    if (hist_init(&iv->cur) < 0)
        return -1;
    for (size_t i = 0; i < nverbs; i++)
        if (hist_init(&iv->cur_verbs[i]) < 0)
            return -1;
    return 0;
}

void intervals_restart(intervals *iv, uint64_t start)
{
    iv->start = start;
    iv->next_end = start + iv->every_ns;
}

static void buckets_free(hist_buckets *b)
{
    free(b->mid);
    free(b->count);
}

void intervals_items_free(interval *items, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        buckets_free(&items[i].all);
        for (size_t v = 0; items[i].verbs && v < items[i].nverbs; v++)
            buckets_free(&items[i].verbs[v]);
        free(items[i].verbs);
    }
    free(items);
}

void intervals_free(intervals *iv)
{
    hist_free(&iv->cur);
    for (size_t i = 0; iv->cur_verbs && i < iv->nverbs; i++)
        hist_free(&iv->cur_verbs[i]);
    free(iv->cur_verbs);
    intervals_items_free(iv->items, iv->n);
    memset(iv, 0, sizeof *iv);
}

void hist_buckets_of(const hist *h, hist_buckets *b)
{
    size_t n = 0;
    hist_iter it = hist_iter_start(h);
    while (hist_iter_next(&it))
        n++;
    b->mid = xmalloc((n ? n : 1) * sizeof *b->mid);
    b->count = xmalloc((n ? n : 1) * sizeof *b->count);
    b->n = 0;
    it = hist_iter_start(h);
    while (hist_iter_next(&it)) {
        b->mid[b->n] = it.mid;
        b->count[b->n++] = it.count;
    }
    b->total = hist_count(h);
    b->min = hist_min(h);
    b->max = hist_max(h);
}

void hist_buckets_free(hist_buckets *b)
{
    free(b->mid);
    free(b->count);
    memset(b, 0, sizeof *b);
}

/* h's non-empty buckets into b, and h emptied. */
static void snapshot(hist *h, hist_buckets *b)
{
    hist_buckets_of(h, b);
    hist_reset(h);
}

/* An interval's commands and percentiles from its histogram h. */
static void figures_of(const hist *h, interval *it)
{
    bool any = hist_count(h) > 0;
    it->commands = hist_count(h);
    it->p50_ns = any ? (double)hist_percentile(h, 0.5) : NAN;
    it->p90_ns = any ? (double)hist_percentile(h, 0.9) : NAN;
    it->p99_ns = any ? (double)hist_percentile(h, 0.99) : NAN;
    it->max_ns = any ? (double)hist_max(h) : NAN;
}

static void close_one(intervals *iv, uint64_t end)
{
    if (iv->n == iv->cap) {
        iv->cap = iv->cap ? iv->cap * 2 : 16;
        iv->items = xrealloc(iv->items, iv->cap * sizeof *iv->items);
    }
    interval *it = &iv->items[iv->n++];
    uint64_t from = iv->start + (uint64_t)(iv->n - 1) * iv->every_ns;
    *it = (interval){.start_ns = from - iv->start, .length_ns = end - from};
    for (size_t v = 0; v < iv->nverbs; v++) { /* the loop records the verbs' only */
        hist_merge(&iv->cur, &iv->cur_verbs[v]);
        if (iv->fold_verbs)
            hist_merge(&iv->fold_verbs[v], &iv->cur_verbs[v]);
    }
    figures_of(&iv->cur, it);
    snapshot(&iv->cur, &it->all);
    it->nverbs = iv->nverbs;
    it->verbs = xcalloc(iv->nverbs ? iv->nverbs : 1, sizeof *it->verbs);
    for (size_t v = 0; v < iv->nverbs; v++)
        snapshot(&iv->cur_verbs[v], &it->verbs[v]);
}

bool intervals_close_due(intervals *iv, uint64_t now)
{
    bool closed = false;
    while (now >= iv->next_end) {
        close_one(iv, iv->next_end);
        iv->next_end += iv->every_ns;
        closed = true;
    }
    return closed;
}

void intervals_finish(intervals *iv, uint64_t end)
{
    intervals_tick(iv, end);
    uint64_t from = iv->start + (uint64_t)iv->n * iv->every_ns;
    bool pending = false;
    for (size_t v = 0; v < iv->nverbs; v++)
        pending = pending || hist_count(&iv->cur_verbs[v]) > 0;
    if (end > from || pending)
        close_one(iv, end > from ? end : from);
}

interval *intervals_take(intervals *iv, size_t *n)
{
    interval *items = iv->items;
    *n = iv->n;
    iv->items = NULL;
    iv->n = iv->cap = 0;
    return items;
}

void hist_buckets_into(const hist_buckets *b, hist *h)
{
    for (size_t i = 0; i < b->n; i++)
        hist_record_n(h, b->mid[i], b->count[i]);
    if (b->n)
        hist_set_extremes(h, b->min, b->max);
}

/* b and c's histograms merged into h (emptied before), exact bucket by
 * bucket; tmp is scratch. */
static void merge_buckets(const hist_buckets *b, const hist_buckets *c, hist *h, hist *tmp)
{
    hist_buckets_into(b, h);
    hist_buckets_into(c, tmp);
    hist_merge(h, tmp);
    hist_reset(tmp);
}

void intervals_merge(intervals *dst, const intervals *src)
{
    hist tmp;
    if (hist_init(&tmp) < 0)
        return;
    for (size_t i = 0; i < src->n; i++) {
        const interval *s = &src->items[i];
        if (i == dst->n) { /* src ran on past dst's end: an empty interval to add to */
            if (dst->n == dst->cap) {
                dst->cap = dst->cap ? dst->cap * 2 : 16;
                dst->items = xrealloc(dst->items, dst->cap * sizeof *dst->items);
            }
            dst->items[dst->n++] =
                (interval){.start_ns = s->start_ns,
                           .nverbs = dst->nverbs,
                           .verbs = xcalloc(dst->nverbs ? dst->nverbs : 1, sizeof(hist_buckets))};
        }
        interval *d = &dst->items[i];
        d->length_ns = s->length_ns > d->length_ns ? s->length_ns : d->length_ns;
        merge_buckets(&d->all, &s->all, &dst->cur, &tmp);
        figures_of(&dst->cur, d);
        buckets_free(&d->all);
        snapshot(&dst->cur, &d->all);
        for (size_t v = 0; v < dst->nverbs && v < s->nverbs; v++) {
            merge_buckets(&d->verbs[v], &s->verbs[v], &dst->cur_verbs[v], &tmp);
            buckets_free(&d->verbs[v]);
            snapshot(&dst->cur_verbs[v], &d->verbs[v]);
        }
    }
    hist_free(&tmp);
}
