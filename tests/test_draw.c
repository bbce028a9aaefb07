/* test_draw.c: the random numbers, the spec text of distributions, and
 * 1,000,000 draws of each distribution against the probabilities its YCSB
 * definition gives, computed here from the formulas (draw.h). Seeds are
 * fixed, so every run sees the same draws; the bounds are about 3 standard
 * deviations (or p = 0.001 for chi-square), far inside what a wrong
 * constant, an off-by-one or a biased reduction would miss by. */
/* cmocka.h needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"

#define DRAWS 1000000
/* zipf's hottest share is 0.038, whose standard deviation over 10^6 draws
 * is 0.5% of it: a 1% bound would be 2 sd, failing one seed in twenty with
 * nothing wrong. 4 * 10^6 draws make 1% 4 sd. */
#define ZIPF_DRAWS 4000000
#define POOL 1000
#define SEED UINT64_C(20240917)
#define THETA 0.99
/* What ScrambledZipfianGenerator's ZipfianGenerator holds: ITEM_COUNT + 1. */
#define YCSB_ITEMS 10000000001.0
#define YCSB_ZETAN 26.46902820178302

static double rel_err(double got, double want)
{
    return fabs(got - want) / fabs(want);
}

/* A chi-square statistic's bound at p ~ 0.001 for df degrees of freedom:
 * df + 3.1 standard deviations (sqrt(2 df)), close enough to the exact
 * quantile for df >= 9. */
static double chi2_bound(size_t df)
{
    return (double)df + 3.1 * sqrt(2.0 * (double)df);
}

/* sum (observed - expected)^2 / expected over n cells, expected[i] being a
 * probability of the whole of draws. */
static double chi2(const uint64_t *counts, const double *expected, size_t n, double draws)
{
    double x = 0;
    for (size_t i = 0; i < n; i++) {
        double e = expected[i] * draws;
        x += (counts[i] - e) * (counts[i] - e) / e;
    }
    return x;
}

static double chi2_uniform(const uint64_t *counts, size_t n)
{
    double total = 0, x = 0;
    for (size_t i = 0; i < n; i++)
        total += (double)counts[i];
    double e = total / (double)n;
    for (size_t i = 0; i < n; i++)
        x += (counts[i] - e) * (counts[i] - e) / e;
    return x;
}

/* |observed share - p| in standard deviations of a share of draws. */
static double sigmas(uint64_t count, double p, double draws)
{
    return fabs((double)count / draws - p) / sqrt(p * (1 - p) / draws);
}

/* ---- rng ---- */

/* xoshiro256**'s output for the state {1, 2, 3, 4}, as the reference
 * implementation (prng.di.unimi.it/xoshiro256starstar.c) gives it. */
static void test_rng_xoshiro_known_answer(void **state)
{
    static const uint64_t want[10] = {11520,
                                      0,
                                      1509978240,
                                      1215971899390074240,
                                      1216172134540287360,
                                      607988272756665600,
                                      UINT64_C(16172922978634559625),
                                      8476171486693032832,
                                      UINT64_C(10595114339597558777),
                                      2904607092377533576};
    rng r = {{1, 2, 3, 4}};
    for (int i = 0; i < 10; i++)
        assert_true(rng_next(&r) == want[i]);
}

static void test_rng_same_seed_and_stream_repeat(void **state)
{
    rng a, b;
    rng_seed(&a, 42, 7);
    rng_seed(&b, 42, 7);
    for (int i = 0; i < 10000; i++)
        assert_true(rng_next(&a) == rng_next(&b));
}

/* Different streams of one seed, and neighbouring seeds, share no output in
 * their first 10,000 words at the same position. */
static void test_rng_streams_and_seeds_differ(void **state)
{
    const uint64_t cases[][2] = {{42, 0}, {42, 1}, {42, 2}, {43, 0}, {0, 0}, {0, 1}};
    const size_t ncases = sizeof cases / sizeof cases[0];
    rng r[6];
    for (size_t c = 0; c < ncases; c++)
        rng_seed(&r[c], cases[c][0], cases[c][1]);
    for (int i = 0; i < 10000; i++) {
        uint64_t v[6];
        for (size_t c = 0; c < ncases; c++)
            v[c] = rng_next(&r[c]);
        for (size_t c = 0; c < ncases; c++)
            for (size_t d = c + 1; d < ncases; d++)
                assert_true(v[c] != v[d]);
    }
}

static void test_rng_double_is_in_unit_interval(void **state)
{
    rng r;
    rng_seed(&r, SEED, 0);
    double sum = 0;
    for (int i = 0; i < DRAWS; i++) {
        double u = rng_double(&r);
        assert_true(u >= 0 && u < 1);
        sum += u;
    }
    /* the mean of 10^6 uniforms: sd sqrt(1/12 / 10^6) = 0.00029 */
    assert_true(fabs(sum / DRAWS - 0.5) < 3 * 0.00029);
}

/* Ten equal buckets of [0, n): for n = 10 each value, for n = 3 * 2^62
 * tenths of the range, where reducing by modulo would make the lowest
 * 2^64 - n values twice as likely (a chi-square in the tens of thousands). */
static void check_below_buckets(uint64_t n)
{
    rng r;
    rng_seed(&r, SEED, n);
    uint64_t counts[10] = {0};
    uint64_t width = n / 10 + (n % 10 != 0);
    for (int i = 0; i < DRAWS; i++) {
        uint64_t v = rng_below(&r, n);
        assert_true(v < n);
        counts[v / width]++;
    }
    double x = chi2_uniform(counts, 10);
    printf("rng_below(%llu): chi-square %.2f over 10 buckets (bound %.2f)\n", (unsigned long long)n,
           x, 27.88);
    assert_true(x < 27.88); /* p = 0.001 at 9 degrees of freedom */
}

static void test_rng_below_is_unbiased(void **state)
{
    check_below_buckets(10);
    check_below_buckets(UINT64_C(3) << 62);
    rng r;
    rng_seed(&r, SEED, 1);
    for (int i = 0; i < 1000; i++) {
        assert_true(rng_below(&r, 1) == 0);
        (void)rng_below(&r, UINT64_MAX);
    }
}

static void test_rng_range_edges(void **state)
{
    rng r;
    rng_seed(&r, SEED, 2);
    const int64_t singles[] = {INT64_MIN, -1, 0, 1, INT64_MAX};
    for (size_t i = 0; i < sizeof singles / sizeof singles[0]; i++)
        assert_true(rng_range(&r, singles[i], singles[i]) == singles[i]);

    int negative = 0, positive = 0;
    for (int i = 0; i < 1000; i++) {
        int64_t v = rng_range(&r, INT64_MIN, INT64_MAX);
        negative += v < 0;
        positive += v > 0;
    }
    assert_true(negative > 400 && positive > 400);

    int seen[11] = {0};
    for (int i = 0; i < 10000; i++) {
        int64_t v = rng_range(&r, -5, 5);
        assert_true(v >= -5 && v <= 5);
        seen[v + 5] = 1;
    }
    for (int i = 0; i < 11; i++)
        assert_true(seen[i]);

    int top = 0, bottom = 0;
    for (int i = 0; i < 1000; i++) {
        top += rng_range(&r, INT64_MAX - 1, INT64_MAX) == INT64_MAX;
        bottom += rng_range(&r, INT64_MIN, INT64_MIN + 1) == INT64_MIN;
    }
    assert_true(top > 400 && top < 600 && bottom > 400 && bottom < 600);
}

/* ---- dist_parse and dist_text ---- */

#define LIST                                                                                       \
    "the distributions are uniform, zipf, zipf(θ), latest, hotspot(fraction, probability), "      \
    "oldest, newest"

typedef struct parse_case {
    const char *text;
    const char *why; /* NULL: parses */
    size_t err_at;
    dist_kind kind;
    double a, b; /* theta, or fraction and probability */
} parse_case;

#define GOOD(text, kind, a, b)                                                                     \
    {                                                                                              \
        text, NULL, 0, kind, a, b                                                                  \
    }
#define BAD(text, why, at)                                                                         \
    {                                                                                              \
        text, why, at, DIST_UNIFORM, 0, 0                                                          \
    }

static const parse_case PARSE_CASES[] = {
    GOOD("uniform", DIST_UNIFORM, THETA, 0),
    GOOD("zipf", DIST_ZIPF, THETA, 0),
    GOOD("zipf(0.8)", DIST_ZIPF, 0.8, 0),
    GOOD(" zipf ( 0.5 ) ", DIST_ZIPF, 0.5, 0),
    GOOD("zipf(1e-3)", DIST_ZIPF, 0.001, 0),
    GOOD("latest", DIST_LATEST, THETA, 0),
    GOOD("hotspot(0.2, 0.8)", DIST_HOTSPOT, 0.2, 0.8),
    GOOD("hotspot( 0.2 ,0.8 )", DIST_HOTSPOT, 0.2, 0.8),
    GOOD("hotspot(\t0.5,0)", DIST_HOTSPOT, 0.5, 0),
    GOOD("hotspot(0.5, 1)", DIST_HOTSPOT, 0.5, 1),
    GOOD("oldest", DIST_OLDEST, THETA, 0),
    GOOD("newest ", DIST_NEWEST, THETA, 0),

    BAD("", "a distribution's name is missing; " LIST, 0),
    BAD("  ", "a distribution's name is missing; " LIST, 2),
    BAD("(0.5)", "a distribution's name is missing; " LIST, 0),
    BAD("zip", "unknown distribution 'zip'; " LIST, 0),
    BAD("Zipf(0.5)", "unknown distribution 'Zipf'; " LIST, 0),
    BAD("  gaussian(1)", "unknown distribution 'gaussian'; " LIST, 2),
    BAD("uniform()", "uniform takes no parameters", 7),
    BAD("latest(0.5)", "latest takes no parameters", 6),
    BAD("oldest (1)", "oldest takes no parameters", 7),
    BAD("newest()", "newest takes no parameters", 6),
    BAD("zipf(0.5, 0.6)", "zipf takes one number or none: zipf or zipf(θ)", 10),
    BAD("zipf()", "zipf's θ is missing: zipf(θ)", 5),
    BAD("zipf(1)", "zipf's θ is a number above 0 and below 1, not 1", 5),
    BAD("zipf(0)", "zipf's θ is a number above 0 and below 1, not 0", 5),
    BAD("zipf( abc )", "zipf's θ is a number above 0 and below 1, not abc", 6),
    BAD("zipf(nan)", "zipf's θ is a number above 0 and below 1, not nan", 5),
    BAD("zipf(0.5", "the '(' after zipf is not closed", 8),
    BAD("zipf 0.5", "unexpected '0.5' after zipf", 5),
    BAD("zipf(0.5) x ", "unexpected 'x' after zipf(0.5)", 10),
    BAD("hotspot", "hotspot takes two numbers: hotspot(fraction, probability)", 7),
    BAD("hotspot(0.2)", "hotspot takes two numbers: hotspot(fraction, probability)", 11),
    BAD("hotspot(0.2, 0.8, 0.1)", "hotspot takes two numbers: hotspot(fraction, probability)", 18),
    BAD("hotspot(0, 0.5)", "hotspot's fraction is a number above 0 and below 1, not 0", 8),
    BAD("hotspot(1, 0.5)", "hotspot's fraction is a number above 0 and below 1, not 1", 8),
    BAD("hotspot(0.2, 1.5)", "hotspot's probability is a number from 0 to 1, not 1.5", 13),
    BAD("hotspot(0.2, -0.1)", "hotspot's probability is a number from 0 to 1, not -0.1", 13),
    BAD("hotspot(0.2,)", "hotspot's probability is missing: hotspot(fraction, probability)", 12),
    BAD("hotspot(, 0.8)", "hotspot's fraction is missing: hotspot(fraction, probability)", 8),
    BAD("hotspot(0.2 0.8)", "hotspot's fraction is a number above 0 and below 1, not 0.2 0.8", 8),
};

static void test_dist_parse_table(void **state)
{
    for (size_t i = 0; i < sizeof PARSE_CASES / sizeof PARSE_CASES[0]; i++) {
        const parse_case *c = &PARSE_CASES[i];
        dist_spec d = {.kind = DIST_NEWEST, .theta = -1};
        size_t at = 999;
        char why[256] = "";
        int rc = dist_parse(c->text, strlen(c->text), &d, &at, why, sizeof why);
        if (!c->why) {
            if (rc != 0)
                fail_msg("'%s': %s", c->text, why);
            assert_int_equal(d.kind, c->kind);
            double got_a = c->kind == DIST_HOTSPOT ? d.hot_fraction : d.theta;
            assert_true(got_a == c->a);
            if (c->kind == DIST_HOTSPOT)
                assert_true(d.hot_probability == c->b);
            continue;
        }
        if (rc != -1 || strcmp(why, c->why) != 0 || at != c->err_at)
            fail_msg("'%s': rc %d at %zu '%s', want at %zu '%s'", c->text, rc, at, why, c->err_at,
                     c->why);
        assert_int_equal(d.kind, DIST_NEWEST); /* untouched on failure */
    }
}

/* The text is s[0..len): what follows is not read. */
static void test_dist_parse_reads_only_len(void **state)
{
    dist_spec d;
    assert_int_equal(dist_parse("zipf(0.8)garbage", 9, &d, NULL, NULL, 0), 0);
    assert_true(d.kind == DIST_ZIPF && d.theta == 0.8);
    assert_int_equal(dist_parse("hotspot(0.2, 0.8", 7, &d, NULL, NULL, 0), -1);
}

static void test_dist_text_reads_back(void **state)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"uniform", "uniform"},
        {"zipf", "zipf(0.99)"},
        {" zipf ( 0.5 )", "zipf(0.5)"},
        {"zipf(0.123456789012345678)", "zipf(0.12345678901234568)"},
        {"latest", "latest"},
        {"hotspot(0.2,0.8)", "hotspot(0.2, 0.8)"},
        {"hotspot(0.5, 1)", "hotspot(0.5, 1)"},
        {"oldest", "oldest"},
        {"newest", "newest"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dist_spec d, back;
        char buf[64];
        assert_int_equal(dist_parse(cases[i].in, strlen(cases[i].in), &d, NULL, NULL, 0), 0);
        assert_string_equal(dist_text(&d, buf, sizeof buf), cases[i].out);
        assert_int_equal(dist_parse(buf, strlen(buf), &back, NULL, NULL, 0), 0);
        assert_memory_equal(&d, &back, sizeof d);
    }
    dist_spec d = {.kind = DIST_HOTSPOT, .hot_fraction = 0.2, .hot_probability = 0.8};
    char small[8];
    assert_string_equal(dist_text(&d, small, sizeof small), "hotspot");
}

/* ---- zeta ---- */

/* The sum itself, in long double, smallest terms first. */
static double zeta_direct(uint64_t n, double theta)
{
    long double sum = 0;
    for (uint64_t i = n; i >= 1; i--)
        sum += powl((long double)i, -(long double)theta);
    return (double)sum;
}

static void test_dist_zeta_is_accurate(void **state)
{
    double z = dist_zeta(UINT64_C(10000000000), THETA);
    printf("zeta(10^10, 0.99): %.17g, YCSB's ZETAN %.17g, relative difference %.2g\n", z,
           YCSB_ZETAN, rel_err(z, YCSB_ZETAN));
    assert_true(rel_err(z, YCSB_ZETAN) < 1e-10);
    /* mpmath, 30 digits: zeta(0.99) - hurwitz_zeta(0.99, n + 1) */
    assert_true(rel_err(z, 26.4690282017514818) < 1e-14);
    assert_true(rel_err(dist_zeta(1000, THETA), 7.72895321728473860) < 1e-14);
    const double thetas[] = {0.01, 0.5, 0.8, 0.99, 0.999};
    for (size_t t = 0; t < sizeof thetas / sizeof thetas[0]; t++)
        for (uint64_t n = 1; n <= 3000; n += n < 200 ? 1 : 97)
            if (rel_err(dist_zeta(n, thetas[t]), zeta_direct(n, thetas[t])) > 1e-14)
                fail_msg("zeta(%llu, %g): %.17g, direct %.17g", (unsigned long long)n, thetas[t],
                         dist_zeta(n, thetas[t]), zeta_direct(n, thetas[t]));
}

static void test_dist_fnvhash64_is_ycsbs(void **state)
{
    /* Utils.fnvhash64 of these longs, worked out in Java's 64-bit
     * arithmetic: all but 4 come out of the multiplications negative, and
     * Math.abs negates them. */
    static const uint64_t cases[][2] = {
        {0, UINT64_C(6284781860667377211)},
        {1, UINT64_C(8517097267634966620)},
        {2, UINT64_C(1820151046732198393)},
        {4, UINT64_C(3232700585171816769)},
        {1000, UINT64_C(5952875239596136740)},
        {UINT64_C(10000000000), UINT64_C(1201321332300452516)},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_true(dist_fnvhash64(cases[i][0]) == cases[i][1]);
    for (uint64_t v = 0; v < 100000; v++)
        assert_true(dist_fnvhash64(v) >> 63 == 0);
}

/* ---- the distributions, 10^6 draws each ---- */

/* The share YCSB's ZipfianGenerator gives rank r of items with zetan and
 * its eta: 1/zetan, 0.5^θ/zetan, then the measure of the u for which
 * floor(items (eta u - eta + 1)^alpha) = r, which is
 * (((r+1)/items)^(1-θ) - (r/items)^(1-θ)) / eta. */
typedef struct zipf_expect {
    double items, zetan, eta;
} zipf_expect;

static zipf_expect zipf_expect_of(double items, double zetan)
{
    double eta = (1 - pow(2 / items, 1 - THETA)) / (1 - (1 + pow(0.5, THETA)) / zetan);
    return (zipf_expect){items, zetan, eta};
}

static double zipf_p(const zipf_expect *z, uint64_t r)
{
    if (r == 0)
        return 1 / z->zetan;
    if (r == 1)
        return pow(0.5, THETA) / z->zetan;
    double s = 1 - THETA;
    return (pow((double)(r + 1) / z->items, s) - pow((double)r / z->items, s)) / z->eta;
}

/* Checks the counts of ranks 0..9 in draws draws against z: each within 3
 * sd, the hottest and their sum within 1%. */
static void check_head(const char *what, const uint64_t *head, const zipf_expect *z, double draws)
{
    double cumulative = 0, want_cumulative = 0;
    for (uint64_t r = 0; r < 10; r++) {
        double p = zipf_p(z, r);
        double sd = sigmas(head[r], p, draws);
        if (sd > 3)
            fail_msg("%s rank %llu: share %.6f, want %.6f (%.1f sd)", what, (unsigned long long)r,
                     head[r] / draws, p, sd);
        cumulative += head[r] / draws;
        want_cumulative += p;
    }
    printf("%s: hottest %.6f (want %.6f, %+.2f%%), ranks 0-9 %.6f (want %.6f, %+.2f%%)\n", what,
           head[0] / draws, zipf_p(z, 0), 100 * (head[0] / draws - zipf_p(z, 0)) / zipf_p(z, 0),
           cumulative, want_cumulative, 100 * (cumulative - want_cumulative) / want_cumulative);
    assert_true(rel_err(head[0] / draws, zipf_p(z, 0)) < 0.01);
    assert_true(rel_err(cumulative, want_cumulative) < 0.01);
}

static dist_state state_of(const char *text)
{
    dist_spec spec;
    dist_state st;
    assert_int_equal(dist_parse(text, strlen(text), &spec, NULL, NULL, 0), 0);
    dist_init(&st, &spec);
    return st;
}

/* counts[k]: how many of draws draws from text's distribution over POOL
 * items (fixed seed, the given stream) were k. */
static void count_draws(const char *text, uint64_t stream, int draws, uint64_t *counts)
{
    dist_state st = state_of(text);
    rng r;
    rng_seed(&r, SEED, stream);
    memset(counts, 0, POOL * sizeof *counts);
    for (int i = 0; i < draws; i++) {
        uint64_t k = dist_draw(&st, &r, POOL);
        assert_true(k < POOL);
        counts[k]++;
    }
}

static void test_zipf_ranks_follow_ycsb(void **state)
{
    dist_state st = state_of("zipf");
    rng r;
    rng_seed(&r, SEED, 10);
    uint64_t head[10] = {0};
    for (int i = 0; i < ZIPF_DRAWS; i++) {
        uint64_t rank = dist_zipf_rank(&st, &r);
        assert_true(rank < (uint64_t)YCSB_ITEMS);
        if (rank < 10)
            head[rank]++;
    }
    zipf_expect z = zipf_expect_of(YCSB_ITEMS, YCSB_ZETAN);
    check_head("zipf ranks", head, &z, ZIPF_DRAWS);
}

/* The ranks summed exactly per key: the first 2^20, 59% of the mass. The
 * rest is spread evenly, mass / POOL a key. Summing 2^30 ranks instead (90%
 * of the mass, 48 s) changes the hottest key's share in its seventh digit,
 * so the approximation costs nothing beside the 1% bound; no other key's
 * share moves by more than 0.8%, which raises the chi-square over the keys
 * at 4 * 10^6 draws by about 16: ZIPF_TAIL_CHI2 allows for it. */
#define ZIPF_EXACT_RANKS (UINT64_C(1) << 20)
#define ZIPF_TAIL_CHI2 20

static void zipf_key_shares(double *share)
{
    zipf_expect z = zipf_expect_of(YCSB_ITEMS, YCSB_ZETAN);
    double head = 0;
    for (size_t k = 0; k < POOL; k++)
        share[k] = 0;
    for (uint64_t r = 0; r < ZIPF_EXACT_RANKS; r++) {
        double p = zipf_p(&z, r);
        share[dist_fnvhash64(r) % POOL] += p;
        head += p;
    }
    for (size_t k = 0; k < POOL; k++)
        share[k] += (1 - head) / POOL;
}

static void test_zipf_scrambled_keys_follow_ycsb(void **state)
{
    static double want[POOL];
    static uint64_t counts[POOL];
    zipf_key_shares(want);
    count_draws("zipf(0.99)", 11, ZIPF_DRAWS, counts);
    size_t hot = 0;
    for (size_t k = 1; k < POOL; k++)
        hot = want[k] > want[hot] ? k : hot;
    double got = counts[hot] / (double)ZIPF_DRAWS, x = chi2(counts, want, POOL, ZIPF_DRAWS);
    printf("zipf over %d keys: hottest key %zu %.6f (want %.6f, %+.2f%%); chi-square %.1f (bound "
           "%.1f)\n",
           POOL, hot, got, want[hot], 100 * (got - want[hot]) / want[hot], x,
           chi2_bound(POOL - 1) + ZIPF_TAIL_CHI2);
    assert_true(hot == dist_fnvhash64(0) % POOL);
    assert_true(rel_err(got, want[hot]) < 0.01);
    assert_true(x < chi2_bound(POOL - 1) + ZIPF_TAIL_CHI2);
}

static void test_zipf_other_theta_is_skewed_as_computed(void **state)
{
    dist_state st = state_of("zipf(0.5)");
    double zetan = dist_zeta((uint64_t)YCSB_ITEMS, 0.5);
    assert_true(rel_err(st.zipf.zetan, zetan) < 1e-15);
    /* zeta(n, 0.5) ~ 2 sqrt(n): rank 0 gets 1/zetan = 5e-6 */
    assert_true(fabs(zetan - 2 * sqrt(YCSB_ITEMS) + 1.4603545) < 1e-3);
}

static void test_latest_follows_ycsb(void **state)
{
    static uint64_t counts[POOL];
    count_draws("latest", 12, DRAWS, counts);
    uint64_t head[10];
    for (size_t r = 0; r < 10; r++)
        head[r] = counts[POOL - 1 - r]; /* rank r is index n - 1 - r */
    zipf_expect z = zipf_expect_of(POOL, zeta_direct(POOL, THETA));
    check_head("latest over 1000 (rank = 999 - index)", head, &z, DRAWS);
}

/* latest's zetan followed by ±1 steps equals a fresh one at that n, and so
 * do the draws: n up by one from 1 to 3000 then down to 1, then 200,000
 * steps of a random walk. */
static void check_latest_fresh(dist_state *st, rng *r, uint64_t n)
{
    rng copy = *r;
    dist_state fresh = state_of("latest");
    uint64_t got = dist_draw(st, r, n), want = dist_draw(&fresh, &copy, n);
    if (got != want || rel_err(st->zipf.zetan, fresh.zipf.zetan) > 1e-9)
        fail_msg("n %llu: drew %llu (fresh %llu), zetan %.17g (fresh %.17g)", (unsigned long long)n,
                 (unsigned long long)got, (unsigned long long)want, st->zipf.zetan,
                 fresh.zipf.zetan);
}

static void test_latest_incremental_matches_fresh(void **state)
{
    dist_state st = state_of("latest");
    rng r;
    rng_seed(&r, SEED, 13);
    for (uint64_t n = 1; n <= 3000; n++)
        check_latest_fresh(&st, &r, n);
    for (uint64_t n = 3000; n >= 1; n--)
        check_latest_fresh(&st, &r, n);
    uint64_t n = 500;
    for (int i = 0; i < 200000; i++) {
        n = n == 1 ? 2 : n + (rng_next(&r) & 1 ? 1 : (uint64_t)-1);
        (void)dist_draw(&st, &r, n);
    }
    check_latest_fresh(&st, &r, n);
    printf("latest after 200,000 steps of +-1 to n = %llu: zetan off a recomputation by %.2g\n",
           (unsigned long long)n, rel_err(st.zipf.zetan, dist_zeta(n, THETA)));
    assert_true(rel_err(st.zipf.zetan, dist_zeta(n, THETA)) < 1e-14);
}

static void test_hotspot_follows_ycsb(void **state)
{
    static uint64_t counts[POOL];
    count_draws("hotspot(0.2, 0.8)", 14, DRAWS, counts);
    uint64_t hot = 0;
    for (size_t k = 0; k < 200; k++)
        hot += counts[k];
    double x_hot = chi2_uniform(counts, 200), x_cold = chi2_uniform(counts + 200, 800);
    printf("hotspot(0.2, 0.8) over 1000: hot set share %.6f (want 0.8, %.1f sd); chi-square hot "
           "%.1f (bound %.1f), cold %.1f (bound %.1f)\n",
           hot / (double)DRAWS, sigmas(hot, 0.8, DRAWS), x_hot, chi2_bound(199), x_cold,
           chi2_bound(799));
    assert_true(sigmas(hot, 0.8, DRAWS) < 3);
    assert_true(x_hot < chi2_bound(199));
    assert_true(x_cold < chi2_bound(799));
}

/* n * fraction < 1: YCSB would divide by zero; every draw is from the cold
 * set, which is the whole pool. */
static void test_hotspot_empty_hot_set_draws_from_all(void **state)
{
    dist_state st = state_of("hotspot(0.2, 1)");
    rng r;
    rng_seed(&r, SEED, 15);
    uint64_t counts[4] = {0};
    for (int i = 0; i < 4000; i++)
        counts[dist_draw(&st, &r, 4)]++;
    for (int k = 0; k < 4; k++)
        assert_true(counts[k] > 850 && counts[k] < 1150);
    assert_int_equal(dist_draw(&st, &r, 1), 0);
    assert_true(dist_draw(&st, &r, 5) == 0); /* hot set {0}, probability 1 */
}

static void test_uniform_is_uniform(void **state)
{
    static uint64_t counts[POOL];
    count_draws("uniform", 16, DRAWS, counts);
    double x = chi2_uniform(counts, POOL);
    printf("uniform over 1000: chi-square %.1f (bound %.1f)\n", x, chi2_bound(POOL - 1));
    assert_true(x < chi2_bound(POOL - 1));
}

/* oldest and newest are exact and leave the rng as it was. */
static void test_oldest_and_newest_are_exact(void **state)
{
    dist_state oldest = state_of("oldest"), newest = state_of("newest");
    rng r, before;
    rng_seed(&r, SEED, 17);
    before = r;
    for (uint64_t n = 1; n <= DRAWS; n++) {
        assert_true(dist_draw(&oldest, &r, n) == 0);
        assert_true(dist_draw(&newest, &r, n) == n - 1);
    }
    assert_memory_equal(&r, &before, sizeof r);
}

/* The smallest pools stay in range for every distribution. */
static void test_small_pools_stay_in_range(void **state)
{
    const char *texts[] = {"uniform", "zipf", "zipf(0.2)", "latest", "hotspot(0.5, 0.5)"};
    rng r;
    rng_seed(&r, SEED, 18);
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
        dist_state st = state_of(texts[t]);
        for (uint64_t n = 1; n <= 4; n++) {
            int seen[4] = {0};
            for (int i = 0; i < 2000; i++) {
                uint64_t k = dist_draw(&st, &r, n);
                assert_true(k < n);
                seen[k] = 1;
            }
            for (uint64_t k = 0; k < n; k++)
                if (!seen[k])
                    fail_msg("%s over %llu never drew %llu", texts[t], (unsigned long long)n,
                             (unsigned long long)k);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rng_xoshiro_known_answer),
        cmocka_unit_test(test_rng_same_seed_and_stream_repeat),
        cmocka_unit_test(test_rng_streams_and_seeds_differ),
        cmocka_unit_test(test_rng_double_is_in_unit_interval),
        cmocka_unit_test(test_rng_below_is_unbiased),
        cmocka_unit_test(test_rng_range_edges),
        cmocka_unit_test(test_dist_parse_table),
        cmocka_unit_test(test_dist_parse_reads_only_len),
        cmocka_unit_test(test_dist_text_reads_back),
        cmocka_unit_test(test_dist_zeta_is_accurate),
        cmocka_unit_test(test_dist_fnvhash64_is_ycsbs),
        cmocka_unit_test(test_zipf_ranks_follow_ycsb),
        cmocka_unit_test(test_zipf_scrambled_keys_follow_ycsb),
        cmocka_unit_test(test_zipf_other_theta_is_skewed_as_computed),
        cmocka_unit_test(test_latest_follows_ycsb),
        cmocka_unit_test(test_latest_incremental_matches_fresh),
        cmocka_unit_test(test_hotspot_follows_ycsb),
        cmocka_unit_test(test_hotspot_empty_hot_set_draws_from_all),
        cmocka_unit_test(test_uniform_is_uniform),
        cmocka_unit_test(test_oldest_and_newest_are_exact),
        cmocka_unit_test(test_small_pools_stay_in_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
