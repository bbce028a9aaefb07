/* test_json_nodes.c: JSON text straight into nodes (json_nodes.h). Every
 * text it takes gives the tree jschema_node_from_cjson gives of cJSON's
 * parse (a packed pair list standing for its pairs); every text it refuses
 * is one cJSON refuses or might read otherwise, and is left to it; a file
 * read in pieces gives the tree of its whole text. */
/* cmocka.h needs these first, in this order. */
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

#include "json_nodes.h"
#include "jsonschema.h"

/* Fails unless a (from json_nodes) is the tree b (from cJSON). */
static void assert_same_tree(const node *a, const node *b, const node *pa, const node *pb)
{
    assert_non_null(a);
    assert_true(a->parent == pa || (pa == NULL && a->parent == NULL));
    assert_int_equal(a->index, b->index);
    assert_true(b->parent == pb);
    assert_string_equal(a->file, b->file);
    assert_int_equal(a->line, 0);
    assert_int_equal(a->col, 0);
    const jschema_pairs *packed = jschema_pairs_of(a);
    if (packed) {
        assert_int_equal(b->kind, NODE_SEQ);
        assert_int_equal(a->count, b->count);
        for (size_t i = 0; i < b->count; i++) {
            const node *pair = b->items[i];
            assert_int_equal(pair->count, 2);
            assert_int_equal(pair->items[0]->kind, NODE_INT);
            assert_int_equal(pair->items[1]->kind, NODE_INT);
            assert_int_equal(packed->first[i], pair->items[0]->v.i);
            assert_int_equal(packed->second[i], pair->items[1]->v.i);
        }
        return;
    }
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->quoted, b->quoted);
    switch (a->kind) {
    case NODE_NULL: break;
    case NODE_BOOL: assert_int_equal(a->v.b, b->v.b); break;
    case NODE_INT: assert_int_equal(a->v.i, b->v.i); break;
    case NODE_FLOAT: /* the same value; json_nodes keeps no text (messages print the value) */
        assert_memory_equal(&a->v.f, &b->v.f, sizeof a->v.f);
        assert_int_equal(a->len, 0);
        break;
    case NODE_STRING: break;
    case NODE_MAP:
        assert_int_equal(a->count, b->count);
        for (size_t i = 0; i < a->count; i++) {
            assert_same_tree(a->pairs[i].key, b->pairs[i].key, a, b);
            assert_same_tree(a->pairs[i].value, b->pairs[i].value, a, b);
        }
        break;
    case NODE_SEQ:
        assert_int_equal(a->count, b->count);
        for (size_t i = 0; i < a->count; i++)
            assert_same_tree(a->items[i], b->items[i], a, b);
        break;
    }
    if (a->kind != NODE_FLOAT) {
        assert_int_equal(a->len, b->len);
        assert_memory_equal(a->text, b->text, a->len + 1);
    }
}

/* Texts cJSON reads, which json_nodes takes too. */
static const char *const taken[] = {
    "{}",
    "[]",
    " \t\r\n{ \"a\" : [ ] , \"b\" : { } } \n",
    "0",
    "-0",
    "[1, -7, 1.5, 1e3, -2.5E-3, 0.0, 2.0, 1e300, 1e400, -1e400, 123456789012345]",
    "[1234567890123456, 12345678901234567890, -9223372036854775808, 9223372036854775807]",
    "[true, false, null, \"\", \"x\"]",
    "\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u0041 \\u00e9 \\u20AC caf\xc3\xa9\"",
    "{\"dup\": 1, \"dup\": 2, \"\\u00e9\": 3}",
    "[[1, 2], [3, 4], [5, 6]]",
    "[[1,2],[-3,0],[999999999999999,1]]",
    "[ [ 1 , 2 ] ,\n [ 3 , 4 ] ]",
    "[[1, 2], [3, 4], [5, 6, 7]]",
    "[[1, 2], \"x\", [3, 4]]",
    "[[1, 2], [1.5, 2]]",
    "[[1, 2], [1234567890123456, 2]]",
    "[[1], [2, 3]]",
    "[[], [1, 2]]",
    "[[[1, 2], [3, 4]], [[5, 6]]]",
    "{\"histogram\": [[180, 1], [190, 2]], \"runs\": [{\"h\": [[1, 1]]}]}",
};

/* Texts json_nodes leaves to cJSON: not JSON, or JSON cJSON reads its own way. */
static const char *const left[] = {
    "",
    "   ",
    "[1,]",
    "{\"a\":1,}",
    "[1 2]",
    "{\"a\" 1}",
    "{1: 2}",
    "[1]x",
    "[1] [2]",
    "[",
    "[[1, 2], [3, 4]",
    "\"open",
    "tru",
    "nul",
    "01",
    "1.",
    ".5",
    "-",
    "1e",
    "+1",
    "0x10",
    "\"\\u0000\"",
    "\"\\ud83d\\ude00\"",
    "\"\\q\"",
    "\"\\u12\"",
    "\"tab\there\"",
    "\xef\xbb\xbf{}",
    "\f[]",
    "[1111111111111111111111111111111111111111111111111111111111111111]",
    "NaN",
};

static node *parse_text(arena *tree, arena *keep, const char *text)
{
    return json_nodes_parse(tree, keep, "t.json", text, strlen(text));
}

static void test_a_text_it_takes_is_the_tree_cjson_gives(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof taken / sizeof *taken; i++) {
        arena tree = {0}, keep = {0}, other = {0};
        node *mine = parse_text(&tree, &keep, taken[i]);
        if (!mine)
            fail_msg("json_nodes refused %s", taken[i]);
        cJSON *json = cJSON_Parse(taken[i]);
        assert_non_null(json);
        node *theirs = jschema_node_from_cjson(&other, json, "t.json");
        assert_same_tree(mine, theirs, NULL, NULL);
        cJSON_Delete(json);
        arena_free(&tree);
        arena_free(&keep);
        arena_free(&other);
    }
}

static void test_a_pair_list_is_packed_until_an_item_is_not_a_pair(void **state)
{
    (void)state;
    arena tree = {0}, keep = {0};
    const node *n = parse_text(&tree, &keep, "[[1, 2], [3, 4], [5, 6]]");
    const jschema_pairs *p = jschema_pairs_of(n);
    assert_non_null(p);
    assert_int_equal(n->count, 3);
    assert_null(n->items);
    assert_int_equal(p->first[2], 5);
    assert_int_equal(p->second[2], 6);
    /* the third item is not a pair: the first two become nodes again */
    n = parse_text(&tree, &keep, "[[1, 2], [3, 4], [5, 6, 7]]");
    assert_null(jschema_pairs_of(n));
    assert_int_equal(n->count, 3);
    assert_int_equal(n->items[1]->items[0]->v.i, 3);
    assert_ptr_equal(n->items[1]->parent, n);
    assert_int_equal(n->items[1]->index, 1);
    assert_int_equal(n->items[2]->count, 3);
    /* the packed values live in keep, the nodes in tree */
    assert_true(keep.used > 0);
    arena_free(&tree);
    arena_free(&keep);
}

static void test_a_text_it_does_not_take_is_left_to_cjson(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof left / sizeof *left; i++) {
        arena tree = {0}, keep = {0};
        if (parse_text(&tree, &keep, left[i]))
            fail_msg("json_nodes took %s", left[i]);
        arena_free(&tree);
        arena_free(&keep);
    }
    /* a NUL byte inside the text */
    arena tree = {0}, keep = {0};
    assert_null(json_nodes_parse(&tree, &keep, "t.json", "[1]\0", 4));
    assert_null(json_nodes_parse(&tree, &keep, "t.json", "[\"a\0b\"]", 7));
    arena_free(&tree);
    arena_free(&keep);
    /* 999 levels are taken, 1,000 are left (cJSON reads at most 1,000) */
    char deep[2 * 1000 + 1];
    for (size_t levels = 999; levels <= 1000; levels++) {
        memset(deep, '[', levels);
        memset(deep + levels, ']', levels);
        deep[2 * levels] = '\0';
        arena t = {0}, k = {0};
        node *n = parse_text(&t, &k, deep);
        assert_true(levels == 999 ? n != NULL : n == NULL);
        arena_free(&t);
        arena_free(&k);
    }
}

/* A file of about 3 MB read in pieces of 1 MB: strings, whitespace runs and
 * pair lists cross the pieces' edges. */
static void test_a_file_read_in_pieces_is_the_tree_of_its_text(void **state)
{
    (void)state;
    size_t cap = 4 << 20, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    len += (size_t)sprintf(text + len, "{\"long\": \"");
    for (size_t i = 0; i < 1500000; i++)
        text[len++] = (char)('a' + i % 26);
    len += (size_t)sprintf(text + len, "\\n\\u00e9\", \"ws\":");
    memset(text + len, ' ', 10000);
    len += 10000;
    len += (size_t)sprintf(text + len, "1.25, \"h\": [");
    for (size_t i = 0; i < 100000; i++)
        len += (size_t)sprintf(text + len, "%s[%zu, %zu]", i ? ", " : "", 100 + i, 1 + i % 9);
    len += (size_t)sprintf(text + len, "], \"end\": [true, null, -3]}\n");
    assert_true(len < cap);
    text[len] = '\0';
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    rewind(f);
    arena tree = {0}, keep = {0}, other = {0};
    node *mine = json_nodes_read(&tree, &keep, "t.json", f, len);
    assert_non_null(mine);
    cJSON *json = cJSON_ParseWithLength(text, len);
    assert_non_null(json);
    assert_same_tree(mine, jschema_node_from_cjson(&other, json, "t.json"), NULL, NULL);
    cJSON_Delete(json);
    arena_free(&tree);
    arena_free(&keep);
    /* a byte more than the most allowed */
    rewind(f);
    assert_null(json_nodes_read(&tree, &keep, "t.json", f, len - 1));
    /* text after the value, past the first piece */
    fseek(f, 0, SEEK_END);
    fputs("x", f);
    rewind(f);
    assert_null(json_nodes_read(&tree, &keep, "t.json", f, len + 1));
    fclose(f);
    arena_free(&tree);
    arena_free(&keep);
    arena_free(&other);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_text_it_takes_is_the_tree_cjson_gives),
        cmocka_unit_test(test_a_pair_list_is_packed_until_an_item_is_not_a_pair),
        cmocka_unit_test(test_a_text_it_does_not_take_is_left_to_cjson),
        cmocka_unit_test(test_a_file_read_in_pieces_is_the_tree_of_its_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
