/* sqlite_peer.c: the sqlite target's peer for `make bench`. A hand-written
 * C program that runs the pizzas cycle on SQLite with the statements the
 * target issues (pizzas_sql.h), prepared once, in the same scratch set-up
 * (a new file in a temporary directory, WAL, `synchronous` from the
 * durability), one transaction per command, and the checks a hand-written
 * program would make: the status column, a topping count, the price. It
 * builds the JSON it writes with snprintf, as such a program would.
 *
 *   perf_sqlite_peer full|normal|off ITERATIONS WARMUP
 *
 * prints "commands_per_s N" for the timed cycles (4 commands each), timed
 * as bench times a run: the wall time of the timed pass. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "pizzas_sql.h"

#define PIZZA_JSON "{\"price_cents\":1200,\"size\":\"large\"}"

typedef struct peer {
    sqlite3 *db;
    sqlite3_stmt *begin, *commit, *rollback, *select, *insert, *update, *event;
    char pizza[256], toppings[2048], customer[256], status[32];
    int has_customer;
    char payload[1024], next[2048];
} peer;

static void die(peer *p, const char *what)
{
    fprintf(stderr, "sqlite_peer: %s: %s\n", what, p->db ? sqlite3_errmsg(p->db) : "no database");
    exit(1);
}

static void run(peer *p, sqlite3_stmt *st, const char *what)
{
    if (sqlite3_step(st) != SQLITE_DONE)
        die(p, what);
    sqlite3_reset(st);
}

static void text(peer *p, sqlite3_stmt *st, int i, const char *s, int n)
{
    if (sqlite3_bind_text(st, i, s, n, SQLITE_STATIC) != SQLITE_OK)
        die(p, "bind");
}

static void event(peer *p, const char *name, int name_len, const char *ev, int len)
{
    text(p, p->event, 1, "Order", 5);
    text(p, p->event, 2, name, name_len);
    text(p, p->event, 3, ev, -1);
    text(p, p->event, 4, p->payload, len);
    run(p, p->event, "insert event");
}

static void create_pizza(peer *p, const char *name, int n)
{
    run(p, p->begin, "begin");
    text(p, p->insert, 1, name, n);
    text(p, p->insert, 2, PIZZA_JSON, -1);
    text(p, p->insert, 3, "[]", 2);
    sqlite3_bind_null(p->insert, 4);
    text(p, p->insert, 5, "available", 9);
    run(p, p->insert, "insert order");
    int len = snprintf(p->payload, sizeof p->payload,
                       "{\"name\":\"%.*s\",\"pizza\":" PIZZA_JSON "}", n, name);
    event(p, name, n, "PizzaCreated", len);
    run(p, p->commit, "commit");
}

/* Loads the order into p; returns 0 when it does not exist. */
static int load(peer *p, const char *name, int n)
{
    text(p, p->select, 1, name, n);
    int rc = sqlite3_step(p->select);
    if (rc == SQLITE_DONE) {
        sqlite3_reset(p->select);
        return 0;
    }
    if (rc != SQLITE_ROW)
        die(p, "select");
    snprintf(p->pizza, sizeof p->pizza, "%s", (const char *)sqlite3_column_text(p->select, 0));
    snprintf(p->toppings, sizeof p->toppings, "%s",
             (const char *)sqlite3_column_text(p->select, 1));
    p->has_customer = sqlite3_column_type(p->select, 2) != SQLITE_NULL;
    if (p->has_customer)
        snprintf(p->customer, sizeof p->customer, "%s",
                 (const char *)sqlite3_column_text(p->select, 2));
    snprintf(p->status, sizeof p->status, "%s", (const char *)sqlite3_column_text(p->select, 3));
    sqlite3_reset(p->select);
    return 1;
}

static void refuse(peer *p, const char *why)
{
    run(p, p->rollback, "rollback");
    fprintf(stderr, "sqlite_peer: refused: %s\n", why);
    exit(1);
}

static void update(peer *p, const char *name, int n, const char *toppings, const char *customer,
                   const char *status)
{
    text(p, p->update, 1, name, n);
    text(p, p->update, 2, p->pizza, -1);
    text(p, p->update, 3, toppings, -1);
    if (customer)
        text(p, p->update, 4, customer, -1);
    else
        sqlite3_bind_null(p->update, 4);
    text(p, p->update, 5, status, -1);
    run(p, p->update, "update order");
}

static void add_topping(peer *p, const char *name, int n, const char *topping)
{
    run(p, p->begin, "begin");
    if (!load(p, name, n))
        refuse(p, "no such pizza");
    if (strcmp(p->status, "available") != 0)
        refuse(p, "the pizza is already sold");
    int count = 0;
    for (const char *c = p->toppings; *c; c++)
        count += *c == '{';
    if (count >= 10)
        refuse(p, "at most 10 toppings");
    size_t len = strlen(p->toppings); /* "[...]": splice the new item before the ] */
    snprintf(p->next, sizeof p->next, "%.*s%s%s]", (int)len - 1, p->toppings, count ? "," : "",
             topping);
    update(p, name, n, p->next, p->has_customer ? p->customer : NULL, p->status);
    int plen = snprintf(p->payload, sizeof p->payload, "{\"name\":\"%.*s\",\"topping\":%s}", n,
                        name, topping);
    event(p, name, n, "ToppingAdded", plen);
    run(p, p->commit, "commit");
}

static void purchase(peer *p, const char *name, int n, int64_t amount)
{
    run(p, p->begin, "begin");
    if (!load(p, name, n))
        refuse(p, "no such pizza");
    if (strcmp(p->status, "available") != 0)
        refuse(p, "the pizza is already sold");
    if (!strcmp(p->toppings, "[]"))
        refuse(p, "a pizza needs a topping");
    const char *price = strstr(p->pizza, "\"price_cents\":");
    if (amount <= 0 || !price || amount < strtoll(price + 14, NULL, 10))
        refuse(p, "payment does not cover the price");
    update(p, name, n, p->toppings, "Chris", "sold");
    int plen = snprintf(p->payload, sizeof p->payload,
                        "{\"name\":\"%.*s\",\"customer_name\":\"Chris\",\"amount\":%" PRId64 "}", n,
                        name, amount);
    event(p, name, n, "PizzaPurchased", plen);
    run(p, p->commit, "commit");
}

static void cycle(peer *p, uint64_t n)
{
    char name[32];
    int len = snprintf(name, sizeof name, "pizza-%" PRIu64, n);
    create_pizza(p, name, len);
    add_topping(p, name, len, "{\"name\":\"Basil\",\"amount\":3}");
    add_topping(p, name, len, "{\"name\":\"Olive\",\"amount\":2}");
    purchase(p, name, len, 1200);
}

static void exec(peer *p, const char *sql)
{
    if (sqlite3_exec(p->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        die(p, sql);
}

static void prepare(peer *p, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v3(p->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
        die(p, sql);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: perf_sqlite_peer full|normal|off ITERATIONS WARMUP\n");
        return 2;
    }
    const char *sync = !strcmp(argv[1], "full")     ? "PRAGMA synchronous = FULL"
                       : !strcmp(argv[1], "normal") ? "PRAGMA synchronous = NORMAL"
                                                    : "PRAGMA synchronous = OFF";
    uint64_t iterations = strtoull(argv[2], NULL, 10), warmup = strtoull(argv[3], NULL, 10);
    const char *tmp = getenv("TMPDIR");
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/bench-sqlite-peer-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("sqlite_peer: mkdtemp");
        return 1;
    }
    snprintf(path, sizeof path, "%s/pizzas.db", dir);
    peer p = {0};
    if (sqlite3_open_v2(path, &p.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
        die(&p, "open");
    exec(&p, "PRAGMA journal_mode = WAL");
    exec(&p, sync);
    exec(&p, PIZZAS_SQLITE_CREATE_ORDER);
    exec(&p, PIZZAS_SQLITE_CREATE_EVENTS);
    prepare(&p, "BEGIN", &p.begin);
    prepare(&p, "COMMIT", &p.commit);
    prepare(&p, "ROLLBACK", &p.rollback);
    prepare(&p, PIZZAS_SQLITE_SELECT_ORDER, &p.select);
    prepare(&p, PIZZAS_SQLITE_INSERT_ORDER, &p.insert);
    prepare(&p, PIZZAS_SQLITE_UPDATE_ORDER, &p.update);
    prepare(&p, PIZZAS_SQLITE_INSERT_EVENT, &p.event);
    uint64_t n = 0;
    for (; n < warmup; n++)
        cycle(&p, n);
    double t0 = now();
    for (uint64_t k = 0; k < iterations; k++, n++)
        cycle(&p, n);
    double wall = now() - t0;
    printf("commands_per_s %.1f\n", (double)(iterations * 4) / wall);
    sqlite3_stmt *all[] = {p.begin, p.commit, p.rollback, p.select, p.insert, p.update, p.event};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        sqlite3_finalize(all[i]);
    sqlite3_close(p.db);
    char file[700];
    static const char *const suffixes[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(file, sizeof file, "%s%s", path, suffixes[i]);
        unlink(file);
    }
    rmdir(dir);
    return 0;
}
