/* sqlgen.h: the SQL schema and statements of the sqlite and postgres
 * targets, generated from a plan's domain (docs/targets.md says why the
 * tables look as they do).
 *
 * One table per aggregate, named after it, with one column per field of
 * its state: ints, strings, bools and enums (by name) as typed columns;
 * structs and lists as one JSON column each. The identity field is the
 * primary key (a PostgreSQL text one COLLATE "C", ordered by bytes as
 * SQLite's and the memory store's). One events table: (sequence, aggregate, identity, event,
 * payload) with the payload as JSON.
 *
 * Every name is checked against [A-Za-z_][A-Za-z0-9_]* (lint refuses any
 * other, so this is a second line) and written double-quoted; every value
 * is a parameter ($n for PostgreSQL, ?n for SQLite), never SQL text. Names
 * are made unique ignoring case (SQLite compares names without case) and
 * kept within PostgreSQL's 63 bytes. */
#ifndef BENCH_SQLGEN_H
#define BENCH_SQLGEN_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "plan.h"

typedef enum sql_dialect {
    SQL_SQLITE,
    SQL_POSTGRES,
} sql_dialect;

enum { SQL_NAME_MAX = 63 }; /* bytes: PostgreSQL's NAMEDATALEN - 1 */

typedef struct sql_table {
    const aggregate *agg;
    const char *name;     /* unquoted, unique ignoring case */
    const char **columns; /* unquoted, one per state field, unique ignoring case */
    const char *create;   /* CREATE TABLE */
    /* Parameters of insert and update are the state's fields in order
     * ($1 is field 0); select and remove take the identity as $1, and
     * select returns every other field in order. */
    const char *select;
    const char *insert;
    const char *update;
    const char *remove; /* DELETE, with the identity as $1 */
    const char *count;  /* SELECT count(*) */
    /* a scan: the identity as $1 (the start) and the limit as $2; returns
       the identity, then every other field in order, of the records whose
       identity is >= $1, in identity order (by bytes: PostgreSQL's key
       column is COLLATE "C", SQLite's BINARY) */
    const char *scan;
} sql_table;

typedef struct sql_schema {
    arena mem; /* everything below lives here */
    sql_dialect dialect;
    const char *schema; /* PostgreSQL schema the names are qualified with, or NULL */
    sql_table *tables;  /* one per aggregate, by aggregate index */
    size_t ntables;
    const char *events;        /* the events table's name, unquoted */
    const char *create_events; /* CREATE TABLE */
    /* $1 aggregate name, $2 identity as text, $3 event name, $4 payload JSON */
    const char *insert_event;
    const char *count_events; /* rows (event, count) */
} sql_schema;

/* True when name is [A-Za-z_][A-Za-z0-9_]* and at most SQL_NAME_MAX bytes. */
bool sqlgen_identifier_ok(const char *name);

/* Generates the schema of plan p for dialect d; schema qualifies every table
 * (PostgreSQL) or is NULL. Returns 0 and the schema in *out (the caller's,
 * sqlgen_free), or -1 with *out NULL and one sentence in err (a name that
 * is not an identifier). */
int sqlgen_schema(const plan *p, sql_dialect d, const char *schema, sql_schema **out, char *err,
                  size_t size);
void sqlgen_free(sql_schema *s);

/* A SELECT that takes the identity of a `from` record as $1 and returns,
 * when that record exists, one row: its field from_field (K), then the
 * identity of agg's record K (NULL when there is none) and its other fields
 * as select returns them. Lives in the schema's arena. */
const char *sqlgen_select_via(sql_schema *s, const aggregate *agg, const aggregate *from,
                              int from_field);

/* The SQL type of a field's column in dialect d ("bigint", "json", ...). */
const char *sqlgen_column_type(sql_dialect d, const ty *t);

#endif
