/* jsonschema.h: a JSON Schema (draft-07) validator over the node tree, the
 * first layer of `bench lint`. The schema is a cJSON document; the instance
 * is what the loader built from YAML, so every failure can be reported at
 * the file:line:col where the user wrote the offending value. */
#ifndef BENCH_JSONSCHEMA_H
#define BENCH_JSONSCHEMA_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "arena.h"
#include "diag.h"
#include "node.h"

/* Converts a cJSON value into a node tree allocated in arena a (file name `file`,
 * copied into a; line/col 0). Numbers that are integral and fit int64 become
 * NODE_INT, others NODE_FLOAT; strings are NODE_STRING marked quoted. Scalars
 * get their JSON text as node text. Never returns NULL (aborts on out of memory). */
node *jschema_node_from_cjson(arena *a, const cJSON *json, const char *file);

/* Makes n the number node jschema_node_from_cjson makes of a JSON number
 * whose value is d: NODE_INT without text when d is integral and fits int64,
 * else NODE_FLOAT with d's shortest text in a; with a NULL, without text
 * (messages print the value alike). */
void jschema_set_number(arena *a, node *n, double d);

/* A sequence of integer pairs, [[value, count], ...], held without a node
 * per pair: a result file's histograms hold millions of them. seq is a
 * NODE_SEQ of seq.count (at least 1) pairs whose items is NULL; pair i is
 * [first[i], second[i]]. The validator sees it as the tree
 * jschema_node_from_cjson would make (a sequence of two NODE_INT nodes per
 * pair, line and column 0) and reports paths into it alike. */
typedef struct jschema_pairs {
    node seq;
    int64_t *first, *second;
} jschema_pairs;

/* n as packed pairs, or NULL when it is an ordinary node. */
const jschema_pairs *jschema_pairs_of(const node *n);

/* Validates instance against root (a draft-07 schema document; `$ref` resolves
 * "#", "#/definitions/...", and any "#/a/b/..." JSON pointer into root, with ~0 ~1
 * and %-escapes; other references fail validation with a message saying so).
 * Returns true when valid. When d is not NULL and the instance is invalid, appends
 * error diagnostics at the most relevant node: usually exactly one per problem,
 * never the same message twice for one node. Nothing is kept after the call. */
bool jschema_validate(const cJSON *root, const node *instance, diag_list *d);

/* Declares that root lives, unchanged, until the process ends (an embedded
 * schema): what validating against it works out once (each schema object's
 * keywords, its compiled patterns) is then kept for the next validation
 * instead of redone for every document. At most 4 roots are kept; a
 * validation that finds the kept state in use by another thread works it
 * out alone. */
void jschema_keep(const cJSON *root);

/* The keywords this validator implements, NULL-terminated; docs and tests use it. */
extern const char *const jschema_keywords[];
/* Annotations, NULL-terminated: keywords that never change validity. All are
 * ignored except "x-message" (bench's own), whose text replaces the messages
 * of the schema object that holds it when that object fails. Keywords in
 * neither list are ignored, as draft-07 requires. */
extern const char *const jschema_annotations[];

#endif
