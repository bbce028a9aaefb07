#include "spec.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

#include "jsonschema.h"
#include "lint.h"
#include "target.h"

extern const char spec_schema_json[];
extern const size_t spec_schema_json_len;

static cJSON *schema_root;

static void free_schema(void)
{
    cJSON_Delete(schema_root);
    schema_root = NULL;
}

/* The embedded schema with its target definition made from the drivers'
 * declarations (the file's copy of it is for editors; a test keeps the two
 * equal), so that the schema check takes each target's options from its
 * driver. */
const cJSON *spec_schema(void)
{
    if (!schema_root) {
        schema_root = cJSON_ParseWithLength(spec_schema_json, spec_schema_json_len);
        cJSON *defs = cJSON_GetObjectItemCaseSensitive(schema_root, "definitions");
        cJSON *targets = target_schema();
        if (!defs || !targets || !cJSON_ReplaceItemInObjectCaseSensitive(defs, "target", targets)) {
            cJSON_Delete(targets);
            cJSON_Delete(schema_root);
            schema_root = NULL;
        }
        if (schema_root) {
            atexit(free_schema);
            jschema_keep(schema_root);
        }
    }
    return schema_root;
}

/* The checks after loading, for spec_open and spec_check_text. */
static spec_status spec_checked(const char *path, int rc, diag_list *d, spec *out);

spec_status spec_open(const char *path, diag_list *d, spec *out)
{
    out->dc = NULL;
    out->p = NULL;
    return spec_checked(path, load_file(path, &out->dc, d), d, out);
}

spec_status spec_check_text(const char *name, const char *text, size_t len, diag_list *d, spec *out)
{
    out->dc = NULL;
    out->p = NULL;
    spec_status st = spec_checked(name, load_string(name, text, len, &out->dc, d), d, out);
    if (st == SPEC_OK && lint_dry_run(out->p, d) < 0)
        st = SPEC_INVALID;
    return st;
}

static spec_status spec_checked(const char *path, int rc, diag_list *d, spec *out)
{
    if (rc == LOAD_IO)
        return SPEC_IO;
    if (rc != LOAD_OK)
        return SPEC_INVALID;
    if (out->dc->root->kind == NODE_NULL) {
        diag_add(d, DIAG_ERROR, path, 1, 1,
                 "the spec is empty; a spec is a mapping that starts with 'spec: 1'");
        return SPEC_INVALID;
    }
    const cJSON *schema = spec_schema();
    if (!schema) {
        diag_add(d, DIAG_ERROR, path, 0, 0, "the embedded schema is broken (a build error)");
        return SPEC_INVALID;
    }
    if (!jschema_validate(schema, out->dc->root, d))
        return SPEC_INVALID;
    rc = plan_compile(out->dc, d, &out->p);
    lint_workload_warnings(out->dc->root, d);
    if (rc < 0 || lint_policies(out->p, d) < 0)
        return SPEC_INVALID;
    return SPEC_OK;
}

void spec_close(spec *s)
{
    if (s->p)
        plan_free(s->p); /* frees the document too */
    else
        doc_free(s->dc);
    s->p = NULL;
    s->dc = NULL;
}

spec_status spec_check(const char *path, diag_list *d, spec *out)
{
    spec_status st = spec_open(path, d, out);
    if (st == SPEC_OK && lint_dry_run(out->p, d) < 0)
        st = SPEC_INVALID;
    return st;
}
