/* json_nodes.h: JSON text straight into the node tree the schema validator
 * reads, for result files: the tree jschema_node_from_cjson makes of
 * cJSON's, without cJSON's tree beside it, and with each array of integer
 * pairs (a histogram's [value, count] buckets) packed as one jschema_pairs
 * instead of three nodes a pair. A 182 MB result file is some 20 million
 * pairs: as cJSON items and nodes they took 65 times the file. */
#ifndef BENCH_JSON_NODES_H
#define BENCH_JSON_NODES_H

#include <stddef.h>
#include <stdio.h>

#include "arena.h"
#include "node.h"

/* Parses text[0..len), one whole JSON document (text[len] must be a NUL),
 * into nodes in arena tree
 * (file names the document; every line and column is 0, as from cJSON).
 * Packed pairs' values go in arena keep, which may outlive the tree.
 * Returns NULL for any text it does not take: text that is not JSON, and
 * JSON that cJSON might read otherwise (a control character or an escaped
 * NUL or surrogate in a string, a number such as 01 or 1. or of more than
 * 63 characters, 1,000 levels of nesting or more); the caller then reads it
 * with cJSON, which says where it is wrong. Taking a text, it gives the tree
 * jschema_node_from_cjson gives of cJSON's parse of it. */
node *json_nodes_parse(arena *tree, arena *keep, const char *file, const char *text, size_t len);

/* As json_nodes_parse, for the open file f read to its end in pieces (the
 * text is never whole in memory); NULL too when reading fails or the file
 * holds more than max bytes. */
node *json_nodes_read(arena *tree, arena *keep, const char *file, FILE *f, size_t max);

#endif
