/* compile_common.c: what the compiler's files share (compile.c for the
 * domain, compile_work.c for the workload, compile_targets.c for its
 * targets): identifiers, strings, and the lookups of names the domain
 * declared. */
#include "compile_common.h"

bool cc_ident(cc *c, const node *n, const char *what)
{
    const char *s = n->text;
    bool ok = n->kind == NODE_STRING && n->len > 0 &&
              ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_');
    for (size_t i = 1; ok && i < n->len; i++) {
        char ch = s[i];
        ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
             ch == '_';
    }
    if (!ok)
        diag_error_at(c->d, n, "%s '%s' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)", what,
                      n->text);
    return ok;
}

const char *cc_string(cc *c, const node *n, const char *what)
{
    if (!n || n->kind != NODE_STRING) {
        diag_error_at(c->d, n, "%s must be a string", what);
        return NULL;
    }
    return n->text;
}

aggregate *cc_find_agg(cc *c, const char *name)
{
    return name_index_get(&c->aggs, name);
}

const command *plan_find_verb(const plan *p, const char *verb)
{
    return name_index_get(&p->verbs, verb);
}
