/* pizzas_sql.h: the SQLite statements the sqlite target issues for the
 * pizzas spec (targets/sqlgen.c generates them; tests/test_sqlgen.c checks
 * that it still generates exactly these), for the hand-written peer in
 * sqlite_peer.c, which issues the same ones. */
#ifndef BENCH_PERF_PIZZAS_SQL_H
#define BENCH_PERF_PIZZAS_SQL_H

#define PIZZAS_SQLITE_CREATE_ORDER                                                                 \
    "CREATE TABLE \"Order\" (\"name\" TEXT PRIMARY KEY, \"pizza\" TEXT NOT NULL, \"toppings\" "    \
    "TEXT NOT NULL, \"customer_name\" TEXT, \"status\" TEXT NOT NULL) WITHOUT ROWID"
#define PIZZAS_SQLITE_SELECT_ORDER                                                                 \
    "SELECT \"pizza\", \"toppings\", \"customer_name\", \"status\" FROM \"Order\" WHERE \"name\" " \
    "= ?1"
#define PIZZAS_SQLITE_INSERT_ORDER                                                                 \
    "INSERT INTO \"Order\" (\"name\", \"pizza\", \"toppings\", \"customer_name\", \"status\") "    \
    "VALUES (?1, ?2, ?3, ?4, ?5)"
#define PIZZAS_SQLITE_UPDATE_ORDER                                                                 \
    "UPDATE \"Order\" SET \"pizza\" = ?2, \"toppings\" = ?3, \"customer_name\" = ?4, \"status\" "  \
    "= ?5 WHERE \"name\" = ?1"
#define PIZZAS_SQLITE_CREATE_EVENTS                                                                \
    "CREATE TABLE \"events\" (\"sequence\" INTEGER PRIMARY KEY, \"aggregate\" TEXT NOT NULL, "     \
    "\"identity\" TEXT NOT NULL, \"event\" TEXT NOT NULL, \"payload\" TEXT NOT NULL)"
#define PIZZAS_SQLITE_INSERT_EVENT                                                                 \
    "INSERT INTO \"events\" (\"aggregate\", \"identity\", \"event\", \"payload\") VALUES (?1, "    \
    "?2, "                                                                                         \
    "?3, ?4)"

#endif
