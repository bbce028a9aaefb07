/* compile_targets.c: the workload's targets. A target is found in the
 * registry by its name, and its options are read as its driver declares
 * them (targets/target.h): the schema check has already refused an option
 * the driver does not have or a value of the wrong shape (the schema's
 * target definition is made from the same declarations), so this turns
 * each option into its value and checks what the schema cannot: verbs that
 * exist, labels, the values a driver's check refuses, and options given
 * together that exclude each other. */
#include <stdio.h>
#include <string.h>

#include "compile_common.h"
#include "target.h"

/* An argv element that starts with ./ or ../ names a file beside the spec:
 * it resolves against the spec's directory, so that the spec runs from any
 * working directory. Any other element is passed as written (a bare name
 * is looked up on PATH, a/b is relative to the working directory). */
static const char *beside_spec(cc *c, const char *arg)
{
    const char *spec = c->p->path, *slash = spec ? strrchr(spec, '/') : NULL;
    bool dot = !strncmp(arg, "./", 2), dotdot = !strncmp(arg, "../", 3);
    if (!slash || !(dot || dotdot)) /* a spec in the working directory, or on stdin */
        return arg;
    size_t dir = (size_t)(slash - spec), len = dir + 1 + strlen(arg) + 1;
    char *out = arena_alloc(c->a, len);
    snprintf(out, len, "%.*s/%s", (int)dir, spec, dot ? arg + 2 : arg);
    return out;
}

static int option_value(cc *c, const target_driver *d, const node_pair *pr, target_opt_value *v)
{
    const node *k = pr->key, *n = pr->value;
    const target_option *o = NULL;
    for (size_t i = 0; i < d->noptions && !o; i++)
        if (!strcmp(d->options[i].name, k->text))
            o = &d->options[i];
    if (!o) {
        diag_error_at(c->d, k, "the %s target has no option '%s'", d->name, k->text);
        return -1;
    }
    *v = (target_opt_value){.name = o->name, .at = n};
    switch (o->type) {
    case TARGET_OPT_STRING:
    case TARGET_OPT_ENUM:
        if (n->kind != NODE_STRING)
            break;
        v->s = n->text;
        return 0;
    case TARGET_OPT_INT:
        if (n->kind != NODE_INT || n->v.i < o->min)
            break;
        v->i = n->v.i;
        return 0;
    case TARGET_OPT_BOOL:
        if (n->kind != NODE_BOOL)
            break;
        v->b = n->v.b;
        return 0;
    case TARGET_OPT_ARGV: {
        if (n->kind != NODE_SEQ || n->count == 0)
            break;
        const char **argv = arena_alloc(c->a, (n->count + 1) * sizeof *argv);
        for (size_t i = 0; i < n->count; i++)
            argv[i] = beside_spec(c, n->items[i]->text);
        v->argv = argv;
        return 0;
    }
    case TARGET_OPT_TRIES: {
        const node *m = n->kind == NODE_MAP ? node_get(n, "max_tries") : NULL;
        if (!m || n->count != 1 || m->kind != NODE_INT || m->v.i < o->min)
            break;
        v->i = m->v.i;
        return 0;
    }
    case TARGET_OPT_VERBS: {
        if (n->kind != NODE_MAP)
            break;
        const char **keys = arena_alloc(c->a, (n->count + 1) * sizeof *keys);
        const char **vals = arena_alloc(c->a, (n->count + 1) * sizeof *vals);
        for (size_t i = 0; i < n->count; i++) {
            const node *verb = n->pairs[i].key;
            if (!plan_find_verb(c->p, verb->text)) {
                diag_error_at(c->d, verb, "unknown command '%s'", verb->text);
                return -1;
            }
            keys[i] = verb->text;
            vals[i] = n->pairs[i].value->text;
        }
        v->keys = keys, v->vals = vals, v->n = n->count;
        return 0;
    }
    }
    diag_error_at(c->d, n, "the %s target's option %s does not take this value", d->name, o->name);
    return -1;
}

static int target_options(cc *c, target_spec *t, const node *opts)
{
    if (!opts || opts->kind != NODE_MAP)
        return 0;
    target_opt_value *vals = arena_alloc(c->a, (opts->count + 1) * sizeof *vals);
    int rc = 0;
    for (size_t i = 0; i < opts->count; i++) {
        const node_pair *pr = &opts->pairs[i];
        if (!strcmp(pr->key->text, "label")) {
            if (pr->value->kind == NODE_STRING)
                t->label = pr->value->text;
        } else if (option_value(c, t->driver, pr, &vals[t->nopts]) < 0) {
            rc = -1;
        } else {
            t->nopts++;
        }
    }
    t->opts = vals;
    for (size_t i = 0; rc == 0 && i < t->nopts; i++) {
        const target_opt_value *v = &vals[i];
        const target_option *o = target_spec_option(t, v->name);
        char why[512];
        if (o->check && v->s && o->check(v->s, why, sizeof why) < 0) {
            diag_error_at(c->d, v->at, "the %s target's option %s: %s", t->driver->name, o->name,
                          why);
            rc = -1;
        } else if (o->excludes && target_opt_given(t, o->excludes)) {
            diag_error_at(c->d, v->at, "the %s target takes %s or %s, not both", t->driver->name,
                          o->excludes, o->name);
            rc = -1;
        }
    }
    if (rc == 0 && (t->label[strcspn(t->label, ". \t")] || !t->label[0])) {
        /* metric names are DOMAIN.LABEL.FIELD, and labels are table cells */
        diag_error_at(c->d, node_get(opts, "label"),
                      "a label cannot be empty or contain a dot or a space: '%s'", t->label);
        return -1;
    }
    return rc;
}

static int compile_target(cc *c, const node *item, target_spec *t)
{
    const node *name = item, *opts = NULL;
    if (item->kind == NODE_MAP) {
        if (item->count != 1) {
            diag_error_at(c->d, item, "a target is a name or {name: {options}}");
            return -1;
        }
        name = item->pairs[0].key;
        opts = item->pairs[0].value;
    }
    if (name->kind == NODE_NULL && !strcmp(name->text, "null")) {
        /* YAML reads a plain `null` as no value; here it can only mean the target */
    } else if (name->kind != NODE_STRING) {
        diag_error_at(c->d, name, "a target is a name or {name: {options}}");
        return -1;
    }
    const target_driver *d = target_find(name->text);
    if (!d) {
        size_t n;
        const target_driver *const *all = target_all(&n);
        const char *names[16];
        size_t k = 0;
        for (size_t i = 0; i < n && k < sizeof names / sizeof *names; i++)
            names[k++] = all[i]->name;
        const char *hint = diag_suggest(name->text, names, k);
        if (hint)
            diag_error_at(c->d, name, "unknown target '%s' (did you mean '%s'?)", name->text, hint);
        else
            diag_error_at(c->d, name, "unknown target '%s'; the targets are %s", name->text,
                          target_names());
        return -1;
    }
    t->name = d->name;
    t->label = d->name;
    t->driver = d;
    t->at = item;
    return target_options(c, t, opts);
}

int cc_targets(cc *c, const node *list)
{
    workload *w = &c->p->work;
    if (!list) {
        size_t n;
        const target_driver *const *all = target_all(&n);
        w->targets = arena_alloc(c->a, sizeof *w->targets);
        if (n)
            w->targets[0] =
                (target_spec){.name = all[0]->name, .label = all[0]->name, .driver = all[0]};
        w->ntargets = n ? 1 : 0;
        return 0;
    }
    size_t n = list->kind == NODE_SEQ ? list->count : 0;
    w->targets = arena_alloc(c->a, (n ? n : 1) * sizeof *w->targets);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        target_spec *t = &w->targets[w->ntargets];
        *t = (target_spec){0}; /* the slot of an entry that failed is used again */
        if (compile_target(c, list->items[i], t) < 0) {
            rc = -1;
            continue;
        }
        for (size_t j = 0; j < w->ntargets; j++)
            if (!strcmp(w->targets[j].label, t->label)) {
                diag_error_at(c->d, list->items[i],
                              "two targets are labelled '%s'; give one a distinct label", t->label);
                rc = -1;
            }
        w->ntargets++;
    }
    return rc;
}
