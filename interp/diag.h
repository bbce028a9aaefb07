/* diag.h: diagnostics with an address. Every stage that checks what a user
 * wrote appends to a diag_list; the CLI prints them as text, JSON or GitHub
 * annotations. */
#ifndef BENCH_DIAG_H
#define BENCH_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "node.h"

typedef enum diag_severity {
    DIAG_ERROR,
    DIAG_WARNING,
} diag_severity;

typedef struct diag {
    diag_severity severity;
    char *file;    /* owned */
    int line, col; /* 1-based; 0 when the whole file is meant */
    char *message; /* owned, one line, no trailing period */
    char *path;    /* owned: the path through the spec (node_path), NULL when unknown */
} diag;

typedef struct diag_list {
    diag *items;
    size_t count, cap;
    size_t errors, warnings;
} diag_list;

/* Appends a diagnostic; file may be NULL. It has no path. */
void diag_add(diag_list *d, diag_severity sev, const char *file, int line, int col, const char *fmt,
              ...) __attribute__((format(printf, 6, 7)));
/* Appends an error at node n (n may be NULL: no position, no path); the path
 * to n is computed here, at a cost of n's depth. */
void diag_error_at(diag_list *d, const node *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_warning_at(diag_list *d, const node *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Appends an error at byte offset of scalar n's text, located with
 * node_locate (so the cost of finding the position is paid only here). */
void diag_error_in(diag_list *d, const node *n, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Appends a copy of g (message, file and path) to d. */
void diag_copy(diag_list *d, const diag *g);
/* A malloc'd string formatted from fmt and ap, the caller's to free; aborts
 * when out of memory. */
char *diag_vformat(const char *fmt, va_list ap);
/* Sorts by file, line, column, keeping insertion order for ties. */
void diag_sort(diag_list *d);
void diag_list_free(diag_list *d);

typedef enum diag_format {
    DIAG_FORMAT_TEXT,
    DIAG_FORMAT_JSON,
    DIAG_FORMAT_GITHUB,
} diag_format;

/* A place in a source text that printing diagnostics moves through: sorted
 * diagnostics find their lines in one pass over the text, not one each. */
typedef struct diag_cursor {
    const char *text, *end;
    const char *at; /* the start of line `line` */
    int line;
} diag_cursor;

/* A cursor at the start of text (len bytes), lent for as long as it is used. */
diag_cursor diag_cursor_at(const char *text, size_t len);

/* The widest source line a caret is shown under, in code points; a longer
 * line is cut to this many around the column, with "…" where it was cut. */
#define DIAG_SOURCE_WINDOW 120

/* Prints one diagnostic as "file:line:col: error: message"; in text mode
 * followed by the source line and a caret when src is given (NULL: none). */
void diag_print_text(FILE *out, const diag *g, diag_cursor *src);
void diag_print_github(FILE *out, const diag *g);

/* The closest candidate to word within a small edit distance, or NULL;
 * for "did you mean ...". */
const char *diag_suggest(const char *word, const char *const *candidates, size_t n);

#endif
