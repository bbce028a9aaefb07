/* test_valjson.c: values as the JSON the SQL targets store, and back:
 * canonical writing, escapes, reading in any key order and spacing (as
 * PostgreSQL may hand it back), missing and unknown keys, and malformed
 * text refused. */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include "sql_scenarios.h"
#include "valjson.h"
#include "value.h"

/* The Thing record type of values_spec, and a value of it built from YAML. */
typedef struct thing {
    plan *p;
    const ty *t;
    doc *dc;
} thing;

static thing thing_open(void)
{
    thing th = {.p = fx_compile(values_spec)};
    th.t = th.p->aggs[0].state;
    return th;
}

static void thing_close(thing *th)
{
    doc_free(th->dc);
    plan_free(th->p);
}

static value from_yaml(thing *th, const ty *t, const char *yaml)
{
    diag_list d = {0};
    doc_free(th->dc);
    th->dc = NULL;
    assert_int_equal(load_string("v", yaml, strlen(yaml), &th->dc, &d), LOAD_OK);
    diag_list_free(&d);
    return fx_value(&th->dc->mem, t, th->dc->root);
}

static const ty *field_type(const ty *t, const char *name)
{
    int i = ty_field_index(t, name);
    assert_true(i >= 0);
    return t->fields[i].type;
}

static void test_valjson_writes_canonical_json(void **state)
{
    thing th = thing_open();
    const ty *inner = field_type(th.t, "inner");
    value v = from_yaml(&th, inner,
                        "{label: \"a\\\"b\\\\c\\nd\\x01\", n: -9223372036854775807, "
                        "flag: false, mood: stormy}");
    jbuf b = {0};
    assert_int_equal(valjson_write(&b, inner, &v), 0);
    assert_string_equal(b.data, "{\"label\":\"a\\\"b\\\\c\\nd\\u0001\",\"n\":-9223372036854775807,"
                                "\"flag\":false,\"mood\":\"stormy\",\"note\":null}");
    b.len = 0;
    value list = from_yaml(&th, field_type(th.t, "tags"), "[x, \"\", \"\xe2\x98\x95\"]");
    assert_int_equal(valjson_write(&b, field_type(th.t, "tags"), &list), 0);
    assert_string_equal(b.data, "[\"x\",\"\",\"\xe2\x98\x95\"]");
    jbuf_free(&b);
    thing_close(&th);
}

static void test_valjson_reads_back_what_it_writes(void **state)
{
    thing th = thing_open();
    const ty *items = field_type(th.t, "items");
    value v =
        from_yaml(&th, items,
                  "[{label: \"q'uote\\\"s\\t\", n: 9223372036854775807, flag: true, mood: calm,"
                  " note: \"\xf0\x9d\x84\x9e\"}, {label: \"\", n: 0, flag: false, mood: stormy}]");
    jbuf b = {0};
    assert_int_equal(valjson_write(&b, items, &v), 0);
    arena a = {0};
    value back;
    assert_int_equal(valjson_read(&a, items, b.data, b.len, &back), 0);
    assert_true(value_equal(&v, &back));
    assert_int_equal(back.u.items[1].u.items[4].kind, VAL_NONE);
    arena_free(&a);
    jbuf_free(&b);
    thing_close(&th);
}

static void test_valjson_reads_any_key_order_spacing_and_escapes(void **state)
{
    thing th = thing_open();
    const ty *inner = field_type(th.t, "inner");
    /* as jsonb prints it: keys by length, spaces after : and , */
    static const char text[] = " {\"n\": 5, \"flag\": true, \"mood\": \"calm\", \"extra\": [1, "
                               "{\"x\": null}, \"s\"], \"label\": \"\\u00e9\\ud834\\udd1e\\/\"}\n";
    arena a = {0};
    value v;
    assert_int_equal(valjson_read(&a, inner, text, strlen(text), &v), 0);
    fx_assert_str(&v.u.items[0], "\xc3\xa9\xf0\x9d\x84\x9e/", 7);
    assert_int_equal(v.u.items[1].u.i, 5);
    assert_true(v.u.items[2].u.b);
    assert_int_equal(v.u.items[3].u.e, 0);
    assert_int_equal(v.u.items[4].kind, VAL_NONE); /* missing: unset */
    arena_free(&a);
    thing_close(&th);
}

static void test_valjson_refuses_malformed_text(void **state)
{
    thing th = thing_open();
    const ty *inner = field_type(th.t, "inner");
    static const char *const bad[] = {
        "",
        "{",
        "{\"n\": 1,}",
        "{\"n\": 1} x",
        "{\"n\": 1.5}",
        "{\"n\": 9223372036854775808}",
        "{\"mood\": \"sunny\"}",
        "{\"label\": \"open}",
        "{\"label\": \"\\q\"}",
        "{\"flag\": yes}",
        "[1]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        arena a = {0};
        value v;
        if (valjson_read(&a, inner, bad[i], strlen(bad[i]), &v) != -1)
            fail_msg("accepted: %s", bad[i]);
        arena_free(&a);
    }
    thing_close(&th);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valjson_writes_canonical_json),
        cmocka_unit_test(test_valjson_reads_back_what_it_writes),
        cmocka_unit_test(test_valjson_reads_any_key_order_spacing_and_escapes),
        cmocka_unit_test(test_valjson_refuses_malformed_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
