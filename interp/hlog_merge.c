/* hlog_merge.c: bench merge --logs (hlog_merge.h). The logs are read whole
 * first, each payload decoded once to check it, so that a refusal leaves no
 * output; the merge then decodes each group's payloads into one histogram
 * and writes it with hlog_interval. Memory is the logs' text and one
 * histogram. */
#include "hlog_merge.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "alloc.h"
#include "error.h"
#include "hist.h"
#include "hlog.h"
#include "report.h"
#include "shard_set.h"

/* The longest line read: a bench payload is well under 1 MiB of base64. */
#define LINE_MAX_BYTES ((size_t)16 << 20)
#define VERSION_LINE "#[Histogram log format version "

typedef struct log_line {
    size_t file;          /* index into the paths */
    size_t line;          /* 1-based */
    size_t seq;           /* order of reading over all files */
    size_t k;             /* this tag's k-th interval in its file */
    char *tag;            /* NULL: untagged */
    double start, length; /* absolute start (s since the epoch), length (s) */
    char *b64;            /* the payload */
    size_t payload_col;   /* 1-based column of the payload */
} log_line;

/* What a log's "#[Logged with bench V, shard I/N]" line says (bench run
 * --shard writes it; ", a merge of N shards" a merge's): count 0 when the
 * log names no shard. */
typedef struct log_shard {
    int64_t index, count; /* index -1: a merge */
    size_t line;
} log_shard;

typedef struct log_set {
    const char *const *paths;
    size_t npaths;
    log_line *v;
    size_t n, cap;
    double base; /* the earliest log's start */
    int digits;  /* of the first histogram; -1 before it */
    size_t digits_file, digits_line;
    hist h;
    log_shard *shards; /* one per path */
    char *err;
    size_t size;
} log_set;

static int refuse(log_set *s, size_t file, size_t line, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int refuse(log_set *s, size_t file, size_t line, size_t col, const char *fmt, ...)
{
    char msg[BENCH_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_set_buf(s->err, s->size, "%s:%zu:%zu: %s", s->paths[file], line, col, msg);
}

/* Reads one line of at most LINE_MAX_BYTES into *buf (without its "\n" or
 * "\r\n"). Returns 1, 0 at the end of the file, -1 when too long or unreadable. */
static int read_line(FILE *f, char **buf, size_t *cap, size_t *len)
{
    size_t n = 0;
    int c;
    while ((c = getc(f)) != EOF && c != '\n') {
        if (n + 1 >= LINE_MAX_BYTES)
            return -1;
        if (n + 1 >= *cap) {
            *cap = *cap ? *cap * 2 : 256;
            *buf = xrealloc(*buf, *cap);
        }
        (*buf)[n++] = (char)c;
    }
    if (ferror(f))
        return -1;
    if (c == EOF && n == 0)
        return 0;
    if (n > 0 && (*buf)[n - 1] == '\r')
        n--;
    if (!*buf)
        *buf = xmalloc(*cap = 256);
    (*buf)[n] = '\0';
    *len = n;
    return 1;
}

/* A number field ending at ',' (or the end): its value in *v and the text
 * after the comma in *next. */
static bool number_field(char *p, double *v, char **next)
{
    char *end;
    errno = 0;
    *v = strtod(p, &end);
    if (end == p || errno || !isfinite(*v) || (*end != ',' && *end != '\0'))
        return false;
    *next = *end ? end + 1 : end;
    return true;
}

typedef struct file_state {
    bool version;
    bool have_start, have_base;
    double start_time, base_time;
    size_t intervals;
} file_state;

/* A whole non-negative decimal number of at most 18 digits at *p, which is
 * moved past it. */
static bool whole_number(const char **p, int64_t *v)
{
    int64_t n = 0;
    const char *q = *p;
    while (*q >= '0' && *q <= '9' && q - *p < 18)
        n = n * 10 + (*q++ - '0');
    if (q == *p || (*q >= '0' && *q <= '9'))
        return false;
    *p = q;
    *v = n;
    return true;
}

/* bench's "#[Logged with bench V, shard I/N]" or "..., a merge of N
 * shards]": which shard the log is. */
static int shard_line(log_set *s, size_t file, size_t line, const char *text)
{
    log_shard *sh = &s->shards[file];
    const char *at = strstr(text, ", shard "), *merge = strstr(text, ", a merge of ");
    const char *p = at ? at + 8 : merge ? merge + 13 : NULL;
    if (!p)
        return 0;
    int64_t a = 0, b = 0;
    bool ok = whole_number(&p, &a);
    if (ok && at)
        ok = *p++ == '/' && whole_number(&p, &b) && b >= 1 && strcmp(p, "]") == 0;
    else if (ok)
        ok = a >= 1 && strcmp(p, " shards]") == 0;
    if (!ok)
        return refuse(s, file, line, (size_t)((at ? at + 8 : merge + 13) - text) + 1,
                      at ? "the shard is not INDEX/COUNT (bench run --shard's)"
                         : "a merge's count of shards is not a number");
    *sh = at ? (log_shard){a, b, line} : (log_shard){-1, a, line};
    return 0;
}

/* The header lines bench, HistogramLogWriter and hdr_log_write_header write. */
static int header_line(log_set *s, size_t file, size_t line, const char *text, file_state *fs)
{
    const char *v;
    double *slot = NULL;
    bool *have = NULL;
    if (strncmp(text, "#[Logged with bench ", 20) == 0)
        return shard_line(s, file, line, text);
    if (strncmp(text, VERSION_LINE, strlen(VERSION_LINE)) == 0) {
        v = text + strlen(VERSION_LINE);
        if (strncmp(v, "1.", 2) != 0)
            return refuse(s, file, line, strlen(VERSION_LINE) + 1,
                          "the interval log's format version is not 1.x, which bench reads");
        fs->version = true;
        return 0;
    }
    if (strncmp(text, "#[StartTime: ", 13) == 0) {
        v = text + 13;
        slot = &fs->start_time;
        have = &fs->have_start;
    } else if (strncmp(text, "#[BaseTime: ", 12) == 0) {
        v = text + 12;
        slot = &fs->base_time;
        have = &fs->have_base;
    } else
        return 0;
    char *end;
    errno = 0;
    *slot = strtod(v, &end);
    if (end == v || errno || !isfinite(*slot) || *slot < 0 || *slot > 1e15)
        return refuse(s, file, line, (size_t)(v - text) + 1,
                      "the time is not a number of seconds since the epoch");
    *have = true;
    return 0;
}

static int interval_line(log_set *s, size_t file, size_t line, char *text, file_state *fs)
{
    if (!fs->version)
        return refuse(s, file, line, 1,
                      "not an HdrHistogram interval log: no '" VERSION_LINE
                      "...]' line comes before this one");
    if (!fs->have_start && !fs->have_base)
        return refuse(s, file, line, 1, "an interval before the log's StartTime line");
    char *p = text, *tag = NULL;
    if (strncmp(p, "Tag=", 4) == 0) {
        char *comma = strchr(p + 4, ',');
        if (comma)
            *comma = '\0';
        if (!comma || !hlog_tag_valid(p + 4))
            return refuse(s, file, line, 5,
                          "the tag must be non-empty, without ',', '=' or "
                          "white space, and end at a ','");
        tag = p + 4;
        p = comma + 1;
    }
    double start, length, max;
    const char *what[3] = {"interval start", "interval length", "interval max"};
    double *slots[3] = {&start, &length, &max};
    for (int i = 0; i < 3; i++) {
        char *next;
        if (!number_field(p, slots[i], &next) || (i == 1 && *slots[i] < 0) || !*next)
            return refuse(s, file, line, (size_t)(p - text) + 1,
                          "expected the %s, a number followed by ','", what[i]);
        p = next;
    }
    size_t col = (size_t)(p - text) + 1;
    int digits;
    bench_error e = {{0}};
    hist_reset(&s->h);
    if (hlog_decode(p, strlen(p), &s->h, &digits, &e) < 0)
        return refuse(s, file, line, col, "%s", e.msg);
    if (s->digits < 0) {
        s->digits = digits;
        s->digits_file = file;
        s->digits_line = line;
    } else if (digits != s->digits)
        return refuse(s, file, line, col,
                      "a histogram of %d significant digits, where %s:%zu has %d: logs of "
                      "different precision do not merge",
                      digits, s->paths[s->digits_file], s->digits_line, s->digits);
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->v = xrealloc(s->v, s->cap * sizeof *s->v);
    }
    double base = fs->have_base ? fs->base_time : fs->start_time;
    s->v[s->n] = (log_line){.file = file,
                            .line = line,
                            .seq = s->n,
                            .tag = tag ? xstrdup(tag) : NULL,
                            .start = base + start,
                            .length = length,
                            .b64 = xstrdup(p),
                            .payload_col = col};
    s->n++;
    fs->intervals++;
    return 0;
}

static int read_log(log_set *s, size_t file)
{
    const char *path = s->paths[file];
    FILE *f = fopen(path, "r");
    if (!f)
        return err_set_buf(s->err, s->size, "cannot read %s: %s", path, strerror(errno));
    file_state fs = {0};
    char *buf = NULL;
    size_t cap = 0, len = 0, line = 0;
    int rc = 0, got;
    while (rc == 0 && (got = read_line(f, &buf, &cap, &len)) > 0) {
        line++;
        if (len == 0 || strncmp(buf, "\"StartTimestamp\"", 16) == 0)
            continue;
        if (buf[0] == '#')
            rc = header_line(s, file, line, buf, &fs);
        else
            rc = interval_line(s, file, line, buf, &fs);
    }
    if (rc == 0 && got < 0)
        rc = refuse(s, file, line + 1, 1,
                    ferror(f) ? "the file cannot be read" : "a line longer than 16 MiB");
    if (rc == 0 && !fs.version)
        rc = refuse(s, file, line ? line : 1, 1,
                    "not an HdrHistogram interval log: no '" VERSION_LINE "...]' line");
    if (rc == 0) {
        double base = fs.have_base ? fs.base_time : fs.start_time;
        if (!fs.have_start && !fs.have_base)
            rc = refuse(s, file, 1, 1, "the interval log has no StartTime line");
        else if (base < s->base)
            s->base = base;
    }
    free(buf);
    fclose(f);
    return rc;
}

/* The k of each line: how many intervals of its tag its file had before. */
static int tag_cmp(const char *a, const char *b)
{
    return !a || !b ? (a != NULL) - (b != NULL) : strcmp(a, b);
}

static int by_file_tag_seq(const void *x, const void *y)
{
    const log_line *a = x, *b = y;
    int c = tag_cmp(a->tag, b->tag);
    if (c == 0)
        c = (a->file > b->file) - (a->file < b->file);
    if (c == 0)
        c = (a->k > b->k) - (a->k < b->k);
    return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

static const char *tag_name(const char *tag)
{
    return tag ? tag : "(untagged)";
}

/* Numbers each line's k and checks that every file has every tag. */
static int group(log_set *s)
{
    if (s->n) /* logs of no interval: nothing to sort (qsort takes no NULL) */
        qsort(s->v, s->n, sizeof *s->v, by_file_tag_seq);
    for (size_t i = 0; i < s->n; i++)
        s->v[i].k =
            i > 0 && s->v[i - 1].file == s->v[i].file && tag_cmp(s->v[i - 1].tag, s->v[i].tag) == 0
                ? s->v[i - 1].k + 1
                : 0;
    /* Sorted by tag then file: each tag's run holds its files in order. */
    for (size_t i = 0; i < s->n;) {
        size_t j = i, want = 0;
        while (j < s->n && tag_cmp(s->v[j].tag, s->v[i].tag) == 0) {
            if (s->v[j].k == 0) {
                if (s->v[j].file != want)
                    break;
                want++;
            }
            j++;
        }
        if (want < s->npaths) {
            const log_line *at = &s->v[i];
            return err_set_buf(s->err, s->size,
                               "%s:%zu:1: the tag %s is in no interval of %s: logs of different "
                               "tag sets do not merge",
                               s->paths[at->file], at->line, tag_name(at->tag), s->paths[want]);
        }
        i = j;
    }
    return 0;
}

typedef struct merged_group {
    size_t first, n; /* lines v[first..first+n) */
    double start, length;
    size_t seq;
} merged_group;

static int by_start(const void *x, const void *y)
{
    const merged_group *a = x, *b = y;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

static int by_tag_k(const void *x, const void *y)
{
    const log_line *a = x, *b = y;
    int c = tag_cmp(a->tag, b->tag);
    if (c == 0)
        c = (a->k > b->k) - (a->k < b->k);
    return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

typedef struct write_ctx {
    log_set *s;
    merged_group *g;
    size_t ng;
    bool *input_error; /* set when a payload that decoded once did not the second time */
} write_ctx;

static int write_merged(FILE *out, const void *ctx)
{
    const write_ctx *w = ctx;
    log_set *s = w->s;
    bench_error e = {{0}};
    char comment[64];
    snprintf(comment, sizeof comment, "Merged by bench from %zu interval logs", s->npaths);
    if (hlog_begin(out, s->base, comment, &e) < 0)
        return -1;
    for (size_t i = 0; i < w->ng; i++) {
        const merged_group *g = &w->g[i];
        hist_reset(&s->h);
        int digits;
        for (size_t k = 0; k < g->n; k++) {
            const log_line *l = &s->v[g->first + k];
            if (hlog_decode(l->b64, strlen(l->b64), &s->h, &digits, &e) < 0) {
                *w->input_error = true;
                return err_set_buf(s->err, s->size, "%s:%zu:%zu: %s", s->paths[l->file], l->line,
                                   l->payload_col, e.msg);
            }
        }
        if (hlog_interval(out, s->v[g->first].tag, g->start - s->base, g->length, &s->h, &e) < 0)
            return -1;
    }
    return 0;
}

static int merge_and_write(log_set *s, const char *output)
{
    if (s->n)
        qsort(s->v, s->n, sizeof *s->v, by_tag_k);
    merged_group *g = xcalloc(s->n ? s->n : 1, sizeof *g);
    size_t ng = 0;
    for (size_t i = 0; i < s->n; i++) {
        const log_line *l = &s->v[i];
        if (i == 0 || tag_cmp(s->v[i - 1].tag, l->tag) != 0 || s->v[i - 1].k != l->k)
            g[ng++] = (merged_group){.first = i, .start = l->start, .seq = l->seq};
        merged_group *m = &g[ng - 1];
        m->n++;
        m->start = l->start < m->start ? l->start : m->start;
        m->length = l->length > m->length ? l->length : m->length;
    }
    qsort(g, ng, sizeof *g, by_start);
    bool input_error = false;
    write_ctx w = {s, g, ng, &input_error};
    char werr[1024] = "";
    int rc = write_atomic(output, write_merged, &w, werr, sizeof werr) == 0 ? 0 : -2;
    if (rc != 0 && input_error)
        rc = -1;
    else if (rc != 0)
        err_set_buf(s->err, s->size, "%s", werr);
    free(g);
    return rc;
}

static int same_file(log_set *s)
{
    struct stat *st = xcalloc(s->npaths, sizeof *st);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < s->npaths; i++) {
        if (stat(s->paths[i], &st[i]) != 0) {
            rc = err_set_buf(s->err, s->size, "cannot read %s: %s", s->paths[i], strerror(errno));
            break;
        }
        for (size_t j = 0; j < i; j++)
            if (st[j].st_dev == st[i].st_dev && st[j].st_ino == st[i].st_ino) {
                rc = err_set_buf(s->err, s->size, "%s is %s given twice", s->paths[i], s->paths[j]);
                break;
            }
    }
    free(st);
    return rc;
}

/* Logs that name their shard (bench run --shard's) are every shard of one
 * run, each once, as bench merge asks of result files; logs that name none
 * (another tool's, or bench's without --shard) are merged as they are. */
static int check_shards(log_set *s)
{
    size_t named = 0;
    for (size_t i = 0; i < s->npaths; i++)
        named += s->shards[i].count > 0;
    if (named == 0)
        return 0;
    for (size_t i = 0; i < s->npaths; i++) {
        const log_shard *sh = &s->shards[i];
        if (sh->count == 0)
            return err_set_buf(s->err, s->size,
                               "%s names no shard, but the other logs are shards' (bench run "
                               "--shard): merge the shards' logs alone",
                               s->paths[i]);
        if (sh->index < 0)
            return refuse(s, i, sh->line, 1,
                          "a merge of %" PRId64 " shards' logs, not a shard's: merge the shards",
                          sh->count);
    }
    shard_ref *refs = xcalloc(s->npaths, sizeof *refs);
    for (size_t i = 0; i < s->npaths; i++)
        refs[i] = (shard_ref){s->shards[i].index, s->shards[i].count, s->paths[i]};
    int rc = shard_set_check(refs, s->npaths, s->err, s->size);
    free(refs);
    return rc;
}

int hlog_merge_files(const char *const *paths, size_t n, const char *output, char *err, size_t size)
{
    log_set s = {
        .paths = paths, .npaths = n, .base = INFINITY, .digits = -1, .err = err, .size = size};
    if (hist_init(&s.h) < 0)
        return err_set_buf(err, size, "out of memory");
    s.shards = xcalloc(n ? n : 1, sizeof *s.shards);
    int rc = same_file(&s);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = read_log(&s, i);
    if (rc == 0)
        rc = check_shards(&s);
    if (rc == 0)
        rc = group(&s);
    if (rc == 0)
        rc = merge_and_write(&s, output);
    for (size_t i = 0; i < s.n; i++) {
        free(s.v[i].tag);
        free(s.v[i].b64);
    }
    free(s.v);
    free(s.shards);
    hist_free(&s.h);
    return rc;
}
