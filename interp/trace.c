/* trace.c: bench plan --trace: the command stream as a run draws it, on the
 * in-process memory store, for review before anything is timed. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "mix.h"
#include "plan.h"
#include "runtime.h"
#include "store_driver.h"
#include "value.h"

/* v as flow YAML, malloc'd. */
static char *flow_text(const ty *t, const value *v)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    value_print_flow(f, t, v);
    fclose(f);
    return buf;
}

typedef struct tracer {
    const plan *p;
    runtime *rt;
    mix *m;
    bool json;
    FILE *out;
    cJSON *cycles; /* json */
} tracer;

static const char *phase_of(const workload *w, uint64_t n)
{
    uint64_t prefill = (uint64_t)w->prefill[0];
    return n < prefill ? "prefill" : n < prefill + (uint64_t)w->warmup ? "warmup" : "timed";
}

/* Dispatches one step and says what it did. */
static void trace_step(tracer *tr, const step_inst *si, cJSON *steps)
{
    runtime_status st = runtime_dispatch_checked(tr->rt, si->st->cmd, &si->args, si->checked);
    mix_done(tr->m, si, st == RUNTIME_OK);
    char *args = flow_text(si->st->cmd->params, &si->args);
    const char *outcome = st == RUNTIME_OK ? "ok" : st == RUNTIME_REFUSED ? "refused" : "error";
    if (tr->json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "verb", si->st->cmd->verb);
        cJSON_AddStringToObject(o, "args", args ? args : "");
        cJSON_AddStringToObject(o, "outcome", outcome);
        if (st != RUNTIME_OK)
            cJSON_AddStringToObject(o, "message", runtime_message(tr->rt));
        if (st == RUNTIME_OK && si->st->into >= 0)
            cJSON_AddStringToObject(o, "into", tr->p->work.pools[si->st->into].name);
        if (st == RUNTIME_OK && si->st->cmd->scan)
            cJSON_AddNumberToObject(o, "rows", runtime_answer(tr->rt)->len);
        cJSON_AddItemToArray(steps, o);
    } else {
        fprintf(tr->out, "  %s %s  %s", si->st->cmd->verb, args ? args : "", outcome);
        if (st != RUNTIME_OK)
            fprintf(tr->out, ": %s", runtime_message(tr->rt));
        if (st == RUNTIME_OK && si->st->into >= 0)
            fprintf(tr->out, "; into %s (%zu)", tr->p->work.pools[si->st->into].name,
                    mix_pool_size(tr->m, (size_t)si->st->into));
        if (st == RUNTIME_OK && si->st->cmd->scan)
            fprintf(tr->out, "; %" PRIu32 " row%s", runtime_answer(tr->rt)->len,
                    runtime_answer(tr->rt)->len == 1 ? "" : "s");
        fputc('\n', tr->out);
    }
    free(args);
}

static cJSON *json_cycle(tracer *tr, const char *phase, int64_t n, const char *flow_name)
{
    cJSON *o = cJSON_CreateObject();
    if (n >= 0)
        cJSON_AddNumberToObject(o, "cycle", (double)n);
    cJSON_AddStringToObject(o, "phase", phase);
    if (flow_name)
        cJSON_AddStringToObject(o, "flow", flow_name);
    cJSON_AddItemToArray(tr->cycles, o);
    return cJSON_AddArrayToObject(o, "steps");
}

/* Setup and the cycles. Returns 0, or -1 (said) when it stopped early. */
static int trace_all(tracer *tr, uint64_t cycles)
{
    const workload *w = &tr->p->work;
    size_t nsetup;
    step_inst *setup = mix_setup(tr->m, &nsetup);
    cJSON *steps = NULL;
    if (nsetup && tr->json)
        steps = json_cycle(tr, "setup", -1, NULL);
    else if (nsetup)
        fputs("setup\n", tr->out);
    for (size_t s = 0; s < nsetup; s++)
        trace_step(tr, &setup[s], steps);
    for (uint64_t n = 0; n < cycles; n++) {
        const char *phase = phase_of(w, n);
        bench_error why = {{0}};
        int f = mix_begin(tr->m, n, !strcmp(phase, "prefill"), &why);
        if (f >= 0 && tr->json)
            steps = json_cycle(tr, phase, (int64_t)n, w->flows[f].name);
        else if (f >= 0)
            fprintf(tr->out, "cycle %" PRIu64 " (%s): %s\n", n, phase, w->flows[f].name);
        size_t ns = 0;
        step_inst *fs = f >= 0 ? mix_flow_steps(tr->m, (size_t)f, &ns) : NULL;
        for (size_t s = 0; f >= 0 && s < ns; s++) {
            if (mix_expand(tr->m, &fs[s], &why) < 0) {
                f = -1;
                break;
            }
            trace_step(tr, &fs[s], steps);
        }
        if (f < 0) {
            if (tr->json)
                cJSON_AddItemToArray(tr->cycles, cJSON_CreateString(why.msg));
            else
                fprintf(tr->out, "stopped: %s\n", why.msg);
            return -1;
        }
    }
    return 0;
}

int plan_trace(const plan *p, uint64_t cycles, uint64_t seed, bool json, FILE *out)
{
    const store_driver *sd = store_default();
    store *s = NULL;
    char err[256];
    if (!sd || store_open(sd, p, NULL, 1, &s, err, sizeof err) < 0) {
        fprintf(stderr, "bench plan: the trace's store did not open: %s\n", sd ? err : "none");
        return -1;
    }
    tracer tr = {.p = p, .json = json, .out = out};
    int rc = -1;
    if (runtime_new(p, s, &tr.rt) == 0 && (tr.m = mix_new(p, 1, seed))) {
        if (!json)
            fprintf(out, "trace: %s, run 1, seed %" PRIu64 ", on the %s store\n", p->domain, seed,
                    sd->name);
        tr.cycles = json ? cJSON_CreateArray() : NULL;
        rc = trace_all(&tr, cycles);
    }
    if (json && tr.cycles) {
        cJSON *root = cJSON_CreateObject();
        cJSON_AddStringToObject(root, "domain", p->domain);
        cJSON_AddNumberToObject(root, "seed", (double)seed);
        cJSON_AddStringToObject(root, "store", sd->name);
        cJSON_AddItemToObject(root, "cycles", tr.cycles);
        char *text = cJSON_Print(root);
        if (text)
            fprintf(out, "%s\n", text);
        free(text);
        cJSON_Delete(root);
    }
    mix_free(tr.m);
    runtime_free(tr.rt);
    store_close(s);
    return rc;
}
