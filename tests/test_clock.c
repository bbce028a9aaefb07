/* test_clock.c: the timed loop's clock: its conversion of ticks, that its
 * reads never go back, and that it keeps time with CLOCK_MONOTONIC (each
 * elapsed time bracketed by monotonic reads, so a preemption widens the
 * bracket instead of failing the test). No speed is asserted. */
/* cmocka.h needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <time.h>

#include "clock.h"

static void test_clock_tsc_ns_converts_ticks(void **state)
{
    (void)state;
    static const struct {
        uint64_t mult, tsc0, ns0, tsc, want;
    } cases[] = {
        {UINT64_C(2) << 32, 100, 1000, 150, 1100}, /* 2 ns a tick */
        {UINT64_C(1) << 31, 0, 0, 1000, 500},      /* half a ns a tick */
        {UINT64_C(1) << 32, 7, 5, 7, 5},           /* the anchor itself */
        {UINT64_C(1717986918), 0, 0, UINT64_C(1) << 40,
         UINT64_C(439804651008)}, /* 0.4 ns, 2^40 ticks */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clock_tsc c = {
            .on = true, .mult = cases[i].mult, .tsc0 = cases[i].tsc0, .ns0 = cases[i].ns0};
        assert_int_equal(clock_tsc_ns(&c, cases[i].tsc), cases[i].want);
    }
}

static void test_clock_fast_never_goes_back(void **state)
{
    (void)state;
    clock_fast_init();
    uint64_t last = clock_fast_start();
    for (int i = 0; i < 100000; i++) {
        uint64_t a = clock_fast_start(), b = clock_fast_stop();
        assert_true(a >= last);
        assert_true(b >= a);
        last = b;
    }
}

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = 0, .tv_nsec = ms * 1000000};
    nanosleep(&ts, NULL);
}

/* The fast clock's elapsed time over about 30 ms lies within the
 * monotonic brackets around its two reads, give or take 0.1%. */
static void keeps_time(void)
{
    uint64_t m0a = clock_mono_ns(), f0 = clock_fast_start(), m0b = clock_mono_ns();
    sleep_ms(30);
    uint64_t m1a = clock_mono_ns(), f1 = clock_fast_stop(), m1b = clock_mono_ns();
    double got = (double)(f1 - f0), lo = (double)(m1a - m0b), hi = (double)(m1b - m0a);
    assert_true(got >= lo * 0.999 - 1000);
    assert_true(got <= hi * 1.001 + 1000);
}

static void test_clock_fast_keeps_time_with_monotonic(void **state)
{
    (void)state;
    clock_fast_init();
    keeps_time();
    clock_fast_disable(); /* and the portable reads, where there is no TSC */
    assert_false(clock_fast_is_tsc());
    keeps_time();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clock_tsc_ns_converts_ticks),
        cmocka_unit_test(test_clock_fast_never_goes_back),
        cmocka_unit_test(test_clock_fast_keeps_time_with_monotonic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
