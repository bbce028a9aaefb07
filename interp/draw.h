/* draw.h: random numbers and the distributions that pick an item of a pool
 * (uniform, zipf, latest, hotspot, oldest, newest). Pure: no I/O, no
 * globals, no allocation; every state lives in the caller's structs, so a
 * run is reproduced by its seed alone.
 *
 * The skewed distributions follow YCSB's generators (core/src/main/java/
 * site/ycsb/generator/ in brianfrankcooper/YCSB) so that a workload here and
 * one in YCSB with the same parameters pick keys alike:
 *
 *   uniform  rng_below(n): every live item alike (YCSB's UniformLongGenerator
 *            does the same over a fixed range; ours follows the pool).
 *   zipf, zipf(θ)
 *            ScrambledZipfianGenerator: a rank from ZipfianGenerator (Gray et
 *            al., "Quickly Generating Billion-Record Synthetic Databases",
 *            SIGMOD 1994) over YCSB's fixed 10^10 items, then
 *            fnvhash64(rank) % n (Utils.fnvhash64). 0 < θ < 1, default 0.99.
 *            As in YCSB, ZipfianGenerator(0, ITEM_COUNT) holds ITEM_COUNT + 1
 *            items and θ = 0.99 uses YCSB's precomputed zetan
 *            26.46902820178302; another θ computes zeta(10^10 + 1, θ) once,
 *            at dist_init (YCSB sums 10^10 terms; dist_zeta is accurate to
 *            about 1e-15 relative in O(1)). Differences: none in the
 *            definition; the hash's one value YCSB leaves negative
 *            (Math.abs(Long.MIN_VALUE)) is taken here as 2^63.
 *   latest   SkewedLatestGenerator: a ZipfianGenerator rank r over the
 *            current n items (θ 0.99), index n - 1 - r: the newest is the
 *            hottest. Differences: YCSB's item count is the last key
 *            inserted (n - 1 here), so it never picks the oldest item; ours
 *            ranks all n. YCSB's ZipfianGenerator recomputes eta with the
 *            item count it was built with, never recomputes zetan when the
 *            count goes down, and so depends on its history; here zetan and
 *            eta always follow n, kept up incrementally (compensated sums)
 *            when n moves by up to DIST_ZETA_STEPS, recomputed otherwise, so
 *            a draw depends on n and not on how n got there.
 *   hotspot(fraction, probability)
 *            HotspotIntegerGenerator over [0, n): the hot set is the first
 *            floor(n * fraction) items (the oldest), the cold set the rest;
 *            with the probability a uniform draw from the hot set, else from
 *            the cold set. 0 < fraction < 1, 0 <= probability <= 1.
 *            Differences: YCSB divides by zero when the hot set is empty
 *            (n * fraction < 1); here every draw then comes from the cold
 *            set, the whole pool. YCSB's abs(nextLong()) % size is slightly
 *            biased and its hot set size a 32-bit int; ours are unbiased
 *            (rng_below) and 64-bit.
 *   oldest   0 (first in, first out). Consumes no random number.
 *   newest   n - 1 (last in, first out). Consumes no random number.
 *
 * Messages use the Greek letter θ (UTF-8), as YCSB's papers write the zipfian
 * constant; a spec writes only the number. */
#ifndef BENCH_DRAW_H
#define BENCH_DRAW_H

#include <stddef.h>
#include <stdint.h>

/* xoshiro256** (Blackman and Vigna, prng.di.unimi.it): 256 bits of state,
 * never all zero after rng_seed. */
typedef struct rng {
    uint64_t s[4];
} rng;

/* Seeds r from splitmix64 of the seed and the stream: the same (seed, stream)
 * always gives the same sequence, and different streams of one seed give
 * unrelated ones (one per client or pool, say). */
void rng_seed(rng *r, uint64_t seed, uint64_t stream);
/* The next 64 random bits. */
uint64_t rng_next(rng *r);
/* A double in [0, 1) from the top 53 bits of rng_next: k / 2^53. */
double rng_double(rng *r);
/* Uniform in [0, n), exactly (Lemire's multiply-and-reject); n > 0. */
uint64_t rng_below(rng *r, uint64_t n);
/* Uniform in [lo, hi], both included; lo <= hi, any int64 values
 * (INT64_MIN..INT64_MAX is one rng_next). */
int64_t rng_range(rng *r, int64_t lo, int64_t hi);

typedef enum dist_kind {
    DIST_UNIFORM,
    DIST_ZIPF,
    DIST_LATEST,
    DIST_HOTSPOT,
    DIST_OLDEST,
    DIST_NEWEST,
} dist_kind;

/* YCSB's zipfian constant, the default θ of zipf and latest. */
#define DIST_THETA_DEFAULT 0.99

typedef struct dist_spec {
    dist_kind kind;
    double theta; /* zipf, latest: 0 < θ < 1 (latest is always 0.99 when parsed) */
    double hot_fraction, hot_probability; /* hotspot(fraction, probability) */
} dist_spec;

/* Parses a distribution as a spec writes it: "uniform", "zipf", "zipf(0.8)",
 * "latest", "hotspot(0.2, 0.8)", "oldest", "newest", from s[0..len) (need not
 * be NUL-terminated). Spaces and tabs are allowed before and after the name,
 * the parentheses, the commas and the numbers. Names are lower case.
 *
 * Returns 0 and fills *out, or returns -1, leaves *out alone, writes one
 * sentence into why[size] and the byte offset in s where the problem is into
 * *err_at (why and err_at may be NULL). The sentences, where NAME, X and REST
 * are text of s as written and TEXT the distribution read so far:
 *   "" or "(0.5)" (at the start):
 *     "a distribution's name is missing; the distributions are uniform, zipf, zipf(θ), latest,
 *      hotspot(fraction, probability), oldest, newest"
 *   an unknown name (at the name):
 *     "unknown distribution 'NAME'; the distributions are uniform, zipf, zipf(θ), latest,
 *      hotspot(fraction, probability), oldest, newest"
 *   parentheses or too few or too many numbers (at the '(', the first number
 *   too many, or where the missing one belongs):
 *     "uniform takes no parameters"  (likewise latest, oldest, newest)
 *     "zipf takes one number or none: zipf or zipf(θ)"
 *     "hotspot takes two numbers: hotspot(fraction, probability)"
 *   an empty place between the parentheses or commas (at it):
 *     "zipf's θ is missing: zipf(θ)"
 *     "hotspot's fraction is missing: hotspot(fraction, probability)"
 *     "hotspot's probability is missing: hotspot(fraction, probability)"
 *   a number out of range, or not a number (at it):
 *     "zipf's θ is a number above 0 and below 1, not X"
 *     "hotspot's fraction is a number above 0 and below 1, not X"
 *     "hotspot's probability is a number from 0 to 1, not X"
 *   no ')' (at the end of s):
 *     "the '(' after NAME is not closed"
 *   anything after the distribution (at it):
 *     "unexpected 'REST' after TEXT" */
int dist_parse(const char *s, size_t len, dist_spec *out, size_t *err_at, char *why, size_t size);
/* The spec's text of d into buf[size] (cut to size, NUL-terminated when
 * size > 0), in the form dist_parse reads back to the same spec: "uniform",
 * "zipf(0.99)", "latest", "hotspot(0.2, 0.8)", "oldest", "newest"; numbers
 * in their shortest exact form. Returns buf. */
const char *dist_text(const dist_spec *d, char *buf, size_t size);

/* A ZipfianGenerator's constants (the names are YCSB's and Gray et al.'s). */
typedef struct zipf_gen {
    uint64_t items;  /* ranks are 0..items-1 */
    double theta;    /* θ */
    double alpha;    /* 1 / (1 - θ) */
    double half_pow; /* 0.5^θ: rank 1's weight */
    double zetan;    /* zeta(items, θ) = sum of i^-θ for i = 1..items */
    double eta;      /* (1 - (2 / items)^(1 - θ)) / (1 - zeta(2, θ) / zetan) */
} zipf_gen;

/* Per-use state of one distribution over a pool whose size changes. Plain
 * data, no resources: copy it, drop it. */
typedef struct dist_state {
    dist_spec spec;
    /* zipf: over YCSB's 10^10 + 1 items; latest: over the n of the last draw
     * (0 items before the first) */
    zipf_gen zipf;
    /* latest: zipf.zetan as a compensated running sum (Neumaier), what
     * rounding lost kept apart, so that zetan followed over millions of
     * steps stays within a few ulps of a recomputation instead of drifting */
    double zeta_sum, zeta_lost;
} dist_state;

/* The number of ±1 steps of n that latest follows by adding or removing
 * zeta's terms; past that it recomputes zeta (about as many pow calls). */
#define DIST_ZETA_STEPS 64

/* Prepares st for spec (valid as dist_parse makes them). For zipf with θ
 * other than 0.99 this computes zeta(10^10 + 1, θ): about 70 pow calls. */
void dist_init(dist_state *st, const dist_spec *spec);
/* An index into a pool of n live items in the order they joined (0 = the
 * oldest), n > 0. Deterministic in (r's state, n, st's history). O(1): one
 * pow for zipf and latest; latest adds two when n moved by one since its
 * last draw, and at most about 70 for any other change of n. */
uint64_t dist_draw(dist_state *st, rng *r, uint64_t n);

/* For tests and for docs that quote the figures. */

/* zeta(n, θ) = sum of i^-θ for i = 1..n, for 0 < θ < 1: summed when
 * n <= DIST_ZETA_HEAD, else the first DIST_ZETA_HEAD - 1 terms summed and
 * the rest by Euler-Maclaurin to the B6 term, in O(1). Within 1e-14 relative
 * of the exact sum (tests/test_draw.c checks long double sums to n = 3000 and
 * mpmath's 26.4690282017514818 for zeta(10^10, 0.99); YCSB's ZETAN,
 * 26.46902820178302, is 1.2e-12 above that). */
#define DIST_ZETA_HEAD 64
double dist_zeta(uint64_t n, double theta);
/* YCSB's Utils.fnvhash64: 64-bit FNV-1a over v's eight bytes, low byte
 * first, as a non-negative long (Math.abs; 2^63 stays 2^63). */
uint64_t dist_fnvhash64(uint64_t v);
/* zipf's rank before scrambling (0 = the hottest), from one rng_double:
 * what ScrambledZipfianGenerator hashes. st is a zipf state. */
uint64_t dist_zipf_rank(const dist_state *st, rng *r);

#endif
