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

#endif
