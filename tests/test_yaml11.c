/* test_yaml11.c: every bundled spec reads the same in a YAML 1.1 reader as in
 * bench (YAML 1.2's core schema). PyYAML, the YAML 1.1 reader most people
 * convert a spec to JSON with, reads yes, no, on, off, y and n as booleans
 * (and 0o17 or 1_000 otherwise than 1.2 does); the policy key `on` was renamed
 * `when` for it. Each spec under specs/ and examples/, and each ```yaml block
 * of docs/spec.md that bench loads, is converted to JSON by PyYAML and
 * compared node by node with bench's own tree: same keys, same kinds, same
 * scalars. Runs from the repository root; skips when PyYAML is missing. */
/* cmocka.h needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_spawn.h"
#include "load.h"
#include "test_util.h"

/* Reads each file named on the command line with PyYAML (YAML 1.1) and
 * prints {file: {"ok": true, "value": ...}} as JSON; a key PyYAML reads as
 * true is written "true", a date as its str(). */
static const char pyyaml_script[] =
    "import json, sys, yaml\n"
    "out = {}\n"
    "for p in sys.argv[1:]:\n"
    "    try:\n"
    "        with open(p, encoding='utf-8') as f:\n"
    "            out[p] = {'ok': True, 'value': yaml.safe_load(f)}\n"
    "    except yaml.YAMLError as e:\n"
    "        out[p] = {'ok': False, 'error': str(e)}\n"
    "json.dump(out, sys.stdout, default=str)\n";

enum { MAX_FILES = 256 };

typedef struct file_list {
    char *paths[MAX_FILES];
    size_t n;
} file_list;

static void add_path(file_list *l, const char *path)
{
    assert_true(l->n < MAX_FILES);
    l->paths[l->n++] = strdup(path);
}

/* Every *.yaml under dir, depth first. */
static void add_specs(file_list *l, const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        size_t len = strlen(e->d_name);
        if (S_ISDIR(st.st_mode))
            add_specs(l, path);
        else if (len > 5 && !strcmp(e->d_name + len - 5, ".yaml"))
            add_path(l, path);
    }
    closedir(d);
}

/* Each ```yaml block of doc written to its own file under BENCH_BUILD_DIR. */
static void add_doc_blocks(file_list *l, const char *md)
{
    char *text = read_file(md);
    assert_non_null(text);
    size_t k = 0;
    for (char *p = strstr(text, "```yaml\n"); p; p = strstr(p, "```yaml\n")) {
        p += 8;
        char *end = strstr(p, "```");
        assert_non_null(end);
        char path[512];
        snprintf(path, sizeof path, "%s/yaml11_%s_%zu.yaml", BENCH_BUILD_DIR,
                 strrchr(md, '/') ? strrchr(md, '/') + 1 : md, ++k);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fwrite(p, 1, (size_t)(end - p), f);
        fclose(f);
        add_path(l, path);
        p = end + 3;
    }
    free(text);
    assert_true(k > 0);
}

/* why with the path sub before it ("sub: why"); frees why. */
static char *under(const char *sub, char *why)
{
    char *both = malloc(strlen(sub) + strlen(why) + 3);
    assert_non_null(both);
    sprintf(both, "%s: %s", sub, why);
    free(why);
    return both;
}

/* NULL when the two readings agree, else a malloc'd sentence saying where
 * they part (at is the path so far). */
static char *differ(const node *n, const cJSON *j, const char *at)
{
    char *why = NULL;
    switch (n->kind) {
    case NODE_MAP:
        if (!cJSON_IsObject(j))
            return strdup("bench reads a mapping");
        for (size_t i = 0; i < n->count; i++) {
            const char *key = n->pairs[i].key->text;
            if (cJSON_GetObjectItemCaseSensitive(j, key))
                continue;
            const cJSON *k = j->child; /* the key PyYAML read in its place */
            while (k && node_get(n, k->string))
                k = k->next;
            char buf[600];
            snprintf(buf, sizeof buf, "line %d: PyYAML reads the key '%s' as '%s'",
                     n->pairs[i].key->line, key, k ? k->string : "?");
            return strdup(buf);
        }
        if ((size_t)cJSON_GetArraySize(j) != n->count)
            return strdup("PyYAML reads more keys");
        for (size_t i = 0; i < n->count && !why; i++) {
            const node_pair *p = &n->pairs[i];
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, p->key->text);
            char sub[512];
            snprintf(sub, sizeof sub, "%s.%s", at, p->key->text);
            if ((why = differ(p->value, v, sub)))
                return under(sub, why);
        }
        return NULL;
    case NODE_SEQ:
        if (!cJSON_IsArray(j) || (size_t)cJSON_GetArraySize(j) != n->count)
            return strdup("bench reads a sequence of another length");
        for (size_t i = 0; i < n->count && !why; i++) {
            char sub[512];
            snprintf(sub, sizeof sub, "%s[%zu]", at, i);
            if ((why = differ(n->items[i], cJSON_GetArrayItem(j, (int)i), sub)))
                return under(sub, why);
        }
        return NULL;
    case NODE_STRING:
        if (cJSON_IsString(j) && strlen(j->valuestring) == n->len &&
            !memcmp(j->valuestring, n->text, n->len))
            return NULL;
        break;
    case NODE_INT:
        if (cJSON_IsNumber(j) && j->valuedouble == (double)n->v.i)
            return NULL;
        break;
    case NODE_FLOAT:
        if (cJSON_IsNumber(j) && fabs(j->valuedouble - n->v.f) <= 1e-9 * fabs(n->v.f))
            return NULL;
        break;
    case NODE_BOOL:
        if (cJSON_IsBool(j) && cJSON_IsTrue(j) == n->v.b)
            return NULL;
        break;
    case NODE_NULL:
        if (cJSON_IsNull(j))
            return NULL;
        break;
    }
    char *printed = cJSON_PrintUnformatted(j);
    char buf[600];
    snprintf(buf, sizeof buf, "line %d: bench reads the %s '%.60s', PyYAML %.60s", n->line,
             node_kind_name(n->kind), n->text, printed ? printed : "?");
    free(printed);
    return strdup(buf);
}

static void test_yaml11_reads_every_bundled_spec_as_bench_does(void **state)
{
    (void)state;
    file_list l = {0};
    add_specs(&l, "specs");
    add_specs(&l, "examples");
    size_t nspecs = l.n;
    add_doc_blocks(&l, "docs/spec.md");

    char *argv[MAX_FILES + 4] = {"/usr/bin/env", "python3", "-c", (char *)pyyaml_script};
    for (size_t i = 0; i < l.n; i++)
        argv[4 + i] = l.paths[i];
    argv[4 + l.n] = NULL;
    spawn_output o = spawn_run(argv);
    if (o.status != 0 && strstr(o.err, "No module named 'yaml'")) {
        print_message("skipped: PyYAML is not installed (scripts/install-deps.sh installs "
                      "python3-yaml)\n");
        spawn_output_free(&o);
        for (size_t i = 0; i < l.n; i++)
            free(l.paths[i]);
        skip();
    }
    if (o.status != 0)
        fail_msg("python3 with PyYAML (%d):\n%s", o.status, o.err);
    cJSON *all = cJSON_Parse(o.out);
    assert_non_null(all);

    size_t compared = 0, failures = 0;
    for (size_t i = 0; i < l.n; i++) {
        const char *path = l.paths[i];
        const cJSON *got = cJSON_GetObjectItemCaseSensitive(all, path);
        assert_non_null(got);
        diag_list d = {0};
        doc *dc = NULL;
        int rc = load_file(path, &dc, &d);
        bool bundled = i < nspecs;
        if (rc != LOAD_OK || !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(got, "ok"))) {
            /* a doc block that is not a document on its own (an indented
               fragment) is left out; a bundled spec must load in both */
            if (bundled) {
                print_error("%s: does not load in %s\n", path, rc != LOAD_OK ? "bench" : "PyYAML");
                failures++;
            }
        } else {
            char *why = differ(dc->root, cJSON_GetObjectItemCaseSensitive(got, "value"), "");
            if (why) {
                print_error("%s: %s\n", path, why);
                failures++;
            }
            free(why);
            compared++;
        }
        doc_free(dc);
        diag_list_free(&d);
    }
    print_message("compared %zu files (%zu bundled specs)\n", compared, nspecs);
    cJSON_Delete(all);
    spawn_output_free(&o);
    for (size_t i = 0; i < l.n; i++)
        free(l.paths[i]);
    assert_int_equal(failures, 0);
    assert_true(nspecs >= 12);
    assert_true(compared > nspecs);
}

/* The check itself sees what a YAML 1.1 reader changes: the old key, a bare
 * no, an octal of YAML 1.2. */
static void test_yaml11_check_finds_what_pyyaml_reads_otherwise(void **state)
{
    (void)state;
    static const struct {
        const char *yaml, *why;
    } cases[] = {
        {"policies:\n  - {on: Lent, run: M.Count}\n",
         ".policies: .policies[0]: line 2: PyYAML reads the key 'on' as 'true'"},
        {"answer: no\n", ".answer: line 1: bench reads the string 'no', PyYAML false"},
        {"mode: 0o17\n", ".mode: line 1: bench reads the integer '0o17', PyYAML \"0o17\""},
        {"when: yes_please\n", NULL},
    };
    enum { N = sizeof cases / sizeof cases[0] };
    char paths[N][512];
    char *argv[N + 5] = {"/usr/bin/env", "python3", "-c", (char *)pyyaml_script};
    for (size_t i = 0; i < N; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/yaml11_case_%zu.yaml", BENCH_BUILD_DIR, i);
        FILE *f = fopen(paths[i], "wb");
        assert_non_null(f);
        fputs(cases[i].yaml, f);
        fclose(f);
        argv[4 + i] = paths[i];
    }
    argv[4 + N] = NULL;
    spawn_output o = spawn_run(argv);
    if (o.status != 0 && strstr(o.err, "No module named 'yaml'")) {
        spawn_output_free(&o);
        skip();
    }
    assert_int_equal(o.status, 0);
    cJSON *all = cJSON_Parse(o.out);
    assert_non_null(all);
    for (size_t i = 0; i < N; i++) {
        const cJSON *value = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(all, paths[i]), "value");
        diag_list d = {0};
        doc *dc = NULL;
        assert_int_equal(load_file(paths[i], &dc, &d), LOAD_OK);
        char *why = differ(dc->root, value, "");
        if (cases[i].why)
            assert_string_equal(why ? why : "(no difference)", cases[i].why);
        else
            assert_null(why);
        free(why);
        doc_free(dc);
        diag_list_free(&d);
    }
    cJSON_Delete(all);
    spawn_output_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_yaml11_reads_every_bundled_spec_as_bench_does),
        cmocka_unit_test(test_yaml11_check_finds_what_pyyaml_reads_otherwise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
