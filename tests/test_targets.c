/* test_targets.c: what the drivers declare (names, options, capabilities),
 * the registry's checks, the schema made from the declarations, options in
 * force. */
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

#include "plan_fixture.h"
#include "spec.h"
#include "store_driver.h"
#include "target.h"
#include "test_util.h"

static void test_every_driver_passes_the_registry_check(void **state)
{
    (void)state;
    size_t n;
    const target_driver *const *all = target_all(&n);
    assert_int_equal(n, 5);
    static const char *const names[] = {"memory", "null", "sqlite", "postgres", "process"};
    for (size_t i = 0; i < n; i++) {
        char why[256] = "";
        assert_string_equal(all[i]->name, names[i]);
        assert_int_equal(target_driver_check(all[i], why, sizeof why), 0);
        assert_ptr_equal(target_find(names[i]), all[i]);
    }
    const char *const *rn, *const *rr;
    assert_int_equal(target_refused(&rn, &rr), 0);
    assert_string_equal(target_names(), "memory, null, sqlite, postgres, process");
    assert_string_equal(store_names(), "memory, sqlite, postgres");
    assert_ptr_equal(store_default(), store_find("memory"));
    assert_null(store_find("null")); /* a target, not a store */
    assert_ptr_equal(target_harness(), target_find("null"));
}

static int no_open(const target_driver *self, const plan *p, const target_spec *ts, int run,
                   target **out, char *err, size_t size)
{
    (void)self, (void)p, (void)ts, (void)run, (void)out, (void)err, (void)size;
    return TARGET_ERROR;
}

static int no_dispatch(target *t, const command *cmd, const value *args)
{
    (void)t, (void)cmd, (void)args;
    return TARGET_ERROR;
}

static void no_close(target *t)
{
    (void)t;
}

static int no_count(target *t, uint64_t *aggs, uint64_t *events)
{
    (void)t, (void)aggs, (void)events;
    return TARGET_ERROR;
}

static int refuse_all(const char *text, char *why, size_t size)
{
    (void)text;
    snprintf(why, size, "never");
    return -1;
}

static void test_the_registry_refuses_a_driver_of_another_version(void **state)
{
    (void)state;
    static const target_option twice[] = {
        {.name = "depth", .type = TARGET_OPT_INT, .about = "how deep"},
        {.name = "depth", .type = TARGET_OPT_INT, .about = "how deep again"},
    };
    static const target_option enum_without_values[] = {
        {.name = "mode", .type = TARGET_OPT_ENUM, .about = "which mode"},
    };
    static const target_option named_label[] = {
        {.name = "label", .type = TARGET_OPT_STRING, .about = "clashes with every target's"},
    };
    static const target_option excludes_nothing[] = {
        {.name = "host", .type = TARGET_OPT_STRING, .about = "where", .excludes = "path"},
    };
    static const target_option excludes_itself[] = {
        {.name = "host", .type = TARGET_OPT_STRING, .about = "where", .excludes = "host"},
    };
    static const target_option checked_int[] = {
        {.name = "depth", .type = TARGET_OPT_INT, .about = "how deep", .check = refuse_all},
    };
    static const struct {
        target_driver d;
        const char *why;
    } cases[] = {
        {{.version = 1,
          .name = "old",
          .about = "a",
          .open = no_open,
          .dispatch = no_dispatch,
          .close = no_close},
         "built for target interface version 1; this bench has version 7"},
        {{.version = TARGET_DRIVER_VERSION,
          .name = "Bad-Name",
          .about = "a",
          .open = no_open,
          .dispatch = no_dispatch,
          .close = no_close},
         "the driver 'Bad-Name' lacks a name, an about line, open, dispatch or close"},
        {{.version = TARGET_DRIVER_VERSION,
          .name = "liar",
          .about = "a",
          .open = no_open,
          .dispatch = no_dispatch,
          .close = no_close,
          .caps = TARGET_CAN_COUNT},
         "the liar target's capabilities do not match its callbacks"},
        {{.version = TARGET_DRIVER_VERSION,
          .name = "quiet",
          .about = "a",
          .open = no_open,
          .dispatch = no_dispatch,
          .close = no_close,
          .count = no_count},
         "the quiet target's capabilities do not match its callbacks"},
        {{.version = TARGET_DRIVER_VERSION,
          .name = "blind",
          .about = "a",
          .open = no_open,
          .dispatch = no_dispatch,
          .close = no_close,
          .caps = TARGET_CAN_READ_BACK},
         "the blind target's capabilities do not match its callbacks"},
        {{.version = TARGET_DRIVER_VERSION,
          .name = "mute",
          .about = "a",
          .open = no_open,
          .dispatch = no_dispatch,
          .close = no_close,
          .caps = TARGET_CAN_QUERY},
         "the mute target's capabilities do not match its callbacks"},
        {{.version = TARGET_DRIVER_VERSION,
          .name = "skimmer",
          .about = "a",
          .open = no_open,
          .dispatch = no_dispatch,
          .close = no_close,
          .caps = TARGET_CAN_SCAN},
         "the skimmer target declares scans but not queries, whose answers they are"},
        {{.version = TARGET_DRIVER_VERSION,
          .name = "twice",
          .about = "a",
          .open = no_open,
          .dispatch = no_dispatch,
          .close = no_close,
          .options = twice,
          .noptions = 2},
         "the twice target declares the option depth twice"},
        {{.version = TARGET_DRIVER_VERSION,
          .name = "mode",
          .about = "a",
          .open = no_open,
          .dispatch = no_dispatch,
          .close = no_close,
          .options = enum_without_values,
          .noptions = 1},
         "the mode target's option mode: only an enum has values, and it needs one"},
        {{.version = TARGET_DRIVER_VERSION,
          .name = "lbl",
          .about = "a",
          .open = no_open,
          .dispatch = no_dispatch,
          .close = no_close,
          .options = named_label,
          .noptions = 1},
         "the lbl target declares an option named 'label'"},
        {{.version = TARGET_DRIVER_VERSION,
          .name = "ex",
          .about = "a",
          .open = no_open,
          .dispatch = no_dispatch,
          .close = no_close,
          .options = excludes_nothing,
          .noptions = 1},
         "the ex target's option host excludes 'path', which is not another of its options"},
        {{.version = TARGET_DRIVER_VERSION,
          .name = "self",
          .about = "a",
          .open = no_open,
          .dispatch = no_dispatch,
          .close = no_close,
          .options = excludes_itself,
          .noptions = 1},
         "the self target's option host excludes 'host', which is not another of its options"},
        {{.version = TARGET_DRIVER_VERSION,
          .name = "chk",
          .about = "a",
          .open = no_open,
          .dispatch = no_dispatch,
          .close = no_close,
          .options = checked_int,
          .noptions = 1},
         "the chk target's option depth: only a string option has a check"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char why[256] = "";
        assert_int_equal(target_driver_check(&cases[i].d, why, sizeof why), -1);
        assert_string_equal(why, cases[i].why);
    }
}

/* schema/spec.schema.json is for editors; the schema in force takes its
 * target definition from the drivers. The two must not drift. */
static void test_the_schema_file_holds_the_drivers_target_definition(void **state)
{
    (void)state;
    char *text = read_file("schema/spec.schema.json");
    cJSON *file = cJSON_Parse(text);
    free(text);
    assert_non_null(file);
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(file, "definitions"), "target");
    cJSON *got = target_schema();
    if (!cJSON_Compare(want, got, true)) {
        char *print = cJSON_Print(got);
        fail_msg("schema/spec.schema.json's definitions.target differs from the drivers' "
                 "declarations (`bench schema` prints them):\n%s",
                 print);
    }
    const cJSON *in_force = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(spec_schema(), "definitions"), "target");
    assert_true(cJSON_Compare(in_force, got, true));
    cJSON_Delete(got);
    cJSON_Delete(file);
}

static void test_options_in_force_come_from_the_declaration(void **state)
{
    (void)state;
    static const target_opt_value given[] = {
        {.name = "durability", .s = "normal"},
        {.name = "durability", .s = "off"}, /* the last one given wins */
    };
    const target_spec sq = {.name = "sqlite", .label = "sqlite", .opts = given, .nopts = 2};
    assert_string_equal(target_opt_str(&sq, "durability"), "off");
    assert_false(target_opt_bool(&sq, "keep")); /* declared default false */
    assert_null(target_opt_str(&sq, "dsn"));    /* sqlite has none */
    assert_null(target_spec_option(&sq, "dsn"));
    const target_spec pr = {.name = "process", .label = "process"};
    assert_true(target_opt_int(&pr, "timeout_ms", 0) == 5000);
    assert_null(target_opt_argv(&pr, "command"));
    char buf[64];
    assert_string_equal(
        target_opt_text(&pr, target_spec_option(&pr, "timeout_ms"), buf, sizeof buf), "5000");
    assert_null(target_opt_text(&pr, target_spec_option(&pr, "command"), buf, sizeof buf));
    const target_spec mem = {.name = "memory", .label = "memory"};
    assert_null(target_opt_str(&mem, "durability")); /* the report prints none for it */
}

static void test_the_stores_and_process_declare_their_options(void **state)
{
    (void)state;
    static const struct {
        const char *target;
        const char *options; /* in declaration order */
        unsigned caps;
    } cases[] = {
        {"memory", "reserve",
         TARGET_CAN_COUNT | TARGET_CAN_READ_BACK | TARGET_CAN_QUERY | TARGET_CAN_SCAN |
             TARGET_CAN_SESSIONS},
        {"null", "",
         TARGET_CAN_QUERY | TARGET_CAN_SCAN | TARGET_ACCEPTS_ALL | TARGET_HARNESS |
             TARGET_CAN_SESSIONS},
        {"sqlite", "durability keep file",
         TARGET_CAN_COUNT | TARGET_CAN_READ_BACK | TARGET_CAN_QUERY | TARGET_CAN_SCAN |
             TARGET_CAN_SESSIONS},
        {"postgres", "dsn durability fence keep schema isolation retry",
         TARGET_CAN_COUNT | TARGET_CAN_READ_BACK | TARGET_CAN_QUERY | TARGET_CAN_SCAN |
             TARGET_CAN_SESSIONS},
        {"process", "command verbs verb_prefix connect reset timeout_ms",
         TARGET_CAN_COUNT | TARGET_CAN_READ_BACK | TARGET_CAN_PROBE | TARGET_CAN_QUERY |
             TARGET_CAN_SCAN | TARGET_CAN_SESSIONS | TARGET_ONE_CPU},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const target_driver *d = target_find(cases[i].target);
        char names[256] = "";
        for (size_t k = 0; k < d->noptions; k++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? " " : "",
                     d->options[k].name);
        assert_string_equal(names, cases[i].options);
        assert_int_equal(d->caps, cases[i].caps);
        assert_int_equal(d->store != NULL, store_find(cases[i].target) != NULL);
    }
}

/* A target that runs queries but not scans is skipped for a spec with a
 * scan, with one sentence; without scans it runs the spec. */
static void test_a_target_without_scans_cannot_run_a_scan(void **state)
{
    (void)state;
    static const char head[] = "spec: 1\n"
                               "domain: d\n"
                               "aggregates:\n"
                               "  User:\n"
                               "    identity: key\n"
                               "    fields: {key: string}\n"
                               "    commands:\n"
                               "      Add: {creates: true, params: {key: string}}\n"
                               "    queries:\n";
    static const char tail[] = "workload:\n"
                               "  cycle:\n"
                               "    - User.Add: {key: \"u${n}\"}\n";
    char with_scan[1024], without[1024];
    snprintf(with_scan, sizeof with_scan,
             "%s      Scan: {params: {key: string, count: int}, scan: {limit: count}, returns: "
             "{key: key}}\n%s",
             head, tail);
    snprintf(without, sizeof without,
             "%s      Look: {params: {key: string}, returns: {key: key}}\n%s", head, tail);
    target_driver reader = {.name = "reader", .caps = TARGET_CAN_QUERY};
    plan *p = fx_compile(with_scan);
    char why[128] = "";
    assert_false(target_runs_plan(&reader, p, why, sizeof why));
    assert_string_equal(why, "the reader target cannot run scans");
    assert_true(target_runs_plan(target_find("memory"), p, why, sizeof why));
    assert_true(plan_scans(p, &p->aggs[0]));
    plan_free(p);
    p = fx_compile(without);
    assert_true(target_runs_plan(&reader, p, why, sizeof why));
    assert_false(plan_scans(p, NULL));
    plan_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_target_without_scans_cannot_run_a_scan),
        cmocka_unit_test(test_every_driver_passes_the_registry_check),
        cmocka_unit_test(test_the_registry_refuses_a_driver_of_another_version),
        cmocka_unit_test(test_the_schema_file_holds_the_drivers_target_definition),
        cmocka_unit_test(test_options_in_force_come_from_the_declaration),
        cmocka_unit_test(test_the_stores_and_process_declare_their_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
