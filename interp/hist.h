/* hist.h: a log-linear (HDR-style) histogram of nanosecond latencies, 1 ns to
 * one hour at 3 significant digits, in fixed memory allocated once.
 *
 * Layout: values below 2^(HIST_SUB_BITS+1) = 2048 have a bucket each (exact);
 * above that, every octave [2^e, 2^(e+1)) is cut into 2^HIST_SUB_BITS = 1024
 * equal buckets, so a bucket is never wider than 1/1024 of its lower bound.
 * Reporting a bucket by its midpoint is then off by at most 1/2048 (< 0.049%)
 * of the value that was recorded, which is the bound hist_percentile states. */
#ifndef BENCH_HIST_H
#define BENCH_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HIST_SUB_BITS 10
/* The largest value kept: one hour. Larger values are recorded as this. */
#define HIST_MAX_NS UINT64_C(3600000000000)
/* Octaves above the exact range up to HIST_MAX_NS (whose top bit is 41),
 * plus the exact range (two octaves' worth of index space). */
#define HIST_BUCKETS ((size_t)(41 - HIST_SUB_BITS + 2) << HIST_SUB_BITS)

/* Exact sums need more than 64 bits: 2^64 ns is 584 years, and squares of
 * latencies above 4.3 s overflow at once. */
__extension__ typedef unsigned __int128 hist_u128;

typedef struct hist {
    uint64_t *counts;  /* HIST_BUCKETS counters, owned */
    uint64_t count;    /* samples recorded */
    uint64_t clamped;  /* samples above HIST_MAX_NS, recorded as HIST_MAX_NS */
    uint64_t min, max; /* exact, as recorded (after clamping); min is UINT64_MAX when empty */
    hist_u128 sum;     /* exact sum of recorded values, for the mean */
    hist_u128 sumsq;   /* exact sum of their squares, for the standard deviation */
} hist;

/* Allocates the counters of an empty histogram. Returns 0, or -1 when out of
 * memory (h is then safe to hist_free). */
int hist_init(hist *h);
/* Frees the counters; h must be initialised again before reuse. */
void hist_free(hist *h);
/* Empties h, keeping its memory. */
void hist_reset(hist *h);

/* The bucket index of v, for 1 <= v <= HIST_MAX_NS: the octave above the exact
 * range gives the shift, the top HIST_SUB_BITS+1 bits the place in it. */
static inline size_t hist_index(uint64_t v)
{
    unsigned shift =
        (unsigned)(63 - __builtin_clzll(v | (UINT64_C(1) << HIST_SUB_BITS))) - HIST_SUB_BITS;
    return ((size_t)shift << HIST_SUB_BITS) + (size_t)(v >> shift);
}

/* One latency made ready for recording, once, however many histograms
 * it goes into: 0 counts as 1 (below the clock's resolution), values above
 * HIST_MAX_NS as HIST_MAX_NS (and in clamped); its bucket and square. */
typedef struct hist_sample {
    uint64_t ns;
    size_t index;
    hist_u128 sq;
    uint64_t clamped; /* 1 when ns was clamped */
} hist_sample;

static inline hist_sample hist_sample_of(uint64_t ns)
{
    hist_sample s = {.ns = ns ? ns : 1};
    if (s.ns > HIST_MAX_NS) {
        s.ns = HIST_MAX_NS;
        s.clamped = 1;
    }
    s.index = hist_index(s.ns);
    s.sq = (hist_u128)s.ns * s.ns;
    return s;
}

/* Records s into h: what hist_record(h, ns) does, without working the
 * sample out again. Inline because the runner records every command into
 * several histograms; it never allocates. */
static inline void hist_add(hist *h, const hist_sample *s)
{
    h->counts[s->index]++;
    h->count++;
    h->clamped += s->clamped;
    h->sum += s->ns;
    h->sumsq += s->sq;
    if (s->ns < h->min)
        h->min = s->ns;
    if (s->ns > h->max)
        h->max = s->ns;
}

/* Records one latency in ns (see hist_sample_of for 0 and the clamp). */
static inline void hist_record(hist *h, uint64_t ns)
{
    hist_sample s = hist_sample_of(ns);
    hist_add(h, &s);
}

/* Records n samples of ns at once, as n calls of hist_record would: for a
 * histogram rebuilt from its buckets' values and counts (a result file). */
void hist_record_n(hist *h, uint64_t ns, uint64_t n);
/* Puts back the exact extremes of a histogram rebuilt from bucket values,
 * where min and max are the lowest and highest bucket's values instead of
 * the samples': min and max replace them when each lies in the bucket of the
 * one it replaces (and min <= max); returns whether they did. Percentiles of
 * the rebuilt histogram then equal the original's. */
bool hist_set_extremes(hist *h, uint64_t min, uint64_t max);

/* Adds every sample of src to dst, as if each had been recorded into dst. */
void hist_merge(hist *dst, const hist *src);

/* Getters; min and max are 0 for an empty histogram. */
uint64_t hist_count(const hist *h);
uint64_t hist_min(const hist *h);
uint64_t hist_max(const hist *h);
/* Mean and population standard deviation of the recorded values, computed
 * from the exact sums (rounded once to double); NAN when empty. */
double hist_mean(const hist *h);
double hist_stddev(const hist *h);

/* The nearest-rank q-quantile (q in [0,1], clamped): the sample of 1-based
 * rank ceil(q*n) in sorted order, rank 1 for q = 0. Exact for the lowest and
 * highest rank (p0 = min, p100 = max) and for values below 2048 ns; otherwise
 * the midpoint of the sample's bucket, clamped into [min, max], which is
 * within 1/2048 (< 0.049%) of that sample. Returns 0 when empty. A product q*n
 * within a relative 1e-12 of an integer counts as that integer, so that
 * binary rounding (0.07 * 100 = 7.000000000000001) does not move the rank. */
uint64_t hist_percentile(const hist *h, double q);
/* hist_percentile of the n histograms hs[0..n) taken as one (their
 * merge), without merging them: for a figure of a pass under way, whose
 * histogram is its tenths'. */
uint64_t hist_percentile_of(const hist *hs, size_t n, double q);

/* Walks the non-empty buckets in increasing order of value:
 *     hist_iter it = hist_iter_start(h);
 *     while (hist_iter_next(&it)) use(it.lo, it.hi, it.count);
 * The iterator lends h, which must not change during the walk. */
typedef struct hist_iter {
    const hist *h;
    size_t next;     /* index of the next bucket to look at */
    uint64_t lo, hi; /* the current bucket's values, inclusive */
    uint64_t mid;    /* the value that stands for the bucket (as in percentiles) */
    uint64_t count;  /* samples in the current bucket */
} hist_iter;

hist_iter hist_iter_start(const hist *h);
/* Moves to the next non-empty bucket; false when there is none. */
bool hist_iter_next(hist_iter *it);

#endif
