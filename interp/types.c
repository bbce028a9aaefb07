#include "types.h"

#include <stdio.h>
#include <string.h>

const ty ty_int = {.kind = TY_INT, .name = "int"};
const ty ty_string = {.kind = TY_STRING, .name = "string"};
const ty ty_bool = {.kind = TY_BOOL, .name = "bool"};

bool ty_compatible(const ty *a, const ty *b)
{
    if (a == b)
        return true;
    if (!a || !b || a->kind != b->kind)
        return false;
    switch (a->kind) {
    case TY_INT:
    case TY_STRING:
    case TY_BOOL: return true;
    case TY_ENUM:
        if (a->nvalues != b->nvalues)
            return false;
        for (size_t i = 0; i < a->nvalues; i++)
            if (strcmp(a->values[i], b->values[i]) != 0)
                return false;
        return true;
    case TY_STRUCT:
        if (a->nfields != b->nfields)
            return false;
        for (size_t i = 0; i < a->nfields; i++)
            if (strcmp(a->fields[i].name, b->fields[i].name) != 0 ||
                !ty_compatible(a->fields[i].type, b->fields[i].type))
                return false;
        return true;
    case TY_LIST: return ty_compatible(a->elem, b->elem);
    }
    return false;
}

const char *ty_describe(const ty *t, char *buf, size_t size)
{
    static char sbuf[256];
    if (!buf) {
        buf = sbuf;
        size = sizeof sbuf;
    }
    if (t->name || t->refines) {
        snprintf(buf, size, "%s", t->name ? t->name : t->refines);
        return buf;
    }
    size_t n = 0;
    switch (t->kind) {
    case TY_INT: snprintf(buf, size, "int"); break;
    case TY_STRING: snprintf(buf, size, "string"); break;
    case TY_BOOL: snprintf(buf, size, "bool"); break;
    case TY_ENUM:
        n = (size_t)snprintf(buf, size, "enum [");
        for (size_t i = 0; i < t->nvalues && n < size; i++)
            n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "", t->values[i]);
        if (n < size)
            snprintf(buf + n, size - n, "]");
        break;
    case TY_STRUCT:
        n = (size_t)snprintf(buf, size, "struct {");
        for (size_t i = 0; i < t->nfields && n < size; i++)
            n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "", t->fields[i].name);
        if (n < size)
            snprintf(buf + n, size - n, "}");
        break;
    case TY_LIST: {
        char inner[128];
        snprintf(buf, size, "list of %s", ty_describe(t->elem, inner, sizeof inner));
        break;
    }
    }
    return buf;
}

int ty_field_index(const ty *s, const char *name)
{
    if (!s || s->kind != TY_STRUCT)
        return -1;
    for (size_t i = 0; i < s->nfields; i++)
        if (strcmp(s->fields[i].name, name) == 0)
            return (int)i;
    return -1;
}

int ty_enum_index(const ty *e, const char *v, size_t len)
{
    if (!e || e->kind != TY_ENUM)
        return -1;
    for (size_t i = 0; i < e->nvalues; i++)
        if (strlen(e->values[i]) == len && memcmp(e->values[i], v, len) == 0)
            return (int)i;
    return -1;
}
