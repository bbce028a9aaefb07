/* node.h: the document tree every later stage reads. Each node knows where
 * the user wrote it (file, line, column, all 1-based) so that any stage can
 * report an address. Scalars are resolved as YAML's core schema does: a plain
 * scalar may be null, bool, int or float; a quoted one is always a string. */
#ifndef BENCH_NODE_H
#define BENCH_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum node_kind {
    NODE_NULL,
    NODE_BOOL,
    NODE_INT,
    NODE_FLOAT,
    NODE_STRING,
    NODE_MAP,
    NODE_SEQ,
} node_kind;

typedef struct node node;

typedef struct node_pair {
    node *key; /* a scalar node; its text is the key */
    node *value;
} node_pair;

struct node {
    node_kind kind;
    const char *file;   /* lent: owned by the document */
    int line, col;      /* 1-based position of the node's first character */
    bool quoted;        /* the scalar was single- or double-quoted in YAML */
    char style;         /* scalars: 'p' plain, 's' single-quoted, 'd' double-quoted, 'b' block */
    const char *source; /* the whole document, for node_locate; NULL if not loaded from text */
    const char *text;   /* scalar source text, NUL-terminated ("" for collections) */
    size_t len;         /* bytes of text (may contain NUL for quoted scalars) */
    union {
        bool b;
        int64_t i;
        double f;
    } v;
    size_t count;     /* pairs of a map, items of a sequence */
    node_pair *pairs; /* NODE_MAP, in source order */
    node **items;     /* NODE_SEQ */
    node *parent;     /* the enclosing map or sequence; NULL for the root and outside a tree */
    size_t index;     /* in parent: the pair (key and value alike) or the item */
};

/* The value of key in map, or NULL when map is not a map or has no such key. */
node *node_get(const node *map, const char *key);
/* The pair whose key is key, or NULL. */
const node_pair *node_get_pair(const node *map, const char *key);
/* "mapping", "sequence", "string", "integer", "number", "boolean", "null". */
const char *node_kind_name(node_kind kind);
/* The source position (1-based line and column in code points) of byte
 * `offset` of a scalar's text, following YAML's line folding and quoting so
 * that an error inside a multi-line or quoted scalar points where the user
 * wrote it. Without a source it falls back to the node's line. */
void node_locate(const node *n, size_t offset, int *line, int *col);
/* The path through the document to n, for diagnostics: map keys joined by
 * '.', sequence items as [i] ("workload.cycle[2].Order.Purchase.amount"); a
 * key has the path of its value. Costs n's depth; it walks the parent links
 * the loader set. Returns a malloc'd string, the caller's to free, or NULL
 * when n has no parent (the root, or a node not in a loaded tree). */
char *node_path(const node *n);
/* True for NODE_STRING with exactly the text s. */
bool node_is_str(const node *n, const char *s);

#endif
