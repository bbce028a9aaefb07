/* store_postgres.h: what the PostgreSQL store (store_postgres.c) shows
 * beyond the store interface, for tests that look inside an open postgres
 * target (its store is runtime_target_store's, target.h; its load also
 * works outside a transaction, reading what is committed). */
#ifndef BENCH_STORE_POSTGRES_H
#define BENCH_STORE_POSTGRES_H

#include <stddef.h>

#include "store.h"

/* The schema of an open PostgreSQL store's run: bench_<pid>_<random>. */
const char *postgres_store_schema(store *s);

/* Runs sql, which returns one value, on an open store's own connection,
 * between commands (for tests: the session's role and settings). Returns 0
 * with the value in out, or -1 with the reason in out. */
int postgres_store_query(store *s, const char *sql, char *out, size_t size);

/* Drops the scratch schemas in the database bench whose owner is gone (a
 * run killed outright: its session's advisory lock is free), never a live
 * run's nor a kept one, as every postgres open does first; dsn as the
 * target's option (NULL or "": libpq's environment). Returns how many were
 * dropped, or -1 with the reason in err. */
long postgres_drop_stale_schemas(const char *dsn, char *err, size_t size);

struct plan;
/* bench setup --schema: creates the named schema name with the tables of
 * plan p in the database bench, marked kept so that no stale-schema
 * cleanup drops it; dsn as above. Refuses a schema that exists. Returns 0,
 * or -1 with one sentence in err. */
int postgres_named_create(const char *dsn, const struct plan *p, const char *name, char *err,
                          size_t size);
/* bench teardown --schema: drops the named schema (refuses one that does
 * not exist). Returns 0, or -1 with one sentence in err. */
int postgres_named_drop(const char *dsn, const char *name, char *err, size_t size);
/* The schema option's check, for --schema: 0, or -1 with why. */
int postgres_check_schema_name(const char *text, char *why, size_t size);

#endif
