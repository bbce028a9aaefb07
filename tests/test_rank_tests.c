/* test_rank_tests.c: the tests compare and gate call a change with
 * (stats.h): the exact two-sided Mann-Whitney U and Wilcoxon signed-rank
 * p-values against the textbook tables (and a brute-force enumeration of
 * every split or sign pattern, in Python, for the cases with ties), and the
 * normal approximation past STATS_EXACT_MAX. */
/* cmocka.h needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <math.h>

#include "stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void near(double got, double want)
{
    if (!(fabs(got - want) < 1e-12))
        fail_msg("p = %.15g, want %.15g", got, want);
}

static void test_mann_whitney_separated_groups_give_the_smallest_p(void **state)
{
    (void)state;
    /* 2 / C(n+m, n): why 3 and 3 runs can never reach 0.05 */
    double a[] = {1, 2, 3, 4, 5}, b[] = {6, 7, 8, 9, 10};
    near(stats_mann_whitney_p(a, 3, b, 3), 2.0 / 20); /* 0.1 */
    near(stats_mann_whitney_p(a, 3, b, 4), 2.0 / 35); /* 0.057 */
    near(stats_mann_whitney_p(a, 4, b, 4), 2.0 / 70); /* 0.029 */
    near(stats_mann_whitney_p(a, 5, b, 5), 2.0 / 252);
    /* the order of the groups and of the values does not matter */
    double c[] = {10, 6, 9, 7, 8}, d[] = {3, 5, 1, 4, 2};
    near(stats_mann_whitney_p(c, 5, d, 5), 2.0 / 252);
}

static void test_mann_whitney_matches_the_tables(void **state)
{
    (void)state;
    /* 5 and 5, U = 1: P(U <= 1) = 2/252, two-sided 4/252 = 0.0159 (tables) */
    double a[] = {1, 2, 3, 4, 6}, b[] = {5, 7, 8, 9, 10};
    near(stats_mann_whitney_p(a, 5, b, 5), 4.0 / 252);
    /* 3 and 3 interleaved: p = 0.7 */
    double c[] = {5, 1, 3}, d[] = {2, 4, 6};
    near(stats_mann_whitney_p(c, 3, d, 3), 0.7);
    /* ties as mid-ranks, by enumeration of the 252 and 70 splits */
    double e[] = {1, 2, 4, 3.5, 6}, f[] = {3.5, 7, 8, 9, 10};
    near(stats_mann_whitney_p(e, 5, f, 5), 10.0 / 252);
    double g[] = {1, 1, 2, 2}, h[] = {2, 3, 3, 3};
    near(stats_mann_whitney_p(g, 4, h, 4), 6.0 / 70);
    /* all equal: nothing to tell apart */
    double one[] = {1, 1, 1};
    near(stats_mann_whitney_p(one, 3, one, 3), 1.0);
}

static void test_mann_whitney_skips_nan_and_refuses_empty_sides(void **state)
{
    (void)state;
    double a[] = {1, NAN, 2, 3}, b[] = {4, 5, 6};
    near(stats_mann_whitney_p(a, 4, b, 3), 0.1);
    double none[] = {NAN};
    assert_true(isnan(stats_mann_whitney_p(none, 1, b, 3)));
    assert_true(isnan(stats_mann_whitney_p(a, 4, b, 0)));
}

static void test_mann_whitney_large_groups_use_the_normal_approximation(void **state)
{
    (void)state;
    double x[40], y[40];
    for (int i = 0; i < 40; i++) {
        x[i] = i;
        y[i] = i + 40.5;
    }
    /* 40 and 40 separated: W = 820, mean 1620, var 40 * 40 * 81 / 12 */
    double z = 800 / sqrt(40.0 * 40 * 81 / 12);
    near(stats_mann_whitney_p(x, 40, y, 40), erfc(z / sqrt(2)));
    /* the same values both sides: p = 1 */
    near(stats_mann_whitney_p(x, 40, x, 40), 1.0);
}

static void test_signed_rank_matches_the_tables(void **state)
{
    (void)state;
    double all[] = {1, 2, 3, 4, 5, 6, 7, 8};
    near(stats_signed_rank_p(all, 5, NULL), 2.0 / 32); /* 0.0625: 5 pairs cannot call */
    near(stats_signed_rank_p(all, 6, NULL), 2.0 / 64);
    near(stats_signed_rank_p(all, 8, NULL), 2.0 / 256);
    /* n = 8, T- = 1: 4/256; T- = 6: 28/256 = 0.109 (tables, two-sided) */
    double one[] = {-1, 2, 3, 4, 5, 6, 7, 8};
    near(stats_signed_rank_p(one, 8, NULL), 4.0 / 256);
    double two[] = {1, -2, 3, -4, 5, 6, 7, 8};
    near(stats_signed_rank_p(two, 8, NULL), 28.0 / 256);
    /* the sign of every difference flipped: the same p */
    double neg[] = {-1, -2, -3, -4, -5, -6};
    near(stats_signed_rank_p(neg, 6, NULL), 2.0 / 64);
    /* mixed, by enumeration of the 64 sign patterns */
    double mixed[] = {-0.5, 0.3, 0.2, -0.1, 0.4, 0.6};
    near(stats_signed_rank_p(mixed, 6, NULL), 28.0 / 64);
}

static void test_signed_rank_drops_zeros_and_ranks_ties(void **state)
{
    (void)state;
    size_t m = 99;
    /* a zero is dropped (7 left), ties get mid-ranks: by enumeration 8/128 */
    double d[] = {1, 1, -1, 2, 2, 3, 0, 4};
    near(stats_signed_rank_p(d, N(d), &m), 8.0 / 128);
    assert_int_equal(m, 7);
    double zeros[] = {0, 0, 0};
    near(stats_signed_rank_p(zeros, 3, &m), 1.0);
    assert_int_equal(m, 0);
    double none[] = {NAN, NAN};
    assert_true(isnan(stats_signed_rank_p(none, 2, &m)));
}

static void test_signed_rank_large_samples_use_the_normal_approximation(void **state)
{
    (void)state;
    double d[80];
    for (int i = 0; i < 80; i++)
        d[i] = (i % 4 == 0 ? -1 : 1) * (double)(i + 1);
    double pos = 0, var = 0;
    for (int i = 0; i < 80; i++) {
        pos += d[i] > 0 ? i + 1 : 0;
        var += (double)(i + 1) * (i + 1) / 4;
    }
    double z = (pos - 80.0 * 81 / 4) / sqrt(var);
    near(stats_signed_rank_p(d, 80, NULL), erfc(fabs(z) / sqrt(2)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mann_whitney_separated_groups_give_the_smallest_p),
        cmocka_unit_test(test_mann_whitney_matches_the_tables),
        cmocka_unit_test(test_mann_whitney_skips_nan_and_refuses_empty_sides),
        cmocka_unit_test(test_mann_whitney_large_groups_use_the_normal_approximation),
        cmocka_unit_test(test_signed_rank_matches_the_tables),
        cmocka_unit_test(test_signed_rank_drops_zeros_and_ranks_ties),
        cmocka_unit_test(test_signed_rank_large_samples_use_the_normal_approximation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
