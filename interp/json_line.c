/* json_line.c: values as JSON (the protocol's, and the SQL targets' stored
 * form), encoded and decoded against the plan's types in one pass, with no
 * DOM. The decoder applies the compiler's rules for constant arguments:
 * unknown fields are refused, an absent field follows the unset-field rule
 * of value.h (field_required, field_initial). */
#include "json_line.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "utf8.h"
#include "value.h"

enum { JSON_MAX_DEPTH = 64 };

/* The bytes a string's plain run goes over, as written and as read: not a
 * control character, a quote or a backslash; 2 for those past ASCII (the
 * decoder then holds the string to the UTF-8 rule). One look per byte. */
static const unsigned char plain[256] = {
    [0x20] = 1, [0x21] = 1, [0x23 ... 0x5b] = 1, [0x5d ... 0x7f] = 1, [0x80 ... 0xff] = 2,
};

/* The end of the plain run at p (before end): the first byte that is not
 * plain, or end. *kinds gets 2 when a byte past ASCII is in the run. Eight
 * bytes at a time while there are eight: a word holds a byte to stop at
 * when one is a quote, a backslash or below 0x20 (the has-zero-byte test of
 * each, whose lowest flagged byte is exact: a borrow only flags bytes above
 * a true one). */
static inline const char *plain_run(const char *p, const char *end, unsigned char *kinds)
{
    const uint64_t ones = 0x0101010101010101, highs = 0x8080808080808080;
    while (end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
        uint64_t stop = ((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w);
        stop &= highs;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (stop) { /* the first byte of the word is the lowest */
            unsigned at = (unsigned)__builtin_ctzll(stop) >> 3;
            if (w & highs & ((UINT64_C(1) << (8 * at)) - 1))
                *kinds |= 2;
            return p + at;
        }
#else
        if (stop)
            break;
#endif
        if (w & highs)
            *kinds |= 2;
        p += 8;
    }
    for (unsigned char k; p < end && (k = plain[(unsigned char)*p]); p++)
        *kinds |= k;
    return p;
}

/* ---- buffers ---- */

void jline_reserve(jline *b, size_t more)
{
    if (b->cap - b->len >= more)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < more)
        cap *= 2;
    char *d = xrealloc(b->data, cap);
    b->data = d;
    b->cap = cap;
}

/* Room for more bytes, with the common case (there is) inline. */
static inline void room(jline *b, size_t more)
{
    if (b->cap - b->len < more)
        jline_reserve(b, more);
}

void jline_puts(jline *b, const char *s)
{
    jline_put(b, s, strlen(s));
}

void jline_free(jline *b)
{
    free(b->data);
    *b = (jline){0};
}

/* ---- encoding ---- */

void json_put_string(jline *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char kinds = 0;
    size_t i = (size_t)(plain_run(s, s + n, &kinds) - s);
    room(b, i + 2);
    char *o = b->data + b->len;
    o[0] = '"';
    if (i)
        memcpy(o + 1, s, i);
    b->len += i + 1;
    while (i < n) { /* a byte to escape at i, then the next plain run */
        unsigned char ch = (unsigned char)s[i];
        char esc[6] = {'\\', 0};
        size_t len = 2;
        switch (ch) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        default:
            esc[1] = 'u';
            esc[2] = esc[3] = '0';
            esc[4] = hex[ch >> 4];
            esc[5] = hex[ch & 15];
            len = 6;
        }
        jline_put(b, esc, len);
        size_t run = ++i;
        i = (size_t)(plain_run(s + i, s + n, &kinds) - s);
        jline_put(b, s + run, i - run);
    }
    jline_putc(b, '"');
}

static void put_int(jline *b, int64_t v)
{
    char tmp[24];
    size_t n = 0;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[sizeof tmp - ++n] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        tmp[sizeof tmp - ++n] = '-';
    jline_put(b, tmp + sizeof tmp - n, n);
}

/* nulls: unset struct fields as null (the stored form), not left out. */
static void put_value(jline *b, const ty *t, const value *v, bool nulls)
{
    switch (v->kind) {
    case VAL_NONE: jline_put(b, "null", 4); return;
    case VAL_INT: put_int(b, v->u.i); return;
    case VAL_BOOL: v->u.b ? jline_put(b, "true", 4) : jline_put(b, "false", 5); return;
    case VAL_ENUM: {
        const char *name = t->values[v->u.e];
        json_put_string(b, name, strlen(name));
        return;
    }
    case VAL_STRING: json_put_string(b, v->u.s, v->len); return;
    case VAL_STRUCT: {
        jline_putc(b, '{');
        bool first = true;
        for (uint32_t i = 0; i < v->len; i++) {
            if (v->u.items[i].kind == VAL_NONE && !nulls)
                continue;
            /* field names are identifiers: nothing to escape */
            const char *name = t->fields[i].name;
            size_t len = field_name_len(&t->fields[i]);
            room(b, len + 4);
            if (!first)
                b->data[b->len++] = ',';
            b->data[b->len++] = '"';
            memcpy(b->data + b->len, name, len);
            b->len += len;
            b->data[b->len++] = '"';
            b->data[b->len++] = ':';
            put_value(b, t->fields[i].type, &v->u.items[i], nulls);
            first = false;
        }
        jline_putc(b, '}');
        return;
    }
    case VAL_LIST:
        jline_putc(b, '[');
        for (uint32_t i = 0; i < v->len; i++) {
            if (i)
                jline_putc(b, ',');
            put_value(b, t->elem, &v->u.items[i], nulls);
        }
        jline_putc(b, ']');
        return;
    }
}

void json_put_value(jline *b, const ty *t, const value *v)
{
    put_value(b, t, v, false);
}

/* Field i's member, as put_value writes it in a struct: nothing when unset. */
static void put_member(jline *b, const ty *t, const value *v, uint32_t i)
{
    if (v->u.items[i].kind == VAL_NONE)
        return;
    const char *name = t->fields[i].name;
    jline_putc(b, '"');
    jline_put(b, name, field_name_len(&t->fields[i]));
    jline_put(b, "\":", 2);
    put_value(b, t->fields[i].type, &v->u.items[i], false);
}

/* k's runs for v: each set kept member in place, and before each field not
 * kept its comma and name, as if it were set. */
static void kept_fill(const ty *t, const value *v, uint64_t fields, json_kept *k)
{
    k->bytes.len = 0;
    free(k->at);
    free(k->var);
    k->at = xcalloc((size_t)v->len + 2, sizeof *k->at);
    k->var = xcalloc((size_t)v->len + 1, sizeof *k->var);
    k->nvar = 0;
    jline_putc(&k->bytes, '{');
    bool first = true;
    for (uint32_t i = 0; i < v->len; i++) {
        if (i < 64 && (fields >> i & 1)) {
            if (v->u.items[i].kind == VAL_NONE)
                continue;
            if (!first)
                jline_putc(&k->bytes, ',');
            put_member(&k->bytes, t, v, i);
        } else {
            if (!first)
                jline_putc(&k->bytes, ',');
            jline_putc(&k->bytes, '"');
            jline_put(&k->bytes, t->fields[i].name, field_name_len(&t->fields[i]));
            jline_put(&k->bytes, "\":", 2);
            k->var[k->nvar++] = i;
            k->at[k->nvar] = k->bytes.len;
        }
        first = false;
    }
    jline_putc(&k->bytes, '}');
    k->at[k->nvar + 1] = k->bytes.len;
    k->fields = fields;
    k->ready = true;
}

void json_put_struct_kept(jline *b, const ty *t, const value *v, uint64_t fields, json_kept *k)
{
    if (v->kind != VAL_STRUCT) {
        put_value(b, t, v, false);
        return;
    }
    if (!k->ready || k->fields != fields)
        kept_fill(t, v, fields, k);
    for (uint32_t j = 0; j < k->nvar; j++)
        if (v->u.items[k->var[j]].kind == VAL_NONE) { /* no member, no comma: the runs do not fit */
            put_value(b, t, v, false);
            return;
        }
    jline_put(b, k->bytes.data, k->at[1]);
    for (uint32_t j = 0; j < k->nvar; j++) {
        uint32_t i = k->var[j];
        put_value(b, t->fields[i].type, &v->u.items[i], false);
        jline_put(b, k->bytes.data + k->at[j + 1], k->at[j + 2] - k->at[j + 1]);
    }
}

void json_kept_free(json_kept *k)
{
    jline_free(&k->bytes);
    free(k->at);
    free(k->var);
    *k = (json_kept){0};
}

void json_put_stored(jline *b, const ty *t, const value *v)
{
    put_value(b, t, v, true);
}

/* ---- decoding ---- */

/* Where a value is, for messages: built on the stack as the decoder
 * descends and formatted only when something fails. */
typedef struct jpath {
    const struct jpath *up; /* NULL at the root, whose name is what the caller gave */
    const char *name;       /* a field, or NULL for a list item */
    size_t len, index;
} jpath;

typedef struct jd {
    const char *p, *end;
    arena *a;          /* NULL: strings are checked but not unescaped */
    bool keep;         /* string values are copied into a even without escapes */
    bool any_text;     /* strings need not keep UTF8_RULE (a refusal's text, sanitised after) */
    size_t number_max; /* when not 0: a number longer than this is refused */
    bool loose;        /* json_put_value would not write the text read back byte for byte */
    char *why;
    size_t size;
} jd;

static int fail(jd *d, const jpath *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static size_t path_format(const jpath *p, char *out, size_t size)
{
    size_t n = p->up ? path_format(p->up, out, size) : 0;
    int w;
    if (!p->up)
        w = snprintf(out, size, "%.*s", (int)p->len, p->name);
    else if (p->name)
        w = snprintf(out + n, size - n, "%s%.*s", n ? "." : "", (int)p->len, p->name);
    else
        w = snprintf(out + n, size - n, "[%zu]", p->index);
    n += w > 0 ? (size_t)w : 0;
    return n < size ? n : size - 1;
}

static bool path_empty(const jpath *p)
{
    return !p->up && p->len == 0;
}

static int fail(jd *d, const jpath *what, const char *fmt, ...)
{
    char path[256];
    size_t n = path_format(what, path, sizeof path);
    int k = n ? snprintf(d->why, d->size, "%s: ", path) : 0;
    if (k < 0 || (size_t)k >= d->size)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->why + k, d->size - (size_t)k, fmt, ap);
    va_end(ap);
    return -1;
}

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void ws_run(jd *d)
{
    d->loose = true; /* the encoder writes no white space */
    do
        d->p++;
    while (d->p < d->end && is_ws(*d->p));
}

/* Past white space; inlined for the usual case, none. */
static inline void ws(jd *d)
{
    if (d->p < d->end && is_ws(*d->p))
        ws_run(d);
}

static const char *found(const jd *d)
{
    if (d->p >= d->end)
        return "the end of the line";
    switch (*d->p) {
    case '"': return "a string";
    case '{': return "an object";
    case '[': return "an array";
    case 't':
    case 'f': return "a boolean";
    case 'n': return "null";
    default:
        return *d->p == '-' || (*d->p >= '0' && *d->p <= '9') ? "a number"
                                                              : "something that is not JSON";
    }
}

static bool literal(jd *d, const char *word, size_t n)
{
    if ((size_t)(d->end - d->p) < n || memcmp(d->p, word, n) != 0)
        return false;
    d->p += n;
    return true;
}

static int hex4(const char *p, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (uint32_t)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12);
        o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18);
    o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A string at d->p ('"'). Without escapes *s points into the input;
 * otherwise into d->a (or nowhere when d->a is NULL: a check only). */
static int string(jd *d, const jpath *what, const char **s, uint32_t *len)
{
    const char *start = d->p + 1;
    unsigned char kinds = 0; /* 2 when a byte past ASCII: only then can the rule be broken */
    const char *p = plain_run(start, d->end, &kinds);
    if (p < d->end && *p == '"') {
        if (!d->any_text && (kinds & 2) && !utf8_keeps_rule(start, (size_t)(p - start)))
            return fail(d, what, UTF8_RULE);
        *s = start;
        *len = (uint32_t)(p - start);
        d->p = p + 1;
        return 0;
    }
    /* escapes: find the end first, so the copy is sized by this string */
    const char *q = p;
    while (q < d->end && *q != '"') {
        if ((unsigned char)*q < 0x20)
            return fail(d, what, "a control character inside a string");
        q += *q == '\\' ? 2 : 1;
    }
    if (q >= d->end)
        return fail(d, what, "a string that does not end");
    /* the bytes as written (escapes are ASCII, so no character spans one) */
    if (!d->any_text && !utf8_keeps_rule(start, (size_t)(q - start)))
        return fail(d, what, UTF8_RULE);
    char *out = d->a ? arena_alloc(d->a, (size_t)(q - start) + 1) : NULL;
    char scratch[4];
    size_t n = 0;
    for (p = start; p < q;) {
        if (*p != '\\') {
            if (out)
                out[n] = *p;
            n++, p++;
            continue;
        }
        char e = p[1];
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e && simple) {
            static const char to[] = "\"\\/\b\f\n\r\t";
            if (out)
                out[n] = to[simple - "\"\\/bfnrt"];
            n++, p += 2;
            continue;
        }
        uint32_t cp, lo;
        if (e != 'u' || q - p < 6 || hex4(p + 2, &cp) < 0)
            return fail(d, what, "an invalid escape in a string");
        p += 6;
        if (cp >= 0xDC00 && cp <= 0xDFFF)
            return fail(d, what, "a lone surrogate \\u escape in a string");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (q - p < 6 || p[0] != '\\' || p[1] != 'u' || hex4(p + 2, &lo) < 0 || lo < 0xDC00 ||
                lo > 0xDFFF)
                return fail(d, what, "a lone surrogate \\u escape in a string");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            p += 6;
        }
        if (cp == 0 && !d->any_text)
            return fail(d, what, UTF8_RULE);
        n += put_utf8(out ? out + n : scratch, cp);
    }
    *s = out;
    *len = (uint32_t)n;
    d->p = q + 1;
    return 0;
}

static int skip_value(jd *d, const jpath *what, int depth);

static int skip_number(jd *d, const jpath *what)
{
    const char *p = d->p;
    if (p < d->end && *p == '-')
        p++;
    if (p >= d->end || *p < '0' || *p > '9')
        return fail(d, what, "an invalid number");
    if (*p == '0')
        p++;
    else
        while (p < d->end && *p >= '0' && *p <= '9')
            p++;
    if (p < d->end && *p == '.') {
        if (++p >= d->end || *p < '0' || *p > '9')
            return fail(d, what, "an invalid number");
        while (p < d->end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < d->end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < d->end && (*p == '+' || *p == '-'))
            p++;
        if (p >= d->end || *p < '0' || *p > '9')
            return fail(d, what, "an invalid number");
        while (p < d->end && *p >= '0' && *p <= '9')
            p++;
    }
    if (d->number_max && (size_t)(p - d->p) > d->number_max)
        return fail(d, what, "a number longer than %zu characters", d->number_max);
    d->p = p;
    return 0;
}

/* Before a value: 0 with d->p at its first byte, or -1 when it is nested
 * too deep or missing. */
static int value_start(jd *d, const jpath *what, int depth)
{
    if (depth > JSON_MAX_DEPTH)
        return fail(d, what, "nested deeper than %d levels", JSON_MAX_DEPTH);
    ws(d);
    if (d->p >= d->end)
        return fail(d, what, "expected a value, got the end of the line");
    return 0;
}

/* Steps over the '{' or '[' at d->p; true, and past close too, when the
 * object or array is empty. */
static bool open_empty(jd *d, char close)
{
    d->p++;
    ws(d);
    if (d->p < d->end && *d->p == close) {
        d->p++;
        return true;
    }
    return false;
}

/* After a member or an item: 1 past a ',' (another follows), 0 past close
 * (that was the last), -1 at anything else. */
static int next_or_close(jd *d, const jpath *what, char close)
{
    ws(d);
    if (d->p < d->end && (*d->p == ',' || *d->p == close))
        return *d->p++ == ',';
    return fail(d, what,
                close == '}' ? "expected ',' or '}' in an object, got %s"
                             : "expected ',' or ']' in an array, got %s",
                found(d));
}

/* Calls member(d, key, len, ctx) for each member of the object at d->p,
 * positioned at the member's value, which member must consume. */
typedef int (*member_fn)(jd *d, const char *key, uint32_t len, void *ctx);

/* A member's name at d->p and the ':' after it, in *key (into the input,
 * or the arena when it has escapes). expect, when not NULL, is the name
 * the caller looks for first (an identifier: nothing in it to escape):
 * written as is, it is taken without scanning, and the result is 1. */
static int member_key(jd *d, const jpath *what, const field *expect, const char **key,
                      uint32_t *len)
{
    if (expect) {
        size_t n = field_name_len(expect);
        const char *p = d->p;
        if ((size_t)(d->end - p) > n + 2 && p[0] == '"' && memcmp(p + 1, expect->name, n) == 0 &&
            p[n + 1] == '"' && p[n + 2] == ':') {
            *key = p + 1;
            *len = (uint32_t)n;
            d->p = p + n + 3;
            ws(d);
            return 1;
        }
    }
    if (d->p >= d->end || *d->p != '"')
        return fail(d, what, "expected a member name, got %s", found(d));
    if (string(d, what, key, len) < 0)
        return -1;
    ws(d);
    if (d->p >= d->end || *d->p != ':')
        return fail(d, what, "expected ':' after a member name");
    d->p++;
    ws(d);
    return 0;
}

static int object(jd *d, const jpath *what, member_fn member, void *ctx)
{
    if (open_empty(d, '}'))
        return 0;
    for (;;) {
        ws(d);
        const char *key = NULL;
        uint32_t len = 0;
        if (member_key(d, what, NULL, &key, &len) < 0)
            return -1;
        if (member(d, key, len, ctx) < 0)
            return -1;
        int more = next_or_close(d, what, '}');
        if (more <= 0)
            return more;
    }
}

/* Calls item(d, index, ctx) for each item of the array at d->p, positioned
 * at the item, which item must consume. */
typedef int (*item_fn)(jd *d, size_t index, void *ctx);

static int array(jd *d, const jpath *what, item_fn item, void *ctx)
{
    if (open_empty(d, ']'))
        return 0;
    for (size_t i = 0;; i++) {
        if (item(d, i, ctx) < 0)
            return -1;
        int more = next_or_close(d, what, ']');
        if (more <= 0)
            return more;
    }
}

typedef struct skip_ctx {
    const jpath *what;
    int depth;
} skip_ctx;

static int skip_member(jd *d, const char *key, uint32_t len, void *ctx)
{
    skip_ctx *c = ctx;
    return skip_value(d, c->what, c->depth);
}

static int skip_item(jd *d, size_t index, void *ctx)
{
    skip_ctx *c = ctx;
    return skip_value(d, c->what, c->depth);
}

static int skip_value(jd *d, const jpath *what, int depth)
{
    if (value_start(d, what, depth) < 0)
        return -1;
    const char *s;
    uint32_t len;
    arena *a = d->a;
    int rc;
    switch (*d->p) {
    case '"':
        d->a = NULL;
        rc = string(d, what, &s, &len);
        d->a = a;
        return rc;
    case '{': {
        skip_ctx c = {what, depth + 1};
        d->a = NULL;
        rc = object(d, what, skip_member, &c);
        d->a = a;
        return rc;
    }
    case '[': {
        skip_ctx c = {what, depth + 1};
        return array(d, what, skip_item, &c);
    }
    case 't': return literal(d, "true", 4) ? 0 : fail(d, what, "an invalid literal");
    case 'f': return literal(d, "false", 5) ? 0 : fail(d, what, "an invalid literal");
    case 'n': return literal(d, "null", 4) ? 0 : fail(d, what, "an invalid literal");
    default: return skip_number(d, what);
    }
}

static int decode(jd *d, const ty *t, const jpath *what, value *out, int depth);

static int integer(jd *d, const jpath *what, int64_t *out)
{
    const char *p = d->p;
    bool neg = p < d->end && *p == '-';
    if (neg)
        p++;
    if (p >= d->end || *p < '0' || *p > '9')
        return fail(d, what, "expected an integer, got %s", found(d));
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, v = 0;
    const char *digits = p;
    for (; p < d->end && *p >= '0' && *p <= '9'; p++) {
        unsigned dg = (unsigned)(*p - '0');
        if (p - digits >= 18 && v > (limit - dg) / 10) { /* 18 digits fit */
            while (p < d->end && *p >= '0' && *p <= '9')
                p++;
            return fail(d, what, "%.*s is out of the range of a 64-bit integer",
                        (int)(p - d->p > 40 ? 40 : p - d->p), d->p);
        }
        v = v * 10 + dg;
    }
    if (*digits == '0' && p - digits > 1)
        return fail(d, what, "an integer with a leading zero");
    if (p < d->end && (*p == '.' || *p == 'e' || *p == 'E'))
        return fail(d, what, "expected an integer, got a number with a fraction or exponent");
    if (neg && v == 0) /* -0, written 0 */
        d->loose = true;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    d->p = p;
    return 0;
}

/* Whether key[0..len) is name, without measuring name first (a key may
 * hold a NUL from a \u0000 escape: name never matches it). */
static bool key_is(const char *key, uint32_t len, const char *name)
{
    for (uint32_t i = 0; i < len; i++)
        if (!name[i] || name[i] != key[i])
            return false;
    return name[len] == '\0';
}

typedef struct struct_ctx {
    const ty *t;
    const jpath *what;
    value *items;
    uint64_t seen_few; /* which of fields 0..63 were seen */
    bool *seen;        /* the fields above, for a type with more */
    int depth;
    size_t next; /* the field after the last member's */
} struct_ctx;

/* The member at d->p of the object decode_struct reads, key and value. */
static int struct_member(jd *d, struct_ctx *c)
{
    const ty *t = c->t;
    /* first where an encoder in declaration order puts it: after the last */
    size_t i = c->next;
    const char *key = NULL, *at = d->p;
    uint32_t len = 0;
    int hit = member_key(d, c->what, i < t->nfields ? &t->fields[i] : NULL, &key, &len);
    if (hit < 0)
        return -1;
    if (!hit && (i >= t->nfields || !key_is(key, len, t->fields[i].name)))
        for (i = 0; i < t->nfields && !key_is(key, len, t->fields[i].name);)
            i++;
    /* before the last member's field, or escaped: the encoder writes neither
       (the fields it passed over are looked at when the object ends) */
    if (i < c->next || (!hit && key != at + 1))
        d->loose = true;
    c->next = i + 1;
    if (i == t->nfields)
        return fail(d, c->what, "'%.*s' is not a field of %s", (int)(len > 100 ? 100 : len), key,
                    path_empty(c->what) ? "the arguments" : "this object");
    uint64_t bit = i < 64 ? UINT64_C(1) << i : 0;
    if (bit ? c->seen_few & bit : c->seen[i - 64])
        return fail(d, c->what, "'%s' appears twice", t->fields[i].name);
    if (bit)
        c->seen_few |= bit;
    else
        c->seen[i - 64] = true;
    const field *f = &t->fields[i];
    jpath sub = {.up = c->what, .name = f->name, .len = len};
    if (d->p < d->end && *d->p == 'n' && f->optional) {
        if (!literal(d, "null", 4))
            return fail(d, &sub, "an invalid literal");
        d->loose = true; /* the encoder leaves an unset field out */
        c->items[i] = (value){.kind = VAL_NONE};
        return 0;
    }
    return decode(d, f->type, &sub, &c->items[i], c->depth + 1);
}

static int decode_struct(jd *d, const ty *t, const jpath *what, value *out, int depth)
{
    if (*d->p != '{')
        return fail(d, what, "expected an object, got %s", found(d));
    /* every item is decoded or takes its initial value below */
    value *items = arena_alloc_raw(d->a, (t->nfields ? t->nfields : 1) * sizeof *items);
    struct_ctx c = {
        t, what, items, 0, t->nfields > 64 ? arena_alloc(d->a, t->nfields - 64) : NULL, depth, 0};
    if (!open_empty(d, '}'))
        for (int more = 1; more > 0;) {
            ws(d);
            if (struct_member(d, &c) < 0)
                return -1;
            if ((more = next_or_close(d, what, '}')) < 0)
                return -1;
        }
    uint64_t all = t->nfields >= 64 ? UINT64_MAX : (UINT64_C(1) << t->nfields) - 1;
    for (size_t i = c.seen_few == all ? 64 : 0; i < t->nfields; i++) {
        const field *f = &t->fields[i];
        if (i < 64 ? c.seen_few >> i & 1 : c.seen[i - 64])
            continue;
        if (field_required(f))
            return fail(d, what, "missing '%s'", f->name);
        items[i] = field_initial(f);
        if (items[i].kind != VAL_NONE) /* a default, which the encoder writes */
            d->loose = true;
    }
    *out = (value){.kind = VAL_STRUCT, .len = (uint32_t)t->nfields, .u.items = items};
    return 0;
}

typedef struct list_ctx {
    const ty *t;
    const jpath *what;
    value *items;
    size_t n, cap;
    int depth;
} list_ctx;

static int list_item(jd *d, size_t index, void *ctx)
{
    list_ctx *c = ctx;
    if (c->n == c->cap) { /* the arena keeps the old array until it is reset */
        value *more = arena_alloc_raw(d->a, 2 * c->cap * sizeof *more);
        memcpy(more, c->items, c->n * sizeof *more);
        c->items = more;
        c->cap *= 2;
    }
    jpath sub = {.up = c->what, .index = index};
    return decode(d, c->t->elem, &sub, &c->items[c->n++], c->depth + 1);
}

static int decode_list(jd *d, const ty *t, const jpath *what, value *out, int depth)
{
    if (*d->p != '[')
        return fail(d, what, "expected an array, got %s", found(d));
    list_ctx c = {t, what, arena_alloc_raw(d->a, 8 * sizeof(value)), 0, 8, depth};
    if (array(d, what, list_item, &c) < 0)
        return -1;
    *out = (value){.kind = VAL_LIST, .len = (uint32_t)c.n, .u.items = c.items};
    return 0;
}

static void enum_names(const ty *t, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < t->nvalues && n < size; i++) {
        int w = snprintf(buf + n, size - n, "%s%s", i ? ", " : "", t->values[i]);
        if (w < 0)
            break;
        n += (size_t)w;
    }
}

static int decode(jd *d, const ty *t, const jpath *what, value *out, int depth)
{
    if (value_start(d, what, depth) < 0)
        return -1;
    const char *s;
    uint32_t len;
    switch (t->kind) {
    case TY_INT: out->kind = VAL_INT; return integer(d, what, &out->u.i);
    case TY_STRING: {
        const char *start = d->p + 1;
        if (*d->p != '"')
            return fail(d, what, "expected a string, got %s", found(d));
        if (string(d, what, &s, &len) < 0)
            return -1;
        if (s != start) /* unescaped: the encoder escapes less */
            d->loose = true;
        else if (d->keep) /* borrowed from the input */
            s = arena_strndup(d->a, s, len);
        *out = (value){.kind = VAL_STRING, .len = len, .u.s = s};
        return 0;
    }
    case TY_BOOL:
        if (literal(d, "true", 4) || literal(d, "false", 5)) {
            *out = (value){.kind = VAL_BOOL, .u.b = d->p[-1] == 'e' && d->p[-2] == 'u'};
            return 0;
        }
        return fail(d, what, "expected true or false, got %s", found(d));
    case TY_ENUM: {
        char names[256];
        if (*d->p != '"') {
            enum_names(t, names, sizeof names);
            return fail(d, what, "expected one of %s, got %s", names, found(d));
        }
        const char *start = d->p + 1;
        if (string(d, what, &s, &len) < 0)
            return -1;
        if (s != start)
            d->loose = true;
        int e = ty_enum_index(t, s, len);
        if (e < 0) {
            enum_names(t, names, sizeof names);
            return fail(d, what, "'%.*s' is not one of %s", (int)(len > 60 ? 60 : len), s, names);
        }
        *out = (value){.kind = VAL_ENUM, .u.e = e};
        return 0;
    }
    case TY_STRUCT: return decode_struct(d, t, what, out, depth);
    case TY_LIST: return decode_list(d, t, what, out, depth);
    }
    return fail(d, what, "a type this decoder does not know");
}

static int decode_text(jd *d, const ty *t, const char *what, value *out)
{
    jpath root = {.name = what, .len = strlen(what)};
    if (decode(d, t, &root, out, 0) < 0)
        return -1;
    ws(d);
    if (d->p != d->end)
        return fail(d, &root, "unexpected text after the value");
    return 0;
}

int json_decode(const char *s, size_t n, const ty *t, const char *what, arena *a, value *out,
                char *why, size_t size)
{
    jd d = {.p = s, .end = s + n, .a = a, .why = why, .size = size};
    return decode_text(&d, t, what, out);
}

/* ---- the exact form, read fast ---- */

/* The value of type t at *at in the form json_put_value writes (no white
 * space, fields in declaration order, unset optional fields left out, no
 * escapes, no -0, integers of at most 18 digits), decoded into *out with
 * *at moved past it: 0. -1 at anything else, having consumed nothing that
 * matters: the caller then reads the text again with the full decoder,
 * which also words what is wrong. What bench writes to bench serve is in
 * this form, and so is read here in one tight pass per field. */
static int exact_value(const char **at, const char *end, const ty *t, arena *a, value *out);

static int exact_string(const char **at, const char *end, const char **s, uint32_t *len)
{
    const char *p = *at;
    if (p >= end || *p != '"')
        return -1;
    const char *start = ++p;
    unsigned char kinds = 0;
    p = plain_run(start, end, &kinds);
    if (p >= end || *p != '"' || ((kinds & 2) && !utf8_keeps_rule(start, (size_t)(p - start))))
        return -1;
    *s = start;
    *len = (uint32_t)(p - start);
    *at = p + 1;
    return 0;
}

static int exact_int(const char **at, const char *end, int64_t *out)
{
    const char *p = *at;
    bool neg = p < end && *p == '-';
    p += neg;
    const char *digits = p;
    uint64_t v = 0;
    for (; p < end && *p >= '0' && *p <= '9'; p++)
        v = v * 10 + (uint64_t)(*p - '0');
    size_t n = (size_t)(p - digits);
    if (n == 0 || n > 18 || (*digits == '0' && (n > 1 || neg)) ||
        (p < end && (*p == '.' || *p == 'e' || *p == 'E')))
        return -1;
    *out = neg ? -(int64_t)v : (int64_t)v;
    *at = p;
    return 0;
}

static int exact_struct(const char **at, const char *end, const ty *t, arena *a, value *out)
{
    const char *p = *at;
    if (p >= end || *p != '{')
        return -1;
    value *items = arena_alloc_raw(a, (t->nfields ? t->nfields : 1) * sizeof *items);
    char sep = '{';
    for (size_t i = 0; i < t->nfields; i++) {
        const field *f = &t->fields[i];
        size_t n = field_name_len(f);
        if ((size_t)(end - p) > n + 3 && p[0] == sep && p[1] == '"' &&
            memcmp(p + 2, f->name, n) == 0 && p[n + 2] == '"' && p[n + 3] == ':') {
            p += n + 4;
            if (exact_value(&p, end, f->type, a, &items[i]) < 0)
                return -1;
            sep = ',';
        } else if (f->optional && !f->has_default && f->type->kind != TY_LIST) {
            items[i] = (value){.kind = VAL_NONE}; /* unset, and so left out */
        } else {
            return -1;
        }
    }
    if (sep == '{' && (p >= end || *p++ != '{'))
        return -1;
    if (p >= end || *p != '}')
        return -1;
    *at = p + 1;
    *out = (value){.kind = VAL_STRUCT, .len = (uint32_t)t->nfields, .u.items = items};
    return 0;
}

static int exact_list(const char **at, const char *end, const ty *t, arena *a, value *out)
{
    const char *p = *at;
    if (p >= end || *p++ != '[')
        return -1;
    size_t n = 0, cap = 8;
    value *items = arena_alloc_raw(a, cap * sizeof *items);
    if (p < end && *p == ']') {
        p++;
    } else {
        for (;;) {
            if (n == cap) { /* the arena keeps the old array until it is reset */
                value *more = arena_alloc_raw(a, 2 * cap * sizeof *more);
                memcpy(more, items, n * sizeof *more);
                items = more;
                cap *= 2;
            }
            if (exact_value(&p, end, t->elem, a, &items[n++]) < 0 || p >= end)
                return -1;
            if (*p == ']') {
                p++;
                break;
            }
            if (*p++ != ',')
                return -1;
        }
    }
    *at = p;
    *out = (value){.kind = VAL_LIST, .len = (uint32_t)n, .u.items = items};
    return 0;
}

static int exact_value(const char **at, const char *end, const ty *t, arena *a, value *out)
{
    const char *s;
    uint32_t len;
    switch (t->kind) {
    case TY_INT: out->kind = VAL_INT; return exact_int(at, end, &out->u.i);
    case TY_STRING:
        if (exact_string(at, end, &s, &len) < 0)
            return -1;
        *out = (value){.kind = VAL_STRING, .len = len, .u.s = s};
        return 0;
    case TY_BOOL: {
        const char *p = *at;
        bool yes = end - p >= 4 && !memcmp(p, "true", 4);
        if (!yes && !(end - p >= 5 && !memcmp(p, "false", 5)))
            return -1;
        *at = p + (yes ? 4 : 5);
        *out = (value){.kind = VAL_BOOL, .u.b = yes};
        return 0;
    }
    case TY_ENUM: {
        int e;
        if (exact_string(at, end, &s, &len) < 0 || (e = ty_enum_index(t, s, len)) < 0)
            return -1;
        *out = (value){.kind = VAL_ENUM, .u.e = e};
        return 0;
    }
    case TY_STRUCT: return exact_struct(at, end, t, a, out);
    case TY_LIST: return exact_list(at, end, t, a, out);
    }
    return -1;
}

int json_decode_head(const char *s, size_t n, const ty *t, const char *what, arena *a, value *out,
                     const char **rest, bool *exact, char *why, size_t size)
{
    const char *p = s;
    if (exact_value(&p, s + n, t, a, out) == 0) {
        *rest = p;
        if (exact)
            *exact = true;
        return 0;
    }
    jd d = {.p = s, .end = s + n, .a = a, .why = why, .size = size};
    jpath root = {.name = what, .len = strlen(what)};
    if (decode(&d, t, &root, out, 0) < 0)
        return -1;
    *rest = d.p;
    if (exact)
        *exact = !d.loose;
    return 0;
}

int json_decode_stored(const char *s, size_t n, const ty *t, const char *what, arena *a, value *out,
                       char *why, size_t size)
{
    jd d = {.p = s, .end = s + n, .a = a, .keep = true, .why = why, .size = size};
    return decode_text(&d, t, what, out);
}

/* ---- requests ---- */

static const jpath at_root = {.name = ""}, at_verb = {.name = "verb", .len = 4},
                   at_query = {.name = "query", .len = 5}, at_args = {.name = "args", .len = 4},
                   at_count = {.name = "count", .len = 5}, at_ok = {.name = "ok", .len = 2},
                   at_error = {.name = "error", .len = 5};

typedef struct request_ctx {
    json_request *req;
    bool verb, query, args, count;
} request_ctx;

static int request_member(jd *d, const char *key, uint32_t len, void *ctx)
{
    request_ctx *c = ctx;
    bool query = key_is(key, len, "query");
    if (query || key_is(key, len, "verb")) {
        const jpath *at = query ? &at_query : &at_verb;
        const char *s;
        uint32_t n;
        if (d->p >= d->end || *d->p != '"')
            return fail(d, at, "expected a string, got %s", found(d));
        if (string(d, at, &s, &n) < 0)
            return -1;
        c->req->verb = arena_strndup(d->a, s, n);
        *(query ? &c->query : &c->verb) = true;
        return 0;
    }
    if (key_is(key, len, "args")) {
        if (d->p >= d->end || *d->p != '{')
            return fail(d, &at_args, "expected an object, got %s", found(d));
        const char *start = d->p;
        d->any_text = true; /* its strings are held to the rule when decoded, with their path */
        int rc = skip_value(d, &at_args, 1);
        d->any_text = false;
        if (rc < 0)
            return -1;
        c->req->args = start;
        c->req->args_len = (size_t)(d->p - start);
        c->args = true;
        return 0;
    }
    if (key_is(key, len, "count")) {
        if (!literal(d, "true", 4))
            return fail(d, &at_count, "expected true, got %s", found(d));
        c->count = true;
        return 0;
    }
    return fail(d, &at_root,
                "'%.*s' is not a member of a request; a request has verb and args, query and "
                "args, or count",
                (int)(len > 100 ? 100 : len), key);
}

int json_request_parse(const char *s, size_t n, arena *a, json_request *out, char *why, size_t size)
{
    *out = (json_request){.kind = JSON_REQUEST_EMPTY};
    jd d = {.p = s, .end = s + n, .a = a, .why = why, .size = size};
    ws(&d);
    if (d.p >= d.end || *d.p != '{')
        return fail(&d, &at_root, "a request is a JSON object on one line, not %s", found(&d));
    request_ctx c = {.req = out};
    if (object(&d, &at_root, request_member, &c) < 0)
        return -1;
    ws(&d);
    if (d.p != d.end)
        return fail(&d, &at_root, "unexpected text after the request");
    if (c.count && (c.verb || c.query || c.args))
        return fail(&d, &at_root, "a count request has nothing but count");
    if (c.verb && c.query)
        return fail(&d, &at_root, "a request names a verb or a query, not both");
    if (c.count)
        out->kind = JSON_REQUEST_COUNT;
    else if (c.verb)
        out->kind = JSON_REQUEST_COMMAND;
    else if (c.query)
        out->kind = JSON_REQUEST_QUERY;
    else if (c.args)
        return fail(&d, &at_root, "a request with args needs a verb or a query");
    return 0;
}

bool json_request_canonical(const char *s, size_t n, const char **verb, size_t *verb_len,
                            const char **args)
{
    static const char head[] = "{\"verb\":\"", mid[] = "\",\"args\":{";
    size_t h = sizeof head - 1, m = sizeof mid - 1;
    if (n < h + m + 1 || memcmp(s, head, h) != 0)
        return false;
    const char *v = s + h, *end = s + n, *q = v;
    while (q < end && plain[(unsigned char)*q] == 1) /* escapes and past ASCII: the full parse */
        q++;
    if (q == v || (size_t)(end - q) < m + 1 || memcmp(q, mid, m) != 0)
        return false;
    *verb = v;
    *verb_len = (size_t)(q - v);
    *args = q + m - 1; /* at its '{' */
    return true;
}

/* ---- answers ---- */

typedef struct answer_ctx {
    int ok; /* -1: not seen */
    char *msg;
    size_t msize;
} answer_ctx;

static int answer_member(jd *d, const char *key, uint32_t len, void *ctx)
{
    answer_ctx *c = ctx;
    if (key_is(key, len, "ok")) {
        if (literal(d, "true", 4))
            c->ok = 1;
        else if (literal(d, "false", 5))
            c->ok = 0;
        else
            return fail(d, &at_ok, "expected true or false, got %s", found(d));
        return 0;
    }
    if (key_is(key, len, "error") && d->p < d->end && *d->p == '"') {
        const char *s;
        uint32_t n;
        d->any_text = true; /* a runtime's own words: made safe to print, never refused */
        int rc = string(d, &at_error, &s, &n);
        d->any_text = false;
        if (rc < 0)
            return -1;
        if (c->msize)
            utf8_sanitize(c->msg, c->msize, s, n);
        return 0;
    }
    return skip_value(d, &at_root, 1);
}

int json_answer_read(const char *s, size_t n, char *msg, size_t msize)
{
    static const char yes[] = "{\"ok\":true";
    size_t k = sizeof yes - 1;
    while (n && (s[n - 1] == '\r' || s[n - 1] == ' '))
        n--;
    if (n > k && memcmp(s, yes, k) == 0 && (s[k] == ',' || s[k] == '}') && s[n - 1] == '}')
        return 1;
    /* anything else is read in full, error strings unescaped in a small arena */
    arena a = {0};
    char why[256];
    jd d = {.p = s, .end = s + n, .a = &a, .why = why, .size = sizeof why};
    answer_ctx c = {.ok = -1, .msg = msg, .msize = msize};
    if (msize)
        msg[0] = '\0';
    ws(&d);
    int rc = d.p < d.end && *d.p == '{' && object(&d, &at_root, answer_member, &c) == 0 ? 0 : -1;
    ws(&d);
    arena_free(&a);
    if (rc < 0 || d.p != d.end || c.ok < 0)
        return -1;
    if (c.ok == 0 && msize && !msg[0])
        snprintf(msg, msize, "refused without saying why");
    return c.ok;
}

/* cJSON (the process target's full parse of an answer) reads a number
 * through a buffer of 64 bytes in some builds, where a longer one fails: the
 * fast path leaves those to that parse, whichever build it is. */
enum { CJSON_NUMBER_MAX = 63 };

int json_answer_events(const char *s, size_t n, jline *names, const char *known, size_t known_len)
{
    static const char head[] = "{\"ok\":true,\"events\":[", name[] = "{\"name\":\"",
                      payload[] = "\",\"payload\":";
    const size_t h = sizeof head - 1, k = sizeof name - 1, m = sizeof payload - 1;
    const size_t start = names->len;
    const char *p = s + h, *end = s + n;
    if (n < h + 2 || memcmp(s, head, h) != 0)
        return 0;
    if (*p == ']') {
        p++;
    } else {
        for (;;) {
            if ((size_t)(end - p) < k || memcmp(p, name, k) != 0)
                goto other;
            const char *v = p + k, *q = v;
            while (q < end && plain[(unsigned char)*q]) /* an escape: the full parse */
                q++;
            if ((size_t)(end - q) < m || memcmp(q, payload, m) != 0)
                goto other;
            if (names->len > start)
                jline_put(names, ", ", 2);
            jline_put(names, v, (size_t)(q - v));
            const char *pv = q + m;
            if (known && (size_t)(end - pv) > known_len && memcmp(pv, known, known_len) == 0 &&
                pv[known_len] == '}') {
                p = pv + known_len + 1; /* the caller's own JSON: valid, not read again */
            } else {
                char why[8]; /* a refusal here only sends the line to the full parse */
                jd d = {.p = pv,
                        .end = end,
                        .any_text = true,
                        .number_max = CJSON_NUMBER_MAX,
                        .why = why,
                        .size = sizeof why};
                if (skip_value(&d, &at_root, 1) < 0 || d.p >= end || *d.p != '}')
                    goto other;
                p = d.p + 1;
            }
            if (p < end && *p == ',') {
                p++;
                continue;
            }
            if (p < end && *p == ']') {
                p++;
                break;
            }
            goto other;
        }
    }
    if (end - p == 1 && *p == '}')
        return 1;
other:
    names->len = start;
    return 0;
}
