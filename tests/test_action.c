/* test_action.c: action.yml, the GitHub Action, read with bench's own YAML
 * loader and run here as the runner would: its steps in order, each `run`
 * with `bash --noprofile --norc -eo pipefail` in a scratch workspace, its
 * env with the ${{ }} expressions the action uses put in (inputs, runner.temp,
 * github.action_ref; any other expression fails the test), its `if:` decided
 * (always(), inputs.X != '', and the default: every step before succeeded).
 * The one `uses` step, upload-artifact, is checked for what it uploads.
 * Three passes: without a baseline (its results become the next pass's
 * baseline), with one (compare and gate), and with a spec that has an error
 * (the lint step fails with an annotation and the later steps are skipped).
 * The build step builds a release bench under the build directory
 * (action-runner/), incrementally after the first time. */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_spawn.h"
#include "load.h"
#include "test_util.h"

static char srcdir[4096], workspace[64], runner_temp[4096];

typedef struct input {
    const char *name, *value;
} input;

static const node *action_root(doc **dc)
{
    diag_list d = {0};
    if (load_file("action.yml", dc, &d) != LOAD_OK)
        fail_msg("action.yml does not load: %s", d.count ? d.items[0].message : "?");
    diag_list_free(&d);
    return (*dc)->root;
}

static const char *text_of(const node *map, const char *key)
{
    const node *n = node_get(map, key);
    return n && n->kind != NODE_MAP && n->kind != NODE_SEQ ? n->text : NULL;
}

/* The value of input name: the pass's, else the action's default. */
static const char *input_value(const node *root, const input *in, const char *name)
{
    for (const input *i = in; i->name; i++)
        if (!strcmp(i->name, name))
            return i->value;
    const node *decl = node_get(node_get(root, "inputs"), name);
    if (!decl)
        fail_msg("action.yml has no input '%s'", name);
    const char *dflt = text_of(decl, "default");
    return dflt ? dflt : "";
}

/* s with each ${{ expr }} replaced; the caller frees. */
static char *substitute(const node *root, const input *in, const char *s)
{
    size_t cap = strlen(s) + 4096, len = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    while (*s) {
        const char *open = strstr(s, "${{");
        size_t lit = open ? (size_t)(open - s) : strlen(s);
        assert_true(len + lit < cap);
        memcpy(out + len, s, lit);
        len += lit;
        if (!open)
            break;
        const char *close = strstr(open, "}}");
        assert_non_null(close);
        char expr[128];
        snprintf(expr, sizeof expr, "%.*s", (int)(close - open - 3), open + 3);
        char *e = expr + strspn(expr, " "), *end = e + strlen(e);
        while (end > e && end[-1] == ' ')
            *--end = '\0';
        const char *v = !strncmp(e, "inputs.", 7)         ? input_value(root, in, e + 7)
                        : !strcmp(e, "runner.temp")       ? runner_temp
                        : !strcmp(e, "github.action_ref") ? ""
                                                          : NULL;
        if (!v)
            fail_msg("action.yml uses the expression '%s', which this test does not know", e);
        assert_true(len + strlen(v) < cap);
        memcpy(out + len, v, strlen(v));
        len += strlen(v);
        s = close + 2;
    }
    out[len] = '\0';
    return out;
}

/* A step's `if:`: terms joined by &&, each always(), success(), or
 * inputs.X != '' / == ''. *always says whether it runs after a failure. */
static bool condition(const node *root, const input *in, const char *cond, bool *always)
{
    *always = false;
    if (!cond)
        return true;
    bool result = true;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", cond);
    for (char *save = NULL, *t = strtok_r(buf, "&", &save); t; t = strtok_r(NULL, "&", &save)) {
        while (*t == ' ')
            t++;
        char name[64], op[3];
        if (!strncmp(t, "always()", 8)) {
            *always = true;
        } else if (!strncmp(t, "success()", 9)) {
        } else if (sscanf(t, "inputs.%63[a-z-] %2[!=] ''", name, op) == 2) {
            bool empty = !*input_value(root, in, name);
            result = result && (!strcmp(op, "==") ? empty : !empty);
        } else {
            fail_msg("action.yml has the condition '%s', which this test does not know", cond);
        }
    }
    return result;
}

typedef struct pass_result {
    int failed_step; /* index of the first step that failed, or -1 */
    int ran[16];     /* per step: 1 ran and passed, 2 ran and failed, 0 skipped */
    char *out;       /* every step's stdout and stderr */
    size_t out_len;
} pass_result;

static void check_upload(const node *root, const node *step)
{
    assert_string_equal(text_of(step, "uses"), "actions/upload-artifact@v4");
    const char *path = text_of(node_get(step, "with"), "path");
    assert_non_null(path);
    assert_non_null(strstr(path, "${{ inputs.results }}"));
    assert_non_null(strstr(path, "${{ inputs.html }}"));
    bool always;
    condition(root, NULL, text_of(step, "if"), &always);
    assert_true(always); /* the figures are kept when the gate fails */
}

static pass_result run_pass(const input *in)
{
    doc *dc;
    const node *root = action_root(&dc);
    assert_string_equal(text_of(node_get(root, "runs"), "using"), "composite");
    const node *steps = node_get(node_get(root, "runs"), "steps");
    assert_true(steps && steps->kind == NODE_SEQ && steps->count <= 16);
    char summary[128];
    snprintf(summary, sizeof summary, "%s/summary.md", workspace);
    setenv("GITHUB_ACTION_PATH", srcdir, 1);
    setenv("GITHUB_WORKSPACE", workspace, 1);
    setenv("GITHUB_STEP_SUMMARY", summary, 1);
    setenv("RUNNER_TEMP", runner_temp, 1);
    pass_result r = {.failed_step = -1, .out = calloc(1, 1)};
    for (size_t i = 0; i < steps->count; i++) {
        const node *step = steps->items[i];
        bool always;
        bool wanted = condition(root, in, text_of(step, "if"), &always);
        if (text_of(step, "uses")) {
            check_upload(root, step);
            continue;
        }
        const char *run = text_of(step, "run");
        assert_non_null(run);
        assert_string_equal(text_of(step, "shell"), "bash");
        if (strstr(run, "${{")) /* inputs go through env: nothing is spliced into a script */
            fail_msg("step %zu splices an expression into its script", i + 1);
        if (!wanted || (r.failed_step >= 0 && !always))
            continue;
        const node *env = node_get(step, "env");
        for (size_t k = 0; env && k < env->count; k++) {
            char *v = substitute(root, in, env->pairs[k].value->text);
            setenv(env->pairs[k].key->text, v, 1);
            free(v);
        }
        char *argv[] = {"/bin/bash", "--noprofile", "--norc",    "-eo",
                        "pipefail",  "-c",          (char *)run, NULL};
        spawn_options opt = {.cwd = workspace};
        spawn_output o = spawn_run_with(argv, &opt);
        for (size_t k = 0; env && k < env->count; k++)
            unsetenv(env->pairs[k].key->text);
        char head[256];
        int n = snprintf(head, sizeof head, "--- step %zu (%s): exit %d\n", i + 1,
                         text_of(step, "name"), o.status);
        spawn_append(&r.out, &r.out_len, head, (size_t)n);
        spawn_append(&r.out, &r.out_len, o.out, o.out_len);
        spawn_append(&r.out, &r.out_len, o.err, o.err_len);
        r.ran[i] = o.status == 0 ? 1 : 2;
        if (o.status != 0 && r.failed_step < 0)
            r.failed_step = (int)i;
        spawn_output_free(&o);
    }
    doc_free(dc);
    return r;
}

static void copy_file(const char *from, const char *to)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
    assert_int_equal(system(cmd), 0);
}

/* The file at path (test_util.h's read_file), or NULL when there is none. */
static char *slurp(const char *path)
{
    return access(path, F_OK) == 0 ? read_file(path) : NULL;
}

static char *ws_path(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", workspace, name);
    return path;
}

static int make_workspace(void **state)
{
    if (!getcwd(srcdir, sizeof srcdir))
        return -1;
    snprintf(workspace, sizeof workspace, "/tmp/bench-test-action-XXXXXX");
    if (!mkdtemp(workspace))
        return -1;
    snprintf(runner_temp, sizeof runner_temp, "%s/action-runner", BENCH_BUILD_DIR);
    mkdir(runner_temp, 0777);
    char dir[128];
    snprintf(dir, sizeof dir, "%s/specs", workspace);
    mkdir(dir, 0777);
    snprintf(dir, sizeof dir, "%s/bad", workspace);
    mkdir(dir, 0777);
    return 0;
}

static int remove_workspace(void **state)
{
    spawn_remove_dir(workspace);
    return 0;
}

static const input first_pass[] = {{"specs", "specs/*.yaml"},
                                   {"run-args", "--iterations 2000 --warmup 100 --runs 3"},
                                   {"results", "out/results.json"},
                                   {"html", "out/report.html"},
                                   {NULL, NULL}};

static void fail_pass(pass_result *r, const char *why)
{
    print_error("%s\n%s\n", why, r->out);
    free(r->out);
    fail();
}

/* No baseline: install, build, lint, run, report; no compare or gate. */
static void test_action_runs_without_a_baseline(void **state)
{
    copy_file("specs/pizzas.yaml", ws_path("specs/pizzas.yaml"));
    copy_file("specs/banking.yaml", ws_path("specs/banking.yaml"));
    pass_result r = run_pass(first_pass);
    if (r.failed_step >= 0)
        fail_pass(&r, "a step failed");
    char *page = slurp(ws_path("out/report.html"));
    char *results = slurp(ws_path("out/results.json"));
    if (!page || !strstr(page, "<html") || !results || !strstr(results, "\"banking\""))
        fail_pass(&r, "no report or no results with both specs");
    if (!strstr(r.out, "bench 0.1.0 (commit ") || strstr(r.out, "(commit unknown"))
        fail_pass(&r, "the build does not name its commit");
    free(page);
    free(results);
    char from[256];
    snprintf(from, sizeof from, "%s", ws_path("out/results.json"));
    assert_int_equal(rename(from, ws_path("baseline.json")), 0);
    free(r.out);
}

/* With the first pass's results as the baseline: compare to the summary, gate. */
static void test_action_gates_against_a_baseline(void **state)
{
    static const input with_baseline[] = {{"specs", "specs/*.yaml"},
                                          {"run-args", "--iterations 2000 --warmup 100 --runs 3"},
                                          {"results", "out/results.json"},
                                          {"html", "out/report.html"},
                                          {"baseline", "baseline.json"},
                                          {"metrics", "*.throughput_per_s=90 *.p50_us=900"},
                                          {NULL, NULL}};
    unlink(ws_path("summary.md"));
    pass_result r = run_pass(with_baseline);
    if (r.failed_step >= 0)
        fail_pass(&r, "a step failed");
    char *summary = slurp(ws_path("summary.md"));
    if (!summary || !strstr(summary, "## bench compare"))
        fail_pass(&r, "no comparison in the job summary");
    if (!strstr(r.out, "gate: ok:"))
        fail_pass(&r, "the gate did not run");
    free(summary);
    free(r.out);
}

/* A spec with an error: the lint step fails with an annotation at its line,
 * the steps after it are skipped but for the always() ones. */
static void test_action_lint_failure_annotates_and_stops(void **state)
{
    FILE *f = fopen(ws_path("bad/broken.yaml"), "w");
    assert_non_null(f);
    fputs("spec: 1\ndomain: kiosk\naggregates:\n  Ticket:\n    identity: id\n"
          "    fields: {id: string}\n    commands:\n      Print: {creates: true, params: {id: "
          "string}}\nworkload:\n  cycle:\n    - Ticket.Prnt: {id: \"t-${n}\"}\n",
          f);
    assert_int_equal(fclose(f), 0);
    static const input bad[] = {{"specs", "bad/*.yaml"},
                                {"results", "out/bad.json"},
                                {"html", "out/bad.html"},
                                {NULL, NULL}};
    pass_result r = run_pass(bad);
    if (r.failed_step != 2) /* install, build, lint */
        fail_pass(&r, "the lint step should have failed");
    if (!strstr(r.out, "::error file=bad/broken.yaml,line=11,col=7::unknown command 'Ticket.Prnt'"))
        fail_pass(&r, "no annotation for the error");
    if (r.ran[3] != 0 || access(ws_path("out/bad.json"), F_OK) == 0)
        fail_pass(&r, "the run step ran after lint failed");
    free(r.out);
}

/* examples/ci/bench.yml: Chromium left out for the whole job, git before
 * the checkout, and only inputs the action has. */
static void test_example_workflow_fits_the_action(void **state)
{
    doc *wf, *act;
    diag_list d = {0};
    assert_int_equal(load_file("examples/ci/bench.yml", &wf, &d), LOAD_OK);
    const node *root = action_root(&act);
    const node *job = node_get(node_get(wf->root, "jobs"), "bench");
    assert_non_null(job);
    assert_string_equal(text_of(node_get(job, "env"), "BENCH_WITH_CHROMIUM"), "0");
    const node *steps = node_get(job, "steps");
    assert_true(steps && steps->kind == NODE_SEQ && steps->count == 3);
    const char *first = text_of(steps->items[0], "run");
    assert_true(first && strstr(first, "apt-get install") && strstr(first, " git"));
    assert_string_equal(text_of(steps->items[1], "uses"), "actions/checkout@v4");
    const char *uses = text_of(steps->items[2], "uses");
    assert_true(uses && strstr(uses, "/bench@"));
    const node *with = node_get(steps->items[2], "with"), *inputs = node_get(root, "inputs");
    assert_non_null(with);
    for (size_t i = 0; i < with->count; i++)
        if (!node_get(inputs, with->pairs[i].key->text))
            fail_msg("examples/ci/bench.yml gives the action an input it does not have: %s",
                     with->pairs[i].key->text);
    for (size_t i = 0; i < inputs->count; i++) { /* what a user reads in the input list */
        const node *decl = inputs->pairs[i].value;
        assert_non_null(text_of(decl, "description"));
        if (node_get(decl, "required") && node_get(decl, "required")->v.b)
            assert_non_null(node_get(with, inputs->pairs[i].key->text));
    }
    doc_free(wf);
    doc_free(act);
    diag_list_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_action_runs_without_a_baseline),
        cmocka_unit_test(test_action_gates_against_a_baseline),
        cmocka_unit_test(test_action_lint_failure_annotates_and_stops),
        cmocka_unit_test(test_example_workflow_fits_the_action),
    };
    return cmocka_run_group_tests(tests, make_workspace, remove_workspace);
}
