/* draw.c: xoshiro256**, YCSB's key distributions, and their spec text.
 * Written from the definitions cited in draw.h; the YCSB files named here are
 * under core/src/main/java/site/ycsb/ in brianfrankcooper/YCSB. */
#include "draw.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "num.h"

/* ---- random numbers ---- */

/* splitmix64's increment, 2^64 / the golden ratio (Steele et al., "Fast
 * splittable pseudorandom number generators", OOPSLA 2014). */
#define SPLITMIX_GAMMA UINT64_C(0x9e3779b97f4a7c15)

/* splitmix64's output function: a bijection of 64-bit words. */
static uint64_t splitmix_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static uint64_t splitmix_next(uint64_t *x)
{
    *x += SPLITMIX_GAMMA;
    return splitmix_mix(*x);
}

void rng_seed(rng *r, uint64_t seed, uint64_t stream)
{
    /* The stream is mixed before it meets the seed, so that streams 0, 1, 2
     * start splitmix64 at unrelated points instead of one step apart (which
     * would make stream 1's state stream 0's shifted by one word). For one
     * seed the start is a bijection of the stream: distinct streams, distinct
     * states. Four distinct mixed words are never all zero. */
    uint64_t x = seed ^ splitmix_mix(stream + SPLITMIX_GAMMA);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix_next(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

double rng_double(rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1p-53;
}

__extension__ typedef unsigned __int128 draw_u128;

/* Lemire, "Fast Random Integer Generation in an Interval" (ACM TOMACS 2019):
 * the high word of x * n is uniform once the low words below 2^64 mod n,
 * the surplus that makes some results one more likely, are rejected. */
uint64_t rng_below(rng *r, uint64_t n)
{
    assert(n > 0);
    draw_u128 m = (draw_u128)rng_next(r) * n;
    if ((uint64_t)m < n) {
        uint64_t surplus = (0 - n) % n; /* 2^64 mod n */
        while ((uint64_t)m < surplus)
            m = (draw_u128)rng_next(r) * n;
    }
    return (uint64_t)(m >> 64);
}

/* lo + offset as int64 without relying on the conversion of an out-of-range
 * unsigned value, which C leaves to the implementation. */
static int64_t offset_from(int64_t lo, uint64_t offset)
{
    uint64_t v = (uint64_t)lo + offset;
    return v <= (uint64_t)INT64_MAX ? (int64_t)v : -(int64_t)(UINT64_MAX - v) - 1;
}

int64_t rng_range(rng *r, int64_t lo, int64_t hi)
{
    assert(lo <= hi);
    uint64_t span = (uint64_t)hi - (uint64_t)lo; /* hi - lo, in 0..2^64-1 */
    uint64_t offset = span == UINT64_MAX ? rng_next(r) : rng_below(r, span + 1);
    return offset_from(lo, offset);
}

/* ---- zeta and the zipfian generator ---- */

/* ScrambledZipfianGenerator.ITEM_COUNT and ZETAN (its zeta for θ 0.99). */
#define YCSB_ITEM_COUNT UINT64_C(10000000000)
#define YCSB_ZETAN 26.46902820178302

/* The sum of i^-θ for i = 1..n, smallest terms first so that they are not
 * lost against the large ones. */
static double zeta_sum(uint64_t n, double theta)
{
    double sum = 0;
    for (uint64_t i = n; i >= 1; i--)
        sum += pow((double)i, -theta);
    return sum;
}

/* The sum of i^-θ for i = m..n (m < n) by Euler-Maclaurin: the integral,
 * half the end terms, and the B2, B4, B6 terms. Since f = x^-θ has
 * derivatives of alternating, fixed sign, the error is below the first term
 * left out, B8/8! f^(7)(m): about 2e-17 for m = 64. The integral is
 * m^(1-θ) expm1((1-θ) ln(n/m)) / (1-θ), which keeps its digits as θ nears 1. */
static double zeta_tail(uint64_t m, uint64_t n, double theta)
{
    double dm = (double)m, dn = (double)n, s = 1 - theta;
    double sum = pow(dm, s) * expm1(s * log(dn / dm)) / s;
    sum += (pow(dm, -theta) + pow(dn, -theta)) / 2;
    /* B_2k / (2k)! times the product theta(theta+1)..(theta+2k-2), which
     * with x^(-theta-2k+1) is -f^(2k-1)(x). */
    static const double bernoulli[3] = {1.0 / 12, -1.0 / 720, 1.0 / 30240};
    double rising = theta;
    for (int k = 1; k <= 3; k++) {
        double e = -theta - (2 * k - 1);
        sum += bernoulli[k - 1] * rising * (pow(dm, e) - pow(dn, e));
        rising *= (theta + 2 * k - 1) * (theta + 2 * k);
    }
    return sum;
}

double dist_zeta(uint64_t n, double theta)
{
    if (n <= DIST_ZETA_HEAD)
        return zeta_sum(n, theta);
    return zeta_sum(DIST_ZETA_HEAD - 1, theta) + zeta_tail(DIST_ZETA_HEAD, n, theta);
}

/* ZipfianGenerator's eta for its item count and zetan. */
static double zipf_eta(const zipf_gen *z)
{
    double zeta2 = 1 + z->half_pow;
    return (1 - pow(2.0 / (double)z->items, 1 - z->theta)) / (1 - zeta2 / z->zetan);
}

static void zipf_init(zipf_gen *z, uint64_t items, double theta, double zetan)
{
    *z = (zipf_gen){.items = items, .theta = theta, .zetan = zetan};
    z->alpha = 1 / (1 - theta);
    z->half_pow = pow(0.5, theta);
    z->eta = items > 0 ? zipf_eta(z) : 0;
}

/* ZipfianGenerator.nextLong: rank 0 for u * zetan below 1 (its weight 1),
 * rank 1 below 1 + 0.5^θ, else Gray's items * (eta u - eta + 1)^alpha. The
 * last rank also catches rounding at u near 1 and the 0/0 eta of 2 items,
 * where YCSB would return items (or garbage). */
static uint64_t zipf_rank_of(const zipf_gen *z, double u)
{
    double uz = u * z->zetan;
    if (uz < 1.0)
        return 0;
    if (uz < 1.0 + z->half_pow)
        return 1;
    uint64_t last = z->items - 1;
    double x = (double)z->items * pow(z->eta * u - z->eta + 1, z->alpha);
    return x < (double)last ? (uint64_t)x : last;
}

/* Neumaier's compensated sum: adds x to *sum, what rounding lost to *lost. */
static void add_compensated(double *sum, double *lost, double x)
{
    double t = *sum + x;
    if (fabs(*sum) >= fabs(x))
        *lost += (*sum - t) + x;
    else
        *lost += (x - t) + *sum;
    *sum = t;
}

/* Moves latest's generator to n items: term by term for a small step,
 * recomputed for a jump. */
static void latest_follow(dist_state *st, uint64_t n)
{
    zipf_gen *z = &st->zipf;
    uint64_t from = z->items;
    uint64_t gap = n > from ? n - from : from - n;
    if (gap > DIST_ZETA_STEPS) {
        st->zeta_sum = dist_zeta(n, z->theta);
        st->zeta_lost = 0;
    } else if (n > from) {
        for (uint64_t i = from + 1; i <= n; i++)
            add_compensated(&st->zeta_sum, &st->zeta_lost, pow((double)i, -z->theta));
    } else {
        for (uint64_t i = from; i > n; i--)
            add_compensated(&st->zeta_sum, &st->zeta_lost, -pow((double)i, -z->theta));
    }
    z->items = n;
    z->zetan = st->zeta_sum + st->zeta_lost;
    z->eta = zipf_eta(z);
}

/* ---- the distributions ---- */

uint64_t dist_fnvhash64(uint64_t v)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325); /* FNV-1a's 64-bit offset basis */
    for (int i = 0; i < 8; i++) {
        h ^= v & 0xff;
        h *= UINT64_C(1099511628211); /* FNV's 64-bit prime */
        v >>= 8;
    }
    return h >> 63 ? 0 - h : h; /* Java's Math.abs on the signed value */
}

void dist_init(dist_state *st, const dist_spec *spec)
{
    *st = (dist_state){.spec = *spec};
    if (spec->kind == DIST_ZIPF) {
        /* ScrambledZipfianGenerator builds ZipfianGenerator(0, ITEM_COUNT):
         * ITEM_COUNT + 1 items. */
        uint64_t items = YCSB_ITEM_COUNT + 1;
        double zetan =
            spec->theta == DIST_THETA_DEFAULT ? YCSB_ZETAN : dist_zeta(items, spec->theta);
        zipf_init(&st->zipf, items, spec->theta, zetan);
    } else if (spec->kind == DIST_LATEST) {
        zipf_init(&st->zipf, 0, spec->theta, 0);
    }
}

uint64_t dist_zipf_rank(const dist_state *st, rng *r)
{
    return zipf_rank_of(&st->zipf, rng_double(r));
}

/* HotspotIntegerGenerator: the hot set is the first floor(n * fraction)
 * items, kept below n so the cold set is never empty. */
static uint64_t hotspot_draw(const dist_spec *d, rng *r, uint64_t n)
{
    uint64_t hot = (uint64_t)((double)n * d->hot_fraction);
    hot = hot < n ? hot : n - 1;
    if (rng_double(r) < d->hot_probability && hot > 0)
        return rng_below(r, hot);
    return hot + rng_below(r, n - hot);
}

static uint64_t latest_draw(dist_state *st, rng *r, uint64_t n)
{
    if (n != st->zipf.items)
        latest_follow(st, n);
    return n - 1 - zipf_rank_of(&st->zipf, rng_double(r));
}

uint64_t dist_draw(dist_state *st, rng *r, uint64_t n)
{
    assert(n > 0);
    switch (st->spec.kind) {
    case DIST_UNIFORM: return rng_below(r, n);
    case DIST_ZIPF: return dist_fnvhash64(dist_zipf_rank(st, r)) % n;
    case DIST_LATEST: return latest_draw(st, r, n);
    case DIST_HOTSPOT: return hotspot_draw(&st->spec, r, n);
    case DIST_OLDEST: return 0;
    case DIST_NEWEST: return n - 1;
    }
    return 0;
}

/* ---- the spec's text ---- */

/* A number a distribution takes, and the words for its range. */
typedef struct dist_param {
    const char *label; /* "zipf's θ" */
    double lo, hi;     /* the range; lo itself allowed when lo_in, hi when hi_in */
    bool lo_in, hi_in;
    const char *range; /* "a number above 0 and below 1" */
    size_t offset;     /* where the value goes in dist_spec */
} dist_param;

/* Between 0 and 1, both excluded (zipf's θ, hotspot's fraction) or both
 * included (hotspot's probability). */
#define OPEN_UNIT "a number above 0 and below 1"
#define CLOSED_UNIT "a number from 0 to 1"

static const dist_param THETA = {
    .label = "zipf's θ", .hi = 1, .range = OPEN_UNIT, .offset = offsetof(dist_spec, theta)};
static const dist_param FRACTION = {.label = "hotspot's fraction",
                                    .hi = 1,
                                    .range = OPEN_UNIT,
                                    .offset = offsetof(dist_spec, hot_fraction)};
static const dist_param PROBABILITY = {.label = "hotspot's probability",
                                       .hi = 1,
                                       .lo_in = true,
                                       .hi_in = true,
                                       .range = CLOSED_UNIT,
                                       .offset = offsetof(dist_spec, hot_probability)};

/* One distribution as a spec writes it: the one table the parser, the
 * messages and dist_text read. */
typedef struct dist_row {
    const char *name;
    dist_kind kind;
    size_t min_params, max_params;
    const dist_param *params[2];
    const char *usage;     /* with its parameters: "zipf(θ)" */
    const char *count_msg; /* for parentheses or a wrong number of numbers */
} dist_row;

/* One row a line, as the table it is. */
/* clang-format off */
static const dist_row DIST_ROWS[] = {
    {"uniform", DIST_UNIFORM, 0, 0, {NULL, NULL}, "uniform", "uniform takes no parameters"},
    {"zipf", DIST_ZIPF, 0, 1, {&THETA, NULL}, "zipf(θ)",
     "zipf takes one number or none: zipf or zipf(θ)"},
    {"latest", DIST_LATEST, 0, 0, {NULL, NULL}, "latest", "latest takes no parameters"},
    {"hotspot", DIST_HOTSPOT, 2, 2, {&FRACTION, &PROBABILITY}, "hotspot(fraction, probability)",
     "hotspot takes two numbers: hotspot(fraction, probability)"},
    {"oldest", DIST_OLDEST, 0, 0, {NULL, NULL}, "oldest", "oldest takes no parameters"},
    {"newest", DIST_NEWEST, 0, 0, {NULL, NULL}, "newest", "newest takes no parameters"},
};
/* clang-format on */
#define DIST_NROWS (sizeof DIST_ROWS / sizeof DIST_ROWS[0])

static const dist_row *row_named(const char *s, size_t len)
{
    for (size_t i = 0; i < DIST_NROWS; i++)
        if (strlen(DIST_ROWS[i].name) == len && memcmp(DIST_ROWS[i].name, s, len) == 0)
            return &DIST_ROWS[i];
    return NULL;
}

static const dist_row *row_of(dist_kind kind)
{
    for (size_t i = 0; i < DIST_NROWS; i++)
        if (DIST_ROWS[i].kind == kind)
            return &DIST_ROWS[i];
    return NULL;
}

/* "uniform, zipf, zipf(θ), latest, ...": each name that may stand alone,
 * then its form with parameters. */
static const char *dist_list(char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < DIST_NROWS; i++) {
        const dist_row *row = &DIST_ROWS[i];
        const char *forms[2] = {row->min_params == 0 ? row->name : NULL,
                                row->max_params > 0 ? row->usage : NULL};
        for (int f = 0; f < 2; f++) {
            if (!forms[f] || used >= size)
                continue;
            int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", forms[f]);
            used += n > 0 ? (size_t)n : 0;
        }
    }
    return buf;
}

/* What dist_parse is working on: the text and where a failure goes. */
typedef struct dist_parser {
    const char *s;
    size_t len;
    size_t *err_at;
    char *why;
    size_t size;
} dist_parser;

static int parse_fail(const dist_parser *p, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int parse_fail(const dist_parser *p, size_t at, const char *fmt, ...)
{
    if (p->err_at)
        *p->err_at = at;
    if (p->why && p->size > 0) {
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(p->why, p->size, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static size_t skip_blanks(const dist_parser *p, size_t i)
{
    while (i < p->len && is_blank(p->s[i]))
        i++;
    return i;
}

/* The end of the run from i that stops at a blank or any of stops. */
static size_t scan_until(const dist_parser *p, size_t i, const char *stops)
{
    while (i < p->len && !is_blank(p->s[i]) && !strchr(stops, p->s[i]))
        i++;
    return i;
}

/* The whole of s[at..at+len) as a number: strtod must read it all. */
static bool read_number(const char *s, size_t len, double *out)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    *out = strtod(buf, &end);
    return end == buf + len;
}

static bool in_range(const dist_param *prm, double v)
{
    bool above = prm->lo_in ? v >= prm->lo : v > prm->lo;
    bool below = prm->hi_in ? v <= prm->hi : v < prm->hi;
    return above && below; /* false for NaN */
}

/* One number of row's, the k-th, at s[*i..), up to ',' or ')'; *i ends on
 * that ',' or ')' (or the end). */
static int parse_param(const dist_parser *p, const dist_row *row, size_t k, size_t *i,
                       dist_spec *out)
{
    size_t at = skip_blanks(p, *i);
    size_t end = at;
    while (end < p->len && p->s[end] != ',' && p->s[end] != ')')
        end++;
    *i = end;
    while (end > at && is_blank(p->s[end - 1]))
        end--;
    if (k >= row->max_params)
        return parse_fail(p, at, "%s", row->count_msg);
    const dist_param *prm = row->params[k];
    if (end == at)
        return parse_fail(p, at, "%s is missing: %s", prm->label, row->usage);
    double v;
    if (!read_number(p->s + at, end - at, &v) || !in_range(prm, v))
        return parse_fail(p, at, "%s is %s, not %.*s", prm->label, prm->range, (int)(end - at),
                          p->s + at);
    memcpy((char *)out + prm->offset, &v, sizeof v);
    return 0;
}

/* The parenthesised numbers from the '(' at *i; *i ends after the ')'.
 * *count is how many were read. */
static int parse_params(const dist_parser *p, const dist_row *row, size_t name_at, size_t name_len,
                        size_t *i, size_t *count, dist_spec *out)
{
    if (row->max_params == 0)
        return parse_fail(p, *i, "%s", row->count_msg);
    size_t k = 0;
    do {
        (*i)++; /* past '(' or ',' */
        if (parse_param(p, row, k++, i, out) < 0)
            return -1;
        if (*i == p->len)
            return parse_fail(p, p->len, "the '(' after %.*s is not closed", (int)name_len,
                              p->s + name_at);
    } while (p->s[*i] == ',');
    (*i)++; /* past ')' */
    *count = k;
    return 0;
}

int dist_parse(const char *s, size_t len, dist_spec *out, size_t *err_at, char *why, size_t size)
{
    dist_parser p = {s, len, err_at, why, size};
    char list[160];
    size_t name_at = skip_blanks(&p, 0);
    size_t name_end = scan_until(&p, name_at, "(");
    size_t name_len = name_end - name_at;
    if (name_len == 0)
        return parse_fail(&p, name_at, "a distribution's name is missing; the distributions are %s",
                          dist_list(list, sizeof list));
    const dist_row *row = row_named(s + name_at, name_len);
    if (!row)
        return parse_fail(&p, name_at, "unknown distribution '%.*s'; the distributions are %s",
                          (int)name_len, s + name_at, dist_list(list, sizeof list));
    dist_spec d = {.kind = row->kind, .theta = DIST_THETA_DEFAULT};
    size_t i = skip_blanks(&p, name_end), count = 0, text_end = name_end;
    if (i < len && s[i] == '(') {
        if (parse_params(&p, row, name_at, name_len, &i, &count, &d) < 0)
            return -1;
        text_end = i;
    }
    if (count < row->min_params)
        return parse_fail(&p, text_end == name_end ? name_end : text_end - 1, "%s", row->count_msg);
    i = skip_blanks(&p, i);
    if (i < len) {
        size_t rest_end = len;
        while (is_blank(s[rest_end - 1]))
            rest_end--;
        return parse_fail(&p, i, "unexpected '%.*s' after %.*s", (int)(rest_end - i), s + i,
                          (int)(text_end - name_at), s + name_at);
    }
    *out = d;
    return 0;
}

const char *dist_text(const dist_spec *d, char *buf, size_t size)
{
    if (size == 0)
        return buf;
    const dist_row *row = row_of(d->kind);
    if (!row) {
        buf[0] = '\0';
        return buf;
    }
    size_t used = (size_t)snprintf(buf, size, "%s", row->name);
    for (size_t k = 0; k < row->max_params && used < size; k++) {
        double v;
        char num[32];
        memcpy(&v, (const char *)d + row->params[k]->offset, sizeof v);
        num_text_double(v, num, sizeof num);
        int n = snprintf(buf + used, size - used, "%s%s%s", k ? ", " : "(", num,
                         k + 1 == row->max_params ? ")" : "");
        used += n > 0 ? (size_t)n : 0;
    }
    return buf;
}
