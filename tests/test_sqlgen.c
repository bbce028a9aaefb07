/* test_sqlgen.c: the SQL the sqlite and postgres targets generate from a
 * domain: the exact statements for pizzas (which the perf peers issue too;
 * the DELETE of a deletes command too),
 * the join that fetches a record keyed by another's column, names made
 * unique ignoring case and kept within 63 bytes, and names that
 * are not identifiers refused before they reach SQL text. */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include "perf/pizzas_sql.h"
#include "sql_scenarios.h"
#include "sqlgen.h"

static plan *pizzas(void)
{
    spec sp;
    diag_list d = {0};
    assert_int_equal(spec_open("specs/pizzas.yaml", &d, &sp), SPEC_OK);
    diag_list_free(&d);
    return sp.p;
}

static sql_schema *generate(const plan *p, sql_dialect dialect, const char *schema)
{
    sql_schema *s;
    char err[256];
    if (sqlgen_schema(p, dialect, schema, &s, err, sizeof err) != 0)
        fail_msg("%s", err);
    return s;
}

/* The peer in tests/perf/sqlite_peer.c issues these very statements. */
static void test_sqlgen_sqlite_statements_for_pizzas(void **state)
{
    plan *p = pizzas();
    sql_schema *s = generate(p, SQL_SQLITE, NULL);
    assert_int_equal(s->ntables, 1);
    const sql_table *t = &s->tables[0];
    assert_string_equal(t->create, PIZZAS_SQLITE_CREATE_ORDER);
    assert_string_equal(t->select, PIZZAS_SQLITE_SELECT_ORDER);
    assert_string_equal(t->insert, PIZZAS_SQLITE_INSERT_ORDER);
    assert_string_equal(t->update, PIZZAS_SQLITE_UPDATE_ORDER);
    assert_string_equal(t->remove, "DELETE FROM \"Order\" WHERE \"name\" = ?1");
    assert_string_equal(t->count, "SELECT count(*) FROM \"Order\"");
    assert_string_equal(s->create_events, PIZZAS_SQLITE_CREATE_EVENTS);
    assert_string_equal(s->insert_event, PIZZAS_SQLITE_INSERT_EVENT);
    assert_string_equal(s->count_events,
                        "SELECT \"event\", count(*) FROM \"events\" GROUP BY \"event\"");
    sqlgen_free(s);
    plan_free(p);
}

/* Replaces every occurrence of from in s (in place; to is no longer). */
static void replace_all(char *s, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to);
    for (char *at = strstr(s, from); at; at = strstr(at + tl, from)) {
        memmove(at + tl, at + fl, strlen(at + fl) + 1);
        memcpy(at, to, tl);
    }
}

/* pgbench's set-up script creates the tables the postgres target does. */
static void test_sqlgen_postgres_tables_for_pizzas_match_the_pgbench_setup(void **state)
{
    plan *p = pizzas();
    sql_schema *s = generate(p, SQL_POSTGRES, "S");
    FILE *f = fopen("tests/perf/pgbench_pizzas_setup.sql", "r");
    assert_non_null(f);
    char script[8192];
    size_t n = fread(script, 1, sizeof script - 1, f);
    fclose(f);
    script[n] = '\0';
    replace_all(script, ":\"schema\"", "\"S\"");
    char want[1024];
    snprintf(want, sizeof want, "\n%s;\n", s->tables[0].create);
    if (!strstr(script, want))
        fail_msg("the setup script lacks: %s", want);
    snprintf(want, sizeof want, "\n%s;\n", s->create_events);
    if (!strstr(script, want))
        fail_msg("the setup script lacks: %s", want);
    assert_string_equal(s->tables[0].select, "SELECT \"pizza\", \"toppings\", \"customer_name\", "
                                             "\"status\" FROM \"S\".\"Order\" WHERE \"name\" = $1");
    assert_string_equal(s->tables[0].remove, "DELETE FROM \"S\".\"Order\" WHERE \"name\" = $1");
    assert_string_equal(
        s->tables[0].scan,
        "SELECT \"name\", \"pizza\", \"toppings\", \"customer_name\", \"status\" FROM "
        "\"S\".\"Order\" WHERE \"name\" >= $1 ORDER BY \"name\" LIMIT $2");
    assert_string_equal(s->insert_event, "INSERT INTO \"S\".\"events\" (\"aggregate\", "
                                         "\"identity\", \"event\", \"payload\") VALUES ($1, $2, "
                                         "$3, $4)");
    sqlgen_free(s);
    plan_free(p);
}

static void test_sqlgen_select_via_joins_the_key_column_to_the_record(void **state)
{
    plan *p = fx_compile(lending_spec);
    sql_schema *s = generate(p, SQL_POSTGRES, "S");
    assert_string_equal(sqlgen_select_via(s, &p->aggs[0], &p->aggs[1], 2),
                        "SELECT f.\"card\", a.\"card\", a.\"loans\", a.\"max_loans\" FROM "
                        "\"S\".\"Copy\" AS f LEFT JOIN \"S\".\"Member\" AS a ON a.\"card\" = "
                        "f.\"card\" COLLATE \"C\" WHERE f.\"barcode\" = $1");
    sqlgen_free(s);
    plan_free(p);
}

static void test_sqlgen_column_types_per_dialect(void **state)
{
    static const struct {
        const ty *t;
        const char *sqlite, *postgres;
    } cases[] = {
        {&ty_int, "INTEGER", "bigint"},
        {&ty_string, "TEXT", "text"},
        {&ty_bool, "INTEGER", "boolean"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        assert_string_equal(sqlgen_column_type(SQL_SQLITE, cases[i].t), cases[i].sqlite);
        assert_string_equal(sqlgen_column_type(SQL_POSTGRES, cases[i].t), cases[i].postgres);
    }
    ty list = {.kind = TY_LIST, .elem = &ty_int}, en = {.kind = TY_ENUM};
    assert_string_equal(sqlgen_column_type(SQL_POSTGRES, &list), "json");
    assert_string_equal(sqlgen_column_type(SQL_SQLITE, &list), "TEXT");
    assert_string_equal(sqlgen_column_type(SQL_POSTGRES, &en), "text");
}

static void test_sqlgen_names_are_unique_ignoring_case_and_short(void **state)
{
    plan *p = fx_compile(names_spec);
    sql_schema *s = generate(p, SQL_POSTGRES, "S");
    assert_string_equal(s->tables[0].name, "events");
    assert_string_equal(s->tables[1].name, "Events_2");
    assert_string_equal(s->events, "events_3");
    const sql_table *t = &s->tables[0];
    assert_string_equal(t->columns[0], "select");
    assert_string_equal(t->columns[2], "Where");
    assert_string_equal(t->columns[3], "where_2");
    for (size_t i = 0; i < t->agg->state->nfields; i++)
        assert_true(strlen(t->columns[i]) <= SQL_NAME_MAX);
    assert_int_equal(strlen(t->columns[4]), SQL_NAME_MAX);
    assert_int_equal(strlen(t->columns[5]), SQL_NAME_MAX);
    assert_true(strcmp(t->columns[4], t->columns[5]) != 0);
    assert_non_null(strstr(t->create, "\"select\" text COLLATE \"C\" PRIMARY KEY"));
    sqlgen_free(s);
    plan_free(p);
}

static void test_sqlgen_refuses_a_name_that_is_not_an_identifier(void **state)
{
    static const char *const bad[] = {"Order\"; DROP TABLE events; --", "a b", "1st", "", "é"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        field fields[1] = {{.name = "id", .type = &ty_string}};
        ty st = {.kind = TY_STRUCT, .fields = fields, .nfields = 1};
        aggregate agg = {.name = bad[i], .state = &st};
        plan p = {.aggs = &agg, .naggs = 1, .domain = "x"};
        sql_schema *s = (sql_schema *)1;
        char err[256] = "";
        assert_int_equal(sqlgen_schema(&p, SQL_SQLITE, NULL, &s, err, sizeof err), -1);
        assert_null(s);
        assert_non_null(strstr(err, "is not an identifier"));
        /* and as a field */
        agg.name = "Order";
        fields[0].name = bad[i];
        assert_int_equal(sqlgen_schema(&p, SQL_POSTGRES, "S", &s, err, sizeof err), -1);
    }
    assert_true(sqlgen_identifier_ok("_a1"));
    assert_false(sqlgen_identifier_ok("bench_1; DROP"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sqlgen_sqlite_statements_for_pizzas),
        cmocka_unit_test(test_sqlgen_postgres_tables_for_pizzas_match_the_pgbench_setup),
        cmocka_unit_test(test_sqlgen_select_via_joins_the_key_column_to_the_record),
        cmocka_unit_test(test_sqlgen_column_types_per_dialect),
        cmocka_unit_test(test_sqlgen_names_are_unique_ignoring_case_and_short),
        cmocka_unit_test(test_sqlgen_refuses_a_name_that_is_not_an_identifier),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
