/* target_options.c: a target entry's options as its driver declares them
 * (the value in force, its text), and the JSON Schema of a target entry
 * made from the declarations. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target.h"

/* ---- options ---- */

const target_driver *target_spec_driver(const target_spec *ts)
{
    return ts->driver ? ts->driver : target_find(ts->name);
}

const target_option *target_spec_option(const target_spec *ts, const char *name)
{
    return target_driver_option(target_spec_driver(ts), name);
}

const char *target_opt_str(const target_spec *ts, const char *name)
{
    const target_opt_value *v = target_opt_given(ts, name);
    if (v && v->s)
        return v->s;
    const target_option *o = target_spec_option(ts, name);
    return o ? o->dflt : NULL;
}

int64_t target_opt_int(const target_spec *ts, const char *name, int64_t fallback)
{
    return target_driver_opt_int(target_spec_driver(ts), ts, name, fallback);
}

bool target_opt_bool(const target_spec *ts, const char *name)
{
    const target_opt_value *v = target_opt_given(ts, name);
    if (v)
        return v->b;
    const target_option *o = target_spec_option(ts, name);
    return o && o->dflt && !strcmp(o->dflt, "true");
}

const char *const *target_opt_argv(const target_spec *ts, const char *name)
{
    const target_opt_value *v = target_opt_given(ts, name);
    return v ? v->argv : NULL;
}

static void put(char *buf, size_t n, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void put(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
    if (*len >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *len, n - *len, fmt, ap);
    va_end(ap);
    *len += k > 0 ? (size_t)k : 0;
}

const char *target_opt_text(const target_spec *ts, const target_option *o, char *buf, size_t n)
{
    const target_opt_value *v = target_opt_given(ts, o->name);
    size_t len = 0;
    if (n)
        buf[0] = '\0';
    if (!v)
        return o->dflt ? (snprintf(buf, n, "%s", o->dflt), buf) : NULL;
    switch (o->type) {
    case TARGET_OPT_STRING:
    case TARGET_OPT_ENUM: put(buf, n, &len, "%s", v->s ? v->s : ""); break;
    case TARGET_OPT_INT: put(buf, n, &len, "%" PRId64, v->i); break;
    case TARGET_OPT_BOOL: put(buf, n, &len, "%s", v->b ? "true" : "false"); break;
    case TARGET_OPT_ARGV:
        for (size_t i = 0; v->argv && v->argv[i]; i++)
            put(buf, n, &len, "%s%s", i ? " " : "", v->argv[i]);
        break;
    case TARGET_OPT_TRIES: put(buf, n, &len, "max_tries %" PRId64, v->i); break;
    case TARGET_OPT_VERBS:
        for (size_t i = 0; i < v->n; i++)
            put(buf, n, &len, "%s%s as %s", i ? ", " : "", v->keys[i], v->vals[i]);
        break;
    }
    return buf;
}

/* ---- the schema of a target entry ---- */

static cJSON *option_schema(const target_option *o)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "description", o->about);
    switch (o->type) {
    case TARGET_OPT_STRING:
        cJSON_AddStringToObject(s, "type", "string");
        cJSON_AddNumberToObject(s, "minLength", 1);
        break;
    case TARGET_OPT_INT:
        cJSON_AddStringToObject(s, "type", "integer");
        cJSON_AddNumberToObject(s, "minimum", (double)o->min);
        break;
    case TARGET_OPT_BOOL: cJSON_AddStringToObject(s, "type", "boolean"); break;
    case TARGET_OPT_ENUM: {
        cJSON *e = cJSON_AddArrayToObject(s, "enum");
        for (size_t i = 0; o->values[i]; i++)
            cJSON_AddItemToArray(e, cJSON_CreateString(o->values[i]));
        break;
    }
    case TARGET_OPT_ARGV: {
        cJSON_AddStringToObject(s, "type", "array");
        cJSON_AddNumberToObject(s, "minItems", 1);
        cJSON *items = cJSON_AddObjectToObject(s, "items");
        cJSON_AddStringToObject(items, "type", "string");
        break;
    }
    case TARGET_OPT_TRIES: {
        cJSON_AddStringToObject(s, "type", "object");
        cJSON *req = cJSON_AddArrayToObject(s, "required");
        cJSON_AddItemToArray(req, cJSON_CreateString("max_tries"));
        cJSON_AddFalseToObject(s, "additionalProperties");
        cJSON *tries =
            cJSON_AddObjectToObject(cJSON_AddObjectToObject(s, "properties"), "max_tries");
        cJSON_AddStringToObject(tries, "description",
                                "tries of a command in all, the first included");
        cJSON_AddStringToObject(tries, "type", "integer");
        cJSON_AddNumberToObject(tries, "minimum", (double)o->min);
        break;
    }
    case TARGET_OPT_VERBS: {
        cJSON_AddStringToObject(s, "type", "object");
        cJSON *names = cJSON_AddObjectToObject(s, "propertyNames");
        cJSON_AddStringToObject(names, "$ref", "#/definitions/verb");
        cJSON *vals = cJSON_AddObjectToObject(s, "additionalProperties");
        cJSON_AddStringToObject(vals, "type", "string");
        cJSON_AddNumberToObject(vals, "minLength", 1);
        break;
    }
    }
    if (o->dflt) {
        if (o->type == TARGET_OPT_BOOL)
            cJSON_AddBoolToObject(s, "default", !strcmp(o->dflt, "true"));
        else if (o->type == TARGET_OPT_INT)
            cJSON_AddNumberToObject(s, "default", (double)strtoll(o->dflt, NULL, 10));
        else
            cJSON_AddStringToObject(s, "default", o->dflt);
    }
    return s;
}

static cJSON *driver_schema(const target_driver *d)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "description", d->about);
    cJSON_AddStringToObject(s, "type", "object");
    cJSON *props = cJSON_AddObjectToObject(s, "properties");
    cJSON *label = cJSON_AddObjectToObject(props, "label");
    cJSON_AddStringToObject(label, "description",
                            "The name of this entry's row in reports and metric names; default "
                            "the target's name. No dots or spaces; two entries cannot share a "
                            "label.");
    cJSON_AddStringToObject(label, "type", "string");
    cJSON_AddNumberToObject(label, "minLength", 1);
    for (size_t i = 0; i < d->noptions; i++)
        cJSON_AddItemToObject(props, d->options[i].name, option_schema(&d->options[i]));
    cJSON_AddBoolToObject(s, "additionalProperties", false);
    return s;
}

cJSON *target_schema(void)
{
    size_t n;
    const target_driver *const *all = target_all(&n);
    char about[768];
    snprintf(about, sizeof about,
             "A target to run on: its name (%s), or a mapping with exactly one key, the name, "
             "whose value holds its options (each target has its own; `bench targets` lists "
             "them). A plain `null` (which YAML reads as no value) means the null target.",
             target_names());
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "description", about);
    cJSON *type = cJSON_AddArrayToObject(s, "type");
    cJSON_AddItemToArray(type, cJSON_CreateString("string"));
    cJSON_AddItemToArray(type, cJSON_CreateString("object"));
    cJSON_AddItemToArray(type, cJSON_CreateString("null"));
    cJSON_AddNumberToObject(s, "minProperties", 1);
    cJSON_AddNumberToObject(s, "maxProperties", 1);
    cJSON *props = cJSON_AddObjectToObject(s, "properties");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToObject(props, all[i]->name, driver_schema(all[i]));
    cJSON_AddBoolToObject(s, "additionalProperties", false);
    return s;
}
