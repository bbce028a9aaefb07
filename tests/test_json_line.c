/* test_json_line.c: the protocol's JSON on its own: values encoded by type
 * (enums by name, unset optionals left out, escapes), decoded back with the
 * compiler's rules (defaults, absent lists, optional nulls), requests told
 * apart, and answers read: the fast path for success, a full parse for
 * everything else, and lines that are not protocol answers. */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdio.h>
#include <string.h>

#include "json_line.h"

static const char *sizes[] = {"small", "large"};
static const ty size_ty = {.kind = TY_ENUM, .values = sizes, .nvalues = 2};
static const ty list_ty = {.kind = TY_LIST, .elem = &ty_int};
static field fields[] = {
    {.name = "name", .type = &ty_string},
    {.name = "size", .type = &size_ty},
    {.name = "count", .type = &ty_int, .has_default = true, .def = {.kind = VAL_INT, .u.i = 7}},
    {.name = "note", .type = &ty_string, .optional = true},
    {.name = "ok", .type = &ty_bool, .optional = true},
    {.name = "list", .type = &list_ty},
};
static const ty rec_ty = {.kind = TY_STRUCT, .fields = fields, .nfields = 6};

static value str(const char *s)
{
    return (value){.kind = VAL_STRING, .len = (uint32_t)strlen(s), .u.s = s};
}

static void test_encode_by_type(void **state)
{
    value nums[3] = {{.kind = VAL_INT, .u.i = -9223372036854775807 - 1},
                     {.kind = VAL_INT, .u.i = 0},
                     {.kind = VAL_INT, .u.i = 42}};
    value items[6] = {str("a\"b\\c\n\x01é"),
                      {.kind = VAL_ENUM, .u.e = 1},
                      {.kind = VAL_INT, .u.i = 3},
                      {.kind = VAL_NONE},
                      {.kind = VAL_BOOL, .u.b = false},
                      {.kind = VAL_LIST, .len = 3, .u.items = nums}};
    value v = {.kind = VAL_STRUCT, .len = 6, .u.items = items};
    jline b = {0};
    json_put_value(&b, &rec_ty, &v);
    jline_putc(&b, '\0');
    assert_string_equal(b.data,
                        "{\"name\":\"a\\\"b\\\\c\\n\\u0001é\",\"size\":\"large\",\"count\":3,"
                        "\"ok\":false,\"list\":[-9223372036854775808,0,42]}");
    jline_free(&b);
}

static void test_decode_fills_defaults_lists_and_optionals(void **state)
{
    arena a = {0};
    value v;
    char why[256];
    const char *text = "{\"size\":\"small\",\"name\":\"n\",\"note\":null}";
    assert_int_equal(json_decode(text, strlen(text), &rec_ty, "", &a, &v, why, sizeof why), 0);
    assert_int_equal(v.kind, VAL_STRUCT);
    assert_int_equal(v.u.items[1].u.e, 0);
    assert_int_equal(v.u.items[2].u.i, 7);         /* the default */
    assert_int_equal(v.u.items[3].kind, VAL_NONE); /* null for an optional */
    assert_int_equal(v.u.items[4].kind, VAL_NONE); /* absent optional */
    assert_int_equal(v.u.items[5].kind, VAL_LIST); /* an absent list is [] */
    assert_int_equal(v.u.items[5].len, 0);
    /* strings without escapes point into the text */
    assert_ptr_equal(v.u.items[0].u.s, strstr(text, "n\""));
    arena_free(&a);
}

static void test_decode_lists_of_any_length(void **state)
{
    arena a = {0};
    value v;
    char why[256], text[2048] = "[";
    for (int i = 0; i < 100; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%d", i ? "," : "", i * 3);
    strcat(text, "]");
    assert_int_equal(json_decode(text, strlen(text), &list_ty, "xs", &a, &v, why, sizeof why), 0);
    assert_int_equal(v.len, 100);
    for (int i = 0; i < 100; i++)
        assert_int_equal(v.u.items[i].u.i, i * 3);
    assert_int_equal(json_decode("[1,\"2\"]", 7, &list_ty, "xs", &a, &v, why, sizeof why), -1);
    assert_string_equal(why, "xs[1]: expected an integer, got a string");
    assert_int_equal(json_decode("[1,]", 4, &list_ty, "xs", &a, &v, why, sizeof why), -1);
    assert_int_equal(json_decode("[1] x", 5, &list_ty, "xs", &a, &v, why, sizeof why), -1);
    assert_string_equal(why, "xs: unexpected text after the value");
    arena_free(&a);
}

static void test_requests_are_told_apart(void **state)
{
    arena a = {0};
    json_request r;
    char why[256];
    assert_int_equal(json_request_parse("{}", 2, &a, &r, why, sizeof why), 0);
    assert_int_equal(r.kind, JSON_REQUEST_EMPTY);
    assert_int_equal(json_request_parse("{\"count\":true}", 14, &a, &r, why, sizeof why), 0);
    assert_int_equal(r.kind, JSON_REQUEST_COUNT);
    const char *cmd = "{\"verb\":\"A.B\",\"args\":{\"x\":[1,{}]}}";
    assert_int_equal(json_request_parse(cmd, strlen(cmd), &a, &r, why, sizeof why), 0);
    assert_int_equal(r.kind, JSON_REQUEST_COMMAND);
    assert_string_equal(r.verb, "A.B");
    assert_int_equal(r.args_len, strlen("{\"x\":[1,{}]}"));
    assert_memory_equal(r.args, "{\"x\":[1,{}]}", r.args_len);
    assert_int_equal(json_request_parse("{\"verb\":\"A.B\"}", 14, &a, &r, why, sizeof why), 0);
    assert_null(r.args);
    assert_int_equal(json_request_parse("{\"count\":false}", 15, &a, &r, why, sizeof why), -1);
    assert_string_equal(why, "count: expected true, got a boolean");
    arena_free(&a);
}

static void test_answers_are_read(void **state)
{
    static const struct {
        const char *line;
        int ok;
        const char *msg;
    } cases[] = {
        {"{\"ok\":true}", 1, ""},
        {"{\"ok\":true,\"events\":[]}", 1, ""},
        {"{\"ok\":true,\"events\":[]}\r", 1, ""},
        {"{ \"events\": [], \"ok\": true }", 1, ""},
        {"{\"ok\":false,\"error\":\"no \\\"way\\\"\"}", 0, "no \"way\""},
        {"{\"error\":\"first\",\"ok\":false}", 0, "first"},
        {"{\"ok\":false}", 0, "refused without saying why"},
        {"{\"ok\":\"yes\"}", -1, NULL},
        {"{\"events\":[]}", -1, NULL},
        {"hello there", -1, NULL},
        {"", -1, NULL},
        {"[true]", -1, NULL},
        {"{\"ok\":true", -1, NULL},
        {"{\"ok\":false,\"error\":\"x\"} trailing", -1, NULL},
        {"{\"ok\":truex}", -1, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char msg[128] = "";
        int ok = json_answer_read(cases[i].line, strlen(cases[i].line), msg, sizeof msg);
        if (ok != cases[i].ok)
            fail_msg("%s: %d, want %d", cases[i].line, ok, cases[i].ok);
        if (ok == 0)
            assert_string_equal(msg, cases[i].msg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encode_by_type),
        cmocka_unit_test(test_decode_fills_defaults_lists_and_optionals),
        cmocka_unit_test(test_decode_lists_of_any_length),
        cmocka_unit_test(test_requests_are_told_apart),
        cmocka_unit_test(test_answers_are_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
