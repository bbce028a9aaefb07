/* test_report_write.c: writing output files (report_write.c): what
 * output_check says before a run, and what atomic_file does to a regular
 * file, a symlink (dangling too), a FIFO, a device and stdout. */
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

#include "report.h"

static char dir[64];

static int make_dir(void **state)
{
    snprintf(dir, sizeof dir, "/tmp/bench-test-write-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf -- '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *at(const char *name)
{
    static char path[2][128];
    static int which;
    which = !which;
    snprintf(path[which], sizeof path[which], "%s/%s", dir, name);
    return path[which];
}

static int put_text(FILE *out, const void *ctx)
{
    return fputs(ctx, out) < 0 ? -1 : 0;
}

static void assert_file_holds(const char *path, const char *want)
{
    char got[256] = "";
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(got, 1, sizeof got - 1, f);
    fclose(f);
    got[n] = '\0';
    assert_string_equal(got, want);
}

static void test_output_check_says_why_before_any_work(void **state)
{
    char err[512] = "";
    assert_int_equal(output_check("-", err, sizeof err), 0);
    assert_int_equal(output_check(at("new.json"), err, sizeof err), 0);
    assert_int_equal(output_check("/dev/null", err, sizeof err), 0);
    assert_int_equal(output_check(at("nodir/x.json"), err, sizeof err), -1);
    assert_non_null(strstr(err, "does not exist"));
    assert_int_equal(output_check(dir, err, sizeof err), -1);
    assert_non_null(strstr(err, "is a directory"));
    assert_int_equal(output_check("", err, sizeof err), -1);
    assert_int_equal(output_check("/proc/bench-out.json", NULL, 0), -1);
}

static void test_a_regular_file_keeps_its_mode(void **state)
{
    const char *path = at("mode.txt");
    assert_int_equal(write_atomic(path, put_text, "one\n", NULL, 0), 0);
    assert_int_equal(chmod(path, 0640), 0);
    assert_int_equal(write_atomic(path, put_text, "two\n", NULL, 0), 0);
    assert_file_holds(path, "two\n");
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
}

static void test_a_symlink_is_followed_and_kept(void **state)
{
    assert_int_equal(write_atomic(at("target.txt"), put_text, "old\n", NULL, 0), 0);
    assert_int_equal(symlink("target.txt", at("link.txt")), 0);
    assert_int_equal(output_check(at("link.txt"), NULL, 0), 0);
    assert_int_equal(write_atomic(at("link.txt"), put_text, "new\n", NULL, 0), 0);
    struct stat st;
    assert_int_equal(lstat(at("link.txt"), &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_file_holds(at("target.txt"), "new\n");

    /* a dangling link makes its target */
    assert_int_equal(symlink("made.txt", at("dangling.txt")), 0);
    assert_int_equal(output_check(at("dangling.txt"), NULL, 0), 0);
    assert_int_equal(write_atomic(at("dangling.txt"), put_text, "made\n", NULL, 0), 0);
    assert_int_equal(lstat(at("dangling.txt"), &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_file_holds(at("made.txt"), "made\n");
}

static void test_a_failed_write_leaves_the_old_file_and_no_temporary(void **state)
{
    const char *path = at("samples.csv");
    assert_int_equal(write_atomic(path, put_text, "old\n", NULL, 0), 0);
    atomic_file af;
    char err[512] = "";
    assert_int_equal(atomic_file_open(path, &af, err, sizeof err), 0);
    assert_non_null(af.tmp);
    fputs("half", af.f);
    atomic_file_abort(&af);
    assert_file_holds(path, "old\n");
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -q '^\\.samples\\.csv\\.'", dir);
    assert_int_not_equal(system(cmd), 0);
}

static void test_a_device_is_written_in_place(void **state)
{
    struct stat st;
    atomic_file af;
    char err[512] = "";
    assert_int_equal(atomic_file_open("/dev/null", &af, err, sizeof err), 0);
    assert_null(af.tmp);
    fputs("gone\n", af.f);
    assert_int_equal(atomic_file_commit(&af, err, sizeof err), 0);
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    if (stat("/dev/full", &st) != 0 || !S_ISCHR(st.st_mode))
        return;
    assert_int_equal(write_atomic("/dev/full", put_text, "lost\n", err, sizeof err), -1);
    assert_non_null(strstr(err, "No space left on device"));
    assert_int_equal(stat("/dev/full", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
}

static void test_a_directory_is_refused(void **state)
{
    char err[512] = "";
    assert_int_equal(write_atomic(dir, put_text, "x", err, sizeof err), -1);
    assert_non_null(strstr(err, "is a directory"));
}

static void test_the_fallback_is_named(void **state)
{
    setenv("TMPDIR", dir, 1);
    char path[512], err[512] = "";
    assert_int_equal(write_fallback("json", put_text, "{}\n", path, sizeof path, err, sizeof err),
                     0);
    assert_true(strncmp(path, dir, strlen(dir)) == 0);
    assert_non_null(strstr(path, "/bench-results-"));
    assert_non_null(strstr(path, ".json"));
    assert_file_holds(path, "{}\n");
}

int main(void)
{
#define T(f) cmocka_unit_test(f)
    const struct CMUnitTest tests[] = {
        T(test_output_check_says_why_before_any_work),
        T(test_a_regular_file_keeps_its_mode),
        T(test_a_symlink_is_followed_and_kept),
        T(test_a_failed_write_leaves_the_old_file_and_no_temporary),
        T(test_a_device_is_written_in_place),
        T(test_a_directory_is_refused),
        T(test_the_fallback_is_named),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
