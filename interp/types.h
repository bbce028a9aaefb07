/* types.h: the spec language's types and the values they describe.
 * Types are built by the compiler into the plan's arena and never change
 * afterwards. Values are plain data: a value never owns memory; whoever
 * builds one (the compiler for constants, a store for records) owns what
 * it points at. */
#ifndef BENCH_TYPES_H
#define BENCH_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "node.h"
#include "utf8.h" /* utf8_length, which string constraints measure with */

typedef enum ty_kind {
    TY_INT,
    TY_STRING,
    TY_BOOL,
    TY_ENUM,
    TY_STRUCT,
    TY_LIST,
} ty_kind;

typedef struct ty ty;
typedef struct value value;

typedef enum val_kind {
    VAL_NONE, /* an optional field that is not set */
    VAL_INT,
    VAL_STRING,
    VAL_BOOL,
    VAL_ENUM,
    VAL_STRUCT,
    VAL_LIST,
} val_kind;

struct value {
    val_kind kind;
    uint32_t len; /* bytes of a string; items of a struct or list */
    union {
        int64_t i;
        bool b;
        int32_t e;     /* index into the enum type's values */
        const char *s; /* UTF-8, not NUL-terminated in general */
        value *items;  /* struct fields in declaration order, or list items */
    } u;
};

typedef struct field {
    const char *name;
    uint32_t name_len; /* strlen(name), set by the compiler; 0: not known (field_name_len) */
    const ty *type;
    bool optional; /* may be unset (VAL_NONE); has(name) tests it */
    bool has_default;
    value def;      /* valid when has_default */
    const node *at; /* where it was declared */
} field;

/* The length of f's name: the compiler's, or counted. */
static inline size_t field_name_len(const field *f)
{
    return f->name_len ? f->name_len : strlen(f->name);
}

struct ty {
    ty_kind kind;
    const char *name;    /* the named type ("Cents"), or NULL for an inline one */
    const char *refines; /* for an inline refinement ({type: Standing, default: good}),
                            the name of the type it refines; for display only */
    const node *at;      /* where it was declared, when it was */
    /* TY_INT */
    bool has_min, has_max;
    int64_t min, max;
    /* TY_STRING: lengths in code points */
    bool has_min_len, has_max_len;
    int64_t min_len, max_len;
    const char *pattern; /* PCRE2 source, UTF mode; NULL when none */
    void *re;            /* compiled pcre2_code *, owned by the plan (matching writes
                            nothing into it: value.c keeps the match data) */
    /* TY_ENUM */
    const char **values;
    size_t nvalues;
    /* TY_STRUCT */
    field *fields;
    size_t nfields;
    /* TY_LIST */
    const ty *elem;
    bool has_max_items;
    int64_t max_items;
};

/* Built-in unconstrained types, shared by everything. */
extern const ty ty_int, ty_string, ty_bool;

/* Structural compatibility: same kind; enums with the same values in the same
 * order; structs with the same field names and compatible field types; lists
 * with compatible elements. Constraints do not matter. */
bool ty_compatible(const ty *a, const ty *b);
/* A short human name: "int", "string", "Cents", "enum [small, large]",
 * "struct {price_cents, size}", "list of Topping". Lives until arena is freed;
 * uses a static buffer set when buf is NULL, so prefer passing one. */
const char *ty_describe(const ty *t, char *buf, size_t size);
/* Index of name among s's fields, or -1. */
int ty_field_index(const ty *s, const char *name);
/* Index of v among e's enum values, or -1. */
int ty_enum_index(const ty *e, const char *v, size_t len);

#endif
