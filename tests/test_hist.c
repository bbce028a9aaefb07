/* test_hist.c: the histogram against figures computed from the sorted raw
 * samples (nearest rank: element ceil(q*n)-1, element 0 for q = 0). */
/* cmocka.h needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "test_util.h"

/* The bound hist.h states: half a bucket, a bucket being 1/1024 of its value. */
#define BOUND (1.0 / 2048)

static uint64_t rng_state;

/* A fixed seed makes every run see the same samples. */
static uint64_t rng_next(void)
{
    return test_rng_next(&rng_state);
}

static double rng_unit(void) /* in (0, 1] */
{
    return ((rng_next() >> 11) + 1) * (1.0 / 9007199254740992.0);
}

static uint64_t gen_uniform(void)
{
    return 1 + rng_next() % 1000000;
}

static uint64_t gen_log_uniform(void)
{
    return (uint64_t)exp(rng_unit() * log((double)HIST_MAX_NS));
}

/* Pareto, alpha 1.1 from 1 us: a long tail, some of it past an hour. */
static uint64_t gen_heavy_tail(void)
{
    double x = 1000.0 / pow(rng_unit(), 1 / 1.1);
    return x >= 1e19 ? UINT64_MAX : (uint64_t)x;
}

/* What the histogram promises to have recorded for a raw value. */
static uint64_t as_recorded(uint64_t v)
{
    return v == 0 ? 1 : v > HIST_MAX_NS ? HIST_MAX_NS : v;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Sorted recorded values of raw[0..n), in a new array. */
static uint64_t *sorted_copy(const uint64_t *raw, size_t n)
{
    uint64_t *s = malloc((n ? n : 1) * sizeof *s);
    assert_non_null(s);
    for (size_t i = 0; i < n; i++)
        s[i] = as_recorded(raw[i]);
    qsort(s, n, sizeof *s, cmp_u64);
    return s;
}

/* Nearest rank in integers, independent of the histogram's floating point. */
static uint64_t ref_percentile(const uint64_t *sorted, size_t n, unsigned permille)
{
    size_t rank = permille == 0 ? 1 : ((uint64_t)permille * n + 999) / 1000;
    return sorted[rank - 1];
}

static void assert_close(double got, double want, double rel)
{
    double err = fabs(got - want);
    if (err > rel * fabs(want))
        fail_msg("got %.17g, want %.17g (relative error %.3g > %.3g)", got, want, err / fabs(want),
                 rel);
}

static void assert_percentiles_match(const hist *h, const uint64_t *sorted, size_t n)
{
    for (unsigned pm = 0; pm <= 1000; pm++)
        assert_close((double)hist_percentile(h, pm / 1000.0), (double)ref_percentile(sorted, n, pm),
                     BOUND);
    assert_int_equal(hist_percentile(h, 0), sorted[0]);
    assert_int_equal(hist_percentile(h, 1), sorted[n - 1]);
}

/* Mean and population standard deviation, two passes in long double. */
static void ref_moments(const uint64_t *sorted, size_t n, double *mean, double *sd)
{
    long double sum = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        sum += sorted[i];
    long double m = sum / n;
    for (size_t i = 0; i < n; i++)
        ss += ((long double)sorted[i] - m) * ((long double)sorted[i] - m);
    *mean = (double)m;
    *sd = (double)sqrtl(ss / n);
}

static void assert_matches_samples(const hist *h, const uint64_t *raw, size_t n)
{
    uint64_t *sorted = sorted_copy(raw, n);
    double mean, sd;
    ref_moments(sorted, n, &mean, &sd);
    assert_int_equal(hist_count(h), n);
    assert_int_equal(hist_min(h), sorted[0]);
    assert_int_equal(hist_max(h), sorted[n - 1]);
    assert_close(hist_mean(h), mean, 1e-15);
    assert_close(hist_stddev(h), sd, 1e-12);
    assert_percentiles_match(h, sorted, n);
    free(sorted);
}

static void record_all(hist *h, const uint64_t *raw, size_t n)
{
    for (size_t i = 0; i < n; i++)
        hist_record(h, raw[i]);
}

static void check_distribution(uint64_t (*gen)(void), size_t n)
{
    uint64_t *raw = malloc(n * sizeof *raw);
    hist h;
    assert_non_null(raw);
    assert_int_equal(hist_init(&h), 0);
    rng_state = UINT64_C(0x9E3779B97F4A7C15);
    for (size_t i = 0; i < n; i++)
        raw[i] = gen();
    record_all(&h, raw, n);
    assert_matches_samples(&h, raw, n);
    hist_free(&h);
    free(raw);
}

static void test_hist_percentile_is_nearest_rank_uniform(void **state)
{
    check_distribution(gen_uniform, 200000);
}

static void test_hist_percentile_is_nearest_rank_log_uniform(void **state)
{
    check_distribution(gen_log_uniform, 200000);
}

static void test_hist_percentile_is_nearest_rank_heavy_tail(void **state)
{
    check_distribution(gen_heavy_tail, 200000);
}

/* Small odd sizes make every rounding of ceil(q*n) show. */
static void test_hist_percentile_is_nearest_rank_small_counts(void **state)
{
    for (size_t n = 1; n <= 37; n++)
        check_distribution(gen_log_uniform, n);
}

static void test_hist_exact_below_2048(void **state)
{
    uint64_t raw[2047];
    hist h;
    assert_int_equal(hist_init(&h), 0);
    for (size_t i = 0; i < 2047; i++)
        raw[i] = 2047 - i;
    record_all(&h, raw, 2047);
    uint64_t *sorted = sorted_copy(raw, 2047);
    for (unsigned pm = 0; pm <= 1000; pm++)
        assert_int_equal(hist_percentile(&h, pm / 1000.0), ref_percentile(sorted, 2047, pm));
    free(sorted);
    hist_free(&h);
}

/* 0.07 * 100 is 7.000000000000001 in binary; the rank is still 7. */
static void test_hist_rank_ignores_binary_rounding(void **state)
{
    hist h;
    assert_int_equal(hist_init(&h), 0);
    for (uint64_t v = 1; v <= 100; v++)
        hist_record(&h, v);
    assert_int_equal(hist_percentile(&h, 0.07), 7);
    assert_int_equal(hist_percentile(&h, 0.5), 50);
    assert_int_equal(hist_percentile(&h, 0.99), 99);
    assert_int_equal(hist_percentile(&h, 0.995), 100);
    assert_int_equal(hist_percentile(&h, 0.011), 2);
    hist_free(&h);
}

static void test_hist_quantile_outside_unit_interval_clamps(void **state)
{
    hist h;
    assert_int_equal(hist_init(&h), 0);
    for (uint64_t v = 10; v <= 1000000; v *= 10)
        hist_record(&h, v);
    assert_int_equal(hist_percentile(&h, -1), 10);
    assert_int_equal(hist_percentile(&h, NAN), 10);
    assert_int_equal(hist_percentile(&h, 2), 1000000);
    hist_free(&h);
}

/* The middle sample of {1, v, max} lands on v's bucket; it must report v
 * within the bound in every octave, at and around every power of two. */
static void test_hist_every_octave_is_within_bound(void **state)
{
    hist h;
    assert_int_equal(hist_init(&h), 0);
    rng_state = 42;
    for (int e = 0; e <= 41; e++) {
        uint64_t p = UINT64_C(1) << e;
        uint64_t vs[] = {p - 1, p, p + 1, p + p / 2, p + rng_next() % p, 2 * p - 1};
        for (size_t i = 0; i < sizeof vs / sizeof *vs; i++) {
            uint64_t v = as_recorded(vs[i]);
            hist_reset(&h);
            hist_record(&h, 1);
            hist_record(&h, v);
            hist_record(&h, HIST_MAX_NS);
            assert_close((double)hist_percentile(&h, 0.5), (double)v, BOUND);
        }
    }
    hist_free(&h);
}

static void test_hist_empty_reports_zero_and_nan(void **state)
{
    hist h;
    assert_int_equal(hist_init(&h), 0);
    assert_int_equal(hist_count(&h), 0);
    assert_int_equal(hist_min(&h), 0);
    assert_int_equal(hist_max(&h), 0);
    assert_int_equal(hist_percentile(&h, 0), 0);
    assert_int_equal(hist_percentile(&h, 0.5), 0);
    assert_int_equal(hist_percentile(&h, 1), 0);
    assert_true(isnan(hist_mean(&h)));
    assert_true(isnan(hist_stddev(&h)));
    hist_iter it = hist_iter_start(&h);
    assert_false(hist_iter_next(&it));
    hist_free(&h);
}

static void test_hist_one_sample_is_every_percentile(void **state)
{
    hist h;
    assert_int_equal(hist_init(&h), 0);
    hist_record(&h, 123456789);
    for (unsigned pm = 0; pm <= 1000; pm++)
        assert_int_equal(hist_percentile(&h, pm / 1000.0), 123456789);
    assert_true(hist_mean(&h) == 123456789.0);
    assert_true(hist_stddev(&h) == 0.0);
    hist_free(&h);
}

static void test_hist_all_equal_is_exact(void **state)
{
    hist h;
    assert_int_equal(hist_init(&h), 0);
    for (int i = 0; i < 1000; i++)
        hist_record(&h, 987654);
    for (unsigned pm = 0; pm <= 1000; pm++)
        assert_int_equal(hist_percentile(&h, pm / 1000.0), 987654);
    assert_true(hist_mean(&h) == 987654.0);
    assert_true(hist_stddev(&h) == 0.0);
    hist_free(&h);
}

static void test_hist_extremes_record_as_documented(void **state)
{
    uint64_t raw[] = {0, 1, HIST_MAX_NS, HIST_MAX_NS + 1, UINT64_MAX, 2};
    hist h;
    assert_int_equal(hist_init(&h), 0);
    record_all(&h, raw, 6);
    assert_int_equal(h.clamped, 2);
    assert_int_equal(hist_min(&h), 1);
    assert_int_equal(hist_max(&h), HIST_MAX_NS);
    /* recorded as 1, 1, 2, max, max, max */
    assert_int_equal(hist_percentile(&h, 0.33), 1);
    assert_int_equal(hist_percentile(&h, 0.5), 2);
    assert_int_equal(hist_percentile(&h, 0.51), HIST_MAX_NS);
    assert_matches_samples(&h, raw, 6);
    hist_free(&h);
}

static void assert_same_hist(const hist *a, const hist *b)
{
    assert_memory_equal(a->counts, b->counts, HIST_BUCKETS * sizeof *a->counts);
    assert_int_equal(a->count, b->count);
    assert_int_equal(a->clamped, b->clamped);
    assert_int_equal(a->min, b->min);
    assert_int_equal(a->max, b->max);
    assert_true(a->sum == b->sum);
    assert_true(a->sumsq == b->sumsq);
}

static void test_hist_merge_equals_recording_in_one(void **state)
{
    hist a, b, one, empty;
    assert_int_equal(hist_init(&a), 0);
    assert_int_equal(hist_init(&b), 0);
    assert_int_equal(hist_init(&one), 0);
    assert_int_equal(hist_init(&empty), 0);
    rng_state = 7;
    for (int i = 0; i < 100000; i++) {
        uint64_t v = i % 3 ? gen_log_uniform() : gen_heavy_tail();
        hist_record(i % 5 ? &a : &b, v);
        hist_record(&one, v);
    }
    hist_record(&b, UINT64_MAX); /* a clamped sample must merge too */
    hist_record(&one, UINT64_MAX);
    assert_int_equal(one.clamped, 1);
    hist_merge(&a, &empty);
    hist_merge(&a, &b);
    assert_same_hist(&a, &one);
    hist_merge(&empty, &one);
    assert_same_hist(&empty, &one);
    hist_free(&a);
    hist_free(&b);
    hist_free(&one);
    hist_free(&empty);
}

/* Percentiles of several histograms taken as one are those of their merge,
 * empty ones among them included; hist_add of a sample made ready once is
 * hist_record. */
static void test_hist_percentile_of_many_equals_merged(void **state)
{
    (void)state;
    hist parts[4], one;
    for (int k = 0; k < 4; k++)
        assert_int_equal(hist_init(&parts[k]), 0);
    assert_int_equal(hist_init(&one), 0);
    rng_state = 11;
    for (int i = 0; i < 50000; i++) {
        uint64_t v = i % 4 ? gen_log_uniform() : gen_heavy_tail();
        hist_sample s = hist_sample_of(v);
        hist_add(&parts[i % 3], &s); /* parts[3] stays empty */
        hist_record(&one, v);
    }
    static const double qs[] = {0, 0.001, 0.25, 0.5, 0.9, 0.99, 0.999, 1};
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++)
        assert_int_equal(hist_percentile_of(parts, 4, qs[i]), hist_percentile(&one, qs[i]));
    assert_int_equal(hist_percentile_of(&parts[3], 1, 0.5), 0);
    for (int k = 1; k < 4; k++)
        hist_merge(&parts[0], &parts[k]);
    assert_same_hist(&parts[0], &one);
    for (int k = 0; k < 4; k++)
        hist_free(&parts[k]);
    hist_free(&one);
}

static void test_hist_reset_empties(void **state)
{
    hist h, fresh;
    assert_int_equal(hist_init(&h), 0);
    assert_int_equal(hist_init(&fresh), 0);
    hist_record(&h, 5);
    hist_record(&h, HIST_MAX_NS + 5);
    hist_reset(&h);
    assert_same_hist(&h, &fresh);
    hist_free(&h);
    hist_free(&fresh);
}

/* Squares of an hour overflow 64 bits at once; the sums stay exact. */
static void test_hist_mean_and_stddev_exact_for_long_latencies(void **state)
{
    uint64_t raw[] = {HIST_MAX_NS, HIST_MAX_NS - 1, 3, 1000000007, HIST_MAX_NS / 3};
    hist h;
    assert_int_equal(hist_init(&h), 0);
    record_all(&h, raw, 5);
    assert_matches_samples(&h, raw, 5);
    hist_free(&h);
}

/* n * sumsq past 2^128 (10^14 * 7e24) takes the long double path; alternating a and b has
 * mean (a+b)/2 and standard deviation (b-a)/2. */
static void test_hist_stddev_survives_128_bit_overflow(void **state)
{
    const uint64_t a = 1000000000000, b = HIST_MAX_NS;
    hist h;
    assert_int_equal(hist_init(&h), 0);
    for (int i = 0; i < 10000000; i++)
        hist_record(&h, i % 2 ? b : a);
    assert_close(hist_mean(&h), (a + b) / 2.0, 1e-15);
    assert_close(hist_stddev(&h), (b - a) / 2.0, 1e-9);
    hist_free(&h);
}

static void test_hist_iter_walks_nonempty_buckets_in_order(void **state)
{
    uint64_t raw[] = {3001, 5, 3000, 5, 1000000, 4000000000};
    hist h;
    assert_int_equal(hist_init(&h), 0);
    record_all(&h, raw, 6);
    hist_iter it = hist_iter_start(&h);
    assert_true(hist_iter_next(&it));
    assert_true(it.lo == 5 && it.hi == 5 && it.count == 2 && it.mid == 5);
    assert_true(hist_iter_next(&it));
    assert_true(it.lo == 3000 && it.hi == 3001 && it.count == 2);
    assert_true(hist_iter_next(&it));
    assert_true(it.lo <= 1000000 && 1000000 <= it.hi && it.count == 1);
    assert_true(it.hi - it.lo + 1 <= 1000000 / 1024);
    assert_true(hist_iter_next(&it));
    /* alone in its bucket and the max, so its midpoint clamps to the value */
    assert_true(it.lo <= 4000000000 && 4000000000 <= it.hi && it.mid == 4000000000);
    assert_false(hist_iter_next(&it));
    assert_false(hist_iter_next(&it));
    hist_free(&h);
}

/* Buckets tile the whole range: each starts one past the previous end. */
static void test_hist_iter_buckets_tile_the_range(void **state)
{
    hist h;
    assert_int_equal(hist_init(&h), 0);
    rng_state = 99;
    for (int i = 0; i < 300000; i++)
        hist_record(&h, gen_log_uniform());
    hist_iter it = hist_iter_start(&h);
    uint64_t prev_hi = 0, total = 0;
    while (hist_iter_next(&it)) {
        assert_true(it.lo > prev_hi && it.lo <= it.hi && it.count > 0);
        assert_int_equal(hist_index(it.lo), hist_index(it.hi));
        assert_int_equal(hist_index(it.lo - 1) + 1, hist_index(it.lo));
        assert_int_equal(hist_index(it.hi + 1), hist_index(it.hi) + 1);
        prev_hi = it.hi;
        total += it.count;
    }
    assert_int_equal(total, hist_count(&h));
    assert_true(hist_index(HIST_MAX_NS) < HIST_BUCKETS);
    hist_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hist_percentile_is_nearest_rank_uniform),
        cmocka_unit_test(test_hist_percentile_is_nearest_rank_log_uniform),
        cmocka_unit_test(test_hist_percentile_is_nearest_rank_heavy_tail),
        cmocka_unit_test(test_hist_percentile_is_nearest_rank_small_counts),
        cmocka_unit_test(test_hist_exact_below_2048),
        cmocka_unit_test(test_hist_rank_ignores_binary_rounding),
        cmocka_unit_test(test_hist_quantile_outside_unit_interval_clamps),
        cmocka_unit_test(test_hist_every_octave_is_within_bound),
        cmocka_unit_test(test_hist_empty_reports_zero_and_nan),
        cmocka_unit_test(test_hist_one_sample_is_every_percentile),
        cmocka_unit_test(test_hist_all_equal_is_exact),
        cmocka_unit_test(test_hist_extremes_record_as_documented),
        cmocka_unit_test(test_hist_merge_equals_recording_in_one),
        cmocka_unit_test(test_hist_percentile_of_many_equals_merged),
        cmocka_unit_test(test_hist_reset_empties),
        cmocka_unit_test(test_hist_mean_and_stddev_exact_for_long_latencies),
        cmocka_unit_test(test_hist_stddev_survives_128_bit_overflow),
        cmocka_unit_test(test_hist_iter_walks_nonempty_buckets_in_order),
        cmocka_unit_test(test_hist_iter_buckets_tile_the_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
