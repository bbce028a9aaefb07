/* load.h: YAML file to node tree (libyaml), the first stage of the pipeline.
 * The loader is strict where libyaml is lenient: duplicate keys are errors,
 * aliases are refused (so an alias bomb cannot exhaust memory), and the
 * input size and nesting depth are bounded. */
#ifndef BENCH_LOAD_H
#define BENCH_LOAD_H

#include "arena.h"
#include "diag.h"
#include "node.h"

enum {
    LOAD_MAX_BYTES = 4 * 1024 * 1024, /* larger files are refused */
    LOAD_MAX_DEPTH = 64,              /* nesting of mappings and sequences */
};

typedef struct doc {
    arena mem;    /* every node and string of the tree */
    char *path;   /* as given by the caller */
    char *source; /* the whole file, NUL-terminated, for caret lines */
    size_t len;
    node *root; /* a NODE_NULL at 1:1 for an empty file */
} doc;

enum {
    LOAD_OK = 0,
    LOAD_INVALID = -1, /* the text is not acceptable YAML; diagnostics say why */
    LOAD_IO = -2,      /* the file could not be read; one diagnostic says why */
};

/* The name of a spec read from stdin, in its diagnostics. */
#define LOAD_STDIN_NAME "<stdin>"

/* Reads and parses the file at path ("-": stdin, named LOAD_STDIN_NAME). On LOAD_OK *out is the
 * caller's, to free with doc_free. On LOAD_INVALID *out is still set (so the caller can print caret
 * lines) when the text was parsed; it is NULL for a file over LOAD_MAX_BYTES (never parsed) and on
 * LOAD_IO. */
int load_file(const char *path, doc **out, diag_list *d);
/* The same from memory; name is used in addresses. */
int load_string(const char *name, const char *text, size_t len, doc **out, diag_list *d);
void doc_free(doc *dc);

#endif
