#include "jsonschema.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcre2.h>
#include <pthread.h>

#include "alloc.h"
#include "utf8.h"

/* Schema objects entered at once. The loader caps documents at 64 levels and
 * a level takes a few schema objects, so deeper means a $ref that loops
 * without consuming the instance. */
enum { DEPTH_LIMIT = 512 };
/* Code points of a string value shown in a message before "...". */
enum { SHOWN_CHARS = 60 };
/* $ref hops followed when looking for a branch's type. */
enum { REF_HOPS = 16 };

/* ---- failures ------------------------------------------------------------ */

/* One failure, kept until it is known to be reported: anyOf and oneOf collect
 * their branches' failures before choosing which ones to show. */
typedef struct jerr {
    const node *at;   /* identity only, for de-duplication: may be gone later */
    const char *file; /* lent by the instance */
    int line, col;
    char *msg;  /* owned */
    char *path; /* owned: node_path of at, taken while at exists */
} jerr;

typedef struct jerrs {
    jerr *v;
    size_t n, cap;
    size_t *set; /* open addressing over v: index + 1, 0 when free; a power of two */
    size_t set_cap;
} jerrs;

static void errs_free(jerrs *e)
{
    for (size_t i = 0; i < e->n; i++) {
        free(e->v[i].msg);
        free(e->v[i].path);
    }
    free(e->v);
    free(e->set);
    memset(e, 0, sizeof *e);
}

static size_t jerr_hash(const jerr *x)
{
    uint64_t h = 0xcbf29ce484222325u ^ (uint64_t)(uintptr_t)x->at;
    h = (h ^ (uint64_t)x->line) * 0x100000001b3u;
    h = (h ^ (uint64_t)x->col) * 0x100000001b3u;
    for (const char *p = x->msg; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3u;
    for (const char *p = x->path ? x->path : ""; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3u;
    return (size_t)(h ^ (h >> 29));
}

/* The same failure: the same node and message. A packed pair's nodes are
 * views that the next pair reuses (item_at), so the path tells them apart;
 * an ordinary node always has the same path. */
static bool jerr_same(const jerr *a, const jerr *b)
{
    return a->at == b->at && a->line == b->line && a->col == b->col && !strcmp(a->msg, b->msg) &&
           (a->path && b->path ? !strcmp(a->path, b->path) : a->path == b->path);
}

/* The slot of e->set where x is, or the free slot where it would go. */
static size_t errs_slot(const jerrs *e, const jerr *x)
{
    size_t h = jerr_hash(x) & (e->set_cap - 1);
    while (e->set[h] && !jerr_same(&e->v[e->set[h] - 1], x))
        h = (h + 1) & (e->set_cap - 1);
    return h;
}

/* Keeps the set at most half full; a hash set so that many failures stay
 * linear to de-duplicate. */
static void errs_rehash(jerrs *e)
{
    if (2 * (e->n + 1) <= e->set_cap)
        return;
    free(e->set);
    e->set_cap = e->set_cap ? e->set_cap * 2 : 16;
    e->set = xcalloc(e->set_cap, sizeof *e->set);
    for (size_t i = 0; i < e->n; i++)
        e->set[errs_slot(e, &e->v[i])] = i + 1;
}

/* Takes x's message; drops x when the same failure is already there. */
static void errs_push(jerrs *e, jerr x)
{
    errs_rehash(e);
    size_t slot = errs_slot(e, &x);
    if (e->set[slot]) {
        free(x.msg);
        free(x.path);
        return;
    }
    if (e->n == e->cap) {
        e->cap = e->cap ? e->cap * 2 : 8;
        e->v = xrealloc(e->v, e->cap * sizeof *e->v);
    }
    e->v[e->n++] = x;
    e->set[slot] = e->n;
}

/* Moves every failure of src to dst; src is left empty. */
static void errs_move(jerrs *dst, jerrs *src)
{
    for (size_t i = 0; i < src->n; i++)
        errs_push(dst, src->v[i]);
    free(src->v);
    free(src->set);
    memset(src, 0, sizeof *src);
}

/* ---- context ------------------------------------------------------------- */

typedef struct pattern_entry {
    const cJSON *owner; /* the schema node the pattern text belongs to */
    pcre2_code *code;   /* NULL when it did not compile */
    char error[120];    /* why it did not compile */
    struct pattern_entry *next;
} pattern_entry;

typedef struct jctx {
    const cJSON *root;
    jerrs *errs; /* where failures go; NULL when only the verdict matters */
    int depth;
    bool too_deep;           /* sticky: the depth limit was hit, the verdict is "invalid" */
    node deep_at;            /* a copy of the node where it was hit */
    char *deep_path;         /* its path, taken then (it may be a pair's view) */
    pattern_entry *patterns; /* compiled once per schema node */
    pcre2_match_data *match;
    struct kw_entry **kw; /* per schema object, its keywords found once (open addressing) */
    size_t kw_cap, kw_n;
    const struct kw_entry *cur; /* the schema object whose keyword is being checked */
} jctx;

/* Records a failure at node at when failures are wanted; always returns false
 * so that checks can end with `return ok || fail(...)`. */
static bool fail(jctx *c, const node *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(jctx *c, const node *at, const char *fmt, ...)
{
    if (!c->errs)
        return false;
    va_list ap;
    va_start(ap, fmt);
    char *msg = diag_vformat(fmt, ap);
    va_end(ap);
    errs_push(c->errs, (jerr){at, at->file, at->line, at->col, msg, node_path(at)});
    return false;
}

static bool validate(jctx *c, const cJSON *s, const node *n);

/* Whether n is valid against s, without recording anything. */
static bool matches(jctx *c, const cJSON *s, const node *n)
{
    jerrs *saved = c->errs;
    c->errs = NULL;
    bool ok = validate(c, s, n);
    c->errs = saved;
    return ok;
}

/* Validates n against s, collecting failures into e instead. */
static bool validate_into(jctx *c, const cJSON *s, const node *n, jerrs *e)
{
    jerrs *saved = c->errs;
    c->errs = e;
    bool ok = validate(c, s, n);
    c->errs = saved;
    return ok;
}

/* ---- rendering values for messages --------------------------------------- */

typedef struct strbuf {
    char *s;
    size_t len;
    FILE *f;
} strbuf;

static FILE *sb_open(strbuf *b)
{
    b->s = NULL;
    b->len = 0;
    b->f = open_memstream(&b->s, &b->len);
    if (!b->f)
        bench_out_of_memory(); /* open_memstream fails only for want of memory */
    return b->f;
}

/* The text written so far; the caller frees it. */
static char *sb_close(strbuf *b)
{
    fclose(b->f);
    return b->s;
}

static bool is_integral(double d)
{
    if (!isfinite(d))
        return false;
    if (d >= 0x1p52 || d <= -0x1p52)
        return true; /* no fraction bits left */
    return d == (double)(int64_t)d;
}

/* The shortest text that reads back as d: "3", "0.1", "1e+300". */
static void format_double(char *buf, size_t size, double d)
{
    if (is_integral(d) && d > -1e17 && d < 1e17) {
        snprintf(buf, size, "%.0f", d);
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            return;
    }
}

static void put_double(FILE *f, double d)
{
    char buf[40];
    format_double(buf, sizeof buf, d);
    fputs(buf, f);
}

/* Writes s[0..len) between quotes, control characters escaped, long text cut. */
static void put_string(FILE *f, const char *s, size_t len, char quote)
{
    fputc(quote, f);
    size_t chars = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if ((ch & 0xC0) != 0x80 && chars++ == SHOWN_CHARS) {
            fputs("...", f);
            break;
        }
        if (ch == '\n')
            fputs("\\n", f);
        else if (ch == '\t')
            fputs("\\t", f);
        else if (ch == '\r')
            fputs("\\r", f);
        else if (ch < 0x20 || ch == 0x7f)
            fprintf(f, "\\u%04x", ch);
        else if (quote == '"' && (ch == '"' || ch == '\\'))
            fprintf(f, "\\%c", ch);
        else
            fputc(ch, f);
    }
    fputc(quote, f);
}

typedef enum render_style {
    RENDER_SUBJECT, /* 'text', "the mapping": the subject of a sentence */
    RENDER_JSON,    /* "text", "a mapping": next to a JSON value */
} render_style;

static void put_node(FILE *f, const node *n, render_style style)
{
    bool subject = style == RENDER_SUBJECT;
    switch (n->kind) {
    case NODE_NULL: fputs("null", f); break;
    case NODE_BOOL: fputs(n->v.b ? "true" : "false", f); break;
    case NODE_INT:
    case NODE_FLOAT:
        /* what the user wrote (0x1F, .inf) reads better than a reformatting */
        if (n->text && n->len > 0)
            fwrite(n->text, 1, n->len, f);
        else if (n->kind == NODE_INT)
            fprintf(f, "%lld", (long long)n->v.i);
        else
            put_double(f, n->v.f);
        break;
    case NODE_STRING: put_string(f, n->text, n->len, subject ? '\'' : '"'); break;
    case NODE_MAP: fputs(subject ? "the mapping" : "a mapping", f); break;
    case NODE_SEQ: fputs(subject ? "the sequence" : "a sequence", f); break;
    }
}

/* n as text; the caller frees it. */
static char *render_node(const node *n, render_style style)
{
    strbuf b;
    put_node(sb_open(&b), n, style);
    return sb_close(&b);
}

static void put_json(FILE *f, const cJSON *j)
{
    char *text = cJSON_PrintUnformatted(j);
    if (text)
        fputs(text, f);
    cJSON_free(text);
}

/* ---- types --------------------------------------------------------------- */

typedef enum jtype {
    JT_NULL,
    JT_BOOLEAN,
    JT_INTEGER,
    JT_NUMBER,
    JT_STRING,
    JT_OBJECT,
    JT_ARRAY,
    JT_COUNT,
} jtype;

#define JT_BIT(t) (1u << (t))
#define JT_ALL (JT_BIT(JT_COUNT) - 1)

static const struct {
    const char *json;   /* the name in "type" */
    const char *phrase; /* the YAML word with its article, for messages */
} type_names[JT_COUNT] = {
    [JT_NULL] = {"null", "null"},
    [JT_BOOLEAN] = {"boolean", "a boolean"},
    [JT_INTEGER] = {"integer", "an integer"},
    [JT_NUMBER] = {"number", "a number"},
    [JT_STRING] = {"string", "a string"},
    [JT_OBJECT] = {"object", "a mapping"},
    [JT_ARRAY] = {"array", "a sequence"},
};

/* The JSON types n belongs to: 1 is both an integer and a number, so is 1.0. */
static unsigned node_types(const node *n)
{
    switch (n->kind) {
    case NODE_NULL: return JT_BIT(JT_NULL);
    case NODE_BOOL: return JT_BIT(JT_BOOLEAN);
    case NODE_INT: return JT_BIT(JT_INTEGER) | JT_BIT(JT_NUMBER);
    case NODE_FLOAT: return JT_BIT(JT_NUMBER) | (is_integral(n->v.f) ? JT_BIT(JT_INTEGER) : 0);
    case NODE_STRING: return JT_BIT(JT_STRING);
    case NODE_MAP: return JT_BIT(JT_OBJECT);
    case NODE_SEQ: return JT_BIT(JT_ARRAY);
    }
    return 0;
}

/* "got ..." wording for n's own kind. */
static const char *node_phrase(const node *n)
{
    static const jtype kinds[] = {
        [NODE_NULL] = JT_NULL,    [NODE_BOOL] = JT_BOOLEAN,  [NODE_INT] = JT_INTEGER,
        [NODE_FLOAT] = JT_NUMBER, [NODE_STRING] = JT_STRING, [NODE_MAP] = JT_OBJECT,
        [NODE_SEQ] = JT_ARRAY,
    };
    return type_names[kinds[n->kind]].phrase;
}

static jtype json_type(const cJSON *j)
{
    if (cJSON_IsBool(j))
        return JT_BOOLEAN;
    if (cJSON_IsNumber(j))
        return is_integral(j->valuedouble) ? JT_INTEGER : JT_NUMBER;
    if (cJSON_IsString(j))
        return JT_STRING;
    if (cJSON_IsObject(j))
        return JT_OBJECT;
    if (cJSON_IsArray(j))
        return JT_ARRAY;
    return JT_NULL;
}

/* Types in the order a schema names them, for "expected a string or a mapping". */
typedef struct type_list {
    unsigned mask;
    jtype order[JT_COUNT];
    int n;
} type_list;

static void types_add(type_list *t, jtype type)
{
    if (t->mask & JT_BIT(type))
        return;
    t->mask |= JT_BIT(type);
    t->order[t->n++] = type;
}

static void types_add_name(type_list *t, const cJSON *name)
{
    if (!cJSON_IsString(name))
        return;
    for (int i = 0; i < JT_COUNT; i++)
        if (name->valuestring[0] == type_names[i].json[0] &&
            strcmp(name->valuestring, type_names[i].json) == 0)
            types_add(t, (jtype)i);
}

/* The types a "type" keyword value allows (a name or an array of names). */
static void types_from_keyword(type_list *t, const cJSON *type)
{
    if (cJSON_IsArray(type))
        for (const cJSON *e = type->child; e; e = e->next)
            types_add_name(t, e);
    else
        types_add_name(t, type);
}

static void put_types(FILE *f, const type_list *t)
{
    for (int i = 0; i < t->n; i++) {
        if (i > 0)
            fputs(i == t->n - 1 ? " or " : ", ", f);
        fputs(type_names[t->order[i]].phrase, f);
    }
}

static bool fail_types(jctx *c, const node *n, const type_list *t)
{
    if (!c->errs)
        return false;
    strbuf b;
    put_types(sb_open(&b), t);
    char *expected = sb_close(&b);
    fail(c, n, "expected %s, got %s", expected, node_phrase(n));
    free(expected);
    return false;
}

/* ---- packed pairs -------------------------------------------------------- */

const jschema_pairs *jschema_pairs_of(const node *n)
{
    return n && n->kind == NODE_SEQ && !n->items && n->count > 0 ? (const jschema_pairs *)n : NULL;
}

/* Room for one pair of a packed sequence as nodes: [first, second]. */
typedef struct item_view {
    node pair, num[2];
    node *two[2];
} item_view;

/* Item i of sequence n; a packed pair is written into w, which holds it
 * until the next call with w. */
static const node *item_at(const node *n, size_t i, item_view *w)
{
    const jschema_pairs *p = jschema_pairs_of(n);
    if (!p)
        return n->items[i];
    w->pair = (node){.kind = NODE_SEQ,
                     .file = n->file,
                     .text = "",
                     .count = 2,
                     .items = w->two,
                     .parent = (node *)n,
                     .index = i};
    for (size_t k = 0; k < 2; k++) {
        w->num[k] = (node){.kind = NODE_INT,
                           .file = n->file,
                           .text = "",
                           .parent = &w->pair,
                           .index = k,
                           .v.i = k ? p->second[i] : p->first[i]};
        w->two[k] = &w->num[k];
    }
    return &w->pair;
}

/* ---- equality ------------------------------------------------------------ */

static bool node_is_number(const node *n)
{
    return n->kind == NODE_INT || n->kind == NODE_FLOAT;
}

/* long double holds every int64 and every double exactly on the platforms we
 * build for, so 1 == 1.0 and large integers compare without rounding. */
static long double node_number(const node *n)
{
    return n->kind == NODE_INT ? (long double)n->v.i : (long double)n->v.f;
}

static const node *map_find(const node *map, const char *key, size_t len)
{
    for (size_t i = 0; i < map->count; i++) {
        const node *k = map->pairs[i].key;
        if (k->len == len && memcmp(k->text, key, len) == 0)
            return map->pairs[i].value;
    }
    return NULL;
}

static const cJSON *json_member(const cJSON *obj, const char *key, size_t len)
{
    for (const cJSON *m = obj->child; m; m = m->next)
        if (m->string && strlen(m->string) == len && memcmp(m->string, key, len) == 0)
            return m;
    return NULL;
}

static bool nodes_equal(const node *a, const node *b)
{
    if (node_is_number(a) && node_is_number(b))
        return node_number(a) == node_number(b);
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case NODE_NULL: return true;
    case NODE_BOOL: return a->v.b == b->v.b;
    case NODE_STRING: return a->len == b->len && memcmp(a->text, b->text, a->len) == 0;
    case NODE_SEQ:
        if (a->count != b->count)
            return false;
        for (size_t i = 0; i < a->count; i++) {
            item_view va, vb;
            if (!nodes_equal(item_at(a, i, &va), item_at(b, i, &vb)))
                return false;
        }
        return true;
    case NODE_MAP:
        if (a->count != b->count)
            return false;
        for (size_t i = 0; i < a->count; i++) {
            const node *k = a->pairs[i].key;
            const node *bv = map_find(b, k->text, k->len);
            if (!bv || !nodes_equal(a->pairs[i].value, bv))
                return false;
        }
        return true;
    default: return false;
    }
}

static bool node_equals_json(const node *n, const cJSON *j)
{
    if (cJSON_IsNumber(j))
        return node_is_number(n) && node_number(n) == (long double)j->valuedouble;
    if (cJSON_IsString(j))
        return n->kind == NODE_STRING && strlen(j->valuestring) == n->len &&
               memcmp(j->valuestring, n->text, n->len) == 0;
    if (cJSON_IsBool(j))
        return n->kind == NODE_BOOL && n->v.b == (bool)cJSON_IsTrue(j);
    if (cJSON_IsNull(j))
        return n->kind == NODE_NULL;
    if (cJSON_IsArray(j)) {
        if (n->kind != NODE_SEQ || (size_t)cJSON_GetArraySize(j) != n->count)
            return false;
        size_t i = 0;
        item_view w;
        for (const cJSON *e = j->child; e; e = e->next)
            if (!node_equals_json(item_at(n, i++, &w), e))
                return false;
        return true;
    }
    if (cJSON_IsObject(j)) {
        if (n->kind != NODE_MAP || (size_t)cJSON_GetArraySize(j) != n->count)
            return false;
        for (const cJSON *m = j->child; m; m = m->next) {
            const node *v = map_find(n, m->string, strlen(m->string));
            if (!v || !node_equals_json(v, m))
                return false;
        }
        return true;
    }
    return false;
}

/* ---- patterns ------------------------------------------------------------ */

static pattern_entry *pattern_compile(jctx *c, const cJSON *owner, const char *source)
{
    for (pattern_entry *p = c->patterns; p; p = p->next)
        if (p->owner == owner)
            return p;
    pattern_entry *p = xcalloc(1, sizeof *p);
    int err;
    PCRE2_SIZE offset;
    /* DOLLAR_ENDONLY: as in ECMA 262, "$" does not match before a final newline */
    p->code = pcre2_compile((PCRE2_SPTR)source, PCRE2_ZERO_TERMINATED,
                            PCRE2_UTF | PCRE2_DOLLAR_ENDONLY, &err, &offset, NULL);
    if (!p->code) {
        PCRE2_UCHAR msg[100];
        pcre2_get_error_message(err, msg, sizeof msg);
        snprintf(p->error, sizeof p->error, "%s at offset %zu", (const char *)msg, (size_t)offset);
    }
    p->owner = owner;
    p->next = c->patterns;
    c->patterns = p;
    return p;
}

/* 1 when source (the text of schema node owner) matches somewhere in
 * s[0..len), 0 when not, -1 when it does not compile (reported at `at`). */
static int pattern_search(jctx *c, const cJSON *owner, const char *source, const char *s,
                          size_t len, const node *at)
{
    pattern_entry *p = pattern_compile(c, owner, source);
    if (!p->code) {
        fail(c, at, "the schema's pattern %s is not a valid regular expression: %s", source,
             p->error);
        return -1;
    }
    if (!c->match) {
        c->match = pcre2_match_data_create(1, NULL);
        if (!c->match)
            bench_out_of_memory();
    }
    /* invalid UTF-8 in s is an error code below zero: it matches nothing */
    return pcre2_match(p->code, (PCRE2_SPTR)s, len, 0, 0, c->match, NULL) >= 0;
}

static void patterns_free(jctx *c)
{
    while (c->patterns) {
        pattern_entry *next = c->patterns->next;
        pcre2_code_free(c->patterns->code);
        free(c->patterns);
        c->patterns = next;
    }
    pcre2_match_data_free(c->match);
    c->match = NULL;
}

/* ---- $ref ---------------------------------------------------------------- */

static int hex_value(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* Decodes %XX escapes of s into out (at least strlen(s) + 1 bytes). */
static bool percent_decode(const char *s, char *out)
{
    for (; *s; s++) {
        if (*s != '%') {
            *out++ = *s;
            continue;
        }
        int hi = hex_value(s[1]), lo = hi < 0 ? -1 : hex_value(s[2]);
        if (lo < 0 || (hi == 0 && lo == 0))
            return false;
        *out++ = (char)(hi * 16 + lo);
        s += 2;
    }
    *out = '\0';
    return true;
}

/* One JSON pointer step: tok is a reference token, unescaped here in place. */
static const cJSON *pointer_step(const cJSON *cur, char *tok)
{
    char *w = tok;
    for (const char *r = tok; *r; r++) {
        if (*r != '~') {
            *w++ = *r;
            continue;
        }
        if (r[1] != '0' && r[1] != '1')
            return NULL;
        *w++ = r[1] == '0' ? '~' : '/';
        r++;
    }
    *w = '\0';
    if (cJSON_IsObject(cur))
        return cJSON_GetObjectItemCaseSensitive(cur, tok);
    if (!cJSON_IsArray(cur) || !*tok || (tok[0] == '0' && tok[1]) || strlen(tok) > 9)
        return NULL;
    int index = 0;
    for (const char *d = tok; *d; d++) {
        if (*d < '0' || *d > '9')
            return NULL;
        index = index * 10 + (*d - '0');
    }
    return cJSON_GetArrayItem(cur, index);
}

/* The schema that ref ("#" or "#/json/pointer") points at inside root, or NULL. */
static const cJSON *ref_resolve(const cJSON *root, const char *ref)
{
    if (strcmp(ref, "#") == 0)
        return root;
    if (strncmp(ref, "#/", 2) != 0)
        return NULL;
    char *path = xmalloc(strlen(ref) + 1);
    const cJSON *cur = percent_decode(ref + 1, path) ? root : NULL;
    for (char *tok = path + 1; cur;) {
        char *slash = strchr(tok, '/');
        if (slash)
            *slash = '\0';
        cur = pointer_step(cur, tok);
        if (!slash)
            break;
        tok = slash + 1;
    }
    free(path);
    return cur;
}

/* Whether schema object s has a string $ref; if so *target is what it
 * resolves to (NULL when it does not), found once per schema object. */
static bool schema_ref(jctx *c, const cJSON *s, const cJSON **target);

/* target: what ref resolves to (NULL when it does not), found once per schema
 * object by kw_lookup. */
static bool check_ref(jctx *c, const cJSON *ref, const cJSON *target, const node *n)
{
    const char *r = ref->valuestring;
    if (target)
        return validate(c, target, n);
    if (r[0] == '#')
        return fail(c, n, "the schema's $ref '%s' does not resolve", r);
    return fail(c, n,
                "the schema's $ref '%s' is not supported: only references within the "
                "schema document are",
                r);
}

/* The types a branch of anyOf/oneOf can accept, added to t in schema order:
 * its "type", else the types of its "const" or "enum" values; JT_ALL when it
 * says nothing about types. */
static unsigned schema_types(jctx *c, const cJSON *s, type_list *t)
{
    for (int hops = 0; cJSON_IsObject(s) && hops < REF_HOPS; hops++) {
        if (!schema_ref(c, s, &s))
            break;
        if (!s)
            return JT_ALL; /* let the branch run and say that the $ref is broken */
    }
    if (cJSON_IsFalse(s))
        return 0;
    if (!cJSON_IsObject(s))
        return JT_ALL;
    type_list own = {0};
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(s, "type")))
        types_from_keyword(&own, v);
    else if ((v = cJSON_GetObjectItemCaseSensitive(s, "const")))
        types_add(&own, json_type(v));
    else if (cJSON_IsArray(v = cJSON_GetObjectItemCaseSensitive(s, "enum")))
        for (const cJSON *e = v->child; e; e = e->next)
            types_add(&own, json_type(e));
    for (int i = 0; i < own.n; i++)
        types_add(t, own.order[i]);
    return own.n ? own.mask : JT_ALL;
}

/* ---- keywords: any type -------------------------------------------------- */

/* Every keyword check has this shape: s is the schema object, v the keyword's
 * value in it, n the instance. Keywords that do not apply to n's type pass. */
typedef bool keyword_fn(jctx *c, const cJSON *s, const cJSON *v, const node *n);

/* s's "type" as a type_list, found once per schema object. */
static const type_list *schema_type_list(jctx *c, const cJSON *s);

static bool kw_type(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    const type_list *t = schema_type_list(c, s);
    return t->n == 0 || (t->mask & node_types(n)) || fail_types(c, n, t);
}

static bool kw_enum(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    if (!cJSON_IsArray(v))
        return true;
    for (const cJSON *e = v->child; e; e = e->next)
        if (node_equals_json(n, e))
            return true;
    if (!c->errs)
        return false;
    strbuf b;
    FILE *f = sb_open(&b);
    for (const cJSON *e = v->child; e; e = e->next) {
        if (e != v->child)
            fputs(", ", f);
        if (cJSON_IsString(e))
            fputs(e->valuestring, f);
        else
            put_json(f, e);
    }
    char *list = sb_close(&b), *value = render_node(n, RENDER_SUBJECT);
    fail(c, n, "%s is not one of: %s", value, list);
    free(value);
    free(list);
    return false;
}

static bool kw_const(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    if (node_equals_json(n, v))
        return true;
    if (!c->errs)
        return false;
    char *expected = cJSON_PrintUnformatted(v), *got = render_node(n, RENDER_JSON);
    fail(c, n, "expected %s, got %s", expected ? expected : "?", got);
    cJSON_free(expected);
    free(got);
    return false;
}

/* ---- keywords: strings --------------------------------------------------- */

/* Fails with fmt, whose two %s are n rendered and the schema number v. */
static bool fail_value(jctx *c, const node *n, const cJSON *v, const char *fmt)
{
    if (!c->errs)
        return false;
    char *value = render_node(n, RENDER_SUBJECT), limit[40];
    format_double(limit, sizeof limit, v->valuedouble);
    fail(c, n, fmt, value, limit);
    free(value);
    return false;
}

static bool kw_min_length(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    return n->kind != NODE_STRING || !cJSON_IsNumber(v) ||
           utf8_length(n->text, n->len) >= v->valuedouble ||
           fail_value(c, n, v, "%s is shorter than %s character(s)");
}

static bool kw_max_length(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    return n->kind != NODE_STRING || !cJSON_IsNumber(v) ||
           utf8_length(n->text, n->len) <= v->valuedouble ||
           fail_value(c, n, v, "%s is longer than %s character(s)");
}

static bool kw_pattern(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    if (n->kind != NODE_STRING || !cJSON_IsString(v))
        return true;
    int found = pattern_search(c, v, v->valuestring, n->text, n->len, n);
    if (found != 0)
        return found > 0;
    if (!c->errs)
        return false;
    char *value = render_node(n, RENDER_SUBJECT);
    fail(c, n, "%s does not match the pattern %s", value, v->valuestring);
    free(value);
    return false;
}

/* ---- keywords: numbers --------------------------------------------------- */

static bool kw_minimum(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    return !node_is_number(n) || !cJSON_IsNumber(v) ||
           node_number(n) >= (long double)v->valuedouble ||
           fail_value(c, n, v, "%s is less than the minimum %s");
}

static bool kw_maximum(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    return !node_is_number(n) || !cJSON_IsNumber(v) ||
           node_number(n) <= (long double)v->valuedouble ||
           fail_value(c, n, v, "%s is greater than the maximum %s");
}

static bool kw_exclusive_minimum(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    return !node_is_number(n) || !cJSON_IsNumber(v) ||
           node_number(n) > (long double)v->valuedouble ||
           fail_value(c, n, v, "%s is not greater than %s");
}

static bool kw_exclusive_maximum(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    return !node_is_number(n) || !cJSON_IsNumber(v) ||
           node_number(n) < (long double)v->valuedouble ||
           fail_value(c, n, v, "%s is not less than %s");
}

static bool is_multiple(const node *n, double m)
{
    if (n->kind == NODE_INT && is_integral(m) && m < 0x1p62)
        return n->v.i % (int64_t)m == 0;
    double q = (double)node_number(n) / m;
    if (!isfinite(q))
        return false;
    if (q >= 0x1p52 || q <= -0x1p52)
        return true;
    /* decimal divisors such as 0.0001 are not exact in binary: allow rounding */
    double diff = q - (double)(int64_t)(q < 0 ? q - 0.5 : q + 0.5);
    return diff < 1e-9 && diff > -1e-9;
}

static bool kw_multiple_of(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    return !node_is_number(n) || !cJSON_IsNumber(v) || !(v->valuedouble > 0) ||
           is_multiple(n, v->valuedouble) || fail_value(c, n, v, "%s is not a multiple of %s");
}

/* ---- keywords: mappings -------------------------------------------------- */

/* 'key', escaped; the caller frees it. */
static char *quote_key(const node *key)
{
    strbuf b;
    put_string(sb_open(&b), key->text, key->len, '\'');
    return sb_close(&b);
}

static bool fail_key(jctx *c, const node *key, const char *fmt)
{
    if (!c->errs)
        return false;
    char *name = quote_key(key);
    fail(c, key, fmt, name);
    free(name);
    return false;
}

/* Validates the value of pair p against sub; `false` forbids the key itself. */
static bool check_pair(jctx *c, const cJSON *sub, const node_pair *p)
{
    if (cJSON_IsFalse(sub))
        return fail_key(c, p->key, "key %s is not allowed here");
    return validate(c, sub, p->value);
}

static bool kw_properties(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    if (n->kind != NODE_MAP || !cJSON_IsObject(v))
        return true;
    bool ok = true;
    for (size_t i = 0; i < n->count && (ok || c->errs); i++) {
        const node_pair *p = &n->pairs[i];
        const cJSON *sub = json_member(v, p->key->text, p->key->len);
        if (sub)
            ok = check_pair(c, sub, p) && ok;
    }
    return ok;
}

static bool kw_pattern_properties(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    if (n->kind != NODE_MAP || !cJSON_IsObject(v))
        return true;
    bool ok = true;
    for (size_t i = 0; i < n->count && (ok || c->errs); i++) {
        const node_pair *p = &n->pairs[i];
        for (const cJSON *pat = v->child; pat; pat = pat->next) {
            int found = pattern_search(c, pat, pat->string, p->key->text, p->key->len, p->key);
            if (found < 0)
                ok = false;
            else if (found)
                ok = check_pair(c, pat, p) && ok;
        }
    }
    return ok;
}

/* s's "properties" and "patternProperties" (NULL when absent), found once per
 * schema object. */
static void schema_props(jctx *c, const cJSON *s, const cJSON **props, const cJSON **pattern_props);

/* Whether key is covered by "properties" or "patternProperties" of s. */
static bool key_declared(jctx *c, const cJSON *s, const node *key)
{
    const cJSON *props, *pp;
    schema_props(c, s, &props, &pp);
    if (cJSON_IsObject(props) && json_member(props, key->text, key->len))
        return true;
    if (!cJSON_IsObject(pp))
        return false;
    jerrs *saved = c->errs;
    c->errs = NULL; /* a broken pattern is reported by patternProperties */
    bool found = false;
    for (const cJSON *pat = pp->child; pat && !found; pat = pat->next)
        found = pattern_search(c, pat, pat->string, key->text, key->len, key) > 0;
    c->errs = saved;
    return found;
}

/* The names in s's "properties", in schema order; the caller frees the array. */
static const char **property_names(const cJSON *s, size_t *count)
{
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
    size_t n = cJSON_IsObject(props) ? (size_t)cJSON_GetArraySize(props) : 0;
    const char **names = xcalloc(n + 1, sizeof *names);
    *count = 0;
    for (const cJSON *m = n ? props->child : NULL; m; m = m->next)
        names[(*count)++] = m->string;
    return names;
}

static bool fail_unknown_key(jctx *c, const cJSON *s, const node *key)
{
    if (!c->errs)
        return false;
    size_t count;
    const char **names = property_names(s, &count);
    const char *near = diag_suggest(key->text, names, count);
    char *name = quote_key(key);
    strbuf b;
    FILE *f = sb_open(&b);
    fprintf(f, "unknown key %s", name);
    free(name);
    if (near)
        fprintf(f, " (did you mean '%s'?)", near);
    for (size_t i = 0; !near && i < count; i++)
        fprintf(f, "%s%s", i ? ", " : "; expected one of: ", names[i]);
    char *msg = sb_close(&b);
    fail(c, key, "%s", msg);
    free(msg);
    free(names);
    return false;
}

/* s is `false`, directly or through $refs. */
static bool is_false_schema(jctx *c, const cJSON *s)
{
    for (int hops = 0; cJSON_IsObject(s) && hops < REF_HOPS; hops++)
        if (!schema_ref(c, s, &s))
            break;
    return cJSON_IsFalse(s);
}

static bool kw_additional_properties(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    if (n->kind != NODE_MAP)
        return true;
    bool forbidden = is_false_schema(c, v), ok = true;
    for (size_t i = 0; i < n->count && (ok || c->errs); i++) {
        const node_pair *p = &n->pairs[i];
        if (key_declared(c, s, p->key))
            continue;
        if (forbidden)
            ok = fail_unknown_key(c, s, p->key) && ok;
        else
            ok = validate(c, v, p->value) && ok;
    }
    return ok;
}

/* Whether a missing required key was probably misspelled as an unknown key
 * that additionalProperties will report with "did you mean": one message
 * then says it all. */
static bool reported_as_typo(jctx *c, const cJSON *s, const node *n, const char *name)
{
    if (!is_false_schema(c, cJSON_GetObjectItemCaseSensitive(s, "additionalProperties")))
        return false;
    size_t count;
    const char **names = property_names(s, &count);
    bool typo = false;
    for (size_t i = 0; i < n->count && !typo; i++) {
        const node *key = n->pairs[i].key;
        if (key_declared(c, s, key))
            continue;
        const char *near = diag_suggest(key->text, names, count);
        typo = near && strcmp(near, name) == 0;
    }
    free(names);
    return typo;
}

static bool kw_required(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    if (n->kind != NODE_MAP || !cJSON_IsArray(v))
        return true;
    bool ok = true;
    for (const cJSON *name = v->child; name && (ok || c->errs); name = name->next) {
        if (!cJSON_IsString(name) || map_find(n, name->valuestring, strlen(name->valuestring)))
            continue;
        ok = false;
        if (c->errs && !reported_as_typo(c, s, n, name->valuestring))
            fail(c, n, "missing required key '%s'", name->valuestring);
    }
    return ok;
}

static bool kw_property_names(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    if (n->kind != NODE_MAP)
        return true;
    bool ok = true;
    for (size_t i = 0; i < n->count && (ok || c->errs); i++) {
        if (cJSON_IsFalse(v)) {
            ok = fail_key(c, n->pairs[i].key, "key %s is not allowed here");
            continue;
        }
        /* a key is a name whatever it looks like: "1" is checked as a string */
        node name = *n->pairs[i].key;
        name.kind = NODE_STRING;
        ok = validate(c, v, &name) && ok;
    }
    return ok;
}

static bool fail_count(jctx *c, const node *n, const cJSON *v, const char *fmt)
{
    char limit[40];
    format_double(limit, sizeof limit, v->valuedouble);
    return fail(c, n, fmt, n->count, limit);
}

static bool kw_min_properties(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    return n->kind != NODE_MAP || !cJSON_IsNumber(v) || n->count >= v->valuedouble ||
           fail_count(c, n, v, "the mapping has %zu key(s), fewer than the minimum %s");
}

static bool kw_max_properties(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    return n->kind != NODE_MAP || !cJSON_IsNumber(v) || n->count <= v->valuedouble ||
           fail_count(c, n, v, "the mapping has %zu key(s), more than the maximum %s");
}

static bool check_dependency(jctx *c, const cJSON *dep, const node_pair *p, const node *n)
{
    if (cJSON_IsFalse(dep))
        return fail_key(c, p->key, "key %s is not allowed here");
    if (!cJSON_IsArray(dep))
        return validate(c, dep, n);
    bool ok = true;
    for (const cJSON *name = dep->child; name; name = name->next) {
        if (!cJSON_IsString(name) || map_find(n, name->valuestring, strlen(name->valuestring)))
            continue;
        ok = false;
        if (c->errs) {
            char *key = quote_key(p->key);
            fail(c, p->key, "key %s requires key '%s'", key, name->valuestring);
            free(key);
        }
    }
    return ok;
}

static bool kw_dependencies(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    if (n->kind != NODE_MAP || !cJSON_IsObject(v))
        return true;
    bool ok = true;
    for (const cJSON *dep = v->child; dep && (ok || c->errs); dep = dep->next) {
        for (size_t i = 0; i < n->count; i++) {
            const node *key = n->pairs[i].key;
            if (key->len == strlen(dep->string) && memcmp(key->text, dep->string, key->len) == 0)
                ok = check_dependency(c, dep, &n->pairs[i], n) && ok;
        }
    }
    return ok;
}

/* ---- keywords: sequences ------------------------------------------------- */

/* Validates items [from, count) of n against sub; `false` allows none. */
static bool check_rest(jctx *c, const cJSON *sub, const node *n, size_t from)
{
    item_view w;
    if (cJSON_IsFalse(sub) && from < n->count)
        return fail(c, item_at(n, from, &w),
                    "unexpected item [%zu]: the sequence allows at most %zu item(s) here", from,
                    from);
    bool ok = true;
    for (size_t i = from; i < n->count && (ok || c->errs); i++)
        ok = validate(c, sub, item_at(n, i, &w)) && ok;
    return ok;
}

static bool kw_items(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    if (n->kind != NODE_SEQ)
        return true;
    if (!cJSON_IsArray(v))
        return check_rest(c, v, n, 0);
    bool ok = true;
    size_t i = 0;
    item_view w;
    for (const cJSON *sub = v->child; sub && i < n->count && (ok || c->errs); sub = sub->next)
        ok = validate(c, sub, item_at(n, i++, &w)) && ok;
    return ok;
}

/* s's "items", or NULL, found once per schema object. */
static const cJSON *schema_items(jctx *c, const cJSON *s);

static bool kw_additional_items(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    const cJSON *items = schema_items(c, s);
    if (n->kind != NODE_SEQ || !cJSON_IsArray(items))
        return true; /* without an items array, every item is already covered */
    return check_rest(c, v, n, (size_t)cJSON_GetArraySize(items));
}

static bool kw_contains(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    if (n->kind != NODE_SEQ)
        return true;
    item_view w;
    for (size_t i = 0; i < n->count; i++)
        if (matches(c, v, item_at(n, i, &w)))
            return true;
    return fail(c, n, "no item of the sequence matches the 'contains' schema");
}

static bool kw_min_items(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    return n->kind != NODE_SEQ || !cJSON_IsNumber(v) || n->count >= v->valuedouble ||
           fail_count(c, n, v, "the sequence has %zu item(s), fewer than the minimum %s");
}

static bool kw_max_items(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    return n->kind != NODE_SEQ || !cJSON_IsNumber(v) || n->count <= v->valuedouble ||
           fail_count(c, n, v, "the sequence has %zu item(s), more than the maximum %s");
}

static bool kw_unique_items(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    if (n->kind != NODE_SEQ || !cJSON_IsTrue(v))
        return true;
    bool ok = true;
    for (size_t j = 1; j < n->count && (ok || c->errs); j++) {
        for (size_t i = 0; i < j; i++) {
            item_view wi, wj;
            const node *at = item_at(n, j, &wj);
            if (!nodes_equal(item_at(n, i, &wi), at))
                continue;
            ok = fail(c, at, "item [%zu] repeats item [%zu]; items must be unique", j, i);
            break;
        }
    }
    return ok;
}

/* ---- keywords: combinations ---------------------------------------------- */

static bool kw_all_of(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    if (!cJSON_IsArray(v))
        return true;
    bool ok = true;
    for (const cJSON *sub = v->child; sub && (ok || c->errs); sub = sub->next)
        ok = validate(c, sub, n) && ok;
    return ok;
}

/* Whether branch failures a went further into the instance than b: the first
 * failure is later in the file, or as far with fewer failures. */
static bool went_further(const jerrs *a, const jerrs *b)
{
    if (a->n == 0 || b->n == 0)
        return a->n > 0 && b->n == 0;
    const jerr *x = &a->v[0], *y = &b->v[0];
    if (x->line != y->line)
        return x->line > y->line;
    if (x->col != y->col)
        return x->col > y->col;
    return a->n < b->n;
}

/* No branch of alts accepts n: report the failures of the branch that most
 * likely was meant (see went_further), among those whose types accept n. */
static bool report_alternatives(jctx *c, const cJSON *alts, const node *n)
{
    if (!c->errs || c->too_deep)
        return false;
    type_list accepted = {0};
    jerrs best = {0};
    bool found = false;
    for (const cJSON *alt = alts->child; alt; alt = alt->next) {
        if (!(schema_types(c, alt, &accepted) & node_types(n)))
            continue;
        jerrs e = {0};
        validate_into(c, alt, n, &e);
        if (!found || went_further(&e, &best)) {
            errs_free(&best);
            best = e;
            found = true;
        } else {
            errs_free(&e);
        }
    }
    if (c->too_deep) {
        errs_free(&best);
        return false; /* jschema_validate says why */
    }
    if (!found && accepted.n > 0)
        return fail_types(c, n, &accepted);
    if (best.n == 0)
        return fail(c, n, "matches none of the alternatives");
    errs_move(c->errs, &best);
    return false;
}

static bool check_alternatives(jctx *c, const cJSON *alts, const node *n, bool exactly_one)
{
    if (!cJSON_IsArray(alts))
        return true;
    int matched = 0;
    for (const cJSON *alt = alts->child; alt; alt = alt->next)
        if (matches(c, alt, n) && ++matched == (exactly_one ? 2 : 1))
            break;
    if (matched == 1)
        return true;
    if (matched > 1)
        return fail(c, n, "matches more than one alternative");
    return report_alternatives(c, alts, n);
}

static bool kw_any_of(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    return check_alternatives(c, v, n, false);
}

static bool kw_one_of(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    return check_alternatives(c, v, n, true);
}

static bool kw_not(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    return !matches(c, v, n) ||
           fail(c, n, "this value is not allowed here (it matches a 'not' schema)");
}

static bool kw_if(jctx *c, const cJSON *s, const cJSON *v, const node *n)
{
    const cJSON *next = cJSON_GetObjectItemCaseSensitive(s, matches(c, v, n) ? "then" : "else");
    return !next || validate(c, next, n);
}

/* ---- the walk ------------------------------------------------------------ */

/* Every keyword claimed, in the order they are checked (which decides the
 * order of failures, and so which anyOf branch "went further"). NULL: handled
 * by another entry ($ref by validate_keywords, then/else by if, ...). */
#define KEYWORDS(X)                                                                                \
    X("$ref", NULL)                                                                                \
    X("definitions", NULL)                                                                         \
    X("type", kw_type)                                                                             \
    X("enum", kw_enum)                                                                             \
    X("const", kw_const)                                                                           \
    X("minLength", kw_min_length)                                                                  \
    X("maxLength", kw_max_length)                                                                  \
    X("pattern", kw_pattern)                                                                       \
    X("minimum", kw_minimum)                                                                       \
    X("maximum", kw_maximum)                                                                       \
    X("exclusiveMinimum", kw_exclusive_minimum)                                                    \
    X("exclusiveMaximum", kw_exclusive_maximum)                                                    \
    X("multipleOf", kw_multiple_of)                                                                \
    X("properties", kw_properties)                                                                 \
    X("patternProperties", kw_pattern_properties)                                                  \
    X("additionalProperties", kw_additional_properties)                                            \
    X("propertyNames", kw_property_names)                                                          \
    X("dependencies", kw_dependencies)                                                             \
    X("required", kw_required)                                                                     \
    X("minProperties", kw_min_properties)                                                          \
    X("maxProperties", kw_max_properties)                                                          \
    X("items", kw_items)                                                                           \
    X("additionalItems", kw_additional_items)                                                      \
    X("contains", kw_contains)                                                                     \
    X("minItems", kw_min_items)                                                                    \
    X("maxItems", kw_max_items)                                                                    \
    X("uniqueItems", kw_unique_items)                                                              \
    X("allOf", kw_all_of)                                                                          \
    X("anyOf", kw_any_of)                                                                          \
    X("oneOf", kw_one_of)                                                                          \
    X("not", kw_not)                                                                               \
    X("if", kw_if)                                                                                 \
    X("then", NULL)                                                                                \
    X("else", NULL)

#define KEYWORD_RULE(name, fn) {name, fn},
#define KEYWORD_NAME(name, fn) name,

static const struct {
    const char *name;
    keyword_fn *check;
} keyword_rules[] = {KEYWORDS(KEYWORD_RULE)};

const char *const jschema_keywords[] = {KEYWORDS(KEYWORD_NAME) NULL};

const char *const jschema_annotations[] = {
    "$schema",  "$id",      "$comment",  "title",      "description", "default",
    "examples", "readOnly", "writeOnly", "deprecated", "x-message",   NULL,
};

enum { NRULES = sizeof keyword_rules / sizeof keyword_rules[0] };

/* A schema object's keyword values in rule order, found once per validation:
 * the same schema objects apply to many instance nodes, and looking each
 * keyword up by name every time dominated the cost of linting. */
typedef struct kw_entry {
    const cJSON *schema;
    const cJSON *ref;                   /* "$ref" */
    const cJSON *ref_target;            /* what a string $ref resolves to, or NULL */
    const cJSON *message;               /* "x-message" */
    const cJSON *props, *pattern_props; /* "properties", "patternProperties" */
    const cJSON *items;                 /* "items" */
    type_list types;                    /* what "type" allows (n 0: any) */
    const cJSON *vals[NRULES];
    unsigned char present[NRULES]; /* the rules with a value, in rule order */
    size_t npresent;
} kw_entry;

static size_t kw_hash(const cJSON *s, size_t cap)
{
    uintptr_t h = (uintptr_t)s;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15u;
    return (size_t)(h >> 7) & (cap - 1);
}

static void kw_fill(kw_entry *e, const cJSON *root, const cJSON *s)
{
    memset(e, 0, sizeof *e);
    e->schema = s;
    for (const cJSON *ch = s->child; ch; ch = ch->next) {
        if (!ch->string)
            continue;
        if (!strcmp(ch->string, "$ref")) {
            e->ref = ch;
            if (cJSON_IsString(ch))
                e->ref_target = ref_resolve(root, ch->valuestring);
            continue;
        }
        if (!strcmp(ch->string, "x-message")) {
            e->message = ch;
            continue;
        }
        for (size_t i = 0; i < NRULES; i++)
            if (keyword_rules[i].check && !strcmp(keyword_rules[i].name, ch->string)) {
                e->vals[i] = ch;
                if (keyword_rules[i].check == kw_properties)
                    e->props = ch;
                else if (keyword_rules[i].check == kw_pattern_properties)
                    e->pattern_props = ch;
                break;
            }
    }
    for (size_t i = 0; i < NRULES; i++) {
        if (!e->vals[i])
            continue;
        e->present[e->npresent++] = (unsigned char)i;
        if (keyword_rules[i].check == kw_items)
            e->items = e->vals[i];
        else if (keyword_rules[i].check == kw_type)
            types_from_keyword(&e->types, e->vals[i]);
    }
}

static void kw_grow(jctx *c)
{
    size_t cap = c->kw_cap ? c->kw_cap * 2 : 256;
    kw_entry **t = xcalloc(cap, sizeof *t);
    for (size_t i = 0; i < c->kw_cap; i++) {
        if (!c->kw[i])
            continue;
        size_t h = kw_hash(c->kw[i]->schema, cap);
        while (t[h])
            h = (h + 1) & (cap - 1);
        t[h] = c->kw[i];
    }
    free(c->kw);
    c->kw = t;
    c->kw_cap = cap;
}

/* s's entry; entries never move, so a pointer to one stays good. */
static const kw_entry *kw_lookup(jctx *c, const cJSON *s)
{
    if (2 * (c->kw_n + 1) > c->kw_cap)
        kw_grow(c);
    size_t h = kw_hash(s, c->kw_cap);
    while (c->kw[h] && c->kw[h]->schema != s)
        h = (h + 1) & (c->kw_cap - 1);
    if (!c->kw[h]) {
        c->kw[h] = xmalloc(sizeof *c->kw[h]);
        kw_fill(c->kw[h], c->root, s);
        c->kw_n++;
    }
    return c->kw[h];
}

static void kw_free(jctx *c)
{
    for (size_t i = 0; i < c->kw_cap; i++)
        free(c->kw[i]);
    free(c->kw);
}

static void schema_props(jctx *c, const cJSON *s, const cJSON **props, const cJSON **pattern_props)
{
    const kw_entry *e = kw_lookup(c, s);
    *props = e->props;
    *pattern_props = e->pattern_props;
}

static const type_list *schema_type_list(jctx *c, const cJSON *s)
{
    return c->cur && c->cur->schema == s ? &c->cur->types : &kw_lookup(c, s)->types;
}

static const cJSON *schema_items(jctx *c, const cJSON *s)
{
    return c->cur && c->cur->schema == s ? c->cur->items : kw_lookup(c, s)->items;
}

static bool schema_ref(jctx *c, const cJSON *s, const cJSON **target)
{
    const kw_entry *e = kw_lookup(c, s);
    if (!cJSON_IsString(e->ref))
        return false;
    *target = e->ref_target;
    return true;
}

static bool validate_keywords(jctx *c, const kw_entry *e, const node *n)
{
    /* draft-07: a $ref hides every keyword beside it */
    if (cJSON_IsString(e->ref))
        return check_ref(c, e->ref, e->ref_target, n);
    bool ok = true;
    for (size_t k = 0; k < e->npresent; k++) {
        size_t rule = e->present[k];
        c->cur = e; /* a nested check moved it */
        ok = keyword_rules[rule].check(c, e->schema, e->vals[rule], n) && ok;
        if (!ok && !c->errs)
            return false;
    }
    return ok;
}

/* x-message: the schema's author explains its failures better than we can.
 * A "{value}" in it stands for the offending scalar, quoted as written. */
static bool validate_with_message(jctx *c, const kw_entry *e, const node *n, const char *message)
{
    jerrs inner = {0}, *saved = c->errs;
    c->errs = &inner;
    bool ok = validate_keywords(c, e, n);
    c->errs = saved;
    errs_free(&inner);
    if (ok)
        return true;
    const char *hole = strstr(message, "{value}");
    if (!hole || n->kind == NODE_MAP || n->kind == NODE_SEQ)
        return fail(c, n, "%s", message);
    char num[40];
    const char *text = n->text;
    if (n->kind == NODE_INT && n->len == 0) { /* from JSON: its text was not kept */
        snprintf(num, sizeof num, "%lld", (long long)n->v.i);
        text = num;
    } else if (n->kind == NODE_FLOAT && n->len == 0) {
        format_double(num, sizeof num, n->v.f);
        text = num;
    }
    return fail(c, n, "%.*s'%.60s'%s", (int)(hole - message), message, text, hole + 7);
}

static bool validate(jctx *c, const cJSON *s, const node *n)
{
    if (cJSON_IsBool(s))
        return cJSON_IsTrue(s) || fail(c, n, "no value is allowed here");
    if (!cJSON_IsObject(s))
        return true; /* not a schema: nothing to check */
    if (c->too_deep)
        return false;
    if (c->depth >= DEPTH_LIMIT) {
        c->too_deep = true;
        c->deep_at = *n;
        c->deep_at.parent = NULL; /* it may be a pair's view, gone later: its path is kept */
        c->deep_path = node_path(n);
        return false;
    }
    c->depth++;
    const kw_entry *e = kw_lookup(c, s);
    bool ok;
    if (c->errs && cJSON_IsString(e->message))
        ok = validate_with_message(c, e, n, e->message->valuestring);
    else
        ok = validate_keywords(c, e, n);
    c->depth--;
    return ok;
}

/* ---- entry points -------------------------------------------------------- */

static void set_text(arena *a, node *n, const char *text)
{
    n->len = strlen(text);
    n->text = arena_strndup(a, text, n->len);
}

void jschema_set_number(arena *a, node *n, double d)
{
    if (is_integral(d) && d >= -0x1p63 && d < 0x1p63) {
        n->kind = NODE_INT;
        n->v.i = (int64_t)d;
        n->text = "";
        n->len = 0;
        return;
    }
    n->kind = NODE_FLOAT;
    n->v.f = d;
    n->text = "";
    n->len = 0;
    if (!a)
        return;
    char buf[40];
    format_double(buf, sizeof buf, d);
    set_text(a, n, buf);
}

/* A scalar's node. An integer's text is left empty (put_node and the
 * messages print its value): a result file holds millions of them, and
 * formatting each one cost a third of loading one. */
static void scalar_from_cjson(arena *a, node *n, const cJSON *j)
{
    if (cJSON_IsString(j)) {
        n->kind = NODE_STRING;
        n->quoted = true;
        set_text(a, n, j->valuestring);
        return;
    }
    if (cJSON_IsNumber(j)) {
        jschema_set_number(a, n, j->valuedouble);
        return;
    }
    if (cJSON_IsBool(j)) {
        n->kind = NODE_BOOL;
        n->v.b = cJSON_IsTrue(j);
        n->text = n->v.b ? "true" : "false";
    } else {
        n->kind = NODE_NULL;
        n->text = "null";
    }
    n->len = strlen(n->text);
}

static node *from_cjson(arena *a, const cJSON *j, const char *file)
{
    node *n = arena_alloc(a, sizeof *n);
    n->file = file;
    n->text = "";
    if (!cJSON_IsObject(j) && !cJSON_IsArray(j)) {
        scalar_from_cjson(a, n, j);
        return n;
    }
    n->kind = cJSON_IsObject(j) ? NODE_MAP : NODE_SEQ;
    n->count = (size_t)cJSON_GetArraySize(j);
    if (n->kind == NODE_SEQ)
        n->items = arena_alloc(a, n->count * sizeof *n->items);
    else
        n->pairs = arena_alloc(a, n->count * sizeof *n->pairs);
    size_t i = 0;
    for (const cJSON *e = j->child; e; e = e->next, i++) {
        node *v = from_cjson(a, e, file);
        v->parent = n, v->index = i; /* for the diagnostics' paths */
        if (n->kind == NODE_SEQ) {
            n->items[i] = v;
            continue;
        }
        node *key = arena_alloc(a, sizeof *key);
        key->kind = NODE_STRING;
        key->file = file;
        key->quoted = true;
        key->parent = n, key->index = i;
        set_text(a, key, e->string);
        n->pairs[i] = (node_pair){key, v};
    }
    return n;
}

node *jschema_node_from_cjson(arena *a, const cJSON *json, const char *file)
{
    return from_cjson(a, json, file ? arena_strdup(a, file) : NULL);
}

/* ---- kept schemas ---------------------------------------------------------- */

/* What validating against a kept root worked out: its keyword table and
 * compiled patterns, lent to one validation at a time. */
typedef struct kept_schema {
    const cJSON *root;
    bool busy;
    kw_entry **kw;
    size_t kw_cap, kw_n;
    pattern_entry *patterns;
    pcre2_match_data *match;
} kept_schema;

enum { KEPT_MAX = 4 };
static kept_schema kept[KEPT_MAX];
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

static void kept_free(void)
{
    for (size_t i = 0; i < KEPT_MAX; i++) {
        jctx c = {.kw = kept[i].kw,
                  .kw_cap = kept[i].kw_cap,
                  .patterns = kept[i].patterns,
                  .match = kept[i].match};
        patterns_free(&c);
        kw_free(&c);
        kept[i] = (kept_schema){0};
    }
}

void jschema_keep(const cJSON *root)
{
    pthread_mutex_lock(&kept_lock);
    size_t free_slot = KEPT_MAX;
    for (size_t i = 0; i < KEPT_MAX; i++) {
        if (kept[i].root == root)
            free_slot = KEPT_MAX + 1; /* already kept */
        else if (!kept[i].root && free_slot == KEPT_MAX)
            free_slot = i;
    }
    if (free_slot < KEPT_MAX) {
        bool first = true;
        for (size_t i = 0; i < KEPT_MAX; i++)
            first = first && !kept[i].root;
        kept[free_slot].root = root;
        if (first)
            atexit(kept_free);
    }
    pthread_mutex_unlock(&kept_lock);
}

/* The kept state of c's root, now c's, or NULL when the root is not kept
 * or another validation has it. */
static kept_schema *kept_take(jctx *c)
{
    kept_schema *k = NULL;
    pthread_mutex_lock(&kept_lock);
    for (size_t i = 0; i < KEPT_MAX && !k; i++)
        if (kept[i].root == c->root && !kept[i].busy)
            k = &kept[i];
    if (k) {
        k->busy = true;
        c->kw = k->kw;
        c->kw_cap = k->kw_cap;
        c->kw_n = k->kw_n;
        c->patterns = k->patterns;
        c->match = k->match;
    }
    pthread_mutex_unlock(&kept_lock);
    return k;
}

static void kept_give_back(kept_schema *k, const jctx *c)
{
    pthread_mutex_lock(&kept_lock);
    k->kw = c->kw;
    k->kw_cap = c->kw_cap;
    k->kw_n = c->kw_n;
    k->patterns = c->patterns;
    k->match = c->match;
    k->busy = false;
    pthread_mutex_unlock(&kept_lock);
}

bool jschema_validate(const cJSON *root, const node *instance, diag_list *d)
{
    assert(root && instance);
    jerrs errs = {0};
    jctx c = {.root = root, .errs = d ? &errs : NULL};
    kept_schema *k = kept_take(&c);
    bool ok = validate(&c, root, instance) && !c.too_deep;
    if (d && c.too_deep) {
        fail(&c, &c.deep_at, "the schema nests deeper than %d levels here (a $ref that loops?)",
             DEPTH_LIMIT);
        free(errs.v[errs.n - 1].path); /* NULL: the copy has no parent */
        errs.v[errs.n - 1].path = c.deep_path;
        c.deep_path = NULL;
    }
    if (d && !ok && errs.n == 0) /* never "invalid" without a word */
        fail(&c, instance, "does not match the schema");
    for (size_t i = 0; d && i < errs.n; i++)
        diag_copy(d, &(diag){DIAG_ERROR, (char *)errs.v[i].file, errs.v[i].line, errs.v[i].col,
                             errs.v[i].msg, errs.v[i].path});
    errs_free(&errs);
    if (k) {
        kept_give_back(k, &c);
    } else {
        patterns_free(&c);
        kw_free(&c);
    }
    free(c.deep_path);
    return ok;
}
