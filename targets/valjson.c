/* valjson.c: typed JSON writing and reading of values (see valjson.h). */
#include "valjson.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing ---- */

static int reserve(jbuf *b, size_t more)
{
    if (b->len + more + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *d = realloc(b->data, cap);
    if (!d)
        return -1;
    b->data = d;
    b->cap = cap;
    return 0;
}

int jbuf_put(jbuf *b, const char *s, size_t len)
{
    if (reserve(b, len) < 0)
        return -1;
    if (len)
        memcpy(b->data + b->len, s, len);
    b->len += len;
    b->data[b->len] = '\0';
    return 0;
}

void jbuf_free(jbuf *b)
{
    free(b->data);
    *b = (jbuf){0};
}

static int put_int(jbuf *b, int64_t v)
{
    char tmp[24];
    size_t n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[sizeof tmp - 1 - n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        tmp[sizeof tmp - 1 - n++] = '-';
    return jbuf_put(b, tmp + sizeof tmp - n, n);
}

static int put_string(jbuf *b, const char *s, size_t len)
{
    /* the worst case is every byte as \u00XX */
    if (reserve(b, len * 6 + 2) < 0)
        return -1;
    char *o = b->data + b->len;
    *o++ = '"';
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') {
            *o++ = (char)c;
            continue;
        }
        *o++ = '\\';
        switch (c) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '\n': *o++ = 'n'; break;
        case '\r': *o++ = 'r'; break;
        case '\t': *o++ = 't'; break;
        case '\b': *o++ = 'b'; break;
        case '\f': *o++ = 'f'; break;
        default: {
            static const char hex[] = "0123456789abcdef";
            *o++ = 'u';
            *o++ = '0';
            *o++ = '0';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        }
        }
    }
    *o++ = '"';
    b->len = (size_t)(o - b->data);
    b->data[b->len] = '\0';
    return 0;
}

int valjson_write(jbuf *b, const ty *t, const value *v)
{
    switch (v->kind) {
    case VAL_NONE: return jbuf_put(b, "null", 4);
    case VAL_INT: return put_int(b, v->u.i);
    case VAL_BOOL: return v->u.b ? jbuf_put(b, "true", 4) : jbuf_put(b, "false", 5);
    case VAL_STRING: return put_string(b, v->u.s, v->len);
    case VAL_ENUM: {
        const char *name = t->values[v->u.e];
        return put_string(b, name, strlen(name));
    }
    case VAL_LIST:
        if (jbuf_put(b, "[", 1) < 0)
            return -1;
        for (uint32_t i = 0; i < v->len; i++)
            if ((i && jbuf_put(b, ",", 1) < 0) || valjson_write(b, t->elem, &v->u.items[i]) < 0)
                return -1;
        return jbuf_put(b, "]", 1);
    case VAL_STRUCT:
        if (jbuf_put(b, "{", 1) < 0)
            return -1;
        for (uint32_t i = 0; i < v->len; i++) {
            const field *f = &t->fields[i];
            if ((i && jbuf_put(b, ",", 1) < 0) || put_string(b, f->name, strlen(f->name)) < 0 ||
                jbuf_put(b, ":", 1) < 0 || valjson_write(b, f->type, &v->u.items[i]) < 0)
                return -1;
        }
        return jbuf_put(b, "}", 1);
    }
    return -1;
}

/* ---- reading ---- */

typedef struct reader {
    const char *p, *end;
    arena *a;
} reader;

static void skip_ws(reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r'))
        r->p++;
}

static bool eat(reader *r, char c)
{
    skip_ws(r);
    if (r->p < r->end && *r->p == c) {
        r->p++;
        return true;
    }
    return false;
}

static bool word(reader *r, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n) != 0)
        return false;
    r->p += n;
    return true;
}

static int hex4(reader *r, uint32_t *out)
{
    if (r->end - r->p < 4)
        return -1;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = *r->p++;
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
        o[0] = (char)(0xc0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* A JSON string at r->p (after white space) into the arena: *s, *len. When
 * a is NULL the string is only skipped. With borrow, a string without
 * escapes is not copied: *s points into the text. */
static int read_string_as(reader *r, arena *a, const char **s, uint32_t *len, bool borrow)
{
    if (!eat(r, '"'))
        return -1;
    const char *start = r->p;
    bool escaped = false;
    while (r->p < r->end && *r->p != '"') {
        if (*r->p == '\\') {
            escaped = true;
            if (++r->p == r->end)
                return -1;
        }
        r->p++;
    }
    if (r->p == r->end)
        return -1;
    size_t raw = (size_t)(r->p - start);
    r->p++; /* the closing quote */
    if (!a)
        return 0;
    if (!escaped) {
        *s = borrow ? start : arena_strndup(a, start, raw);
        *len = (uint32_t)raw;
        return 0;
    }
    /* escapes only shrink the text, so raw bytes are enough */
    char *o = arena_alloc(a, raw + 1), *out = o;
    reader in = {.p = start, .end = start + raw};
    while (in.p < in.end) {
        char c = *in.p++;
        if (c != '\\') {
            *o++ = c;
            continue;
        }
        switch (*in.p++) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            uint32_t cp, lo;
            if (hex4(&in, &cp) < 0)
                return -1;
            if (cp >= 0xd800 && cp < 0xdc00 && in.end - in.p >= 6 && in.p[0] == '\\' &&
                in.p[1] == 'u') {
                in.p += 2;
                if (hex4(&in, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff)
                    return -1;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            o += put_utf8(o, cp);
            break;
        }
        default: return -1;
        }
    }
    *o = '\0';
    *s = out;
    *len = (uint32_t)(o - out);
    return 0;
}

static int read_string(reader *r, arena *a, const char **s, uint32_t *len)
{
    return read_string_as(r, a, s, len, false);
}

static int read_int(reader *r, int64_t *out)
{
    skip_ws(r);
    bool neg = r->p < r->end && *r->p == '-';
    if (neg)
        r->p++;
    if (r->p == r->end || *r->p < '0' || *r->p > '9')
        return -1;
    uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
        uint64_t d = (uint64_t)(*r->p++ - '0');
        if (v > (limit - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (r->p < r->end && (*r->p == '.' || *r->p == 'e' || *r->p == 'E'))
        return -1; /* not an int */
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

/* Skips any JSON value (for keys the type does not have, and for counting
 * list items). */
static int skip_value(reader *r, int depth)
{
    skip_ws(r);
    if (r->p == r->end || depth > 64)
        return -1;
    char c = *r->p;
    if (c == '"')
        return read_string(r, NULL, NULL, NULL);
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        r->p++;
        if (eat(r, close))
            return 0;
        do {
            if (c == '{' && (read_string(r, NULL, NULL, NULL) < 0 || !eat(r, ':')))
                return -1;
            if (skip_value(r, depth + 1) < 0)
                return -1;
        } while (eat(r, ','));
        return eat(r, close) ? 0 : -1;
    }
    if (word(r, "true") || word(r, "false") || word(r, "null"))
        return 0;
    const char *start = r->p;
    while (r->p < r->end && strchr("+-0123456789.eE", *r->p))
        r->p++;
    return r->p > start ? 0 : -1;
}

static int read_value(reader *r, const ty *t, value *out, int depth);

static int read_struct(reader *r, const ty *t, value *out, int depth)
{
    if (!eat(r, '{'))
        return -1;
    value *items = arena_alloc(r->a, (t->nfields + 1) * sizeof *items); /* zeroed: VAL_NONE */
    *out = (value){.kind = VAL_STRUCT, .len = (uint32_t)t->nfields, .u.items = items};
    if (eat(r, '}'))
        return 0;
    do {
        const char *key;
        uint32_t klen;
        if (read_string_as(r, r->a, &key, &klen, true) < 0 || !eat(r, ':'))
            return -1;
        size_t i = 0;
        while (i < t->nfields &&
               (strlen(t->fields[i].name) != klen || memcmp(t->fields[i].name, key, klen) != 0))
            i++;
        int rc = i < t->nfields ? read_value(r, t->fields[i].type, &items[i], depth + 1)
                                : skip_value(r, depth + 1);
        if (rc < 0)
            return -1;
    } while (eat(r, ','));
    return eat(r, '}') ? 0 : -1;
}

static int read_list(reader *r, const ty *t, value *out, int depth)
{
    if (!eat(r, '['))
        return -1;
    /* count the items first, so the array is allocated once */
    reader probe = *r;
    uint32_t n = 0;
    if (!eat(&probe, ']')) {
        do {
            if (skip_value(&probe, depth + 1) < 0)
                return -1;
            n++;
        } while (eat(&probe, ','));
        if (!eat(&probe, ']'))
            return -1;
    }
    value *items = arena_alloc(r->a, (n + 1) * sizeof *items);
    for (uint32_t i = 0; i < n; i++)
        if ((i && !eat(r, ',')) || read_value(r, t->elem, &items[i], depth + 1) < 0)
            return -1;
    if (!eat(r, ']'))
        return -1;
    *out = (value){.kind = VAL_LIST, .len = n, .u.items = items};
    return 0;
}

static int read_value(reader *r, const ty *t, value *out, int depth)
{
    skip_ws(r);
    if (depth > 64)
        return -1;
    if (word(r, "null")) {
        *out = (value){.kind = VAL_NONE};
        return 0;
    }
    switch (t->kind) {
    case TY_INT: *out = (value){.kind = VAL_INT}; return read_int(r, &out->u.i);
    case TY_BOOL:
        *out = (value){.kind = VAL_BOOL, .u.b = true};
        if (word(r, "true"))
            return 0;
        out->u.b = false;
        return word(r, "false") ? 0 : -1;
    case TY_STRING:
        *out = (value){.kind = VAL_STRING};
        return read_string(r, r->a, &out->u.s, &out->len);
    case TY_ENUM: {
        const char *s;
        uint32_t len;
        if (read_string_as(r, r->a, &s, &len, true) < 0)
            return -1;
        int e = ty_enum_index(t, s, len);
        if (e < 0)
            return -1;
        *out = (value){.kind = VAL_ENUM, .u.e = e};
        return 0;
    }
    case TY_STRUCT: return read_struct(r, t, out, depth);
    case TY_LIST: return read_list(r, t, out, depth);
    }
    return -1;
}

int valjson_read(arena *a, const ty *t, const char *text, size_t len, value *out)
{
    reader r = {.p = text, .end = text + len, .a = a};
    if (read_value(&r, t, out, 0) < 0)
        return -1;
    skip_ws(&r);
    return r.p == r.end ? 0 : -1;
}
