/* test_diag.c: diagnostics: sorting by address, keeping insertion order for
 * ties. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diag_sort_orders_by_file_line_col_and_is_stable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
