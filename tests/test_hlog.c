/* test_hlog.c: the HdrHistogram interval log. The encoding is taken apart
 * here with zlib and a decoder written from HdrHistogram's definitions
 * (AbstractHistogram.java, ZigZagEncoding.java), and the whole log is read
 * by a real peer, hdr-histogram-js (tests/hlog_peer.sh, tests/hlog_read.js). */
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
#include <zlib.h>

#include "bench_spawn.h"
#include "hist.h"
#include "hlog.h"
#include "test_util.h"
#include <cjson/cJSON.h>

#ifndef BENCH_BUILD_DIR
#define BENCH_BUILD_DIR "build/dev"
#endif

/* countsArrayLength of an HdrHistogram of 1 to HIST_MAX_NS at 3 digits:
 * (32 buckets + 1) * 1024. */
#define HDR_COUNTS 33792
/* The resolution the brief asks readers' figures to meet. */
#define RESOLUTION (1.0 / 1024)

/* Log-uniform in [lo, hi]. */
static uint64_t rng_log_uniform(uint64_t *state, double lo, double hi)
{
    double u = (double)(test_rng_next(state) >> 11) / 9007199254740992.0;
    return (uint64_t)(lo * exp(u * log(hi / lo)));
}

/* n samples log-uniform in [lo, hi], the same for the same seed. */
static void fill(hist *h, uint64_t seed, size_t n, double lo, double hi)
{
    for (size_t i = 0; i < n; i++)
        hist_record(h, rng_log_uniform(&seed, lo, hi));
}

/* ---- a decoder, from HdrHistogram's definitions -------------------------------------- */

/* The counts array index of v, by the definition: bucket b holds
 * [1024 << b, 2048 << b) (bucket 0 also [0, 1024)) in sub-buckets of 2^b. */
static size_t ref_index(uint64_t v)
{
    unsigned b = 0;
    while (v >= (UINT64_C(2048) << b))
        b++;
    return (size_t)(b + 1) * 1024 + (size_t)(v >> b) - 1024;
}

/* The values at counts array index i: [*lo, *hi] (valueFromIndex and the
 * highest equivalent value). */
static void ref_range(size_t i, uint64_t *lo, uint64_t *hi)
{
    int b = (int)(i >> 10) - 1;
    uint64_t sub = (i & 1023) + 1024;
    if (b < 0) {
        sub -= 1024;
        b = 0;
    }
    *lo = sub << b;
    *hi = *lo + (UINT64_C(1) << b) - 1;
}

static int b64_digit(char c)
{
    const char *d = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = c ? strchr(d, c) : NULL;
    return p ? (int)(p - d) : -1;
}

/* Decodes padded base64 into a new buffer; fails the test on bad text. */
static uint8_t *b64_decode(const char *s, size_t *n)
{
    size_t len = strlen(s);
    assert_int_equal(len % 4, 0);
    uint8_t *out = malloc(len / 4 * 3 + 1);
    assert_non_null(out);
    *n = 0;
    for (size_t i = 0; i < len; i += 4) {
        int pad = (s[i + 2] == '=') + (s[i + 3] == '=');
        uint32_t w = 0;
        for (int k = 0; k < 4; k++) {
            int d = k >= 4 - pad ? 0 : b64_digit(s[i + k]);
            assert_true(d >= 0);
            w = w << 6 | (uint32_t)d;
        }
        out[(*n)++] = (uint8_t)(w >> 16);
        if (pad < 2)
            out[(*n)++] = (uint8_t)(w >> 8);
        if (pad < 1)
            out[(*n)++] = (uint8_t)w;
    }
    return out;
}

static uint64_t be(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | p[i];
    return v;
}

/* ZigZagEncoding.getLong: 8 groups of 7 bits, then a whole 9th byte. */
static int64_t zigzag_get(const uint8_t *p, size_t end, size_t *at)
{
    uint64_t z = 0;
    for (int shift = 0;; shift += 7) {
        assert_true(*at < end);
        uint8_t b = p[(*at)++];
        if (shift == 56) {
            z |= (uint64_t)b << 56;
            break;
        }
        z |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
    }
    return (z & 1) ? (int64_t) ~(z >> 1) : (int64_t)(z >> 1);
}

typedef struct decoded {
    uint64_t *counts;   /* HDR_COUNTS */
    size_t filled;      /* indexes the payload covers */
    uint8_t *raw;       /* the inflated encoding */
    size_t payload_len; /* bytes after the 40-byte header */
} decoded;

/* Takes an interval's base64 apart, checking every header field. */
static decoded decode(const char *b64)
{
    size_t n;
    uint8_t *z = b64_decode(b64, &n);
    assert_true(n >= 8);
    assert_int_equal(be(z, 4), 0x1c849314); /* V2 compressed cookie | 0x10 */
    assert_int_equal(be(z + 4, 4), n - 8);

    decoded d = {.counts = calloc(HDR_COUNTS, sizeof(uint64_t))};
    uLongf raw_len = 40 + (uLongf)HDR_COUNTS * 9;
    d.raw = malloc(raw_len);
    assert_non_null(d.counts);
    assert_non_null(d.raw);
    assert_int_equal(uncompress(d.raw, &raw_len, z + 8, n - 8), Z_OK);
    free(z);

    const uint8_t *r = d.raw;
    assert_true(raw_len >= 40);
    assert_int_equal(be(r, 4), 0x1c849313); /* V2 encoding cookie | 0x10 */
    d.payload_len = be(r + 4, 4);
    assert_int_equal(d.payload_len, raw_len - 40);
    assert_int_equal(be(r + 8, 4), 0);                   /* normalizing index offset */
    assert_int_equal(be(r + 12, 4), 3);                  /* significant digits */
    assert_int_equal(be(r + 16, 8), 1);                  /* lowest discernible value */
    assert_int_equal(be(r + 24, 8), HIST_MAX_NS);        /* highest trackable value */
    assert_int_equal(be(r + 32, 8), 0x3ff0000000000000); /* ratio: the double 1.0 */

    size_t at = 40, end = raw_len;
    while (at < end) {
        int64_t v = zigzag_get(r, end, &at);
        if (v < 0) {
            d.filled += (size_t)-v;
        } else {
            assert_true(d.filled < HDR_COUNTS);
            d.counts[d.filled++] = (uint64_t)v;
        }
        assert_true(d.filled <= HDR_COUNTS);
    }
    return d;
}

static void decoded_free(decoded *d)
{
    free(d->counts);
    free(d->raw);
}

static decoded encode_and_decode(const hist *h)
{
    bench_error e = {{0}};
    char *b64;
    assert_int_equal(hlog_encode(h, &b64, &e), 0);
    decoded d = decode(b64);
    free(b64);
    return d;
}

/* The decoded counts are bench's, each at the index of its bucket's midpoint,
 * and the payload ends at the last non-empty index. */
static void assert_counts_match(const hist *h, const decoded *d)
{
    uint64_t *want = calloc(HDR_COUNTS, sizeof *want);
    assert_non_null(want);
    size_t last = 0;
    hist_iter it = hist_iter_start(h);
    while (hist_iter_next(&it)) {
        last = ref_index(it.mid);
        want[last] += it.count;
    }
    assert_int_equal(d->filled, h->count ? last + 1 : 1);
    assert_memory_equal(d->counts, want, HDR_COUNTS * sizeof *want);
    free(want);
}

/* HdrHistogram's getValueAtPercentile over decoded counts, as the index its
 * nearest rank falls in. */
static size_t decoded_rank_index(const decoded *d, uint64_t rank)
{
    uint64_t seen = 0;
    for (size_t i = 0; i < d->filled; i++) {
        seen += d->counts[i];
        if (seen >= rank)
            return i;
    }
    fail_msg("rank %llu past the decoded counts", (unsigned long long)rank);
    return 0;
}

/* ---- the encoding --------------------------------------------------------------------- */

static hist *new_hist(void)
{
    hist *h = malloc(sizeof *h);
    assert_non_null(h);
    assert_int_equal(hist_init(h), 0);
    return h;
}

static void free_hist(hist *h)
{
    hist_free(h);
    free(h);
}

/* Worked by hand: index 0 empty (a single 0), index 1 three times (6), 2046
 * empty indexes (-2046: ZigZag 4091 = 0xfb 0x1f), index 2048 once (2). */
static void test_hlog_encodes_known_bytes(void **state)
{
    (void)state;
    hist *h = new_hist();
    hist_record_n(h, 1, 3);
    hist_record(h, 2048);
    decoded d = encode_and_decode(h);
    static const uint8_t want[] = {0x00, 0x06, 0xfb, 0x1f, 0x02};
    assert_int_equal(d.payload_len, sizeof want);
    assert_memory_equal(d.raw + 40, want, sizeof want);
    assert_counts_match(h, &d);
    decoded_free(&d);
    free_hist(h);
}

static void test_hlog_counts_are_hdr_indexes_of_bucket_midpoints(void **state)
{
    (void)state;
    hist *h = new_hist();
    fill(h, 42, 200000, 1, (double)HIST_MAX_NS);
    decoded d = encode_and_decode(h);
    assert_counts_match(h, &d);
    uint64_t total = 0;
    for (size_t i = 0; i < d.filled; i++)
        total += d.counts[i];
    assert_int_equal(total, hist_count(h));
    decoded_free(&d);
    free_hist(h);
}

static void test_hlog_percentiles_of_decoded_counts_match_hist(void **state)
{
    (void)state;
    hist *h = new_hist();
    fill(h, 7, 100000, 200, 5e9);
    decoded d = encode_and_decode(h);
    static const double qs[] = {0, 0.001, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999, 1};
    for (size_t k = 0; k < sizeof qs / sizeof *qs; k++) {
        uint64_t rank = qs[k] == 0 ? 1 : (uint64_t)ceil(qs[k] * 100000 - 1e-9);
        uint64_t lo, hi, got = hist_percentile(h, qs[k]);
        ref_range(decoded_rank_index(&d, rank), &lo, &hi);
        if (got < lo || got > hi)
            fail_msg("q=%g: hist gives %llu, the decoded counts [%llu, %llu]", qs[k],
                     (unsigned long long)got, (unsigned long long)lo, (unsigned long long)hi);
        assert_true((double)(hi - got) <= RESOLUTION * (double)got);
    }
    decoded_free(&d);
    free_hist(h);
}

static void test_hlog_empty_histogram_is_one_zero_count(void **state)
{
    (void)state;
    hist *h = new_hist();
    decoded d = encode_and_decode(h);
    assert_int_equal(d.payload_len, 1);
    assert_int_equal(d.raw[40], 0x00);
    assert_int_equal(d.filled, 1);
    assert_int_equal(d.counts[0], 0);
    decoded_free(&d);
    free_hist(h);
}

/* A count past 2^56 takes the 9-byte form, whose last byte is whole. */
static void test_hlog_large_count_takes_nine_bytes(void **state)
{
    (void)state;
    hist *h = new_hist();
    uint64_t n = (UINT64_C(1) << 62) + 3;
    hist_record_n(h, 5, n);
    decoded d = encode_and_decode(h);
    assert_int_equal(d.payload_len, 1 + 9); /* -5 for indexes 0-4, then the count */
    assert_int_equal(d.raw[40], 9);         /* ZigZag(-5) */
    assert_int_equal(d.counts[5], n);
    assert_counts_match(h, &d);
    decoded_free(&d);
    free_hist(h);
}

/* ---- the lines ------------------------------------------------------------------------ */

typedef struct memfile {
    FILE *f;
    char *text;
    size_t len;
} memfile;

/* open_memstream keeps pointers to m's fields: m must stay where it is. */
static void mem_open(memfile *m)
{
    memset(m, 0, sizeof *m);
    m->f = open_memstream(&m->text, &m->len);
    assert_non_null(m->f);
}

/* Closes the stream; the text stays in m->text, the caller's to free. */
static void mem_close(memfile *m)
{
    assert_int_equal(fclose(m->f), 0);
}

static void test_hlog_header_lines_are_exact(void **state)
{
    (void)state;
    memfile m;
    mem_open(&m);
    bench_error e = {{0}};
    assert_int_equal(hlog_begin(m.f, 1700000000.123, "Logged with bench 0.1.0", &e), 0);
    mem_close(&m);
    assert_string_equal(
        m.text, "#[Logged with bench 0.1.0]\n"
                "#[Histogram log format version 1.3]\n"
                "#[StartTime: 1700000000.123 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]\n"
                "#[BaseTime: 1700000000.123 (seconds since epoch)]\n"
                "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_"
                "Histogram\"\n");
    free(m.text);

    mem_open(&m);
    assert_int_equal(hlog_begin(m.f, 1.9996, NULL, &e), 0);
    mem_close(&m);
    assert_string_equal(m.text, "#[Histogram log format version 1.3]\n"
                                "#[StartTime: 2.000 (seconds since epoch), Thu Jan 01 00:00:02 "
                                "UTC 1970]\n"
                                "#[BaseTime: 2.000 (seconds since epoch)]\n"
                                "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
                                "\"Interval_Compressed_Histogram\"\n");
    free(m.text);
}

/* The line for h under tag (NULL: none), as hlog_interval writes it. */
static char *interval_line(const char *tag, double start, double length, const hist *h)
{
    memfile m;
    mem_open(&m);
    bench_error e = {{0}};
    assert_int_equal(hlog_interval(m.f, tag, start, length, h, &e), 0);
    mem_close(&m);
    return m.text;
}

static void assert_line(const char *line, const char *fields, const hist *h)
{
    bench_error e = {{0}};
    char *b64, want[4096];
    assert_int_equal(hlog_encode(h, &b64, &e), 0);
    snprintf(want, sizeof want, "%s,%s\n", fields, b64);
    assert_string_equal(line, want);
    free(b64);
}

static void test_hlog_interval_lines_carry_tag_times_and_max_in_ms(void **state)
{
    (void)state;
    hist *h = new_hist();
    hist_record(h, 1234567); /* 1.234567 ms */
    hist_record(h, 800);
    char *line = interval_line("Order.AddTopping", 1.5, 1.0, h);
    assert_line(line, "Tag=Order.AddTopping,1.500,1.000,1.235", h);
    free(line);
    line = interval_line(NULL, 0, 0.25, h);
    assert_line(line, "0.000,0.250,1.235", h);
    free(line);
    free_hist(h);
}

static void test_hlog_empty_interval_line(void **state)
{
    (void)state;
    hist *h = new_hist();
    char *line = interval_line("Idle", 3, 1, h);
    assert_line(line, "Tag=Idle,3.000,1.000,0.000", h);
    free(line);
    free_hist(h);
}

/* Values past an hour are kept as an hour: the max column says 3600000 ms,
 * and the count sits at the last index an hour needs, inside the array. */
static void test_hlog_clamped_max(void **state)
{
    (void)state;
    hist *h = new_hist();
    hist_record(h, 1000000);
    hist_record(h, 2 * HIST_MAX_NS);
    char *line = interval_line(NULL, 0, 1, h);
    assert_line(line, "0.000,1.000,3600000.000", h);
    free(line);
    decoded d = encode_and_decode(h);
    size_t top = ref_index(HIST_MAX_NS);
    assert_true(top < HDR_COUNTS);
    assert_int_equal(d.filled, top + 1);
    assert_int_equal(d.counts[top], 1);
    decoded_free(&d);
    free_hist(h);
}

static void test_hlog_rejects_bad_tags_comments_and_times(void **state)
{
    (void)state;
    static const char *bad_tags[] = {"", "a,b", "a b", "a=b", "a\tb", "a\nb", "a\x7f"};
    static const char *good_tags[] = {"Order.AddTopping", "verb-2_x", "caf\xc3\xa9"};
    for (size_t i = 0; i < sizeof bad_tags / sizeof *bad_tags; i++)
        assert_false(hlog_tag_valid(bad_tags[i]));
    for (size_t i = 0; i < sizeof good_tags / sizeof *good_tags; i++)
        assert_true(hlog_tag_valid(good_tags[i]));

    hist *h = new_hist();
    hist_record(h, 10);
    memfile m;
    mem_open(&m);
    bench_error e = {{0}};
    assert_int_equal(hlog_interval(m.f, "a,b", 0, 1, h, &e), -1);
    assert_non_null(strstr(e.msg, "a,b"));
    assert_int_equal(hlog_interval(m.f, NULL, NAN, 1, h, &e), -1);
    assert_int_equal(hlog_interval(m.f, NULL, 0, INFINITY, h, &e), -1);
    assert_int_equal(hlog_begin(m.f, 1, "two\nlines", &e), -1);
    assert_int_equal(hlog_begin(m.f, 1, "a ] inside", &e), -1);
    char long_comment[200];
    memset(long_comment, 'x', sizeof long_comment - 1);
    long_comment[sizeof long_comment - 1] = '\0';
    assert_int_equal(hlog_begin(m.f, 1, long_comment, &e), -1);
    assert_int_equal(hlog_begin(m.f, -1, NULL, &e), -1);
    assert_int_equal(hlog_begin(m.f, NAN, NULL, &e), -1);
    mem_close(&m);
    assert_int_equal(m.len, 0); /* nothing written for a refused call */
    free(m.text);
    free_hist(h);
}

static void test_hlog_write_error_is_reported(void **state)
{
    (void)state;
    FILE *f = fopen("/dev/full", "w");
    if (!f) {
        print_message("skipped: no /dev/full\n");
        skip();
    }
    hist *h = new_hist();
    hist_record(h, 10);
    bench_error e = {{0}};
    assert_int_equal(hlog_begin(f, 1700000000, NULL, &e), -1);
    assert_non_null(strstr(e.msg, "cannot write the histogram log"));
    clearerr(f);
    e.msg[0] = '\0';
    assert_int_equal(hlog_interval(f, "T", 0, 1, h, &e), -1);
    assert_non_null(strstr(e.msg, "No space left"));
    fclose(f);
    free_hist(h);
}

/* ---- a real peer: hdr-histogram-js ------------------------------------------------------ */

enum { PEER_TAGS = 4 };

typedef struct peer_row {
    char tag[64];
    unsigned intervals;
    double count, min, max, p[4], first_start_ms;
} peer_row;

static const double peer_q[4] = {0.5, 0.9, 0.99, 0.999};

static void assert_near(const char *tag, const char *what, double got, double want)
{
    if (fabs(got - want) > RESOLUTION * want)
        fail_msg("%s %s: hdr-histogram-js says %.17g, bench %.17g", tag, what, got, want);
}

static void assert_peer_row(const peer_row *r, unsigned intervals, const hist *h, double start_ms)
{
    print_message("%-17s %u intervals, count %.0f (bench %llu), min %.0f (%llu), max %.0f (%llu), "
                  "p50 %.0f (%llu), p90 %.0f (%llu), p99 %.0f (%llu), p99.9 %.0f (%llu)\n",
                  r->tag, r->intervals, r->count, (unsigned long long)hist_count(h), r->min,
                  (unsigned long long)hist_min(h), r->max, (unsigned long long)hist_max(h), r->p[0],
                  (unsigned long long)hist_percentile(h, peer_q[0]), r->p[1],
                  (unsigned long long)hist_percentile(h, peer_q[1]), r->p[2],
                  (unsigned long long)hist_percentile(h, peer_q[2]), r->p[3],
                  (unsigned long long)hist_percentile(h, peer_q[3]));
    assert_int_equal(r->intervals, intervals);
    assert_true(r->count == (double)hist_count(h));
    assert_true(fabs(r->first_start_ms - start_ms) < 1);
    assert_near(r->tag, "min", r->min, (double)hist_min(h));
    assert_near(r->tag, "max", r->max, (double)hist_max(h));
    for (int k = 0; k < 4; k++)
        assert_near(r->tag, "percentile", r->p[k], (double)hist_percentile(h, peer_q[k]));
}

/* Four tags: one over two intervals (the reader adds them up), one with a
 * heavy tail past the hour bench clamps at, untagged values in the exact
 * range, and an empty interval. */
static void test_hlog_hdr_histogram_js_reads_the_log(void **state)
{
    (void)state;
    const double start = 1700000000.5;
    hist *a1 = new_hist(), *a2 = new_hist(), *b = new_hist(), *c = new_hist(), *idle = new_hist();
    fill(a1, 1, 50000, 1e3, 1e8);
    fill(a2, 2, 50000, 2e3, 5e8);
    fill(b, 3, 20000, 1e5, 2e13);
    fill(c, 4, 10000, 1, 3000);
    assert_true(b->clamped > 0);

    char path[512];
    snprintf(path, sizeof path, "%s/hlog_peer.hlog", BENCH_BUILD_DIR);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    bench_error e = {{0}};
    assert_int_equal(hlog_begin(f, start, "Logged with bench (test_hlog)", &e), 0);
    assert_int_equal(hlog_interval(f, "Order.AddTopping", 0, 1, a1, &e), 0);
    assert_int_equal(hlog_interval(f, "Order.Purchase", 0, 1, b, &e), 0);
    assert_int_equal(hlog_interval(f, NULL, 0.5, 1, c, &e), 0);
    assert_int_equal(hlog_interval(f, "Order.AddTopping", 1, 1, a2, &e), 0);
    assert_int_equal(hlog_interval(f, "Idle", 2, 1, idle, &e), 0);
    assert_int_equal(fclose(f), 0);

    char *argv[] = {"/bin/sh", "tests/hlog_peer.sh", path, BENCH_BUILD_DIR, NULL};
    spawn_output o = spawn_run(argv);
    if (o.status == 77) {
        print_message("%s", o.err);
        spawn_output_free(&o);
        skip();
    }
    if (o.status != 0)
        fail_msg("tests/hlog_peer.sh (%d):\n%s\n%s", o.status, o.out, o.err);

    peer_row rows[PEER_TAGS + 1];
    int n = 0;
    for (char *line = strtok(o.out, "\n"); line && n <= PEER_TAGS; line = strtok(NULL, "\n")) {
        peer_row *r = &rows[n++];
        int got = sscanf(line, "%63[^\t]\t%u\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf", r->tag,
                         &r->intervals, &r->count, &r->min, &r->max, &r->p[0], &r->p[1], &r->p[2],
                         &r->p[3], &r->first_start_ms);
        if (got != 10)
            fail_msg("hlog_read.js printed an unexpected line: %s", line);
    }
    assert_int_equal(n, PEER_TAGS);
    assert_string_equal(rows[0].tag, "Order.AddTopping");
    assert_string_equal(rows[1].tag, "Order.Purchase");
    assert_string_equal(rows[2].tag, "NO TAG");
    assert_string_equal(rows[3].tag, "Idle");

    hist_merge(a1, a2);
    assert_peer_row(&rows[0], 2, a1, start * 1000);
    assert_peer_row(&rows[1], 1, b, start * 1000);
    assert_peer_row(&rows[2], 1, c, (start + 0.5) * 1000);
    assert_int_equal(rows[3].intervals, 1);
    assert_true(rows[3].count == 0 && rows[3].max == 0);
    spawn_output_free(&o);
    free_hist(a1);
    free_hist(a2);
    free_hist(b);
    free_hist(c);
    free_hist(idle);
}

/* `bench run --hlog` end to end: hdr-histogram-js reads the file a real
 * run wrote, and each tag's count is the run's (all commands, then each
 * verb's), as the JSON of the same run says. */
static void test_hlog_of_bench_run_reads_back_as_its_json(void **state)
{
    (void)state;
    char hlog[512], json[512];
    snprintf(hlog, sizeof hlog, "%s/hlog_run.hlog", BENCH_BUILD_DIR);
    snprintf(json, sizeof json, "%s/hlog_run.json", BENCH_BUILD_DIR);
    char *run[] = {(char *)spawn_bench_path(),
                   "run",
                   "specs/pizzas.yaml",
                   "--targets",
                   "memory",
                   "--duration",
                   "600ms",
                   "--interval",
                   "200ms",
                   "--runs",
                   "1",
                   "--quiet",
                   "--hlog",
                   hlog,
                   "--format",
                   "json",
                   "--output",
                   json,
                   NULL};
    spawn_output o = spawn_run(run);
    if (o.status != 0)
        fail_msg("bench run (%d): %s", o.status, o.err);
    spawn_output_free(&o);
    char *argv[] = {"/bin/sh", "tests/hlog_peer.sh", hlog, BENCH_BUILD_DIR, NULL};
    o = spawn_run(argv);
    if (o.status == 77) {
        print_message("%s", o.err);
        spawn_output_free(&o);
        skip();
    }
    if (o.status != 0)
        fail_msg("tests/hlog_peer.sh (%d):\n%s\n%s", o.status, o.out, o.err);
    FILE *f = fopen(json, "r");
    assert_non_null(f);
    static char text[1 << 22];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    const cJSON *runj = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "results"), 0), "runs"),
        0);
    double commands = cJSON_GetObjectItem(runj, "commands")->valuedouble;
    int intervals = cJSON_GetArraySize(cJSON_GetObjectItem(runj, "intervals"));
    const cJSON *by_verb = cJSON_GetObjectItem(runj, "by_verb");
    int rows = 0;
    for (char *line = strtok(o.out, "\n"); line; line = strtok(NULL, "\n"), rows++) {
        char tag[128];
        unsigned n;
        double count;
        assert_int_equal(sscanf(line, "%127[^\t]\t%u\t%lf", tag, &n, &count), 3);
        assert_int_equal((int)n, intervals);
        const char *verb = strstr(tag, "run1/");
        if (rows == 0) {
            assert_string_equal(tag, "pizzas/memory/run1");
            assert_true(count == commands);
        } else {
            assert_non_null(verb);
            const cJSON *v = cJSON_GetObjectItem(by_verb, verb + 5);
            assert_non_null(v);
            assert_true(count == cJSON_GetObjectItem(v, "count")->valuedouble);
        }
    }
    assert_int_equal(rows, 1 + cJSON_GetArraySize(by_verb));
    print_message("bench run --hlog: %d intervals, %.0f commands, read back by hdr-histogram-js\n",
                  intervals, commands);
    cJSON_Delete(root);
    spawn_output_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hlog_encodes_known_bytes),
        cmocka_unit_test(test_hlog_counts_are_hdr_indexes_of_bucket_midpoints),
        cmocka_unit_test(test_hlog_percentiles_of_decoded_counts_match_hist),
        cmocka_unit_test(test_hlog_empty_histogram_is_one_zero_count),
        cmocka_unit_test(test_hlog_large_count_takes_nine_bytes),
        cmocka_unit_test(test_hlog_header_lines_are_exact),
        cmocka_unit_test(test_hlog_interval_lines_carry_tag_times_and_max_in_ms),
        cmocka_unit_test(test_hlog_empty_interval_line),
        cmocka_unit_test(test_hlog_clamped_max),
        cmocka_unit_test(test_hlog_rejects_bad_tags_comments_and_times),
        cmocka_unit_test(test_hlog_write_error_is_reported),
        cmocka_unit_test(test_hlog_hdr_histogram_js_reads_the_log),
        cmocka_unit_test(test_hlog_of_bench_run_reads_back_as_its_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
