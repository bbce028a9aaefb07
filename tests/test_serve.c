/* test_serve.c: `bench serve` as a real child over real pipes: the answers
 * of schema/protocol.md line for line (commands with their events, policy
 * events, refusals, the empty request, the count request, lines that are
 * not requests, argument errors by path, the record request, queries with
 * their returns), a clean end at end of input, and
 * the command line's errors. Each answer is read with a deadline, so a
 * server that does not answer fails the test instead of hanging it. */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_spawn.h"
#include "jsonschema.h"
#include "serve_spawn.h"

/* ---- schema/protocol.schema.json ---- */

static cJSON *protocol;

/* Whether line is valid as definitions/<def> of the protocol schema. */
static bool valid_as(const char *def, const char *line)
{
    if (!protocol) {
        FILE *f = fopen("schema/protocol.schema.json", "r");
        assert_non_null(f);
        static char text[1 << 16];
        size_t n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[n] = '\0';
        protocol = cJSON_Parse(text);
        assert_non_null(protocol);
    }
    cJSON *root = cJSON_Duplicate(protocol, true);
    cJSON_DeleteItemFromObject(root, "oneOf");
    char ref[128];
    snprintf(ref, sizeof ref, "#/definitions/%s", def);
    cJSON_AddStringToObject(root, "$ref", ref);
    cJSON *json = cJSON_Parse(line);
    bool ok = false;
    if (json) {
        arena a = {0};
        ok = jschema_validate(root, jschema_node_from_cjson(&a, json, "line"), NULL);
        arena_free(&a);
    }
    cJSON_Delete(json);
    cJSON_Delete(root);
    return ok;
}

static void assert_answer(const char *line)
{
    if (!valid_as("answer", line))
        fail_msg("not a protocol answer: %s", line);
}

typedef struct server {
    pid_t pid;
    int in, out; /* its stdin (ours to write), its stdout (ours to read) */
    char buf[1 << 16];
    size_t len;
} server;

/* bench serve SPEC, or with --store STORE when store is not NULL. */
static server *serve_start_on(const char *store, const char *spec)
{
    server *s = calloc(1, sizeof *s);
    assert_non_null(s);
    int in[2], out[2];
    assert_int_equal(pipe(in), 0);
    assert_int_equal(pipe(out), 0);
    s->pid = fork();
    assert_true(s->pid >= 0);
    if (s->pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        if (store)
            execl(spawn_bench_path(), spawn_bench_path(), "serve", "--store", store, spec,
                  (char *)NULL);
        else
            execl(spawn_bench_path(), spawn_bench_path(), "serve", spec, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    s->in = in[1];
    s->out = out[0];
    return s;
}

static server *serve_start(const char *spec)
{
    return serve_start_on(NULL, spec);
}

/* The next answer line without its newline (lent, until the next call).
 * Fails after 10 s. */
static const char *next_answer(server *s)
{
    static char answer[1 << 16];
    for (;;) {
        char *nl = memchr(s->buf, '\n', s->len);
        if (nl) {
            size_t k = (size_t)(nl - s->buf);
            memcpy(answer, s->buf, k);
            answer[k] = '\0';
            memmove(s->buf, nl + 1, s->len - k - 1);
            s->len -= k + 1;
            assert_answer(answer);
            return answer;
        }
        struct pollfd pf = {.fd = s->out, .events = POLLIN};
        assert_int_equal(poll(&pf, 1, 10000), 1);
        ssize_t r = read(s->out, s->buf + s->len, sizeof s->buf - s->len);
        assert_true(r > 0);
        s->len += (size_t)r;
    }
}

static void send_raw(server *s, const char *text)
{
    size_t n = strlen(text);
    assert_int_equal(write(s->in, text, n), (ssize_t)n);
}

/* Sends one line (a newline is added) and returns the answer line without
 * its newline (lent, until the next call). Fails after 10 s. */
static const char *ask(server *s, const char *line)
{
    send_raw(s, line);
    send_raw(s, "\n");
    return next_answer(s);
}

/* Closes its stdin and returns its exit status (fails after 10 s). */
static int serve_stop(server *s)
{
    close(s->in);
    int status = -1;
    for (int i = 0; i < 1000; i++) {
        pid_t r = waitpid(s->pid, &status, WNOHANG);
        if (r == s->pid)
            break;
        usleep(10000);
    }
    if (waitpid(s->pid, NULL, WNOHANG) == 0) { /* still running: do not leave it */
        kill(s->pid, SIGKILL);
        waitpid(s->pid, NULL, 0);
        fail_msg("bench serve did not exit at end of input");
    }
    close(s->out);
    free(s);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#define CREATE(name)                                                                               \
    "{\"verb\":\"Order.CreatePizza\",\"args\":{\"name\":\"" name                                   \
    "\",\"pizza\":{\"price_cents\":1200,\"size\":\"large\"}}}"

static void test_serve_answers_a_command_with_its_event(void **state)
{
    server *s = serve_start("specs/pizzas.yaml");
    assert_string_equal(ask(s, CREATE("p1")),
                        "{\"ok\":true,\"events\":[{\"name\":\"PizzaCreated\",\"payload\":{\"name\":"
                        "\"p1\",\"pizza\":{\"price_cents\":1200,\"size\":\"large\"}}}]}");
    /* member order and whitespace are free */
    assert_string_equal(
        ask(s, " { \"args\" : { \"amount\" : 3, \"topping\" : \"Basil\", \"name\":\"p1\" },"
               " \"verb\" : \"Order.AddTopping\" } "),
        "{\"ok\":true,\"events\":[{\"name\":\"ToppingAdded\",\"payload\":{\"name\":\"p1\","
        "\"topping\":\"Basil\",\"amount\":3}}]}");
    assert_int_equal(serve_stop(s), 0);
}

static void test_serve_refuses_the_empty_request_at_once(void **state)
{
    server *s = serve_start("specs/pizzas.yaml");
    for (int i = 0; i < 3; i++)
        assert_string_equal(ask(s, "{}"), "{\"ok\":false,\"error\":\"empty request\"}");
    assert_string_equal(ask(s, "{ }"), "{\"ok\":false,\"error\":\"empty request\"}");
    assert_int_equal(serve_stop(s), 0);
}

static void test_serve_refusal_carries_the_runtime_message(void **state)
{
    server *s = serve_start("specs/pizzas.yaml");
    ask(s, CREATE("p1"));
    assert_string_equal(ask(s, "{\"verb\":\"Order.Purchase\",\"args\":{\"name\":\"p1\","
                               "\"customer_name\":\"Chris\",\"amount\":1200}}"),
                        "{\"ok\":false,\"error\":\"Order.Purchase refused: a pizza needs a "
                        "topping\"}");
    assert_string_equal(ask(s, CREATE("p1")),
                        "{\"ok\":false,\"error\":\"Order.CreatePizza refused: Order 'p1' already "
                        "exists\"}");
    assert_string_equal(ask(s, "{\"verb\":\"Order.AddTopping\",\"args\":{\"name\":\"nope\","
                               "\"topping\":\"Basil\",\"amount\":3}}"),
                        "{\"ok\":false,\"error\":\"Order.AddTopping refused: Order 'nope' does not "
                        "exist\"}");
    assert_int_equal(serve_stop(s), 0);
}

static void test_serve_count_request_counts_what_was_kept(void **state)
{
    server *s = serve_start("specs/pizzas.yaml");
    assert_string_equal(ask(s, "{\"count\":true}"),
                        "{\"ok\":true,\"aggregates\":{\"Order\":0},\"events\":{\"PizzaCreated\":0,"
                        "\"ToppingAdded\":0,\"PizzaPurchased\":0}}");
    ask(s, CREATE("p1"));
    ask(s, CREATE("p2"));
    ask(s, CREATE("p2")); /* refused: nothing kept */
    ask(s, "{\"verb\":\"Order.AddTopping\",\"args\":{\"name\":\"p1\",\"topping\":\"B\","
           "\"amount\":1}}");
    assert_string_equal(ask(s, "{\"count\":true}"),
                        "{\"ok\":true,\"aggregates\":{\"Order\":2},\"events\":{\"PizzaCreated\":2,"
                        "\"ToppingAdded\":1,\"PizzaPurchased\":0}}");
    assert_int_equal(serve_stop(s), 0);
}

/* The record request: the record as the store holds it, or refusals. */
static void test_serve_answers_the_record_request(void **state)
{
    server *s = serve_start("specs/pizzas.yaml");
    ask(s, CREATE("p1"));
    ask(s, "{\"verb\":\"Order.AddTopping\",\"args\":{\"name\":\"p1\",\"topping\":\"B\","
           "\"amount\":1}}");
    const char *a = ask(s, "{\"record\":{\"aggregate\":\"Order\",\"id\":\"p1\"}}");
    assert_answer(a);
    assert_true(valid_as("recordAnswer", a));
    assert_string_equal(a,
                        "{\"ok\":true,\"record\":{\"name\":\"p1\",\"pizza\":{\"price_cents\":1200,"
                        "\"size\":\"large\"},\"toppings\":[{\"name\":\"B\",\"amount\":1}],"
                        "\"status\":\"available\"}}");
    assert_string_equal(ask(s, "{\"record\":{\"aggregate\":\"Order\",\"id\":\"p2\"}}"),
                        "{\"ok\":false,\"error\":\"no such record\"}");
    assert_string_equal(ask(s, "{\"record\":{\"aggregate\":\"Pizza\",\"id\":\"p1\"}}"),
                        "{\"ok\":false,\"error\":\"not a request: the record request names no "
                        "aggregate of pizzas\"}");
    assert_string_equal(ask(s, "{\"record\":{\"aggregate\":\"Order\",\"id\":7}}"),
                        "{\"ok\":false,\"error\":\"not a request: id: expected a string, got a "
                        "number\"}");
    assert_int_equal(serve_stop(s), 0);
}

/* The SQL stores behind serve: the same answers as the memory store. */
static void serve_on_a_sql_store(const char *store)
{
    server *s = serve_start_on(store, "specs/pizzas.yaml");
    assert_string_equal(ask(s, CREATE("p1")),
                        "{\"ok\":true,\"events\":[{\"name\":\"PizzaCreated\",\"payload\":{\"name\":"
                        "\"p1\",\"pizza\":{\"price_cents\":1200,\"size\":\"large\"}}}]}");
    assert_string_equal(ask(s, CREATE("p1")),
                        "{\"ok\":false,\"error\":\"Order.CreatePizza refused: Order 'p1' already "
                        "exists\"}");
    ask(s, "{\"verb\":\"Order.AddTopping\",\"args\":{\"name\":\"p1\",\"topping\":\"B\","
           "\"amount\":1}}");
    assert_string_equal(ask(s, "{\"count\":true}"),
                        "{\"ok\":true,\"aggregates\":{\"Order\":1},\"events\":{\"PizzaCreated\":1,"
                        "\"ToppingAdded\":1,\"PizzaPurchased\":0}}");
    assert_int_equal(serve_stop(s), 0);
}

static void test_serve_on_the_sqlite_store(void **state)
{
    serve_on_a_sql_store("sqlite");
}

static void test_serve_on_the_postgres_store(void **state)
{
    if (!getenv("BENCH_PG_SCRATCH")) {
        print_message("skipped: no scratch PostgreSQL server (make test starts one)\n");
        skip();
    }
    serve_on_a_sql_store("postgres");
}

/* The encoding rule holds before any store sees a string: invalid UTF-8
 * and NUL are refused with the same words on every store, and nothing of
 * them is kept. */
static void serve_refuses_what_breaks_the_encoding_rule(const char *store)
{
    static const char *const names[] = {"p\\u0000", "p\xff", "p\xed\xa0\x80"};
    static const char want[] = "{\"ok\":false,\"error\":\"Order.CreatePizza refused: name: a "
                               "string must be valid UTF-8 without NUL (\\\\u0000) characters\"}";
    server *s = serve_start_on(store, "specs/pizzas.yaml");
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char line[256];
        snprintf(line, sizeof line,
                 "{\"verb\":\"Order.CreatePizza\",\"args\":{\"name\":\"%s\",\"pizza\":{"
                 "\"price_cents\":1200,\"size\":\"large\"}}}",
                 names[i]);
        assert_string_equal(ask(s, line), want);
    }
    assert_string_equal(ask(s, "{\"count\":true}"),
                        "{\"ok\":true,\"aggregates\":{\"Order\":0},\"events\":{\"PizzaCreated\":0,"
                        "\"ToppingAdded\":0,\"PizzaPurchased\":0}}");
    assert_int_equal(serve_stop(s), 0);
}

static void test_serve_holds_every_store_to_the_encoding_rule(void **state)
{
    serve_refuses_what_breaks_the_encoding_rule(NULL);
    serve_refuses_what_breaks_the_encoding_rule("sqlite");
    if (!getenv("BENCH_PG_SCRATCH")) {
        print_message("postgres skipped: no scratch PostgreSQL server (make test starts one)\n");
        return;
    }
    serve_refuses_what_breaks_the_encoding_rule("postgres");
}

/* Whether dir holds a sqlite scratch directory. */
static bool holds_scratch(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    bool found = false;
    while ((e = readdir(d)) != NULL)
        found |= strncmp(e->d_name, "bench-sqlite-", 13) == 0;
    closedir(d);
    return found;
}

/* SIGTERM, SIGINT or SIGHUP ends bench serve as the end of input does: it
 * exits 0 and its scratch store is gone. */
static void test_serve_removes_its_scratch_store_on_a_signal(void **state)
{
    static const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
    char tmp[] = "/tmp/bench-test-serve-XXXXXX";
    assert_non_null(mkdtemp(tmp));
    const char *old = getenv("TMPDIR");
    char *saved = old ? strdup(old) : NULL;
    setenv("TMPDIR", tmp, 1);
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        server *s = serve_start_on("sqlite", "specs/pizzas.yaml");
        assert_non_null(strstr(ask(s, CREATE("p1")), "\"ok\":true"));
        assert_true(holds_scratch(tmp));
        kill(s->pid, sigs[i]);
        int status = -1;
        for (int k = 0; k < 1000 && waitpid(s->pid, &status, WNOHANG) == 0; k++)
            usleep(10000);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        assert_false(holds_scratch(tmp));
        close(s->in);
        close(s->out);
        free(s);
    }
    if (saved)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
    free(saved);
    assert_int_equal(rmdir(tmp), 0);
}

static void test_serve_answers_policy_events_in_order(void **state)
{
    server *s = serve_start("examples/library.yaml");
    assert_non_null(strstr(ask(s, "{\"verb\":\"Member.Join\",\"args\":{\"card\":\"M-0001\","
                                  "\"name\":\"Ada\",\"max_loans\":1}}"),
                           "\"ok\":true"));
    assert_non_null(strstr(ask(s, "{\"verb\":\"Copy.Acquire\",\"args\":{\"barcode\":\"c1\","
                                  "\"title\":\"Dune\"}}"),
                           "\"ok\":true"));
    assert_non_null(strstr(ask(s, "{\"verb\":\"Copy.Acquire\",\"args\":{\"barcode\":\"c2\","
                                  "\"title\":\"Emma\"}}"),
                           "\"ok\":true"));
    assert_string_equal(
        ask(s, "{\"verb\":\"Copy.Lend\",\"args\":{\"barcode\":\"c1\",\"card\":\"M-0001\"}}"),
        "{\"ok\":true,\"events\":[{\"name\":\"CopyLent\",\"payload\":{\"barcode\":\"c1\",\"card\":"
        "\"M-0001\"}},{\"name\":\"LoanCounted\",\"payload\":{\"card\":\"M-0001\"}}]}");
    /* the policy refuses the second loan: the whole dispatch is refused, no events */
    assert_string_equal(
        ask(s, "{\"verb\":\"Copy.Lend\",\"args\":{\"barcode\":\"c2\",\"card\":\"M-0001\"}}"),
        "{\"ok\":false,\"error\":\"Copy.Lend refused: policy Member.CountLoan refused: the member "
        "has too many loans\"}");
    assert_int_equal(serve_stop(s), 0);
}

static void assert_apple_stock(server *s, int stock)
{
    char want[128];
    snprintf(want, sizeof want,
             "{\"ok\":true,\"record\":{\"sku\":\"apple\",\"stock\":%d,\"price_cents\":120}}",
             stock);
    assert_string_equal(ask(s, "{\"record\":{\"aggregate\":\"Product\",\"id\":\"apple\"}}"), want);
}

/* A for_each policy over the pipe: one Product.Reserve per line of the
 * checkout, all or nothing. */
static void test_serve_runs_a_for_each_policy_all_or_nothing(void **state)
{
    server *s = serve_start("examples/cart.yaml");
    static const char *const setup[] = {
        "{\"verb\":\"Product.Create\",\"args\":{\"sku\":\"apple\",\"stock\":5,"
        "\"price_cents\":120}}",
        "{\"verb\":\"Product.Create\",\"args\":{\"sku\":\"pear\",\"stock\":1,"
        "\"price_cents\":95}}",
        "{\"verb\":\"Cart.Open\",\"args\":{\"id\":\"c1\"}}",
        "{\"verb\":\"Cart.Add\",\"args\":{\"id\":\"c1\",\"sku\":\"apple\",\"qty\":2}}",
        "{\"verb\":\"Cart.Add\",\"args\":{\"id\":\"c1\",\"sku\":\"pear\",\"qty\":1}}",
        "{\"verb\":\"Cart.Open\",\"args\":{\"id\":\"c2\"}}",
        "{\"verb\":\"Cart.Add\",\"args\":{\"id\":\"c2\",\"sku\":\"apple\",\"qty\":1}}",
        "{\"verb\":\"Cart.Add\",\"args\":{\"id\":\"c2\",\"sku\":\"pear\",\"qty\":1}}",
    };
    for (size_t i = 0; i < sizeof setup / sizeof *setup; i++)
        assert_non_null(strstr(ask(s, setup[i]), "\"ok\":true"));
    assert_string_equal(
        ask(s, "{\"verb\":\"Cart.Checkout\",\"args\":{\"id\":\"c1\"}}"),
        "{\"ok\":true,\"events\":[{\"name\":\"CheckedOut\",\"payload\":{\"id\":\"c1\",\"lines\":["
        "{\"sku\":\"apple\",\"qty\":2,\"price_cents\":120},{\"sku\":\"pear\",\"qty\":1,"
        "\"price_cents\":95}],\"total_cents\":335}}]}");
    assert_apple_stock(s, 3);
    /* c2's apple is reserved, then its pear is not there: both are refused */
    assert_string_equal(ask(s, "{\"verb\":\"Cart.Checkout\",\"args\":{\"id\":\"c2\"}}"),
                        "{\"ok\":false,\"error\":\"Cart.Checkout refused: policy Product.Reserve "
                        "(item 2 of 2) refused: not enough stock\"}");
    assert_apple_stock(s, 3);
    assert_string_equal(ask(s, "{\"count\":true}"),
                        "{\"ok\":true,\"aggregates\":{\"Product\":2,\"Cart\":2},\"events\":{"
                        "\"ProductCreated\":2,\"CartOpened\":2,\"LineAdded\":4,\"CheckedOut\":1}}");
    assert_int_equal(serve_stop(s), 0);
}

#define STATUS(name) "{\"query\":\"Order.Status\",\"args\":{\"name\":\"" name "\"}}"

/* A request line and its exact answer (NULL: any success). */
typedef struct line_answer {
    const char *line, *answer;
} line_answer;

/* Asks bench serve on store (NULL: memory) for spec each line in turn, and
 * holds each answer to the one given; a success that starts with prefix
 * must be valid as the protocol schema's definition def. */
static void ask_each(const char *store, const char *spec, const line_answer *lines, size_t n,
                     const char *prefix, const char *def)
{
    server *s = serve_start_on(store, spec);
    for (size_t i = 0; i < n; i++) {
        const char *got = ask(s, lines[i].line);
        if (lines[i].answer ? strcmp(got, lines[i].answer) != 0 : !strstr(got, "\"ok\":true"))
            fail_msg("%s: line %s\n  got  %s\n  want %s", store ? store : "memory", lines[i].line,
                     got, lines[i].answer ? lines[i].answer : "ok");
        if (!strncmp(got, prefix, strlen(prefix)))
            assert_true(valid_as(def, got) && valid_as("answer", got));
    }
    assert_int_equal(serve_stop(s), 0);
}

/* A query request answers the query's returns from the committed record,
 * or refuses as the C runtime does; it writes nothing. */
static void serve_answers_queries(const char *store)
{
    static const line_answer lines[] = {
        {CREATE("p1"), NULL},
        {STATUS("p1"), "{\"ok\":true,\"returns\":{\"status\":\"available\",\"toppings\":0}}"},
        {"{\"verb\":\"Order.AddTopping\",\"args\":{\"name\":\"p1\",\"topping\":\"B\",\"amount\":1}"
         "}",
         NULL},
        {"{\"verb\":\"Order.Purchase\",\"args\":{\"name\":\"p1\",\"customer_name\":\"Chris\","
         "\"amount\":1200}}",
         NULL},
        {STATUS("p1"), "{\"ok\":true,\"returns\":{\"status\":\"sold\",\"toppings\":1}}"},
        {STATUS("p2"),
         "{\"ok\":false,\"error\":\"Order.Status refused: Order 'p2' does not exist\"}"},
        {"{\"query\":\"Order.Status\",\"args\":{\"name\":3}}",
         "{\"ok\":false,\"error\":\"Order.Status refused: name: expected a string, got a "
         "number\"}"},
        /* a query is not a command, nor the other way round */
        {"{\"verb\":\"Order.Status\",\"args\":{\"name\":\"p1\"}}",
         "{\"ok\":false,\"error\":\"Order.Status is a query: send it as {\\\"query\\\": "
         "\\\"Order.Status\\\", \\\"args\\\": {...}}\"}"},
        {"{\"query\":\"Order.Stat\",\"args\":{}}",
         "{\"ok\":false,\"error\":\"unknown verb 'Order.Stat' (did you mean 'Order.Status'?)\"}"},
        /* the queries kept nothing: one order, its three events */
        {"{\"count\":true}",
         "{\"ok\":true,\"aggregates\":{\"Order\":1},\"events\":{\"PizzaCreated\":1,"
         "\"ToppingAdded\":1,\"PizzaPurchased\":1}}"},
    };
    ask_each(store, "examples/pizza_status.yaml", lines, sizeof lines / sizeof *lines,
             "{\"ok\":true,\"returns\"", "queryAnswer");
}

#define SCAN(key, count)                                                                           \
    "{\"query\":\"User.Scan\",\"args\":{\"key\":\"" key "\",\"count\":" #count "}}"
#define INSERT(key, n) "{\"verb\":\"User.Insert\",\"args\":{\"key\":\"" key "\",\"n\":" #n "}}"

/* A scan answers rows from the start key on, in identity order by bytes,
 * at most the limit; the same on every store. */
static void serve_answers_scans(const char *store)
{
    static const line_answer lines[] = {
        {SCAN("a", 5), "{\"ok\":true,\"rows\":[]}"},
        {INSERT("user9", 9), NULL},
        {INSERT("user10", 10), NULL},
        {INSERT("user1", 1), NULL},
        {SCAN("user", 2),
         "{\"ok\":true,\"rows\":[{\"key\":\"user1\",\"n\":1},{\"key\":\"user10\",\"n\":10}]}"},
        {SCAN("user11", 5), "{\"ok\":true,\"rows\":[{\"key\":\"user9\",\"n\":9}]}"},
        {SCAN("user95", 5), "{\"ok\":true,\"rows\":[]}"},
        {"{\"verb\":\"User.Drop\",\"args\":{\"key\":\"user10\"}}", NULL},
        {SCAN("user1", 5),
         "{\"ok\":true,\"rows\":[{\"key\":\"user1\",\"n\":1},{\"key\":\"user9\",\"n\":9}]}"},
        {SCAN("user1", 0),
         "{\"ok\":false,\"error\":\"User.Scan refused: count: 0 is less than the minimum 1\"}"},
        {"{\"verb\":\"User.Scan\",\"args\":{\"key\":\"user1\",\"count\":1}}",
         "{\"ok\":false,\"error\":\"User.Scan is a query: send it as {\\\"query\\\": "
         "\\\"User.Scan\\\", \\\"args\\\": {...}}\"}"},
        {"{\"count\":true}", "{\"ok\":true,\"aggregates\":{\"User\":2},\"events\":{}}"},
    };
    ask_each(store, "tests/fixtures/ranges.yaml", lines, sizeof lines / sizeof *lines,
             "{\"ok\":true,\"rows\"", "scanAnswer");
}

static void test_serve_answers_scans_on_every_store(void **state)
{
    serve_answers_scans(NULL);
    serve_answers_scans("sqlite");
    if (getenv("BENCH_PG_SCRATCH"))
        serve_answers_scans("postgres");
}

static void test_serve_answers_a_query_with_its_returns(void **state)
{
    serve_answers_queries(NULL);
}

static void test_serve_answers_queries_on_the_sql_stores(void **state)
{
    serve_answers_queries("sqlite");
    if (getenv("BENCH_PG_SCRATCH"))
        serve_answers_queries("postgres");
}

/* Lines that are not requests each get one error answer; the server goes on. */
static void test_serve_answers_every_bad_line_and_goes_on(void **state)
{
    static const struct {
        const char *line, *error;
    } cases[] = {
        {"hello", "not a request: a request is a JSON object on one line, not something that is "
                  "not JSON"},
        {"", "not a request: a request is a JSON object on one line, not the end of the line"},
        {"[1,2]", "not a request: a request is a JSON object on one line, not an array"},
        {"{\"verb\":\"Order.CreatePizza\"", "not a request: expected ',' or '}' in an object, got "
                                            "the end of the line"},
        {"{\"id\":1}", "not a request: 'id' is not a member of a request; a request has verb and "
                       "args, query and args, or count"},
        {"{\"count\":true,\"verb\":\"Order.Purchase\"}",
         "not a request: a count request has nothing but count"},
        {"{\"args\":{}}", "not a request: a request with args needs a verb or a query"},
        {"{\"verb\":\"Order.Purchase\",\"query\":\"Order.Purchase\"}",
         "not a request: a request names a verb or a query, not both"},
        {"{\"query\":\"Order.Purchase\",\"args\":{}}",
         "Order.Purchase is a command: send it as {\\\"verb\\\": \\\"Order.Purchase\\\", "
         "\\\"args\\\": {...}}"},
        {"{\"verb\":3}", "not a request: verb: expected a string, got a number"},
        {"{\"verb\":\"Order.Purchase\",\"args\":[]}",
         "not a request: args: expected an object, got an array"},
        {"{} {}", "not a request: unexpected text after the request"},
        {"{\"verb\":\"Order.Purchse\",\"args\":{}}",
         "unknown verb 'Order.Purchse' (did you mean 'Order.Purchase'?)"},
        {"{\"verb\":\"Nothing.Like.It\"}", "unknown verb 'Nothing.Like.It'"},
        /* the shape the process target writes, read fast, then something wrong after it */
        {"{\"verb\":\"Order.Purchase\",\"args\":{\"name\":\"a\",\"customer_name\":\"b\","
         "\"amount\":1},\"x\":1}",
         "not a request: 'x' is not a member of a request; a request has verb and args, query and "
         "args, or count"},
        {"{\"verb\":\"Order.Purchase\",\"args\":{\"name\":\"a\",\"customer_name\":\"b\","
         "\"amount\":1}} x",
         "not a request: unexpected text after the request"},
        {"{\"verb\":\"Order.Purchase\",\"args\":{\"name\":\"a\",\"customer_name\":\"b\","
         "\"amount\":1}",
         "not a request: expected ',' or '}' in an object, got the end of the line"},
        {"{\"verb\":\"Order.Purchse\",\"args\":{\"name\":\"a\"}}",
         "unknown verb 'Order.Purchse' (did you mean 'Order.Purchase'?)"},
    };
    server *s = serve_start("specs/pizzas.yaml");
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char want[512];
        snprintf(want, sizeof want, "{\"ok\":false,\"error\":\"%s\"}", cases[i].error);
        const char *got = ask(s, cases[i].line);
        if (strcmp(got, want) != 0)
            fail_msg("line %s\n  got  %s\n  want %s", cases[i].line, got, want);
    }
    assert_non_null(strstr(ask(s, CREATE("after")), "\"ok\":true"));
    assert_int_equal(serve_stop(s), 0);
}

/* Requests in the process target's shape are found by their head: a verb
 * that only begins like one, or goes on past one, is still unknown, and a
 * query sent as a command is still told so; with more commands than the
 * heads are compared for, the same answers come by the verb's hash. */
static void test_serve_finds_canonical_requests_by_their_head(void **state)
{
    static const struct {
        const char *spec, *line, *answer;
    } cases[] = {
        {"tests/fixtures/ranges.yaml",
         "{\"verb\":\"User.Insert\",\"args\":{\"key\":\"a\",\"n\":1}}",
         "{\"ok\":true,\"events\":[]}"},
        {"tests/fixtures/ranges.yaml",
         "{\"verb\":\"User.InsertX\",\"args\":{\"key\":\"a\",\"n\":1}}",
         "{\"ok\":false,\"error\":\"unknown verb 'User.InsertX' (did you mean 'User.Insert'?)\"}"},
        {"tests/fixtures/ranges.yaml", "{\"verb\":\"User.Inser\",\"args\":{\"key\":\"a\",\"n\":1}}",
         "{\"ok\":false,\"error\":\"unknown verb 'User.Inser' (did you mean 'User.Insert'?)\"}"},
        {"tests/fixtures/ranges.yaml", "{\"verb\":\"User.Insert\",\"args\":[]}",
         "{\"ok\":false,\"error\":\"not a request: args: expected an object, got an array\"}"},
        {"tests/fixtures/ranges.yaml", "{\"verb\":\"User.Insert\",\"args\":{\"key\":\"a\"}}",
         "{\"ok\":false,\"error\":\"User.Insert refused: missing 'n'\"}"},
        {"tests/fixtures/ranges.yaml",
         "{\"verb\":\"User.Scan\",\"args\":{\"key\":\"a\",\"count\":1}}",
         "{\"ok\":false,\"error\":\"User.Scan is a query: send it as {\\\"query\\\": "
         "\\\"User.Scan\\\", \\\"args\\\": {...}}\"}"},
        {"tests/fixtures/many_verbs.yaml",
         "{\"verb\":\"User.Set17\",\"args\":{\"key\":\"a\",\"n\":1}}",
         "{\"ok\":true,\"events\":[]}"},
        {"tests/fixtures/many_verbs.yaml",
         "{\"verb\":\"User.Set01\",\"args\":{\"key\":\"b\",\"n\":2}}",
         "{\"ok\":true,\"events\":[]}"},
        {"tests/fixtures/many_verbs.yaml",
         "{\"verb\":\"User.Set1\",\"args\":{\"key\":\"b\",\"n\":2}}",
         "{\"ok\":false,\"error\":\"unknown verb 'User.Set1' (did you mean 'User.Set01'?)\"}"},
        {"tests/fixtures/many_verbs.yaml", "{\"verb\":\"User.Set17\",\"args\":{\"key\":\"c\"}}",
         "{\"ok\":false,\"error\":\"User.Set17 refused: missing 'n'\"}"},
    };
    server *s = NULL;
    const char *spec = NULL;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (!spec || strcmp(spec, cases[i].spec) != 0) {
            if (s)
                assert_int_equal(serve_stop(s), 0);
            spec = cases[i].spec;
            s = serve_start(spec);
        }
        const char *got = ask(s, cases[i].line);
        if (strcmp(got, cases[i].answer) != 0)
            fail_msg("%s: %s\n  got  %s\n  want %s", spec, cases[i].line, got, cases[i].answer);
    }
    assert_int_equal(serve_stop(s), 0);
}

/* Arguments are decoded against the command's types; errors name the path. */
static void test_serve_argument_errors_name_the_path(void **state)
{
    static const struct {
        const char *args, *error;
    } cases[] = {
        {"{\"name\":\"a\",\"pizza\":{\"price_cents\":1200,\"size\":\"medium\"}}",
         "pizza.size: 'medium' is not one of small, large"},
        {"{\"name\":\"a\",\"pizza\":{\"price_cents\":1200}}", "pizza: missing 'size'"},
        {"{\"name\":\"a\"}", "missing 'pizza'"},
        {"{\"name\":\"a\",\"pizza\":{\"price_cents\":1200,\"size\":\"large\"},\"extra\":1}",
         "'extra' is not a field of the arguments"},
        {"{\"name\":\"a\",\"pizza\":{\"price_cents\":1200,\"size\":\"large\",\"crust\":\"thin\"}}",
         "pizza: 'crust' is not a field of this object"},
        {"{\"name\":7,\"pizza\":{\"price_cents\":1200,\"size\":\"large\"}}",
         "name: expected a string, got a number"},
        {"{\"name\":\"a\",\"pizza\":{\"price_cents\":\"1200\",\"size\":\"large\"}}",
         "pizza.price_cents: expected an integer, got a string"},
        {"{\"name\":\"a\",\"pizza\":{\"price_cents\":12.5,\"size\":\"large\"}}",
         "pizza.price_cents: expected an integer, got a number with a fraction or exponent"},
        {"{\"name\":\"a\",\"pizza\":{\"price_cents\":99999999999999999999,\"size\":\"large\"}}",
         "pizza.price_cents: 99999999999999999999 is out of the range of a 64-bit integer"},
        {"{\"name\":\"a\",\"pizza\":{\"price_cents\":-1,\"size\":\"large\"}}",
         "pizza.price_cents: -1 is less than the minimum 0"},
        {"{\"name\":\"a\",\"name\":\"b\",\"pizza\":{\"price_cents\":1,\"size\":\"large\"}}",
         "'name' appears twice"},
        {"{\"name\":\"\",\"pizza\":{\"price_cents\":1,\"size\":\"large\"}}",
         "name: 0 character(s), fewer than the minimum 1"},
    };
    server *s = serve_start("specs/pizzas.yaml");
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char line[512], want[512];
        snprintf(line, sizeof line, "{\"verb\":\"Order.CreatePizza\",\"args\":%s}", cases[i].args);
        snprintf(want, sizeof want, "{\"ok\":false,\"error\":\"Order.CreatePizza refused: %s\"}",
                 cases[i].error);
        const char *got = ask(s, line);
        if (strcmp(got, want) != 0)
            fail_msg("args %s\n  got  %s\n  want %s", cases[i].args, got, want);
    }
    assert_string_equal(ask(s, "{\"count\":true}"),
                        "{\"ok\":true,\"aggregates\":{\"Order\":0},\"events\":{\"PizzaCreated\":0,"
                        "\"ToppingAdded\":0,\"PizzaPurchased\":0}}");
    assert_int_equal(serve_stop(s), 0);
}

/* Escapes decode to UTF-8 (surrogate pairs included) and encode back. */
static void test_serve_strings_round_trip_escapes(void **state)
{
    server *s = serve_start("specs/pizzas.yaml");
    assert_string_equal(
        ask(s, "{\"verb\":\"Order.CreatePizza\",\"args\":{\"name\":\"caf\\u00e9 \\ud83c\\udf55 "
               "\\\"q\\\" \\\\ \\t\\/\",\"pizza\":{\"price_cents\":1,\"size\":\"small\"}}}"),
        "{\"ok\":true,\"events\":[{\"name\":\"PizzaCreated\",\"payload\":{\"name\":\"caf\xc3\xa9 "
        "\xf0\x9f\x8d\x95 \\\"q\\\" \\\\ "
        "\\t/\",\"pizza\":{\"price_cents\":1,\"size\":\"small\"}}}]}");
    assert_string_equal(
        ask(s, "{\"verb\":\"Order.CreatePizza\",\"args\":{\"name\":\"\\ud83c\",\"pizza\":{}}}"),
        "{\"ok\":false,\"error\":\"not a request: args: a lone surrogate \\\\u escape in a "
        "string\"}");
    assert_int_equal(serve_stop(s), 0);
}

/* The event that carries the arguments (the default payload) carries them
 * in the encoder's form however the request wrote them: echoed when they
 * are in it already, encoded again when spaced, reordered, escaped, with
 * -0 or a null. */
static void test_serve_default_payloads_are_in_the_encoders_form(void **state)
{
    static const char *args[] = {
        "{\"name\":\"p1\",\"topping\":\"Basil\",\"amount\":3}",
        "{\"name\":\"p1\", \"topping\":\"Basil\",\"amount\":3}",
        "{\"amount\":3,\"name\":\"p1\",\"topping\":\"Basil\"}",
        "{\"name\":\"p\\u0031\",\"topping\":\"Basil\",\"amount\":3}",
        "{\"name\":\"p1\",\"topping\":\"Basil\",\"amount\":3} ",
    };
    server *s = serve_start("specs/pizzas.yaml");
    assert_non_null(strstr(ask(s, CREATE("p1")), "\"ok\":true"));
    for (size_t i = 0; i < sizeof args / sizeof *args; i++) {
        char line[512];
        snprintf(line, sizeof line, "{\"verb\":\"Order.AddTopping\",\"args\":%s}", args[i]);
        const char *got = ask(s, line);
        static const char want[] =
            "{\"ok\":true,\"events\":[{\"name\":\"ToppingAdded\",\"payload\":"
            "{\"name\":\"p1\",\"topping\":\"Basil\",\"amount\":3}}]}";
        if (strcmp(got, want) != 0)
            fail_msg("args %s\n  got  %s\n  want %s", args[i], got, want);
    }
    assert_int_equal(serve_stop(s), 0);
}

/* A request line longer than 16 MiB (SERVE_LINE_MAX) is answered with an error once
 * its newline comes, without keeping it; the next line is served. */
static void test_serve_refuses_a_line_longer_than_the_limit(void **state)
{
    server *s = serve_start("specs/pizzas.yaml");
    size_t n = (size_t)17 << 20;
    char *line = malloc(n + 1);
    assert_non_null(line);
    memset(line, ' ', n);
    line[0] = '{';
    line[n] = '\0';
    send_raw(s, line);
    free(line);
    assert_string_equal(ask(s, "}"),
                        "{\"ok\":false,\"error\":\"the request line is longer than 16 MiB\"}");
    assert_non_null(strstr(ask(s, CREATE("after")), "\"ok\":true"));
    assert_int_equal(serve_stop(s), 0);
}

/* A last line without a newline is still answered; then the server ends with 0. */
static void test_serve_answers_a_last_line_without_newline(void **state)
{
    int in[2], out[2];
    assert_int_equal(pipe(in), 0);
    assert_int_equal(pipe(out), 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        execl(spawn_bench_path(), spawn_bench_path(), "serve", "specs/pizzas.yaml", (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    assert_int_equal(write(in[1], "{}\n{}", 5), 5);
    close(in[1]);
    char buf[256] = "";
    size_t len = 0;
    ssize_t r;
    while ((r = read(out[0], buf + len, sizeof buf - 1 - len)) > 0)
        len += (size_t)r;
    buf[len] = '\0';
    close(out[0]);
    assert_string_equal(buf, "{\"ok\":false,\"error\":\"empty request\"}\n"
                             "{\"ok\":false,\"error\":\"empty request\"}\n");
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* The schema tells requests and answers apart as protocol.md does. */
static void test_protocol_schema_accepts_the_lines_it_should(void **state)
{
    static const struct {
        const char *def, *line;
        bool valid;
    } cases[] = {
        {"request", CREATE("p"), true},
        {"request", "{\"verb\":\"Pizzas::Order.Purchase\",\"args\":{}}", true},
        {"request", "{\"verb\":\"Order.Purchase\"}", true},
        {"request", "{}", true},
        {"request", "{\"count\":true}", true},
        {"request", "{\"count\":false}", false},
        {"request", "{\"count\":true,\"verb\":\"Order.Purchase\"}", false},
        {"request", "{\"verb\":\"\"}", false},
        {"request", "{\"args\":{}}", false},
        {"request", "[]", false},
        {"answer", "{\"ok\":true}", true},
        {"answer", "{\"ok\":true,\"events\":[{\"name\":\"E\",\"payload\":{}}]}", true},
        {"answer", "{\"ok\":false,\"error\":\"empty request\"}", true},
        {"answer", "{\"ok\":true,\"aggregates\":{\"Order\":3},\"events\":{\"E\":1}}", true},
        {"answer", "{\"ok\":true,\"aggregates\":{\"Order\":-1},\"events\":{}}", false},
        {"answer", "{\"ok\":false}", false},
        {"answer", "{\"ok\":\"yes\"}", false},
        {"answer", "{\"events\":[]}", false},
        {"answer", "{\"ok\":true,\"events\":[{\"payload\":{}}]}", false},
        {"request", "{\"record\":{\"aggregate\":\"Order\",\"id\":\"p\"}}", true},
        {"request", "{\"record\":{\"aggregate\":\"Order\"}}", false},
        {"answer", "{\"ok\":true,\"record\":{\"name\":\"p\"}}", true},
        {"answer", "{\"ok\":true,\"record\":[]}", false},
        {"request", STATUS("p"), true},
        {"request", "{\"query\":\"Order.Status\"}", true},
        {"request", "{\"query\":\"\"}", false},
        {"request", "{\"query\":\"Order.Status\",\"verb\":\"Order.Status\"}", false},
        {"answer", "{\"ok\":true,\"returns\":{\"status\":\"sold\"}}", true},
        {"queryAnswer", "{\"ok\":true,\"returns\":{\"status\":\"sold\"}}", true},
        {"queryAnswer", "{\"ok\":true,\"returns\":3}", false},
        {"success", "{\"ok\":true,\"returns\":{}}", false},
        {"answer", "{\"ok\":true,\"rows\":[{\"key\":\"u\"}]}", true},
        {"scanAnswer", "{\"ok\":true,\"rows\":[]}", true},
        {"scanAnswer", "{\"ok\":true,\"rows\":{}}", false},
        {"scanAnswer", "{\"ok\":true,\"rows\":[3]}", false},
        {"success", "{\"ok\":true,\"rows\":[]}", false},
        {"request", "{\"reset\":true}", true},
        {"request", "{\"reset\":false}", false},
        {"request", "{\"reset\":true,\"count\":true}", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (valid_as(cases[i].def, cases[i].line) != cases[i].valid)
            fail_msg("%s %s should be %s", cases[i].def, cases[i].line,
                     cases[i].valid ? "valid" : "invalid");
}

static void test_serve_command_line_errors(void **state)
{
    static const struct {
        const char *args[4];
        int status;
        const char *err;
    } cases[] = {
        {{"--store", "redis", "specs/pizzas.yaml"},
         2,
         "bench serve: unknown store 'redis'; the stores are memory, sqlite, postgres"},
        {{NULL}, 2, "bench serve: give exactly one spec"},
        {{"specs/pizzas.yaml", "specs/banking.yaml"}, 2, "give exactly one spec"},
        {{"no/such/spec.yaml"}, 2, "no/such/spec.yaml"},
        {{"--bogus", "specs/pizzas.yaml"}, 2, "unknown option"},
        {{"--help"}, 0, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *argv[8] = {(char *)spawn_bench_path(), "serve"};
        size_t n = 2;
        for (size_t k = 0; k < 4 && cases[i].args[k]; k++)
            argv[n++] = (char *)cases[i].args[k];
        spawn_output o = spawn_run(argv);
        if (o.status != cases[i].status || !strstr(o.err, cases[i].err))
            fail_msg("case %zu: status %d, stderr %s", i, o.status, o.err);
        if (cases[i].status == 0)
            assert_non_null(strstr(o.out, "usage: bench serve"));
        free(o.out);
        free(o.err);
    }
}

/* ---- bench serve --listen ---- */

static struct {
    char dir[64];
    listening l, other;
} ls;

static int listen_teardown(void **state)
{
    listen_free(&ls.l);
    listen_free(&ls.other);
    if (ls.dir[0])
        spawn_remove_dir(ls.dir);
    memset(&ls, 0, sizeof ls);
    return 0;
}

/* unix:DIR/name in a scratch directory the teardown removes; the path alone
 * in path when it is not NULL. */
static void sock_addr(char *addr, size_t size, const char *name, char *path, size_t psize)
{
    if (!ls.dir[0]) {
        snprintf(ls.dir, sizeof ls.dir, "/tmp/test_serve.XXXXXX");
        assert_non_null(mkdtemp(ls.dir));
    }
    snprintf(addr, size, "unix:%s/%s", ls.dir, name);
    if (path)
        snprintf(path, psize, "%s/%s", ls.dir, name);
}

/* A connection to addr, read and written as a server's pipes are. */
static server *client(const char *addr)
{
    server *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->in = c->out = listen_connect(addr);
    if (c->in < 0)
        fail_msg("cannot connect to %s: %s", addr, strerror(errno));
    return c;
}

static void client_close(server *c)
{
    close(c->in);
    free(c);
}

static bool gone(const char *path)
{
    struct stat st;
    return lstat(path, &st) < 0 && errno == ENOENT;
}

#define COUNT(orders, created)                                                                     \
    "{\"ok\":true,\"aggregates\":{\"Order\":" #orders "},\"events\":{\"PizzaCreated\":" #created   \
    ",\"ToppingAdded\":0,\"PizzaPurchased\":0}}"
#define CREATED(name)                                                                              \
    "{\"ok\":true,\"events\":[{\"name\":\"PizzaCreated\",\"payload\":{\"name\":\"" name            \
    "\",\"pizza\":{\"price_cents\":1200,\"size\":\"large\"}}}]}"
#define EMPTY "{\"ok\":false,\"error\":\"empty request\"}"

/* Two connections on one store: what one creates the other counts; each
 * gets its answers in the order of its requests, however its lines arrive;
 * a line that is not a request is refused and the connection goes on.
 * SIGTERM with a client still connected ends the server with 0 and removes
 * the socket file. */
static void test_serve_listen_shares_one_store_between_connections(void **state)
{
    char addr[200], path[200];
    sock_addr(addr, sizeof addr, "s.sock", path, sizeof path);
    assert_true(listen_start(&ls.l, NULL, addr, "specs/pizzas.yaml"));
    assert_string_equal(ls.l.addr, addr);
    server *a = client(addr), *b = client(addr);
    assert_string_equal(ask(a, CREATE("p1")), CREATED("p1"));
    assert_string_equal(ask(b, "{\"count\":true}"), COUNT(1, 1));
    assert_string_equal(ask(b, CREATE("p1")), "{\"ok\":false,\"error\":\"Order.CreatePizza "
                                              "refused: Order 'p1' already exists\"}");
    /* three lines in one write: three answers, in order */
    send_raw(a, "{}\n" CREATE("p2") "\n{\"count\":true}\n");
    assert_string_equal(next_answer(a), EMPTY);
    assert_string_equal(next_answer(a), CREATED("p2"));
    assert_string_equal(next_answer(a), COUNT(2, 2));
    /* a line in two pieces, with the other connection's request between */
    send_raw(b, "{\"cou");
    assert_string_equal(ask(a, "{\"count\":true}"), COUNT(2, 2));
    send_raw(b, "nt\":true}\n");
    assert_string_equal(next_answer(b), COUNT(2, 2));
    assert_string_equal(ask(b, "hello"), "{\"ok\":false,\"error\":\"not a request: a request is a "
                                         "JSON object on one line, not something that is not "
                                         "JSON\"}");
    assert_string_equal(ask(b, "{}"), EMPTY);
    client_close(a);
    assert_string_equal(ask(b, "{\"count\":true}"), COUNT(2, 2));
    assert_int_equal(listen_stop(&ls.l, SIGTERM), 0);
    assert_string_equal(ls.l.log, "");
    assert_true(gone(path));
    client_close(b);
}

/* A client that ends mid-line leaves nothing behind: the piece is not a
 * request. A whole last line without a newline is answered, as at the end
 * of stdin, to a client that still reads. */
static void test_serve_listen_a_client_ending_mid_line_disturbs_no_other(void **state)
{
    char addr[200];
    sock_addr(addr, sizeof addr, "s.sock", NULL, 0);
    assert_true(listen_start(&ls.l, NULL, addr, "specs/pizzas.yaml"));
    server *a = client(addr), *b = client(addr);
    send_raw(a, "{\"verb\":\"Order.CreatePizza\",\"args\":{\"name\":\"p1\"");
    client_close(a);
    assert_string_equal(ask(b, "{\"count\":true}"), COUNT(0, 0));
    assert_string_equal(ask(b, CREATE("p1")), CREATED("p1"));
    server *c = client(addr);
    send_raw(c, CREATE("p2"));
    assert_int_equal(shutdown(c->in, SHUT_WR), 0);
    assert_string_equal(next_answer(c), CREATED("p2"));
    char end;
    assert_int_equal(read(c->in, &end, 1), 0); /* then the server closes it */
    client_close(c);
    assert_string_equal(ask(b, "{\"count\":true}"), COUNT(2, 2));
    client_close(b);
    assert_int_equal(listen_stop(&ls.l, SIGTERM), 0);
    assert_string_equal(ls.l.log, "");
}

/* A socket file nothing listens on (a server that was killed) is replaced;
 * one a server listens on, or a file that is not a socket, is refused. */
static void test_serve_listen_replaces_a_stale_socket_and_refuses_a_live_one(void **state)
{
    char addr[200], path[200], want[600];
    sock_addr(addr, sizeof addr, "s.sock", path, sizeof path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un un = {.sun_family = AF_UNIX};
    assert_true(strlen(path) < sizeof un.sun_path);
    memcpy(un.sun_path, path, strlen(path) + 1);
    assert_int_equal(bind(fd, (struct sockaddr *)&un, sizeof un), 0);
    close(fd);
    assert_false(gone(path));
    assert_true(listen_start(&ls.l, NULL, addr, "specs/pizzas.yaml"));
    server *a = client(addr);
    assert_string_equal(ask(a, CREATE("p1")), CREATED("p1"));

    assert_false(listen_start(&ls.other, NULL, addr, "specs/pizzas.yaml"));
    assert_int_equal(ls.other.status, 1);
    snprintf(want, sizeof want, "bench serve: a server is listening on %s already\n", addr);
    assert_string_equal(ls.other.log, want);
    assert_string_equal(ask(a, "{\"count\":true}"), COUNT(1, 1)); /* the first one goes on */
    client_close(a);
    assert_int_equal(listen_stop(&ls.l, SIGTERM), 0);
    assert_true(gone(path));

    char faddr[200], fpath[200];
    sock_addr(faddr, sizeof faddr, "file", fpath, sizeof fpath);
    FILE *f = fopen(fpath, "w");
    assert_non_null(f);
    fclose(f);
    listen_free(&ls.other);
    assert_false(listen_start(&ls.other, NULL, faddr, "specs/pizzas.yaml"));
    assert_int_equal(ls.other.status, 1);
    snprintf(want, sizeof want,
             "bench serve: %s exists and is not a socket; remove it or choose another path\n",
             fpath);
    assert_string_equal(ls.other.log, want);
    assert_false(gone(fpath));
}

/* tcp:127.0.0.1:0 and tcp:localhost:0 listen on a free loopback port,
 * printed as tcp:127.0.0.1:PORT; SIGINT stops them as SIGTERM does. */
static void test_serve_listen_on_tcp_picks_a_free_port(void **state)
{
    static const char *const asked[] = {"tcp:127.0.0.1:0", "tcp:localhost:0"};
    for (size_t i = 0; i < 2; i++) {
        assert_true(listen_start(&ls.l, NULL, asked[i], "specs/pizzas.yaml"));
        assert_int_equal(strncmp(ls.l.addr, "tcp:127.0.0.1:", 14), 0);
        int port = atoi(ls.l.addr + 14);
        assert_true(port > 0 && port < 65536);
        server *a = client(ls.l.addr), *b = client(ls.l.addr);
        assert_string_equal(ask(a, CREATE("p1")), CREATED("p1"));
        assert_string_equal(ask(b, "{\"count\":true}"), COUNT(1, 1));
        client_close(a);
        client_close(b);
        assert_int_equal(listen_stop(&ls.l, SIGINT), 0);
        assert_string_equal(ls.l.log, "");
        listen_free(&ls.l);
    }
}

/* The scratch directories of the sqlite stores under dir (TMPDIR). */
static int sqlite_dirs(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += !strncmp(e->d_name, "bench-sqlite-", 13);
    closedir(d);
    return n;
}

/* {"reset":true} empties the store, by opening a fresh one (the old one's
 * scratch file removed), unless other connections share it. */
static void serve_listen_resets(const char *store)
{
    char addr[200];
    sock_addr(addr, sizeof addr, "s.sock", NULL, 0);
    setenv("TMPDIR", ls.dir, 1); /* where the sqlite store makes its scratch file */
    bool up = listen_start(&ls.l, store, addr, "specs/pizzas.yaml");
    unsetenv("TMPDIR");
    assert_true(up);
    server *a = client(addr), *b = client(addr), *c = client(addr);
    assert_string_equal(ask(a, CREATE("p1")), CREATED("p1"));
    assert_string_equal(ask(a, "{\"reset\":true}"),
                        "{\"ok\":false,\"error\":\"reset refused: 2 other connections are open, "
                        "and a reset would empty the store under them\"}");
    client_close(c);
    assert_string_equal(ask(a, "{\"reset\":true}"),
                        "{\"ok\":false,\"error\":\"reset refused: another connection is open, and "
                        "a reset would empty the store under it\"}");
    assert_string_equal(ask(b, "{\"count\":true}"), COUNT(1, 1));
    client_close(b);
    assert_string_equal(ask(a, "{\"reset\":false}"),
                        "{\"ok\":false,\"error\":\"not a request: a reset request is "
                        "{\\\"reset\\\":true} and nothing else\"}");
    assert_string_equal(ask(a, "{\"reset\":true}"), "{\"ok\":true}");
    assert_string_equal(ask(a, "{\"count\":true}"), COUNT(0, 0));
    assert_string_equal(ask(a, CREATE("p1")), CREATED("p1"));
    if (store && !strcmp(store, "sqlite"))
        assert_int_equal(sqlite_dirs(ls.dir), 1);
    client_close(a);
    assert_int_equal(listen_stop(&ls.l, SIGTERM), 0);
    assert_string_equal(ls.l.log, "");
    if (store && !strcmp(store, "sqlite"))
        assert_int_equal(sqlite_dirs(ls.dir), 0);
    listen_free(&ls.l);
}

static void test_serve_listen_reset_empties_the_store_unless_shared(void **state)
{
    serve_listen_resets(NULL);
    serve_listen_resets("sqlite");
    if (getenv("BENCH_PG_SCRATCH"))
        serve_listen_resets("postgres");
}

/* On stdin there is no one else: the reset is done. */
static void test_serve_resets_on_stdin_too(void **state)
{
    server *s = serve_start("specs/pizzas.yaml");
    assert_string_equal(ask(s, CREATE("p1")), CREATED("p1"));
    assert_string_equal(ask(s, "{\"reset\":true}"), "{\"ok\":true}");
    assert_string_equal(ask(s, "{\"count\":true}"), COUNT(0, 0));
    assert_int_equal(serve_stop(s), 0);
}

/* A client that sends and never reads is dropped once 1 MiB of its answers
 * waits, and one whose line has no end once it passes 16 MiB; the others
 * are served meanwhile. */
static void test_serve_listen_drops_a_client_that_never_reads(void **state)
{
    char addr[200];
    sock_addr(addr, sizeof addr, "s.sock", NULL, 0);
    assert_true(listen_start(&ls.l, NULL, addr, "specs/pizzas.yaml"));
    server *a = client(addr), *b = client(addr), *c = client(addr);
    static const char req[] = "{\"verb\":\"Order.Purchse\",\"args\":{}}\n"; /* a long refusal */
    static char burst[1000 * (sizeof req - 1)];
    for (size_t i = 0; i < 1000; i++)
        memcpy(burst + i * (sizeof req - 1), req, sizeof req - 1);
    bool dropped = false;
    for (int i = 0; i < 200 && !dropped; i++) /* 7 MiB of answers at most */
        dropped = write(a->in, burst, sizeof burst) < 0;
    assert_true(dropped);
    assert_string_equal(ask(b, "{\"count\":true}"), COUNT(0, 0));
    /* twice the limit: the kernel may queue a megabyte or more of a unix
       socket's data unread (one read of 1 MiB seen), so 17 MiB could be
       taken whole before the server sees the line pass 16 MiB */
    size_t big = (size_t)32 << 20;
    char *line = malloc(big);
    assert_non_null(line);
    memset(line, 'x', big);
    size_t sent = 0;
    while (sent < big) {
        ssize_t w = write(c->in, line + sent, big - sent);
        if (w <= 0)
            break;
        sent += (size_t)w;
    }
    free(line);
    assert_true(sent < big);
    assert_string_equal(ask(b, CREATE("p1")), CREATED("p1"));
    client_close(a);
    client_close(b);
    client_close(c);
    assert_int_equal(listen_stop(&ls.l, SIGTERM), 0);
    assert_string_equal(ls.l.log,
                        "bench serve: connection 1 dropped: it sent a request with more than 1 "
                        "MiB of its answers unread\n"
                        "bench serve: connection 3 dropped: it sent a request line longer than 16 "
                        "MiB\n");
}

/* --listen takes unix:PATH or a loopback TCP address, and nothing else. */
static void test_serve_listen_refuses_other_addresses(void **state)
{
    static const struct {
        const char *addr, *err;
    } cases[] = {
        {"tcp:0.0.0.0:1234", "tcp:0.0.0.0:1234 is not on loopback: bench serves and connects on "
                             "127.0.0.1 only; give tcp:127.0.0.1:PORT"},
        {"tcp:192.168.1.5:80", "tcp:192.168.1.5:80 is not on loopback: bench serves and connects "
                               "on 127.0.0.1 only; give tcp:127.0.0.1:PORT"},
        {"tcp:[::1]:80", "tcp:[::1]:80 is not on loopback: bench serves and connects on 127.0.0.1 "
                         "only; give tcp:127.0.0.1:PORT"},
        {"tcp:127.0.0.1", "tcp:127.0.0.1 has no port; give tcp:127.0.0.1:PORT"},
        {"tcp:127.0.0.1:65536", "'65536' is not a port (0 to 65535)"},
        {"tcp:127.0.0.1:http", "'http' is not a port (0 to 65535)"},
        {"tcp:127.0.0.1:", "'' is not a port (0 to 65535)"},
        {"unix:", "unix: names no socket file; give unix:PATH"},
        {"/tmp/s.sock", "'/tmp/s.sock' is not unix:PATH or tcp:127.0.0.1:PORT"},
        {"unix:/tmp/"
         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
         "aaaaaaaaaaaaaaaaaaaaaaaaa",
         "the socket path /tmp/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa is longer than the 107 bytes a unix socket "
         "address holds"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *argv[] = {(char *)spawn_bench_path(), "serve", "--listen", (char *)cases[i].addr,
                        "specs/pizzas.yaml",        NULL};
        spawn_output o = spawn_run(argv);
        char want[600];
        snprintf(want, sizeof want, "bench serve: --listen: %s\n(see 'bench serve --help')\n",
                 cases[i].err);
        if (o.status != 2 || strcmp(o.err, want) != 0)
            fail_msg("--listen %s: status %d, stderr\n%s\nwant\n%s", cases[i].addr, o.status, o.err,
                     want);
        spawn_output_free(&o);
    }
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serve_answers_a_command_with_its_event),
        cmocka_unit_test(test_serve_refuses_the_empty_request_at_once),
        cmocka_unit_test(test_serve_refusal_carries_the_runtime_message),
        cmocka_unit_test(test_serve_answers_the_record_request),
        cmocka_unit_test(test_serve_count_request_counts_what_was_kept),
        cmocka_unit_test(test_serve_on_the_sqlite_store),
        cmocka_unit_test(test_serve_on_the_postgres_store),
        cmocka_unit_test(test_serve_holds_every_store_to_the_encoding_rule),
        cmocka_unit_test(test_serve_removes_its_scratch_store_on_a_signal),
        cmocka_unit_test(test_serve_answers_policy_events_in_order),
        cmocka_unit_test(test_serve_runs_a_for_each_policy_all_or_nothing),
        cmocka_unit_test(test_serve_answers_a_query_with_its_returns),
        cmocka_unit_test(test_serve_answers_scans_on_every_store),
        cmocka_unit_test(test_serve_answers_queries_on_the_sql_stores),
        cmocka_unit_test(test_serve_answers_every_bad_line_and_goes_on),
        cmocka_unit_test(test_serve_finds_canonical_requests_by_their_head),
        cmocka_unit_test(test_serve_argument_errors_name_the_path),
        cmocka_unit_test(test_serve_strings_round_trip_escapes),
        cmocka_unit_test(test_serve_default_payloads_are_in_the_encoders_form),
        cmocka_unit_test(test_serve_refuses_a_line_longer_than_the_limit),
        cmocka_unit_test(test_serve_answers_a_last_line_without_newline),
        cmocka_unit_test(test_protocol_schema_accepts_the_lines_it_should),
        cmocka_unit_test(test_serve_command_line_errors),
        cmocka_unit_test(test_serve_resets_on_stdin_too),
        cmocka_unit_test_teardown(test_serve_listen_shares_one_store_between_connections,
                                  listen_teardown),
        cmocka_unit_test_teardown(test_serve_listen_a_client_ending_mid_line_disturbs_no_other,
                                  listen_teardown),
        cmocka_unit_test_teardown(test_serve_listen_replaces_a_stale_socket_and_refuses_a_live_one,
                                  listen_teardown),
        cmocka_unit_test_teardown(test_serve_listen_on_tcp_picks_a_free_port, listen_teardown),
        cmocka_unit_test_teardown(test_serve_listen_reset_empties_the_store_unless_shared,
                                  listen_teardown),
        cmocka_unit_test_teardown(test_serve_listen_drops_a_client_that_never_reads,
                                  listen_teardown),
        cmocka_unit_test(test_serve_listen_refuses_other_addresses),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cJSON_Delete(protocol);
    return rc;
}
