/* Tests of interp/jsonschema.c: the JSON-Schema-Test-Suite (draft-07) for
 * every keyword the validator claims, then the messages `bench lint` shows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the headers it needs */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonschema.h"

#define SUITE_DIR "/usr/share/json-schema-test-suite/tests/draft7"

/* ---- the JSON-Schema-Test-Suite ------------------------------------------ */

/* Files whose every case needs what the validator does not do. */
static const struct {
    const char *file, *reason;
} unsupported_files[] = {
    {"refRemote.json", "every case loads remote documents (http://localhost:1234/...) or "
                       "changes the base URI with $id"},
    {"definitions.json", "validates against the draft-07 metaschema, a remote document"},
};

/* Groups of a file the validator claims that need the same. */
static const struct {
    const char *file, *group, *reason;
} unsupported_groups[] = {
    {"ref.json", "remote ref, containing refs itself",
     "refers to the draft-07 metaschema, a remote document"},
    {"ref.json", "Recursive references between schemas",
     "resolves \"$ref\": \"node\" against the base URI set by $id"},
};

/* File names that are not the keyword they test; NULL keyword: a core feature. */
static const struct {
    const char *file, *keyword;
} file_keywords[] = {
    {"boolean_schema.json", NULL},
    {"if-then-else.json", "if"},
    {"ref.json", "$ref"},
};

static bool listed(const char *const *list, const char *name)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

/* Why file is not run, or NULL when it is. */
static const char *skip_reason(const char *file)
{
    for (size_t i = 0; i < sizeof unsupported_files / sizeof unsupported_files[0]; i++)
        if (strcmp(file, unsupported_files[i].file) == 0)
            return unsupported_files[i].reason;
    char keyword[100];
    snprintf(keyword, sizeof keyword, "%.*s", (int)(strlen(file) - strlen(".json")), file);
    for (size_t i = 0; i < sizeof file_keywords / sizeof file_keywords[0]; i++) {
        if (strcmp(file, file_keywords[i].file) != 0)
            continue;
        if (!file_keywords[i].keyword)
            return NULL;
        snprintf(keyword, sizeof keyword, "%s", file_keywords[i].keyword);
    }
    if (listed(jschema_keywords, keyword) || listed(jschema_annotations, keyword))
        return NULL;
    static char reason[200];
    snprintf(reason, sizeof reason, "keyword '%s' is not implemented", keyword);
    return reason;
}

static const char *group_reason(const char *file, const char *group)
{
    for (size_t i = 0; i < sizeof unsupported_groups / sizeof unsupported_groups[0]; i++)
        if (strcmp(file, unsupported_groups[i].file) == 0 &&
            strcmp(group, unsupported_groups[i].group) == 0)
            return unsupported_groups[i].reason;
    return NULL;
}

static cJSON *parse_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    size_t got = fread(text, 1, (size_t)size, f);
    fclose(f);
    cJSON *json = cJSON_ParseWithLength(text, got);
    free(text);
    return json;
}

typedef struct suite_counts {
    int files, passed, failed, unsupported;
} suite_counts;

static int count_cases(const cJSON *groups)
{
    int n = 0;
    for (const cJSON *g = groups->child; g; g = g->next)
        n += cJSON_GetArraySize(cJSON_GetObjectItem(g, "tests"));
    return n;
}

/* Runs one case both silently and with diagnostics: the verdicts must agree
 * with the suite, and an invalid verdict must come with at least one message. */
static void run_case(const char *file, const cJSON *group, const cJSON *test, suite_counts *sc)
{
    const cJSON *schema = cJSON_GetObjectItem(group, "schema");
    bool expected = cJSON_IsTrue(cJSON_GetObjectItem(test, "valid"));
    arena a = {0};
    node *data = jschema_node_from_cjson(&a, cJSON_GetObjectItem(test, "data"), file);
    diag_list d = {0};
    bool quiet = jschema_validate(schema, data, NULL);
    bool loud = jschema_validate(schema, data, &d);
    bool ok = quiet == expected && loud == expected && (d.errors == 0) == expected;
    if (ok) {
        sc->passed++;
    } else {
        sc->failed++;
        printf("FAIL %s: %s: %s: expected %s, got %s/%s with %zu message(s)\n", file,
               cJSON_GetObjectItem(group, "description")->valuestring,
               cJSON_GetObjectItem(test, "description")->valuestring,
               expected ? "valid" : "invalid", quiet ? "valid" : "invalid",
               loud ? "valid" : "invalid", d.errors);
    }
    diag_list_free(&d);
    arena_free(&a);
}

static void run_file(const char *file, suite_counts *sc)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", SUITE_DIR, file);
    cJSON *groups = parse_file(path);
    assert_non_null(groups);
    const char *reason = skip_reason(file);
    if (reason) {
        int n = count_cases(groups);
        printf("skip %s (%d cases): %s\n", file, n, reason);
        sc->unsupported += n;
        cJSON_Delete(groups);
        return;
    }
    sc->files++;
    for (const cJSON *g = groups->child; g; g = g->next) {
        const cJSON *tests = cJSON_GetObjectItem(g, "tests");
        const char *why = group_reason(file, cJSON_GetObjectItem(g, "description")->valuestring);
        if (why) {
            printf("skip %s: %s (%d cases): %s\n", file,
                   cJSON_GetObjectItem(g, "description")->valuestring, cJSON_GetArraySize(tests),
                   why);
            sc->unsupported += cJSON_GetArraySize(tests);
            continue;
        }
        for (const cJSON *t = tests->child; t; t = t->next)
            run_case(file, g, t, sc);
    }
    cJSON_Delete(groups);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_jschema_passes_draft7_suite(void **state)
{
    DIR *dir = opendir(SUITE_DIR);
    if (!dir)
        fail_msg("%s is missing: install the Debian package json-schema-test-suite "
                 "(the Makefile installs it)",
                 SUITE_DIR);
    char *names[256];
    size_t n = 0;
    for (struct dirent *e; (e = readdir(dir)) && n < 256;) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0)
            names[n++] = strdup(e->d_name);
    }
    closedir(dir);
    qsort(names, n, sizeof names[0], compare_names);
    suite_counts sc = {0};
    for (size_t i = 0; i < n; i++) {
        run_file(names[i], &sc);
        free(names[i]);
    }
    printf("draft7 suite: %d files, %d/%d cases passed, %d unsupported\n", sc.files, sc.passed,
           sc.passed + sc.failed, sc.unsupported);
    assert_int_equal(sc.failed, 0);
    assert_true(sc.passed > 0);
}

/* ---- messages ------------------------------------------------------------- */

/* Gives n the positions it would have in block-style YAML written from line
 * *line at column col: one key or item per line, nested collections on the
 * next line indented by two, a sequence item two columns after its "- ". */
static void layout(node *n, int *line, int col)
{
    n->line = *line;
    n->col = col;
    if (n->kind != NODE_MAP && n->kind != NODE_SEQ) {
        (*line)++;
        return;
    }
    for (size_t i = 0; i < n->count; i++) {
        node *v = n->kind == NODE_MAP ? n->pairs[i].value : n->items[i];
        int vcol = col + 2;
        if (n->kind == NODE_MAP) {
            n->pairs[i].key->line = *line;
            n->pairs[i].key->col = col;
            vcol = col + (int)n->pairs[i].key->len + 2;
            if ((v->kind == NODE_MAP || v->kind == NODE_SEQ) && v->count > 0) {
                (*line)++;
                vcol = col + 2;
            }
        }
        layout(v, line, vcol);
    }
    if (n->count == 0)
        (*line)++;
}

/* Validates the JSON text instance, laid out as YAML, against the JSON text
 * schema; returns the diagnostics as "line:col: message" lines. */
static char *lint(const char *schema_text, const char *instance_text)
{
    cJSON *schema = cJSON_Parse(schema_text);
    cJSON *json = cJSON_Parse(instance_text);
    assert_non_null(schema);
    assert_non_null(json);
    arena a = {0};
    node *instance = jschema_node_from_cjson(&a, json, "spec.yaml");
    int line = 1;
    layout(instance, &line, 1);
    diag_list d = {0};
    bool valid = jschema_validate(schema, instance, &d);
    assert_int_equal(valid, d.errors == 0);
    assert_int_equal(valid, jschema_validate(schema, instance, NULL));
    diag_sort(&d);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    for (size_t i = 0; i < d.count; i++) {
        assert_string_equal(d.items[i].file, "spec.yaml");
        fprintf(f, "%d:%d: %s\n", d.items[i].line, d.items[i].col, d.items[i].message);
    }
    fclose(f);
    diag_list_free(&d);
    arena_free(&a);
    cJSON_Delete(json);
    cJSON_Delete(schema);
    return out;
}

#define STEP_SCHEMA                                                                                \
    "{\"type\": \"object\", \"additionalProperties\": false, \"required\": [\"cycle\"],"           \
    " \"properties\": {\"name\": {\"type\": \"string\"}, \"guards\": {\"type\": \"array\"},"       \
    " \"cycle\": {\"type\": \"array\"}}}"

/* anyOf of two step shapes: a branch per command, as the spec schema has. */
#define COMMAND_SCHEMA                                                                             \
    "{\"anyOf\": ["                                                                                \
    "{\"type\": \"object\", \"required\": [\"sql\"], \"additionalProperties\": false,"             \
    " \"properties\": {\"sql\": {\"type\": \"string\"}}},"                                         \
    "{\"type\": \"object\", \"required\": [\"http\"], \"additionalProperties\": false,"            \
    " \"properties\": {\"http\": {\"type\": \"object\", \"additionalProperties\": false,"          \
    " \"properties\": {\"url\": {\"type\": \"string\"}}}}}]}"

static const struct message_case {
    const char *name, *schema, *instance;
    const char *expected; /* "line:col: message" lines, sorted by position */
} message_cases[] = {
    {"valid spec has no message", STEP_SCHEMA, "{\"name\": \"a\", \"cycle\": []}", ""},
    /* name: a / gaurds: [] / cycle: [] */
    {"unknown key with a close name", STEP_SCHEMA,
     "{\"name\": \"a\", \"gaurds\": [], \"cycle\": []}",
     "2:1: unknown key 'gaurds' (did you mean 'guards'?)\n"},
    {"unknown key without a close name", STEP_SCHEMA, "{\"cycle\": [], \"zzzzzz\": 1}",
     "2:1: unknown key 'zzzzzz'; expected one of: name, guards, cycle\n"},
    {"missing required key at the mapping", "{\"properties\": {\"w\": " STEP_SCHEMA "}}",
     "{\"w\": {\"name\": \"a\"}}", "2:3: missing required key 'cycle'\n"},
    {"misspelled required key says it once", STEP_SCHEMA, "{\"cylce\": []}",
     "1:1: unknown key 'cylce' (did you mean 'cycle'?)\n"},
    {"wrong type at the value", STEP_SCHEMA, "{\"name\": 5, \"cycle\": \"x\"}",
     "1:7: expected a string, got an integer\n2:8: expected a sequence, got a string\n"},
    {"type list", "{\"type\": [\"string\", \"object\"]}", "7",
     "1:1: expected a string or a mapping, got an integer\n"},
    {"integer accepts 1.0, not 1.5", "{\"items\": {\"type\": \"integer\"}}", "[1.0, 1.5]",
     "2:3: expected an integer, got a number\n"},
    {"enum", "{\"enum\": [\"small\", \"large\", 3, null]}", "\"medium\"",
     "1:1: 'medium' is not one of: small, large, 3, null\n"},
    {"const", "{\"const\": 1}", "2", "1:1: expected 1, got 2\n"},
    {"const string", "{\"const\": \"on\"}", "\"off\"", "1:1: expected \"on\", got \"off\"\n"},
    {"pattern", "{\"pattern\": \"^[A-Za-z_][A-Za-z0-9_]*$\"}", "\"Bad Name\"",
     "1:1: 'Bad Name' does not match the pattern ^[A-Za-z_][A-Za-z0-9_]*$\n"},
    {"minimum", "{\"minimum\": 0}", "-1", "1:1: -1 is less than the minimum 0\n"},
    {"maximum", "{\"maximum\": 10}", "11", "1:1: 11 is greater than the maximum 10\n"},
    {"exclusiveMinimum", "{\"exclusiveMinimum\": 0}", "0", "1:1: 0 is not greater than 0\n"},
    {"exclusiveMaximum", "{\"exclusiveMaximum\": 2.5}", "2.5", "1:1: 2.5 is not less than 2.5\n"},
    {"multipleOf", "{\"multipleOf\": 2}", "7", "1:1: 7 is not a multiple of 2\n"},
    {"minLength", "{\"minLength\": 1}", "\"\"", "1:1: '' is shorter than 1 character(s)\n"},
    {"maxLength counts code points", "{\"maxLength\": 2}", "\"h\\u00e9h\"",
     "1:1: 'h\xc3\xa9h' is longer than 2 character(s)\n"},
    {"minItems", "{\"properties\": {\"cycle\": {\"minItems\": 1}}}", "{\"cycle\": []}",
     "1:8: the sequence has 0 item(s), fewer than the minimum 1\n"},
    {"maxProperties", "{\"maxProperties\": 1}", "{\"a\": 1, \"b\": 2}",
     "1:1: the mapping has 2 key(s), more than the maximum 1\n"},
    {"uniqueItems at the repeat", "{\"uniqueItems\": true}", "[1, 2, 1.0]",
     "3:3: item [2] repeats item [0]; items must be unique\n"},
    {"additionalItems false at the first extra item",
     "{\"items\": [{}], \"additionalItems\": false}", "[1, 2, 3]",
     "2:3: unexpected item [1]: the sequence allows at most 1 item(s) here\n"},
    {"dependencies at the key", "{\"dependencies\": {\"tls\": [\"cert\"]}}", "{\"tls\": true}",
     "1:1: key 'tls' requires key 'cert'\n"},
    {"propertyNames at the key", "{\"propertyNames\": {\"maxLength\": 3}}",
     "{\"ok\": 1, \"long\": 2}", "2:1: 'long' is longer than 3 character(s)\n"},
    {"contains", "{\"contains\": {\"const\": \"x\"}}", "[\"a\"]",
     "1:1: no item of the sequence matches the 'contains' schema\n"},
    {"not", "{\"not\": {\"type\": \"null\"}}", "null",
     "1:1: this value is not allowed here (it matches a 'not' schema)\n"},
    {"false property", "{\"properties\": {\"old\": false}}", "{\"old\": 1}",
     "1:1: key 'old' is not allowed here\n"},
    {"if/then", "{\"if\": {\"required\": [\"a\"]}, \"then\": {\"required\": [\"b\"]}}",
     "{\"a\": 1}", "1:1: missing required key 'b'\n"},
    /* http: / url: 5: the http branch got further than the sql branch */
    {"anyOf reports the branch that got deepest", COMMAND_SCHEMA, "{\"http\": {\"url\": 5}}",
     "2:8: expected a string, got an integer\n"},
    {"anyOf ties go to the first branch with fewest errors", COMMAND_SCHEMA, "{\"sqll\": \"x\"}",
     "1:1: unknown key 'sqll' (did you mean 'sql'?)\n"},
    {"anyOf prefers branches of the right type",
     "{\"anyOf\": [{\"type\": \"string\", \"minLength\": 5}, {\"type\": \"object\"}]}", "\"abc\"",
     "1:1: 'abc' is shorter than 5 character(s)\n"},
    {"anyOf with no branch of the right type",
     "{\"anyOf\": [{\"type\": \"string\"}, {\"$ref\": \"#/definitions/m\"}, {\"const\": null}],"
     " \"definitions\": {\"m\": {\"type\": \"object\"}}}",
     "5", "1:1: expected a string, a mapping or null, got an integer\n"},
    {"oneOf matching twice", "{\"oneOf\": [{\"type\": \"integer\"}, {\"minimum\": 0}]}", "1",
     "1:1: matches more than one alternative\n"},
    {"x-message replaces the inner messages",
     "{\"properties\": {\"step\": {\"x-message\": \"a step is a command name or a mapping with "
     "'run'\", \"oneOf\": [{\"type\": \"string\"}, {\"required\": [\"run\"]}]}}}",
     "{\"step\": {\"go\": 1}}", "2:3: a step is a command name or a mapping with 'run'\n"},
    {"independent errors are all reported",
     "{\"properties\": {\"a\": {\"type\": \"string\"}, \"b\": {\"minimum\": 3}},"
     " \"required\": [\"c\"]}",
     "{\"a\": 1, \"b\": 2}",
     "1:1: missing required key 'c'\n1:4: expected a string, got an integer\n"
     "2:4: 2 is less than the minimum 3\n"},
    {"one node, one keyword, one message",
     "{\"allOf\": [{\"additionalProperties\": false}, {\"additionalProperties\": false}]}",
     "{\"x\": 1}", "1:1: unknown key 'x'\n"},
    {"annotations and unknown keywords are ignored",
     "{\"title\": \"t\", \"description\": \"d\", \"$comment\": \"c\", \"examples\": [1],"
     " \"default\": 0, \"x-unknown\": 1, \"type\": \"integer\"}",
     "1", ""},
    {"broken $ref", "{\"$ref\": \"#/definitions/nope\"}", "1",
     "1:1: the schema's $ref '#/definitions/nope' does not resolve\n"},
    {"$ref that loops",
     "{\"definitions\": {\"a\": {\"anyOf\": [{\"$ref\": \"#/definitions/a\"},"
     " {\"$ref\": \"#/definitions/a\"}]}}, \"$ref\": \"#/definitions/a\"}",
     "1", "1:1: the schema nests deeper than 512 levels here (a $ref that loops?)\n"},
    {"long strings are cut", "{\"maxLength\": 3}",
     "\"0123456789012345678901234567890123456789012345678901234567890123456789\"",
     "1:1: '012345678901234567890123456789012345678901234567890123456789...' is longer than "
     "3 character(s)\n"},
};

static void test_jschema_messages_table(void **state)
{
    for (size_t i = 0; i < sizeof message_cases / sizeof message_cases[0]; i++) {
        const struct message_case *mc = &message_cases[i];
        char *got = lint(mc->schema, mc->instance);
        bool same = strcmp(got, mc->expected) == 0;
        if (!same)
            print_error("case '%s':\nexpected:\n%sgot:\n%s", mc->name, mc->expected, got);
        free(got);
        if (!same)
            fail();
    }
}

/* The chosen node is whatever node the loader positioned, not a guess. */
static void test_jschema_reports_at_hand_placed_key(void **state)
{
    node key = {
        .kind = NODE_STRING, .file = "w.yaml", .line = 7, .col = 5, .text = "gaurds", .len = 6};
    node value = {
        .kind = NODE_INT, .file = "w.yaml", .line = 7, .col = 13, .text = "1", .len = 1, .v.i = 1};
    node_pair pair = {&key, &value};
    node map = {.kind = NODE_MAP,
                .file = "w.yaml",
                .line = 6,
                .col = 5,
                .text = "",
                .count = 1,
                .pairs = &pair};
    cJSON *schema = cJSON_Parse("{\"properties\": {\"guards\": {}, \"cycle\": {}},"
                                " \"additionalProperties\": false}");
    diag_list d = {0};
    assert_false(jschema_validate(schema, &map, &d));
    assert_int_equal(d.count, 1);
    assert_string_equal(d.items[0].file, "w.yaml");
    assert_int_equal(d.items[0].line, 7);
    assert_int_equal(d.items[0].col, 5);
    assert_string_equal(d.items[0].message, "unknown key 'gaurds' (did you mean 'guards'?)");
    diag_list_free(&d);
    cJSON_Delete(schema);
}

static void test_jschema_node_from_cjson_resolves_numbers(void **state)
{
    cJSON *json = cJSON_Parse("{\"i\": 3, \"f\": 1.5, \"whole\": 2.0, \"big\": 1e300,"
                              " \"s\": \"x\", \"b\": false, \"n\": null, \"l\": [1]}");
    arena a = {0};
    node *n = jschema_node_from_cjson(&a, json, "f.json");
    assert_int_equal(n->kind, NODE_MAP);
    assert_int_equal(n->count, 8);
    assert_int_equal(node_get(n, "i")->kind, NODE_INT);
    assert_int_equal(node_get(n, "i")->v.i, 3);
    assert_int_equal(node_get(n, "f")->kind, NODE_FLOAT);
    assert_int_equal(node_get(n, "whole")->kind, NODE_INT);
    assert_int_equal(node_get(n, "big")->kind, NODE_FLOAT);
    assert_true(node_is_str(node_get(n, "s"), "x"));
    assert_int_equal(node_get(n, "b")->kind, NODE_BOOL);
    assert_int_equal(node_get(n, "n")->kind, NODE_NULL);
    assert_int_equal(node_get(n, "l")->items[0]->kind, NODE_INT);
    assert_string_equal(node_get(n, "f")->text, "1.5");
    assert_string_equal(n->file, "f.json");
    arena_free(&a);
    cJSON_Delete(json);
}

static void test_jschema_keywords_list_is_complete(void **state)
{
    static const char *const wanted[] = {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "dependencies",
        "enum",
        "const",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "items",
        "additionalItems",
        "minItems",
        "maxItems",
        "uniqueItems",
        "contains",
        "$ref",
        "definitions",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
    };
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
        assert_true(listed(jschema_keywords, wanted[i]));
    assert_true(listed(jschema_annotations, "x-message"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jschema_passes_draft7_suite),
        cmocka_unit_test(test_jschema_messages_table),
        cmocka_unit_test(test_jschema_reports_at_hand_placed_key),
        cmocka_unit_test(test_jschema_node_from_cjson_resolves_numbers),
        cmocka_unit_test(test_jschema_keywords_list_is_complete),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
