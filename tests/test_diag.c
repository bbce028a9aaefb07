/* test_diag.c: diagnostics: sorting by address, keeping insertion order for
 * ties; caret lines cut to a window, and found in one pass over the text. */
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

#include "diag.h"

#include <time.h>

static void test_diag_sort_orders_by_file_line_col_and_is_stable(void **state)
{
    (void)state;
    diag_list d = {0};
    /* enough to take several merge passes; ties on line 1 keep their order */
    for (int i = 0; i < 100; i++)
        diag_add(&d, DIAG_ERROR, i % 2 ? "b.yaml" : "a.yaml", (100 - i) % 7, 1, "m%d", i);
    diag_add(&d, DIAG_WARNING, "a.yaml", 3, 2, "late");
    diag_sort(&d);
    assert_int_equal(d.count, 101);
    for (size_t i = 1; i < d.count; i++) {
        const diag *x = &d.items[i - 1], *y = &d.items[i];
        int c = strcmp(x->file, y->file);
        assert_true(c < 0 ||
                    (c == 0 && (x->line < y->line || (x->line == y->line && x->col <= y->col))));
        if (c == 0 && x->line == y->line && x->col == y->col)
            assert_true(atoi(x->message + 1) < atoi(y->message + 1));
    }
    diag_list_free(&d);
}

/* diag_print_text of g through the cursor src, as a malloc'd string. */
static char *printed_at(const diag *g, diag_cursor *src)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    diag_print_text(f, g, src);
    long len = ftell(f);
    assert_true(len >= 0);
    rewind(f);
    char *out = calloc(1, (size_t)len + 1);
    assert_non_null(out);
    assert_int_equal(fread(out, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    return out;
}

/* The same over the whole of text. */
static char *printed(const diag *g, const char *text)
{
    diag_cursor src = diag_cursor_at(text, strlen(text));
    return printed_at(g, &src);
}

static void test_diag_caret_line_is_the_whole_line_when_short(void **state)
{
    (void)state;
    diag g = {.file = "t.yaml", .line = 2, .col = 4, .message = "bad"};
    char *out = printed(&g, "a: 1\nb: \xc3\xa9x\tz\n");
    assert_string_equal(out, "t.yaml:2:4: error: bad\n  b: \xc3\xa9x\tz\n     ^\n");
    free(out);
}

/* A 500,000-character line: 120 code points around the column, with "…"
 * where it was cut, and the caret still under the column. */
static void test_diag_caret_line_is_cut_to_a_window_around_the_column(void **state)
{
    (void)state;
    size_t n = 500000;
    char *text = malloc(n + 2);
    for (size_t i = 0; i < n; i++)
        text[i] = (char)('a' + i % 26);
    text[n] = '\n';
    text[n + 1] = '\0';
    int col = 250001; /* the character at index 250000 */
    diag g = {.file = "t.yaml", .line = 1, .col = col, .message = "bad"};
    char *out = printed(&g, text);
    char *source = strchr(out, '\n') + 1, *caret = strchr(source, '\n') + 1;
    size_t first = (size_t)col - 1 - DIAG_SOURCE_WINDOW / 2;
    char want[512];
    snprintf(want, sizeof want, "  …%.*s…\n", DIAG_SOURCE_WINDOW, text + first);
    assert_int_equal(strncmp(source, want, strlen(want)), 0);
    /* "  ", one column for the "…", then the code points before the column */
    assert_int_equal(strspn(caret, " "), 2 + 1 + DIAG_SOURCE_WINDOW / 2);
    assert_string_equal(caret + strspn(caret, " "), "^\n");
    assert_int_equal(text[first + DIAG_SOURCE_WINDOW / 2], text[col - 1]);
    free(out);
    /* at the start of the line: no "…" before it */
    g.col = 3;
    out = printed(&g, text);
    source = strchr(out, '\n') + 1;
    snprintf(want, sizeof want, "  %.*s…\n    ^\n", DIAG_SOURCE_WINDOW, text);
    assert_string_equal(source, want);
    free(out);
    free(text);
}

/* One diagnostic on each of 200,000 lines: printing them walks the text
 * once (a rescan per diagnostic took a minute for 150,000). */
static void test_diag_printing_is_linear_in_the_text(void **state)
{
    (void)state;
    size_t lines = 200000;
    char *text = malloc(lines * 16 + 1), *p = text;
    diag_list d = {0};
    for (size_t i = 0; i < lines; i++) {
        p += sprintf(p, "k%08zu: 1\n", i);
        diag_add(&d, DIAG_ERROR, "t.yaml", (int)i + 1, 1, "unknown key");
    }
    FILE *null = fopen("/dev/null", "w");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    diag_cursor src = diag_cursor_at(text, (size_t)(p - text));
    for (size_t i = 0; i < d.count; i++)
        diag_print_text(null, &d.items[i], &src);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    fclose(null);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    assert_true(s < 5.0);
    /* and the cursor still finds an earlier line */
    diag g = {.file = "t.yaml", .line = 2, .col = 1, .message = "again"};
    char *out = printed_at(&g, &src);
    assert_string_equal(out, "t.yaml:2:1: error: again\n  k00000001: 1\n  ^\n");
    free(out);
    diag_list_free(&d);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diag_sort_orders_by_file_line_col_and_is_stable),
        cmocka_unit_test(test_diag_caret_line_is_the_whole_line_when_short),
        cmocka_unit_test(test_diag_caret_line_is_cut_to_a_window_around_the_column),
        cmocka_unit_test(test_diag_printing_is_linear_in_the_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
