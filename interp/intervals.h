/* intervals.h: latency over time (DESIGN section 10): every run keeps a
 * histogram per interval of its timed pass (1 s by default), overall and
 * per verb, for the JSON's intervals[], the HTML report's charts over time,
 * --progress lines and --hlog. The live histograms are fixed memory; a
 * finished interval is kept as its non-empty buckets only, so memory grows
 * with the number of intervals and the buckets they touch, not with the
 * commands. Recording is hist_add's cost; closing an interval happens
 * between commands, outside the timed region. */
#ifndef BENCH_INTERVALS_H
#define BENCH_INTERVALS_H

#include <stddef.h>
#include <stdint.h>

#include "hist.h"

/* A histogram as its non-empty buckets: each bucket's value (the one that
 * stands for it) and count, in increasing order of value. */
typedef struct hist_buckets {
    uint64_t *mid, *count;
    size_t n;
    uint64_t total, min, max;
} hist_buckets;

typedef struct interval {
    uint64_t start_ns, length_ns; /* from the start of the timed pass */
    uint64_t commands;
    double p50_ns, p90_ns, p99_ns, max_ns; /* NAN when the interval is empty */
    hist_buckets all;
    hist_buckets *verbs; /* one per verb; NULL when the interval came from a result file */
    size_t nverbs;
} interval;

typedef struct intervals {
    uint64_t every_ns;
    uint64_t start, next_end; /* monotonic ns */
    hist cur;                 /* the interval closing: its verbs' merged (close_one) */
    hist *cur_verbs;
    size_t nverbs;
    /* NULL, or nverbs histograms each closing interval's verbs are also
       merged into: the pass's per-verb histograms, which then need no
       record of their own per command (complete once intervals_finish) */
    hist *fold_verbs;
    interval *items;
    size_t n, cap;
} intervals;

/* Intervals of every_ns over a pass that starts at `start` (monotonic ns),
 * with nverbs verbs. Returns 0, or -1 when out of memory (iv is then safe
 * to intervals_free). */
int intervals_init(intervals *iv, uint64_t every_ns, uint64_t start, size_t nverbs);
void intervals_free(intervals *iv);
/* Moves the start of the first interval to `start` (nothing recorded yet). */
void intervals_restart(intervals *iv, uint64_t start);

/* Records a latency, made ready once by hist_sample_of, for its verb; the
 * interval's own histogram is the verbs' merged when it closes. */
static inline void intervals_add(intervals *iv, size_t verb, const hist_sample *s)
{
    hist_add(&iv->cur_verbs[verb], s);
}

/* Closes the intervals that ended by `now`; true when one closed (the
 * last is iv->items[iv->n - 1]). Empty intervals are kept: a stall shows.
 * Inline: the runner asks after every command, and nearly always none has. */
bool intervals_close_due(intervals *iv, uint64_t now);
static inline bool intervals_tick(intervals *iv, uint64_t now)
{
    return now >= iv->next_end && intervals_close_due(iv, now);
}
/* Closes the last, partial interval at `end`. */
void intervals_finish(intervals *iv, uint64_t end);

/* Adds the finished intervals of src (a pass with the same every_ns,
 * verbs and, within a few µs, start: another client's) into dst's, interval
 * by interval and bucket by bucket; dst must be finished too. */
void intervals_merge(intervals *dst, const intervals *src);

/* Moves the finished intervals out (the caller's, to intervals_items_free)
 * and their number into *n. */
interval *intervals_take(intervals *iv, size_t *n);
void intervals_items_free(interval *items, size_t n);

/* h's non-empty buckets into b (the caller's, to hist_buckets_free). */
void hist_buckets_of(const hist *h, hist_buckets *b);
/* Frees what hist_buckets_of made and empties b (an empty b is fine). */
void hist_buckets_free(hist_buckets *b);
/* The histogram of b, rebuilt into h (initialised by the caller). */
void hist_buckets_into(const hist_buckets *b, hist *h);

#endif
