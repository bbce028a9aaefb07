/* postgres.h: the store behind the postgres target, for the driver in
 * postgres.c, for the report's environment and for tests that look inside
 * an open target. */
#ifndef BENCH_POSTGRES_TARGET_H
#define BENCH_POSTGRES_TARGET_H

#include <stddef.h>

#include "store.h"
#include "target.h"

/* The store of an open postgres target (lent; freed by target_close). Its
 * load also works outside a transaction, reading what is committed. */
store *postgres_target_store(target *t);
/* The schema of an open postgres target's run: bench_<pid>_<random>. */
const char *postgres_target_schema(target *t);

/* Runs sql, which returns one value, on an open target's own connection,
 * between commands (for tests: the session's role and settings). Returns 0
 * with the value in out, or -1 with the reason in out. */
int postgres_target_query(target *t, const char *sql, char *out, size_t size);

/* What the first postgres target that connected in this process saw: the
 * server's version and its fsync, synchronous_commit and shared_buffers
 * settings, as the server has them before a durability option changes the
 * session ("15.18 (Debian 15.18-0+deb12u1); fsync on, synchronous_commit
 * on, shared_buffers 128MB"), and libpq's version ("libpq 15.18"). Returns
 * 0, or -1 (both "") when no postgres target has connected. */
int postgres_environment(char *server, size_t server_size, char *libpq, size_t libpq_size);

#endif
