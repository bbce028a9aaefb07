#include "value.h"

#include "alloc.h"

#include <inttypes.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

/* Matching needs match data, and the plan is immutable, so it lives here:
 * one per thread, with a single pair, which serves every pattern (a match
 * whose groups do not fit still returns 0, a match). Made on the first
 * match, so that matching never allocates after that. */
static _Thread_local pcre2_match_data *match_data;

static void free_match_data(void)
{
    pcre2_match_data_free(match_data);
    match_data = NULL;
}

/* The last match of each of a few patterns, by the pattern's text and the
 * subject's bytes (which decide the answer whatever type or plan they come
 * from): an argument that comes back the same on every command, a
 * constant, is matched once, not once per command. Short ones only. */
enum { MATCH_MEMOS = 32, MATCH_MEMO_BYTES = 48 };

typedef struct match_memo {
    const char *pattern; /* as the type held it when matched (compared by text too) */
    size_t pattern_len;
    char pattern_text[MATCH_MEMO_BYTES];
    uint32_t len;
    bool ok;
    char bytes[MATCH_MEMO_BYTES];
} match_memo;

static _Thread_local match_memo match_memos[MATCH_MEMOS];

static bool match(const ty *t, const value *v);

static bool matches(const ty *t, const value *v)
{
    size_t plen = strlen(t->pattern);
    if (v->len > MATCH_MEMO_BYTES || plen > MATCH_MEMO_BYTES)
        return match(t, v);
    match_memo *m = &match_memos[((uintptr_t)t->pattern >> 3) % MATCH_MEMOS];
    if (m->pattern == t->pattern && m->pattern_len == plen && m->len == v->len &&
        memcmp(m->pattern_text, t->pattern, plen) == 0 &&
        (v->len == 0 || memcmp(m->bytes, v->u.s, v->len) == 0))
        return m->ok;
    bool ok = match(t, v);
    m->pattern = t->pattern;
    m->pattern_len = plen;
    memcpy(m->pattern_text, t->pattern, plen);
    m->len = v->len;
    if (v->len)
        memcpy(m->bytes, v->u.s, v->len);
    m->ok = ok;
    return ok;
}

static bool match(const ty *t, const value *v)
{
    if (!match_data) {
        static bool registered; /* the first thread to match is the main one */
        if (!(match_data = pcre2_match_data_create(1, NULL)))
            bench_out_of_memory();
        if (!registered)
            registered = atexit(free_match_data) == 0;
    }
    return pcre2_match(t->re, (PCRE2_SPTR)v->u.s, v->len, 0, 0, match_data, NULL) >= 0;
}

static int fail(char *why, size_t size, const char *what, const char *fmt, long long a, long long b)
{
    char msg[160];
    snprintf(msg, sizeof msg, fmt, a, b);
    snprintf(why, size, "%s: %s", what, msg);
    return -1;
}

static int explain(const ty *t, const value *v, const char *what, char *why, size_t size);

/* Whether v's length in code points keeps t's bounds. Every string is
 * valid UTF-8, of 1 to 4 bytes a code point, so its byte count often
 * decides without counting: at least min_len * 4 bytes, or at most max_len. */
static bool length_ok(const ty *t, const value *v)
{
    int64_t bytes = v->len, least = (bytes + 3) / 4;
    if ((!t->has_min_len || least >= t->min_len) && (!t->has_max_len || bytes <= t->max_len))
        return true;
    int64_t n = (int64_t)utf8_length(v->u.s, v->len);
    return (!t->has_min_len || n >= t->min_len) && (!t->has_max_len || n <= t->max_len);
}

static int check_string(const ty *t, const value *v, const char *what, char *why, size_t size)
{
    long long n = (long long)utf8_length(v->u.s, v->len);
    if (t->has_min_len && n < t->min_len)
        return fail(why, size, what, "%lld character(s), fewer than the minimum %lld", n,
                    t->min_len);
    if (t->has_max_len && n > t->max_len)
        return fail(why, size, what, "%lld character(s), more than the maximum %lld", n,
                    t->max_len);
    if (t->re) {
        if (!matches(t, v)) {
            snprintf(why, size, "%s: '%.*s' does not match the pattern %s", what,
                     (int)(v->len > 60 ? 60 : v->len), v->u.s, t->pattern);
            return -1;
        }
    }
    return 0;
}

static int check_struct(const ty *t, const value *v, const char *what, char *why, size_t size)
{
    for (size_t i = 0; i < t->nfields; i++) {
        const field *f = &t->fields[i];
        char sub[128];
        if (*what)
            snprintf(sub, sizeof sub, "%s.%s", what, f->name);
        else
            snprintf(sub, sizeof sub, "%s", f->name);
        const value *fv = &v->u.items[i];
        if (fv->kind == VAL_NONE) {
            if (f->optional)
                continue;
            snprintf(why, size, "%s is not set", sub);
            return -1;
        }
        if (explain(f->type, fv, sub, why, size) < 0)
            return -1;
    }
    return 0;
}

/* The same rules as value_check without building any message: the common
 * case (everything valid) is checked on every dispatch, so it must be cheap. */
static bool valid(const ty *t, const value *v)
{
    switch (t->kind) {
    case TY_INT: return !(t->has_min && v->u.i < t->min) && !(t->has_max && v->u.i > t->max);
    case TY_STRING: {
        if ((t->has_min_len || t->has_max_len) && !length_ok(t, v))
            return false;
        return !t->re || matches(t, v);
    }
    case TY_BOOL: return true;
    case TY_ENUM: return v->u.e >= 0 && (size_t)v->u.e < t->nvalues;
    case TY_STRUCT:
        for (size_t i = 0; i < t->nfields; i++) {
            const value *fv = &v->u.items[i];
            if (fv->kind == VAL_NONE ? !t->fields[i].optional : !valid(t->fields[i].type, fv))
                return false;
        }
        return true;
    case TY_LIST:
        if (t->has_max_items && (int64_t)v->len > t->max_items)
            return false;
        for (uint32_t i = 0; i < v->len; i++)
            if (!valid(t->elem, &v->u.items[i]))
                return false;
        return true;
    }
    return true;
}

value field_initial(const field *f)
{
    if (f->has_default)
        return f->def;
    if (f->type->kind == TY_LIST)
        return (value){.kind = VAL_LIST};
    return (value){.kind = VAL_NONE};
}

bool field_required(const field *f)
{
    return !f->optional && !f->has_default && f->type->kind != TY_LIST;
}

bool value_type_unconstrained(const ty *t)
{
    switch (t->kind) {
    case TY_BOOL: return true;
    case TY_INT: return !t->has_min && !t->has_max;
    case TY_STRING: return !t->has_min_len && !t->has_max_len && !t->re;
    default: return false;
    }
}

bool value_valid(const ty *t, const value *v)
{
    return valid(t, v);
}

int value_check(const ty *t, const value *v, const char *what, char *why, size_t size)
{
    if (valid(t, v))
        return 0;
    int rc = explain(t, v, what, why, size);
    if (rc == 0) /* cannot happen: valid and explain apply the same rules */
        snprintf(why, size, "%s: invalid value", what);
    return -1;
}

int value_check_field(const ty *st, size_t f, const value *v, uint32_t from, char *why, size_t size)
{
    const field *fd = &st->fields[f];
    if (v->kind == VAL_NONE) {
        if (fd->optional)
            return 0;
        snprintf(why, size, "%s is not set", fd->name);
        return -1;
    }
    const ty *t = fd->type;
    if (t->kind != TY_LIST || from == 0)
        return value_check(t, v, fd->name, why, size);
    if (t->has_max_items && (int64_t)v->len > t->max_items)
        return fail(why, size, fd->name, "%lld item(s), more than the maximum %lld",
                    (long long)v->len, t->max_items);
    for (uint32_t i = from; i < v->len; i++)
        if (!valid(t->elem, &v->u.items[i]))
            return explain(t->elem, &v->u.items[i], fd->name, why, size) < 0 ? -1 : 0;
    return 0;
}

static int explain(const ty *t, const value *v, const char *what, char *why, size_t size)
{
    switch (t->kind) {
    case TY_INT:
        if (t->has_min && v->u.i < t->min)
            return fail(why, size, what, "%lld is less than the minimum %lld", v->u.i, t->min);
        if (t->has_max && v->u.i > t->max)
            return fail(why, size, what, "%lld is greater than the maximum %lld", v->u.i, t->max);
        return 0;
    case TY_STRING: return check_string(t, v, what, why, size);
    case TY_BOOL: return 0;
    case TY_ENUM:
        if (v->u.e < 0 || (size_t)v->u.e >= t->nvalues) {
            snprintf(why, size, "%s: not one of the enum's values", what);
            return -1;
        }
        return 0;
    case TY_STRUCT: return check_struct(t, v, what, why, size);
    case TY_LIST:
        if (t->has_max_items && (int64_t)v->len > t->max_items)
            return fail(why, size, what, "%lld item(s), more than the maximum %lld",
                        (long long)v->len, t->max_items);
        for (uint32_t i = 0; i < v->len; i++)
            if (explain(t->elem, &v->u.items[i], what, why, size) < 0)
                return -1;
        return 0;
    }
    return 0;
}

value value_copy(arena *a, const value *v)
{
    value c = *v;
    if (v->kind == VAL_STRING) {
        c.u.s = arena_strndup(a, v->len ? v->u.s : "", v->len);
    } else if (v->kind == VAL_STRUCT || v->kind == VAL_LIST) {
        c.u.items = arena_alloc(a, (v->len ? v->len : 1) * sizeof *c.u.items);
        for (uint32_t i = 0; i < v->len; i++)
            c.u.items[i] = value_copy(a, &v->u.items[i]);
    }
    return c;
}

bool value_equal(const value *a, const value *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case VAL_NONE: return true;
    case VAL_INT: return a->u.i == b->u.i;
    case VAL_BOOL: return a->u.b == b->u.b;
    case VAL_ENUM: return a->u.e == b->u.e;
    case VAL_STRING: return a->len == b->len && (a->len == 0 || !memcmp(a->u.s, b->u.s, a->len));
    case VAL_STRUCT:
    case VAL_LIST:
        if (a->len != b->len)
            return false;
        for (uint32_t i = 0; i < a->len; i++)
            if (!value_equal(&a->u.items[i], &b->u.items[i]))
                return false;
        return true;
    }
    return false;
}

static void print_json_string(FILE *out, const char *s, size_t len)
{
    fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}

void value_print_flow(FILE *out, const ty *t, const value *v)
{
    switch (v->kind) {
    case VAL_STRING: print_json_string(out, v->u.s, v->len); return;
    case VAL_ENUM: fputs(t->values[v->u.e], out); return;
    case VAL_STRUCT: {
        fputc('{', out);
        bool first = true;
        for (uint32_t i = 0; i < v->len; i++) {
            if (v->u.items[i].kind == VAL_NONE)
                continue;
            fprintf(out, "%s%s: ", first ? "" : ", ", t->fields[i].name);
            value_print_flow(out, t->fields[i].type, &v->u.items[i]);
            first = false;
        }
        fputc('}', out);
        return;
    }
    case VAL_LIST:
        fputc('[', out);
        for (uint32_t i = 0; i < v->len; i++) {
            if (i)
                fputs(", ", out);
            value_print_flow(out, t->elem, &v->u.items[i]);
        }
        fputc(']', out);
        return;
    case VAL_NONE: fputs("null", out); return;
    case VAL_INT: fprintf(out, "%" PRId64, v->u.i); return;
    case VAL_BOOL: fputs(v->u.b ? "true" : "false", out); return;
    }
}

const char *value_flow_text(const ty *t, const value *v, char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fmemopen(out, size, "w");
    if (!f)
        return out;
    setvbuf(f, NULL, _IONBF, 0);
    value_print_flow(f, t, v);
    fclose(f);
    out[size - 1] = '\0';
    return out;
}
