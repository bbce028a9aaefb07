/* test_lint_corpus.c: the lint corpus, a table of bad specs with their
 * expected first diagnostic. Each .yaml file under tests/lint starts with
 *     # expect: LINE:COL: error: MESSAGE
 * and may carry "# expect-exit: N" (1 by default: the spec is invalid; 2: the
 * file cannot be read). A "# pending: WHY" line marks a message judged wrong
 * today: the expectation is the message it should be, a mismatch is printed
 * but does not fail, and the spec must still be refused. Every bundled spec
 * (specs/, examples/) must pass with no error. The directories are read at
 * run time, from the repository root. */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

enum { CORPUS_MIN = 40 };

typedef struct case_file {
    char path[512];
    char expect[1024]; /* "LINE:COL: error: MESSAGE" */
    char pending[512]; /* why the expectation is not met yet, or "" */
    int exit_status;   /* 1: SPEC_INVALID, 2: SPEC_IO */
} case_file;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.yaml names in dir, sorted; the caller frees each and the array. */
static char **list_yaml(const char *dir, size_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    size_t cap = 64;
    char **names = malloc(cap * sizeof *names);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") != 0)
            continue;
        if (*n == cap)
            names = realloc(names, (cap *= 2) * sizeof *names);
        names[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, *n, sizeof *names, cmp_str);
    return names;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static const char *next_line(const char *line)
{
    const char *nl = strchr(line, '\n');
    return nl ? nl + 1 : NULL;
}

/* Copies the text after prefix on the first line that starts with it; false if none. */
static bool header_value(const char *text, const char *prefix, char *out, size_t size)
{
    size_t plen = strlen(prefix);
    for (const char *line = text; line && *line; line = next_line(line)) {
        if (strncmp(line, prefix, plen) != 0)
            continue;
        const char *v = line + plen, *end = strchr(v, '\n');
        size_t len = end ? (size_t)(end - v) : strlen(v);
        if (len > 0 && v[len - 1] == '\r')
            len--;
        snprintf(out, size, "%.*s", (int)len, v);
        return true;
    }
    return false;
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0, n;
    char *buf = malloc(cap + 1);
    while ((n = fread(buf + len, 1, cap - len, f)) > 0)
        if ((len += n) == cap)
            buf = realloc(buf, (cap *= 2) + 1);
    fclose(f);
    buf[len] = '\0';
    return buf;
}

static void load_case(case_file *c)
{
    char *text = read_all(c->path);
    if (!text)
        fail_msg("%s: cannot read", c->path);
    if (strncmp(text, "# expect: ", 10) != 0) {
        free(text);
        fail_msg("%s: the first line must be '# expect: LINE:COL: error: MESSAGE'", c->path);
    }
    header_value(text, "# expect: ", c->expect, sizeof c->expect);
    char exit_text[32];
    c->exit_status =
        header_value(text, "# expect-exit: ", exit_text, sizeof exit_text) ? atoi(exit_text) : 1;
    c->pending[0] = '\0';
    header_value(text, "# pending: ", c->pending, sizeof c->pending);
    free(text);
}

static int status_exit(spec_status st)
{
    return st == SPEC_OK ? 0 : st == SPEC_IO ? 2 : 1;
}

static void test_lint_corpus_case(void **state)
{
    case_file *c = *state;
    load_case(c);
    diag_list d = {0};
    spec s;
    spec_status st = spec_check(c->path, &d, &s);
    diag_sort(&d);
    char got[1200] = "(no diagnostic)";
    if (d.count > 0) {
        const diag *g = &d.items[0];
        snprintf(got, sizeof got, "%d:%d: %s: %s", g->line, g->col,
                 g->severity == DIAG_ERROR ? "error" : "warning", g->message);
    }
    bool matches = strcmp(got, c->expect) == 0;
    int exit_status = status_exit(st);
    size_t errors = d.errors;
    spec_close(&s);
    diag_list_free(&d);

    if (c->pending[0]) {
        if (matches)
            print_message("%s: now gives the expected message; remove its '# pending' line\n",
                          c->path);
        else
            print_message("PENDING %s (%s)\n  want: %s\n  got:  %s\n", c->path, c->pending,
                          c->expect, got);
        assert_int_not_equal(exit_status, 0);
        assert_true(errors > 0);
        return;
    }
    if (!matches)
        fail_msg("%s: first diagnostic differs\n  want: %s\n  got:  %s", c->path, c->expect, got);
    if (exit_status != c->exit_status)
        fail_msg("%s: spec_check gives exit status %d, want %d", c->path, exit_status,
                 c->exit_status);
}

static void test_lint_corpus_has_enough_cases(void **state)
{
    size_t n;
    char **names = list_yaml("tests/lint", &n);
    free_names(names, n);
    if (n < CORPUS_MIN)
        fail_msg("tests/lint holds %zu specs; the corpus needs at least %d", n, CORPUS_MIN);
}

static void test_lint_corpus_bundled_specs_are_clean(void **state)
{
    static const char *const dirs[] = {"specs", "examples"};
    size_t checked = 0;
    for (size_t k = 0; k < 2; k++) {
        size_t n;
        char **names = list_yaml(dirs[k], &n);
        for (size_t i = 0; i < n; i++) {
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dirs[k], names[i]);
            diag_list d = {0};
            spec s;
            spec_status st = spec_check(path, &d, &s);
            diag_sort(&d);
            for (size_t j = 0; j < d.count; j++)
                if (d.items[j].severity == DIAG_ERROR)
                    print_error("%s:%d:%d: error: %s\n", path, d.items[j].line, d.items[j].col,
                                d.items[j].message);
            size_t errors = d.errors;
            spec_close(&s);
            diag_list_free(&d);
            if (st != SPEC_OK || errors != 0) {
                free_names(names, n);
                fail_msg("%s does not pass lint", path);
            }
            checked++;
        }
        free_names(names, n);
    }
    /* pizzas, banking and the three examples at least */
    assert_true(checked >= 5);
}

int main(void)
{
    size_t n;
    char **names = list_yaml("tests/lint", &n);
    case_file *cases = calloc(n ? n : 1, sizeof *cases);
    struct CMUnitTest *tests = calloc(n + 2, sizeof *tests);
    size_t k = 0;
    tests[k++] = (struct CMUnitTest){"corpus has enough cases", test_lint_corpus_has_enough_cases,
                                     NULL, NULL, NULL};
    tests[k++] = (struct CMUnitTest){"bundled specs are clean",
                                     test_lint_corpus_bundled_specs_are_clean, NULL, NULL, NULL};
    for (size_t i = 0; i < n; i++) {
        snprintf(cases[i].path, sizeof cases[i].path, "tests/lint/%s", names[i]);
        tests[k++] = (struct CMUnitTest){names[i], test_lint_corpus_case, NULL, NULL, &cases[i]};
    }
    int failed = _cmocka_run_group_tests("lint_corpus", tests, k, NULL, NULL);
    free(tests);
    free(cases);
    free_names(names, n);
    return failed;
}
