/* json_line.h: values as JSON, encoded and decoded against the plan's
 * types without a DOM. The process protocol (schema/protocol.md) uses it one
 * object per line: `bench serve` decodes requests and encodes answers, the
 * process target encodes requests and reads answers. The SQL targets keep
 * struct and list columns and event payloads in its stored form. Nothing
 * here allocates except through the buffers and arenas the caller passes
 * in. */
#ifndef BENCH_JSON_LINE_H
#define BENCH_JSON_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "arena.h"
#include "types.h"

/* A growable byte buffer; zero-initialise it, free with jline_free. Appends
 * abort when the process is out of memory (as arena_alloc does). */
typedef struct jline {
    char *data;
    size_t len, cap;
} jline;

void jline_reserve(jline *b, size_t more);
void jline_puts(jline *b, const char *s);
void jline_free(jline *b);

/* Appends s[0..n); inline, as the protocol's lines are built of many short
 * pieces. */
static inline void jline_put(jline *b, const char *s, size_t n)
{
    if (b->cap - b->len < n)
        jline_reserve(b, n);
    if (n)
        memcpy(b->data + b->len, s, n);
    b->len += n;
}

static inline void jline_putc(jline *b, char c)
{
    if (b->len == b->cap)
        jline_reserve(b, 1);
    b->data[b->len++] = c;
}

/* Appends s[0..n) as a JSON string, quotes included. */
void json_put_string(jline *b, const char *s, size_t n);
/* Appends v, of type t, as JSON: ints as integers, enums as their names,
 * structs as objects in declaration order with unset optional fields left
 * out, lists as arrays. */
void json_put_value(jline *b, const ty *t, const value *v);

/* What json_put_struct_kept keeps of a struct: its text with the fields
 * that change left out, as runs between them (the kept fields' members,
 * commas, the braces and the others' names), built once. */
typedef struct json_kept {
    bool ready;
    uint64_t fields; /* the kept fields, a bit each */
    jline bytes;     /* the runs, one after another */
    size_t *at;      /* where run j starts in bytes; nvar + 2 of them */
    uint32_t *var;   /* the fields not kept, in order: the value of var[j] follows run j */
    uint32_t nvar;
} json_kept;
/* json_put_value of the struct v (laid out as t), with the members of the
 * fields whose bit (i < 64) is set in `fields` taken from *k, which the
 * first call with k fills and later ones reuse: for a value whose fields of
 * those bits never change (a step instance's constant arguments), so that
 * only the others are encoded each time (all of it again when one of them
 * is unset). A k filled for other fields is filled again. Free k with
 * json_kept_free. */
void json_put_struct_kept(jline *b, const ty *t, const value *v, uint64_t fields, json_kept *k);
void json_kept_free(json_kept *k);

/* Decodes the JSON text s[0..n) as a value of type t into *out. Arrays and
 * unescaped strings live in a (the caller resets it); strings without
 * escapes point into s, which must outlive *out. A field absent from an
 * object takes its default, or is unset (VAL_NONE), which value_check then
 * refuses unless the field is optional; null is unset too. Returns 0, or -1
 * with a sentence in why naming the path (what, then the fields below it):
 * "pizza.size: 'medium' is not one of small, large". */
int json_decode(const char *s, size_t n, const ty *t, const char *what, arena *a, value *out,
                char *why, size_t size);

/* json_decode of the value at the start of s[0..n), whatever follows it:
 * *rest is the text after the value. *exact (when not NULL) says whether
 * json_put_value of *out writes s[0..*rest - s) again byte for byte: no
 * white space, fields in declaration order, no escapes, no null and no
 * absent field with a default, no -0. */
int json_decode_head(const char *s, size_t n, const ty *t, const char *what, arena *a, value *out,
                     const char **rest, bool *exact, char *why, size_t size);

/* The stored form, as the SQL targets keep values: json_put_stored writes
 * unset optional fields as null instead of leaving them out (left out, one
 * would decode as its default or []), and json_decode_stored copies every
 * string into a, so *out outlives s (a database row). Otherwise both are
 * json_put_value and json_decode; together they give back exactly the value
 * written. */
void json_put_stored(jline *b, const ty *t, const value *v);
int json_decode_stored(const char *s, size_t n, const ty *t, const char *what, arena *a, value *out,
                       char *why, size_t size);

/* One request line, as `bench serve` reads it. */
typedef enum json_request_kind {
    JSON_REQUEST_EMPTY,   /* {}: refused at once (the floor probe) */
    JSON_REQUEST_COMMAND, /* {"verb": ..., "args": {...}} */
    JSON_REQUEST_COUNT,   /* {"count": true} */
    JSON_REQUEST_QUERY,   /* {"query": ..., "args": {...}} */
} json_request_kind;

typedef struct json_request {
    json_request_kind kind;
    const char *verb; /* COMMAND, QUERY: the verb, NUL-terminated (in the arena or the line) */
    const char *args; /* COMMAND, QUERY: the text of the args object, or NULL when absent */
    size_t args_len;
} json_request;

/* Parses the request line s[0..n) (without its newline). Returns 0, or -1
 * with a sentence in why when the line is not a request. */
int json_request_parse(const char *s, size_t n, arena *a, json_request *out, char *why,
                       size_t size);

/* The command request in the one shape the process target writes,
 * {"verb":"V","args":{...}} with no spaces and V printable ASCII without
 * escapes, found without a parse: *verb (not NUL-terminated, *verb_len
 * bytes) points into s and *args at the args object's '{' (its end is
 * found by decoding it). false for every other line, which
 * json_request_parse then reads; a line this accepts means the same to
 * json_request_parse. */
bool json_request_canonical(const char *s, size_t n, const char **verb, size_t *verb_len,
                            const char **args);

/* Reads the answer line s[0..n) (without its newline): 1 for {"ok":true...},
 * 0 for {"ok":false...} with the error string copied into msg (truncated to
 * msize), -1 when the line is not a protocol answer (a JSON object with a
 * boolean ok). Success answers in the canonical form (starting {"ok":true
 * and ending }) are accepted after checking those bytes only; everything
 * else is parsed in full. */
int json_answer_read(const char *s, size_t n, char *msg, size_t msize);

/* A success answer in the one shape bench serve writes a command's,
 * {"ok":true,"events":[{"name":"E","payload":...},...]} with no spaces
 * outside the payloads and names without escapes, read without a DOM: 1,
 * with the event names appended to names as "A, B", when s[0..n) is that
 * and valid JSON throughout; 0, with names as it was, for every other line
 * (the caller then parses it in full). A line this accepts, cJSON parses
 * too, to the same names: payload numbers longer than cJSON reads, and
 * anything nested deeper than 64 levels, are left to it. known[0..known_len)
 * (NULL: none) is JSON the caller wrote itself, a request's args: a payload
 * of exactly those bytes is valid without being read again (bench serve
 * echoes a command's args as its event's payload). */
int json_answer_events(const char *s, size_t n, jline *names, const char *known, size_t known_len);

#endif
