/* plan_print.c: `bench plan`: the compiled plan as a reviewer reads it
 * (text) or as a program reads it (JSON). */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "plan.h"
#include "target.h"
#include "value.h"

/* ---- shared pieces ---- */

static void type_constraints(const ty *t, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
#define ADD(...) (n += (n < size ? (size_t)snprintf(buf + n, size - n, __VA_ARGS__) : 0))
    if (t->has_min)
        ADD(", min %" PRId64, t->min);
    if (t->has_max)
        ADD(", max %" PRId64, t->max);
    if (t->has_min_len)
        ADD(", min_length %" PRId64, t->min_len);
    if (t->has_max_len)
        ADD(", max_length %" PRId64, t->max_len);
    if (t->pattern)
        ADD(", pattern %s", t->pattern);
    if (t->has_max_items)
        ADD(", max_items %" PRId64, t->max_items);
#undef ADD
}

/* "int (min 0)", "Pizza", "list of Topping" */
static void type_line(const ty *t, char *buf, size_t size)
{
    char desc[256], cons[256];
    ty_describe(t, desc, sizeof desc);
    type_constraints(t, cons, sizeof cons);
    if (cons[0] && !t->name)
        snprintf(buf, size, "%s (%s)", desc, cons + 2);
    else
        snprintf(buf, size, "%s", desc);
}

static const tmpl *template_at(const step *st, const int *path, size_t depth)
{
    for (size_t i = 0; i < st->ntmpls; i++)
        if (st->tmpls[i].depth == depth && !memcmp(st->tmpls[i].path, path, depth * sizeof *path))
            return &st->tmpls[i];
    return NULL;
}

static void print_step_value(FILE *out, const step *st, const ty *t, const value *v, int *path,
                             size_t depth)
{
    const tmpl *tp = template_at(st, path, depth);
    if (tp) {
        fprintf(out, tp->as_int ? "%s" : "\"%s\"", tp->at->text);
        return;
    }
    if (v->kind == VAL_STRUCT) {
        fputc('{', out);
        bool first = true;
        for (uint32_t i = 0; i < v->len; i++) {
            if (v->u.items[i].kind == VAL_NONE)
                continue;
            fprintf(out, "%s%s: ", first ? "" : ", ", t->fields[i].name);
            path[depth] = (int)i;
            print_step_value(out, st, t->fields[i].type, &v->u.items[i], path, depth + 1);
            first = false;
        }
        fputc('}', out);
    } else if (v->kind == VAL_LIST) {
        fputc('[', out);
        for (uint32_t i = 0; i < v->len; i++) {
            fputs(i ? ", " : "", out);
            path[depth] = (int)i;
            print_step_value(out, st, t->elem, &v->u.items[i], path, depth + 1);
        }
        fputc(']', out);
    } else {
        value_print_flow(out, t, v);
    }
}

/* ---- text ---- */

static void print_fields(FILE *out, const ty *st, int identity, const char *indent)
{
    for (size_t i = 0; i < st->nfields; i++) {
        const field *f = &st->fields[i];
        char tl[512];
        type_line(f->type, tl, sizeof tl);
        fprintf(out, "%s%s: %s", indent, f->name, tl);
        if ((int)i == identity)
            fputs(", identity", out);
        if (f->optional)
            fputs(", optional", out);
        if (f->has_default) {
            fputs(", default ", out);
            value_print_flow(out, f->type, &f->def);
        } else if (f->type->kind == TY_LIST && !f->optional) {
            fputs(", default []", out);
        }
        fputc('\n', out);
    }
}

static void print_checks(FILE *out, const char *title, const check *k, size_t n)
{
    char buf[1024];
    for (size_t i = 0; i < n; i++)
        fprintf(out, "      %s %s, else refuse \"%s\"\n", title,
                expr_render(k[i].cond, buf, sizeof buf), k[i].refuse);
}

/* What a command and a query share: params, reads and guards. */
static void print_inputs(FILE *out, const command *cmd)
{
    char buf[1024];
    print_fields(out, cmd->params, cmd->identity_param, "      param ");
    for (size_t i = 0; i < cmd->nreads; i++)
        fprintf(out, "      read %s = %s[%s]\n", cmd->reads[i].alias, cmd->reads[i].agg->name,
                expr_render(cmd->reads[i].key, buf, sizeof buf));
    print_checks(out, "guard", cmd->guards, cmd->nguards);
}

/* "    query Order.Status", its inputs, then "      returns name: type = expr";
 * a scan says where it starts and how far it goes. */
static void print_query(FILE *out, const command *q)
{
    char buf[1024], tl[512];
    fprintf(out, "    query %s\n", q->verb);
    print_inputs(out, q);
    if (q->scan)
        fprintf(out,
                "      scan from %s on, in identity order, at most %s records; returns each:\n",
                q->params->fields[q->identity_param].name, q->params->fields[q->scan_limit].name);
    for (size_t i = 0; i < q->returns->nfields; i++) {
        type_line(q->returns->fields[i].type, tl, sizeof tl);
        fprintf(out, "      returns %s: %s = %s\n", q->returns->fields[i].name, tl,
                expr_render(q->returns_exprs[i], buf, sizeof buf));
    }
}

static void print_command(FILE *out, const command *cmd)
{
    char buf[1024];
    fprintf(out, "    command %s%s\n", cmd->verb,
            cmd->creates   ? " (creates)"
            : cmd->deletes ? " (deletes)"
                           : "");
    print_inputs(out, cmd);
    const ty *st = cmd->agg->state;
    for (size_t i = 0; i < cmd->neffects; i++) {
        const effect *e = &cmd->effects[i];
        const char *fname = st->fields[e->field].name;
        if (e->value) {
            fprintf(out, "      %s %s %s\n", e->kind == EFFECT_SET ? "set" : "append", fname,
                    expr_render(e->value, buf, sizeof buf));
            continue;
        }
        const ty *et = st->fields[e->field].type->elem;
        fprintf(out, "      append %s {", fname);
        bool first = true;
        for (size_t j = 0; j < et->nfields; j++) {
            if (!e->build[j])
                continue;
            fprintf(out, "%s%s: %s", first ? "" : ", ", et->fields[j].name,
                    expr_render(e->build[j], buf, sizeof buf));
            first = false;
        }
        fputs("}\n", out);
    }
    print_checks(out, "ensure", cmd->ensures, cmd->nensures);
    if (cmd->event) {
        fprintf(out, "      emits %s {", cmd->event->name);
        const ty *pt = cmd->event->payload;
        for (size_t j = 0; j < pt->nfields; j++) {
            if (cmd->payload)
                fprintf(out, "%s%s: %s", j ? ", " : "", pt->fields[j].name,
                        expr_render(cmd->payload[j], buf, sizeof buf));
            else
                fprintf(out, "%s%s", j ? ", " : "", pt->fields[j].name);
        }
        fputs("}\n", out);
    }
}

static void print_steps(FILE *out, const plan *p, const char *indent, const char *title,
                        const flow *fl, const step *steps, size_t n)
{
    fprintf(out, "%s%s (%zu step%s)\n", indent, title, n, n == 1 ? "" : "s");
    for (size_t b = 0; fl && b < fl->nwith; b++)
        fprintf(out, "%s%s = %s%s", b ? ", " : "      with ", fl->with[b].name,
                fl->with[b].t.at->text, b + 1 == fl->nwith ? "\n" : "");
    for (size_t i = 0; i < n; i++) {
        int path[64];
        fprintf(out, "%s  %zu. %s ", indent, i + 1, steps[i].cmd->verb);
        print_step_value(out, &steps[i], steps[i].cmd->params, &steps[i].args, path, 0);
        if (steps[i].into >= 0)
            fprintf(out, "  (into %s)", p->work.pools[steps[i].into].name);
        fputs(steps[i].expect_refused ? "  (expect refused)\n" : "\n", out);
    }
}

/* The flows: a cycle as before, a mix with each flow's weight, share and
 * bindings. */
static void print_flows(FILE *out, const plan *p)
{
    const workload *w = &p->work;
    if (!w->is_mix) {
        print_steps(out, p, "  ", "cycle", NULL, w->flows[0].steps, w->flows[0].nsteps);
        return;
    }
    int64_t total = 0;
    for (size_t f = 0; f < w->nflows; f++)
        total += w->flows[f].weight;
    fprintf(out, "  mix (%zu flow%s, seed %" PRIu64 ")\n", w->nflows, w->nflows == 1 ? "" : "s",
            w->seed);
    for (size_t f = 0; f < w->nflows; f++) {
        const flow *fl = &w->flows[f];
        char title[256];
        snprintf(title, sizeof title, "%s: weight %" PRId64 " (%.1f%%)", fl->name, fl->weight,
                 total ? 100.0 * (double)fl->weight / (double)total : 0.0);
        print_steps(out, p, "    ", title, fl, fl->steps, fl->nsteps);
    }
}

static void print_totals(FILE *out, const plan *p)
{
    if (p->totals_overflow) {
        fputs("totals per run: more than 2^63 (the spec's cycles times its commands or records "
              "per cycle)\n",
              out);
        return;
    }
    if (!p->totals) {
        fputs("totals per run: depend on the draws and outcomes (a mix, a draw, a counted "
              "refusal or a for_each); verify holds each run to what succeeded\n",
              out);
        return;
    }
    for (size_t k = 0; k < p->work.nprefill; k++) {
        const plan_totals *t = &p->totals[k];
        fprintf(out, "totals per run (prefill %" PRId64 ")\n", t->prefill);
        fprintf(out, "  commands per cycle: %zu\n", t->commands_per_cycle);
        fprintf(out, "  commands timed per run: %" PRIu64 "\n", t->commands_timed);
        fputs("  aggregates:", out);
        for (size_t i = 0; i < p->naggs; i++)
            fprintf(out, "%s %s %" PRIu64, i ? "," : "", p->aggs[i].name, t->aggregates[i]);
        fputs("\n  events:", out);
        for (size_t i = 0; i < p->nevents; i++)
            fprintf(out, "%s %s %" PRIu64, i ? "," : "", p->events[i].name, t->events[i]);
        fputs(p->nevents ? "\n" : " none\n", out);
    }
}

/* A target entry: its label, its driver when the label differs, and every
 * option its driver declares that is in force (given, or by default). */
static void print_target(FILE *out, const target_spec *t)
{
    fprintf(out, "  %s", t->label);
    if (strcmp(t->label, t->name) != 0)
        fprintf(out, " (%s)", t->name);
    const target_driver *d = target_spec_driver(t);
    for (size_t i = 0; d && i < d->noptions; i++) {
        char text[1024];
        if (target_opt_text(t, &d->options[i], text, sizeof text))
            fprintf(out, ", %s %s%s", d->options[i].name, text,
                    target_opt_given(t, d->options[i].name) ? "" : " (default)");
    }
    fputc('\n', out);
}

void plan_print_text(const plan *p, FILE *out)
{
    fprintf(out, "plan of %s\ndomain %s\n", p->path, p->domain ? p->domain : "?");
    if (p->about)
        fprintf(out, "  %s\n", p->about);
    if (p->ntypes)
        fputs("types\n", out);
    for (size_t i = 0; i < p->ntypes; i++) {
        const ty *t = p->types[i];
        char desc[512], cons[256];
        ty_describe(&(ty){.kind = t->kind,
                          .values = t->values,
                          .nvalues = t->nvalues,
                          .fields = t->fields,
                          .nfields = t->nfields,
                          .elem = t->elem},
                    desc, sizeof desc);
        type_constraints(t, cons, sizeof cons);
        fprintf(out, "  %s = %s%s%s%s\n", t->name, desc, cons[0] ? " (" : "",
                cons[0] ? cons + 2 : "", cons[0] ? ")" : "");
        if (t->kind == TY_STRUCT)
            print_fields(out, t, -1, "    ");
    }
    for (size_t i = 0; i < p->naggs; i++) {
        const aggregate *ag = &p->aggs[i];
        fprintf(out, "aggregate %s\n", ag->name);
        print_fields(out, ag->state, ag->identity, "    field ");
        for (size_t j = 0; j < ag->ncommands; j++)
            print_command(out, &ag->commands[j]);
        for (size_t j = 0; j < ag->nqueries; j++)
            print_query(out, &ag->queries[j]);
    }
    char buf[1024];
    if (p->npolicies)
        fputs("policies\n", out);
    for (size_t i = 0; i < p->npolicies; i++) {
        const policy *po = &p->policies[i];
        fprintf(out, "  on %s", po->on->name);
        if (po->for_each)
            fprintf(out, " for_each %s", expr_render(po->for_each, buf, sizeof buf));
        fprintf(out, " run %s {", po->run->verb);
        bool first = true;
        for (size_t j = 0; j < po->run->params->nfields; j++) {
            if (!po->args[j])
                continue;
            fprintf(out, "%s%s: %s", first ? "" : ", ", po->run->params->fields[j].name,
                    expr_render(po->args[j], buf, sizeof buf));
            first = false;
        }
        fputs("}\n", out);
    }
    const workload *w = &p->work;
    fputs("workload\n", out);
    print_steps(out, p, "  ", "setup", NULL, w->setup, w->nsetup);
    print_flows(out, p);
    for (size_t i = 0; i < w->npools; i++)
        fprintf(out, "%s%s (%s)", i ? ", " : "  pools: ", w->pools[i].name, w->pools[i].agg->name);
    if (w->npools)
        fputc('\n', out);
    fputs("  prefill", out);
    for (size_t i = 0; i < w->nprefill; i++)
        fprintf(out, "%s %" PRId64, i ? "," : "", w->prefill[i]);
    if (w->prefill_flow >= 0)
        fprintf(out, " (flow %s)", w->flows[w->prefill_flow].name);
    fprintf(out, ", warmup %" PRId64 ", iterations %" PRId64 ", runs %" PRId64 "\n", w->warmup,
            w->iterations, w->runs);
    print_totals(out, p);
    fputs("targets\n", out);
    for (size_t i = 0; i < w->ntargets; i++)
        print_target(out, &w->targets[i]);
}

/* ---- JSON ---- */

static cJSON *value_json(const step *st, const ty *t, const value *v, int *path, size_t depth)
{
    const tmpl *tp = st ? template_at(st, path, depth) : NULL;
    if (tp)
        return cJSON_CreateString(tp->at->text);
    switch (v->kind) {
    case VAL_NONE: return cJSON_CreateNull();
    case VAL_INT: return cJSON_CreateNumber((double)v->u.i);
    case VAL_BOOL: return cJSON_CreateBool(v->u.b);
    case VAL_ENUM: return cJSON_CreateString(t->values[v->u.e]);
    case VAL_STRING: {
        char *s = xstrndup(v->u.s, v->len);
        cJSON *j = cJSON_CreateString(s);
        free(s);
        return j;
    }
    case VAL_STRUCT: {
        cJSON *o = cJSON_CreateObject();
        for (uint32_t i = 0; i < v->len; i++) {
            if (v->u.items[i].kind == VAL_NONE)
                continue;
            path[depth] = (int)i;
            cJSON_AddItemToObject(
                o, t->fields[i].name,
                value_json(st, t->fields[i].type, &v->u.items[i], path, depth + 1));
        }
        return o;
    }
    case VAL_LIST: {
        cJSON *a = cJSON_CreateArray();
        for (uint32_t i = 0; i < v->len; i++) {
            path[depth] = (int)i;
            cJSON_AddItemToArray(a, value_json(st, t->elem, &v->u.items[i], path, depth + 1));
        }
        return a;
    }
    }
    return cJSON_CreateNull();
}

static cJSON *expr_json(const expr *e)
{
    char buf[2048];
    return cJSON_CreateString(expr_render(e, buf, sizeof buf));
}

static cJSON *type_json(const ty *t)
{
    char buf[512];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", ty_describe(t, buf, sizeof buf));
    if (t->has_min)
        cJSON_AddNumberToObject(o, "min", (double)t->min);
    if (t->has_max)
        cJSON_AddNumberToObject(o, "max", (double)t->max);
    if (t->has_min_len)
        cJSON_AddNumberToObject(o, "min_length", (double)t->min_len);
    if (t->has_max_len)
        cJSON_AddNumberToObject(o, "max_length", (double)t->max_len);
    if (t->pattern)
        cJSON_AddStringToObject(o, "pattern", t->pattern);
    if (t->has_max_items)
        cJSON_AddNumberToObject(o, "max_items", (double)t->max_items);
    return o;
}

static cJSON *fields_json(const ty *st)
{
    cJSON *a = cJSON_CreateArray();
    int path[64];
    for (size_t i = 0; i < st->nfields; i++) {
        const field *f = &st->fields[i];
        cJSON *o = type_json(f->type);
        cJSON_AddStringToObject(o, "name", f->name);
        cJSON_AddBoolToObject(o, "optional", f->optional);
        if (f->has_default)
            cJSON_AddItemToObject(o, "default", value_json(NULL, f->type, &f->def, path, 0));
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *checks_json(const check *k, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToObject(o, "check", expr_json(k[i].cond));
        cJSON_AddStringToObject(o, "refuse", k[i].refuse);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *effects_json(const command *cmd)
{
    cJSON *a = cJSON_CreateArray();
    const ty *st = cmd->agg->state;
    for (size_t i = 0; i < cmd->neffects; i++) {
        const effect *e = &cmd->effects[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", e->kind == EFFECT_SET ? "set" : "append");
        cJSON_AddStringToObject(o, "field", st->fields[e->field].name);
        if (e->value) {
            cJSON_AddItemToObject(o, "value", expr_json(e->value));
        } else {
            const ty *et = st->fields[e->field].type->elem;
            cJSON *b = cJSON_AddObjectToObject(o, "value");
            for (size_t j = 0; j < et->nfields; j++)
                if (e->build[j])
                    cJSON_AddItemToObject(b, et->fields[j].name, expr_json(e->build[j]));
        }
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

/* What a command and a query share: params, reads and guards, into o. */
static void inputs_json(cJSON *o, const command *cmd)
{
    cJSON_AddItemToObject(o, "params", fields_json(cmd->params));
    cJSON *reads = cJSON_AddArrayToObject(o, "reads");
    for (size_t i = 0; i < cmd->nreads; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "alias", cmd->reads[i].alias);
        cJSON_AddStringToObject(r, "aggregate", cmd->reads[i].agg->name);
        cJSON_AddItemToObject(r, "key", expr_json(cmd->reads[i].key));
        cJSON_AddItemToArray(reads, r);
    }
    cJSON_AddItemToObject(o, "guards", checks_json(cmd->guards, cmd->nguards));
}

/* A query: name, verb, its inputs, and returns as [{type..., name, value}]. */
static cJSON *query_json(const command *q)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", q->name);
    cJSON_AddStringToObject(o, "verb", q->verb);
    inputs_json(o, q);
    if (q->scan) { /* {"from": the start key's parameter, "limit": the limit's} */
        cJSON *sc = cJSON_AddObjectToObject(o, "scan");
        cJSON_AddStringToObject(sc, "from", q->params->fields[q->identity_param].name);
        cJSON_AddStringToObject(sc, "limit", q->params->fields[q->scan_limit].name);
    }
    cJSON *ret = cJSON_AddArrayToObject(o, "returns");
    for (size_t i = 0; i < q->returns->nfields; i++) {
        cJSON *r = type_json(q->returns->fields[i].type);
        cJSON_AddStringToObject(r, "name", q->returns->fields[i].name);
        cJSON_AddItemToObject(r, "value", expr_json(q->returns_exprs[i]));
        cJSON_AddItemToArray(ret, r);
    }
    return o;
}

static cJSON *command_json(const command *cmd)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", cmd->name);
    cJSON_AddStringToObject(o, "verb", cmd->verb);
    cJSON_AddBoolToObject(o, "creates", cmd->creates);
    cJSON_AddBoolToObject(o, "deletes", cmd->deletes);
    inputs_json(o, cmd);
    cJSON_AddItemToObject(o, "effects", effects_json(cmd));
    cJSON_AddItemToObject(o, "ensure", checks_json(cmd->ensures, cmd->nensures));
    if (cmd->event) {
        cJSON *ev = cJSON_AddObjectToObject(o, "emits");
        cJSON_AddStringToObject(ev, "event", cmd->event->name);
        cJSON *pl = cJSON_AddObjectToObject(ev, "payload");
        const ty *pt = cmd->event->payload;
        for (size_t j = 0; j < pt->nfields; j++) {
            if (cmd->payload)
                cJSON_AddItemToObject(pl, pt->fields[j].name, expr_json(cmd->payload[j]));
            else {
                char arg[160];
                snprintf(arg, sizeof arg, "arg.%s", pt->fields[j].name);
                cJSON_AddStringToObject(pl, pt->fields[j].name, arg);
            }
        }
    } else {
        cJSON_AddNullToObject(o, "emits");
    }
    return o;
}

static cJSON *steps_json(const pool_def *pools, const step *steps, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        const step *st = &steps[i];
        int path[64];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "verb", st->cmd->verb);
        cJSON_AddItemToObject(o, "args", value_json(st, st->cmd->params, &st->args, path, 0));
        cJSON_AddBoolToObject(o, "expect_refused", st->expect_refused);
        if (st->into >= 0)
            cJSON_AddStringToObject(o, "into", pools[st->into].name);
        cJSON_AddNumberToObject(o, "templates", (double)st->ntmpls);
        cJSON_AddNumberToObject(o, "line", st->at->line);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *flows_json(const workload *w)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t f = 0; f < w->nflows; f++) {
        const flow *fl = &w->flows[f];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "flow", fl->name);
        cJSON_AddNumberToObject(o, "weight", (double)fl->weight);
        cJSON *with = cJSON_AddObjectToObject(o, "with");
        for (size_t b = 0; b < fl->nwith; b++)
            cJSON_AddStringToObject(with, fl->with[b].name, fl->with[b].t.at->text);
        cJSON_AddItemToObject(o, "steps", steps_json(w->pools, fl->steps, fl->nsteps));
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *totals_json(const plan *p)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t k = 0; p->totals && k < p->work.nprefill; k++) {
        const plan_totals *t = &p->totals[k];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "prefill", (double)t->prefill);
        cJSON_AddNumberToObject(o, "commands_per_cycle", (double)t->commands_per_cycle);
        cJSON_AddNumberToObject(o, "commands_timed_per_run", (double)t->commands_timed);
        cJSON *ag = cJSON_AddObjectToObject(o, "aggregates");
        for (size_t i = 0; i < p->naggs; i++)
            cJSON_AddNumberToObject(ag, p->aggs[i].name, (double)t->aggregates[i]);
        cJSON *ev = cJSON_AddObjectToObject(o, "events");
        for (size_t i = 0; i < p->nevents; i++)
            cJSON_AddNumberToObject(ev, p->events[i].name, (double)t->events[i]);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

/* An option's value in force as JSON, typed as its driver declares it. */
static cJSON *option_json(const target_spec *t, const target_option *o)
{
    const target_opt_value *v = target_opt_given(t, o->name);
    if (!v && !o->dflt)
        return NULL;
    switch (o->type) {
    case TARGET_OPT_STRING:
    case TARGET_OPT_ENUM: return cJSON_CreateString(target_opt_str(t, o->name));
    case TARGET_OPT_INT: return cJSON_CreateNumber((double)target_opt_int(t, o->name, 0));
    case TARGET_OPT_BOOL: return cJSON_CreateBool(target_opt_bool(t, o->name));
    case TARGET_OPT_ARGV: {
        cJSON *a = cJSON_CreateArray();
        for (size_t j = 0; v && v->argv[j]; j++)
            cJSON_AddItemToArray(a, cJSON_CreateString(v->argv[j]));
        return a;
    }
    case TARGET_OPT_TRIES: {
        cJSON *m = cJSON_CreateObject();
        cJSON_AddNumberToObject(m, "max_tries", (double)target_opt_int(t, o->name, 1));
        return m;
    }
    case TARGET_OPT_VERBS: {
        cJSON *m = cJSON_CreateObject();
        for (size_t j = 0; v && j < v->n; j++)
            cJSON_AddStringToObject(m, v->keys[j], v->vals[j]);
        return m;
    }
    }
    return NULL;
}

static cJSON *targets_json(const workload *w)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < w->ntargets; i++) {
        const target_spec *t = &w->targets[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "target", t->name);
        cJSON_AddStringToObject(o, "label", t->label);
        const target_driver *d = target_spec_driver(t);
        for (size_t k = 0; d && k < d->noptions; k++) {
            cJSON *v = option_json(t, &d->options[k]);
            if (v)
                cJSON_AddItemToObject(o, d->options[k].name, v);
        }
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *plan_json(const plan *p)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "spec", p->path);
    cJSON_AddStringToObject(root, "domain", p->domain ? p->domain : "");
    if (p->about)
        cJSON_AddStringToObject(root, "about", p->about);
    cJSON *types = cJSON_AddArrayToObject(root, "types");
    for (size_t i = 0; i < p->ntypes; i++) {
        cJSON *o = type_json(p->types[i]);
        cJSON_AddStringToObject(o, "name", p->types[i]->name);
        if (p->types[i]->kind == TY_STRUCT)
            cJSON_AddItemToObject(o, "fields", fields_json(p->types[i]));
        cJSON_AddItemToArray(types, o);
    }
    cJSON *aggs = cJSON_AddArrayToObject(root, "aggregates");
    for (size_t i = 0; i < p->naggs; i++) {
        const aggregate *ag = &p->aggs[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", ag->name);
        cJSON_AddStringToObject(o, "identity", ag->state->fields[ag->identity].name);
        cJSON_AddItemToObject(o, "fields", fields_json(ag->state));
        cJSON *cmds = cJSON_AddArrayToObject(o, "commands");
        for (size_t j = 0; j < ag->ncommands; j++)
            cJSON_AddItemToArray(cmds, command_json(&ag->commands[j]));
        cJSON *queries = cJSON_AddArrayToObject(o, "queries");
        for (size_t j = 0; j < ag->nqueries; j++)
            cJSON_AddItemToArray(queries, query_json(&ag->queries[j]));
        cJSON_AddItemToArray(aggs, o);
    }
    cJSON *pols = cJSON_AddArrayToObject(root, "policies");
    for (size_t i = 0; i < p->npolicies; i++) {
        const policy *po = &p->policies[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "on", po->on->name);
        cJSON_AddStringToObject(o, "run", po->run->verb);
        if (po->for_each)
            cJSON_AddItemToObject(o, "for_each", expr_json(po->for_each));
        else
            cJSON_AddNullToObject(o, "for_each");
        cJSON *args = cJSON_AddObjectToObject(o, "args");
        for (size_t j = 0; j < po->run->params->nfields; j++)
            if (po->args[j])
                cJSON_AddItemToObject(args, po->run->params->fields[j].name,
                                      expr_json(po->args[j]));
        cJSON_AddItemToArray(pols, o);
    }
    const workload *w = &p->work;
    cJSON *wo = cJSON_AddObjectToObject(root, "workload");
    cJSON_AddItemToObject(wo, "setup", steps_json(w->pools, w->setup, w->nsetup));
    if (!w->is_mix)
        cJSON_AddItemToObject(wo, "cycle",
                              steps_json(w->pools, w->flows[0].steps, w->flows[0].nsteps));
    else
        cJSON_AddItemToObject(wo, "mix", flows_json(w));
    cJSON_AddNumberToObject(wo, "seed", (double)w->seed);
    cJSON *pl = cJSON_AddObjectToObject(wo, "pools");
    for (size_t i = 0; i < w->npools; i++)
        cJSON_AddStringToObject(pl, w->pools[i].name, w->pools[i].agg->name);
    if (w->prefill_flow >= 0)
        cJSON_AddStringToObject(wo, "prefill_flow", w->flows[w->prefill_flow].name);
    cJSON *pf = cJSON_AddArrayToObject(wo, "prefill");
    for (size_t i = 0; i < w->nprefill; i++)
        cJSON_AddItemToArray(pf, cJSON_CreateNumber((double)w->prefill[i]));
    cJSON_AddNumberToObject(wo, "warmup", (double)w->warmup);
    cJSON_AddNumberToObject(wo, "iterations", (double)w->iterations);
    cJSON_AddNumberToObject(wo, "runs", (double)w->runs);
    cJSON_AddItemToObject(root, "totals", totals_json(p));
    cJSON_AddItemToObject(root, "targets", targets_json(w));
    return root;
}

int plan_print_json(const plan *p, FILE *out)
{
    cJSON *root = plan_json(p);
    char *s = cJSON_Print(root);
    cJSON_Delete(root);
    if (!s)
        return -1;
    int rc = fputs(s, out) < 0 || fputc('\n', out) == EOF ? -1 : 0;
    free(s);
    return rc;
}
