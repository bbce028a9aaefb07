/* results.c: result files read back into the results.h model: read the
 * file, parse it, validate it against the embedded
 * schema/result.schema.json, then fill the structs the runner fills. */
#include "results.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "arena.h"
#include "diag.h"
#include "error.h"
#include "json_nodes.h"
#include "jsonschema.h"
#include "num.h"

extern const char result_schema_json[];
extern const size_t result_schema_json_len;

/* Result files bigger than this are refused: a year of histograms would not
 * reach it, and it keeps a wrong path (a disk image) from eating memory. */
#define RESULT_FILE_MAX ((size_t)1 << 30)

static cJSON *schema_root;

static void free_schema(void)
{
    cJSON_Delete(schema_root);
    schema_root = NULL;
}

static const cJSON *result_schema(void)
{
    if (!schema_root) {
        schema_root = cJSON_ParseWithLength(result_schema_json, result_schema_json_len);
        if (schema_root) {
            atexit(free_schema);
            jschema_keep(schema_root);
        }
    }
    return schema_root;
}

/* ---- reading ------------------------------------------------------------ */

/* Reads the whole file; NULL with a sentence in err. */
static char *read_all(const char *path, size_t *len, char *err, size_t size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        err_set_buf(err, size, "cannot read %s: %s.", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (ferror(f)) {
            err_set_buf(err, size, "cannot read %s: %s.", path, strerror(errno ? errno : EIO));
            free(buf);
            buf = NULL;
            break;
        }
        if (feof(f))
            break;
        if (cap >= RESULT_FILE_MAX) {
            err_set_buf(err, size, "%s is larger than 1 GiB: not a bench result file.", path);
            free(buf);
            buf = NULL;
            break;
        }
        char *grown = realloc(buf, cap * 2);
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    fclose(f);
    if (!buf) {
        if (err && size && !*err)
            err_set_buf(err, size, "cannot read %s: out of memory.", path);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Whether the text ends inside a string, or [at, end) is the start of a
 * literal it ends inside: cJSON reports those at their first bytes. */
static bool unfinished_token(const char *text, const char *at, const char *end)
{
    /* the text is NUL-terminated and holds no other NUL: strcspn finds
       the next byte that matters */
    bool in_string = false;
    for (const char *p = text; p < end; p++) {
        p += strcspn(p, in_string ? "\"\\" : "\"");
        if (p >= end)
            break;
        if (*p == '\\')
            p++; /* in a string: the escaped byte */
        else
            in_string = !in_string;
    }
    if (in_string)
        return true;
    static const char *const literals[] = {"true", "false", "null"};
    size_t n = (size_t)(end - at);
    for (size_t i = 0; i < 3; i++)
        if (n < strlen(literals[i]) && !strncmp(at, literals[i], n))
            return true;
    return false;
}

/* How many arrays and objects are open at `at` (strings skipped). */
static int nesting_at(const char *text, const char *at)
{
    int depth = 0;
    bool in_string = false;
    for (const char *p = text; p < at; p++) {
        p += strcspn(p, in_string ? "\"\\" : "\"[]{}");
        if (p >= at)
            break;
        if (in_string) {
            if (*p == '\\' && p + 1 < at)
                p++;
            else if (*p == '"')
                in_string = false;
        } else if (*p == '"') {
            in_string = true;
        } else if (*p == '[' || *p == '{') {
            depth++;
        } else if (*p == ']' || *p == '}') {
            depth--;
        }
    }
    return depth;
}

/* Parses text as one JSON document; NULL with a sentence saying where it
 * stops being JSON, and whether the file simply ends too early. */
static cJSON *parse_json(const char *name, const char *text, size_t len, char *err, size_t size)
{
    size_t blank = strspn(text, " \t\r\n");
    if (blank == len) {
        err_set_buf(err, size, "%s is empty: not a bench result file.", name);
        return NULL;
    }
    if (strlen(text) != len) {
        err_set_buf(err, size, "%s holds a NUL byte: not a JSON bench result file.", name);
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &end, true);
    if (root)
        return root;
    const char *at = end && end >= text && end <= text + len ? end : text + len;
    int line = 1, col = 1;
    for (const char *p = text; p < at; p++) {
        if (*p == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    if (nesting_at(text, at) >= CJSON_NESTING_LIMIT) {
        err_set_buf(err, size,
                    "%s is nested too deep: at line %d, column %d arrays and objects are more "
                    "than %d levels deep, the most bench reads.",
                    name, line, col, CJSON_NESTING_LIMIT);
        return NULL;
    }
    /* A whole value followed by more text, or a value that the file ends in
     * the middle of (cJSON then points at the last byte), or a wrong byte. */
    cJSON *prefix = cJSON_ParseWithOpts(text, NULL, false);
    size_t last = len;
    while (last > 0 && strchr(" \t\r\n", text[last - 1]))
        last--;
    if (prefix)
        err_set_buf(err, size,
                    "%s is not valid JSON: more text follows the value at line %d, column %d.",
                    name, line, col);
    else if (at >= text + last - 1 || unfinished_token(text, at, text + last))
        err_set_buf(err, size,
                    "%s is not valid JSON: it ends at line %d, column %d in the middle of a value "
                    "(a truncated file?).",
                    name, line, col);
    else
        err_set_buf(err, size,
                    "%s is not valid JSON: line %d, column %d is not what JSON allows there.", name,
                    line, col);
    cJSON_Delete(prefix);
    return NULL;
}

/* ---- validation ------------------------------------------------------------ */

static const node *get(const node *o, const char *key)
{
    return node_get(o, key);
}

static bool is_number(const node *n)
{
    return n && (n->kind == NODE_INT || n->kind == NODE_FLOAT);
}

static double number(const node *n)
{
    return !is_number(n) ? NAN : n->kind == NODE_INT ? (double)n->v.i : n->v.f;
}

static int validate(const char *name, const node *root, char *err, size_t size)
{
    const cJSON *schema = result_schema();
    if (!schema)
        return err_set_buf(err, size, "the embedded result schema is broken (a build error).");
    if (root->kind != NODE_MAP)
        return err_set_buf(err, size,
                           "%s is JSON but not a bench result file: it is not an object.", name);
    const node *version = get(root, "schema_version");
    if (is_number(version) && number(version) != 1)
        return err_set_buf(err, size,
                           "%s has schema_version %g; this bench reads version 1 (a newer bench "
                           "wrote it?).",
                           name, number(version));
    diag_list d = {0};
    int rc = 0;
    if (!jschema_validate(schema, root, &d)) {
        /* the diagnostic carries the JSON path of what it is about */
        const char *where = d.count > 0 && d.items[0].path ? d.items[0].path : "the top level";
        const char *msg =
            d.count > 0 ? d.items[0].message : "it does not match schema/result.schema.json";
        rc = err_set_buf(err, size, "%s is not a valid bench result file: at %s: %s%s.", name,
                         where, msg, d.count > 1 ? " (and more)" : "");
    }
    diag_list_free(&d);
    return rc;
}

/* ---- the model ------------------------------------------------------------ */

/* A loaded report and the memory its strings and arrays live in; the report
 * comes first, so results_free finds the rest from it. */
typedef struct loaded_report {
    report r;
    arena mem;
} loaded_report;

static double num(const node *o, const char *key)
{
    return number(get(o, key));
}

/* A number from a file as an integer. The schema says integer but sets no
 * upper bound, and converting a double past an integer type's range is
 * undefined: such a number is held at the range's end (0 when not a number). */
static int64_t to_i64(double v)
{
    if (!isfinite(v))
        return 0;
    if (v >= 9223372036854775808.0)
        return INT64_MAX;
    if (v < -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)v;
}

static uint64_t to_u64(double v)
{
    if (!isfinite(v) || !(v > 0))
        return 0;
    return v >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)v;
}

static int64_t int_of(const node *o, const char *key)
{
    return to_i64(num(o, key));
}

static bool is_true(const node *n)
{
    return n && n->kind == NODE_BOOL && n->v.b;
}

/* A string's text, or NULL when n is not a string. */
static const char *string_of(const node *n)
{
    return n && n->kind == NODE_STRING ? n->text : NULL;
}

/* A string member, or "" for null. */
static const char *str_of(const node *o, const char *key)
{
    const char *s = string_of(get(o, key));
    return s ? s : "";
}

/* A string member into the arena, or NULL for null. */
static const char *dup_or_null(arena *a, const node *o, const char *key)
{
    const char *s = string_of(get(o, key));
    return s ? arena_strdup(a, s) : NULL;
}

static void copy_text(char *buf, size_t size, const node *o, const char *key)
{
    snprintf(buf, size, "%s", str_of(o, key));
}

/* Items of a sequence, keys of a mapping; 0 for anything else. */
static size_t count_of(const node *n)
{
    return n && (n->kind == NODE_SEQ || n->kind == NODE_MAP) ? n->count : 0;
}

/* Item i of sequence n, or NULL (past its end, or packed pairs). */
static const node *item(const node *n, size_t i)
{
    return n && n->kind == NODE_SEQ && n->items && i < n->count ? n->items[i] : NULL;
}

/* A latency in µs as ns: the whole ns it was written from (bench writes
 * round(ns) / 1000 with three decimals) when that reads back as the same
 * µs figure, so num_us_of_ns gives the file's number again; otherwise
 * the plain product. NAN for null. */
static double ns_of(const node *o, const char *key)
{
    double us = num(o, key), ns = round(us * 1000.0);
    return num_us_of_ns(ns) == us ? ns : us * 1000.0;
}

static void environment_from(environment *e, const node *o)
{
    copy_text(e->cpu_model, sizeof e->cpu_model, o, "cpu_model");
    e->cores = (int)int_of(o, "cores");
    e->memory_bytes = (uint64_t)int_of(o, "memory_bytes");
    copy_text(e->os, sizeof e->os, o, "os");
    copy_text(e->kernel, sizeof e->kernel, o, "kernel");
    copy_text(e->clock_source, sizeof e->clock_source, o, "clock_source");
    copy_text(e->affinity, sizeof e->affinity, o, "cpu_affinity");
    copy_text(e->compiler, sizeof e->compiler, o, "compiler");
    copy_text(e->build_type, sizeof e->build_type, o, "build_type");
    copy_text(e->build_flags, sizeof e->build_flags, o, "build_flags");
    copy_text(e->libraries, sizeof e->libraries, o, "libraries");
    copy_text(e->postgres, sizeof e->postgres, o, "postgres");
    copy_text(e->version, sizeof e->version, o, "bench_version");
    copy_text(e->commit, sizeof e->commit, o, "commit");
    for (size_t i = 0; i < 3; i++) {
        e->load_before[i] = number(item(get(o, "load_average_before"), i));
        e->load_after[i] = number(item(get(o, "load_average_after"), i));
    }
    copy_text(e->label, sizeof e->label, o, "label");
    copy_text(e->date, sizeof e->date, o, "date");
}

/* Room for the items of o in the arena; *n is how many. */
static void *items(arena *a, const node *o, size_t size, size_t *n)
{
    *n = count_of(o);
    return arena_alloc(a, (*n ? *n : 1) * size);
}

static void shard_from(shard_info *sh, const node *o)
{
    if (!o || o->kind != NODE_MAP)
        return;
    sh->index = is_number(get(o, "index")) ? int_of(o, "index") : -1;
    sh->count = int_of(o, "count");
    copy_text(sh->host, sizeof sh->host, o, "host");
    sh->start_at = num(o, "start_at");
    sh->started_s = num(o, "started_s");
    sh->lateness_s = num(o, "start_lateness_s");
    sh->skew_s = num(o, "start_skew_s");
}

static void config_from(arena *a, run_config *c, const node *o)
{
    const node *list = get(o, "specs");
    c->specs = items(a, list, sizeof *c->specs, &c->nspecs);
    for (size_t i = 0; i < c->nspecs; i++) {
        c->specs[i].path = arena_strdup(a, str_of(item(list, i), "path"));
        snprintf(c->specs[i].sha256, sizeof c->specs[0].sha256, "%s",
                 str_of(item(list, i), "sha256"));
    }
    c->warmup = int_of(o, "warmup");
    c->iterations = int_of(o, "iterations");
    c->runs = int_of(o, "runs");
    list = get(o, "prefill");
    c->prefill = items(a, list, sizeof *c->prefill, &c->nprefill);
    for (size_t i = 0; i < c->nprefill; i++)
        c->prefill[i] = to_i64(number(item(list, i)));
    list = get(o, "targets");
    c->targets = items(a, list, sizeof *c->targets, &c->ntargets);
    for (size_t i = 0; i < c->ntargets; i++) {
        const char *s = string_of(item(list, i));
        c->targets[i] = arena_strdup(a, s ? s : "");
    }
    c->samples = is_true(get(o, "samples"));
    c->cpu = dup_or_null(a, o, "cpu");
    const node *seed = get(o, "seed");
    c->seed_given = is_number(seed);
    c->seed = c->seed_given ? to_u64(number(seed)) : 0;
    c->duration_s = is_number(get(o, "duration_s")) ? num(o, "duration_s") : 0;
    c->clients = int_of(o, "clients");
    c->threads = int_of(o, "threads");
    c->rate = is_number(get(o, "rate")) ? num(o, "rate") : 0;
    c->store = dup_or_null(a, o, "store");
    c->no_setup = is_true(get(o, "no_setup"));
    shard_from(&c->shard, get(o, "shard"));
}

/* The figures a run and a median share (tenths are not among them). */
static void figures_from(run_figures *f, const node *o)
{
    f->commands = (uint64_t)int_of(o, "commands");
    f->wall_seconds = num(o, "wall_seconds");
    f->throughput_per_s = num(o, "throughput_per_s");
    f->min_ns = ns_of(o, "min_us");
    f->p50_ns = ns_of(o, "p50_us");
    f->p90_ns = ns_of(o, "p90_us");
    f->p95_ns = ns_of(o, "p95_us");
    f->p99_ns = ns_of(o, "p99_us");
    f->p999_ns = ns_of(o, "p999_us");
    f->max_ns = ns_of(o, "max_us");
    f->mean_ns = ns_of(o, "mean_us");
    f->stddev_ns = ns_of(o, "stddev_us");
    f->drift = num(o, "drift");
}

/* Pair i of a histogram's [value, count] pairs, packed or not: NAN for
 * what is not a number. */
static void pair_at(const node *pairs, size_t i, double *v, double *c)
{
    const jschema_pairs *packed = jschema_pairs_of(pairs);
    if (packed) {
        *v = (double)packed->first[i];
        *c = (double)packed->second[i];
        return;
    }
    *v = number(item(item(pairs, i), 0));
    *c = number(item(item(pairs, i), 1));
}

/* The run's histogram from its [value, count] pairs, with the run's exact
 * min and max put back. -1 when out of memory. */
static int histogram_from(hist *h, const node *pairs, const run_figures *f)
{
    if (hist_init(h) < 0)
        return -1;
    size_t n = pairs && pairs->kind == NODE_SEQ ? pairs->count : 0;
    for (size_t i = 0; i < n; i++) {
        double v, c;
        pair_at(pairs, i, &v, &c);
        if (v >= 1 && c >= 1)
            hist_record_n(h, v > (double)HIST_MAX_NS ? HIST_MAX_NS : (uint64_t)v, to_u64(c));
    }
    if (isfinite(f->min_ns) && isfinite(f->max_ns) && f->min_ns >= 1)
        hist_set_extremes(h, to_u64(f->min_ns), to_u64(f->max_ns));
    return 0;
}

/* Packed pairs whose values are all bucket values and counts: the model
 * takes them where they are (the parser put them in the report's arena). */
static bool take_packed(hist_buckets *hb, const jschema_pairs *p)
{
    uint64_t total = 0;
    for (size_t i = 0; i < p->seq.count; i++) {
        if (p->first[i] < 1 || p->second[i] < 0)
            return false;
        total += (uint64_t)p->second[i];
    }
    /* int64_t and uint64_t may alias; every value is positive */
    hb->mid = (uint64_t *)p->first;
    hb->count = (uint64_t *)p->second;
    hb->n = p->seq.count;
    hb->total = total;
    hb->min = hb->mid[0];
    hb->max = hb->mid[hb->n - 1];
    return true;
}

/* A bucket list ([value, count] pairs) into arena memory. */
static void buckets_from(arena *a, hist_buckets *hb, const node *pairs)
{
    const jschema_pairs *packed = jschema_pairs_of(pairs);
    if (packed && take_packed(hb, packed))
        return;
    size_t n = pairs && pairs->kind == NODE_SEQ ? pairs->count : 0;
    hb->mid = arena_alloc(a, (n > 0 ? n : 1) * sizeof *hb->mid);
    hb->count = arena_alloc(a, (n > 0 ? n : 1) * sizeof *hb->count);
    for (size_t i = 0; i < n; i++) {
        double v, c;
        pair_at(pairs, i, &v, &c);
        if (!(v >= 1) || !(c >= 0))
            continue;
        hb->mid[hb->n] = to_u64(v);
        hb->count[hb->n++] = to_u64(c);
        hb->total += to_u64(c);
    }
    hb->min = hb->n ? hb->mid[0] : 0;
    hb->max = hb->n ? hb->mid[hb->n - 1] : 0;
}

static void intervals_from(arena *a, run_result *run, const node *o)
{
    run->start_epoch_s = num(o, "start_epoch_s");
    const node *list = get(o, "intervals");
    run->intervals = items(a, list, sizeof *run->intervals, &run->nintervals);
    for (size_t i = 0; i < run->nintervals; i++) {
        const node *it = item(list, i);
        interval *iv = &run->intervals[i];
        iv->start_ns = to_u64(round(num(it, "start_s") * 1e9));
        iv->length_ns = to_u64(round(num(it, "length_s") * 1e9));
        iv->commands = (uint64_t)int_of(it, "commands");
        iv->p50_ns = ns_of(it, "p50_us");
        iv->p90_ns = ns_of(it, "p90_us");
        iv->p99_ns = ns_of(it, "p99_us");
        iv->max_ns = ns_of(it, "max_us");
        buckets_from(a, &iv->all, get(it, "histogram"));
    }
}

static void open_loop_from(run_result *run, const node *ol)
{
    run->open_loop = ol && ol->kind == NODE_MAP;
    run->offered_rate = num(ol, "offered_rate");
    run->achieved_rate = num(ol, "achieved_rate");
    run->offered = (uint64_t)int_of(ol, "offered");
    run->completed = (uint64_t)int_of(ol, "completed");
    run->late = (uint64_t)int_of(ol, "late");
    run->dropped = (uint64_t)int_of(ol, "dropped");
    run->not_started = (uint64_t)int_of(ol, "not_started");
    run->service_p50_ns = ns_of(ol, "service_p50_us");
    run->service_p99_ns = ns_of(ol, "service_p99_us");
    run->lag_p50_ns = ns_of(ol, "lag_p50_us");
    run->lag_p99_ns = ns_of(ol, "lag_p99_us");
    run->lag_max_ns = ns_of(ol, "lag_max_us");
}

static void clients_from(arena *a, run_result *run, const node *co)
{
    run->fairness = num(co, "fairness");
    run->stop_spread_s = num(co, "stop_spread_s");
    run->threads = (int)int_of(co, "threads");
    const node *list = get(co, "per_client");
    if (!list || list->kind != NODE_SEQ)
        return;
    run->clients = items(a, list, sizeof *run->clients, &run->nclients);
    for (size_t i = 0; i < run->nclients; i++) {
        const node *it = item(list, i);
        client_result *cr = &run->clients[i];
        cr->client = (int)int_of(it, "client");
        cr->commands = (uint64_t)int_of(it, "commands");
        cr->wall_seconds = num(it, "wall_seconds");
        cr->throughput_per_s = num(it, "throughput_per_s");
    }
}

/* The key and value of pair i of mapping o. */
static const node *member(const node *o, size_t i, const char **key)
{
    bool map = o && o->kind == NODE_MAP;
    *key = map ? o->pairs[i].key->text : "";
    return map ? o->pairs[i].value : NULL;
}

static int run_from(arena *a, run_result *run, const node *o)
{
    run->run = (int)int_of(o, "run");
    figures_from(&run->fig, o);
    run->goodput_per_s = num(o, "goodput_per_s");
    for (size_t t = 0; t < STATS_TENTHS; t++) {
        const node *tenth = item(get(o, "tenths"), t);
        run->fig.tenths[t].p50_ns = ns_of(tenth, "p50_us");
        run->fig.tenths[t].p99_ns = ns_of(tenth, "p99_us");
        if (get(tenth, "histogram")) /* a shard's */
            buckets_from(a, &run->tenth_hist[t], get(tenth, "histogram"));
    }
    const node *verbs = get(o, "by_verb");
    run->verbs = items(a, verbs, sizeof *run->verbs, &run->nverbs);
    for (size_t i = 0; i < run->nverbs; i++) {
        const char *name;
        const node *v = member(verbs, i, &name);
        verb_result *vr = &run->verbs[i];
        vr->verb = arena_strdup(a, name);
        vr->count = (uint64_t)int_of(v, "count");
        vr->refused = (uint64_t)int_of(v, "refused");
        vr->refused_counted = (uint64_t)int_of(v, "refused_counted");
        vr->p50_ns = ns_of(v, "p50_us");
        vr->p99_ns = ns_of(v, "p99_us");
        vr->round_trips_per_command = num(v, "round_trips_per_command");
        vr->scan = get(v, "rows_returned") != NULL;
        vr->rows_returned = vr->scan ? (uint64_t)int_of(v, "rows_returned") : 0;
        vr->retries = (uint64_t)int_of(v, "retries");
        vr->failed = (uint64_t)int_of(v, "failed");
        if (get(v, "histogram")) /* a shard's */
            buckets_from(a, &vr->hist, get(v, "histogram"));
    }
    const node *flows = get(o, "by_flow");
    run->flows = items(a, flows, sizeof *run->flows, &run->nflows);
    for (size_t i = 0; i < run->nflows; i++) {
        const char *name;
        const node *f = member(flows, i, &name);
        flow_result *fr = &run->flows[i];
        fr->flow = arena_strdup(a, name);
        fr->weight = int_of(f, "weight");
        fr->requested_share = num(f, "requested_share");
        fr->cycles = (uint64_t)int_of(f, "cycles");
        fr->achieved_share = num(f, "achieved_share");
        fr->skipped = (uint64_t)int_of(f, "skipped");
        fr->refused_counted = (uint64_t)int_of(f, "refused_counted");
        fr->failed = (uint64_t)int_of(f, "failed");
    }
    intervals_from(a, run, o);
    open_loop_from(run, get(o, "open_loop"));
    clients_from(a, run, get(o, "clients"));
    run->lock_waits = (uint64_t)int_of(o, "lock_waits");
    run->page_faults = (uint64_t)int_of(o, "page_faults");
    run->roundtrip_floor_p50_ns = ns_of(o, "roundtrip_floor_p50_us");
    run->roundtrip_floor_before_p50_ns = ns_of(o, "roundtrip_floor_before_p50_us");
    run->round_trips_per_command = num(o, "round_trips_per_command");
    run->unstable = is_true(get(o, "unstable"));
    copy_text(run->unstable_reason, sizeof run->unstable_reason, o, "unstable_reason");
    return histogram_from(&run->all, get(o, "histogram"), &run->fig);
}

/* A shard's tallies: records per type, then events per name. */
static void tallies_from(arena *a, target_result *t, const node *o)
{
    if (!o || o->kind != NODE_MAP)
        return;
    const node *recs = get(o, "records"), *events = get(o, "events");
    size_t n = count_of(recs) + count_of(events);
    t->tallies = arena_alloc(a, (n ? n : 1) * sizeof *t->tallies);
    t->tallies_exact = is_true(get(o, "exact"));
    for (int ev = 0; ev < 2; ev++) {
        const node *list = ev ? events : recs;
        if (!list || list->kind != NODE_MAP)
            continue;
        for (size_t i = 0; i < list->count; i++) {
            const char *name;
            const node *v = member(list, i, &name);
            t->tallies[t->ntallies++] =
                (tally){.name = arena_strdup(a, name), .event = ev, .n = to_i64(number(v))};
        }
    }
}

static verify_status verify_of(const char *s)
{
    return !strcmp(s, "pass") ? VERIFY_PASS : !strcmp(s, "fail") ? VERIFY_FAIL : VERIFY_NA;
}

static int result_from(arena *a, target_result *t, const node *o)
{
    t->domain = arena_strdup(a, str_of(o, "domain"));
    t->target = arena_strdup(a, str_of(o, "target"));
    t->label = arena_strdup(a, str_of(o, "label"));
    const node *sweep = get(o, "sweep");
    if (sweep && sweep->kind == NODE_MAP) {
        t->sweep_of = arena_strdup(a, str_of(sweep, "of"));
        t->sweep_clients = int_of(sweep, "clients");
        t->sweep_rate = is_number(get(sweep, "rate")) ? num(sweep, "rate") : 0;
    }
    t->prefill = int_of(o, "prefill");
    t->durability = dup_or_null(a, o, "durability");
    const node *runs = get(o, "runs");
    size_t nruns;
    run_result *v = items(a, runs, sizeof *v, &nruns);
    t->runs = v;
    for (size_t i = 0; i < nruns; i++) {
        if (run_from(a, &v[t->nruns], item(runs, i)) < 0)
            return -1;
        t->nruns++; /* counted once its histogram is there, for results_free */
    }
    /* the file's medians; the tenths' medians, which it does not hold, as
     * the runner computes them */
    run_figures *figs = arena_alloc(a, (t->nruns ? t->nruns : 1) * sizeof *figs);
    for (size_t i = 0; i < t->nruns; i++)
        figs[i] = v[i].fig;
    stats_figures_median(figs, t->nruns, &t->median);
    figures_from(&t->median, get(o, "median"));
    t->throughput_lo = num(get(o, "throughput_range"), "min");
    t->throughput_hi = num(get(o, "throughput_range"), "max");
    t->verify = verify_of(str_of(o, "verify"));
    copy_text(t->verify_detail, sizeof t->verify_detail, o, "verify_detail");
    t->verify_level = dup_or_null(a, o, "verify_level");
    t->failed = is_true(get(o, "failed"));
    copy_text(t->reason, sizeof t->reason, o, "reason");
    t->failed_run = (int)int_of(o, "failed_run");
    t->unstable = is_true(get(o, "unstable"));
    copy_text(t->unstable_reason, sizeof t->unstable_reason, o, "unstable_reason");
    copy_text(t->placement, sizeof t->placement, o, "placement");
    tallies_from(a, t, get(o, "tallies"));
    return 0;
}

static label_reason *label_reasons_from(arena *a, const node *o, size_t *n)
{
    label_reason *v = items(a, o, sizeof *v, n);
    for (size_t i = 0; i < *n; i++) {
        copy_text(v[i].label, sizeof v[i].label, item(o, i), "label");
        copy_text(v[i].reason, sizeof v[i].reason, item(o, i), "reason");
    }
    return v;
}

void results_free(report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nresults; i++)
        for (size_t k = 0; k < r->results[i].nruns; k++)
            hist_free(&r->results[i].runs[k].all);
    loaded_report *l = (loaded_report *)r;
    arena_free(&l->mem);
    free(l);
}

/* Fills l's report from a validated document; -1 when out of memory. */
static int report_from(loaded_report *l, const node *root)
{
    report *r = &l->r;
    arena *a = &l->mem;
    environment_from(&r->env, get(root, "environment"));
    config_from(a, &r->config, get(root, "config"));
    const node *results = get(root, "results");
    size_t n;
    r->results = items(a, results, sizeof *r->results, &n);
    for (size_t i = 0; i < n; i++) {
        int rc = result_from(a, &r->results[r->nresults], item(results, i));
        r->nresults++; /* its runs' histograms are freed either way */
        if (rc < 0)
            return -1;
    }
    r->harness_floor_p50_ns = ns_of(root, "harness_floor_p50_us");
    r->harness_cost_ns_per_command = num(root, "harness_cost_ns_per_command");
    r->skipped = label_reasons_from(a, get(root, "skipped"), &r->nskipped);
    r->failed = label_reasons_from(a, get(root, "failed"), &r->nfailed);
    r->interrupted = is_true(get(root, "interrupted"));
    return 0;
}

/* ---- loading --------------------------------------------------------------- */

/* Validates the document's tree (in arena tree, freed here) and fills l's
 * report from it: *out, or -1 with l freed. */
static int finish(const char *name, const node *root, arena *tree, loaded_report *l, report **out,
                  char *err, size_t size)
{
    int rc = root ? validate(name, root, err, size) : -1;
    if (rc == 0 && report_from(l, root) < 0)
        rc = err_set_buf(err, size, "cannot load %s: out of memory.", name);
    arena_free(tree);
    if (rc < 0) {
        results_free(&l->r);
        return -1;
    }
    *out = &l->r;
    return 0;
}

/* The tree of a text that json_nodes took not: cJSON parses it (and says
 * where it is not JSON), and its tree is copied into nodes and freed. */
static node *tree_by_cjson(const char *name, const char *text, size_t len, arena *tree, char *err,
                           size_t size)
{
    cJSON *json = parse_json(name, text, len, err, size);
    if (!json)
        return NULL;
    node *root = jschema_node_from_cjson(tree, json, name);
    cJSON_Delete(json);
    return root;
}

static loaded_report *new_report(const char *name, char *err, size_t size)
{
    loaded_report *l = calloc(1, sizeof *l);
    if (!l)
        err_set_buf(err, size, "cannot load %s: out of memory.", name);
    return l;
}

/* A regular file is read in pieces straight into nodes (*tried); NULL for
 * anything else, or what json_nodes does not take. */
static node *tree_of_file(const char *path, arena *tree, arena *keep, bool *tried)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct stat st;
    node *root = NULL;
    *tried = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
    if (*tried)
        root = json_nodes_read(tree, keep, path, f, RESULT_FILE_MAX);
    fclose(f);
    return root;
}

int results_load(const char *path, report **out, char *err, size_t size)
{
    *out = NULL;
    if (err && size)
        err[0] = '\0';
    loaded_report *l = new_report(path, err, size);
    if (!l)
        return -1;
    arena tree = {0};
    bool tried = false;
    node *root = tree_of_file(path, &tree, &l->mem, &tried);
    if (!root) {
        /* the whole text, for cJSON and its word on what is wrong (a pipe's
           text gets json_nodes first) */
        arena_free(&tree);
        arena_free(&l->mem);
        size_t len = 0;
        char *text = read_all(path, &len, err, size);
        if (text) {
            root = tried ? NULL : json_nodes_parse(&tree, &l->mem, path, text, len);
            if (!root) {
                arena_free(&tree);
                arena_free(&l->mem);
                root = tree_by_cjson(path, text, len, &tree, err, size);
            }
        }
        free(text);
    }
    return finish(path, root, &tree, l, out, err, size);
}

int results_load_text(const char *name, const char *text, size_t len, report **out, char *err,
                      size_t size)
{
    *out = NULL;
    if (err && size)
        err[0] = '\0';
    loaded_report *l = new_report(name, err, size);
    if (!l)
        return -1;
    arena tree = {0};
    node *root = json_nodes_parse(&tree, &l->mem, name, text, len);
    if (!root) {
        arena_free(&tree);
        arena_free(&l->mem);
        root = tree_by_cjson(name, text, len, &tree, err, size);
    }
    return finish(name, root, &tree, l, out, err, size);
}

int results_from_json(const char *name, const struct cJSON *root, report **out, char *err,
                      size_t size)
{
    *out = NULL;
    loaded_report *l = new_report(name, err, size);
    if (!l)
        return -1;
    arena tree = {0};
    return finish(name, jschema_node_from_cjson(&tree, root, name), &tree, l, out, err, size);
}

/* ---- names of the model's values --------------------------------------- */

void results_target_cell(const target_result *t, char *buf, size_t n)
{
    if (n == 0)
        return;
    int len = snprintf(buf, n, "%s", t->label ? t->label : "");
    if (t->prefill > 0 && len >= 0 && (size_t)len < n)
        len += snprintf(buf + len, n - (size_t)len, "@%" PRId64, t->prefill);
    if (t->durability && len >= 0 && (size_t)len < n)
        len += snprintf(buf + len, n - (size_t)len, " (%s)", t->durability);
    if (t->nruns && t->runs[0].open_loop && len >= 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, " (open loop)");
}

const char *results_verify_name(verify_status v)
{
    switch (v) {
    case VERIFY_PASS: return "pass";
    case VERIFY_FAIL: return "fail";
    case VERIFY_NA: break;
    }
    return "n/a";
}

const char *results_status_name(const target_result *t)
{
    return t->failed ? "failed" : t->unstable ? "unstable" : "ok";
}

const char *results_run_status_name(const run_result *run)
{
    return run->unstable ? "unstable" : "ok";
}

const char *results_verify_level_text(const char *level)
{
    static const char *const texts[][2] = {
        {"counts", "counts"},
        {"sample", "counts and a sample of records"},
        {"state", "every record"},
        {"full", "every record and the counts"},
    };
    for (size_t i = 0; level && i < sizeof texts / sizeof *texts; i++)
        if (!strcmp(level, texts[i][0]))
            return texts[i][1];
    return NULL;
}
