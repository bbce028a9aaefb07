/* spec_schema.c: the schema of one spec's domain (`bench schema SPEC`): the
 * embedded schema, with a step's keys made the domain's verbs, each with its
 * parameters, their types and which are required, so that an editor offers
 * the verbs and their arguments and flags a verb the domain does not have;
 * a policy's `when` and `run` are the domain's events and commands. */
#include "spec.h"

#include <cjson/cJSON.h>
#include <stdio.h>

#include "plan.h"
#include "types.h"

/* A templated scalar: exactly one ${...}, which may feed an int or a bool
 * (docs/spec.md, "Templates"). */
static cJSON *template_schema(void)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "type", "string");
    cJSON_AddStringToObject(t, "pattern", "^\\$\\{[^}]+\\}$");
    return t;
}

/* value, or a template standing for one */
static cJSON *or_template(cJSON *constant)
{
    cJSON *s = cJSON_CreateObject(), *any = cJSON_AddArrayToObject(s, "anyOf");
    cJSON_AddItemToArray(any, constant);
    cJSON_AddItemToArray(any, template_schema());
    return s;
}

static cJSON *type_schema(const ty *t);

static void add_description(cJSON *s, const ty *t, const char *about)
{
    char buf[256], text[512];
    const char *what = ty_describe(t, buf, sizeof buf);
    if (about)
        snprintf(text, sizeof text, "%s: %s", what, about);
    else
        snprintf(text, sizeof text, "%s", what);
    cJSON_AddStringToObject(s, "description", text);
}

/* A struct's fields as properties; those neither optional nor defaulted are
 * required. */
static cJSON *struct_schema(const ty *t)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "type", "object");
    cJSON *props = cJSON_AddObjectToObject(s, "properties");
    cJSON *req = cJSON_CreateArray();
    for (size_t i = 0; i < t->nfields; i++) {
        const field *f = &t->fields[i];
        const node *about = node_get(f->at, "about");
        cJSON *fs = type_schema(f->type);
        add_description(fs, f->type, about && about->kind == NODE_STRING ? about->text : NULL);
        cJSON_AddItemToObject(props, f->name, fs);
        if (!f->optional && !f->has_default)
            cJSON_AddItemToArray(req, cJSON_CreateString(f->name));
    }
    if (cJSON_GetArraySize(req) > 0)
        cJSON_AddItemToObject(s, "required", req);
    else
        cJSON_Delete(req);
    cJSON_AddFalseToObject(s, "additionalProperties");
    return s;
}

/* What a step may give for a value of type t: a constant of that type, or
 * (for scalars) a template. */
static cJSON *type_schema(const ty *t)
{
    cJSON *s;
    switch (t->kind) {
    case TY_INT:
        s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "type", "integer");
        if (t->has_min)
            cJSON_AddNumberToObject(s, "minimum", (double)t->min);
        if (t->has_max)
            cJSON_AddNumberToObject(s, "maximum", (double)t->max);
        return or_template(s);
    case TY_BOOL:
        s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "type", "boolean");
        return or_template(s);
    case TY_ENUM:
        s = cJSON_CreateObject();
        cJSON_AddItemToObject(s, "enum", cJSON_CreateStringArray(t->values, (int)t->nvalues));
        return or_template(s);
    case TY_STRING: /* templates may appear anywhere in it: no constraints */
        s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "type", "string");
        return s;
    case TY_STRUCT: return struct_schema(t);
    case TY_LIST:
        s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "type", "array");
        cJSON_AddItemToObject(s, "items", type_schema(t->elem));
        if (t->has_max_items)
            cJSON_AddNumberToObject(s, "maxItems", (double)t->max_items);
        return s;
    }
    return cJSON_CreateObject();
}

/* A verb's arguments: its parameters. */
static cJSON *verb_schema(const command *cmd)
{
    cJSON *s = struct_schema(cmd->params);
    const node *about = node_get(cmd->at, "about");
    char text[600];
    snprintf(text, sizeof text, "%s %s%s%s", cmd->query ? "query" : "command", cmd->verb,
             about && about->kind == NODE_STRING ? ": " : "",
             about && about->kind == NODE_STRING ? about->text : "");
    cJSON_AddStringToObject(s, "description", text);
    snprintf(text, sizeof text, "%s arguments", cmd->verb);
    cJSON_AddStringToObject(s, "title", text); /* what an editor calls its snippet */
    return s;
}

static void replace(cJSON *obj, const char *key, cJSON *with)
{
    if (cJSON_GetObjectItemCaseSensitive(obj, key))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, with);
    else
        cJSON_AddItemToObject(obj, key, with);
}

/* A step: one of the domain's verbs with its arguments, beside expect,
 * on_refusal and into as the embedded schema has them. */
static void domain_steps(cJSON *defs, const plan *p)
{
    cJSON *st = cJSON_GetObjectItemCaseSensitive(defs, "step");
    cJSON *props = cJSON_GetObjectItemCaseSensitive(st, "properties");
    for (size_t i = 0; i < p->ncommands; i++)
        cJSON_AddItemToObject(props, p->commands[i]->verb, verb_schema(p->commands[i]));
    cJSON_DeleteItemFromObjectCaseSensitive(st, "patternProperties");
}

/* A policy's when: the domain's events; its run: its commands (not queries). */
static void domain_policies(cJSON *defs, const plan *p)
{
    cJSON *props = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(defs, "policy"), "properties");
    const char *events[512], *commands[512];
    size_t nev = 0, ncmd = 0;
    for (size_t i = 0; i < p->nevents && nev < 512; i++)
        events[nev++] = p->events[i].name;
    for (size_t i = 0; i < p->ncommands && ncmd < 512; i++)
        if (!p->commands[i]->query)
            commands[ncmd++] = p->commands[i]->verb;
    static const char *const keys[] = {"when", "on"};
    for (size_t k = 0; k < 2 && nev > 0; k++) {
        cJSON *all = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(props, keys[k]), "allOf");
        cJSON *e = cJSON_CreateObject();
        cJSON_AddItemToObject(e, "enum", cJSON_CreateStringArray(events, (int)nev));
        cJSON_AddItemToArray(all, e);
    }
    if (ncmd == 0)
        return;
    cJSON *all =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(props, "run"), "allOf");
    cJSON *e = cJSON_CreateObject();
    cJSON_AddItemToObject(e, "enum", cJSON_CreateStringArray(commands, (int)ncmd));
    cJSON_AddItemToArray(all, e);
}

cJSON *spec_schema_for(const plan *p)
{
    const cJSON *base = spec_schema();
    cJSON *s = base ? cJSON_Duplicate(base, true) : NULL;
    cJSON *defs = cJSON_GetObjectItemCaseSensitive(s, "definitions");
    if (!defs || !cJSON_GetObjectItemCaseSensitive(defs, "step") ||
        !cJSON_GetObjectItemCaseSensitive(defs, "policy")) {
        cJSON_Delete(s);
        return NULL;
    }
    char text[512];
    snprintf(text, sizeof text, "bench workload spec, version 1, for the domain %s", p->domain);
    replace(s, "title", cJSON_CreateString(text));
    snprintf(text, sizeof text, "urn:bench:schema:spec:%s", p->domain);
    replace(s, "$id", cJSON_CreateString(text));
    domain_steps(defs, p);
    domain_policies(defs, p);
    return s;
}
