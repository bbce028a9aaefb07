/* test_env.c: what env_collect finds on this machine, and the CPU list that
 * `--cpu` reporting reuses. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
/* cmocka.h needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <math.h>
#include <regex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"

static void assert_matches(const char *s, const char *pattern)
{
    regex_t re;
    assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
    int rc = regexec(&re, s, 0, NULL, 0);
    regfree(&re);
    if (rc != 0)
        fail_msg("\"%s\" does not match %s", s, pattern);
}

/* How many CPUs a list such as "0-1,4" names. */
static int cpus_in_list(const char *list)
{
    int count = 0;
    const char *p = list;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        assert_true(b >= a);
        count += (int)(b - a + 1);
        p = *end == ',' ? end + 1 : end;
    }
    return count;
}

static void test_env_collect_fills_what_this_machine_has(void **state)
{
    environment e;
    memset(&e, 0, sizeof e);
    snprintf(e.label, sizeof e.label, "mine");
    env_collect(&e);
    assert_true(e.cores >= 1);
    assert_true(e.memory_bytes > 0);
    assert_true(strlen(e.kernel) > 0);
    assert_true(strlen(e.cpu_model) > 0);
    assert_true(strlen(e.os) > 0);
    assert_true(strlen(e.clock_source) > 0);
    assert_matches(e.affinity, "^[0-9,-]+$");
    assert_matches(e.date, "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$");
    assert_matches(e.libraries, "^libyaml [0-9.]+, SQLite [0-9.]+, PCRE2 [0-9.]+, "
                                "cJSON [0-9.]+$");
    assert_matches(e.build_flags, "^(not )?optimised, assertions (on|off), sanitizers ");
    assert_true(strlen(e.compiler) > 0 && strcmp(e.compiler, "unknown") != 0);
    assert_true(strlen(e.version) > 0);
    assert_true(strlen(e.commit) > 0);
    assert_string_equal(e.label, "mine"); /* left to the CLI */
    assert_string_equal(e.postgres, "");  /* left to the postgres target */
    for (int i = 0; i < 3; i++) {
        assert_true(isnan(e.load_before[i]) || e.load_before[i] >= 0);
        assert_true(isnan(e.load_after[i])); /* until env_load_after */
    }
    env_load_after(&e);
    for (int i = 0; i < 3; i++)
        assert_true(isnan(e.load_after[i]) || e.load_after[i] >= 0);
}

static void test_env_affinity_lists_the_cpus_in_force(void **state)
{
    cpu_set_t saved;
    assert_int_equal(sched_getaffinity(0, sizeof saved, &saved), 0);
    char buf[256];
    assert_int_equal(env_affinity_string(buf, sizeof buf), 0);
    assert_matches(buf, "^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$");
    assert_int_equal(cpus_in_list(buf), CPU_COUNT(&saved));

    /* pinned to one CPU (as --cpu does), the list says so */
    int first = 0;
    while (!CPU_ISSET(first, &saved))
        first++;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    int rc = env_affinity_string(buf, sizeof buf);
    assert_int_equal(sched_setaffinity(0, sizeof saved, &saved), 0);
    assert_int_equal(rc, 0);
    char want[16];
    snprintf(want, sizeof want, "%d", first);
    assert_string_equal(buf, want);
}

static void test_env_affinity_too_small_a_buffer(void **state)
{
    char buf[1] = {'x'};
    assert_int_equal(env_affinity_string(buf, sizeof buf), -1);
    assert_string_equal(buf, "");
    assert_int_equal(env_affinity_string(buf, 0), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_collect_fills_what_this_machine_has),
        cmocka_unit_test(test_env_affinity_lists_the_cpus_in_force),
        cmocka_unit_test(test_env_affinity_too_small_a_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
