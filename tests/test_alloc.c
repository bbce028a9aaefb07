/* test_alloc.c: the one out-of-memory handler and the error object. The
 * handler is called in a child (fork), whose stderr is a pipe: its message
 * and exit status are what a user sees. */
/* cmocka.h needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"

/* Runs f in a child with stderr on a pipe; returns its wait status and what
 * it wrote in out. */
static int in_child(void (*f)(void), char *out, size_t size)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        f();
        _exit(99); /* not reached */
    }
    close(fds[1]);
    size_t len = 0;
    ssize_t n;
    while (len + 1 < size && (n = read(fds[0], out + len, size - 1 - len)) > 0)
        len += (size_t)n;
    out[len] = '\0';
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void call_handler(void)
{
    bench_out_of_memory();
}

static void overflowing_calloc(void)
{
    (void)xcalloc(SIZE_MAX / 2, 4); /* n * size overflows: out of memory, not a small block */
}

static void test_alloc_out_of_memory_prints_one_line_and_exits_1(void **state)
{
    (void)state;
    char out[256];
    int status = in_child(call_handler, out, sizeof out);
    assert_true(WIFEXITED(status)); /* not a signal: abort() was exit status 134 */
    assert_int_equal(WEXITSTATUS(status), 1);
    assert_string_equal(out, "bench: out of memory\n");
}

static void test_alloc_xcalloc_overflow_is_out_of_memory(void **state)
{
    (void)state;
    char out[256];
    int status = in_child(overflowing_calloc, out, sizeof out);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 1);
    assert_string_equal(out, "bench: out of memory\n");
}

static void overflowing_calloc_lines(void)
{
    (void)xcalloc_lines(SIZE_MAX / 2, 4);
}

/* Memory for one thread's writes: zeroed, on lines of its own (it starts on
 * one and fills its last), so a neighbour allocated next to it starts on
 * another line; sizes that overflow are refused. */
static void test_alloc_calloc_lines_owns_whole_cache_lines(void **state)
{
    (void)state;
    static const size_t sizes[][2] = {{1, 1}, {3, 24}, {1, 64}, {5, 13}, {0, 8}, {2, 0}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        size_t n = sizes[i][0], size = sizes[i][1], bytes = n * size;
        bytes = bytes ? bytes : 1;
        size_t lines = (bytes + ALLOC_LINE - 1) / ALLOC_LINE * ALLOC_LINE;
        unsigned char *a = xcalloc_lines(n, size), *b = calloc_lines(n, size);
        assert_non_null(b);
        assert_int_equal((uintptr_t)a % ALLOC_LINE, 0);
        assert_int_equal((uintptr_t)b % ALLOC_LINE, 0);
        for (size_t k = 0; k < lines; k++) /* all of its lines are its own, and zero */
            assert_int_equal(a[k] | b[k], 0);
        memset(a, 0xff, lines); /* ASan: every byte of the last line is ours to write */
        free(a);
        free(b);
    }
    assert_null(calloc_lines(SIZE_MAX / 2, 4));
    char out[256];
    int status = in_child(overflowing_calloc_lines, out, sizeof out);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 1);
    assert_string_equal(out, "bench: out of memory\n");
}

static void test_alloc_xstrndup_copies_at_most_n(void **state)
{
    (void)state;
    char *s = xstrndup("abcdef", 3);
    assert_string_equal(s, "abc");
    free(s);
    s = xstrdup("");
    assert_string_equal(s, "");
    free(s);
}

static void test_error_prefix_puts_context_in_front(void **state)
{
    (void)state;
    bench_error e;
    assert_int_equal(err_set(&e, "%s failed: %s", "Purchase", "no such order"), -1);
    assert_int_equal(err_prefix(&e, "run %d, timed cycle %d, ", 2, 7), -1);
    assert_string_equal(e.msg, "run 2, timed cycle 7, Purchase failed: no such order");
}

static void test_error_prefix_cuts_only_at_the_capacity(void **state)
{
    (void)state;
    bench_error e;
    char longer[2 * BENCH_ERROR_MAX];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    err_set(&e, "%s", longer);
    assert_int_equal(strlen(e.msg), BENCH_ERROR_MAX - 1);
    err_prefix(&e, "run 1: ");
    assert_int_equal(strlen(e.msg), BENCH_ERROR_MAX - 1);
    assert_memory_equal(e.msg, "run 1: xxx", 10);
    /* a short message survives whole, however many levels add context */
    err_set(&e, "%s", "the store failed");
    for (int i = 0; i < 3; i++)
        err_prefix(&e, "level %d: ", i);
    assert_string_equal(e.msg, "level 2: level 1: level 0: the store failed");
    /* on a small (buf, size) pair: the prefix first, the message cut at the end */
    char small[12] = "message";
    err_prefix_buf(small, sizeof small, "ctx: ");
    assert_string_equal(small, "ctx: messag");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_out_of_memory_prints_one_line_and_exits_1),
        cmocka_unit_test(test_alloc_xcalloc_overflow_is_out_of_memory),
        cmocka_unit_test(test_alloc_xstrndup_copies_at_most_n),
        cmocka_unit_test(test_alloc_calloc_lines_owns_whole_cache_lines),
        cmocka_unit_test(test_error_prefix_puts_context_in_front),
        cmocka_unit_test(test_error_prefix_cuts_only_at_the_capacity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
