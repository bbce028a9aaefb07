/* lint.c: the meaning checks that are passes over the compiled plan (policy
 * cycles and depth), the workload warnings, and the dry run on the runtime. */
#include "lint.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mix.h"
#include "runtime.h"
#include "step_inst.h"
#include "store_driver.h"
#include "value.h"

/* ---- policies ---- */

/* Depth-first walk event -> policy -> command -> event, for cycles and depth. */
static int walk_policies(const event_def *ev, const event_def **path, int depth, diag_list *d)
{
    for (int i = 0; i < depth; i++)
        if (path[i] == ev) {
            char chain[512];
            size_t n = 0;
            for (int j = i; j < depth && n < sizeof chain; j++)
                n += (size_t)snprintf(chain + n, sizeof chain - n, "%s -> ", path[j]->name);
            if (n < sizeof chain)
                snprintf(chain + n, sizeof chain - n, "%s", ev->name);
            diag_error_at(d, ev->policies ? ev->policies[0]->at : ev->at,
                          "policies form a cycle: %s", chain);
            return -1;
        }
    /* a chain of PLAN_POLICY_MAX_DEPTH policies is allowed; one more policy is not */
    if (depth >= PLAN_POLICY_MAX_DEPTH && ev->npolicies > 0) {
        diag_error_at(d, ev->policies[0]->at,
                      "policies chain deeper than %d starting from event '%s'",
                      PLAN_POLICY_MAX_DEPTH, path[0]->name);
        return -1;
    }
    path[depth] = ev;
    for (size_t i = 0; i < ev->npolicies; i++) {
        const command *run = ev->policies[i]->run;
        if (run->event && walk_policies(run->event, path, depth + 1, d) < 0)
            return -1;
    }
    return 0;
}

static int lint_expects(const plan *p, diag_list *d);
static void lint_client_keys(const plan *p, diag_list *d);
static void lint_open_loop_rate(const plan *p, diag_list *d);

/* A policy runs a command: a query would change nothing. */
static int lint_policy_runs(const plan *p, diag_list *d)
{
    int rc = 0;
    for (size_t i = 0; i < p->npolicies; i++) {
        const policy *po = &p->policies[i];
        if (!po->run->query)
            continue;
        const node *run = node_get(po->at, "run");
        diag_error_at(d, run ? run : po->at, "a policy runs a command; %s is a query",
                      po->run->verb);
        rc = -1;
    }
    return rc;
}

int lint_policies(const plan *p, diag_list *d)
{
    const event_def *path[PLAN_POLICY_MAX_DEPTH + 2];
    if (lint_policy_runs(p, d) < 0)
        return -1;
    for (size_t e = 0; e < p->nevents; e++)
        if (walk_policies(&p->events[e], path, 0, d) < 0)
            return -1;
    lint_client_keys(p, d);
    lint_open_loop_rate(p, d);
    return lint_expects(p, d);
}

/* ---- refusal texts ---- */

/* The length of a verb "Aggregate.Command" at s, or 0. */
static size_t verb_len(const char *s)
{
    size_t n = 0;
    int dots = 0;
    for (; isalnum((unsigned char)s[n]) || s[n] == '_' || (s[n] == '.' && n > 0); n++)
        dots += s[n] == '.';
    return dots == 1 && s[n - 1] != '.' ? n : 0;
}

/* s past " (item K of N)", the item of a for_each policy, when it starts
 * so, else s. */
static const char *past_item(const char *s)
{
    static const char head[] = " (item ", of[] = " of ";
    const char *t = s + sizeof head - 1;
    if (strncmp(s, head, sizeof head - 1) != 0 || !isdigit((unsigned char)*t))
        return s;
    while (isdigit((unsigned char)*t))
        t++;
    if (strncmp(t, of, sizeof of - 1) != 0 || !isdigit((unsigned char)t[sizeof of - 1]))
        return s;
    for (t += sizeof of - 1; isdigit((unsigned char)*t);)
        t++;
    return *t == ')' ? t + 1 : s;
}

/* s past "Verb refused: " (with item: "Verb (item K of N) refused: ") when
 * it starts so, else NULL. */
static const char *past_refused(const char *s, bool item)
{
    size_t n = verb_len(s);
    static const char tail[] = " refused: ";
    const char *t = n && item ? past_item(s + n) : s + n;
    return n && !strncmp(t, tail, sizeof tail - 1) ? t + sizeof tail - 1 : NULL;
}

const char *lint_refusal_text(const char *message)
{
    const char *s = past_refused(message, false), *in;
    if (!s)
        return message;
    while (!strncmp(s, "policy ", 7) && (in = past_refused(s + 7, true)))
        s = in;
    return s;
}

const char *lint_expected_text(const step *st, uint64_t n, int run, char *buf, size_t size)
{
    size_t k = 0;
    for (const char *s = st->expect_text; *s && k + 1 < size;) {
        if (!strncmp(s, "${n}", 4) || !strncmp(s, "${run}", 6)) {
            bool is_n = s[2] == 'n';
            int w = is_n ? snprintf(buf + k, size - k, "%" PRIu64, n)
                         : snprintf(buf + k, size - k, "%d", run);
            k = w > 0 && (size_t)w < size - k ? k + (size_t)w : size - 1;
            s += is_n ? 4 : 6;
        } else
            buf[k++] = *s++;
    }
    buf[k] = '\0';
    return buf;
}

bool lint_refusal_matches(const step *st, const char *message, uint64_t n, int run)
{
    char want[1024];
    return !st->expect_text ||
           !strcmp(lint_refusal_text(message), lint_expected_text(st, n, run, want, sizeof want));
}

bool lint_answer_matches(const step *st, const value *answer, char *why, size_t size)
{
    if (st->expect_rows_set) {
        if (answer && answer->kind == VAL_LIST && answer->len == st->expect_rows)
            return true;
        if (!answer)
            snprintf(why, size, "gave no answer, but the step expects %" PRId64 " rows",
                     st->expect_rows);
        else
            snprintf(why, size, "answered %" PRIu32 " row%s, the step expects %" PRId64,
                     answer->len, answer->len == 1 ? "" : "s", st->expect_rows);
        return false;
    }
    const ty *t = st->cmd->returns;
    for (size_t i = 0; i < st->nexpect_returns; i++) {
        const expect_field *e = &st->expect_returns[i];
        const field *f = &t->fields[e->field];
        if (answer && value_equal(&answer->u.items[e->field], &e->want))
            continue;
        char got[256], want[256];
        value_flow_text(f->type, &e->want, want, sizeof want);
        if (!answer)
            snprintf(why, size, "gave no answer, but the step expects %s %s", f->name, want);
        else
            snprintf(why, size, "returned %s %s, the step expects %s", f->name,
                     value_flow_text(f->type, &answer->u.items[e->field], got, sizeof got), want);
        return false;
    }
    return true;
}

/* Whether text matches shape, where each <...> in shape stands for any
 * non-empty run of characters. */
static bool shape_match(const char *shape, const char *text)
{
    if (!*shape)
        return !*text;
    if (*shape != '<')
        return *shape == *text && shape_match(shape + 1, text + 1);
    const char *rest = strchr(shape, '>');
    if (!rest)
        return !strcmp(shape, text);
    for (const char *t = text + 1; t <= text + strlen(text); t++)
        if (*text && shape_match(rest + 1, t))
            return true;
    return false;
}

/* The runtime's built-in refusals whose variable parts do not depend on the
 * command (runtime.c, value.c): constraints and expression errors. */
static const char *const generic_shapes[] = {
    "<field>: <n> is less than the minimum <min>",
    "<field>: <n> is greater than the maximum <max>",
    "<field>: <n> character(s), fewer than the minimum <min>",
    "<field>: <n> character(s), more than the maximum <max>",
    "<field>: '<text>' does not match the pattern <pattern>",
    "<field>: <n> item(s), more than the maximum <max>",
    "<field>: not one of the enum's values",
    "<field> is not set",
    "integer overflow in \"<expression>\"",
    "division by zero in \"<expression>\"",
    "an optional field is not set in \"<expression>\"",
};

enum { REFUSALS_MAX = 256 };

/* What one command can refuse with: its checks' texts and the shapes of
 * its record refusals, then its policies' commands', each once. */
typedef struct refusals {
    const char *texts[REFUSALS_MAX];
    size_t ntexts;
    char shapes[REFUSALS_MAX][160];
    size_t nshapes;
    const command *seen[REFUSALS_MAX];
    size_t nseen;
} refusals;

static void add_text(refusals *r, const char *t)
{
    for (size_t i = 0; i < r->ntexts; i++)
        if (!strcmp(r->texts[i], t))
            return;
    if (r->ntexts < REFUSALS_MAX)
        r->texts[r->ntexts++] = t;
}

static void add_shape(refusals *r, const char *agg, const char *what, const char *alias)
{
    char buf[160];
    if (alias)
        snprintf(buf, sizeof buf, "%s <id> %s (read as %s)", agg, what, alias);
    else
        snprintf(buf, sizeof buf, "%s <id> %s", agg, what);
    for (size_t i = 0; i < r->nshapes; i++)
        if (!strcmp(r->shapes[i], buf))
            return;
    if (r->nshapes < REFUSALS_MAX)
        memcpy(r->shapes[r->nshapes++], buf, sizeof buf);
}

static void collect_refusals(refusals *r, const command *cmd)
{
    for (size_t i = 0; i < r->nseen; i++)
        if (r->seen[i] == cmd)
            return;
    if (r->nseen == REFUSALS_MAX)
        return;
    r->seen[r->nseen++] = cmd;
    for (size_t i = 0; i < cmd->nguards; i++)
        add_text(r, cmd->guards[i].refuse);
    for (size_t i = 0; i < cmd->nensures; i++)
        add_text(r, cmd->ensures[i].refuse);
    add_shape(r, cmd->agg->name, cmd->creates ? "already exists" : "does not exist", NULL);
    for (size_t i = 0; i < cmd->nreads; i++)
        add_shape(r, cmd->reads[i].agg->name, "does not exist", cmd->reads[i].alias);
    for (size_t i = 0; cmd->event && i < cmd->event->npolicies; i++)
        collect_refusals(r, cmd->event->policies[i]->run);
}

static bool can_refuse_with(const refusals *r, const char *text)
{
    for (size_t i = 0; i < r->ntexts; i++)
        if (!strcmp(r->texts[i], text))
            return true;
    for (size_t i = 0; i < r->nshapes; i++)
        if (shape_match(r->shapes[i], text))
            return true;
    for (size_t i = 0; i < sizeof generic_shapes / sizeof *generic_shapes; i++)
        if (shape_match(generic_shapes[i], text))
            return true;
    return false;
}

/* One error for a step whose expected refusal text its command cannot produce. */
static int lint_expect(const step *st, diag_list *d)
{
    static refusals r;
    memset(&r, 0, sizeof r);
    collect_refusals(&r, st->cmd);
    if (can_refuse_with(&r, st->expect_text))
        return 0;
    char list[2048];
    size_t n = 0;
    for (size_t i = 0; i < r.ntexts && n < sizeof list; i++)
        n += (size_t)snprintf(list + n, sizeof list - n, "'%s', ", r.texts[i]);
    for (size_t i = 0; i < r.nshapes && n < sizeof list; i++)
        n += (size_t)snprintf(list + n, sizeof list - n, "'%s', ", r.shapes[i]);
    if (n < sizeof list)
        snprintf(list + n, sizeof list - n, "or a field constraint's or an expression's message");
    const char *hint = diag_suggest(st->expect_text, r.texts, r.ntexts);
    if (hint)
        diag_error_at(d, st->expect_text_at,
                      "%s cannot refuse with '%s' (did you mean '%s'?); it can refuse with: %s",
                      st->cmd->verb, st->expect_text, hint, list);
    else
        diag_error_at(d, st->expect_text_at, "%s cannot refuse with '%s'; it can refuse with: %s",
                      st->cmd->verb, st->expect_text, list);
    return -1;
}

/* Every `expect: {refused: TEXT}` names a refusal its command can produce. */
static int lint_expects(const plan *p, diag_list *d)
{
    int rc = 0;
    for (size_t f = 0; f < p->work.nflows; f++) {
        const flow *fl = &p->work.flows[f];
        for (size_t s = 0; s < fl->nsteps; s++)
            if (fl->steps[s].expect_text && lint_expect(&fl->steps[s], d) < 0)
                rc = -1;
    }
    return rc;
}

/* ---- warnings ---- */

/* The template that fills a step's identity argument, or NULL when it is a
 * constant. */
static const tmpl *identity_template(const step *st)
{
    for (size_t t = 0; t < st->ntmpls; t++)
        if (st->tmpls[t].depth == 1 && st->tmpls[t].path[0] == st->cmd->identity_param)
            return &st->tmpls[t];
    return NULL;
}

/* Several clients with keys: per_client: a creating step whose identity
 * has neither ${n} (unique across clients) nor ${client} lets two clients
 * create the same record, and the second is refused. A warning, not an
 * error: a draw may collide on purpose (on_refusal: count), and a refusal
 * the step does not expect fails the run, which says where. */
static void lint_client_keys(const plan *p, diag_list *d)
{
    const workload *w = &p->work;
    int64_t most = w->clients;
    for (size_t i = 0; i < w->nclient_levels; i++)
        most = w->client_levels[i] > most ? w->client_levels[i] : most;
    if (most <= 1 || w->shared_keys)
        return;
    for (size_t f = 0; f < w->nflows; f++)
        for (size_t s = 0; s < w->flows[f].nsteps; s++) {
            const step *st = &w->flows[f].steps[s];
            if (!st->cmd->creates)
                continue;
            const tmpl *t = identity_template(st);
            bool unique = false;
            for (size_t k = 0; t && k < t->nparts && !unique; k++)
                unique = t->parts[k].var == TMPL_N || t->parts[k].var == TMPL_CLIENT;
            if (!unique)
                diag_warning_at(d, t ? t->at : st->at,
                                "with %" PRId64 " clients and keys: per_client, this identity has "
                                "neither ${n} nor ${client}: two clients can create the same %s, "
                                "and the second is refused",
                                most, st->cmd->agg->name);
        }
}

/* The least a timed command takes in bench's own loop: the harness floor
 * (two clock reads around a call that returns at once) measures 23-29 ns
 * on the machines docs/benchmarks.md quotes; below 20 ns none has read. */
enum { LINT_COMMAND_FLOOR_NS = 20 };

/* An open-loop rate one client cannot reach whatever the target: a client
 * runs one cycle at a time, so it starts at most one cycle per (commands of
 * the shortest flow x the harness floor). Checked for each level of a rate
 * sweep, at the fewest clients any level runs. A warning: the run still
 * measures what the client reached (the report's Behind: line). */
static void lint_open_loop_rate(const plan *p, diag_list *d)
{
    const workload *w = &p->work;
    if (w->arrival.process == ARRIVAL_NONE || w->nflows == 0)
        return;
    int64_t fewest = w->clients > 1 ? w->clients : 1;
    for (size_t i = 0; i < w->nclient_levels; i++)
        fewest = w->client_levels[i] < fewest ? w->client_levels[i] : fewest;
    size_t least = w->flows[0].nsteps;
    for (size_t f = 1; f < w->nflows; f++)
        least = w->flows[f].nsteps < least ? w->flows[f].nsteps : least;
    double most = 1e9 / ((double)(least ? least : 1) * LINT_COMMAND_FLOOR_NS);
    const node *rate = node_get(node_get(node_get(p->source->root, "workload"), "arrival"), "rate");
    size_t nlevels = w->nrate_levels ? w->nrate_levels : 1;
    for (size_t i = 0; rate && i < nlevels; i++) {
        double r = w->nrate_levels ? w->rate_levels[i] : w->arrival.rate;
        if (r / (double)fewest <= most)
            continue;
        char who[48] = "one client";
        if (fewest > 1)
            snprintf(who, sizeof who, "each of %" PRId64 " clients", fewest);
        diag_warning_at(d, w->nrate_levels ? rate->items[i] : rate,
                        "a rate of %.15g cycles/s is a cycle every %.3g ns for %s, and a client "
                        "runs one cycle at a time (at least %zu command%s, each at least %d ns: "
                        "the harness floor): it cannot reach this rate; more clients can",
                        r, 1e9 * (double)fewest / r, who, least ? least : 1, least == 1 ? "" : "s",
                        LINT_COMMAND_FLOOR_NS);
    }
}

void lint_workload_warnings(const node *root, diag_list *d)
{
    const node *w = node_get(root, "workload");
    const node *warm = node_get(w, "warmup"), *runs = node_get(w, "runs");
    if (warm && warm->kind == NODE_INT && warm->v.i == 0)
        diag_warning_at(d, warm, "no warmup: the first timed commands pay for cold caches");
    if (runs && runs->kind == NODE_INT && runs->v.i == 1)
        diag_warning_at(d, runs, "one run: the report cannot show a range across runs");
}

/* ---- the dry run ---- */

/* Whether a dispatch's outcome is what the step expects. */
static bool as_expected(const step *st, runtime_status rs, const char *message, uint64_t n)
{
    if (st->count_refusals && rs == RUNTIME_REFUSED)
        return true;
    return st->expect_refused ? rs == RUNTIME_REFUSED && lint_refusal_matches(st, message, n, 1)
                              : rs == RUNTIME_OK;
}

/* Whether a successful query step answered what it expects; why in e. */
static bool answered_as_expected(runtime *rt, const step *st, runtime_status rs, const char *when,
                                 bench_error *e)
{
    char why[sizeof e->msg - 64];
    if (rs != RUNTIME_OK || lint_answer_matches(st, runtime_answer(rt), why, sizeof why))
        return true;
    err_set(e, "%s, %s %s", when, st->cmd->verb, why);
    return false;
}

/* Runs one cycle's steps (begun) and checks each does what it expects.
 * Returns the first step that does not, with why in e; NULL when none. */
static const step *dry_cycle(runtime *rt, mix *m, step_inst *steps, size_t nsteps, uint64_t n,
                             bench_error *e)
{
    for (size_t s = 0; s < nsteps; s++) {
        step_inst *si = &steps[s];
        if (mix_expand(m, si, e) < 0)
            return si->st;
        runtime_status rs = runtime_dispatch_checked(rt, si->st->cmd, &si->args, si->checked);
        const char *msg = runtime_message(rt);
        mix_done(m, si, rs == RUNTIME_OK);
        char when[32];
        snprintf(when, sizeof when, "in cycle %" PRIu64, n);
        if (as_expected(si->st, rs, msg, n) && answered_as_expected(rt, si->st, rs, when, e))
            continue;
        if (rs == RUNTIME_OK && !si->st->expect_refused)
            return si->st; /* the answer differs: e says how */
        char want[1024];
        if (rs == RUNTIME_REFUSED && si->st->expect_refused)
            err_set(e, "in cycle %" PRIu64 ", refused with '%s', but the step expects '%s'", n,
                    lint_refusal_text(msg), lint_expected_text(si->st, n, 1, want, sizeof want));
        else
            err_set(e, "in cycle %" PRIu64 ", %s", n,
                    rs == RUNTIME_OK ? "the step succeeded, but it expects a refusal" : msg);
        return si->st;
    }
    return NULL;
}

/* The first step that does not do what it expects, with why in e, or the
 * workload node *at when no flow can run; NULL when all is well. Setup,
 * then two cycles of the prefill flow if there is one, then two rounds of
 * every flow in order (drawing by weight could leave a flow out), each
 * flow that can run then (its pools hold enough). */
static const step *first_unexpected(runtime *rt, mix *m, const workload *w, bench_error *e,
                                    bool *stuck)
{
    size_t nsetup;
    step_inst *setup = mix_setup(m, &nsetup);
    for (size_t s = 0; s < nsetup; s++) {
        const step_inst *si = &setup[s];
        runtime_status rs = runtime_dispatch_checked(rt, si->st->cmd, &si->args, si->checked);
        mix_done(m, si, rs == RUNTIME_OK);
        if (!as_expected(si->st, rs, "", 0)) {
            err_set(e, "in setup, %s", runtime_message(rt));
            return si->st;
        }
        if (!answered_as_expected(rt, si->st, rs, "in setup", e))
            return si->st;
    }
    uint64_t n = 0;
    for (; w->prefill_flow >= 0 && n < 2; n++) {
        if (mix_begin_flow(m, n, (size_t)w->prefill_flow, e) < 0) {
            *stuck = true;
            return NULL;
        }
        size_t ns;
        step_inst *steps = mix_flow_steps(m, (size_t)w->prefill_flow, &ns);
        const step *bad = dry_cycle(rt, m, steps, ns, n, e);
        if (bad)
            return bad;
    }
    bench_error first_stuck = {{0}};
    for (int round = 0; round < 2; round++) {
        bool ran = false;
        for (size_t f = 0; f < w->nflows; f++) {
            if (w->flows[f].weight == 0)
                continue;
            bench_error why;
            if (mix_begin_flow(m, n, f, &why) < 0) {
                if (!first_stuck.msg[0])
                    first_stuck = why;
                continue;
            }
            size_t ns;
            step_inst *steps = mix_flow_steps(m, f, &ns);
            const step *bad = dry_cycle(rt, m, steps, ns, n++, e);
            if (bad)
                return bad;
            ran = true;
        }
        if (!ran) {
            *e = first_stuck;
            *stuck = true;
            return NULL;
        }
    }
    return NULL;
}

int lint_dry_run(const plan *p, diag_list *d)
{
    const store_driver *sd = store_default(); /* the in-process store */
    store *s = NULL;
    runtime *rt = NULL;
    bench_error err = {{0}};
    if (!sd || store_open(sd, p, NULL, 1, &s, err.msg, sizeof err.msg) < 0)
        return 0;
    mix *m = runtime_new(p, s, &rt) == 0 ? mix_new(p, 1, p->work.seed) : NULL;
    if (!m) {
        runtime_free(rt);
        store_close(s);
        return 0;
    }
    bool stuck = false;
    const step *bad = first_unexpected(rt, m, &p->work, &err, &stuck);
    if (bad)
        diag_error_at(d, bad->at, "dry run on the %s target: %s", sd->name, err.msg);
    else if (stuck)
        diag_error_at(d, p->work.flows[0].at, "dry run on the %s target: %s", sd->name, err.msg);
    mix_free(m);
    runtime_free(rt);
    store_close(s);
    return bad || stuck ? -1 : 0;
}
