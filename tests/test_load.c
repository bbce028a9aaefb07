/* test_load.c: the YAML loader: core-schema scalars, positions, and the
 * strict rules libyaml does not have (duplicate keys, no aliases, one
 * document, depth and size limits). */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "load.h"

/* ---- helpers ---- */

typedef struct loaded {
    doc *dc;
    diag_list d;
    int rc;
} loaded;

static loaded load(const char *text)
{
    loaded l = {0};
    l.rc = load_string("t.yaml", text, strlen(text), &l.dc, &l.d);
    return l;
}

static void unload(loaded *l)
{
    doc_free(l->dc);
    diag_list_free(&l->d);
}

/* Asserts the load failed with exactly one diagnostic at line:col saying msg. */
static void assert_refused(const char *text, int line, int col, const char *msg)
{
    loaded l = load(text);
    assert_int_equal(l.rc, LOAD_INVALID);
    assert_int_equal(l.d.count, 1);
    assert_int_equal(l.d.errors, 1);
    assert_string_equal(l.d.items[0].file, "t.yaml");
    assert_string_equal(l.d.items[0].message, msg);
    assert_int_equal(l.d.items[0].line, line);
    assert_int_equal(l.d.items[0].col, col);
    unload(&l);
}

/* The value of `v: TEXT` as the loader resolves it. */
typedef struct scalar_case {
    const char *yaml; /* the value as written after "v: " */
    node_kind kind;
    bool quoted;
    int64_t i; /* for NODE_INT */
    double f;  /* for NODE_FLOAT (NAN: a NaN) */
    bool b;    /* for NODE_BOOL */
    const char *text;
} scalar_case;

static void check_scalar(const scalar_case *c)
{
    char text[256];
    snprintf(text, sizeof text, "v: %s\n", c->yaml);
    loaded l = load(text);
    if (l.rc != LOAD_OK)
        fail_msg("'%s' did not load: %s", c->yaml, l.d.count ? l.d.items[0].message : "?");
    const node *v = node_get(l.dc->root, "v");
    assert_non_null(v);
    if (v->kind != c->kind)
        fail_msg("'%s' resolved as %s, want %s", c->yaml, node_kind_name(v->kind),
                 node_kind_name(c->kind));
    assert_int_equal(v->quoted, c->quoted);
    if (c->text)
        assert_string_equal(v->text, c->text);
    if (c->kind == NODE_INT)
        assert_true(v->v.i == c->i);
    if (c->kind == NODE_BOOL)
        assert_int_equal(v->v.b, c->b);
    if (c->kind == NODE_FLOAT && c->f != c->f)
        assert_true(v->v.f != v->v.f);
    else if (c->kind == NODE_FLOAT)
        assert_true(v->v.f == c->f);
    unload(&l);
}

/* ---- scalars: the YAML 1.2 core schema ---- */

static void test_load_scalars_resolve_as_the_core_schema(void **state)
{
    static const scalar_case cases[] = {
        {.yaml = "null", .kind = NODE_NULL},
        {.yaml = "~", .kind = NODE_NULL},
        {.yaml = "", .kind = NODE_NULL, .text = ""},
        {.yaml = "Null", .kind = NODE_NULL},
        {.yaml = "NULL", .kind = NODE_NULL},
        {.yaml = "true", .kind = NODE_BOOL, .b = true},
        {.yaml = "True", .kind = NODE_BOOL, .b = true},
        {.yaml = "TRUE", .kind = NODE_BOOL, .b = true},
        {.yaml = "false", .kind = NODE_BOOL, .b = false},
        {.yaml = "False", .kind = NODE_BOOL, .b = false},
        {.yaml = "12", .kind = NODE_INT, .i = 12, .text = "12"},
        {.yaml = "0", .kind = NODE_INT, .i = 0},
        {.yaml = "-5", .kind = NODE_INT, .i = -5},
        {.yaml = "+7", .kind = NODE_INT, .i = 7},
        {.yaml = "012", .kind = NODE_INT, .i = 12},
        {.yaml = "0x1F", .kind = NODE_INT, .i = 31, .text = "0x1F"},
        {.yaml = "0xff", .kind = NODE_INT, .i = 255},
        {.yaml = "0o17", .kind = NODE_INT, .i = 15},
        {.yaml = "9223372036854775807", .kind = NODE_INT, .i = INT64_MAX},
        {.yaml = "-9223372036854775808", .kind = NODE_INT, .i = INT64_MIN},
        {.yaml = "0x7FFFFFFFFFFFFFFF", .kind = NODE_INT, .i = INT64_MAX},
        {.yaml = "1.5", .kind = NODE_FLOAT, .f = 1.5},
        {.yaml = "-2.5e3", .kind = NODE_FLOAT, .f = -2500},
        {.yaml = "1e5", .kind = NODE_FLOAT, .f = 100000},
        {.yaml = ".5", .kind = NODE_FLOAT, .f = 0.5},
        {.yaml = "1.", .kind = NODE_FLOAT, .f = 1},
        {.yaml = ".inf", .kind = NODE_FLOAT, .f = 1.0 / 0.0},
        {.yaml = "-.inf", .kind = NODE_FLOAT, .f = -1.0 / 0.0},
        {.yaml = ".nan", .kind = NODE_FLOAT, .f = 0.0 / 0.0},
        /* YAML 1.1 booleans and other look-alikes are strings in 1.2 */
        {.yaml = "yes", .kind = NODE_STRING, .text = "yes"},
        {.yaml = "no", .kind = NODE_STRING, .text = "no"},
        {.yaml = "on", .kind = NODE_STRING, .text = "on"},
        {.yaml = "off", .kind = NODE_STRING, .text = "off"},
        {.yaml = "y", .kind = NODE_STRING},
        {.yaml = "1_000", .kind = NODE_STRING, .text = "1_000"},
        {.yaml = "0x", .kind = NODE_STRING},
        {.yaml = "0X1F", .kind = NODE_STRING},
        {.yaml = "-0x10", .kind = NODE_STRING},
        {.yaml = "0o8", .kind = NODE_STRING},
        {.yaml = "-.nan", .kind = NODE_STRING},
        {.yaml = "2024-01-01", .kind = NODE_STRING, .text = "2024-01-01"},
        {.yaml = "12:30", .kind = NODE_STRING},
        {.yaml = "pizza-${n}", .kind = NODE_STRING, .text = "pizza-${n}"},
        /* a quoted scalar is always a string */
        {.yaml = "\"1\"", .kind = NODE_STRING, .quoted = true, .text = "1"},
        {.yaml = "'true'", .kind = NODE_STRING, .quoted = true, .text = "true"},
        {.yaml = "\"null\"", .kind = NODE_STRING, .quoted = true, .text = "null"},
        {.yaml = "''", .kind = NODE_STRING, .quoted = true, .text = ""},
        {.yaml = "\"0x1F\"", .kind = NODE_STRING, .quoted = true, .text = "0x1F"},
        /* explicit core tags */
        {.yaml = "!!str 12", .kind = NODE_STRING, .text = "12"},
        {.yaml = "!!str true", .kind = NODE_STRING, .text = "true"},
        {.yaml = "!!int \"12\"", .kind = NODE_INT, .quoted = true, .i = 12},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        check_scalar(&cases[i]);
}

static void test_load_block_scalars_are_strings(void **state)
{
    loaded l = load("about: >-\n  Stock a product,\n  ship it.\nnote: |\n  12\n");
    assert_int_equal(l.rc, LOAD_OK);
    const node *about = node_get(l.dc->root, "about");
    assert_int_equal(about->kind, NODE_STRING);
    assert_true(about->quoted); /* not plain: never resolved as a number */
    assert_string_equal(about->text, "Stock a product, ship it.");
    const node *note = node_get(l.dc->root, "note");
    assert_int_equal(note->kind, NODE_STRING);
    assert_string_equal(note->text, "12\n");
    unload(&l);
}

/* The encoding rule: no NUL in a string, even one YAML's "\0" escape writes. */
static void test_load_quoted_scalar_with_a_nul_is_refused(void **state)
{
    assert_refused("v: \"x\\0y\"\n", 1, 4,
                   "a string must be valid UTF-8 without NUL (\\u0000) characters");
}

static void test_load_integer_out_of_range_is_refused(void **state)
{
    assert_refused("a: 9223372036854775808\n", 1, 4,
                   "integer 9223372036854775808 is out of the 64-bit range");
    assert_refused("a: [1, -9223372036854775809]\n", 1, 8,
                   "integer -9223372036854775809 is out of the 64-bit range");
    assert_refused("a: 0x8000000000000000\n", 1, 4,
                   "integer 0x8000000000000000 is out of the 64-bit range");
    /* quoted, it is only text */
    loaded l = load("a: \"9223372036854775808\"\n");
    assert_int_equal(l.rc, LOAD_OK);
    unload(&l);
}

static void test_load_unsupported_tag_is_refused(void **state)
{
    assert_refused("a: !custom x\n", 1, 4, "unsupported YAML tag '!custom'");
}

/* ---- positions ---- */

static void test_load_positions_of_block_keys_and_values(void **state)
{
    loaded l = load("spec: 1\n"
                    "workload:\n"
                    "  cycle:\n"
                    "    - Order.Create: x\n"
                    "  runs:   3\n");
    assert_int_equal(l.rc, LOAD_OK);
    const node *root = l.dc->root;
    assert_int_equal(root->kind, NODE_MAP);
    assert_int_equal(root->line, 1);
    assert_int_equal(root->col, 1);
    const node_pair *p = node_get_pair(root, "spec");
    assert_int_equal(p->key->line, 1);
    assert_int_equal(p->key->col, 1);
    assert_int_equal(p->value->line, 1);
    assert_int_equal(p->value->col, 7);
    const node *w = node_get(root, "workload");
    assert_int_equal(w->line, 3); /* a block mapping starts at its first key */
    assert_int_equal(w->col, 3);
    const node *cycle = node_get(w, "cycle");
    assert_int_equal(cycle->kind, NODE_SEQ);
    assert_int_equal(cycle->line, 4);
    assert_int_equal(cycle->col, 5); /* the '-' */
    const node *step = cycle->items[0];
    assert_int_equal(step->pairs[0].key->line, 4);
    assert_int_equal(step->pairs[0].key->col, 7);
    assert_int_equal(step->pairs[0].value->col, 21);
    const node *runs = node_get(w, "runs");
    assert_int_equal(runs->line, 5);
    assert_int_equal(runs->col, 11);
    assert_string_equal(runs->file, "t.yaml");
    unload(&l);
}

static void test_load_positions_in_flow_collections(void **state)
{
    loaded l = load("a: {b: [1, 'two', {c: x}], d: \"q\"}\n");
    assert_int_equal(l.rc, LOAD_OK);
    const node *a = node_get(l.dc->root, "a");
    assert_int_equal(a->kind, NODE_MAP);
    assert_int_equal(a->col, 4); /* the '{' */
    const node_pair *b = node_get_pair(a, "b");
    assert_int_equal(b->key->col, 5);
    assert_int_equal(b->value->col, 8); /* the '[' */
    assert_int_equal(b->value->count, 3);
    assert_int_equal(b->value->items[0]->col, 9);
    assert_int_equal(b->value->items[1]->col, 12); /* the opening quote */
    assert_true(b->value->items[1]->quoted);
    assert_int_equal(b->value->items[2]->col, 19);
    assert_int_equal(node_get(b->value->items[2], "c")->col, 23);
    assert_int_equal(node_get(a, "d")->col, 31);
    unload(&l);
}

static void test_load_columns_count_code_points(void **state)
{
    /* "été" is three code points (five bytes); CRLF line ends are fine */
    loaded l = load("\xc3\xa9t\xc3\xa9: 1\r\nb: 2\r\n");
    assert_int_equal(l.rc, LOAD_OK);
    assert_int_equal(node_get(l.dc->root, "\xc3\xa9t\xc3\xa9")->col, 6);
    const node_pair *b = node_get_pair(l.dc->root, "b");
    assert_int_equal(b->key->line, 2);
    assert_int_equal(b->value->col, 4);
    unload(&l);
}

/* node_path of n equals want (NULL: no path). */
static void assert_path(const node *n, const char *want)
{
    assert_non_null(n);
    char *got = node_path(n);
    if (!want)
        assert_null(got);
    else
        assert_string_equal(got, want);
    free(got);
}

static void test_load_nodes_know_their_path_through_the_spec(void **state)
{
    (void)state;
    loaded l = load("aggregates:\n"
                    "  Order:\n"
                    "    commands:\n"
                    "      Purchase:\n"
                    "        guards:\n"
                    "          - {check: status == available, refuse: sold}\n"
                    "          - {check: arg.amount > 0, refuse: positive}\n"
                    "workload:\n"
                    "  cycle:\n"
                    "    - Order.Purchase: {amount: 1200}\n"
                    "    - [a, [b, c]]\n");
    assert_int_equal(l.rc, LOAD_OK);
    const node *root = l.dc->root;
    assert_path(root, NULL);
    assert_null(root->parent);
    const node *guards = node_get(
        node_get(node_get(node_get(node_get(root, "aggregates"), "Order"), "commands"), "Purchase"),
        "guards");
    const node *check = node_get(guards->items[1], "check");
    assert_path(check, "aggregates.Order.commands.Purchase.guards[1].check");
    assert_ptr_equal(check->parent, guards->items[1]);
    assert_ptr_equal(guards->items[1]->parent, guards);
    /* a key has the path of its value */
    assert_path(node_get_pair(guards->items[1], "check")->key,
                "aggregates.Order.commands.Purchase.guards[1].check");
    const node *cycle = node_get(node_get(root, "workload"), "cycle");
    assert_path(cycle->items[0], "workload.cycle[0]");
    assert_path(node_get(node_get(cycle->items[0], "Order.Purchase"), "amount"),
                "workload.cycle[0].Order.Purchase.amount");
    assert_path(cycle->items[1]->items[1]->items[0], "workload.cycle[1][1][0]");
    assert_path(node_get(root, "workload"), "workload");
    /* a node outside a loaded tree has none */
    node lone = {.kind = NODE_STRING, .text = "x", .len = 1};
    assert_path(&lone, NULL);
    unload(&l);
}

static void test_load_keeps_source_and_path(void **state)
{
    const char text[] = "a: 1\n";
    loaded l = load(text);
    assert_int_equal(l.rc, LOAD_OK);
    assert_string_equal(l.dc->path, "t.yaml");
    assert_int_equal(l.dc->len, strlen(text));
    assert_string_equal(l.dc->source, text);
    unload(&l);
}

/* ---- strict rules ---- */

static void test_load_duplicate_key_reported_at_the_second(void **state)
{
    assert_refused("a: 1\nb: 2\na: 3\n", 3, 1, "duplicate key 'a' (first at line 1, column 1)");
    assert_refused("m: {x: 1, y: 2, x: 3}\n", 1, 17,
                   "duplicate key 'x' (first at line 1, column 5)");
    assert_refused("outer:\n  inner:\n    k: 1\n    k: 2\n", 4, 5,
                   "duplicate key 'k' (first at line 3, column 5)");
    /* keys are compared as text: a plain 1 and a quoted "1" are the same key */
    assert_refused("1: a\n\"1\": b\n", 2, 1, "duplicate key '1' (first at line 1, column 1)");
}

static void test_load_same_key_in_different_mappings_is_fine(void **state)
{
    loaded l = load("a: {name: x}\nb: {name: y}\nc: [{name: 1}, {name: 2}]\n");
    assert_int_equal(l.rc, LOAD_OK);
    assert_int_equal(l.d.count, 0);
    unload(&l);
}

static void test_load_alias_is_refused(void **state)
{
    assert_refused("a: &price 1200\nb: *price\n", 2, 4,
                   "YAML aliases (*price) are not allowed in a spec; write the value out");
    assert_refused("base: &b {x: 1}\nother:\n  - *b\n", 3, 5,
                   "YAML aliases (*b) are not allowed in a spec; write the value out");
}

static void test_load_anchor_without_alias_is_fine(void **state)
{
    loaded l = load("a: &price 1200\nb: &t {x: 1}\n");
    assert_int_equal(l.rc, LOAD_OK);
    assert_int_equal(l.d.count, 0);
    const node *a = node_get(l.dc->root, "a");
    assert_int_equal(a->kind, NODE_INT);
    assert_true(a->v.i == 1200);
    assert_int_equal(node_get(node_get(l.dc->root, "b"), "x")->kind, NODE_INT);
    unload(&l);
}

static char *nested_sequences(int depth)
{
    char *s = malloc((size_t)depth * 2 + 2);
    memset(s, '[', (size_t)depth);
    memset(s + depth, ']', (size_t)depth);
    s[depth * 2] = '\n';
    s[depth * 2 + 1] = '\0';
    return s;
}

static void test_load_depth_limit_is_64(void **state)
{
    char *ok = nested_sequences(LOAD_MAX_DEPTH);
    loaded l = load(ok);
    assert_int_equal(l.rc, LOAD_OK);
    assert_int_equal(l.d.count, 0);
    const node *n = l.dc->root;
    int depth = 1;
    while (n->count) {
        n = n->items[0];
        depth++;
    }
    assert_int_equal(n->kind, NODE_SEQ);
    assert_int_equal(depth, LOAD_MAX_DEPTH);
    unload(&l);
    free(ok);

    char *deep = nested_sequences(LOAD_MAX_DEPTH + 1);
    assert_refused(deep, 1, LOAD_MAX_DEPTH + 1, "nesting is deeper than 64 levels");
    free(deep);

    /* block mappings count the same way */
    size_t cap = 65 * 140, len = 0;
    char *block = malloc(cap);
    for (int i = 0; i < LOAD_MAX_DEPTH + 1; i++)
        len += (size_t)snprintf(block + len, cap - len, "%*sk%d:\n", i * 2, "", i);
    len += (size_t)snprintf(block + len, cap - len, "%*sleaf: 1\n", (LOAD_MAX_DEPTH + 1) * 2, "");
    assert_refused(block, LOAD_MAX_DEPTH + 1, LOAD_MAX_DEPTH * 2 + 1,
                   "nesting is deeper than 64 levels");
    free(block);
}

static void test_load_size_limit_is_4_mib(void **state)
{
    size_t len = LOAD_MAX_BYTES;
    char *big = malloc(len + 2);
    big[0] = '#';
    memset(big + 1, 'x', len - 2);
    big[len - 1] = '\n';
    big[len] = '\n';
    big[len + 1] = '\0';

    doc *dc = NULL;
    diag_list d = {0};
    assert_int_equal(load_string("big.yaml", big, len, &dc, &d), LOAD_OK); /* exactly 4 MiB */
    assert_int_equal(dc->root->kind, NODE_NULL);
    doc_free(dc);
    assert_int_equal(load_string("big.yaml", big, len + 1, &dc, &d), LOAD_INVALID);
    assert_null(dc);
    assert_int_equal(d.count, 1);
    assert_string_equal(d.items[0].message, "the file is larger than 4194304 bytes");
    assert_string_equal(d.items[0].file, "big.yaml");
    assert_int_equal(d.items[0].line, 0); /* the whole file */
    diag_list_free(&d);
    free(big);
}

static void test_load_second_document_is_refused(void **state)
{
    assert_refused("a: 1\n---\nb: 2\n", 2, 1,
                   "a spec file holds one YAML document; found a second");
    /* one document with explicit start and end markers is fine */
    loaded l = load("---\na: 1\n...\n");
    assert_int_equal(l.rc, LOAD_OK);
    assert_int_equal(node_get(l.dc->root, "a")->kind, NODE_INT);
    unload(&l);
}

static void test_load_collection_as_key_is_refused(void **state)
{
    assert_refused("? [a, b]\n: 1\n", 1, 3, "a mapping key must be a scalar");
}

static void test_load_syntax_errors_have_a_position(void **state)
{
    static const struct {
        const char *text;
        int line, col;
        const char *msg;
    } cases[] = {
        {"a:\n\tb: 1\n", 2, 1, "YAML syntax: a tab cannot indent YAML; use spaces"},
        {"a: [1, 2\n", 2, 1,
         "YAML syntax: did not find expected ',' or ']' while parsing a flow sequence that starts "
         "at line 1, column 4"},
        {"a: {b: 1\nc: 2\n", 2, 2,
         "YAML syntax: did not find expected ',' or '}' while parsing a flow mapping that starts "
         "at line 1, column 4"},
        {"a: 1\n  b: 2\n", 2, 4, "YAML syntax: mapping values are not allowed in this context"},
        {"a: \"open\n", 2, 1,
         "YAML syntax: found unexpected end of stream while scanning a quoted scalar that starts "
         "at line 1, column 4"},
        {"a: 1\nb: [x, y\n", 3, 1,
         "YAML syntax: did not find expected ',' or ']' while parsing a flow sequence that starts "
         "at line 2, column 4"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        loaded l = load(cases[i].text);
        assert_int_equal(l.rc, LOAD_INVALID);
        assert_non_null(l.dc); /* kept for caret lines */
        assert_int_equal(l.d.count, 1);
        if (strcmp(l.d.items[0].message, cases[i].msg) != 0 || l.d.items[0].line != cases[i].line ||
            l.d.items[0].col != cases[i].col)
            fail_msg("case %zu: got %d:%d: %s", i, l.d.items[0].line, l.d.items[0].col,
                     l.d.items[0].message);
        unload(&l);
    }
}

static void test_load_invalid_utf8_is_refused(void **state)
{
    loaded l = load("a: caf\xe9\n");
    assert_int_equal(l.rc, LOAD_INVALID);
    assert_int_equal(l.d.count, 1);
    const char *prefix = "the file is not valid UTF-8 text (";
    assert_true(strncmp(l.d.items[0].message, prefix, strlen(prefix)) == 0);
    unload(&l);
}

static void test_load_empty_input_gives_a_null_root(void **state)
{
    static const char *const texts[] = {"", "# only a comment\n", "\n\n"};
    for (size_t i = 0; i < 3; i++) {
        loaded l = load(texts[i]);
        assert_int_equal(l.rc, LOAD_OK);
        assert_int_equal(l.d.count, 0);
        assert_int_equal(l.dc->root->kind, NODE_NULL);
        assert_int_equal(l.dc->root->line, 1);
        assert_int_equal(l.dc->root->col, 1);
        unload(&l);
    }
}

/* ---- files ---- */

typedef struct tmpdir {
    char path[64];
} tmpdir;

static int make_tmpdir(void **state)
{
    tmpdir *t = calloc(1, sizeof *t);
    snprintf(t->path, sizeof t->path, "/tmp/bench-test-load-XXXXXX");
    if (!mkdtemp(t->path)) {
        free(t);
        return -1;
    }
    *state = t;
    return 0;
}

static int remove_tmpdir(void **state)
{
    tmpdir *t = *state;
    char p[128];
    static const char *const names[] = {"empty.yaml", "spec.yaml", "big.yaml"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", t->path, names[i]);
        unlink(p);
    }
    rmdir(t->path);
    free(t);
    return 0;
}

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void test_load_file_missing_is_an_io_error(void **state)
{
    tmpdir *t = *state;
    char p[128];
    snprintf(p, sizeof p, "%s/missing.yaml", t->path);
    doc *dc = (doc *)1;
    diag_list d = {0};
    assert_int_equal(load_file(p, &dc, &d), LOAD_IO);
    assert_null(dc);
    assert_int_equal(d.count, 1);
    assert_string_equal(d.items[0].file, p);
    assert_string_equal(d.items[0].message, "cannot open: No such file or directory");
    diag_list_free(&d);
}

static void test_load_file_on_a_directory_is_an_io_error(void **state)
{
    tmpdir *t = *state;
    doc *dc = (doc *)1;
    diag_list d = {0};
    assert_int_equal(load_file(t->path, &dc, &d), LOAD_IO);
    assert_null(dc);
    assert_int_equal(d.count, 1);
    assert_int_equal(d.errors, 1);
    assert_string_equal(d.items[0].file, t->path);
    char want[200];
    snprintf(want, sizeof want, "%s is not a regular file (a directory)", t->path);
    assert_string_equal(d.items[0].message, want);
    diag_list_free(&d);
}

/* A FIFO that nobody writes to is refused at once, not waited on. */
static void test_load_file_on_a_fifo_is_refused_without_blocking(void **state)
{
    tmpdir *t = *state;
    char p[128], want[200];
    snprintf(p, sizeof p, "%s/fifo.yaml", t->path);
    assert_int_equal(mkfifo(p, 0600), 0);
    doc *dc = (doc *)1;
    diag_list d = {0};
    assert_int_equal(load_file(p, &dc, &d), LOAD_IO);
    assert_null(dc);
    assert_int_equal(d.count, 1);
    snprintf(want, sizeof want, "%s is not a regular file (a FIFO)", p);
    assert_string_equal(d.items[0].message, want);
    diag_list_free(&d);
    unlink(p);
}

/* UTF-16 and UTF-32 (as an editor saves them, with a byte-order mark) are
 * refused by name, and a lone CR where a line ends is refused at its
 * place: libyaml would take both, with columns bench cannot give right. */
static void test_load_refuses_other_encodings_and_lone_crs(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        size_t len;
        const char *name;
    } boms[] = {
        {"\xFF\xFEs\0p\0", 6, "UTF-16 (little-endian)"},
        {"\xFE\xFF\0s\0p", 6, "UTF-16 (big-endian)"},
        {"\xFF\xFE\0\0s\0\0\0", 8, "UTF-32 (little-endian)"},
        {"\0\0\xFE\xFF\0\0\0s", 8, "UTF-32 (big-endian)"},
    };
    for (size_t i = 0; i < sizeof boms / sizeof *boms; i++) {
        loaded l = {0};
        l.rc = load_string("t.yaml", boms[i].text, boms[i].len, &l.dc, &l.d);
        assert_int_equal(l.rc, LOAD_INVALID);
        assert_int_equal(l.d.count, 1);
        char want[200];
        snprintf(want, sizeof want,
                 "the file is in %s: it starts with that byte-order mark; bench reads UTF-8",
                 boms[i].name);
        assert_string_equal(l.d.items[0].message, want);
        assert_int_equal(l.d.items[0].line, 0);
        unload(&l);
    }
    assert_refused("a: 1\r\nb: \"\xc3\xa9\"\rc: 2\n", 2, 7,
                   "a carriage return (CR) without a line feed ends this line; bench reads LF or "
                   "CRLF line endings");
    loaded l = load("a: 1\r\nb: 2\r\n"); /* CRLF is fine */
    assert_int_equal(l.rc, LOAD_OK);
    unload(&l);
}

static void test_load_file_empty_gives_a_null_root(void **state)
{
    tmpdir *t = *state;
    char p[128];
    snprintf(p, sizeof p, "%s/empty.yaml", t->path);
    write_file(p, "", 0);
    doc *dc = NULL;
    diag_list d = {0};
    assert_int_equal(load_file(p, &dc, &d), LOAD_OK);
    assert_int_equal(d.count, 0);
    assert_int_equal(dc->root->kind, NODE_NULL);
    assert_int_equal(dc->root->line, 1);
    assert_int_equal(dc->len, 0);
    assert_string_equal(dc->path, p);
    doc_free(dc);
}

static void test_load_file_reads_a_spec_with_positions(void **state)
{
    tmpdir *t = *state;
    char p[128];
    snprintf(p, sizeof p, "%s/spec.yaml", t->path);
    /* larger than the loader's first 64 KiB read, so the buffer has to grow */
    size_t cap = 200 * 1024, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "spec: 1\nabout: |\n");
    while (len < 150 * 1024)
        len += (size_t)snprintf(text + len, cap - len, "  a line of text for people\n");
    len += (size_t)snprintf(text + len, cap - len, "domain: big\n");
    write_file(p, text, len);
    doc *dc = NULL;
    diag_list d = {0};
    assert_int_equal(load_file(p, &dc, &d), LOAD_OK);
    assert_int_equal(dc->len, len);
    assert_memory_equal(dc->source, text, len);
    const node *dom = node_get(dc->root, "domain");
    assert_non_null(dom);
    assert_string_equal(dom->text, "big");
    assert_string_equal(dom->file, p);
    assert_int_equal(dom->col, 9);
    doc_free(dc);
    free(text);
}

static void test_load_file_larger_than_4_mib_is_refused(void **state)
{
    tmpdir *t = *state;
    char p[128];
    snprintf(p, sizeof p, "%s/big.yaml", t->path);
    size_t len = LOAD_MAX_BYTES + 10;
    char *text = malloc(len);
    memset(text, '#', len);
    text[len - 1] = '\n';
    write_file(p, text, len);
    free(text);
    doc *dc = NULL;
    diag_list d = {0};
    assert_int_equal(load_file(p, &dc, &d), LOAD_INVALID);
    doc_free(dc);
    assert_int_equal(d.count, 1);
    assert_string_equal(d.items[0].message, "the file is larger than 4194304 bytes");
    diag_list_free(&d);
}

#define TMP(f) cmocka_unit_test_setup_teardown(f, make_tmpdir, remove_tmpdir)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_scalars_resolve_as_the_core_schema),
        cmocka_unit_test(test_load_block_scalars_are_strings),
        cmocka_unit_test(test_load_quoted_scalar_with_a_nul_is_refused),
        cmocka_unit_test(test_load_integer_out_of_range_is_refused),
        cmocka_unit_test(test_load_unsupported_tag_is_refused),
        cmocka_unit_test(test_load_positions_of_block_keys_and_values),
        cmocka_unit_test(test_load_positions_in_flow_collections),
        cmocka_unit_test(test_load_columns_count_code_points),
        cmocka_unit_test(test_load_keeps_source_and_path),
        cmocka_unit_test(test_load_nodes_know_their_path_through_the_spec),
        cmocka_unit_test(test_load_duplicate_key_reported_at_the_second),
        cmocka_unit_test(test_load_same_key_in_different_mappings_is_fine),
        cmocka_unit_test(test_load_alias_is_refused),
        cmocka_unit_test(test_load_anchor_without_alias_is_fine),
        cmocka_unit_test(test_load_depth_limit_is_64),
        cmocka_unit_test(test_load_size_limit_is_4_mib),
        cmocka_unit_test(test_load_second_document_is_refused),
        cmocka_unit_test(test_load_collection_as_key_is_refused),
        cmocka_unit_test(test_load_syntax_errors_have_a_position),
        cmocka_unit_test(test_load_invalid_utf8_is_refused),
        cmocka_unit_test(test_load_empty_input_gives_a_null_root),
        TMP(test_load_file_missing_is_an_io_error),
        TMP(test_load_file_on_a_directory_is_an_io_error),
        TMP(test_load_file_on_a_fifo_is_refused_without_blocking),
        cmocka_unit_test(test_load_refuses_other_encodings_and_lone_crs),
        TMP(test_load_file_empty_gives_a_null_root),
        TMP(test_load_file_reads_a_spec_with_positions),
        TMP(test_load_file_larger_than_4_mib_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
