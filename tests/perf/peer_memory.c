/* peer_memory.c: a hand-written C program doing what bench's memory target
 * does for specs/pizzas.yaml and specs/banking.yaml, command by command, so
 * that tests/perf/memory_peer.py can set the two side by side (issue 13).
 *
 *   perf_peer_memory pizzas|banking CYCLES WARMUP
 *
 * The same work per command as the memory target: the record found by its
 * identity in a hash table (FNV-1a, open addressing, doubling at 3/4 load),
 * the argument constraints and the guards of the spec in its order, the
 * change (a field set, an item appended with its strings copied into the
 * store), the invariants of what changed, the event's payload copied into
 * an event log, and per-verb and total event counts. Each command is timed
 * alone with two CLOCK_MONOTONIC reads and recorded into three histograms
 * (all, the tenth of the run, the verb), as interp/runner.c does; the name
 * of the cycle's record ("pizza-<n>") is formatted before each command, as
 * the runner fills in ${n}. Prints one JSON line: commands, wall seconds,
 * throughput per second, p50, p99 and max in microseconds, and the page
 * faults of the timed pass (getrusage's minor faults). A benchmark,
 * not a test.
 *
 * As the memory target's reserve option does by default, the peer makes
 * ready before its timed cycles the memory they will take, so that neither
 * side pays the kernel's first write to a page inside the timed pass: every
 * allocation comes from the heap (no mmap'd blocks), and after the warmup
 * one block as large as the warmup's growth per cycle times the cycles to
 * come (an eighth more) is allocated, written a page at a time and freed,
 * so the heap's top holds written pages for them. A fifth argument
 * `noreserve` leaves this out, as `reserve: false` does for bench. */
#include <inttypes.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "hist.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *must(void *p)
{
    if (!p) {
        fputs("peer_memory: out of memory\n", stderr);
        exit(2);
    }
    return p;
}

/* ---- bytes the store keeps: strings of records and events ---- */

typedef struct bump {
    char *at, *end;
} bump;

static void *bump_alloc(bump *b, size_t n)
{
    n = (n + 7) & ~(size_t)7;
    if ((size_t)(b->end - b->at) < n) {
        size_t size = n > 256 * 1024 ? n : 256 * 1024;
        b->at = must(malloc(size));
        b->end = b->at + size;
    }
    void *p = b->at;
    b->at += n;
    return p;
}

static const char *keep(bump *b, const char *s, size_t len)
{
    char *p = bump_alloc(b, len ? len : 1);
    memcpy(p, s, len);
    return p;
}

/* ---- a hash table of records by name ---- */

typedef struct entry {
    uint64_t hash;
    void *rec; /* NULL: empty */
} entry;

typedef struct map {
    entry *slots;
    size_t cap, count;
} map;

static uint64_t name_hash(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

/* Records start with their name: this is how the map compares keys. */
typedef struct named {
    const char *name;
    size_t len;
} named;

static entry *map_slot(map *m, uint64_t h, const char *name, size_t len)
{
    size_t mask = m->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        entry *e = &m->slots[i];
        if (!e->rec)
            return e;
        const named *n = e->rec;
        if (e->hash == h && n->len == len && memcmp(n->name, name, len) == 0)
            return e;
    }
}

static void map_grow(map *m)
{
    map bigger = {.cap = m->cap ? m->cap * 2 : 64, .count = m->count};
    bigger.slots = must(calloc(bigger.cap, sizeof *bigger.slots));
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].rec) {
            const named *n = m->slots[i].rec;
            *map_slot(&bigger, m->slots[i].hash, n->name, n->len) = m->slots[i];
        }
    free(m->slots);
    *m = bigger;
}

/* The slot of name: its record, or the empty slot where it goes. */
static entry *map_find(map *m, const char *name, size_t len, uint64_t *h)
{
    if ((m->count + 1) * 4 >= m->cap * 3)
        map_grow(m);
    *h = name_hash(name, len);
    return map_slot(m, *h, name, len);
}

/* ---- the event log ---- */

typedef struct event {
    int type;
    const char *key;
    size_t key_len;
    const void *payload; /* a copy of the payload struct, its strings kept too */
} event;

typedef struct log {
    bump bytes;
    event *events;
    size_t n, cap;
    uint64_t counts[8];
} log;

static void log_append(log *l, int type, const char *key, size_t key_len, const void *payload,
                       size_t size)
{
    if (l->n == l->cap) { /* chunked in the store; one array here, grown rarely */
        l->cap = l->cap ? l->cap * 2 : 1024;
        l->events = must(realloc(l->events, l->cap * sizeof *l->events));
    }
    void *p = bump_alloc(&l->bytes, size);
    memcpy(p, payload, size);
    l->events[l->n++] = (event){type, keep(&l->bytes, key, key_len), key_len, p};
    l->counts[type]++;
}

/* A string of at least one code point (valid UTF-8: one byte or more). */
static bool nonempty(size_t len)
{
    return len >= 1;
}

/* ---- pizzas ---- */

enum { SMALL, LARGE };
enum { AVAILABLE, SOLD };
enum { PIZZA_CREATED, TOPPING_ADDED, PIZZA_PURCHASED };

typedef struct topping {
    const char *name;
    size_t len;
    int64_t amount;
} topping;

typedef struct order {
    named id;
    int64_t price_cents;
    int size;
    topping toppings[10]; /* the guard allows at most 10 */
    int ntoppings;
    const char *customer;
    size_t customer_len;
    int status;
} order;

typedef struct pizzas {
    map orders;
    bump bytes;
    log log;
} pizzas;

static int create_pizza(pizzas *z, const char *name, size_t len, int64_t price, int size)
{
    if (price < 0 || (size != SMALL && size != LARGE))
        return 1;
    uint64_t h;
    entry *e = map_find(&z->orders, name, len, &h);
    if (e->rec || !nonempty(len)) /* exists; the name field's min_length */
        return 1;
    order *o = must(malloc(sizeof *o + len));
    memcpy(o + 1, name, len);
    *o = (order){.id = {(const char *)(o + 1), len}, .price_cents = price, .size = size};
    *e = (entry){h, o};
    z->orders.count++;
    struct {
        int64_t price;
        int size;
    } payload = {price, size};
    log_append(&z->log, PIZZA_CREATED, name, len, &payload, sizeof payload);
    return 0;
}

static int add_topping(pizzas *z, const char *name, size_t len, const char *top, size_t top_len,
                       int64_t amount)
{
    if (!nonempty(top_len) || amount < 1)
        return 1;
    uint64_t h;
    order *o = map_find(&z->orders, name, len, &h)->rec;
    if (!o || o->status != AVAILABLE || o->ntoppings >= 10)
        return 1;
    o->toppings[o->ntoppings++] = (topping){keep(&z->bytes, top, top_len), top_len, amount};
    topping payload = {top, top_len, amount};
    log_append(&z->log, TOPPING_ADDED, name, len, &payload, sizeof payload);
    ((topping *)z->log.events[z->log.n - 1].payload)->name = keep(&z->log.bytes, top, top_len);
    return 0;
}

static int purchase(pizzas *z, const char *name, size_t len, const char *customer,
                    size_t customer_len, int64_t amount)
{
    if (amount < 0)
        return 1;
    uint64_t h;
    order *o = map_find(&z->orders, name, len, &h)->rec;
    if (!o || o->status != AVAILABLE || o->ntoppings == 0 || amount <= 0 || amount < o->price_cents)
        return 1;
    o->customer = keep(&z->bytes, customer, customer_len);
    o->customer_len = customer_len;
    o->status = SOLD;
    struct {
        const char *customer;
        size_t len;
        int64_t amount;
    } payload = {o->customer, customer_len, amount};
    log_append(&z->log, PIZZA_PURCHASED, name, len, &payload, sizeof payload);
    return 0;
}

/* ---- banking ---- */

enum { ACTIVE, SUSPENDED };
enum { CURRENT, SAVINGS, RESERVE };
enum { OPEN, FROZEN, CLOSED };
enum { CREDIT, DEBIT };
enum { CUSTOMER_REGISTERED, ACCOUNT_OPENED, ACCOUNT_CREDITED, ACCOUNT_DEBITED };

typedef struct customer {
    named id;
    int standing, status;
} customer;

typedef struct ledger_entry {
    int64_t sequence, cents;
    const char *currency, *narrative;
    size_t narrative_len;
    int direction;
} ledger_entry;

typedef struct account {
    named id;
    const char *customer;
    size_t customer_len;
    int64_t balance, daily_limit;
    int kind, customer_status, status;
    ledger_entry *ledger; /* inline until it outgrows it */
    size_t nledger, cap;
    ledger_entry inline_ledger[4];
} account;

typedef struct banking {
    map customers, accounts;
    bump bytes;
    log log;
} banking;

/* The Currency pattern ^[A-Z]{3}$. */
static bool currency_ok(const char *s, size_t len)
{
    return len == 3 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z' && s[2] >= 'A' &&
           s[2] <= 'Z';
}

static void register_customer(banking *b, const char *ref, size_t len)
{
    uint64_t h;
    entry *e = map_find(&b->customers, ref, len, &h);
    customer *c = must(malloc(sizeof *c + len));
    memcpy(c + 1, ref, len);
    *c = (customer){.id = {(const char *)(c + 1), len}, .standing = 0, .status = ACTIVE};
    *e = (entry){h, c};
    b->customers.count++;
    log_append(&b->log, CUSTOMER_REGISTERED, ref, len, c, sizeof *c);
}

static int open_account(banking *b, const char *num, size_t len, const char *cust, size_t cust_len,
                        int kind, int64_t daily_limit)
{
    if (!nonempty(cust_len) || kind < CURRENT || kind > RESERVE || daily_limit < 0)
        return 1;
    uint64_t h;
    entry *e = map_find(&b->accounts, num, len, &h);
    if (e->rec)
        return 1;
    uint64_t ch;
    const customer *owner = map_find(&b->customers, cust, cust_len, &ch)->rec;
    if (!owner || owner->status != ACTIVE || !nonempty(len))
        return 1;
    account *a = must(malloc(sizeof *a + len));
    memcpy(a + 1, num, len);
    *a = (account){.id = {(const char *)(a + 1), len},
                   .customer = keep(&b->bytes, cust, cust_len),
                   .customer_len = cust_len,
                   .daily_limit = daily_limit,
                   .kind = kind,
                   .customer_status = owner->status,
                   .status = OPEN,
                   .cap = 4};
    a->ledger = a->inline_ledger;
    *e = (entry){h, a};
    b->accounts.count++;
    struct {
        const char *customer;
        int kind;
        int64_t limit;
    } payload = {a->customer, kind, daily_limit};
    log_append(&b->log, ACCOUNT_OPENED, num, len, &payload, sizeof payload);
    return 0;
}

static void ledger_append(banking *b, account *a, int64_t cents, const char *cur, const char *narr,
                          size_t narr_len, int direction)
{
    if (a->nledger == a->cap) {
        ledger_entry *bigger = must(malloc(a->cap * 2 * sizeof *bigger));
        memcpy(bigger, a->ledger, a->nledger * sizeof *bigger);
        if (a->ledger != a->inline_ledger)
            free(a->ledger);
        a->ledger = bigger;
        a->cap *= 2;
    }
    a->ledger[a->nledger] =
        (ledger_entry){(int64_t)a->nledger + 1,         cents,    keep(&b->bytes, cur, 3),
                       keep(&b->bytes, narr, narr_len), narr_len, direction};
    a->nledger++;
}

static int move_money(banking *b, const char *num, size_t len, int64_t cents, const char *cur,
                      size_t cur_len, const char *narr, size_t narr_len, int direction)
{
    if (cents < 0 || !currency_ok(cur, cur_len))
        return 1;
    uint64_t h;
    account *a = map_find(&b->accounts, num, len, &h)->rec;
    if (!a || a->status != OPEN || a->customer_status != ACTIVE || cents <= 0)
        return 1;
    int64_t before = a->balance;
    size_t entries = a->nledger;
    if (direction == DEBIT && (a->balance < cents || a->daily_limit < cents))
        return 1;
    int64_t balance = direction == CREDIT ? a->balance + cents : a->balance - cents;
    if (balance < 0) /* the Cents invariant of the new balance */
        return 1;
    a->balance = balance;
    ledger_append(b, a, cents, cur, narr, narr_len, direction);
    if (direction == DEBIT && (a->balance != before - cents || a->nledger != entries + 1))
        return 1; /* the ensures; not reached */
    struct {
        int64_t cents;
        const char *currency, *narrative;
        size_t len;
    } payload = {cents, a->ledger[entries].currency, a->ledger[entries].narrative, narr_len};
    log_append(&b->log, direction == CREDIT ? ACCOUNT_CREDITED : ACCOUNT_DEBITED, num, len,
               &payload, sizeof payload);
    return 0;
}

/* ---- the timing loop ---- */

typedef struct timing {
    hist all, tenths[10], verbs[4];
    uint64_t commands;
} timing;

static void record(timing *t, uint64_t t0, uint64_t t1, unsigned tenth, int verb)
{
    hist_record(&t->all, t1 - t0);
    hist_record(&t->tenths[tenth], t1 - t0);
    hist_record(&t->verbs[verb], t1 - t0);
    t->commands++;
}

/* One command timed: the name formatted, two clock reads, the recording. */
#define TIMED(t, tenth, verb, call)                                                                \
    do {                                                                                           \
        uint64_t t0_ = now_ns();                                                                   \
        int rc_ = (call);                                                                          \
        uint64_t t1_ = now_ns();                                                                   \
        if (timed)                                                                                 \
            record(t, t0_, t1_, tenth, verb);                                                      \
        if (rc_) {                                                                                 \
            fprintf(stderr, "peer_memory: cycle %" PRIu64 " step %d refused\n", n, verb);          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Cycles [from, to) of pizzas, timed or not (warmup); tenths of `cycles`. */
static void run_pizzas(pizzas *z, timing *t, uint64_t from, uint64_t to, bool timed,
                       uint64_t cycles)
{
    char name[32];
    for (uint64_t n = from; n < to; n++) {
        unsigned tenth = timed ? (unsigned)((n - from) * 10 / cycles) : 0;
        size_t len = (size_t)snprintf(name, sizeof name, "pizza-%" PRIu64, n);
        TIMED(t, tenth, 0, create_pizza(z, name, len, 1200, LARGE));
        len = (size_t)snprintf(name, sizeof name, "pizza-%" PRIu64, n);
        TIMED(t, tenth, 1, add_topping(z, name, len, "Basil", 5, 3));
        len = (size_t)snprintf(name, sizeof name, "pizza-%" PRIu64, n);
        TIMED(t, tenth, 2, add_topping(z, name, len, "Olive", 5, 2));
        len = (size_t)snprintf(name, sizeof name, "pizza-%" PRIu64, n);
        TIMED(t, tenth, 3, purchase(z, name, len, "Chris", 5, 1200));
    }
}

static void run_banking(banking *b, timing *t, uint64_t from, uint64_t to, bool timed,
                        uint64_t cycles)
{
    char num[32];
    for (uint64_t n = from; n < to; n++) {
        unsigned tenth = timed ? (unsigned)((n - from) * 10 / cycles) : 0;
        size_t len = (size_t)snprintf(num, sizeof num, "acct-%" PRIu64, n);
        TIMED(t, tenth, 0, open_account(b, num, len, "CUST-0001", 9, CURRENT, 50000));
        len = (size_t)snprintf(num, sizeof num, "acct-%" PRIu64, n);
        TIMED(t, tenth, 1, move_money(b, num, len, 10000, "USD", 3, "Deposit", 7, CREDIT));
        len = (size_t)snprintf(num, sizeof num, "acct-%" PRIu64, n);
        TIMED(t, tenth, 2, move_money(b, num, len, 5000, "USD", 3, "Deposit", 7, CREDIT));
        len = (size_t)snprintf(num, sizeof num, "acct-%" PRIu64, n);
        TIMED(t, tenth, 3, move_money(b, num, len, 2500, "USD", 3, "Groceries", 9, DEBIT));
    }
}

static double us(const hist *h, double q)
{
    return (double)hist_percentile(h, q) / 1000.0;
}

/* The heap's top made ready for `cycles` more at what `done` took of it,
 * `used` bytes (see the header). */
static void reserve_heap(size_t used, uint64_t done, uint64_t cycles)
{
    if (!done)
        return;
    size_t need = (size_t)((double)used / (double)done * (double)cycles * 1.125);
    char *p = need ? malloc(need) : NULL;
    if (!p)
        return;                             /* best effort, as bench's */
    for (size_t i = 0; i < need; i += 4096) /* volatile: not a dead store before free */
        ((volatile char *)p)[i] = 1;
    free(p); /* into the top, which is kept: M_TRIM_THRESHOLD */
}

int main(int argc, char **argv)
{
    bool reserve = argc == 5 && !strcmp(argv[4], "reserve");
    if ((argc != 4 && !(argc == 5 && (reserve || !strcmp(argv[4], "noreserve")))) ||
        (strcmp(argv[1], "pizzas") != 0 && strcmp(argv[1], "banking") != 0)) {
        fputs("usage: perf_peer_memory pizzas|banking CYCLES WARMUP [reserve|noreserve]\n", stderr);
        return 2;
    }
    reserve = reserve || argc == 4;
    mallopt(M_MMAP_MAX, 0);             /* every block from the heap */
    mallopt(M_TRIM_THRESHOLD, 1 << 30); /* and its top kept, not given back */
    uint64_t cycles = strtoull(argv[2], NULL, 10), warmup = strtoull(argv[3], NULL, 10);
    if (cycles == 0) {
        fputs("peer_memory: CYCLES must be at least 1\n", stderr);
        return 2;
    }
    timing *t = must(calloc(1, sizeof *t));
    bool ok = hist_init(&t->all) == 0;
    for (int i = 0; i < 10; i++)
        ok = ok && hist_init(&t->tenths[i]) == 0;
    for (int i = 0; i < 4; i++)
        ok = ok && hist_init(&t->verbs[i]) == 0;
    must(ok ? t : NULL);
    bool pizza = strcmp(argv[1], "pizzas") == 0;
    pizzas *z = must(calloc(1, sizeof *z));
    banking *b = must(calloc(1, sizeof *b));
    if (!pizza) /* setup, untimed */
        register_customer(b, "CUST-0001", 9);
    size_t before = mallinfo2().uordblks;
    if (pizza)
        run_pizzas(z, t, 0, warmup, false, cycles);
    else
        run_banking(b, t, 0, warmup, false, cycles);
    if (reserve)
        reserve_heap(mallinfo2().uordblks - before, warmup, cycles);
    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    uint64_t start = now_ns();
    if (pizza)
        run_pizzas(z, t, warmup, warmup + cycles, true, cycles);
    else
        run_banking(b, t, warmup, warmup + cycles, true, cycles);
    double wall = (double)(now_ns() - start) / 1e9;
    getrusage(RUSAGE_SELF, &ru1);
    size_t records = pizza ? z->orders.count : b->accounts.count;
    size_t events = pizza ? z->log.n : b->log.n - 1;
    if (records != warmup + cycles || events != 4 * (warmup + cycles)) {
        fputs("peer_memory: counts disagree\n", stderr);
        return 1;
    }
    printf("{\"commands\": %" PRIu64 ", \"wall_seconds\": %.6f, \"throughput_per_s\": %.1f, "
           "\"p50_us\": %.3f, \"p99_us\": %.3f, \"max_us\": %.3f, \"page_faults\": %ld, "
           "\"verbs_p50_us\": [%.3f, %.3f, %.3f, %.3f]}\n",
           t->commands, wall, (double)t->commands / wall, us(&t->all, 0.5), us(&t->all, 0.99),
           (double)t->all.max / 1000.0, ru1.ru_minflt - ru0.ru_minflt, us(&t->verbs[0], 0.5),
           us(&t->verbs[1], 0.5), us(&t->verbs[2], 0.5), us(&t->verbs[3], 0.5));
    return 0;
}
