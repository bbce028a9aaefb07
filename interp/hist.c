/* hist.c: the cold half of the histogram (the hot half is inline in hist.h). */
#include "hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

_Static_assert(HIST_BUCKETS * sizeof(uint64_t) % ALLOC_LINE == 0,
               "aligned_alloc takes a whole number of lines");

int hist_init(hist *h)
{
    memset(h, 0, sizeof *h);
    h->min = UINT64_MAX;
    /* malloc and memset rather than calloc: the zeroes are written now, so
       the pages are the process's before the first record, and a page
       fault never lands between a timed pass's clock reads */
    h->counts = aligned_alloc(ALLOC_LINE, HIST_BUCKETS * sizeof *h->counts); /* its own lines */
    if (!h->counts)
        return -1;
    memset(h->counts, 0, HIST_BUCKETS * sizeof *h->counts);
    return 0;
}

void hist_free(hist *h)
{
    free(h->counts);
    h->counts = NULL;
}

void hist_reset(hist *h)
{
    uint64_t *counts = h->counts;
    memset(counts, 0, HIST_BUCKETS * sizeof *counts);
    memset(h, 0, sizeof *h);
    h->counts = counts;
    h->min = UINT64_MAX;
}

void hist_record_n(hist *h, uint64_t ns, uint64_t n)
{
    if (n == 0)
        return;
    ns = ns ? ns : 1;
    if (ns > HIST_MAX_NS) {
        ns = HIST_MAX_NS;
        h->clamped += n;
    }
    h->counts[hist_index(ns)] += n;
    h->count += n;
    h->sum += (hist_u128)ns * n;
    h->sumsq += (hist_u128)ns * ns * n;
    h->min = ns < h->min ? ns : h->min;
    h->max = ns > h->max ? ns : h->max;
}

bool hist_set_extremes(hist *h, uint64_t min, uint64_t max)
{
    if (h->count == 0 || min < 1 || min > max || max > HIST_MAX_NS ||
        hist_index(min) != hist_index(h->min) || hist_index(max) != hist_index(h->max))
        return false;
    h->min = min;
    h->max = max;
    return true;
}

void hist_merge(hist *dst, const hist *src)
{
    if (src->count == 0)
        return;
    for (size_t i = hist_index(src->min); i <= hist_index(src->max); i++)
        dst->counts[i] += src->counts[i];
    dst->count += src->count;
    dst->clamped += src->clamped;
    dst->sum += src->sum;
    dst->sumsq += src->sumsq;
    dst->min = src->min < dst->min ? src->min : dst->min;
    dst->max = src->max > dst->max ? src->max : dst->max;
}

uint64_t hist_count(const hist *h)
{
    return h->count;
}

uint64_t hist_min(const hist *h)
{
    return h->count ? h->min : 0;
}

uint64_t hist_max(const hist *h)
{
    return h->count ? h->max : 0;
}

double hist_mean(const hist *h)
{
    if (h->count == 0)
        return NAN;
    return (double)((long double)h->sum / h->count);
}

/* n*sumsq - sum^2 is n^2 times the variance; exact in 128 bits unless a run
 * is both long and slow, where long double (64-bit mantissa) takes over. */
double hist_stddev(const hist *h)
{
    if (h->count == 0)
        return NAN;
    long double n = h->count, var;
    hist_u128 nsq, sq;
    if (!__builtin_mul_overflow(h->sumsq, (hist_u128)h->count, &nsq) &&
        !__builtin_mul_overflow(h->sum, h->sum, &sq)) {
        var = (long double)(nsq - sq) / n / n; /* nsq >= sq: Cauchy-Schwarz */
    } else {
        long double mean = (long double)h->sum / n;
        var = (long double)h->sumsq / n - mean * mean;
    }
    return var > 0 ? (double)sqrtl(var) : 0.0;
}

/* The lowest value of bucket i and its width (the inverse of hist_index). */
static uint64_t bucket_lo(size_t i, uint64_t *width)
{
    size_t exact = (size_t)2 << HIST_SUB_BITS;
    if (i < exact) {
        *width = 1;
        return i;
    }
    unsigned shift = (unsigned)(i >> HIST_SUB_BITS) - 1;
    *width = UINT64_C(1) << shift;
    return (uint64_t)(i - ((size_t)shift << HIST_SUB_BITS)) << shift;
}

/* The value reporting bucket i: its midpoint, at most width/2 from any value
 * in it, kept inside the samples' range [min, max]. */
static uint64_t mid_within(size_t i, uint64_t min, uint64_t max)
{
    uint64_t width, mid = bucket_lo(i, &width) + width / 2;
    return mid < min ? min : mid > max ? max : mid;
}

static uint64_t bucket_mid(const hist *h, size_t i)
{
    return mid_within(i, h->min, h->max);
}

/* ceil(q*n), 1-based, in [1, n]; see the header for the rounding rule. */
static uint64_t nearest_rank(double q, uint64_t n)
{
    if (!(q > 0))
        return 1; /* also NaN */
    if (q >= 1)
        return n;
    double x = q * (double)n, fl = floor(x);
    uint64_t rank = (uint64_t)fl;
    if (x - fl > x * 1e-12)
        rank++;
    return rank < 1 ? 1 : rank > n ? n : rank;
}

uint64_t hist_percentile(const hist *h, double q)
{
    return hist_percentile_of(h, 1, q);
}

uint64_t hist_percentile_of(const hist *hs, size_t n, double q)
{
    uint64_t count = 0, min = UINT64_MAX, max = 0;
    for (size_t k = 0; k < n; k++) {
        count += hs[k].count;
        min = hs[k].count && hs[k].min < min ? hs[k].min : min;
        max = hs[k].count && hs[k].max > max ? hs[k].max : max;
    }
    if (count == 0)
        return 0;
    uint64_t rank = nearest_rank(q, count);
    if (rank == 1)
        return min;
    if (rank == count)
        return max;
    uint64_t seen = 0;
    size_t last = hist_index(max);
    for (size_t i = hist_index(min); i < last; i++) {
        for (size_t k = 0; k < n; k++)
            seen += hs[k].counts[i];
        if (seen >= rank)
            return mid_within(i, min, max);
    }
    return mid_within(last, min, max);
}

hist_iter hist_iter_start(const hist *h)
{
    hist_iter it = {.h = h, .next = h->count ? hist_index(h->min) : HIST_BUCKETS};
    return it;
}

bool hist_iter_next(hist_iter *it)
{
    size_t end = it->h->count ? hist_index(it->h->max) + 1 : 0;
    while (it->next < end && it->h->counts[it->next] == 0)
        it->next++;
    if (it->next >= end)
        return false;
    size_t i = it->next++;
    uint64_t width;
    it->lo = bucket_lo(i, &width);
    it->hi = it->lo + width - 1;
    it->mid = bucket_mid(it->h, i);
    it->count = it->h->counts[i];
    return true;
}
