/* test_runner.c: the runner (DESIGN section 5) through a fake target that
 * counts calls, given to the runner through run_options.driver_for, and
 * through the real memory and null targets on the specs in specs/ and
 * examples/. Inline specs are written to a scratch directory made by mkdtemp
 * and removed after the test. Runs from the repository root. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
/* cmocka.h needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_util.h"
/* clang-format on */

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "arrival.h"
#include "diag.h"
#include "env.h"
#include "jsonschema.h"
#include "report.h"
#include "runner.h"
#include "sha256.h"
#include "spec.h"
#include "target.h"

#define RESULT_SCHEMA "schema/result.schema.json"

/* One aggregate, two verbs, a setup step and a three-step cycle in which
 * Item.Bump appears twice. Every step succeeds on the memory target. */
static const char fake_yaml[] = "spec: 1\n"
                                "domain: fake\n"
                                "aggregates:\n"
                                "  Item:\n"
                                "    identity: id\n"
                                "    fields:\n"
                                "      id: string\n"
                                "      n: {type: int, default: 0}\n"
                                "    commands:\n"
                                "      Make:\n"
                                "        creates: true\n"
                                "        params: {id: string}\n"
                                "        emits: Made\n"
                                "      Bump:\n"
                                "        params: {id: string}\n"
                                "        set: {n: n + 1}\n"
                                "        emits: Bumped\n"
                                "workload:\n"
                                "  setup:\n"
                                "    - Item.Make: {id: base}\n"
                                "  cycle:\n"
                                "    - Item.Make: {id: \"i-${n}\"}\n"
                                "    - Item.Bump: {id: \"i-${n}\"}\n"
                                "    - Item.Bump: {id: base}\n"
                                "  warmup: 2\n"
                                "  iterations: 5\n"
                                "  runs: 3\n"
                                "  targets:\n"
                                "    - memory: {label: a}\n"
                                "    - memory: {label: b}\n";

/* ---- helpers ------------------------------------------------------------ */

/* The 1-based line of the first line of text that contains needle. */
static int line_of(const char *text, const char *needle)
{
    const char *at = strstr(text, needle);
    if (!at)
        fail_msg("no \"%s\" in the spec", needle);
    int line = 1;
    for (const char *c = text; c < at; c++)
        line += *c == '\n';
    return line;
}

static void open_spec(const char *path, spec *s)
{
    diag_list d = {0};
    spec_status st = spec_open(path, &d, s);
    for (size_t i = 0; st != SPEC_OK && i < d.count; i++)
        print_error("%s:%d:%d: %s\n", d.items[i].file, d.items[i].line, d.items[i].col,
                    d.items[i].message);
    diag_list_free(&d);
    if (st != SPEC_OK) {
        spec_close(s);
        fail_msg("%s does not open", path);
    }
}

/* A spec written to a scratch file, so that addresses name a real path; one
 * per test, in a global so that the teardown removes it after a failure. */
static struct {
    char dir[64];
    char path[96];
    spec s;
} scratch;

static const plan *scratch_open(const char *yaml)
{
    assert_false(scratch.dir[0]);
    snprintf(scratch.dir, sizeof scratch.dir, "/tmp/test_runner.XXXXXX");
    assert_non_null(mkdtemp(scratch.dir));
    snprintf(scratch.path, sizeof scratch.path, "%s/spec.yaml", scratch.dir);
    FILE *f = fopen(scratch.path, "w");
    assert_non_null(f);
    assert_true(fputs(yaml, f) >= 0);
    assert_int_equal(fclose(f), 0);
    open_spec(scratch.path, &scratch.s);
    return scratch.s.p;
}

static void scratch_close(void)
{
    if (!scratch.dir[0])
        return;
    spec_close(&scratch.s);
    unlink(scratch.path);
    rmdir(scratch.dir);
    memset(&scratch, 0, sizeof scratch);
}

/* Quiet, no harness floor, everything else as the spec says. */
static run_options options(void)
{
    return (run_options){.iterations = -1, .warmup = -1, .runs = -1, .quiet = true};
}

/* r starts empty, or holds only the environment and config. */
static int run_one(const plan *p, const run_options *o, report *r)
{
    const plan *plans[] = {p};
    return runner_run(plans, 1, o, r);
}

static const target_result *result_for(const report *r, const char *label, int64_t prefill)
{
    for (size_t i = 0; i < r->nresults; i++)
        if (!strcmp(r->results[i].label, label) && r->results[i].prefill == prefill)
            return &r->results[i];
    fail_msg("no result for %s@%" PRId64, label, prefill);
    return NULL;
}

static const verb_result *verb_of(const run_result *rr, const char *verb)
{
    for (size_t i = 0; i < rr->nverbs; i++)
        if (!strcmp(rr->verbs[i].verb, verb))
            return &rr->verbs[i];
    fail_msg("no figures for %s", verb);
    return NULL;
}

static size_t event_index(const plan *p, const char *name)
{
    for (size_t i = 0; i < p->nevents; i++)
        if (!strcmp(p->events[i].name, name))
            return i;
    fail_msg("no event %s in %s", name, p->domain);
    return 0;
}

static size_t agg_index(const plan *p, const char *name)
{
    for (size_t i = 0; i < p->naggs; i++)
        if (!strcmp(p->aggs[i].name, name))
            return i;
    fail_msg("no aggregate %s in %s", name, p->domain);
    return 0;
}

/* The environment and the config as `bench run` fills them, for the JSON.
 * The caller frees with config_free. */
static void fill_config(report *r, const plan *const *plans, size_t n, const run_options *o)
{
    env_collect(&r->env);
    env_load_after(&r->env);
    run_config *c = &r->config;
    c->specs = calloc(n, sizeof *c->specs);
    assert_non_null(c->specs);
    c->nspecs = n;
    size_t ntargets = 0;
    for (size_t i = 0; i < n; i++) {
        c->specs[i].path = plans[i]->path;
        sha256_hex(plans[i]->source->source, plans[i]->source->len, c->specs[i].sha256);
        ntargets += plans[i]->work.ntargets;
    }
    const workload *w = &plans[0]->work;
    c->warmup = o->warmup >= 0 ? o->warmup : w->warmup;
    c->iterations = o->iterations >= 0 ? o->iterations : w->iterations;
    c->runs = o->runs >= 0 ? o->runs : w->runs;
    c->prefill = o->prefill ? (int64_t *)o->prefill : w->prefill;
    c->nprefill = o->prefill ? o->nprefill : w->nprefill;
    c->targets = calloc(ntargets + 1, sizeof *c->targets);
    assert_non_null(c->targets);
    for (size_t i = 0; i < n; i++)
        for (size_t t = 0; t < plans[i]->work.ntargets; t++)
            c->targets[c->ntargets++] = plans[i]->work.targets[t].label;
    c->samples = o->samples != NULL;
}

static void config_free(report *r)
{
    free(r->config.specs);
    free(r->config.targets);
    r->config.specs = NULL;
    r->config.targets = NULL;
}

/* Checks report_to_cjson(r) against the result schema, printing why not. */
static void assert_report_validates(const report *r)
{
    char *text = read_file(RESULT_SCHEMA);
    cJSON *schema = cJSON_Parse(text);
    free(text);
    assert_non_null(schema);
    cJSON *json = report_to_cjson(r);
    assert_non_null(json);
    arena a = {0};
    diag_list d = {0};
    node *instance = jschema_node_from_cjson(&a, json, "report.json");
    bool ok = jschema_validate(schema, instance, &d);
    for (size_t i = 0; !ok && i < d.count; i++)
        print_error("schema: %s\n", d.items[i].message);
    diag_list_free(&d);
    arena_free(&a);
    cJSON_Delete(json);
    cJSON_Delete(schema);
    assert_true(ok);
}

/* What writer prints for r; the caller frees. */
__attribute__((noinline)) static char *render(int (*writer)(const report *, FILE *),
                                              const report *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(writer(r, f), 0);
    assert_int_equal(fclose(f), 0);
    return text;
}

static uint64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void busy_wait(uint64_t ns)
{
    uint64_t end = clock_ns() + ns;
    while (clock_ns() < end)
        ;
}

/* ---- the fake target ------------------------------------------------------ */

enum { FAKE_LABELS = 4, FAKE_MAX_COUNTED = 8, FAKE_TRACE = 4096 };

/* What the fake does besides counting; zero: an honest, fast target. */
typedef struct fake_behaviour {
    const char *refuse_label; /* this target refuses ... */
    uint64_t refuse_at;       /* ... the N-th dispatch of each of its runs (0: never) */
    uint64_t interrupt_at;    /* sets runner_interrupted on the N-th dispatch overall */
    const char *lose_create;  /* drops the first creation of this aggregate per run */
    const char *lose_event;   /* drops the first event of this name per run */
    const char *slow_verb;    /* busy-waits slow_ns in every dispatch of this verb */
    uint64_t slow_ns;
    uint64_t slow_prepare_ns; /* busy-waits in every prepare */
    uint64_t fail_prepare_at; /* prepare fails on the N-th call of a run (0: never) */
    uint64_t probe_wrong_at;  /* from the N-th probe of a label (overall), probe_rc ... */
    int probe_rc;             /* ... instead of a refusal (0 with probe_wrong_at: TARGET_OK) */
    uint64_t stall_every;     /* busy-waits stall_ns in the dispatches of a run whose number */
    uint64_t stall_phase;     /* ... modulo stall_every is stall_phase (0: never) */
    uint64_t stall_ns;
} fake_behaviour;

typedef struct fake_calls {
    uint64_t opens, closes, dispatches, counts, probes, prepares;
    uint64_t unprepared;    /* dispatches not preceded by a prepare of the same command */
    char trace[FAKE_TRACE]; /* "open dispatch*34 count probe*500 close ..." */
    char last[16];          /* the trace's last call, and how often in a row */
    uint64_t repeat;
} fake_calls;

static struct {
    fake_behaviour how;
    const char *labels[FAKE_LABELS];
    fake_calls calls[FAKE_LABELS];
    size_t nlabels;
    char order[256];     /* the opens in order: "1a 1b 2a ..." */
    uint64_t dispatches; /* overall */
    int open_now, most_open;
    int cpus_at_open; /* CPUs the last open ran on */
} fake;

typedef struct fake_target {
    target base; /* first, as target.h asks */
    const plan *p;
    size_t label;
    uint64_t dispatches;     /* in this run */
    uint64_t prepares;       /* in this run */
    const command *prepared; /* the command of the last prepare, until its dispatch */
    const value *prepared_args;
    uint64_t aggs[FAKE_MAX_COUNTED], events[FAKE_MAX_COUNTED];
    bool lost_create, lost_event;
} fake_target;

static void fake_reset(fake_behaviour how)
{
    memset(&fake, 0, sizeof fake);
    fake.how = how;
}

static size_t fake_label(const char *label)
{
    for (size_t i = 0; i < fake.nlabels; i++)
        if (!strcmp(fake.labels[i], label))
            return i;
    assert_true(fake.nlabels < FAKE_LABELS);
    fake.labels[fake.nlabels] = label;
    return fake.nlabels++;
}

static fake_calls *fake_calls_of(const char *label)
{
    return &fake.calls[fake_label(label)];
}

static void trace_flush(fake_calls *c)
{
    if (!c->repeat)
        return;
    size_t len = strlen(c->trace);
    char item[128];
    if (c->repeat == 1)
        snprintf(item, sizeof item, "%s%s", len ? " " : "", c->last);
    else
        snprintf(item, sizeof item, "%s%s*%" PRIu64, len ? " " : "", c->last, c->repeat);
    snprintf(c->trace + len, sizeof c->trace - len, "%s", item);
    c->repeat = 0;
}

/* Appends a call to the trace, runs of the same call folded into name*N. */
static void trace(fake_calls *c, const char *call)
{
    if (c->repeat && strcmp(c->last, call) != 0)
        trace_flush(c);
    snprintf(c->last, sizeof c->last, "%s", call);
    c->repeat++;
}

static const char *trace_of(const char *label)
{
    fake_calls *c = fake_calls_of(label);
    trace_flush(c);
    return c->trace;
}

static int fake_available(const target_driver *self, const target_spec *ts, char *why, size_t size)
{
    return 0;
}

static int fake_open(const target_driver *self, const plan *p, const target_spec *ts, int run,
                     target **out, char *err, size_t size);
static int blind_fake_open(const target_driver *self, const plan *p, const target_spec *ts, int run,
                           target **out, char *err, size_t size);
static int preparing_fake_open(const target_driver *self, const plan *p, const target_spec *ts,
                               int run, target **out, char *err, size_t size);

/* When the fake stalls: the clock at the start and at the end of each of a
 * run's first FAKE_TIMED dispatches, as the target saw them. */
enum { FAKE_TIMED = 4096 };
static uint64_t fake_started[FAKE_TIMED], fake_ended[FAKE_TIMED];

static int fake_dispatch(target *t, const command *cmd, const value *args)
{
    fake_target *ft = (fake_target *)t;
    fake_calls *c = &fake.calls[ft->label];
    c->dispatches++;
    ft->dispatches++;
    bool timed = fake.how.stall_every && ft->dispatches <= FAKE_TIMED;
    if (timed)
        fake_started[ft->dispatches - 1] = clock_ns();
    fake.dispatches++;
    trace(c, "dispatch");
    if (t->driver->prepare) {
        c->unprepared += ft->prepared != cmd || ft->prepared_args != args;
        ft->prepared = NULL;
    }
    const fake_behaviour *how = &fake.how;
    if (how->interrupt_at && fake.dispatches == how->interrupt_at)
        runner_interrupted = 1;
    if (how->refuse_at && ft->dispatches == how->refuse_at &&
        !strcmp(t->spec->label, how->refuse_label))
        return target_fail(t, TARGET_REFUSED, "fake refuses dispatch %" PRIu64, ft->dispatches);
    if (how->slow_verb && !strcmp(cmd->verb, how->slow_verb))
        busy_wait(how->slow_ns);
    if (how->stall_every && ft->dispatches % how->stall_every == how->stall_phase)
        busy_wait(how->stall_ns);
    if (cmd->creates) {
        if (how->lose_create && !ft->lost_create && !strcmp(cmd->agg->name, how->lose_create))
            ft->lost_create = true;
        else
            ft->aggs[cmd->agg->index]++;
    }
    if (cmd->event) {
        if (how->lose_event && !ft->lost_event && !strcmp(cmd->event->name, how->lose_event))
            ft->lost_event = true;
        else
            ft->events[cmd->event->index]++;
    }
    if (timed)
        fake_ended[ft->dispatches - 1] = clock_ns();
    return TARGET_OK;
}

static int fake_count(target *t, uint64_t *aggs, uint64_t *events)
{
    fake_target *ft = (fake_target *)t;
    fake.calls[ft->label].counts++;
    trace(&fake.calls[ft->label], "count");
    memcpy(aggs, ft->aggs, ft->p->naggs * sizeof *aggs);
    memcpy(events, ft->events, ft->p->nevents * sizeof *events);
    return TARGET_OK;
}

static int fake_prepare(target *t, const command *cmd, const value *args)
{
    fake_target *ft = (fake_target *)t;
    fake.calls[ft->label].prepares++;
    ft->prepares++;
    if (fake.how.fail_prepare_at && ft->prepares == fake.how.fail_prepare_at)
        return target_fail(t, TARGET_ERROR, "fake cannot encode %s", cmd->verb);
    busy_wait(fake.how.slow_prepare_ns);
    ft->prepared = cmd;
    ft->prepared_args = args;
    return TARGET_OK;
}

/* Refused at once, as the process target's `{}`. */
static int fake_probe(target *t)
{
    fake_target *ft = (fake_target *)t;
    uint64_t n = ++fake.calls[ft->label].probes;
    trace(&fake.calls[ft->label], "probe");
    if (fake.how.probe_wrong_at && n >= fake.how.probe_wrong_at)
        return fake.how.probe_rc == TARGET_ERROR
                   ? target_fail(t, TARGET_ERROR, "the fake runtime exited with status 3")
                   : fake.how.probe_rc;
    return target_fail(t, TARGET_REFUSED, "probe");
}

static void fake_close(target *t)
{
    fake_target *ft = (fake_target *)t;
    fake.calls[ft->label].closes++;
    trace(&fake.calls[ft->label], "close");
    fake.open_now--;
    free(ft);
}

/* Counts, probes and judges nothing it is sent. */
static const target_driver fake_driver = {
    .version = TARGET_DRIVER_VERSION,
    .name = "fake",
    .about = "counts calls",
    .caps = TARGET_CAN_COUNT | TARGET_CAN_PROBE,
    .available = fake_available,
    .open = fake_open,
    .dispatch = fake_dispatch,
    .count = fake_count,
    .probe = fake_probe,
    .close = fake_close,
};

/* The same without the optional count and probe. */
static const target_driver blind_fake_driver = {
    .version = TARGET_DRIVER_VERSION,
    .name = "fake",
    .about = "counts calls, cannot count records",
    .available = fake_available,
    .open = blind_fake_open,
    .dispatch = fake_dispatch,
    .close = fake_close,
};

/* The same as a target that talks to a child over a pipe. */
static int one_cpu_fake_open(const target_driver *self, const plan *p, const target_spec *ts,
                             int run, target **out, char *err, size_t size);
static const target_driver one_cpu_fake_driver = {
    .version = TARGET_DRIVER_VERSION,
    .name = "fake",
    .about = "counts calls, prefers one CPU with its child",
    .caps = TARGET_CAN_COUNT | TARGET_CAN_PROBE | TARGET_ONE_CPU,
    .available = fake_available,
    .open = one_cpu_fake_open,
    .dispatch = fake_dispatch,
    .count = fake_count,
    .probe = fake_probe,
    .close = fake_close,
};

/* The same with prepare, as a process target encodes its request line. */
static const target_driver preparing_fake_driver = {
    .version = TARGET_DRIVER_VERSION,
    .name = "fake",
    .about = "counts calls, prepares each command",
    .caps = TARGET_CAN_COUNT,
    .available = fake_available,
    .open = preparing_fake_open,
    .prepare = fake_prepare,
    .dispatch = fake_dispatch,
    .count = fake_count,
    .close = fake_close,
};

/* The same with reserve: what it was told, and where in the calls. */
static int reserving_fake_open(const target_driver *self, const plan *p, const target_spec *ts,
                               int run, target **out, char *err, size_t size);
static uint64_t fake_reserved_done, fake_reserved_cycles;

static int fake_reserve(target *t, uint64_t done, uint64_t cycles)
{
    trace(&fake.calls[((fake_target *)t)->label], "reserve");
    fake_reserved_done = done;
    fake_reserved_cycles = cycles;
    return TARGET_OK;
}

static const target_driver reserving_fake_driver = {
    .version = TARGET_DRIVER_VERSION,
    .name = "fake",
    .about = "counts calls, reserves room",
    .caps = TARGET_CAN_COUNT | TARGET_CAN_PROBE,
    .available = fake_available,
    .open = reserving_fake_open,
    .dispatch = fake_dispatch,
    .count = fake_count,
    .probe = fake_probe,
    .reserve = fake_reserve,
    .close = fake_close,
};

static int fake_open(const target_driver *self, const plan *p, const target_spec *ts, int run,
                     target **out, char *err, size_t size)
{
    assert_true(p->naggs <= FAKE_MAX_COUNTED && p->nevents <= FAKE_MAX_COUNTED);
    fake_target *ft = calloc(1, sizeof *ft);
    assert_non_null(ft);
    ft->p = p;
    ft->label = fake_label(ts->label);
    fake_calls *c = &fake.calls[ft->label];
    c->opens++;
    trace(c, "open");
    size_t len = strlen(fake.order);
    snprintf(fake.order + len, sizeof fake.order - len, "%s%d%s", len ? " " : "", run, ts->label);
    if (++fake.open_now > fake.most_open)
        fake.most_open = fake.open_now;
    ft->base.driver = &fake_driver;
    ft->base.spec = ts;
    cpu_set_t cpus;
    fake.cpus_at_open = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : -1;
    *out = &ft->base;
    return TARGET_OK;
}

static int blind_fake_open(const target_driver *self, const plan *p, const target_spec *ts, int run,
                           target **out, char *err, size_t size)
{
    int rc = fake_open(self, p, ts, run, out, err, size);
    (*out)->driver = &blind_fake_driver;
    return rc;
}

static int preparing_fake_open(const target_driver *self, const plan *p, const target_spec *ts,
                               int run, target **out, char *err, size_t size)
{
    int rc = fake_open(self, p, ts, run, out, err, size);
    (*out)->driver = &preparing_fake_driver;
    return rc;
}

static int reserving_fake_open(const target_driver *self, const plan *p, const target_spec *ts,
                               int run, target **out, char *err, size_t size)
{
    int rc = fake_open(self, p, ts, run, out, err, size);
    (*out)->driver = &reserving_fake_driver;
    return rc;
}

static int one_cpu_fake_open(const target_driver *self, const plan *p, const target_spec *ts,
                             int run, target **out, char *err, size_t size)
{
    int rc = fake_open(self, p, ts, run, out, err, size);
    (*out)->driver = &one_cpu_fake_driver;
    return rc;
}

static const target_driver *fake_memory;

/* driver_for: the fake stands in for the memory target. */
static const target_driver *fake_for(const char *name)
{
    return !strcmp(name, "memory") ? fake_memory : target_find(name);
}

static run_options fake_options(const target_driver *drv)
{
    fake_memory = drv;
    run_options o = options();
    o.driver_for = fake_for;
    return o;
}

/* ---- a spy on the memory target: it records what verify counted ----------- */

enum { SPY_MAX = 16, SPY_RUNS = 8 };

static struct {
    target_driver driver;
    const target_driver *memory;
    const plan *p;
    uint64_t aggs[SPY_RUNS][SPY_MAX], events[SPY_RUNS][SPY_MAX];
    size_t ncounts;
} spy;

static int spy_open(const target_driver *self, const plan *p, const target_spec *ts, int run,
                    target **out, char *err, size_t size)
{
    int rc = spy.memory->open(spy.memory, p, ts, run, out, err, size);
    if (rc == TARGET_OK)
        (*out)->driver = &spy.driver; /* count comes here; the rest is memory's */
    spy.p = p;
    return rc;
}

static int spy_count(target *t, uint64_t *aggs, uint64_t *events)
{
    int rc = spy.memory->count(t, aggs, events);
    assert_true(spy.p->naggs <= SPY_MAX && spy.p->nevents <= SPY_MAX);
    assert_true(spy.ncounts < SPY_RUNS);
    memcpy(spy.aggs[spy.ncounts], aggs, spy.p->naggs * sizeof *aggs);
    memcpy(spy.events[spy.ncounts], events, spy.p->nevents * sizeof *events);
    spy.ncounts++;
    return rc;
}

static const target_driver *spy_for(const char *name)
{
    return !strcmp(name, "memory") ? &spy.driver : target_find(name);
}

static run_options spy_options(void)
{
    memset(&spy, 0, sizeof spy);
    spy.memory = target_find("memory");
    assert_non_null(spy.memory);
    spy.driver = *spy.memory;
    spy.driver.open = spy_open;
    spy.driver.count = spy_count;
    run_options o = options();
    o.driver_for = spy_for;
    return o;
}

/* After every test, also one that failed half-way. */
static int teardown(void **state)
{
    runner_interrupted = 0;
    scratch_close();
    return 0;
}

/* ---- 1. calls: open, dispatch, count, probe, close ----------------------- */

static void test_runs_interleave_across_targets_each_a_fresh_boot(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    fake_reset((fake_behaviour){0});
    run_options o = fake_options(&fake_driver);
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 0);
    assert_string_equal(fake.order, "1a 1b 2a 2b 3a 3b");
    assert_int_equal(fake.most_open, 1); /* one boot at a time, each closed before the next */
    assert_int_equal(fake.open_now, 0);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(fake.calls[i].opens, 3);
        assert_int_equal(fake.calls[i].closes, 3);
    }
    assert_int_equal(r.nresults, 2);
    assert_int_equal(r.results[0].nruns, 3);
    assert_int_equal(r.results[1].nruns, 3);
    for (size_t k = 0; k < 3; k++)
        assert_int_equal(r.results[0].runs[k].run, (int)k + 1);
    report_free(&r);
    scratch_close();
}

static void test_dispatches_are_setup_plus_cycles_times_steps_then_count_probe_close(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    fake_reset((fake_behaviour){0});
    run_options o = fake_options(&fake_driver);
    const int64_t prefill[] = {4};
    o.prefill = prefill;
    o.nprefill = 1;
    o.warmup = 3;
    o.iterations = 6;
    o.runs = 2;
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 0);
    /* setup 1 + (prefill 4 + warmup 3) x 3 steps = 22, the floor before the
     * timed pass, iterations 6 x 3 = 18, count, the floor after */
    const char *one = "open dispatch*22 probe*500 dispatch*18 count probe*500 close";
    char want[256];
    snprintf(want, sizeof want, "%s %s", one, one);
    assert_string_equal(trace_of("a"), want);
    assert_string_equal(trace_of("b"), want);
    assert_int_equal(fake_calls_of("a")->dispatches, 2 * 40);
    assert_int_equal(fake_calls_of("a")->probes, 2 * 2 * 500);
    const target_result *a = result_for(&r, "a", 4);
    assert_int_equal(a->verify, VERIFY_PASS);
    for (size_t k = 0; k < a->nruns; k++) {
        assert_true(isfinite(a->runs[k].roundtrip_floor_p50_ns));
        assert_true(a->runs[k].roundtrip_floor_p50_ns > 0);
    }
    report_free(&r);
    scratch_close();
}

static void test_a_target_without_probe_or_count_gets_neither_and_is_still_closed(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    fake_reset((fake_behaviour){0});
    run_options o = fake_options(&blind_fake_driver);
    o.runs = 1;
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 0);
    /* setup 1 + (warmup 2 + iterations 5) x 3 = 22 */
    assert_string_equal(trace_of("a"), "open dispatch*22 close");
    const target_result *a = result_for(&r, "a", 0);
    assert_int_equal(a->nruns, 1);
    assert_true(isnan(a->runs[0].roundtrip_floor_p50_ns));
    assert_true(isnan(a->runs[0].round_trips_per_command));
    report_free(&r);
    scratch_close();
}

/* The target reserves once a run, after setup and warmup and before the
 * floor probe and the timed pass, told the warmup's cycles done and the
 * timed cycles to come; for a duration, the rate's cycles over it. */
static void test_reserve_comes_between_warmup_and_the_timed_pass(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    fake_reset((fake_behaviour){0});
    fake_reserved_done = fake_reserved_cycles = 99;
    run_options o = fake_options(&reserving_fake_driver);
    o.runs = 1;
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 0);
    assert_string_equal(trace_of("a"), "open dispatch*7 reserve probe*500 dispatch*15 count "
                                       "probe*500 close");
    assert_int_equal(fake_reserved_done, 2);   /* warmup: 2 cycles */
    assert_int_equal(fake_reserved_cycles, 5); /* iterations: 5 */
    report_free(&r);
    fake_reset((fake_behaviour){0});
    o.duration_ns = 100000000; /* 0.1 s at 2,000 cycles a second: 200 to come, and one */
    o.rate = 2000;
    r = (report){0};
    assert_int_equal(run_one(p, &o, &r), 0);
    assert_int_equal(fake_reserved_done, 2);
    assert_int_equal(fake_reserved_cycles, 201);
    report_free(&r);
    scratch_close();
}

/* ---- 2. verify ------------------------------------------------------------ */

static void test_verify_fails_when_the_store_holds_fewer_aggregates(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    fake_reset((fake_behaviour){.lose_create = "Item"});
    run_options o = fake_options(&fake_driver);
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 1);
    const target_result *a = result_for(&r, "a", 0);
    assert_true(a->failed);
    assert_int_equal(a->verify, VERIFY_FAIL);
    assert_int_equal(a->nruns, 0); /* a failed run is not reported as finished */
    /* setup 1 + warmup 2 + iterations 5 creations, one dropped */
    assert_string_equal(a->verify_detail,
                        "run 1: the store holds 7 Item, the commands that succeeded left 8");
    assert_string_equal(
        a->reason,
        "verify failed: run 1: the store holds 7 Item, the commands that succeeded left 8");
    assert_int_equal(r.nfailed, 2);
    assert_string_equal(r.failed[0].label, "a");
    assert_string_equal(r.failed[0].reason, a->reason);
    /* a failed target is not run again: one open, one count, no probe after */
    assert_string_equal(trace_of("a"), "open dispatch*7 probe*500 dispatch*15 count close");
    report_free(&r);
    scratch_close();
}

static void test_verify_fails_when_the_store_holds_fewer_events(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    fake_reset((fake_behaviour){.lose_event = "Bumped"});
    run_options o = fake_options(&fake_driver);
    o.runs = 1;
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 1);
    const target_result *a = result_for(&r, "a", 0);
    assert_true(a->failed);
    assert_int_equal(a->verify, VERIFY_FAIL);
    /* two Bumped per cycle, seven cycles, one dropped */
    assert_string_equal(
        a->verify_detail,
        "run 1: the store holds 13 Bumped events, the commands that succeeded left 14");
    report_free(&r);
    scratch_close();
}

static void test_verify_is_not_applicable_without_count_never_a_pass(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    /* the blind fake loses writes too: without count nobody can tell */
    fake_reset((fake_behaviour){.lose_create = "Item"});
    run_options o = fake_options(&blind_fake_driver);
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 0);
    for (size_t i = 0; i < r.nresults; i++) {
        assert_false(r.results[i].failed);
        assert_int_equal(r.results[i].verify, VERIFY_NA);
        assert_int_equal(r.results[i].nruns, 3);
    }
    report_free(&r);
    scratch_close();
}

static void test_null_target_verify_is_not_applicable(void **state)
{
    spec s = {0};
    open_spec("specs/pizzas.yaml", &s);
    run_options o = options();
    const char *only[] = {"memory", "null"};
    o.only = only;
    o.nonly = 2;
    o.iterations = 10;
    o.warmup = 2;
    o.runs = 1;
    report r = {0};
    assert_int_equal(run_one(s.p, &o, &r), 0);
    assert_int_equal(result_for(&r, "memory", 0)->verify, VERIFY_PASS);
    assert_int_equal(result_for(&r, "null", 0)->verify, VERIFY_NA);
    report_free(&r);
    spec_close(&s);
}

static void test_null_target_reports_no_refusals(void **state)
{
    spec s = {0};
    open_spec("examples/tickets.yaml", &s);
    run_options o = options();
    const char *only[] = {"null"};
    o.only = only;
    o.nonly = 1;
    o.iterations = 20;
    o.runs = 1;
    report r = {0};
    assert_int_equal(run_one(s.p, &o, &r), 0);
    const run_result *rr = &result_for(&r, "null", 0)->runs[0];
    /* null accepts the expect: refused steps without judging them */
    assert_int_equal(verb_of(rr, "Ticket.Close")->count, 40);
    for (size_t i = 0; i < rr->nverbs; i++)
        assert_int_equal(rr->verbs[i].refused, 0);
    report_free(&r);
    spec_close(&s);
}

/* ---- 3. failures ------------------------------------------------------------ */

static void test_refusal_mid_cycle_fails_the_run_with_step_and_cycle(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    fake_reset((fake_behaviour){.refuse_label = "a", .refuse_at = 17});
    run_options o = fake_options(&fake_driver);
    report r = {0};
    fill_config(&r, &p, 1, &o);
    assert_int_equal(run_one(p, &o, &r), 1);
    /* dispatch 1 is setup; 2.. are cycles of 3 steps from cycle 0, so the
     * 17th is step 1 of cycle 5, timed (warmup is cycles 0 and 1) */
    char want[512];
    snprintf(want, sizeof want, "run 1, timed cycle 5, Item.Make (%s:%d): fake refuses dispatch 17",
             scratch.path, line_of(fake_yaml, "- Item.Make: {id: \"i-"));
    const target_result *a = result_for(&r, "a", 0);
    assert_true(a->failed);
    assert_string_equal(a->reason, want);
    assert_int_equal(a->nruns, 0);
    assert_int_equal(r.nfailed, 1);
    assert_string_equal(r.failed[0].label, "a");
    assert_string_equal(r.failed[0].reason, want);
    /* the failed target is closed and not run again; the other runs on */
    assert_string_equal(trace_of("a"), "open dispatch*7 probe*500 dispatch*10 close");
    assert_string_equal(fake.order, "1a 1b 2b 3b");
    const target_result *b = result_for(&r, "b", 0);
    assert_false(b->failed);
    assert_int_equal(b->nruns, 3);
    assert_int_equal(b->verify, VERIFY_PASS);
    /* the report still says all of it */
    assert_report_validates(&r);
    char *md = render(report_markdown, &r);
    assert_non_null(strstr(md, "fake refuses dispatch 17"));
    free(md);
    char *csv = render(report_csv, &r);
    free(csv);
    config_free(&r);
    report_free(&r);
    scratch_close();
}

static void test_refusal_in_setup_names_the_setup_step(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    fake_reset((fake_behaviour){.refuse_label = "b", .refuse_at = 1});
    run_options o = fake_options(&fake_driver);
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 1);
    char want[512];
    snprintf(want, sizeof want, "run 1, setup, Item.Make (%s:%d): fake refuses dispatch 1",
             scratch.path, line_of(fake_yaml, "- Item.Make: {id: base}"));
    assert_string_equal(result_for(&r, "b", 0)->reason, want);
    assert_int_equal(result_for(&r, "a", 0)->nruns, 3);
    assert_string_equal(trace_of("b"), "open dispatch close");
    report_free(&r);
    scratch_close();
}

static void test_refusal_in_warmup_names_the_warmup_cycle(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    /* dispatch 7 is step 3 of cycle 1: warmup */
    fake_reset((fake_behaviour){.refuse_label = "a", .refuse_at = 7});
    run_options o = fake_options(&fake_driver);
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 1);
    char want[512];
    snprintf(want, sizeof want, "run 1, warmup cycle 1, Item.Bump (%s:%d): fake refuses dispatch 7",
             scratch.path, line_of(fake_yaml, "- Item.Bump: {id: base}"));
    assert_string_equal(result_for(&r, "a", 0)->reason, want);
    report_free(&r);
    scratch_close();
}

/* ---- 4. expect: refused ---------------------------------------------------- */

static void test_expected_refusals_are_counted_and_the_run_passes(void **state)
{
    spec s = {0};
    open_spec("examples/tickets.yaml", &s);
    run_options o = options();
    const char *only[] = {"memory"};
    o.only = only;
    o.nonly = 1;
    o.iterations = 20;
    o.warmup = 3;
    o.runs = 1;
    report r = {0};
    assert_int_equal(run_one(s.p, &o, &r), 0);
    const target_result *m = result_for(&r, "memory", 0);
    assert_false(m->failed);
    assert_int_equal(m->verify, VERIFY_PASS);
    const run_result *rr = &m->runs[0];
    assert_int_equal(rr->fig.commands, 20 * 8);
    /* Close and Comment each appear twice, once expecting a refusal */
    assert_int_equal(verb_of(rr, "Ticket.Close")->count, 40);
    assert_int_equal(verb_of(rr, "Ticket.Close")->refused, 20);
    assert_int_equal(verb_of(rr, "Ticket.Comment")->count, 40);
    assert_int_equal(verb_of(rr, "Ticket.Comment")->refused, 20);
    assert_int_equal(verb_of(rr, "Ticket.Open")->count, 20);
    assert_int_equal(verb_of(rr, "Ticket.Open")->refused, 0);
    assert_int_equal(rr->nverbs, 6);
    report_free(&r);
    spec_close(&s);
}

static void test_unexpected_success_of_an_expect_step_fails_the_run(void **state)
{
    spec s = {0};
    open_spec("examples/tickets.yaml", &s);
    char *text = read_file("examples/tickets.yaml");
    /* the fake accepts everything, but unlike null it is held to the steps */
    fake_reset((fake_behaviour){0});
    run_options o = fake_options(&fake_driver);
    o.warmup = 0;
    o.iterations = 5;
    report r = {0};
    assert_int_equal(run_one(s.p, &o, &r), 1);
    char want[512];
    snprintf(want, sizeof want,
             "run 1, timed cycle 0, Ticket.Close (examples/tickets.yaml:%d): succeeded, but the "
             "step expects a refusal",
             line_of(text, "already closed: refused"));
    const target_result *m = result_for(&r, "memory", 0);
    assert_true(m->failed);
    assert_string_equal(m->reason, want);
    /* null judges nothing, so it is not held to expect: refused */
    const target_result *n = result_for(&r, "null", 0);
    assert_false(n->failed);
    assert_int_equal(n->nruns, 3);
    free(text);
    report_free(&r);
    spec_close(&s);
}

static void test_unexpected_success_on_memory_fails_the_run(void **state)
{
    static const char yaml[] = "spec: 1\n"
                               "domain: wrong\n"
                               "aggregates:\n"
                               "  Item:\n"
                               "    identity: id\n"
                               "    fields: {id: string}\n"
                               "    commands:\n"
                               "      Make: {creates: true, params: {id: string}, emits: Made}\n"
                               "workload:\n"
                               "  cycle:\n"
                               "    - Item.Make: {id: \"i-${n}\"}\n"
                               "    - Item.Make: {id: \"j-${n}\"}\n"
                               "      expect: refused\n"
                               "  warmup: 3\n"
                               "  runs: 1\n"
                               "  targets: [memory]\n";
    const plan *p = scratch_open(yaml);
    run_options o = options();
    o.iterations = 5;
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 1);
    char want[512];
    snprintf(want, sizeof want,
             "run 1, warmup cycle 0, Item.Make (%s:%d): succeeded, but the step expects a "
             "refusal",
             scratch.path, line_of(yaml, "j-${n}"));
    assert_string_equal(result_for(&r, "memory", 0)->reason, want);
    report_free(&r);
    scratch_close();
}

/* A run's page faults in its timed pass are reported; the memory target's
 * reserve makes them far fewer than a pass that grows its store as it goes
 * (each record and event a string of 400 bytes: a page every ten cycles). */
static void test_the_reserve_takes_the_page_faults_out_of_the_pass(void **state)
{
    static const char yaml[] =
        "spec: 1\n"
        "domain: faults\n"
        "aggregates:\n"
        "  Item:\n"
        "    identity: id\n"
        "    fields: {id: string, note: string}\n"
        "    commands:\n"
        "      Make: {creates: true, params: {id: string, note: string}, "
        "set: {note: arg.note}, emits: Made}\n"
        "workload:\n"
        "  cycle:\n"
        "    - Item.Make: {id: \"i-${n}\", note: \"${n}-"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "\"}\n"
        "  warmup: 2000\n"
        "  runs: 1\n"
        "  targets:\n"
        "    - memory\n"
        "    - memory: {label: grows, reserve: false}\n";
    const plan *p = scratch_open(yaml);
    run_options o = options();
    o.iterations = 40000;
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 0);
    uint64_t reserved = result_for(&r, "memory", 0)->runs[0].page_faults;
    uint64_t grows = result_for(&r, "grows", 0)->runs[0].page_faults;
    /* 40,000 cycles of about 1 KB of records and events: 10,000 pages */
    assert_true(grows > 5000);
    if (reserved * 4 >= grows)
        fail_msg("page faults in the pass: %" PRIu64 " with the reserve, %" PRIu64 " without",
                 reserved, grows);
    report_free(&r);
    scratch_close();
}

static void test_counted_refusals_are_reported_with_goodput(void **state)
{
    static const char yaml[] = "spec: 1\n"
                               "domain: shop\n"
                               "aggregates:\n"
                               "  Stock:\n"
                               "    identity: sku\n"
                               "    fields: {sku: string, count: {type: int, min: 0, default: 0}}\n"
                               "    commands:\n"
                               "      Fill: {creates: true, params: {sku: string, count: int}, "
                               "set: {count: arg.count}}\n"
                               "      Take:\n"
                               "        params: {sku: string}\n"
                               "        guards: [{check: count > 0, refuse: not enough stock}]\n"
                               "        set: {count: count - 1}\n"
                               "workload:\n"
                               "  setup:\n"
                               "    - Stock.Fill: {sku: s, count: 4}\n"
                               "  cycle:\n"
                               "    - Stock.Take: {sku: s}\n"
                               "      on_refusal: count\n"
                               "  warmup: 0\n"
                               "  runs: 1\n"
                               "  targets: [memory]\n";
    const plan *p = scratch_open(yaml);
    run_options o = options();
    o.iterations = 10;
    report r = {0};
    fill_config(&r, &p, 1, &o);
    assert_int_equal(run_one(p, &o, &r), 0);
    const target_result *m = result_for(&r, "memory", 0);
    assert_false(m->failed);
    assert_int_equal(m->verify, VERIFY_PASS);
    const run_result *rr = &m->runs[0];
    assert_int_equal(verb_of(rr, "Stock.Take")->count, 10);
    assert_int_equal(verb_of(rr, "Stock.Take")->refused, 0);
    assert_int_equal(verb_of(rr, "Stock.Take")->refused_counted, 6);
    assert_true(fabs(rr->goodput_per_s - rr->fig.throughput_per_s * 0.4) <
                1e-6 * rr->fig.throughput_per_s);
    assert_report_validates(&r);
    /* the JSON reads back with the counts and goodput */
    char *json = render(report_json, &r);
    cJSON *tree = cJSON_Parse(json);
    report *back = NULL;
    char err[256];
    assert_int_equal(results_from_json("r.json", tree, &back, err, sizeof err), 0);
    assert_int_equal(back->results[0].runs[0].verbs[0].refused_counted, 6);
    assert_true(fabs(back->results[0].runs[0].goodput_per_s - rr->goodput_per_s) <
                1e-6 * rr->goodput_per_s + 1e-3);
    results_free(back);
    cJSON_Delete(tree);
    free(json);
    char *md = render(report_markdown, &r);
    assert_non_null(strstr(md, "\nGoodput: memory (shop): "));
    assert_non_null(
        strstr(md, " commands/s succeeded; refused and counted (all runs): Stock.Take 6.\n"));
    free(md);
    config_free(&r);
    report_free(&r);
    scratch_close();
}

/* A scan verb's rows_returned counts the rows of its timed dispatches (after
 * the clock stops), reads back from the JSON, and the Markdown says so;
 * a verb that is no scan has none. */
static void test_scan_rows_are_counted_per_verb(void **state)
{
    static const char yaml[] = "spec: 1\n"
                               "domain: rows\n"
                               "aggregates:\n"
                               "  Row:\n"
                               "    identity: id\n"
                               "    fields: {id: int}\n"
                               "    commands:\n"
                               "      Add: {creates: true, params: {id: int}}\n"
                               "    queries:\n"
                               "      From: {params: {id: int, count: int}, scan: {limit: count}, "
                               "returns: {id: id}}\n"
                               "workload:\n"
                               "  cycle:\n"
                               "    - Row.Add: {id: \"${n}\"}\n"
                               "    - Row.From: {id: 0, count: 3}\n"
                               "  warmup: 0\n"
                               "  runs: 1\n"
                               "  targets: [memory, null]\n";
    const plan *p = scratch_open(yaml);
    run_options o = options();
    o.iterations = 10;
    report r = {0};
    fill_config(&r, &p, 1, &o);
    assert_int_equal(run_one(p, &o, &r), 0);
    const run_result *rr = &result_for(&r, "memory", 0)->runs[0];
    /* cycles 0, 1, 2 find 1, 2, 3 rows, the seven after them 3 each */
    assert_true(verb_of(rr, "Row.From")->scan);
    assert_int_equal(verb_of(rr, "Row.From")->rows_returned, 1 + 2 + 3 * 8);
    assert_false(verb_of(rr, "Row.Add")->scan);
    /* null accepts the scans and answers none: no rows to count */
    assert_false(verb_of(&result_for(&r, "null", 0)->runs[0], "Row.From")->scan);
    assert_report_validates(&r);
    char *json = render(report_json, &r);
    assert_non_null(strstr(json, "\"rows_returned\":\t27"));
    cJSON *tree = cJSON_Parse(json);
    report *back = NULL;
    char err[256];
    assert_int_equal(results_from_json("r.json", tree, &back, err, sizeof err), 0);
    assert_true(back->results[0].runs[0].verbs[1].scan);
    assert_int_equal(back->results[0].runs[0].verbs[1].rows_returned, 27);
    assert_false(back->results[0].runs[0].verbs[0].scan);
    results_free(back);
    cJSON_Delete(tree);
    free(json);
    char *md = render(report_markdown, &r);
    assert_non_null(strstr(md, "\nScans: memory (rows): Row.From 27 rows in 10 scans (2.7 a scan), "
                               "all runs.\n"));
    assert_null(strstr(md, "Scans: null"));
    free(md);
    config_free(&r);
    report_free(&r);
    scratch_close();
}

/* ---- 5. statistics ----------------------------------------------------------- */

static void test_figures_follow_from_the_timed_commands(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    const uint64_t slow = 20000; /* ns */
    fake_reset((fake_behaviour){.slow_verb = "Item.Bump", .slow_ns = slow});
    run_options o = fake_options(&fake_driver);
    const char *only[] = {"a"};
    o.only = only;
    o.nonly = 1;
    o.iterations = 40;
    o.warmup = 3;
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 0);
    assert_int_equal(r.nresults, 1);
    const target_result *a = result_for(&r, "a", 0);
    assert_int_equal(a->nruns, 3);
    for (size_t k = 0; k < a->nruns; k++) {
        const run_result *rr = &a->runs[k];
        const run_figures *f = &rr->fig;
        assert_int_equal(f->commands, 40 * 3);
        assert_int_equal(hist_count(&rr->all), 40 * 3); /* setup and warmup are not timed */
        assert_true(fabs(f->throughput_per_s - (double)f->commands / f->wall_seconds) <=
                    1e-9 * f->throughput_per_s);
        /* the timed pass holds every Bump's busy wait */
        assert_true(f->wall_seconds >= 80 * slow / 1e9);
        assert_true(f->min_ns <= f->p50_ns && f->p50_ns <= f->p90_ns && f->p90_ns <= f->p95_ns &&
                    f->p95_ns <= f->p99_ns && f->p99_ns <= f->p999_ns && f->p999_ns <= f->max_ns);
        assert_true(isfinite(f->drift) && f->drift > 0);
        for (int t = 0; t < STATS_TENTHS; t++)
            assert_true(isfinite(f->tenths[t].p50_ns));
        assert_int_equal(rr->nverbs, 2);
        assert_string_equal(rr->verbs[0].verb, "Item.Make");
        assert_string_equal(rr->verbs[1].verb, "Item.Bump");
        assert_int_equal(rr->verbs[0].count, 40);
        assert_int_equal(rr->verbs[1].count, 80);
        assert_int_equal(rr->verbs[0].refused + rr->verbs[1].refused, 0);
        /* the clock brackets the dispatch: Bump's wait is inside its latency */
        assert_true(rr->verbs[1].p50_ns >= slow * 0.999);
        assert_true(rr->verbs[0].p50_ns < slow);
        assert_true(f->p99_ns >= slow * 0.999);
    }
    assert_int_equal(a->median.commands, 120);
    assert_true(a->throughput_lo <= a->median.throughput_per_s &&
                a->median.throughput_per_s <= a->throughput_hi);
    report_free(&r);
    scratch_close();
}

static void test_drift_is_absent_with_fewer_than_ten_cycles(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    fake_reset((fake_behaviour){0});
    run_options o = fake_options(&fake_driver);
    o.iterations = 9;
    o.runs = 1;
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 0);
    const run_figures *f = &result_for(&r, "a", 0)->runs[0].fig;
    assert_int_equal(f->commands, 27);
    assert_true(isnan(f->drift));
    assert_true(isfinite(f->tenths[0].p50_ns)); /* every cycle lands in the first tenth */
    for (int t = 1; t < STATS_TENTHS; t++)
        assert_true(isnan(f->tenths[t].p50_ns));
    report_free(&r);
    /* ten cycles: one per tenth, and drift exists */
    r = (report){0};
    fake_reset((fake_behaviour){0});
    o.iterations = 10;
    assert_int_equal(run_one(p, &o, &r), 0);
    f = &result_for(&r, "a", 0)->runs[0].fig;
    assert_true(isfinite(f->drift));
    for (int t = 0; t < STATS_TENTHS; t++)
        assert_true(isfinite(f->tenths[t].p50_ns));
    report_free(&r);
    scratch_close();
}

static void test_prepare_precedes_each_dispatch_outside_the_clock(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    const uint64_t slow = 50000; /* ns */
    fake_reset((fake_behaviour){.slow_prepare_ns = slow});
    run_options o = fake_options(&preparing_fake_driver);
    const char *only[] = {"a"};
    o.only = only;
    o.nonly = 1;
    o.iterations = 20;
    o.runs = 1;
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 0);
    const fake_calls *c = fake_calls_of("a");
    assert_int_equal(c->dispatches, 1 + (2 + 20) * 3);
    assert_int_equal(c->prepares, c->dispatches);
    assert_int_equal(c->unprepared, 0);
    const run_figures *f = &result_for(&r, "a", 0)->runs[0].fig;
    assert_int_equal(f->commands, 60);
    /* the prepare's wait is not in any latency */
    assert_true(f->p50_ns < slow);
    report_free(&r);
    scratch_close();
}

static void test_a_failing_prepare_fails_the_run_without_dispatching(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    /* prepare 12 is for dispatch 12: step 2 of cycle 3, timed */
    fake_reset((fake_behaviour){.fail_prepare_at = 12});
    run_options o = fake_options(&preparing_fake_driver);
    o.runs = 1;
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 1);
    char want[512];
    snprintf(want, sizeof want,
             "run 1, timed cycle 3, Item.Bump (%s:%d): fake cannot encode Item.Bump", scratch.path,
             line_of(fake_yaml, "- Item.Bump: {id: \"i-"));
    assert_string_equal(result_for(&r, "a", 0)->reason, want);
    assert_int_equal(fake_calls_of("a")->dispatches, 11);
    assert_int_equal(fake_calls_of("a")->closes, 1);
    report_free(&r);
    scratch_close();
}

/* ---- 6. the memory target on every spec ------------------------------------ */

static void run_memory_on(const char *path, int *policy_events)
{
    spec s = {0};
    open_spec(path, &s);
    const plan *p = s.p;
    run_options o = spy_options();
    const char *only[] = {"memory"};
    o.only = only;
    o.nonly = 1;
    o.iterations = 20;
    o.warmup = 5;
    o.runs = 1;
    const int64_t prefill[] = {3};
    o.prefill = prefill;
    o.nprefill = 1;
    report r = {0};
    int rc = run_one(p, &o, &r);
    if (rc != 0)
        fail_msg("%s: %s", path, r.nfailed ? r.failed[0].reason : "status not 0");
    const target_result *m = result_for(&r, "memory", 3);
    assert_false(m->failed);
    assert_int_equal(m->verify, VERIFY_PASS);
    assert_int_equal(m->nruns, 1);
    if (!plan_is_fixed(p)) { /* a mix: test_examples holds it to the shadow on every target */
        report_free(&r);
        spec_close(&s);
        return;
    }
    assert_int_equal(m->runs[0].fig.commands, 20 * p->work.flows[0].nsteps);
    /* what verify counted is what the commands that succeeded left, policies included */
    assert_int_equal(spy.ncounts, 1);
    uint64_t want_aggs[SPY_MAX], want_events[SPY_MAX];
    plan_expected(p, 3 + 5 + 20, want_aggs, want_events);
    for (size_t i = 0; i < p->naggs; i++)
        assert_int_equal(spy.aggs[0][i], want_aggs[i]);
    for (size_t i = 0; i < p->nevents; i++)
        assert_int_equal(spy.events[0][i], want_events[i]);
    for (size_t i = 0; i < p->npolicies; i++) {
        const event_def *e = p->policies[i].run->event;
        if (!e)
            continue;
        assert_true(spy.events[0][e->index] > 0);
        (*policy_events)++;
    }
    /* particular examples, by name */
    const uint64_t cycles = 3 + 5 + 20;
    if (!strcmp(p->domain, "library")) {
        assert_int_equal(spy.events[0][event_index(p, "LoanCounted")], cycles);
        assert_int_equal(spy.events[0][event_index(p, "ReturnCounted")], cycles);
        assert_int_equal(spy.aggs[0][agg_index(p, "Member")], 1);
        assert_int_equal(spy.aggs[0][agg_index(p, "Copy")], cycles);
    }
    if (!strcmp(p->domain, "inventory")) {
        /* Order.Place reads its product; a missing one would refuse */
        assert_int_equal(spy.aggs[0][agg_index(p, "Order")], cycles);
        assert_int_equal(spy.events[0][event_index(p, "OrderPlaced")], cycles);
        assert_int_equal(spy.events[0][event_index(p, "StockReserved")], cycles);
    }
    report_free(&r);
    spec_close(&s);
}

static void test_memory_target_runs_and_verifies_every_spec(void **state)
{
    const char *dirs[] = {"specs", "examples"};
    int specs = 0, policy_events = 0;
    bool seen_library = false, seen_inventory = false;
    for (size_t d = 0; d < 2; d++) {
        DIR *dir = opendir(dirs[d]);
        assert_non_null(dir);
        struct dirent *e;
        while ((e = readdir(dir))) {
            size_t len = strlen(e->d_name);
            if (len < 5 || strcmp(e->d_name + len - 5, ".yaml") != 0)
                continue;
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dirs[d], e->d_name);
            run_memory_on(path, &policy_events);
            seen_library |= !strcmp(path, "examples/library.yaml");
            seen_inventory |= !strcmp(path, "examples/inventory.yaml");
            specs++;
        }
        closedir(dir);
    }
    assert_true(specs >= 5);
    assert_true(seen_library && seen_inventory);
    assert_true(policy_events >= 3); /* library's two policies and inventory's one */
}

/* ---- 7. the harness floor ---------------------------------------------------- */

/* ---- the open loop ---------------------------------------------------------- */

static const char one_step_yaml[] = "spec: 1\n"
                                    "domain: stall\n"
                                    "aggregates:\n"
                                    "  Item:\n"
                                    "    identity: id\n"
                                    "    fields: {id: string}\n"
                                    "    commands:\n"
                                    "      Make: {creates: true, params: {id: string}}\n"
                                    "workload:\n"
                                    "  cycle:\n"
                                    "    - Item.Make: {id: \"i-${n}\"}\n"
                                    "  warmup: 0\n"
                                    "  iterations: 4000\n"
                                    "  runs: 1\n"
                                    "  arrival: {rate: 2000, process: uniform}\n"
                                    "  targets: [memory]\n";

/* The nearest-rank q-quantile of v (n values, sorted here). */
static double quantile(double *v, size_t n, double q)
{
    for (size_t i = 1; i < n; i++) /* insertion sort: n is small */
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    size_t rank = (size_t)ceil(q * (double)n);
    return v[(rank ? rank : 1) - 1];
}

/* Coordinated omission caught: a target that stalls 100 ms at its 1000th
 * and 3000th dispatch, driven open loop at 2000 cycles/s (which it
 * otherwise sustains with room to spare), shows the stalls in the
 * response-time p99 and p99.9 as the schedule says they must be (each
 * stall delays the ~200 cycles due during it, by up to 100 ms), while the
 * service time's p99 stays far below them. */
static void test_open_loop_charges_a_stall_to_every_cycle_it_delays(void **state)
{
    (void)state;
    const plan *p = scratch_open(one_step_yaml);
    fake_reset((fake_behaviour){.stall_every = 2000, .stall_phase = 1000, .stall_ns = 100000000});
    run_options o = fake_options(&fake_driver);
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 0);
    const target_result *t = result_for(&r, "memory", 0);
    const run_result *run = &t->runs[0];
    assert_true(run->open_loop);
    assert_int_equal(run->offered, 4000);
    assert_int_equal(run->completed, 4000);
    assert_int_equal(run->dropped, 0);
    /* the schedule's own figures: intended start i/2000 s from the pass's
       start (the first dispatch's, whose lag is nothing), and each cycle's
       end as the target saw it: what a cycle waits for behind a stall
       counts, however long the machine's load makes the catching up */
    enum { N = 4000 };
    static double resp[N], model[N];
    double end = 0;
    for (size_t i = 0; i < N; i++) {
        double intended = (double)i * 500000.0;
        resp[i] = (double)(fake_ended[i] - fake_started[0]) - intended;
        /* and with no service time but the two stalls: the least it can be */
        double service = (i + 1) % 2000 == 1000 ? 1e8 : 0;
        end = (end > intended ? end : intended) + service;
        model[i] = end - intended;
    }
    double want99 = quantile(resp, N, 0.99), want999 = quantile(resp, N, 0.999);
    assert_true(quantile(model, N, 0.99) > 5e7); /* the stalls are what p99 holds */
    assert_true(want99 >= quantile(model, N, 0.99));
    const run_figures *f = &run->fig;
    if (fabs(f->p99_ns - want99) > 0.1 * want99 || fabs(f->p999_ns - want999) > 0.1 * want999)
        fail_msg("response p99 %.0f ns and p99.9 %.0f ns; the schedule says %.0f and %.0f",
                 f->p99_ns, f->p999_ns, want99, want999);
    assert_true(run->service_p99_ns < 1e6); /* two stalls in 4000 are not service's p99 */
    assert_true(run->lag_max_ns > 5e7);     /* the cycle after a stall started ~100 ms late */
    print_message("open loop with two 100 ms stalls: response p99 %.1f ms (schedule %.1f), "
                  "p99.9 %.1f ms (schedule %.1f); service p99 %.1f us\n",
                  f->p99_ns / 1e6, want99 / 1e6, f->p999_ns / 1e6, want999 / 1e6,
                  run->service_p99_ns / 1e3);
    report_free(&r);
}

/* The cycles of a schedule due before a time, counted without running
 * them (the open loop's not started, when its duration ends): the same
 * count as drawing them one by one, evenly spaced or Poisson, and the
 * schedule goes on from the same place; past ten million Poisson draws,
 * the mean for the rest, so a long stretch at a high rate costs little. */
static void test_arrivals_due_are_counted_as_drawn(void **state)
{
    (void)state;
    const arrival_process procs[] = {ARRIVAL_UNIFORM, ARRIVAL_POISSON};
    for (size_t i = 0; i < 2; i++) {
        arrival_spec sched = {.process = procs[i], .rate = 3000};
        arrival a, b;
        arrival_init_client(&a, &sched, 42, 1, 1, 3);
        arrival_init_client(&b, &sched, 42, 1, 1, 3);
        for (int k = 0; k < 17; k++) /* some way in */
            assert_int_equal(arrival_next(&a), arrival_next(&b));
        uint64_t end = 2000000000, drawn = 0; /* 2 s: about 2,000 of this client's */
        while (b.next < (double)end) {
            arrival_next(&b);
            drawn++;
        }
        assert_true(drawn > 1900 && drawn < 2100);
        assert_int_equal(arrival_count_before(&a, end), drawn);
        assert_int_equal(arrival_next(&a), arrival_next(&b));
        assert_int_equal(arrival_count_before(&a, 1000), 0); /* nothing due before the past */
    }
    arrival_spec fast = {.process = ARRIVAL_POISSON, .rate = 1e8};
    arrival a;
    arrival_init(&a, &fast, 7, 1);
    uint64_t n = arrival_count_before(&a, 3600000000000u); /* an hour: 3.6e11 due */
    assert_true(fabs((double)n - 3.6e11) < 3.6e11 * 1e-4);
    assert_true(a.next >= 3599999990000.0);
}

/* --duration times the pass by the clock: the run ends after about that
 * long, with as many cycles as fitted, and its intervals cover it. */
static void test_duration_times_the_pass_and_intervals_cover_it(void **state)
{
    (void)state;
    const plan *p = scratch_open(fake_yaml);
    fake_reset((fake_behaviour){0});
    run_options o = fake_options(&fake_driver);
    o.runs = 1;
    o.duration_ns = 300000000; /* 0.3 s */
    o.interval_ns = 100000000; /* 0.1 s */
    const char *only[] = {"a"};
    o.only = only;
    o.nonly = 1;
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 0);
    const run_result *run = &result_for(&r, "a", 0)->runs[0];
    assert_true(run->fig.wall_seconds >= 0.3 && run->fig.wall_seconds < 0.5);
    assert_true(run->fig.commands > 1000);      /* far more than iterations: 5 */
    assert_int_equal(run->fig.commands % 3, 0); /* whole cycles */
    assert_true(run->nintervals >= 3 && run->nintervals <= 4);
    uint64_t sum = 0;
    for (size_t i = 0; i < run->nintervals; i++) {
        assert_int_equal(run->intervals[i].start_ns, i * 100000000u);
        sum += run->intervals[i].commands;
    }
    assert_int_equal(sum, run->fig.commands);
    /* each verb's histogram is its intervals' merged: the same counts, all
       of them, and its percentiles within their extremes */
    uint64_t verbs_sum = 0;
    for (size_t v = 0; v < run->nverbs; v++) {
        uint64_t of_intervals = 0, lo = UINT64_MAX, hi = 0;
        for (size_t i = 0; i < run->nintervals; i++) {
            const hist_buckets *b = &run->intervals[i].verbs[v];
            of_intervals += b->total;
            if (b->total) {
                lo = b->min < lo ? b->min : lo;
                hi = b->max > hi ? b->max : hi;
            }
        }
        assert_true(run->verbs[v].count > 0);
        assert_int_equal(run->verbs[v].count, of_intervals);
        assert_true(run->verbs[v].p50_ns >= (double)lo && run->verbs[v].p99_ns <= (double)hi);
        verbs_sum += run->verbs[v].count;
    }
    assert_int_equal(verbs_sum, run->fig.commands);
    assert_int_equal(result_for(&r, "a", 0)->verify, VERIFY_PASS);
    report_free(&r);
}

static void test_harness_floor_is_measured_only_when_asked(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    fake_reset((fake_behaviour){0});
    run_options o = fake_options(&fake_driver);
    o.runs = 1;
    o.floor_cycles = 200;
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 0);
    assert_true(isfinite(r.harness_floor_p50_ns));
    assert_true(r.harness_floor_p50_ns > 0);
    /* the floor pass runs on the real null target, not on the spec's targets */
    assert_string_equal(fake.order, "1a 1b");
    report_free(&r);
    r = (report){0};
    o.floor_cycles = 0;
    assert_int_equal(run_one(p, &o, &r), 0);
    assert_true(isnan(r.harness_floor_p50_ns));
    report_free(&r);
    scratch_close();
}

/* ---- 8. --samples ------------------------------------------------------------- */

static void test_samples_hold_one_row_per_timed_command(void **state)
{
    spec s = {0};
    open_spec("specs/pizzas.yaml", &s);
    const plan *p = s.p;
    FILE *f = tmpfile();
    assert_non_null(f);
    run_options o = options();
    const char *only[] = {"memory", "null"};
    o.only = only;
    o.nonly = 2;
    const int64_t prefill[] = {3};
    o.prefill = prefill;
    o.nprefill = 1;
    o.warmup = 2;
    o.iterations = 4;
    o.runs = 2;
    o.samples = f;
    o.floor_cycles = 50; /* the floor pass writes no samples */
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 0);
    rewind(f);
    char line[256];
    size_t rows = 0;
    const size_t steps = p->work.flows[0].nsteps;
    /* written after each run, in the order the runs ran */
    const char *labels[] = {"memory", "null", "memory", "null"};
    while (fgets(line, sizeof line, f)) {
        char domain[32], label[32], verb[64];
        int run;
        uint64_t cycle, ns;
        assert_int_equal(sscanf(line, "%31[^,],%31[^,],%d,%63[^,],%" SCNu64 ",%" SCNu64 "\n",
                                domain, label, &run, verb, &cycle, &ns),
                         6);
        size_t per_run = 4 * steps;
        size_t in_run = rows % per_run, block = rows / per_run;
        assert_true(block < 4);
        assert_string_equal(domain, "pizzas");
        assert_string_equal(label, labels[block]);
        assert_int_equal(run, (int)block / 2 + 1);
        assert_string_equal(verb, p->work.flows[0].steps[in_run % steps].cmd->verb);
        assert_int_equal(cycle, 3 + 2 + in_run / steps); /* prefill + warmup first */
        rows++;
    }
    assert_int_equal(rows, 2 * 2 * 4 * steps);
    fclose(f);
    report_free(&r);
    spec_close(&s);
}

/* ---- 9. prefill sizes ------------------------------------------------------------ */

static void test_each_prefill_size_is_its_own_verified_result(void **state)
{
    spec s = {0};
    open_spec("specs/pizzas.yaml", &s);
    const plan *p = s.p;
    run_options o = spy_options();
    const int64_t prefill[] = {0, 50};
    o.prefill = prefill;
    o.nprefill = 2;
    o.warmup = 4;
    o.iterations = 10;
    o.runs = 1;
    static const char *const only[] = {"memory"};
    o.only = only;
    o.nonly = 1;
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 0);
    assert_int_equal(r.nresults, 2);
    assert_int_equal(r.results[0].prefill, 0);
    assert_int_equal(r.results[1].prefill, 50);
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(r.results[i].label, "memory");
        assert_int_equal(r.results[i].verify, VERIFY_PASS);
        assert_int_equal(r.results[i].nruns, 1);
        assert_int_equal(r.results[i].runs[0].fig.commands, 10 * 4);
    }
    assert_int_equal(spy.ncounts, 2);
    size_t order = agg_index(p, "Order");
    assert_int_equal(spy.aggs[0][order], 0 + 4 + 10);
    assert_int_equal(spy.aggs[1][order], 50 + 4 + 10);
    assert_int_equal(r.nskipped, 0); /* the others are not considered */
    assert_int_equal(r.nfailed, 0);
    report_free(&r);
    spec_close(&s);
}

/* ---- 10. interrupts ----------------------------------------------------------------- */

static void test_interrupt_stops_at_the_cycle_boundary_and_keeps_finished_runs(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    /* 22 dispatches per run: a1 is 1-22, b1 23-44, a2 from 45: setup 45,
     * warmup 46-51, timed cycle 2 is 52-54, cycle 3 is 55-57 */
    fake_reset((fake_behaviour){.interrupt_at = 56});
    run_options o = fake_options(&fake_driver);
    report r = {0};
    fill_config(&r, &p, 1, &o);
    assert_int_equal(run_one(p, &o, &r), 130);
    assert_true(r.interrupted);
    assert_int_equal(fake.dispatches, 57); /* the cycle under way finishes, no more */
    assert_string_equal(fake.order, "1a 1b 2a");
    assert_string_equal(trace_of("a"), "open dispatch*7 probe*500 dispatch*15 count probe*500 "
                                       "close open dispatch*7 probe*500 dispatch*6 close");
    assert_int_equal(fake.open_now, 0);
    assert_int_equal(r.nresults, 2);
    assert_int_equal(result_for(&r, "a", 0)->nruns, 1);
    assert_int_equal(result_for(&r, "b", 0)->nruns, 1);
    assert_false(result_for(&r, "a", 0)->failed); /* interrupted is not failed */
    assert_int_equal(r.nfailed, 0);
    assert_true(isfinite(result_for(&r, "a", 0)->median.p50_ns));
    assert_report_validates(&r);
    config_free(&r);
    report_free(&r);
    runner_interrupted = 0;
    scratch_close();
}

static void test_interrupt_before_a_second_spec_leaves_it_out(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    /* on the very last dispatch of the first spec: its runs all finish */
    fake_reset((fake_behaviour){.interrupt_at = 3 * 2 * 22});
    run_options o = fake_options(&fake_driver);
    const plan *plans[] = {p, p};
    report r = {0};
    assert_int_equal(runner_run(plans, 2, &o, &r), 130);
    assert_true(r.interrupted);
    assert_int_equal(r.nresults, 2);
    assert_int_equal(r.results[0].nruns, 3);
    assert_int_equal(r.results[1].nruns, 3);
    assert_string_equal(fake.order, "1a 1b 2a 2b 3a 3b");
    assert_int_equal(fake.dispatches, 3 * 2 * 22);
    report_free(&r);
    runner_interrupted = 0;
    scratch_close();
}

/* Runs fn with stderr going to a string, which the caller frees. */
static char *capture_stderr(void (*fn)(void *), void *arg)
{
    fflush(stderr);
    int saved = dup(2);
    assert_true(saved >= 0);
    FILE *cap = tmpfile();
    assert_non_null(cap);
    assert_true(dup2(fileno(cap), 2) >= 0);
    fn(arg);
    fflush(stderr);
    assert_true(dup2(saved, 2) >= 0);
    close(saved);
    long len = ftell(cap);
    assert_true(len >= 0);
    char *text = calloc((size_t)len + 1, 1);
    assert_non_null(text);
    rewind(cap);
    assert_int_equal(fread(text, 1, (size_t)len, cap), (size_t)len);
    fclose(cap);
    return text;
}

typedef struct interrupted_run {
    const plan *p;
    int rc;
} interrupted_run;

static void run_until_interrupted(void *arg)
{
    interrupted_run *ir = arg;
    fake_reset((fake_behaviour){.interrupt_at = 56}); /* in run 2 of a, as above */
    run_options o = fake_options(&fake_driver);
    o.quiet = false;
    report r = {0};
    ir->rc = run_one(ir->p, &o, &r);
    report_free(&r);
}

static void test_progress_lines_name_only_the_runs_that_finished(void **state)
{
    interrupted_run ir = {.p = scratch_open(fake_yaml)};
    char *err = capture_stderr(run_until_interrupted, &ir);
    runner_interrupted = 0;
    assert_int_equal(ir.rc, 130);
    assert_non_null(strstr(err, "fake a run 1/3: "));
    assert_non_null(strstr(err, "fake b run 1/3: "));
    if (strstr(err, "run 2"))
        fail_msg("a progress line for a run that did not finish:\n%s", err);
    free(err);
    scratch_close();
}

/* ---- 11. the real report ----------------------------------------------------------- */

static void test_report_of_a_real_run_validates_against_the_schema(void **state)
{
    spec s = {0};
    open_spec("specs/pizzas.yaml", &s);
    const plan *p = s.p;
    run_options o = options();
    const char *only[] = {"memory", "null"};
    o.only = only;
    o.nonly = 2;
    o.warmup = 5;
    o.iterations = 30;
    o.runs = 2;
    o.floor_cycles = 200;
    report r = {0};
    fill_config(&r, &p, 1, &o);
    r.config.ntargets = 0;
    for (size_t i = 0; i < 2; i++)
        r.config.targets[r.config.ntargets++] = only[i];
    assert_int_equal(runner_run(&p, 1, &o, &r), 0);
    assert_int_equal(r.nresults, 2);
    assert_int_equal(r.nskipped, 0); /* --targets memory,null: the others are not considered */
    assert_true(isfinite(r.harness_floor_p50_ns));
    assert_report_validates(&r);
    cJSON *json = report_to_cjson(&r);
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(json, "results");
    assert_int_equal(cJSON_GetArraySize(results), 2);
    const cJSON *run0 = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(results, 0), "runs"), 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(run0, "tenths")), 10);
    assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(run0, "commands")),
                     30 * 4);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                            cJSON_GetArrayItem(results, 0), "verify")),
                        "pass");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                            cJSON_GetArrayItem(results, 1), "verify")),
                        "n/a");
    cJSON_Delete(json);
    char *md = render(report_markdown, &r);
    assert_non_null(strstr(md, "| pizzas | memory"));
    assert_non_null(strstr(md, "| pizzas | null |"));
    free(md);
    char *csv = render(report_csv, &r);
    size_t lines = 0;
    for (const char *c = csv; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 1 + 2); /* a header and one row per result */
    free(csv);
    char *text = render(report_json, &r);
    cJSON *back = cJSON_Parse(text);
    assert_non_null(back);
    cJSON_Delete(back);
    free(text);
    config_free(&r);
    report_free(&r);
    spec_close(&s);
}

/* ---- floors, failures, placement -------------------------------------------- */

static void assert_fails_with(const report *r, const char *want, int run)
{
    const target_result *a = result_for(r, "a", 0);
    assert_true(a->failed);
    if (!strstr(a->reason, want))
        fail_msg("'%s' does not contain '%s'", a->reason, want);
    assert_int_equal(a->failed_run, run);
    assert_int_not_equal(a->verify, VERIFY_PASS); /* never failed beside a pass */
}

static void test_a_floor_probe_that_fails_fails_the_run(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    fake_reset((fake_behaviour){.probe_wrong_at = 1, .probe_rc = TARGET_ERROR});
    run_options o = fake_options(&fake_driver);
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 1);
    assert_fails_with(&r,
                      "run 1, floor probe before the timed pass (0 of 500 refused): the fake "
                      "runtime exited with status 3",
                      1);
    assert_int_equal(result_for(&r, "a", 0)->nruns, 0);
    assert_string_equal(trace_of("a"), "open dispatch*7 probe close");
    report_free(&r);

    /* fewer than 500 refused after the pass: the floor is not measured */
    fake_reset((fake_behaviour){.probe_wrong_at = 700, .probe_rc = TARGET_ERROR});
    o = fake_options(&fake_driver);
    r = (report){0};
    assert_int_equal(run_one(p, &o, &r), 1);
    assert_fails_with(&r, "run 1, floor probe after the timed pass (199 of 500 refused)", 1);
    report_free(&r);
    scratch_close();
}

static void test_a_floor_probe_answered_ok_fails_the_run(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    fake_reset((fake_behaviour){.probe_wrong_at = 1, .probe_rc = TARGET_OK});
    run_options o = fake_options(&fake_driver);
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 1);
    assert_fails_with(&r,
                      "run 1, floor probe before the timed pass (0 of 500 refused): the target "
                      "accepted the probe instead of refusing it",
                      1);
    report_free(&r);
    scratch_close();
}

static void test_a_run_that_fails_in_run_2_marks_the_result_failed(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    /* run 1 probes 1-1000; run 2's first probe fails */
    fake_reset((fake_behaviour){.probe_wrong_at = 1001, .probe_rc = TARGET_ERROR});
    run_options o = fake_options(&fake_driver);
    report r = {0};
    fill_config(&r, &p, 1, &o);
    assert_int_equal(run_one(p, &o, &r), 1);
    assert_fails_with(&r, "run 2, floor probe before the timed pass", 2);
    const target_result *a = result_for(&r, "a", 0);
    assert_int_equal(a->nruns, 1);          /* run 1 finished and passed verify ... */
    assert_int_equal(a->verify, VERIFY_NA); /* ... which is no pass for the result */
    assert_report_validates(&r);
    config_free(&r);
    report_free(&r);
    scratch_close();
}

/* A target without TARGET_CAN_QUERY is skipped, with one sentence, for a
 * spec that declares queries; the same target runs the spec without them. */
static void test_a_target_that_cannot_run_queries_is_skipped(void **state)
{
    static const char yaml[] = "spec: 1\n"
                               "domain: fake\n"
                               "aggregates:\n"
                               "  Item:\n"
                               "    identity: id\n"
                               "    fields: {id: string}\n"
                               "    commands:\n"
                               "      Make: {creates: true, params: {id: string}}\n"
                               "    queries:\n"
                               "      Look: {params: {id: string}, returns: {id: id}}\n"
                               "workload:\n"
                               "  cycle:\n"
                               "    - Item.Make: {id: \"i-${n}\"}\n"
                               "  targets: [memory, null]\n";
    const plan *p = scratch_open(yaml);
    fake_reset((fake_behaviour){0});
    run_options o = fake_options(&fake_driver);
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 0);
    assert_int_equal(r.nskipped, 1);
    assert_string_equal(r.skipped[0].label, "memory");
    assert_string_equal(r.skipped[0].reason, "the fake target cannot run queries");
    assert_int_equal(r.nresults, 1); /* null runs queries (and judges none) */
    assert_string_equal(r.results[0].label, "null");
    assert_int_equal(fake_calls_of("memory")->opens, 0);
    report_free(&r);
    scratch_close();
}

static void test_nothing_ran_when_every_target_is_skipped(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    fake_reset((fake_behaviour){0});
    run_options o = fake_options(NULL); /* no driver for memory: both entries skipped */
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 1);
    assert_int_equal(r.nskipped, 2);
    char why[128];
    assert_true(runner_nothing_ran(&r, why, sizeof why));
    assert_string_equal(why, "every target was skipped");
    report_free(&r);

    /* every target failed in its first run */
    fake_reset((fake_behaviour){.probe_wrong_at = 1, .probe_rc = TARGET_ERROR});
    o = fake_options(&fake_driver);
    r = (report){0};
    assert_int_equal(run_one(p, &o, &r), 1);
    assert_true(runner_nothing_ran(&r, why, sizeof why));
    assert_string_equal(why, "every target failed before a run of it finished");
    report_free(&r);

    fake_reset((fake_behaviour){0});
    o = fake_options(&fake_driver);
    r = (report){0};
    assert_int_equal(run_one(p, &o, &r), 0);
    assert_false(runner_nothing_ran(&r, NULL, 0));
    report_free(&r);
    scratch_close();
}

static void test_a_one_cpu_target_is_pinned_by_default_and_recorded(void **state)
{
    const plan *p = scratch_open(fake_yaml);
    cpu_set_t before;
    assert_int_equal(sched_getaffinity(0, sizeof before, &before), 0);
    fake_reset((fake_behaviour){0});
    run_options o = fake_options(&one_cpu_fake_driver);
    o.runs = 1;
    report r = {0};
    assert_int_equal(run_one(p, &o, &r), 0);
    assert_int_equal(fake.cpus_at_open, 1);
    const target_result *a = result_for(&r, "a", 0);
    int last = -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        last = CPU_ISSET(c, &before) ? c : last;
    char want[256];
    snprintf(want, sizeof want,
             "bench and its child on CPU %d (the fake target's default; --cpu overrides)", last);
    assert_string_equal(a->placement, want);
    cpu_set_t after;
    assert_int_equal(sched_getaffinity(0, sizeof after, &after), 0);
    assert_true(CPU_EQUAL(&before, &after)); /* put back after the run */
    report_free(&r);

    /* --cpu chose: no pinning, the affinity in force recorded */
    fake_reset((fake_behaviour){0});
    o = fake_options(&one_cpu_fake_driver);
    o.runs = 1;
    r = (report){.config = {.cpu = "0-1"}};
    assert_int_equal(run_one(p, &o, &r), 0);
    assert_int_equal(fake.cpus_at_open, CPU_COUNT(&before));
    char cpus[128];
    env_affinity_string(cpus, sizeof cpus);
    snprintf(want, sizeof want, "bench and its child on CPU%s %s (--cpu)",
             CPU_COUNT(&before) > 1 ? "s" : "", cpus);
    assert_string_equal(result_for(&r, "a", 0)->placement, want);
    report_free(&r);

    /* a target without the capability is never pinned */
    fake_reset((fake_behaviour){0});
    o = fake_options(&fake_driver);
    o.runs = 1;
    r = (report){0};
    assert_int_equal(run_one(p, &o, &r), 0);
    assert_int_equal(fake.cpus_at_open, CPU_COUNT(&before));
    assert_true(strncmp(result_for(&r, "a", 0)->placement, "bench on CPU", 12) == 0);
    report_free(&r);
    scratch_close();
}

int main(void)
{
#define T(f) cmocka_unit_test_teardown(f, teardown)
    const struct CMUnitTest tests[] = {
        T(test_runs_interleave_across_targets_each_a_fresh_boot),
        T(test_dispatches_are_setup_plus_cycles_times_steps_then_count_probe_close),
        T(test_a_target_without_probe_or_count_gets_neither_and_is_still_closed),
        T(test_reserve_comes_between_warmup_and_the_timed_pass),
        T(test_verify_fails_when_the_store_holds_fewer_aggregates),
        T(test_verify_fails_when_the_store_holds_fewer_events),
        T(test_verify_is_not_applicable_without_count_never_a_pass),
        T(test_null_target_verify_is_not_applicable),
        T(test_null_target_reports_no_refusals),
        T(test_refusal_mid_cycle_fails_the_run_with_step_and_cycle),
        T(test_refusal_in_setup_names_the_setup_step),
        T(test_refusal_in_warmup_names_the_warmup_cycle),
        T(test_expected_refusals_are_counted_and_the_run_passes),
        T(test_unexpected_success_of_an_expect_step_fails_the_run),
        T(test_unexpected_success_on_memory_fails_the_run),
        T(test_the_reserve_takes_the_page_faults_out_of_the_pass),
        T(test_counted_refusals_are_reported_with_goodput),
        T(test_scan_rows_are_counted_per_verb),
        T(test_figures_follow_from_the_timed_commands),
        T(test_drift_is_absent_with_fewer_than_ten_cycles),
        T(test_prepare_precedes_each_dispatch_outside_the_clock),
        T(test_a_failing_prepare_fails_the_run_without_dispatching),
        T(test_memory_target_runs_and_verifies_every_spec),
        T(test_harness_floor_is_measured_only_when_asked),
        T(test_open_loop_charges_a_stall_to_every_cycle_it_delays),
        T(test_arrivals_due_are_counted_as_drawn),
        T(test_duration_times_the_pass_and_intervals_cover_it),
        T(test_samples_hold_one_row_per_timed_command),
        T(test_each_prefill_size_is_its_own_verified_result),
        T(test_interrupt_stops_at_the_cycle_boundary_and_keeps_finished_runs),
        T(test_interrupt_before_a_second_spec_leaves_it_out),
        T(test_progress_lines_name_only_the_runs_that_finished),
        T(test_report_of_a_real_run_validates_against_the_schema),
        T(test_a_floor_probe_that_fails_fails_the_run),
        T(test_a_floor_probe_answered_ok_fails_the_run),
        T(test_a_run_that_fails_in_run_2_marks_the_result_failed),
        T(test_nothing_ran_when_every_target_is_skipped),
        T(test_a_target_that_cannot_run_queries_is_skipped),
        T(test_a_one_cpu_target_is_pinned_by_default_and_recorded),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
