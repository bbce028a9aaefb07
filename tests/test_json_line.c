/* test_json_line.c: values as JSON on their own: encoded by type (enums by
 * name, unset optionals left out, escapes), decoded back with the compiler's
 * rules (defaults, absent lists, optional nulls), in any key order and
 * spacing, malformed text refused with its path; the stored form the SQL
 * targets keep, which reads back exactly; requests told apart, and answers
 * read: the fast path for success, a full parse for everything else, and
 * lines that are not protocol answers; the event names of bench serve's
 * success answers read without a DOM, the same as cJSON reads them. */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_line.h"
#include "utf8.h"
#include "value.h"

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

/* A record as the SQL targets store one: unset optionals that read back
 * as something else when left out (a default, []). */
static const ty tags_ty = {.kind = TY_LIST, .elem = &ty_string};
static field kept_fields[] = {
    {.name = "label", .type = &ty_string},
    {.name = "n", .type = &ty_int},
    {.name = "size", .type = &size_ty},
    {.name = "flag", .type = &ty_bool},
    {.name = "note", .type = &ty_string, .optional = true},
    {.name = "level",
     .type = &ty_int,
     .optional = true,
     .has_default = true,
     .def = {.kind = VAL_INT, .u.i = 3}},
    {.name = "tags", .type = &tags_ty, .optional = true},
};
static const ty kept_ty = {.kind = TY_STRUCT, .fields = kept_fields, .nfields = 7};
static const ty kepts_ty = {.kind = TY_LIST, .elem = &kept_ty};

static value str(const char *s)
{
    return (value){.kind = VAL_STRING, .len = (uint32_t)strlen(s), .u.s = s};
}

static const char *text_of(jline *b)
{
    jline_putc(b, '\0');
    b->len--;
    return b->data;
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

/* A struct with some fields kept: the same text as json_put_value, call
 * after call, while the other fields change; an unset field, kept or not,
 * gives no member and no comma; other kept fields fill the memo again. */
static void test_kept_fields_encode_as_the_whole_struct(void **state)
{
    value nums[1] = {{.kind = VAL_INT, .u.i = 5}};
    value items[6] = {str("first"),
                      {.kind = VAL_ENUM, .u.e = 0},
                      {.kind = VAL_INT, .u.i = 1},
                      {.kind = VAL_NONE},
                      {.kind = VAL_BOOL, .u.b = true},
                      {.kind = VAL_LIST, .len = 1, .u.items = nums}};
    value v = {.kind = VAL_STRUCT, .len = 6, .u.items = items};
    static const uint64_t masks[] = {0, 0x3e, 0x1e, 0x01, 0x3f, 0x08};
    for (size_t m = 0; m < sizeof masks / sizeof *masks; m++) {
        json_kept k = {0};
        items[0] = str("first"); /* a kept field's bytes stay as they were */
        char name[3][16];
        for (int round = 0; round < 3; round++) {
            /* what the mask does not keep changes each round: name, count, note */
            snprintf(name[round], sizeof name[round], "n-%d", round);
            if (!(masks[m] & 1))
                items[0] = str(name[round]);
            if (!(masks[m] & 4))
                items[2] = (value){.kind = VAL_INT, .u.i = round * 1000};
            if (!(masks[m] & 8))
                items[3] = round == 1 ? str("noted") : (value){.kind = VAL_NONE};
            jline want = {0}, got = {0};
            json_put_value(&want, &rec_ty, &v);
            json_put_struct_kept(&got, &rec_ty, &v, masks[m], &k);
            assert_string_equal(text_of(&got), text_of(&want));
            jline_free(&want);
            jline_free(&got);
        }
        json_kept_free(&k);
    }
    /* a memo made for one mask and used with another is made again */
    json_kept k = {0};
    items[0] = str("kept");
    jline a = {0}, b = {0};
    json_put_struct_kept(&a, &rec_ty, &v, 0x01, &k);
    items[0] = str("changed");
    json_put_struct_kept(&b, &rec_ty, &v, 0x02, &k);
    assert_non_null(strstr(text_of(&b), "\"name\":\"changed\""));
    jline_free(&a);
    jline_free(&b);
    json_kept_free(&k);
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

static void test_decode_reads_any_key_order_spacing_and_escapes(void **state)
{
    /* as a database may print it: spaces after : and , keys in any order */
    static const char text[] = " {\"n\": 5, \"flag\": true, \"size\": \"large\",\n"
                               "  \"label\": \"\\u00e9\\ud834\\udd1e\\/\\b\\f\"}\n";
    arena a = {0};
    value v;
    char why[256];
    assert_int_equal(json_decode(text, strlen(text), &kept_ty, "", &a, &v, why, sizeof why), 0);
    assert_int_equal(v.u.items[0].len, 9);
    assert_memory_equal(v.u.items[0].u.s, "\xc3\xa9\xf0\x9d\x84\x9e/\b\f", 9);
    assert_int_equal(v.u.items[1].u.i, 5);
    assert_int_equal(v.u.items[2].u.e, 1);
    assert_true(v.u.items[3].u.b);
    assert_int_equal(v.u.items[4].kind, VAL_NONE); /* absent optional */
    assert_int_equal(v.u.items[5].u.i, 3);         /* absent with a default */
    assert_int_equal(v.u.items[6].kind, VAL_LIST); /* absent list */
    /* compact, in declaration order, as the process target writes it, reads the
     * same as with a name escaped or a space before its ':' */
    static const char *const compact[] = {
        "{\"label\":\"x\",\"n\":5,\"size\":\"large\",\"flag\":true,\"level\":4}",
        "{\"lab\\u0065l\":\"x\",\"n\" :5,\"size\":\"large\",\"flag\":true,\"level\":4}",
        "{\"level\":4,\"flag\":true,\"size\":\"large\",\"n\":5,\"label\":\"x\"}",
    };
    for (size_t i = 0; i < sizeof compact / sizeof *compact; i++) {
        arena_reset(&a);
        assert_int_equal(
            json_decode(compact[i], strlen(compact[i]), &kept_ty, "", &a, &v, why, sizeof why), 0);
        assert_int_equal(v.u.items[0].len, 1);
        assert_memory_equal(v.u.items[0].u.s, "x", 1);
        assert_int_equal(v.u.items[1].u.i, 5);
        assert_int_equal(v.u.items[2].u.e, 1);
        assert_true(v.u.items[3].u.b);
        assert_int_equal(v.u.items[4].kind, VAL_NONE);
        assert_int_equal(v.u.items[5].u.i, 4);
    }
    arena_free(&a);
}

/* A struct of more fields than the decoder tracks on the stack. */
static void test_decode_reads_a_struct_of_many_fields(void **state)
{
    (void)state;
    enum { N = 70 };
    static char names[N][8];
    static field many[N];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "f%d", i);
        many[i] = (field){.name = names[i], .type = &ty_int, .optional = true};
    }
    const ty many_ty = {.kind = TY_STRUCT, .fields = many, .nfields = N};
    arena a = {0};
    value v;
    char why[256] = "";
    static const char ok[] = "{\"f0\":1,\"f69\":2,\"f68\":3}";
    assert_int_equal(json_decode(ok, strlen(ok), &many_ty, "", &a, &v, why, sizeof why), 0);
    assert_int_equal(v.len, N);
    assert_int_equal(v.u.items[0].u.i, 1);
    assert_int_equal(v.u.items[69].u.i, 2);
    assert_int_equal(v.u.items[68].u.i, 3);
    assert_int_equal(v.u.items[1].kind, VAL_NONE);
    static const char twice[] = "{\"f69\":1,\"f0\":2,\"f69\":3}";
    assert_int_equal(json_decode(twice, strlen(twice), &many_ty, "", &a, &v, why, sizeof why), -1);
    assert_string_equal(why, "'f69' appears twice");
    arena_free(&a);
}

static void test_decode_refuses_malformed_text_with_its_path(void **state)
{
    static const struct {
        const char *text, *why;
    } cases[] = {
        {"", "inner: expected a value, got the end of the line"},
        {"{", "inner: expected a member name, got the end of the line"},
        {"{\"n\": 1,}", "inner: expected a member name, got something that is not JSON"},
        {"[1]", "inner: expected an object, got an array"},
        {"{\"n\": 1.5}", "inner.n: expected an integer, got a number with a fraction or exponent"},
        {"{\"n\": 9223372036854775808}",
         "inner.n: 9223372036854775808 is out of the range of a 64-bit integer"},
        {"{\"n\": 01}", "inner.n: an integer with a leading zero"},
        {"{\"n\": null}", "inner.n: expected an integer, got null"},
        {"{\"size\": \"medium\"}", "inner.size: 'medium' is not one of small, large"},
        {"{\"label\": \"open}", "inner.label: a string that does not end"},
        {"{\"label\": \"\\q\"}", "inner.label: an invalid escape in a string"},
        {"{\"label\": \"\\udd1e\"}", "inner.label: a lone surrogate \\u escape in a string"},
        {"{\"label\": \"a\nb\"}", "inner.label: a control character inside a string"},
        /* the encoding rule: valid UTF-8 (raw or escaped) without NUL */
        {"{\"label\": \"\\u0000\"}", "inner.label: " UTF8_RULE},
        {"{\"label\": \"a\\n\\u0000\"}", "inner.label: " UTF8_RULE},
        {"{\"label\": \"\xff\"}", "inner.label: " UTF8_RULE},
        {"{\"label\": \"\\n\xc3\"}", "inner.label: " UTF8_RULE},          /* cut short */
        {"{\"label\": \"\xc0\xaf\"}", "inner.label: " UTF8_RULE},         /* overlong '/' */
        {"{\"label\": \"\xed\xa0\x80\"}", "inner.label: " UTF8_RULE},     /* a surrogate */
        {"{\"label\": \"\xf4\x90\x80\x80\"}", "inner.label: " UTF8_RULE}, /* past U+10FFFF */
        {"{\"tags\": [\"ok\", \"\x80\"]}", "inner.tags[1]: " UTF8_RULE},
        {"{\"flag\": yes}", "inner.flag: expected true or false, got something that is not JSON"},
        {"{\"tags\": [\"a\", 1]}", "inner.tags[1]: expected a string, got a number"},
        {"{\"extra\": 1}", "inner: 'extra' is not a field of this object"},
        {"{\"n\": 1, \"n\": 2}", "inner: 'n' appears twice"},
        {"{\"n\": 1, \"flag\": true, \"size\": \"small\"}", "inner: missing 'label'"},
        {"{\"label\": \"\", \"n\": 1, \"flag\": true, \"size\": \"small\"} x",
         "inner: unexpected text after the value"},
        /* compact, as the process target writes: names in order are taken without a scan */
        {"{\"label\":\"x\",\"n\":1,\"n\":2}", "inner: 'n' appears twice"},
        {"{\"label\":\"x\",\"label\":\"y\"}", "inner: 'label' appears twice"},
        {"{\"label\":\"x\",\"nn\":1}", "inner: 'nn' is not a field of this object"},
        {"{\"label\":\"x\",\"\":1}", "inner: '' is not a field of this object"},
        {"{\"label\"}", "inner: expected ':' after a member name"},
        {"{\"label\":", "inner.label: expected a value, got the end of the line"},
        {"{\"label", "inner: a string that does not end"},
        {"{\"label\":\"x\",\"n\":1,\"size\":\"small\",\"flag\":true,\"extra\":1}",
         "inner: 'extra' is not a field of this object"},
        {"{\"label\":\"x\",\"n\":1,\"size\":\"small\",\"flag\":true,}",
         "inner: expected a member name, got something that is not JSON"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        arena a = {0};
        value v;
        char why[256] = "";
        const char *text = cases[i].text;
        if (json_decode_stored(text, strlen(text), &kept_ty, "inner", &a, &v, why, sizeof why) !=
            -1)
            fail_msg("accepted: %s", text);
        if (strcmp(why, cases[i].why) != 0)
            fail_msg("%s: '%s', want '%s'", text, why, cases[i].why);
        arena_free(&a);
    }
}

static void test_stored_form_writes_unset_fields_as_null(void **state)
{
    value items[7] = {str("a\"b\\c\nd\x01\b"),
                      {.kind = VAL_INT, .u.i = -9223372036854775807},
                      {.kind = VAL_ENUM, .u.e = 0},
                      {.kind = VAL_BOOL, .u.b = false}};
    value v = {.kind = VAL_STRUCT, .len = 7, .u.items = items};
    jline b = {0};
    json_put_stored(&b, &kept_ty, &v);
    assert_string_equal(text_of(&b), "{\"label\":\"a\\\"b\\\\c\\nd\\u0001\\u0008\","
                                     "\"n\":-9223372036854775807,\"size\":\"small\","
                                     "\"flag\":false,\"note\":null,\"level\":null,\"tags\":null}");
    b.len = 0;
    value tags[3] = {str("x"), str(""), str("\xe2\x98\x95")};
    value list = {.kind = VAL_LIST, .len = 3, .u.items = tags};
    json_put_stored(&b, &tags_ty, &list);
    assert_string_equal(text_of(&b), "[\"x\",\"\",\"\xe2\x98\x95\"]");
    jline_free(&b);
}

static void test_stored_form_reads_back_exactly(void **state)
{
    value tags[2] = {str("q'uote\"s\t"), str("")};
    value first[7] = {str("\xf0\x9d\x84\x9e"),
                      {.kind = VAL_INT, .u.i = 9223372036854775807},
                      {.kind = VAL_ENUM, .u.e = 1},
                      {.kind = VAL_BOOL, .u.b = true},
                      str("note"),
                      {.kind = VAL_INT, .u.i = -1},
                      {.kind = VAL_LIST, .len = 2, .u.items = tags}};
    value second[7] = {str(""), {.kind = VAL_INT}, {.kind = VAL_ENUM}, {.kind = VAL_BOOL}};
    value recs[2] = {{.kind = VAL_STRUCT, .len = 7, .u.items = first},
                     {.kind = VAL_STRUCT, .len = 7, .u.items = second}};
    value v = {.kind = VAL_LIST, .len = 2, .u.items = recs};
    jline b = {0};
    json_put_stored(&b, &kepts_ty, &v);
    /* decoded from a copy that is gone afterwards, as a database row is */
    char *text = malloc(b.len);
    memcpy(text, b.data, b.len);
    arena a = {0};
    value back;
    char why[256];
    assert_int_equal(
        json_decode_stored(text, b.len, &kepts_ty, "items", &a, &back, why, sizeof why), 0);
    memset(text, 'x', b.len);
    free(text);
    assert_true(value_equal(&v, &back));
    assert_int_equal(back.u.items[1].u.items[5].kind, VAL_NONE); /* not its default */
    assert_int_equal(back.u.items[1].u.items[6].kind, VAL_NONE); /* not [] */
    /* the protocol's form leaves them out, so they would come back set */
    b.len = 0;
    json_put_value(&b, &kepts_ty, &v);
    assert_int_equal(json_decode(b.data, b.len, &kepts_ty, "items", &a, &back, why, sizeof why), 0);
    assert_int_equal(back.u.items[1].u.items[5].u.i, 3);
    assert_int_equal(back.u.items[1].u.items[6].kind, VAL_LIST);
    arena_free(&a);
    jline_free(&b);
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

/* The shape the process target writes is found without a parse; every
 * other line is left to json_request_parse. */
static void test_canonical_requests_are_found_fast(void **state)
{
    static const struct {
        const char *line, *verb; /* verb NULL: not canonical */
    } cases[] = {
        {"{\"verb\":\"A.B\",\"args\":{\"x\":1}}", "A.B"},
        {"{\"verb\":\"A.B\",\"args\":{}}", "A.B"},
        {"{\"verb\": \"A.B\",\"args\":{}}", NULL},       /* a space */
        {"{\"args\":{},\"verb\":\"A.B\"}", NULL},        /* another order */
        {"{\"verb\":\"A\\u002eB\",\"args\":{}}", NULL},  /* an escape in the verb */
        {"{\"verb\":\"A.\xc3\xa9\",\"args\":{}}", NULL}, /* past ASCII */
        {"{\"verb\":\"\",\"args\":{}}", NULL},           /* no verb */
        {"{\"verb\":\"A.B\"}", NULL},                    /* no args */
        {"{\"verb\":\"A.B\",\"args\":[]}", NULL},        /* args not an object */
        {"{\"query\":\"A.B\",\"args\":{}}", NULL},
        {"{\"verb\":\"A.B", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *line = cases[i].line, *verb = NULL, *args = NULL;
        size_t len = 0;
        bool got = json_request_canonical(line, strlen(line), &verb, &len, &args);
        if (got != (cases[i].verb != NULL))
            fail_msg("%s: canonical %d", line, got);
        if (!got)
            continue;
        assert_int_equal(len, strlen(cases[i].verb));
        assert_memory_equal(verb, cases[i].verb, len);
        assert_int_equal(*args, '{');
    }
    /* the args decoded where they are, and what follows them */
    static const char line[] = "{\"n\":5,\"flag\":false,\"size\":\"small\",\"label\":\"x\"}}  ";
    arena a = {0};
    value v;
    const char *rest;
    char why[256];
    assert_int_equal(
        json_decode_head(line, strlen(line), &kept_ty, "", &a, &v, &rest, NULL, why, sizeof why),
        0);
    assert_string_equal(rest, "}  ");
    assert_int_equal(v.u.items[1].u.i, 5);
    assert_int_equal(
        json_decode_head("{\"n\":\"5\"}", 9, &kept_ty, "", &a, &v, &rest, NULL, why, sizeof why),
        -1);
    assert_string_equal(why, "n: expected an integer, got a string");
    arena_free(&a);
}

/* json_decode_head says when the text is exactly what json_put_value
 * writes of what it read (bench serve then echoes the text as a default
 * payload), and reads the same value either way. */
static void test_decode_head_says_when_the_text_is_exact(void **state)
{
    static const struct {
        const char *text;
        bool exact;
    } cases[] = {
        {"{\"name\":\"a\",\"size\":\"large\",\"count\":3,\"list\":[1,2]}", true},
        {"{\"name\":\"a\",\"size\":\"small\",\"count\":-3,\"ok\":true,\"list\":[]}", true},
        {"{\"name\":\"\xc3\xa9t\xc3\xa9 and a long "
         "tail\",\"size\":\"large\",\"count\":0,\"list\":[]}",
         true},
        /* 19 digits: past the fast read, which the full one then finds exact */
        {"{\"name\":\"a\",\"size\":\"large\",\"count\":1234567890123456789,\"list\":[]}", true},
        {" {\"name\":\"a\",\"size\":\"large\",\"count\":3,\"list\":[]}", false},
        {"{\"name\":\"a\", \"size\":\"large\",\"count\":3,\"list\":[]}", false},
        {"{\"name\":\"a\",\"size\":\"large\",\"count\":3,\"list\":[1, 2]}", false},
        {"{\"size\":\"large\",\"name\":\"a\",\"count\":3,\"list\":[]}", false},
        {"{\"name\":\"a\",\"size\":\"large\",\"list\":[]}", false}, /* count's default */
        {"{\"name\":\"a\",\"size\":\"large\",\"count\":3}", false}, /* list's [] */
        {"{\"name\":\"\\u0061\",\"size\":\"large\",\"count\":3,\"list\":[]}", false},
        {"{\"name\":\"a\",\"size\":\"\\u006carge\",\"count\":3,\"list\":[]}", false},
        {"{\"name\":\"a\",\"size\":\"large\",\"count\":-0,\"list\":[]}", false},
        {"{\"name\":\"a\",\"size\":\"large\",\"count\":3,\"note\":null,\"list\":[]}", false},
        {"{\"\\u006eame\":\"a\",\"size\":\"large\",\"count\":3,\"list\":[]}", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *text = cases[i].text;
        size_t n = strlen(text);
        arena a = {0};
        value head, full;
        const char *rest = NULL;
        bool exact = !cases[i].exact;
        char why[256];
        if (json_decode_head(text, n, &rec_ty, "", &a, &head, &rest, &exact, why, sizeof why) < 0)
            fail_msg("%s: %s", text, why);
        assert_ptr_equal(rest, text + n);
        if (exact != cases[i].exact)
            fail_msg("%s: exact %d", text, exact);
        assert_int_equal(json_decode(text, n, &rec_ty, "", &a, &full, why, sizeof why), 0);
        assert_true(value_equal(&head, &full));
        jline b = {0};
        json_put_value(&b, &rec_ty, &head);
        if (exact && strcmp(text_of(&b), text) != 0)
            fail_msg("%s: written again as %s", text, text_of(&b));
        jline_free(&b);
        arena_free(&a);
    }
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
        /* a runtime's words, made safe to print: escapes shown, bad bytes replaced */
        {"{\"ok\":false,\"error\":\"\\u001b]0;title\\u0007\\u001b[2J\"}", 0,
         "\\u001b]0;title\\u0007\\u001b[2J"},
        {"{\"ok\":false,\"error\":\"bad \xff\xc3 byte\\u0000s \xc2\x9b\"}", 0,
         "bad \xef\xbf\xbd\xef\xbf\xbd byte\\u0000s \\u009b"},
        {"{\"ok\":false,\"error\":\"caf\xc3\xa9 \xf0\x9f\x8d\x95\"}", 0,
         "caf\xc3\xa9 \xf0\x9f\x8d\x95"},
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

/* What the process target's full parse makes of an answer line (as
 * targets/process.c parse_whole and event_names read it): whether it is a
 * JSON object with a boolean ok and nothing after it but spaces, and whether
 * its events are an array of objects with a string name, whose names go to
 * out as "A, B". */
static bool cjson_events(const char *s, size_t n, bool *named, char *out, size_t size)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(s, n, &end, false);
    bool whole = cJSON_IsObject(root) && cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(root, "ok"));
    for (; whole && end && end < s + n; end++)
        whole = *end == ' ' || *end == '\t' || *end == '\r';
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(root, "events"), *ev;
    *named = whole && cJSON_IsArray(events);
    const cJSON *list = NULL;
    if (*named)
        list = events;
    out[0] = '\0';
    size_t len = 0;
    cJSON_ArrayForEach(ev, list)
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "name"));
        if (!cJSON_IsObject(ev) || !name) {
            *named = false;
            break;
        }
        len += (size_t)snprintf(out + len, size - len, "%s%s", len ? ", " : "", name);
    }
    cJSON_Delete(root);
    return whole;
}

static void test_serve_answers_events_are_read_fast_as_cjson_reads_them(void **state)
{
    (void)state;
    char deep[400] = "{\"ok\":true,\"events\":[{\"name\":\"E\",\"payload\":";
    for (int i = 0; i < 70; i++)
        strcat(deep, "[");
    for (int i = 0; i < 70; i++)
        strcat(deep, "]");
    strcat(deep, "}]}");
    static const char long_number[] = /* past the 63 characters some cJSON builds read */
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":"
        "1234567890123456789012345678901234567890123456789012345678901234567890}]}";
    static const char escaped_name[] =
        "{\"ok\":true,\"events\":[{\"name\":\"A\\u0042\",\"payload\":{}}]}";
    static const char *const fast_cases[] = {
        "{\"ok\":true,\"events\":[]}",
        "{\"ok\":true,\"events\":[{\"name\":\"ToppingAdded\",\"payload\":{\"name\":\"pizza-1\","
        "\"topping\":\"Basil\",\"amount\":3}}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":{}},{\"name\":\"B\",\"payload\":"
        "{\"l\":[1,-2,3.5,1e9,-0.25E-3,true,false,null,[],{}]}}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":{\"s\":\"a \\\"q\\\" \\\\ \\/ \\b\\f"
        "\\n\\r\\t \\u00e9 \\ud83c\\udf55 \\u0000\"}}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"Caf\xc3\xa9\",\"payload\":{ \"a\" : [ 1 , 2 ] }}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":{\"raw\":\"\xff\xfe\"}}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":1}]}",
    };
    const char *const full_cases[] = {
        /* not serve's shape: the full parse decides */
        "{\"ok\":true}",
        "{\"ok\":true,\"events\":[]}\r",
        "{\"ok\":true,\"events\":[]} ",
        "{\"ok\":true,\"events\":[] }",
        "{ \"ok\":true,\"events\":[]}",
        "{\"events\":[],\"ok\":true}",
        escaped_name,
        "{\"ok\":true,\"events\":[{\"payload\":{},\"name\":\"A\"}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\"}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":{},\"x\":1}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":{}}],\"x\":1}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":{}},]}",
        "{\"ok\":true,\"events\":[\"A\"]}",
        /* malformed: neither reads them */
        "{\"ok\":true,\"events\":[",
        "{\"ok\":true,\"events\":[]",
        "{\"ok\":true,\"events\":[]}}",
        "{\"ok\":true,\"events\":[]}x",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":{}}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":{\"a\":}}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":{\"a\":1,}}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":{\"a\" 1}}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":[1 2]}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":\"open}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A,\"payload\":{}}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":{\"s\":\"\\x\"}}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":{\"s\":\"\\u12\"}}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":{\"s\":\"\\udc00\"}}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":{\"s\":\"\\ud800x\"}}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":{\"s\":\"a\tb\"}}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":tru}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":nul}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":-}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":1.}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":.5}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":01}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":1e}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":+1}]}",
        "{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":0x10}]}",
        long_number,
        deep,
    };
    size_t nfast = sizeof fast_cases / sizeof *fast_cases;
    for (size_t i = 0; i < nfast + sizeof full_cases / sizeof *full_cases; i++) {
        const char *line = i < nfast ? fast_cases[i] : full_cases[i - nfast];
        size_t n = strlen(line);
        jline names = {0};
        jline_puts(&names, "kept");
        int fast = json_answer_events(line, n, &names, NULL, 0);
        char want[256];
        bool named = false, whole = cjson_events(line, n, &named, want, sizeof want);
        if (fast != (i < nfast))
            fail_msg("%s: the fast path gave %d", line, fast);
        if (fast) { /* then cJSON reads it too, to the same names */
            assert_true(whole && named);
            assert_int_equal(names.len, 4 + strlen(want));
            assert_memory_equal(names.data + 4, want, strlen(want));
        } else {
            assert_int_equal(names.len, 4); /* left as it was */
        }
        jline_free(&names);
    }
    /* the full parse reads every shape the fast path leaves to it */
    char want[256];
    bool named;
    assert_true(cjson_events(escaped_name, strlen(escaped_name), &named, want, sizeof want));
    assert_string_equal(want, "AB");
    assert_true(cjson_events(deep, strlen(deep), &named, want, sizeof want) && named);
}

/* A payload of exactly the bytes the caller says it wrote (a request's
 * args, which bench serve echoes) is taken as valid without being read; the
 * rest of the line is read as ever, and any other payload is read in full. */
static void test_answer_payloads_the_caller_wrote_are_not_read_again(void **state)
{
    (void)state;
    static const char args[] = "{\"name\":\"pizza-7\",\"topping\":\"Basil\",\"amount\":3}";
    const size_t na = sizeof args - 1;
    static const struct {
        const char *line;
        int fast;
        const char *names;
    } cases[] = {
        {"{\"ok\":true,\"events\":[{\"name\":\"ToppingAdded\",\"payload\":"
         "{\"name\":\"pizza-7\",\"topping\":\"Basil\",\"amount\":3}}]}",
         1, "ToppingAdded"},
        /* the same payload, then two events, the second another payload */
        {"{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":"
         "{\"name\":\"pizza-7\",\"topping\":\"Basil\",\"amount\":3}},"
         "{\"name\":\"B\",\"payload\":{\"n\":1}}]}",
         1, "A, B"},
        /* the caller's bytes, but the line is broken after them */
        {"{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":"
         "{\"name\":\"pizza-7\",\"topping\":\"Basil\",\"amount\":3}}]",
         0, ""},
        {"{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":"
         "{\"name\":\"pizza-7\",\"topping\":\"Basil\",\"amount\":3}}}]}",
         0, ""},
        /* a payload that only starts with them is read in full */
        {"{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":"
         "{\"name\":\"pizza-7\",\"topping\":\"Basil\",\"amount\":3}x}]}",
         0, ""},
        {"{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":"
         "{\"name\":\"pizza-7\",\"topping\":\"Basil\",\"amount\":3,\"x\":1}}]}",
         1, "A"},
        /* other bytes, valid or not, as without them */
        {"{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":{\"amount\": 3}}]}", 1, "A"},
        {"{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":{\"amount\":}}]}", 0, ""},
        {"{\"ok\":true,\"events\":[{\"name\":\"A\",\"payload\":"
         "{\"name\":\"pizza-7\",\"topping\":\"Basil\",\"amount\":3",
         0, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        jline names = {0};
        int got = json_answer_events(cases[i].line, strlen(cases[i].line), &names, args, na);
        if (got != cases[i].fast)
            fail_msg("%s: gave %d", cases[i].line, got);
        assert_int_equal(names.len, strlen(cases[i].names));
        if (names.len)
            assert_memory_equal(names.data, cases[i].names, names.len);
        /* as without the caller's bytes */
        jline again = {0};
        assert_int_equal(json_answer_events(cases[i].line, strlen(cases[i].line), &again, NULL, 0),
                         got);
        jline_free(&names);
        jline_free(&again);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encode_by_type),
        cmocka_unit_test(test_kept_fields_encode_as_the_whole_struct),
        cmocka_unit_test(test_decode_fills_defaults_lists_and_optionals),
        cmocka_unit_test(test_decode_lists_of_any_length),
        cmocka_unit_test(test_decode_reads_any_key_order_spacing_and_escapes),
        cmocka_unit_test(test_decode_refuses_malformed_text_with_its_path),
        cmocka_unit_test(test_decode_reads_a_struct_of_many_fields),
        cmocka_unit_test(test_stored_form_writes_unset_fields_as_null),
        cmocka_unit_test(test_stored_form_reads_back_exactly),
        cmocka_unit_test(test_requests_are_told_apart),
        cmocka_unit_test(test_canonical_requests_are_found_fast),
        cmocka_unit_test(test_decode_head_says_when_the_text_is_exact),
        cmocka_unit_test(test_answers_are_read),
        cmocka_unit_test(test_serve_answers_events_are_read_fast_as_cjson_reads_them),
        cmocka_unit_test(test_answer_payloads_the_caller_wrote_are_not_read_again),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
