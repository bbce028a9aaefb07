/* lint.c: the meaning checks that are passes over the compiled plan (policy
 * cycles and depth), the workload warnings, and the dry run on the runtime. */
#include "lint.h"

#include <inttypes.h>
#include <stdio.h>

#include "runtime.h"
#include "step_inst.h"
#include "store_driver.h"

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

int lint_policies(const plan *p, diag_list *d)
{
    const event_def *path[PLAN_POLICY_MAX_DEPTH + 2];
    for (size_t e = 0; e < p->nevents; e++)
        if (walk_policies(&p->events[e], path, 0, d) < 0)
            return -1;
    return 0;
}

/* ---- warnings ---- */

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
static bool as_expected(const step *st, runtime_status rs)
{
    return st->expect_refused ? rs == RUNTIME_REFUSED : rs == RUNTIME_OK;
}

/* The first step that does not do what it expects, with why in err; NULL when none. */
static const step *first_unexpected(runtime *rt, step_inst *setup, step_inst *cycle,
                                    const workload *w, bench_error *e)
{
    for (size_t s = 0; s < w->nsetup; s++) {
        const step_inst *si = &setup[s];
        if (!as_expected(si->st, runtime_dispatch(rt, si->st->cmd, &si->args))) {
            err_set(e, "in setup, %s", runtime_message(rt));
            return si->st;
        }
    }
    for (uint64_t n = 0; n < 2; n++)
        for (size_t s = 0; s < w->ncycle; s++) {
            step_inst *si = &cycle[s];
            step_inst_expand(si, n, 1);
            runtime_status rs = runtime_dispatch(rt, si->st->cmd, &si->args);
            if (as_expected(si->st, rs))
                continue;
            err_set(e, "in cycle %" PRIu64 ", %s", n,
                    rs == RUNTIME_OK ? "the step succeeded, but it expects a refusal"
                                     : runtime_message(rt));
            return si->st;
        }
    return NULL;
}

int lint_dry_run(const plan *p, diag_list *d)
{
    const store_driver *sd = store_default(); /* the in-process store */
    store *s = NULL;
    runtime *rt = NULL;
    bench_error err;
    if (!sd || store_open(sd, p, NULL, 1, &s, err.msg, sizeof err.msg) < 0)
        return 0;
    if (runtime_new(p, s, &rt) < 0) {
        store_close(s);
        return 0;
    }
    arena mem = {0};
    step_inst *setup = step_insts_new(&mem, p->work.setup, p->work.nsetup);
    step_inst *cycle = step_insts_new(&mem, p->work.cycle, p->work.ncycle);
    const step *bad = first_unexpected(rt, setup, cycle, &p->work, &err);
    if (bad)
        diag_error_at(d, bad->at, "dry run on the %s target: %s", sd->name, err.msg);
    arena_free(&mem);
    runtime_free(rt);
    store_close(s);
    return bad ? -1 : 0;
}
