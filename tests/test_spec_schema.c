/* test_spec_schema.c: the schemas as other tools read them. `bench schema
 * SPEC` (spec_schema.c) checked by bench's own validator: a step's verb must
 * be one of the domain's, with its parameters. Then the peers, through
 * tests/schema_peer.sh (pinned by tests/schema_peer/package-lock.json, npm
 * ci): ajv-cli in strict mode compiles schema/spec.schema.json,
 * schema/result.schema.json, schema/protocol.schema.json and `bench schema
 * specs/pizzas.yaml`'s output, and validates the bundled specs against the
 * general and their own schema; yaml-language-server, driven over stdio as an
 * editor drives it, offers pizzas' verbs at a new step and their parameters
 * in a step's arguments, flags a misspelt verb, and labels no completion
 * "[object Object]". The peers skip (status 77) only when npm cannot reach
 * its registry outside CI. Runs from the repository root. */
/* cmocka.h needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_spawn.h"
#include "jsonschema.h"
#include "spec.h"

static char pizzas_schema[512]; /* `bench schema specs/pizzas.yaml`, written once */

/* ---- the per-spec schema, by bench's own validator ---- */

static const char step_yaml[] = "spec: 1\n"
                                "domain: pizzas\n"
                                "aggregates: {}\n"
                                "workload:\n"
                                "  cycle:\n"
                                "    - %s\n";

/* The errors of validating the step text against schema, on the step's line
 * (the rest of this small spec is not the point). */
static char *validate_step(const cJSON *schema, const char *step_text)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml, step_yaml, step_text);
    doc *dc = NULL;
    diag_list d = {0};
    assert_int_equal(load_string("step.yaml", yaml, strlen(yaml), &dc, &d), LOAD_OK);
    jschema_validate(schema, dc->root, &d);
    diag_sort(&d);
    char *out = calloc(1, 4096);
    assert_non_null(out);
    for (size_t i = 0; i < d.count; i++)
        if (d.items[i].severity == DIAG_ERROR && d.items[i].line == 6) {
            size_t len = strlen(out);
            snprintf(out + len, 4096 - len, "%d:%d: %s\n", d.items[i].line, d.items[i].col,
                     d.items[i].message);
        }
    doc_free(dc);
    diag_list_free(&d);
    return out;
}

static void test_spec_schema_steps_are_the_domains_verbs(void **state)
{
    (void)state;
    diag_list d = {0};
    spec s;
    assert_int_equal(spec_open("specs/pizzas.yaml", &d, &s), SPEC_OK);
    cJSON *schema = spec_schema_for(s.p);
    assert_non_null(schema);
    static const struct {
        const char *step, *errors; /* "" when valid */
    } cases[] = {
        {"Order.CreatePizza: {name: p, pizza: {price_cents: 1200, size: large}}", ""},
        {"Order.CreatePizza: {name: \"p-${n}\", pizza: {price_cents: \"${n}\", size: small}}", ""},
        {"{Order.Purchase: {name: p, customer_name: C, amount: 1}, expect: refused}", ""},
        {"Order.Bake: {name: p}", "6:7: unknown key 'Order.Bake'"},
        {"Order.CreatePizza: {name: p}", "6:26: missing required key 'pizza'"},
        {"Order.CreatePizza: {name: p, pizza: {price_cents: 1, size: huge}}",
         "6:66: 'huge' is not one of: small, large"},
        {"Order.CreatePizza: {name: p, pizza: {price_cents: -1, size: large}}",
         "6:57: -1 is less than the minimum 0"},
        {"Order.AddTopping: {name: p, topping: Basil, amount: 1, extra: 1}",
         "6:62: unknown key 'extra'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = validate_step(schema, cases[i].step);
        if (!cases[i].errors[0] ? got[0] != '\0' : !strstr(got, cases[i].errors))
            fail_msg("%s\n  want: %s\n  got:  %s", cases[i].step,
                     cases[i].errors[0] ? cases[i].errors : "(valid)", got);
        free(got);
    }
    /* the general schema takes any verb */
    char *got = validate_step(spec_schema(), "Order.Bake: {name: p}");
    assert_string_equal(got, "");
    free(got);
    /* every bundled spec is valid against its own schema */
    static const char *const bundled[] = {"specs/pizzas.yaml", "specs/banking.yaml",
                                          "examples/library.yaml", "examples/cart.yaml"};
    for (size_t i = 0; i < sizeof bundled / sizeof bundled[0]; i++) {
        diag_list d2 = {0};
        spec s2;
        assert_int_equal(spec_open(bundled[i], &d2, &s2), SPEC_OK);
        cJSON *own = spec_schema_for(s2.p);
        diag_list d3 = {0};
        if (!jschema_validate(own, s2.p->source->root, &d3))
            fail_msg("%s: not valid against its own schema: %s", bundled[i],
                     d3.count ? d3.items[0].message : "?");
        diag_list_free(&d3);
        cJSON_Delete(own);
        spec_close(&s2);
        diag_list_free(&d2);
    }
    cJSON_Delete(schema);
    spec_close(&s);
    diag_list_free(&d);
}

/* ---- the peers ---- */

/* Runs tests/schema_peer.sh with args; skips the test on status 77. */
static spawn_output peer(const char *const *args)
{
    char *argv[32] = {"/bin/sh", "tests/schema_peer.sh", BENCH_BUILD_DIR};
    size_t n = 3;
    for (; args[n - 3]; n++)
        argv[n] = (char *)args[n - 3];
    argv[n] = NULL;
    spawn_output o = spawn_run(argv);
    if (o.status == 77) {
        print_message("%s", o.err);
        spawn_output_free(&o);
        skip();
    }
    return o;
}

static void write_pizzas_schema(void)
{
    snprintf(pizzas_schema, sizeof pizzas_schema, "%s/pizzas.schema.json", BENCH_BUILD_DIR);
    char *argv[] = {(char *)spawn_bench_path(), "schema", "specs/pizzas.yaml", NULL};
    spawn_output o = spawn_run(argv);
    assert_int_equal(o.status, 0);
    FILE *f = fopen(pizzas_schema, "wb");
    assert_non_null(f);
    fwrite(o.out, 1, o.out_len, f);
    fclose(f);
    spawn_output_free(&o);
}

static void test_ajv_strict_compiles_every_schema(void **state)
{
    (void)state;
    write_pizzas_schema();
    const char *const schemas[] = {"schema/spec.schema.json", "schema/result.schema.json",
                                   "schema/protocol.schema.json", pizzas_schema};
    for (size_t i = 0; i < sizeof schemas / sizeof schemas[0]; i++) {
        /* ajv's default strict mode, then every strict check an error
           (union types, which the schemas use on purpose, allowed) */
        const char *plain[] = {"ajv", "compile", "-s", schemas[i], NULL};
        const char *strict[] = {"ajv",
                                "compile",
                                "-s",
                                schemas[i],
                                "--strict-types=true",
                                "--strict-tuples=true",
                                "--allow-union-types",
                                NULL};
        const char *const *runs[] = {plain, strict};
        for (size_t k = 0; k < 2; k++) {
            spawn_output o = peer(runs[k]);
            if (o.status != 0 || !strstr(o.out, "is valid") ||
                (k == 1 && (strstr(o.out, "strict mode") || strstr(o.err, "strict mode"))))
                fail_msg("ajv %s %s (%d):\n%s\n%s", k ? "strict" : "default", schemas[i], o.status,
                         o.out, o.err);
            spawn_output_free(&o);
        }
    }
}

static void test_ajv_validates_the_bundled_specs(void **state)
{
    (void)state;
    write_pizzas_schema();
    const char *general[] = {
        "ajv", "validate",     "-s", "schema/spec.schema.json", "--allow-union-types",
        "-d",  "specs/*.yaml", "-d", "examples/**/*.yaml",      NULL};
    spawn_output o = peer(general);
    if (o.status != 0 || strstr(o.out, "invalid") || strstr(o.err, "invalid"))
        fail_msg("ajv validate (%d):\n%s\n%s", o.status, o.out, o.err);
    spawn_output_free(&o);
    /* against its own schema; and a misspelt verb is refused */
    const char *own[] = {"ajv", "validate",          "-s", pizzas_schema, "--allow-union-types",
                         "-d",  "specs/pizzas.yaml", NULL};
    o = peer(own);
    if (o.status != 0)
        fail_msg("ajv validate pizzas (%d):\n%s\n%s", o.status, o.out, o.err);
    spawn_output_free(&o);
    char wrong[512];
    snprintf(wrong, sizeof wrong, "%s/pizzas-wrong-verb.yaml", BENCH_BUILD_DIR);
    char *text = NULL;
    {
        FILE *f = fopen("specs/pizzas.yaml", "rb");
        assert_non_null(f);
        text = calloc(1, 1 << 16);
        assert_non_null(text);
        size_t n = fread(text, 1, (1 << 16) - 1, f);
        text[n] = '\0';
        fclose(f);
    }
    char *at = strstr(text, "- Order.AddTopping:");
    assert_non_null(at);
    memcpy(at + 2, "Order.AddTopingg:", 17);
    FILE *f = fopen(wrong, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    free(text);
    const char *bad[] = {"ajv", "validate", "-s", pizzas_schema, "--allow-union-types",
                         "-d",  wrong,      NULL};
    o = peer(bad);
    if (o.status == 0 || !strstr(o.err, "must NOT have additional properties") ||
        !strstr(o.err, "Order.AddTopingg"))
        fail_msg("ajv validate of a misspelt verb (%d):\n%s\n%s", o.status, o.out, o.err);
    spawn_output_free(&o);
}

/* The line of out that starts with prefix, without it (malloc'd), or NULL. */
static char *line_of(const char *out, const char *prefix)
{
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, prefix, strlen(prefix)) != 0)
            continue;
        const char *v = p + strlen(prefix), *end = strchr(v, '\n');
        return strndup(v, end ? (size_t)(end - v) : strlen(v));
    }
    return NULL;
}

static void expect_line(const spawn_output *o, const char *prefix, const char *want, bool exact)
{
    char *got = line_of(o->out, prefix);
    if (!got || (exact ? strcmp(got, want) != 0 : !strstr(got, want)))
        fail_msg("yaml-language-server: '%s' %s '%s'; it printed:\n%s\n%s", prefix,
                 exact ? "is not" : "lacks", want, o->out, o->err);
    free(got);
}

static void test_yaml_language_server_completes_verbs(void **state)
{
    (void)state;
    write_pizzas_schema();
    const char *args[] = {"lsp", pizzas_schema, "specs/pizzas.yaml", NULL};
    spawn_output o = peer(args);
    if (o.status != 0)
        fail_msg("lsp_check (%d):\n%s\n%s", o.status, o.out, o.err);
    expect_line(&o, "clean: ", "0", true);
    expect_line(&o, "verbs: ", "Order.CreatePizza Order.AddTopping Order.Purchase", true);
    expect_line(&o, "args: ", "name", false);
    expect_line(&o, "args: ", "pizza", false);
    expect_line(&o, "unknown: ", "Order.CreatePizzax is not allowed", false);
    expect_line(&o, "object-labels: ", "0", true);
    spawn_output_free(&o);

    /* the general schema: no verbs to offer, but no "[object Object]" either */
    const char *general[] = {"lsp", "schema/spec.schema.json", "specs/pizzas.yaml", NULL};
    o = peer(general);
    if (o.status != 0)
        fail_msg("lsp_check (%d):\n%s\n%s", o.status, o.out, o.err);
    expect_line(&o, "clean: ", "0", true);
    expect_line(&o, "object-labels: ", "0", true);
    spawn_output_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_schema_steps_are_the_domains_verbs),
        cmocka_unit_test(test_ajv_strict_compiles_every_schema),
        cmocka_unit_test(test_ajv_validates_the_bundled_specs),
        cmocka_unit_test(test_yaml_language_server_completes_verbs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
