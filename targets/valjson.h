/* valjson.h: values as the JSON text the SQL targets store (struct and list
 * columns, event payloads) and back. Writing follows the value's type:
 * enums as their names, unset optionals as null, structs as objects in
 * field order. Reading is typed too, so it needs no intermediate tree: it
 * accepts any JSON whitespace and key order (PostgreSQL's jsonb reorders
 * keys), skips keys the type does not have, and reads a missing key as
 * unset. Neither allocates except into the buffer or arena it is given. */
#ifndef BENCH_VALJSON_H
#define BENCH_VALJSON_H

#include <stddef.h>

#include "arena.h"
#include "types.h"

/* A growable byte buffer, reused across commands. */
typedef struct jbuf {
    char *data;
    size_t len, cap;
} jbuf;

/* Appends v (of type t) as JSON to b; a NUL follows the text but is not
 * counted in len. Returns 0, or -1 when out of memory. */
int valjson_write(jbuf *b, const ty *t, const value *v);
/* Appends len bytes of s, and a NUL not counted. Returns 0 or -1. */
int jbuf_put(jbuf *b, const char *s, size_t len);
void jbuf_free(jbuf *b);

/* Reads text[0..len) as a value of type t into *out; strings, structs and
 * lists are allocated in a. Returns 0, or -1 when the text is not JSON of
 * that shape (an enum name the type lacks, an int out of range ...). */
int valjson_read(arena *a, const ty *t, const char *text, size_t len, value *out);

#endif
