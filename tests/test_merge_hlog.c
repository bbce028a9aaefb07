/* test_merge_hlog.c: bench merge --logs, the shards' interval logs merged
 * into one (interp/hlog_merge.c). Two shards run as users run them (bench
 * run --shard i/2 --hlog), their logs are merged and the merge is read by
 * HdrHistogram's own reader, hdr-histogram-js (tests/hlog_peer.sh): each
 * tag's count is the sum of the shards' and the count bench merge of their
 * result files gives, and its percentiles are the merged result's. Then the
 * refusals, as a table of (file, message). */
/* cmocka.h needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "bench_spawn.h"
#include "hist.h"
#include "hlog.h"
#include "test_util.h"

#ifndef BENCH_BUILD_DIR
#define BENCH_BUILD_DIR "build/dev"
#endif

static char *path_of(const char *name)
{
    static char paths[8][512];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 512, "%s/merge_hlog_%s", BENCH_BUILD_DIR, name);
    return p;
}

static spawn_output bench(char **args)
{
    char *argv[32] = {(char *)spawn_bench_path()};
    size_t n = 1;
    for (; args[n - 1]; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    return spawn_run(argv);
}

#define BENCH(...) bench((char *[]){__VA_ARGS__, NULL})

static void expect_ok(spawn_output o)
{
    if (o.status != 0)
        fail_msg("bench exited %d: %s%s", o.status, o.out, o.err);
    spawn_output_free(&o);
}

/* ---- the peer's reading ------------------------------------------------------------ */

typedef struct tag_count {
    char tag[128];
    unsigned intervals;
    double count, min, max, p[4]; /* p50, p90, p99, p99.9 in ns */
} tag_count;

enum { MAX_TAGS = 16 };

/* Reads log with hdr-histogram-js: the tags in order, with their counts.
 * Returns the number of tags, or -1 when the peer is not available. */
static int peer_read(const char *log, tag_count *t)
{
    char *argv[] = {"/bin/sh", "tests/hlog_peer.sh", (char *)log, BENCH_BUILD_DIR, NULL};
    spawn_output o = spawn_run(argv);
    if (o.status == 77) {
        print_message("%s", o.err);
        spawn_output_free(&o);
        return -1;
    }
    if (o.status != 0)
        fail_msg("tests/hlog_peer.sh %s (%d):\n%s\n%s", log, o.status, o.out, o.err);
    int n = 0;
    for (char *line = strtok(o.out, "\n"); line; line = strtok(NULL, "\n")) {
        assert_true(n < MAX_TAGS);
        tag_count *r = &t[n];
        assert_int_equal(sscanf(line, "%127[^\t]\t%u\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf", r->tag,
                                &r->intervals, &r->count, &r->min, &r->max, &r->p[0], &r->p[1],
                                &r->p[2], &r->p[3]),
                         9);
        n++;
    }
    spawn_output_free(&o);
    return n;
}

static const tag_count *find_tag(const tag_count *t, int n, const char *tag)
{
    for (int i = 0; i < n; i++)
        if (strcmp(t[i].tag, tag) == 0)
            return &t[i];
    fail_msg("no tag %s", tag);
    return NULL;
}

static cJSON *load_json(const char *path)
{
    char *text = read_file(path);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    return root;
}

/* The peer's percentile against the merged result's (us in the JSON):
 * within the 1/1024 of a bucket either side rounds in, and the JSON's ns. */
static void assert_near_us(const char *tag, const char *what, double peer_ns, const cJSON *us)
{
    assert_non_null(us);
    double want = us->valuedouble * 1000;
    if (fabs(peer_ns - want) > want / 1024 + 1)
        fail_msg("%s %s: hdr-histogram-js reads %.0f ns from the merged log, the merged "
                 "result says %.3f ns",
                 tag, what, peer_ns, want);
}

/* Two shards, each over several intervals; the merged log is the sum of
 * theirs tag by tag, and what bench merge of their results counts. */
static void test_merge_hlog_shards_add_up_as_their_results(void **state)
{
    (void)state;
    for (int i = 0; i < 2; i++) {
        char shard[8], json[32], log[32];
        snprintf(shard, sizeof shard, "%d/2", i);
        snprintf(json, sizeof json, "s%d.json", i);
        snprintf(log, sizeof log, "s%d.hlog", i);
        expect_ok(BENCH("run", "specs/pizzas.yaml", "--targets", "memory", "--duration", "600ms",
                        "--interval", "200ms", "--runs", "1", "--quiet", "--shard", shard,
                        "--format", "json", "--output", path_of(json), "--hlog", path_of(log)));
    }
    expect_ok(BENCH("merge", "--logs", path_of("s0.hlog"), path_of("s1.hlog"), "--output",
                    path_of("m.hlog")));
    expect_ok(
        BENCH("merge", path_of("s0.json"), path_of("s1.json"), "--output", path_of("m.json")));

    tag_count s0[MAX_TAGS], s1[MAX_TAGS], m[MAX_TAGS];
    int n0 = peer_read(path_of("s0.hlog"), s0);
    if (n0 < 0)
        skip();
    int n1 = peer_read(path_of("s1.hlog"), s1);
    int nm = peer_read(path_of("m.hlog"), m);
    assert_int_equal(n1, n0);
    assert_int_equal(nm, n0);
    cJSON *root = load_json(path_of("m.json"));
    const cJSON *run = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "results"), 0), "runs"),
        0);
    const cJSON *by_verb = cJSON_GetObjectItem(run, "by_verb");
    int intervals = cJSON_GetArraySize(cJSON_GetObjectItem(run, "intervals"));
    assert_int_equal(nm, 1 + cJSON_GetArraySize(by_verb));
    for (int i = 0; i < nm; i++) {
        const tag_count *a = find_tag(s0, n0, m[i].tag), *b = find_tag(s1, n1, m[i].tag);
        print_message("%-45s %u intervals: %.0f + %.0f = %.0f\n", m[i].tag, m[i].intervals,
                      a->count, b->count, m[i].count);
        assert_true(m[i].count == a->count + b->count);
        assert_true(m[i].count > 0);
        assert_int_equal(m[i].intervals, a->intervals > b->intervals ? a->intervals : b->intervals);
        assert_int_equal((int)m[i].intervals, intervals);
        const char *verb = strstr(m[i].tag, "run1/");
        double want =
            verb ? cJSON_GetObjectItem(cJSON_GetObjectItem(by_verb, verb + 5), "count")->valuedouble
                 : cJSON_GetObjectItem(run, "commands")->valuedouble;
        assert_true(m[i].count == want);
        const cJSON *of = verb ? cJSON_GetObjectItem(by_verb, verb + 5) : run;
        assert_near_us(m[i].tag, "p50", m[i].p[0], cJSON_GetObjectItem(of, "p50_us"));
        assert_near_us(m[i].tag, "p99", m[i].p[2], cJSON_GetObjectItem(of, "p99_us"));
        if (!verb) {
            assert_near_us(m[i].tag, "min", m[i].min, cJSON_GetObjectItem(run, "min_us"));
            assert_near_us(m[i].tag, "max", m[i].max, cJSON_GetObjectItem(run, "max_us"));
            assert_near_us(m[i].tag, "p90", m[i].p[1], cJSON_GetObjectItem(run, "p90_us"));
            assert_near_us(m[i].tag, "p99.9", m[i].p[3], cJSON_GetObjectItem(run, "p999_us"));
        }
    }
    assert_true(intervals >= 2);
    cJSON_Delete(root);
}

/* ---- the refusals ------------------------------------------------------------------ */

static const char *header = "#[Histogram log format version 1.3]\n"
                            "#[StartTime: 1700000000.000 (seconds since epoch), x]\n";

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)(v >> 32));
    put32(p + 4, (uint32_t)v);
}

static char *b64(const uint8_t *p, size_t n)
{
    static const char d[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *s = malloc((n + 2) / 3 * 4 + 1), *o = s;
    assert_non_null(s);
    for (size_t i = 0; i < n; i += 3) {
        uint32_t w = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        *o++ = d[w >> 18 & 63];
        *o++ = d[w >> 12 & 63];
        *o++ = i + 1 < n ? d[w >> 6 & 63] : '=';
        *o++ = i + 2 < n ? d[w & 63] : '=';
    }
    *o = '\0';
    return s;
}

/* A V2 histogram from its header fields and counts bytes, compressed
 * (compress false: the bytes stand where the zlib stream should). */
typedef struct v2 {
    uint32_t cookie, payload_len, offset, digits;
    uint64_t lowest, highest;
    const char *counts; /* raw bytes, NUL-free */
    size_t ncounts;
    bool raw; /* counts are put after the 8-byte header instead of a zlib stream */
} v2;

static char *v2_b64(const v2 *h)
{
    uint8_t raw[256] = {0};
    put32(raw, h->cookie ? h->cookie : 0x1c849313);
    put32(raw + 4, h->payload_len ? h->payload_len : (uint32_t)h->ncounts);
    put32(raw + 8, h->offset);
    put32(raw + 12, h->digits);
    put64(raw + 16, h->lowest ? h->lowest : 1);
    put64(raw + 24, h->highest ? h->highest : HIST_MAX_NS);
    put64(raw + 32, UINT64_C(0x3ff0000000000000));
    memcpy(raw + 40, h->counts, h->ncounts);
    uint8_t z[512];
    uLongf zlen = sizeof z - 8;
    if (h->raw) {
        memcpy(z + 8, h->counts, h->ncounts);
        zlen = h->ncounts;
    } else
        assert_int_equal(compress2(z + 8, &zlen, raw, 40 + h->ncounts, 9), Z_OK);
    put32(z, 0x1c849314);
    put32(z + 4, (uint32_t)zlen);
    return b64(z, 8 + zlen);
}

/* An interval line of tag "a" holding h. */
static char *line_of(const v2 *h)
{
    char *p = v2_b64(h);
    char *s = malloc(strlen(header) + strlen(p) + 64);
    assert_non_null(s);
    sprintf(s, "%sTag=a,0.000,1.000,0.001,%s\n", header, p);
    free(p);
    return s;
}

/* A log of one interval of tag, five samples of 1 us. */
/* A log of one interval of tag, whose first line is "#[comment]" unless
 * comment is NULL. */
static void write_log_with(const char *path, const char *tag, const char *comment)
{
    hist h;
    assert_int_equal(hist_init(&h), 0);
    hist_record_n(&h, 1000, 5);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    bench_error e = {{0}};
    assert_int_equal(hlog_begin(f, 1700000000, comment, &e), 0);
    assert_int_equal(hlog_interval(f, tag, 0, 1, &h, &e), 0);
    assert_int_equal(fclose(f), 0);
    hist_free(&h);
}

static void write_log(const char *path, const char *tag)
{
    write_log_with(path, tag, NULL);
}

/* A log of tag "a" whose first line is "#[comment]". */
static void write_log_saying(const char *path, const char *comment)
{
    write_log_with(path, "a", comment);
}

/* The good log every bad one is merged with: tag "a". */
static void write_good(void)
{
    write_log(path_of("good.hlog"), "a");
}

typedef struct bad_case {
    const char *name;
    const char *text; /* the file; NULL: from v2 */
    v2 h;
    const char *msg; /* after "bench merge: PATH:" */
} bad_case;

/* Counts: 5 at index 0 is 0x0a; -2 (two zeros) is 0x03; 2^40+1 overflows. */
static const bad_case bad_cases[] = {
    {"json",
     "{\"results\": []}\n",
     {0},
     "1:1: not an HdrHistogram interval log: no '#[Histogram log format version ...]' line "
     "comes before this one"},
    {"empty",
     "",
     {0},
     "1:1: not an HdrHistogram interval log: no '#[Histogram log format version ...]' line"},
    {"version",
     "#[Histogram log format version 2.0]\n",
     {0},
     "1:32: the interval log's format version is not 1.x, which bench reads"},
    {"no_start",
     "#[Histogram log format version 1.3]\nTag=a,0,1,0,AAAA\n",
     {0},
     "2:1: an interval before the log's StartTime line"},
    {"bad_start",
     "#[Histogram log format version 1.3]\n#[StartTime: soon]\n",
     {0},
     "2:14: the time is not a number of seconds since the epoch"},
    {"bad_tag",
     "#[Histogram log format version 1.3]\n#[StartTime: 1]\nTag=,0,1,0,AAAA\n",
     {0},
     "3:5: the tag must be non-empty, without ',', '=' or white space, and end at a ','"},
    {"bad_length",
     "#[Histogram log format version 1.3]\n#[StartTime: 1]\nTag=a,0,-1,0,AAAA\n",
     {0},
     "3:9: expected the interval length, a number followed by ','"},
    {"no_payload",
     "#[Histogram log format version 1.3]\n#[StartTime: 1]\nTag=a,0,1,0\n",
     {0},
     "3:11: expected the interval max, a number followed by ','"},
    {"base64",
     "#[Histogram log format version 1.3]\n#[StartTime: 1]\nTag=a,0,1,0,HIST!!==\n",
     {0},
     "3:13: the histogram is not base64"},
    {"short",
     "#[Histogram log format version 1.3]\n#[StartTime: 1]\nTag=a,0,1,0,HIST\n",
     {0},
     "3:13: the histogram is 3 bytes, shorter than its 8-byte header"},
    {"cookie",
     "#[Histogram log format version 1.3]\n#[StartTime: 1]\nTag=a,0,1,0,AAAAAAAAAAAA\n",
     {0},
     "3:13: the histogram's cookie 0x00000000 is not HdrHistogram's compressed V2 cookie"},
    {"zlib",
     NULL,
     {.counts = "not zlib at all", .ncounts = 15, .raw = true},
     "3:25: the histogram's zlib stream is damaged: incorrect header check"},
    {"inner_cookie",
     NULL,
     {.cookie = 0x1c849301, .counts = "\x0a", .ncounts = 1},
     "3:25: the histogram's encoding cookie 0x1c849301 is not V2"},
    {"huge_payload",
     NULL,
     {.payload_len = 0x7fffffff, .counts = "\x0a", .ncounts = 1},
     "3:25: the histogram's payload of 2147483647 bytes is more than the 16777216 bench reads"},
    {"short_payload",
     NULL,
     {.payload_len = 100, .counts = "\x0a", .ncounts = 1},
     "3:25: the histogram's zlib stream ends 99 bytes short of its payload length"},
    {"offset",
     NULL,
     {.offset = 3, .digits = 3, .counts = "\x0a", .ncounts = 1},
     "3:25: the histogram has a normalizing index offset (3), which bench does not read"},
    {"digits",
     NULL,
     {.digits = 9, .counts = "\x0a", .ncounts = 1},
     "3:25: the histogram has 9 significant digits, not 0 to 5"},
    {"range",
     NULL,
     {.digits = 3, .lowest = 10, .highest = 15, .counts = "\x0a", .ncounts = 1},
     "3:25: the histogram's range 10 to 15 is not one HdrHistogram allows"},
    {"zeros",
     NULL,
     {.digits = 3, .counts = "\x81\x80\x80\x80\x01", .ncounts = 5},
     "3:25: a run of 134217729 empty counts goes past the histogram's 33792 counts"},
    {"past_end",
     NULL,
     {.digits = 3, .counts = "\x0a\x80", .ncounts = 2},
     "3:25: a count of the histogram runs past the end of its payload"},
    {"too_many",
     NULL,
     {.digits = 3, .counts = "\x82\x80\x80\x80\x80\x80\x80\x01", .ncounts = 8},
     "3:25: the histograms of one interval hold more than 2^40 samples"},
    {"other_digits",
     NULL,
     {.digits = 2, .counts = "\x0a", .ncounts = 1},
     "3:25: a histogram of 2 significant digits, where "},
};

static void test_merge_hlog_refuses_bad_logs(void **state)
{
    (void)state;
    write_good();
    for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) {
        const bad_case *c = &bad_cases[i];
        char name[64];
        snprintf(name, sizeof name, "bad_%s.hlog", c->name);
        char *path = path_of(name);
        char *text = c->text ? NULL : line_of(&c->h);
        write_file(path, c->text ? c->text : text);
        free(text);
        spawn_output o = BENCH("merge", "--logs", path_of("good.hlog"), path, "--output",
                               path_of("bad_out.hlog"));
        char want[1024];
        snprintf(want, sizeof want, "bench merge: %s:%s", path, c->msg);
        if (o.status != 2 || strncmp(o.err, want, strlen(want)) != 0 ||
            (strcmp(c->name, "other_digits") != 0 && strcmp(o.err + strlen(want), "\n") != 0))
            fail_msg("%s: exit %d, stderr:\n%s\nwanted:\n%s", c->name, o.status, o.err, want);
        spawn_output_free(&o);
    }
}

/* Tag sets, a file given twice, and flags that do not go with --logs. */
static void test_merge_hlog_refuses_other_tags_twice_and_flags(void **state)
{
    (void)state;
    write_good();
    char *other = path_of("other_tag.hlog");
    write_log(other, "b");
    char *good = path_of("good.hlog");
    struct {
        char *args[8];
        int status;
        char want[512];
    } rows[4] = {
        {{"merge", "--logs", good, other, NULL}, 2, ""},
        {{"merge", "--logs", good, good, NULL}, 2, ""},
        {{"merge", "--logs", "--format", "csv", good, NULL},
         2,
         "bench merge: --logs writes the merged log to --output; --format is for result files\n"},
        {{"merge", "--logs", NULL}, 2, ""},
    };
    snprintf(rows[0].want, sizeof rows[0].want,
             "bench merge: %s:5:1: the tag a is in no interval of %s: logs of different tag sets "
             "do not merge\n",
             good, other);
    snprintf(rows[1].want, sizeof rows[1].want, "bench merge: %s is %s given twice\n", good, good);
    snprintf(rows[3].want, sizeof rows[3].want,
             "bench merge: give the shards' interval logs to merge\n");
    for (size_t i = 0; i < 4; i++) {
        spawn_output o = bench(rows[i].args);
        if (o.status != rows[i].status || strncmp(o.err, rows[i].want, strlen(rows[i].want)) != 0)
            fail_msg("row %zu: exit %d, stderr:\n%s\nwanted:\n%s", i, o.status, o.err,
                     rows[i].want);
        spawn_output_free(&o);
    }
}

/* Logs that say which shard they are (bench run --shard's "Logged with
 * bench V, shard I/N"): every shard once, as bench merge asks of result
 * files, or a sentence and exit 2. */
static void test_merge_hlog_refuses_a_missing_or_doubled_shard(void **state)
{
    (void)state;
    static const struct {
        const char *first, *second; /* the two logs' comments; NULL: no second log */
        const char *want;           /* after "bench merge: "; A and B: the two paths */
    } rows[] = {
        {"Logged with bench x, shard 0/3", "Logged with bench x, shard 1/3",
         "shard 2/3 missing: 2 of 3 shards given"},
        {"Logged with bench x, shard 0/2", "Logged with bench x, shard 0/2",
         "shard 0/2 is given twice: A and B"},
        {"Logged with bench x, shard 0/2", "Logged with bench x",
         "B names no shard, but the other logs are shards' (bench run --shard): merge the "
         "shards' logs alone"},
        {"Logged with bench x, shard 0/2", "Logged with bench x, a merge of 2 shards",
         "B:1:1: a merge of 2 shards' logs, not a shard's: merge the shards"},
        {"Logged with bench x, shard 0/2", "Logged with bench x, shard 1/3",
         "B is shard 1/3 but A is of 2 shards"},
        {"Logged with bench x, shard 0/2", "Logged with bench x, shard 2/2",
         "B says it is shard 2 of 2, past the last"},
        {"Logged with bench x, shard 0/2", "Logged with bench x, shard 1-2",
         "B:1:30: the shard is not INDEX/COUNT (bench run --shard's)"},
        {"Logged with bench x, shard 0/2", "Logged with bench x, shard 1/0",
         "B:1:30: the shard is not INDEX/COUNT (bench run --shard's)"},
        {"Logged with bench x, shard 0/2", "Logged with bench x, shard 1/1234567890123456789",
         "B:1:30: the shard is not INDEX/COUNT (bench run --shard's)"},
        {"Logged with bench x, shard 0/2", "Logged with bench x, a merge of many shards",
         "B:1:35: a merge's count of shards is not a number"},
        /* a count from the file is not walked to: the first 16 missing, then a count */
        {"Logged with bench x, shard 3/999999999999999", NULL,
         "shards 0/999999999999999, 1/999999999999999, 2/999999999999999, 4/999999999999999, "
         "5/999999999999999, 6/999999999999999, 7/999999999999999, 8/999999999999999, "
         "9/999999999999999, 10/999999999999999, 11/999999999999999, 12/999999999999999, "
         "13/999999999999999, 14/999999999999999, 15/999999999999999, 16/999999999999999 and "
         "999999999999982 more missing: 1 of 999999999999999 shards given"},
    };
    char a[512], b[512], out[512]; /* path_of's buffers are reused */
    snprintf(a, sizeof a, "%s", path_of("shard_a.hlog"));
    snprintf(b, sizeof b, "%s", path_of("shard_b.hlog"));
    snprintf(out, sizeof out, "%s", path_of("shard_out.hlog"));
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        write_log_saying(a, rows[i].first);
        if (rows[i].second)
            write_log_saying(b, rows[i].second);
        char want[2048] = "bench merge: ";
        size_t len = strlen(want);
        for (const char *p = rows[i].want; *p && len < sizeof want - 600; p++)
            if (*p == 'A' || *p == 'B')
                len += (size_t)snprintf(want + len, sizeof want - len, "%s", *p == 'A' ? a : b);
            else
                want[len++] = *p;
        snprintf(want + len, sizeof want - len, "\n");
        spawn_output o = rows[i].second ? BENCH("merge", "--logs", a, b, "--output", out)
                                        : BENCH("merge", "--logs", a, "--output", out);
        if (o.status != 2 || strcmp(o.err, want) != 0)
            fail_msg("row %zu: exit %d, stderr:\n%s\nwanted:\n%s", i, o.status, o.err, want);
        spawn_output_free(&o);
    }
    /* logs of no interval merge into a log of none (fuzz_hlog: qsort was
       given a NULL array) */
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(i ? b : a, "w");
        assert_non_null(f);
        bench_error e = {{0}};
        assert_int_equal(hlog_begin(f, 1700000000, NULL, &e), 0);
        assert_int_equal(fclose(f), 0);
    }
    expect_ok(BENCH("merge", "--logs", a, b, "--output", out));
    /* the two shards of two: merged */
    write_log_saying(a, "Logged with bench x, shard 1/2");
    write_log_saying(b, "Logged with bench x, shard 0/2");
    expect_ok(BENCH("merge", "--logs", a, b, "--output", out));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_hlog_shards_add_up_as_their_results),
        cmocka_unit_test(test_merge_hlog_refuses_bad_logs),
        cmocka_unit_test(test_merge_hlog_refuses_other_tags_twice_and_flags),
        cmocka_unit_test(test_merge_hlog_refuses_a_missing_or_doubled_shard),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
