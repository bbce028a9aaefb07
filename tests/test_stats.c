/* test_stats.c: run figures against the sorted raw samples, tenths, drift,
 * and the median across runs. */
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
#include "stats.h"

/* hist.h's bound: half a bucket, a bucket being 1/1024 of its value. */
#define BOUND (1.0 / 2048)

static uint64_t rng_state;

static uint64_t rng_next(void) /* xorshift64*, fixed seeds */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * UINT64_C(2685821657736338717);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest rank of the per-mille quantile over a sorted copy of xs[0..n). */
static double ref_percentile(const uint64_t *xs, size_t n, unsigned permille)
{
    uint64_t *s = malloc(n * sizeof *s);
    assert_non_null(s);
    memcpy(s, xs, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_u64);
    size_t rank = permille == 0 ? 1 : ((uint64_t)permille * n + 999) / 1000;
    double v = (double)s[rank - 1];
    free(s);
    return v;
}

static void assert_close(double got, double want, double rel)
{
    double err = fabs(got - want);
    if (!(err <= rel * fabs(want)))
        fail_msg("got %.17g, want %.17g (relative %.3g > %.3g)", got, want, err / fabs(want), rel);
}

static void assert_nan(double x)
{
    if (!isnan(x))
        fail_msg("got %.17g, want NaN", x);
}

static void test_stats_median_of_odd_count_is_middle(void **state)
{
    const double xs[] = {3, 1, 2, 9, -4};
    assert_true(stats_median(xs, 5) == 2);
    assert_true(xs[0] == 3 && xs[1] == 1 && xs[4] == -4); /* untouched */
    assert_true(stats_median(xs, 1) == 3);
}

static void test_stats_median_of_even_count_is_mean_of_middle_two(void **state)
{
    const double xs[] = {4, 1, 3, 2};
    assert_true(stats_median(xs, 4) == 2.5);
    assert_true(stats_median(xs, 2) == 2.5);
}

static void test_stats_median_skips_nan_and_empty_is_nan(void **state)
{
    const double xs[] = {NAN, 5, NAN, 1, 3, NAN};
    assert_true(stats_median(xs, 6) == 3);
    assert_true(stats_median(xs, 4) == 3);
    assert_nan(stats_median(xs, 1));
    assert_nan(stats_median(xs, 0));
    assert_nan(stats_median(NULL, 0));
}

/* Past the local buffer the median sorts a heap copy. */
static void test_stats_median_of_many_values(void **state)
{
    double xs[1001];
    for (int i = 0; i < 1001; i++)
        xs[i] = (i * 7919) % 1001; /* a permutation of 0..1000 */
    assert_true(stats_median(xs, 1001) == 500);
    /* the first 1000 lack xs[1000] = 89, so the middle two are 500 and 501 */
    assert_true(stats_median(xs, 1000) == 500.5);
    assert_true(xs[1] == 7919 % 1001);
}

static void test_stats_tenth_of_is_k_times_ten_over_cycles(void **state)
{
    assert_int_equal(stats_tenth_of(0, 10), 0);
    assert_int_equal(stats_tenth_of(9, 10), 9);
    assert_int_equal(stats_tenth_of(24, 25), 9);
    assert_int_equal(stats_tenth_of(5, 25), 2);
    assert_int_equal(stats_tenth_of(UINT64_MAX - 1, UINT64_MAX), 9);
    for (uint64_t k = 0; k < 9; k++)
        assert_int_equal(stats_tenth_of(k, 9), 0);
}

/* start(t) <= k < start(t+1) exactly when tenth_of(k) == t, for every size;
 * from ten cycles on no tenth is empty. */
static void test_stats_tenth_start_agrees_with_tenth_of(void **state)
{
    for (uint64_t cycles = 0; cycles <= 300; cycles++) {
        assert_int_equal(stats_tenth_start(0, cycles), 0);
        assert_int_equal(stats_tenth_start(STATS_TENTHS, cycles), cycles);
        for (unsigned t = 0; t < STATS_TENTHS; t++) {
            uint64_t lo = stats_tenth_start(t, cycles), hi = stats_tenth_start(t + 1, cycles);
            if (cycles >= STATS_TENTHS)
                assert_true(hi > lo);
            for (uint64_t k = lo; k < hi; k++)
                assert_int_equal(stats_tenth_of(k, cycles), t);
        }
    }
}

static void init_all(hist *all, hist tenths[STATS_TENTHS])
{
    assert_int_equal(hist_init(all), 0);
    for (int t = 0; t < STATS_TENTHS; t++)
        assert_int_equal(hist_init(&tenths[t]), 0);
}

static void free_all(hist *all, hist tenths[STATS_TENTHS])
{
    hist_free(all);
    for (int t = 0; t < STATS_TENTHS; t++)
        hist_free(&tenths[t]);
}

static void test_stats_drift_is_p50_last_over_p50_first(void **state)
{
    hist first, last;
    assert_int_equal(hist_init(&first), 0);
    assert_int_equal(hist_init(&last), 0);
    assert_nan(stats_drift(&first, &last));
    for (uint64_t v = 900; v <= 1100; v++)
        hist_record(&first, v);
    assert_nan(stats_drift(&first, &last));
    assert_nan(stats_drift(&last, &first));
    hist_record(&last, 1500);
    hist_record(&last, 1500);
    hist_record(&last, 900000);
    assert_true(stats_drift(&first, &last) == 1500.0 / 1000.0);
    assert_true(stats_drift(&first, &first) == 1.0);
    hist_free(&first);
    hist_free(&last);
}

/* A run of `cycles` cycles of `per_cycle` commands, latencies growing slowly
 * (so drift is above 1), recorded as a runner would. */
static uint64_t *simulate_run(hist *all, hist tenths[STATS_TENTHS], uint64_t cycles,
                              unsigned per_cycle)
{
    uint64_t *raw = malloc(cycles * per_cycle * sizeof *raw);
    assert_non_null(raw);
    for (uint64_t k = 0; k < cycles; k++) {
        hist *tenth = &tenths[stats_tenth_of(k, cycles)];
        for (unsigned c = 0; c < per_cycle; c++) {
            uint64_t v = 1000 + k * 3 + rng_next() % 500000;
            raw[k * per_cycle + c] = v;
            hist_record(all, v);
            hist_record(tenth, v);
        }
    }
    return raw;
}

static void assert_tenth_matches(const run_figures *f, const uint64_t *raw, uint64_t cycles,
                                 unsigned per_cycle, unsigned t)
{
    uint64_t lo = stats_tenth_start(t, cycles), hi = stats_tenth_start(t + 1, cycles);
    const uint64_t *xs = raw + lo * per_cycle;
    size_t n = (hi - lo) * per_cycle;
    assert_close(f->tenths[t].p50_ns, ref_percentile(xs, n, 500), BOUND);
    assert_close(f->tenths[t].p99_ns, ref_percentile(xs, n, 990), BOUND);
}

static void test_stats_figures_match_sorted_samples(void **state)
{
    const uint64_t cycles = 2345;
    const unsigned per = 7;
    const size_t n = cycles * per;
    hist all, tenths[STATS_TENTHS];
    run_figures f;
    init_all(&all, tenths);
    rng_state = 12345;
    uint64_t *raw = simulate_run(&all, tenths, cycles, per);
    stats_figures_from(&all, tenths, n, 2.5, &f);
    assert_int_equal(f.commands, n);
    assert_true(f.wall_seconds == 2.5 && f.throughput_per_s == n / 2.5);
    assert_true(f.min_ns == ref_percentile(raw, n, 0) && f.max_ns == ref_percentile(raw, n, 1000));
    assert_close(f.p50_ns, ref_percentile(raw, n, 500), BOUND);
    assert_close(f.p90_ns, ref_percentile(raw, n, 900), BOUND);
    assert_close(f.p95_ns, ref_percentile(raw, n, 950), BOUND);
    assert_close(f.p99_ns, ref_percentile(raw, n, 990), BOUND);
    assert_close(f.p999_ns, ref_percentile(raw, n, 999), BOUND);
    assert_true(f.mean_ns == hist_mean(&all) && f.stddev_ns == hist_stddev(&all));
    for (unsigned t = 0; t < STATS_TENTHS; t++)
        assert_tenth_matches(&f, raw, cycles, per, t);
    assert_true(f.drift == f.tenths[9].p50_ns / f.tenths[0].p50_ns);
    double first = ref_percentile(raw, stats_tenth_start(1, cycles) * per, 500);
    double last = ref_percentile(raw + stats_tenth_start(9, cycles) * per,
                                 (cycles - stats_tenth_start(9, cycles)) * per, 500);
    assert_close(f.drift, last / first, 2 * BOUND);
    assert_true(f.drift > 1);
    free(raw);
    free_all(&all, tenths);
}

static void test_stats_drift_is_null_below_ten_cycles(void **state)
{
    hist all, tenths[STATS_TENTHS];
    run_figures f;
    init_all(&all, tenths);
    rng_state = 5;
    uint64_t *raw = simulate_run(&all, tenths, 9, 3);
    stats_figures_from(&all, tenths, 27, 0.001, &f);
    assert_nan(f.drift);
    assert_int_equal(hist_count(&tenths[0]), 27);
    assert_close(f.p50_ns, ref_percentile(raw, 27, 500), BOUND);
    assert_nan(f.tenths[1].p50_ns);
    free(raw);
    free_all(&all, tenths);
}

static void test_stats_figures_of_empty_run_are_nan(void **state)
{
    hist all, tenths[STATS_TENTHS];
    run_figures f;
    init_all(&all, tenths);
    stats_figures_from(&all, tenths, 0, 0, &f);
    assert_int_equal(f.commands, 0);
    assert_nan(f.throughput_per_s);
    assert_nan(f.min_ns);
    assert_nan(f.p50_ns);
    assert_nan(f.max_ns);
    assert_nan(f.mean_ns);
    assert_nan(f.stddev_ns);
    assert_nan(f.drift);
    assert_nan(f.tenths[0].p99_ns);
    free_all(&all, tenths);
}

static run_figures figures_with(double x, uint64_t commands)
{
    run_figures f;
    memset(&f, 0, sizeof f);
    f.commands = commands;
    f.wall_seconds = f.throughput_per_s = f.min_ns = f.p50_ns = f.p90_ns = x;
    f.p95_ns = f.p99_ns = f.p999_ns = f.max_ns = f.mean_ns = f.stddev_ns = f.drift = x;
    for (int t = 0; t < STATS_TENTHS; t++)
        f.tenths[t].p50_ns = f.tenths[t].p99_ns = x + t;
    return f;
}

static void test_stats_figures_median_takes_each_figure_alone(void **state)
{
    run_figures runs[4] = {figures_with(4, 10), figures_with(1, 30), figures_with(3, 20),
                           figures_with(100, 40)};
    runs[1].drift = NAN;
    runs[2].p99_ns = 1000;
    run_figures m;
    stats_figures_median(runs, 4, &m);
    assert_true(m.commands == 25 && m.wall_seconds == 3.5 && m.throughput_per_s == 3.5);
    assert_true(m.min_ns == 3.5 && m.p50_ns == 3.5 && m.p999_ns == 3.5 && m.max_ns == 3.5);
    assert_true(m.mean_ns == 3.5 && m.stddev_ns == 3.5);
    assert_true(m.p99_ns == 52); /* 1, 4, 100, 1000 */
    assert_true(m.drift == 4);   /* NaN skipped: 3, 4, 100 */
    assert_true(m.tenths[0].p50_ns == 3.5 && m.tenths[9].p99_ns == 12.5);
    stats_figures_median(runs, 3, &m);
    assert_true(m.commands == 20 && m.p50_ns == 3 && m.drift == 3.5);
}

static void test_stats_figures_median_of_many_runs(void **state)
{
    run_figures runs[101];
    for (int i = 0; i < 101; i++)
        runs[i] = figures_with((i * 37) % 101, (uint64_t)i);
    run_figures m;
    stats_figures_median(runs, 101, &m);
    assert_true(m.commands == 50 && m.p50_ns == 50 && m.tenths[3].p99_ns == 53);
}

static void test_stats_throughput_range_is_min_and_max(void **state)
{
    run_figures runs[3] = {figures_with(5, 1), figures_with(NAN, 1), figures_with(2, 1)};
    double lo, hi;
    stats_throughput_range(runs, 3, &lo, &hi);
    assert_true(lo == 2 && hi == 5);
    stats_throughput_range(runs + 1, 1, &lo, &hi);
    assert_nan(lo);
    assert_nan(hi);
    stats_throughput_range(runs, 0, &lo, &hi);
    assert_nan(lo);
}

/* ---- stability ---- */

/* A run whose every tenth has p50 ns (and the run p50 the same). */
static run_figures steady_figures(double ns)
{
    run_figures f = {.p50_ns = ns, .commands = STATS_SPREAD_MIN_COMMANDS};
    for (int t = 0; t < STATS_TENTHS; t++)
        f.tenths[t] = (tenth_figures){ns, 2 * ns};
    return f;
}

static bool stable_of(const run_figures *f, const hist *modal, double before, double after,
                      char *reason, size_t size)
{
    stability_input in = {.fig = f,
                          .modal = modal,
                          .nmodal = modal ? 1 : 0,
                          .floor_before_ns = before,
                          .floor_after_ns = after};
    return !stats_stability(&in, reason, size);
}

static void test_stats_stability_flags_tenths_spread(void **state)
{
    (void)state;
    /* the bench serve run of the issue: tenths 6.0 38.7 50.1 ... 57.2 6.4 us */
    static const double us[STATS_TENTHS] = {6.0,  38.7, 50.1, 44.0, 52.3,
                                            49.9, 51.0, 55.5, 57.2, 6.4};
    run_figures f = steady_figures(40000);
    for (int t = 0; t < STATS_TENTHS; t++)
        f.tenths[t].p50_ns = us[t] * 1000;
    char reason[256];
    assert_false(stable_of(&f, NULL, NAN, NAN, reason, sizeof reason));
    assert_string_equal(reason, "tenths' p50 spread 6.000 to 57.20 us (9.53x)");
    /* 1.5x exactly is still stable; empty tenths (NAN) are left out */
    f = steady_figures(1000);
    f.tenths[3].p50_ns = 1500;
    f.tenths[9].p50_ns = NAN;
    assert_true(stable_of(&f, NULL, NAN, NAN, reason, sizeof reason));
    assert_string_equal(reason, "");
    f.tenths[3].p50_ns = 1501;
    assert_false(stable_of(&f, NULL, NAN, NAN, reason, sizeof reason));
    /* too few commands for a tenth's p50 to mean much */
    f.commands = STATS_SPREAD_MIN_COMMANDS - 1;
    assert_true(stable_of(&f, NULL, NAN, NAN, reason, sizeof reason));
}

/* n samples spread evenly over [ns * (1 - w), ns * (1 + w)]. */
static void record_lump(hist *h, double ns, double w, int n)
{
    for (int i = 0; i < n; i++)
        hist_record(h, (uint64_t)(ns * (1 - w + 2 * w * (i + 0.5) / n)));
}

static void test_stats_two_modes_finds_same_and_cross_cpu_lumps(void **state)
{
    (void)state;
    hist h;
    assert_int_equal(hist_init(&h), 0);
    /* a process run that moved: 2.6 us on one CPU, 38 us across CPUs */
    record_lump(&h, 2600, 0.05, 6000);
    record_lump(&h, 38000, 0.10, 4000);
    double lo, hi;
    assert_true(stats_two_modes(&h, &lo, &hi));
    assert_close(lo, 2600, 0.01);
    assert_close(hi, 38000, 0.01);
    run_figures f = steady_figures((double)hist_percentile(&h, 0.5));
    char reason[256];
    const char *names[] = {"Order.AddTopping"};
    stability_input in = {.fig = &f,
                          .modal = &h,
                          .names = names,
                          .nmodal = 1,
                          .floor_before_ns = NAN,
                          .floor_after_ns = NAN};
    assert_true(stats_stability(&in, reason, sizeof reason));
    assert_string_equal(reason, "two modes in Order.AddTopping, at 2.599 us and 38.00 us");
    /* a lump of 5% is a tail, not a mode */
    hist_reset(&h);
    record_lump(&h, 2600, 0.05, 9500);
    record_lump(&h, 38000, 0.10, 500);
    assert_false(stats_two_modes(&h, NULL, NULL));
    /* two lumps less than 4x apart are not called two modes: two steps of
     * one verb may differ that much (2.3 and 4.6 us under ASan) */
    hist_reset(&h);
    record_lump(&h, 2300, 0.02, 5000);
    record_lump(&h, 4600, 0.02, 5000);
    assert_false(stats_two_modes(&h, NULL, NULL));
    hist_reset(&h);
    record_lump(&h, 2600, 0.02, 5000);
    record_lump(&h, 7800, 0.02, 5000);
    assert_false(stats_two_modes(&h, NULL, NULL));
    hist_reset(&h);
    record_lump(&h, 2600, 0.02, 5000);
    record_lump(&h, 12000, 0.02, 5000); /* 4.6x */
    assert_true(stats_two_modes(&h, NULL, NULL));
    /* too few samples to tell */
    hist_reset(&h);
    record_lump(&h, 2600, 0.05, 40);
    record_lump(&h, 38000, 0.10, 40);
    assert_false(stats_two_modes(&h, NULL, NULL));
    hist_free(&h);
}

static void test_stats_two_modes_leaves_log_normal_alone(void **state)
{
    (void)state;
    hist h;
    assert_int_equal(hist_init(&h), 0);
    for (double sigma = 0.1; sigma < 1.6; sigma += 0.5) {
        hist_reset(&h);
        rng_state = UINT64_C(0x9e3779b97f4a7c15);
        for (int i = 0; i < 20000; i++) { /* Box-Muller: a log-normal around 20 us */
            double u1 = ((double)(rng_next() >> 11) + 1) / 9007199254740993.0;
            double u2 = (double)(rng_next() >> 11) / 9007199254740992.0;
            double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
            hist_record(&h, (uint64_t)(20000 * exp(sigma * z)));
        }
        if (stats_two_modes(&h, NULL, NULL))
            fail_msg("a log-normal of sigma %.1f called two-mode", sigma);
        run_figures f = steady_figures(20000);
        char reason[256];
        assert_true(stable_of(&f, &h, NAN, NAN, reason, sizeof reason));
    }
    /* the memory target's shape: a mode near 250 ns and 4% near 2 us (ticks) */
    hist_reset(&h);
    record_lump(&h, 250, 0.3, 9600);
    record_lump(&h, 2100, 0.1, 400);
    assert_false(stats_two_modes(&h, NULL, NULL));
    hist_free(&h);
}

static void test_stats_stability_flags_floor_moved_and_above_p50(void **state)
{
    (void)state;
    run_figures f = steady_figures(22000);
    char reason[256];
    assert_true(stable_of(&f, NULL, 2600, 3000, reason, sizeof reason));
    assert_false(stable_of(&f, NULL, 2600, 4000, reason, sizeof reason));
    assert_string_equal(reason, "the floor moved from 2.600 to 4.000 us");
    assert_false(stable_of(&f, NULL, 40000, 3000, reason, sizeof reason));
    assert_string_equal(reason, "the floor moved from 40.00 to 3.000 us; the round-trip floor "
                                "40.00 us is above the p50 22.00 us it should explain");
    /* make run's process row: a floor of 52.88 us beside a p50 of 3.955 us */
    f = steady_figures(3955);
    assert_false(stable_of(&f, NULL, NAN, 52880, reason, sizeof reason));
    assert_string_equal(
        reason, "the round-trip floor 52.88 us is above the p50 3.955 us it should explain");
    /* the process target on pizzas (a run of 2026-12-02): the floor probe
       before the pass came out at 9.356 us, above the p50 of 8.668 us but
       within the tenths' p50s (7.474 to 10.484 us): one of the pass's own
       moments, not a floor that fails to explain it */
    static const double tenths_us[STATS_TENTHS] = {10.484, 9.916, 8.66,  8.074, 9.316,
                                                   8.212,  9.308, 7.654, 7.474, 7.854};
    f = steady_figures(8668);
    for (int t = 0; t < STATS_TENTHS; t++)
        f.tenths[t].p50_ns = tenths_us[t] * 1000;
    assert_true(stable_of(&f, NULL, 9356, 8284, reason, sizeof reason));
    assert_string_equal(reason, "");
    assert_false(stable_of(&f, NULL, 9356, 10490, reason, sizeof reason));
    assert_string_equal(reason, "the round-trip floor 10.49 us is above the p50 8.668 us it "
                                "should explain, and every tenth's (at most 10.48 us)");
    /* too few commands to judge the tenths: the p50 alone */
    f.commands = STATS_SPREAD_MIN_COMMANDS - 1;
    assert_false(stable_of(&f, NULL, 9356, 8284, reason, sizeof reason));
    assert_string_equal(
        reason, "the round-trip floor 9.356 us is above the p50 8.668 us it should explain");
    f = steady_figures(3955);
    /* a reason that does not fit is cut short, NUL-terminated */
    char small[16];
    assert_false(stable_of(&f, NULL, NAN, 52880, small, sizeof small));
    assert_int_equal(strlen(small), sizeof small - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_median_of_odd_count_is_middle),
        cmocka_unit_test(test_stats_median_of_even_count_is_mean_of_middle_two),
        cmocka_unit_test(test_stats_median_skips_nan_and_empty_is_nan),
        cmocka_unit_test(test_stats_median_of_many_values),
        cmocka_unit_test(test_stats_tenth_of_is_k_times_ten_over_cycles),
        cmocka_unit_test(test_stats_tenth_start_agrees_with_tenth_of),
        cmocka_unit_test(test_stats_drift_is_p50_last_over_p50_first),
        cmocka_unit_test(test_stats_figures_match_sorted_samples),
        cmocka_unit_test(test_stats_drift_is_null_below_ten_cycles),
        cmocka_unit_test(test_stats_figures_of_empty_run_are_nan),
        cmocka_unit_test(test_stats_figures_median_takes_each_figure_alone),
        cmocka_unit_test(test_stats_figures_median_of_many_runs),
        cmocka_unit_test(test_stats_throughput_range_is_min_and_max),
        cmocka_unit_test(test_stats_stability_flags_tenths_spread),
        cmocka_unit_test(test_stats_two_modes_finds_same_and_cross_cpu_lumps),
        cmocka_unit_test(test_stats_two_modes_leaves_log_normal_alone),
        cmocka_unit_test(test_stats_stability_flags_floor_moved_and_above_p50),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
