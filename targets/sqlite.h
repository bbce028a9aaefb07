/* sqlite.h: the store behind the sqlite target, for the driver in sqlite.c
 * and for tests that look inside an open target. */
#ifndef BENCH_SQLITE_TARGET_H
#define BENCH_SQLITE_TARGET_H

#include <sqlite3.h>

#include "store.h"
#include "target.h"

/* The store of an open sqlite target (lent; freed by target_close). Its
 * load also works outside a transaction, reading what is committed. */
store *sqlite_target_store(target *t);
/* The scratch database file of an open sqlite target (lent). */
const char *sqlite_target_path(target *t);
/* Its connection (lent), for tests that read its settings. */
sqlite3 *sqlite_target_db(target *t);

#endif
