/* store_sqlite.h: what the SQLite store (store_sqlite.c) shows beyond the
 * store interface, for tests that look inside an open sqlite target. */
#ifndef BENCH_STORE_SQLITE_H
#define BENCH_STORE_SQLITE_H

#include <sqlite3.h>

#include "store.h"

/* The store of an open sqlite target is runtime_target_store's (target.h);
 * its load also works outside a transaction, reading what is committed. */
/* The scratch database file of an open SQLite store (lent). */
const char *sqlite_store_path(store *s);
/* Its connection (lent), for tests that read its settings. */
sqlite3 *sqlite_store_db(store *s);

/* The lock file in each scratch directory (TMPDIR/bench-sqlite-XXXXXX):
 * its store holds an flock on it from the directory's making to its
 * removal, so a directory whose lock is free lost its owner to SIGKILL or
 * a crash. A kept database's directory has none. */
#define SQLITE_OWNER_LOCK "owner.lock"
/* Removes the scratch directories under tmp whose owner is gone; a live
 * store's is never touched. Every sqlite open does it first. Returns how
 * many it removed. */
size_t sqlite_remove_stale_scratch(const char *tmp);

struct plan;
/* bench setup --store-file: creates the database file path with the tables
 * of plan p (refuses a file that exists). Returns 0, or -1 with one
 * sentence in err. */
int sqlite_named_create(const struct plan *p, const char *path, char *err, size_t size);
/* bench teardown --store-file: removes path and its -wal, -shm and journal
 * files (refuses a path that does not exist). Returns 0, or -1 with err. */
int sqlite_named_remove(const char *path, char *err, size_t size);

#endif
