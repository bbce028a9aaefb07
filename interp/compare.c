/* compare.c: loading result files (parse, validate against the embedded
 * result schema, extract metrics) and comparing two of them. */
#include "compare.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "jsonschema.h"
#include "report.h"

extern const char result_schema_json[];
extern const size_t result_schema_json_len;

const char *const compare_fields[] = {"throughput_per_s", "p50_us",  "p90_us", "p95_us", "p99_us",
                                      "p999_us",          "mean_us", "max_us", "drift",  NULL};

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
        if (schema_root)
            atexit(free_schema);
    }
    return schema_root;
}

static int fail(char *err, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t size, const char *fmt, ...)
{
    if (err && size > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, size, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Appends a sentence to a string list; -1 when out of memory. */
static int strings_add(char ***v, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int strings_add(char ***v, size_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = diag_vformat(fmt, ap);
    va_end(ap);
    char **grown = s ? realloc(*v, (*n + 1) * sizeof **v) : NULL;
    if (!grown) {
        free(s);
        return -1;
    }
    grown[(*n)++] = s;
    *v = grown;
    return 0;
}

/* ---- reading ------------------------------------------------------------ */

/* Reads the whole file; NULL with a sentence in err. */
static char *read_all(const char *path, size_t *len, char *err, size_t size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fail(err, size, "cannot read %s: %s.", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (ferror(f)) {
            fail(err, size, "cannot read %s: %s.", path, strerror(errno ? errno : EIO));
            free(buf);
            buf = NULL;
            break;
        }
        if (feof(f))
            break;
        if (cap >= RESULT_FILE_MAX) {
            fail(err, size, "%s is larger than 1 GiB: not a bench result file.", path);
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
            fail(err, size, "cannot read %s: out of memory.", path);
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
    bool in_string = false;
    for (const char *p = text; p < end; p++) {
        if (in_string && *p == '\\')
            p++;
        else if (*p == '"')
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

/* Parses text as one JSON document; NULL with a sentence saying where it
 * stops being JSON, and whether the file simply ends too early. */
static cJSON *parse_json(const char *name, const char *text, size_t len, char *err, size_t size)
{
    size_t blank = strspn(text, " \t\r\n");
    if (blank == len) {
        fail(err, size, "%s is empty: not a bench result file.", name);
        return NULL;
    }
    if (strlen(text) != len) {
        fail(err, size, "%s holds a NUL byte: not a JSON bench result file.", name);
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
    /* A whole value followed by more text, or a value that the file ends in
     * the middle of (cJSON then points at the last byte), or a wrong byte. */
    cJSON *prefix = cJSON_ParseWithOpts(text, NULL, false);
    size_t last = len;
    while (last > 0 && strchr(" \t\r\n", text[last - 1]))
        last--;
    if (prefix)
        fail(err, size, "%s is not valid JSON: more text follows the value at line %d, column %d.",
             name, line, col);
    else if (at >= text + last - 1 || unfinished_token(text, at, text + last))
        fail(err, size,
             "%s is not valid JSON: it ends at line %d, column %d in the middle of a value "
             "(a truncated file?).",
             name, line, col);
    else
        fail(err, size, "%s is not valid JSON: line %d, column %d is not what JSON allows there.",
             name, line, col);
    cJSON_Delete(prefix);
    return NULL;
}

/* ---- validation with JSON paths ----------------------------------------- */

/* The node tree made from cJSON has no positions, so each node gets a
 * number in its line (and column 1), and this table turns the number a
 * diagnostic carries back into the node's JSON path. */
typedef struct path_entry {
    int parent;      /* number of the parent, 0 for the document */
    const char *key; /* the member name, or NULL for an array item */
    size_t index;    /* the array index */
} path_entry;

typedef struct path_table {
    path_entry *v;
    size_t n, cap;
    bool oom;
} path_table;

static int path_add(path_table *t, int parent, const char *key, size_t index)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        path_entry *grown = realloc(t->v, cap * sizeof *grown);
        if (!grown) {
            t->oom = true;
            return 0;
        }
        t->v = grown;
        t->cap = cap;
    }
    t->v[t->n] = (path_entry){parent, key, index};
    return (int)++t->n; /* numbers start at 1 */
}

static void number_nodes(path_table *t, node *n, int parent, const char *key, size_t index)
{
    int id = path_add(t, parent, key, index);
    n->line = id;
    n->col = 1;
    for (size_t i = 0; n->kind == NODE_MAP && i < n->count; i++) {
        node_pair *p = &n->pairs[i];
        p->key->line = id; /* a problem with a key is reported at its object */
        p->key->col = 1;
        number_nodes(t, p->value, id, p->key->text, 0);
    }
    for (size_t i = 0; n->kind == NODE_SEQ && i < n->count; i++)
        number_nodes(t, n->items[i], id, NULL, i);
}

/* Appends s to the string in buf[size], cutting it short if it must. */
static void append_text(char *buf, size_t size, const char *s)
{
    size_t len = strlen(buf), n = strlen(s);
    if (len + 1 >= size)
        return;
    if (n > size - len - 1)
        n = size - len - 1;
    memcpy(buf + len, s, n);
    buf[len + n] = '\0';
}

/* Writes the JSON path of node number id ("results[0].median.p50_us"), ""
 * for the document itself. */
static void build_path(const path_table *t, int id, char *buf, size_t size)
{
    buf[0] = '\0';
    if (id <= 1 || (size_t)id > t->n)
        return;
    const path_entry *e = &t->v[id - 1];
    build_path(t, e->parent, buf, size);
    if (e->key) {
        if (*buf)
            append_text(buf, size, ".");
        append_text(buf, size, e->key);
    } else {
        char index[32];
        snprintf(index, sizeof index, "[%zu]", e->index);
        append_text(buf, size, index);
    }
}

static void path_of(const path_table *t, int id, char *buf, size_t size)
{
    build_path(t, id, buf, size);
    if (!*buf)
        snprintf(buf, size, "the top level");
}

static int validate(const char *name, const cJSON *root, char *err, size_t size)
{
    const cJSON *schema = result_schema();
    if (!schema)
        return fail(err, size, "the embedded result schema is broken (a build error).");
    if (!cJSON_IsObject(root))
        return fail(err, size, "%s is JSON but not a bench result file: it is not an object.",
                    name);
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(root, "schema_version");
    if (cJSON_IsNumber(version) && version->valuedouble != 1)
        return fail(err, size,
                    "%s has schema_version %g; this bench reads version 1 (a newer bench "
                    "wrote it?).",
                    name, version->valuedouble);
    arena a = {0};
    diag_list d = {0};
    path_table t = {0};
    node *instance = jschema_node_from_cjson(&a, root, name);
    number_nodes(&t, instance, 0, NULL, 0);
    int rc = 0;
    if (t.oom) {
        rc = fail(err, size, "cannot check %s: out of memory.", name);
    } else if (!jschema_validate(schema, instance, &d)) {
        char where[512] = "the top level";
        const char *msg = "it does not match schema/result.schema.json";
        if (d.count > 0) {
            path_of(&t, d.items[0].line, where, sizeof where);
            msg = d.items[0].message;
        }
        rc = fail(err, size, "%s is not a valid bench result file: at %s: %s%s.", name, where, msg,
                  d.count > 1 ? " (and more)" : "");
    }
    free(t.v);
    diag_list_free(&d);
    arena_free(&a);
    return rc;
}

/* ---- metrics ------------------------------------------------------------ */

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static double number_or_nan(const cJSON *v)
{
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

const metric *result_file_metric(const result_file *f, const char *name)
{
    for (size_t i = 0; i < f->nmetrics; i++)
        if (!strcmp(f->metrics[i].name, name))
            return &f->metrics[i];
    return NULL;
}

/* The lowest and highest of field across the result's runs. */
static void run_range(const cJSON *result, const char *field, double *lo, double *hi)
{
    *lo = *hi = NAN;
    const cJSON *run;
    cJSON_ArrayForEach(run, get(result, "runs"))
    {
        double v = number_or_nan(get(run, field));
        if (isnan(v))
            continue;
        if (isnan(*lo) || v < *lo)
            *lo = v;
        if (isnan(*hi) || v > *hi)
            *hi = v;
    }
}

static int add_metric(result_file *f, size_t *cap, const cJSON *result, const char *prefix,
                      const char *field)
{
    double value = number_or_nan(get(get(result, "median"), field));
    if (isnan(value))
        return 0; /* a figure that does not exist: no metric */
    bool throughput = !strcmp(field, "throughput_per_s");
    metric m = {.value = value, .better = throughput ? METRIC_HIGHER_BETTER : METRIC_LOWER_BETTER};
    if (throughput) {
        const cJSON *range = get(result, "throughput_range");
        m.lo = number_or_nan(get(range, "min"));
        m.hi = number_or_nan(get(range, "max"));
    } else {
        run_range(result, field, &m.lo, &m.hi);
    }
    size_t len = strlen(prefix) + strlen(field) + 2;
    m.name = malloc(len);
    if (!m.name)
        return -1;
    snprintf(m.name, len, "%s.%s", prefix, field);
    m.field = m.name + strlen(prefix) + 1;
    if (result_file_metric(f, m.name)) {
        int rc = strings_add(&f->notes, &f->nnotes,
                             "%s names %s twice (two specs with one domain?); the first is used",
                             f->path, m.name);
        free(m.name);
        return rc;
    }
    if (f->nmetrics == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        metric *grown = realloc(f->metrics, ncap * sizeof *grown);
        if (!grown) {
            free(m.name);
            return -1;
        }
        f->metrics = grown;
        *cap = ncap;
    }
    f->metrics[f->nmetrics++] = m;
    return 0;
}

static int extract(result_file *f)
{
    size_t cap = 0;
    const cJSON *result;
    cJSON_ArrayForEach(result, get(f->root, "results"))
    {
        const char *domain = cJSON_GetStringValue(get(result, "domain"));
        const char *label = cJSON_GetStringValue(get(result, "label"));
        double prefill = number_or_nan(get(result, "prefill"));
        char prefix[600];
        if (prefill > 0)
            snprintf(prefix, sizeof prefix, "%s.%s@%.0f", domain, label, prefill);
        else
            snprintf(prefix, sizeof prefix, "%s.%s", domain, label);
        if (cJSON_IsTrue(get(result, "failed"))) {
            const char *why = cJSON_GetStringValue(get(result, "reason"));
            if (strings_add(&f->notes, &f->nnotes, "%s: %s failed, so it has no metrics: %s",
                            f->path, prefix, why ? why : "no reason given") < 0)
                return -1;
            continue;
        }
        for (size_t i = 0; compare_fields[i]; i++)
            if (add_metric(f, &cap, result, prefix, compare_fields[i]) < 0)
                return -1;
    }
    const cJSON *s;
    cJSON_ArrayForEach(s, get(f->root, "skipped"))
    {
        if (strings_add(&f->notes, &f->nnotes, "%s: %s was skipped: %s", f->path,
                        cJSON_GetStringValue(get(s, "label")),
                        cJSON_GetStringValue(get(s, "reason"))) < 0)
            return -1;
    }
    if (cJSON_IsTrue(get(f->root, "interrupted")) &&
        strings_add(&f->notes, &f->nnotes,
                    "%s: the run was interrupted; only the runs that finished are in it",
                    f->path) < 0)
        return -1;
    return 0;
}

void result_file_free(result_file *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->nmetrics; i++)
        free(f->metrics[i].name);
    for (size_t i = 0; i < f->nnotes; i++)
        free(f->notes[i]);
    free(f->metrics);
    free(f->notes);
    cJSON_Delete(f->root);
    free(f->path);
    free(f);
}

/* Takes root (freed on failure). */
static int finish_load(const char *name, cJSON *root, result_file **out, char *err, size_t size)
{
    *out = NULL;
    if (validate(name, root, err, size) < 0) {
        cJSON_Delete(root);
        return -1;
    }
    result_file *f = calloc(1, sizeof *f);
    if (f) {
        f->root = root;
        f->path = xstrdup(name);
    } else {
        cJSON_Delete(root);
    }
    if (!f || !f->path || extract(f) < 0) {
        result_file_free(f);
        return fail(err, size, "cannot load %s: out of memory.", name);
    }
    *out = f;
    return 0;
}

int result_file_load(const char *path, result_file **out, char *err, size_t size)
{
    *out = NULL;
    if (err && size)
        err[0] = '\0';
    size_t len = 0;
    char *text = read_all(path, &len, err, size);
    if (!text)
        return -1;
    cJSON *root = parse_json(path, text, len, err, size);
    free(text);
    if (!root)
        return -1;
    return finish_load(path, root, out, err, size);
}

int result_file_from_json(const char *name, const cJSON *root, result_file **out, char *err,
                          size_t size)
{
    *out = NULL;
    cJSON *copy = cJSON_Duplicate(root, true);
    if (!copy)
        return fail(err, size, "cannot load %s: out of memory.", name);
    return finish_load(name, copy, out, err, size);
}

/* ---- comparing ---------------------------------------------------------- */

const char *verdict_name(verdict v)
{
    switch (v) {
    case VERDICT_BETTER: return "better";
    case VERDICT_WORSE: return "worse";
    case VERDICT_NOISE: return "within noise";
    case VERDICT_ONLY_BASE: return "only in base";
    case VERDICT_ONLY_CURRENT: return "only in current";
    }
    return "?";
}

static bool ranges_overlap(const metric *a, const metric *b)
{
    if (isnan(a->lo) || isnan(a->hi) || isnan(b->lo) || isnan(b->hi))
        return false;
    return a->lo <= b->hi && b->lo <= a->hi;
}

static comparison compare_one(const metric *base, const metric *cur)
{
    comparison c = {
        .name = base ? base->name : cur->name, .base = base, .cur = cur, .change_pct = NAN};
    if (!base || !cur) {
        c.v = base ? VERDICT_ONLY_BASE : VERDICT_ONLY_CURRENT;
        return c;
    }
    double b = base->value, x = cur->value;
    if (b != 0)
        c.change_pct = (x - b) / fabs(b) * 100.0;
    bool higher = base->better == METRIC_HIGHER_BETTER;
    bool worse = higher ? x < b : x > b;
    if (worse)
        c.worse_pct = isnan(c.change_pct) ? INFINITY : fabs(c.change_pct);
    c.overlap = ranges_overlap(base, cur);
    if (x == b || c.overlap)
        c.v = VERDICT_NOISE;
    else
        c.v = worse ? VERDICT_WORSE : VERDICT_BETTER;
    return c;
}

int compare_results(const result_file *base, const result_file *cur, comparison **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t total = base->nmetrics + cur->nmetrics;
    comparison *v = calloc(total ? total : 1, sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < base->nmetrics; i++)
        v[(*n)++] = compare_one(&base->metrics[i], result_file_metric(cur, base->metrics[i].name));
    for (size_t i = 0; i < cur->nmetrics; i++)
        if (!result_file_metric(base, cur->metrics[i].name))
            v[(*n)++] = compare_one(NULL, &cur->metrics[i]);
    *out = v;
    return 0;
}

bool gate_fails(const comparison *c, double threshold_pct)
{
    return !c->base || !c->cur || c->worse_pct > threshold_pct;
}

bool metric_matches(const char *pattern, const char *name)
{
    if (!strpbrk(pattern, "*?["))
        return !strcmp(pattern, name);
    return fnmatch(pattern, name, 0) == 0;
}

void metric_format(const metric *m, char *buf, size_t n)
{
    if (!m)
        snprintf(buf, n, "missing");
    else if (m->better == METRIC_HIGHER_BETTER)
        report_fmt_throughput(m->value, buf, n);
    else if (!strcmp(m->field, "drift"))
        report_fmt_drift(m->value, buf, n);
    else
        report_fmt_us(m->value * 1000.0, buf, n);
}

/* ---- warnings ----------------------------------------------------------- */

static const char *env_str(const result_file *f, const char *key)
{
    const char *s = cJSON_GetStringValue(get(get(f->root, "environment"), key));
    return s ? s : "";
}

static double env_num(const result_file *f, const char *key)
{
    return number_or_nan(get(get(f->root, "environment"), key));
}

/* The spec of that path or SHA-256 in f's config, or NULL. */
static const cJSON *find_spec(const result_file *f, const char *key, const char *value)
{
    const cJSON *s;
    cJSON_ArrayForEach(s, get(get(f->root, "config"), "specs"))
    {
        const char *v = cJSON_GetStringValue(get(s, key));
        if (v && !strcmp(v, value))
            return s;
    }
    return NULL;
}

static int spec_warnings(const result_file *base, const result_file *cur, char ***out, size_t *n)
{
    const cJSON *s;
    cJSON_ArrayForEach(s, get(get(base->root, "config"), "specs"))
    {
        const char *path = cJSON_GetStringValue(get(s, "path"));
        const char *sha = cJSON_GetStringValue(get(s, "sha256"));
        if (find_spec(cur, "sha256", sha))
            continue;
        const cJSON *same = find_spec(cur, "path", path);
        int rc =
            same ? strings_add(out, n,
                               "the spec %s differs between the files (SHA-256 %.12s in "
                               "base, %.12s in current): the workloads are not the same",
                               path, sha, cJSON_GetStringValue(get(same, "sha256")))
                 : strings_add(out, n, "the spec %s (SHA-256 %.12s) is in base only", path, sha);
        if (rc < 0)
            return -1;
    }
    cJSON_ArrayForEach(s, get(get(cur->root, "config"), "specs"))
    {
        const char *path = cJSON_GetStringValue(get(s, "path"));
        const char *sha = cJSON_GetStringValue(get(s, "sha256"));
        if (!find_spec(base, "sha256", sha) && !find_spec(base, "path", path) &&
            strings_add(out, n, "the spec %s (SHA-256 %.12s) is in current only", path, sha) < 0)
            return -1;
    }
    return 0;
}

static void append(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void append(char *buf, size_t size, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
}

int compare_warnings(const result_file *base, const result_file *cur, char ***out)
{
    *out = NULL;
    size_t n = 0;
    if (spec_warnings(base, cur, out, &n) < 0)
        goto oom;
    char diff[2048] = "";
    const char *sep = "";
    if (strcmp(env_str(base, "cpu_model"), env_str(cur, "cpu_model"))) {
        append(diff, sizeof diff, "cpu_model '%s' in base, '%s' in current",
               env_str(base, "cpu_model"), env_str(cur, "cpu_model"));
        sep = "; ";
    }
    if (env_num(base, "cores") != env_num(cur, "cores")) {
        append(diff, sizeof diff, "%scores %.0f in base, %.0f in current", sep,
               env_num(base, "cores"), env_num(cur, "cores"));
        sep = "; ";
    }
    /* Memory within 1%: the same machine reports a slightly different total
     * after a kernel update. */
    double mb = env_num(base, "memory_bytes"), mc = env_num(cur, "memory_bytes");
    if (fabs(mb - mc) > 0.01 * fmax(mb, mc))
        append(diff, sizeof diff, "%smemory_bytes %.0f in base, %.0f in current", sep, mb, mc);
    if (*diff && strings_add(out, &n, "the machines differ: %s", diff) < 0)
        goto oom;
    diff[0] = '\0';
    sep = "";
    if (strcmp(env_str(base, "build_type"), env_str(cur, "build_type"))) {
        append(diff, sizeof diff, "build_type %s in base, %s in current",
               env_str(base, "build_type"), env_str(cur, "build_type"));
        sep = "; ";
    }
    if (strcmp(env_str(base, "build_flags"), env_str(cur, "build_flags")))
        append(diff, sizeof diff, "%sbuild_flags '%s' in base, '%s' in current", sep,
               env_str(base, "build_flags"), env_str(cur, "build_flags"));
    if (*diff && strings_add(out, &n, "the builds differ: %s", diff) < 0)
        goto oom;
    return (int)n;
oom:
    for (size_t i = 0; i < n; i++)
        free((*out)[i]);
    free(*out);
    *out = NULL;
    return -1;
}
