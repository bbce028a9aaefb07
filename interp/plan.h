/* plan.h: the compiled form of a spec, the immutable hand-off from the
 * compiler to everything after it (plan printing, lint's dry run, the
 * runtime, the runner). Everything lives in the plan's arena and is freed
 * by plan_free. Indexes are stable: aggregates, commands and events are
 * numbered in declaration order so stores and statistics can use arrays. */
#ifndef BENCH_PLAN_H
#define BENCH_PLAN_H

#include "arena.h"
#include "arrival.h"
#include "diag.h"
#include "draw.h"
#include "expr.h"
#include "load.h"
#include "name_index.h"
#include "types.h"

/* Policy chains: one dispatch runs at most this many policies one after
 * another (a chain of 8 is allowed, a ninth policy is not). Lint refuses a
 * spec whose policies can chain deeper; the runtime refuses a dispatch that
 * would. */
enum { PLAN_POLICY_MAX_DEPTH = 8 };

typedef struct aggregate aggregate;
typedef struct command command;
typedef struct policy policy;

typedef struct check {
    const expr *cond;   /* bool */
    const char *refuse; /* the refusal message */
    const node *at;
} check;

typedef struct read_spec {
    const char *alias;
    const aggregate *agg;
    const expr *key; /* compiled against the command's args (and self) */
    const node *at;
} read_spec;

typedef enum effect_kind {
    EFFECT_SET,    /* field := value */
    EFFECT_APPEND, /* list field gets one more item */
} effect_kind;

typedef struct effect {
    effect_kind kind;
    int field;          /* index in the aggregate's state struct */
    const expr *value;  /* the value set or the item appended; NULL when built */
    const expr **build; /* an appended struct built field by field (one expr per
                           element field; NULL for an unset optional or a default) */
    const node *at;
} effect;

typedef struct event_def {
    const char *name;
    const ty *payload; /* struct type of the payload */
    size_t index;
    const node *at;          /* the first emits that names it */
    const policy **policies; /* the policies it triggers, in declaration order */
    size_t npolicies;
} event_def;

/* A query is a command with `query` set: it loads its record and reads,
 * runs its guards (it may refuse) and answers `returns`, evaluated on the
 * record; it has no effects, no ensure and no event, and writes nothing.
 * Verbs, steps and statistics treat it as any command. */
struct command {
    const char *name; /* "Purchase" */
    const char *verb; /* "Order.Purchase" */
    const aggregate *agg;
    size_t index; /* across the whole plan */
    bool query;   /* a query: declared under queries, read-only */
    bool creates;
    bool deletes;       /* removes its record once the guards pass (no effects, no ensure) */
    const ty *params;   /* struct type; declaration order */
    int identity_param; /* index in params of the identity parameter */
    read_spec *reads;
    size_t nreads;
    check *guards;
    size_t nguards;
    effect *effects;
    size_t neffects;
    check *ensures;
    size_t nensures;
    const event_def *event; /* NULL when the command emits nothing */
    const expr **payload;   /* one per payload field, or NULL: the payload is the args */
    /* its dispatch runs a for_each policy (through its policies, transitively)
       whose command adds records or events: what it adds depends on a list's
       length, so no total follows from the plan (plan_is_fixed) */
    bool counts_unknown;
    const ty *returns;          /* a query's answer: a struct of the returns names, each of its
                                   expression's type (NULL for a command) */
    const expr **returns_exprs; /* one per field of returns, compiled like guards */
    /* a scan (scan: {limit: PARAM}): the identity parameter is the start
       key; it answers the records whose identity is >= it, in identity
       order, at most the limit parameter's value of them, returns
       evaluated on each (no guards, no reads) */
    bool scan;
    int scan_limit;      /* a scan: index in params of its limit (an int) */
    const ty *rows;      /* a scan's answer: a list of returns */
    const node *scan_at; /* a scan: its scan key */
    const node *at;
};

struct aggregate {
    const char *name;
    const ty *state; /* struct type of the record */
    int identity;    /* index of the identity field */
    command *commands;
    size_t ncommands;
    command *queries; /* declared under queries; indexed after its commands in the plan */
    size_t nqueries;
    size_t index;
    const node *at;
};

struct policy {
    const event_def *on;
    const command *run;
    /* for_each: a list over env.event; run runs once per item, in order, in
       the same dispatch (all or nothing). NULL for a plain policy. */
    const expr *for_each;
    const ty *item;    /* the type of `item` in args: for_each's element type, or NULL */
    const expr **args; /* one per parameter of run, compiled with env.event (and env.item) */
    const node *at;
};

/* A pool (DESIGN section 9): a named set of identities of records of one
 * aggregate type, in the order they joined; steps add to it with `into`,
 * templates draw from it with pick and take. */
typedef struct pool_def {
    const char *name;
    const aggregate *agg; /* whose identities it holds */
    size_t index;
    const node *at; /* the first `into` that names it */
} pool_def;

/* A draw inside a template: ${uniform(a, b)}, ${pick(pool, dist)},
 * ${take(pool, dist)}. */
typedef enum draw_kind {
    DRAW_UNIFORM, /* an int in [lo, hi] */
    DRAW_PICK,    /* an identity of the pool; it stays */
    DRAW_TAKE,    /* an identity of the pool, removed from it */
} draw_kind;

typedef struct draw_def {
    draw_kind kind;
    int64_t lo, hi; /* DRAW_UNIFORM */
    size_t pool;    /* DRAW_PICK, DRAW_TAKE: index in the workload's pools */
    dist_spec dist; /* DRAW_PICK, DRAW_TAKE */
    size_t index;   /* in the workload's draws: the runner keeps one state per draw */
    const ty *type; /* what it gives: int, or the pool's identity type */
    const node *at;
} draw_def;

/* A piece of a templated string: literal text, a variable or a draw. */
typedef enum tmpl_var {
    TMPL_TEXT,
    TMPL_N,      /* ${n}: the cycle number */
    TMPL_RUN,    /* ${run}: the run number, from 1 */
    TMPL_CLIENT, /* ${client}: the client's number, from 0 */
    TMPL_BIND,   /* ${name}: a value the flow's `with` bound for this cycle */
    TMPL_DRAW,   /* ${uniform(..)}, ${pick(..)}, ${take(..)}: drawn when the step is expanded */
} tmpl_var;

typedef struct tmpl_part {
    tmpl_var var;
    const char *text;     /* TMPL_TEXT only */
    size_t len;           /* TMPL_TEXT only */
    size_t bind;          /* TMPL_BIND: index in the flow's bindings */
    const draw_def *draw; /* TMPL_DRAW */
} tmpl_part;

/* One templated value inside a step's arguments (or a flow's binding). */
typedef struct tmpl {
    const int *path; /* indexes from the args struct down to the value */
    size_t depth;
    bool as_int; /* exactly one variable or draw feeding an int */
    tmpl_part *parts;
    size_t nparts;
    size_t max_len; /* bytes the expansion can take when it is bounded (n, run, ints);
                       a string from a pool or binding makes it grow as needed */
    const node *at;
} tmpl;

/* One field of a query step's expect: {returns: {...}}: the answer's field
 * `field` (an index in cmd->returns) must equal want. */
typedef struct expect_field {
    int field;
    value want; /* a constant of the field's type */
    const node *at;
} expect_field;

typedef struct step {
    const command *cmd;
    bool expect_refused;
    const char *expect_text;    /* expect: {refused: TEXT}: the exact refusal; NULL for any */
    const node *expect_text_at; /* where TEXT is written */
    bool count_refusals;        /* on_refusal: count: a refusal is counted, not an abort */
    int into;                   /* into: POOL: its index, or -1 */
    const expect_field *expect_returns; /* expect: {returns: ...} of a query step, in the order
                                           written; NULL when the step checks no answer */
    size_t nexpect_returns;
    bool expect_rows_set; /* expect: {rows: N} of a scan step */
    int64_t expect_rows;  /* N: the records the scan must answer */
    value args;           /* a VAL_STRUCT of constants laid out as cmd->params */
    tmpl *tmpls;          /* values to fill in per cycle */
    size_t ntmpls;
    const node *at;
} step;

/* A value a flow binds once per cycle (`with: {o: "${pick(open, zipf)}"}`). */
typedef struct binding {
    const char *name;
    const ty *type; /* int or string */
    tmpl t;
    const node *at;
} binding;

/* A flow of a mix: its steps, its weight, its bindings. `cycle:` is a mix
 * of one flow named "cycle". */
typedef struct flow {
    const char *name;
    int64_t weight;
    binding *with;
    size_t nwith;
    step *steps;
    size_t nsteps;
    size_t *need; /* per pool: records it must hold for the flow to run (0: not drawn from) */
    const node *at;
} flow;

/* One option of a target entry as the spec gives it; which member holds
 * the value follows the type its driver declares (target.h). */
typedef struct target_opt_value {
    const char *name;        /* the option's name */
    const char *s;           /* string and enum options */
    int64_t i;               /* int options */
    bool b;                  /* bool options */
    const char *const *argv; /* argv options: NULL-terminated */
    const char *const *keys; /* verb maps: the spec's verbs ... */
    const char *const *vals; /* ... and what each is called */
    size_t n;                /* verb maps: pairs */
    const node *at;
} target_opt_value;

struct target_driver;

typedef struct target_spec {
    const char *name;                   /* the driver's name */
    const char *label;                  /* the row's name; default the driver's name */
    const struct target_driver *driver; /* resolved by the compiler (NULL: by name) */
    const target_opt_value *opts;       /* the options given, in the order written */
    size_t nopts;
    const node *at;
} target_spec;

/* How much verify reads back after a run (DESIGN section 11): the counts
 * and a sample of records (the default), every record, or every record
 * and the counts against the shadow's. */
typedef enum verify_level {
    VERIFY_LEVEL_DEFAULT = 0, /* in run options: as the spec says */
    VERIFY_LEVEL_COUNTS,
    VERIFY_LEVEL_STATE,
    VERIFY_LEVEL_FULL,
} verify_level;

/* The level named s ("counts", "state", "full"), or VERIFY_LEVEL_DEFAULT
 * when s names none. */
verify_level verify_level_of(const char *s);

typedef struct workload {
    step *setup;
    size_t nsetup;
    flow *flows; /* at least one; `cycle:` gives one */
    size_t nflows;
    bool is_mix; /* written as `mix:` */
    pool_def *pools;
    size_t npools;
    size_t ndraws;    /* draws in every template, numbered */
    uint64_t seed;    /* workload.seed; default 1 */
    int prefill_flow; /* prefill: {flow: NAME}: its index; -1: the mix */
    int64_t *prefill; /* at least one entry; {0} by default */
    size_t nprefill;
    int64_t warmup, iterations, runs;
    uint64_t duration_ns;   /* workload.duration: the timed pass lasts this long instead of
                               `iterations` cycles; 0: iterations decide */
    arrival_spec arrival;   /* workload.arrival: the open loop; process ARRIVAL_NONE: closed */
    int64_t clients;        /* workload.clients: callers at once (a sweep's first); default 1 */
    int64_t *client_levels; /* workload.clients: [..]: a sweep, one result per level */
    size_t nclient_levels;  /* 0 when clients is one number */
    double *rate_levels;    /* workload.arrival.rate: [..]: a sweep, one result per level */
    size_t nrate_levels;    /* 0 when rate is one number (arrival.rate is the first) */
    bool shared_keys;       /* workload.keys: shared (one set of pools); false: per_client */
    verify_level verify;    /* workload.verify; default counts */
    target_spec *targets;
    size_t ntargets;
} workload;

/* What a store holds after one run with the spec's own settings, per the
 * plan: computed by the compiler, one per prefill entry (fixed workloads
 * only: plan_is_fixed). */
typedef struct plan_totals {
    int64_t prefill;            /* the prefill entry these totals are for */
    size_t commands_per_cycle;  /* steps in the cycle */
    uint64_t commands_timed;    /* per run: iterations * commands_per_cycle */
    const uint64_t *aggregates; /* per aggregate index */
    const uint64_t *events;     /* per event index */
} plan_totals;

/* What one successful dispatch of a command adds to the store: n entries,
 * each an index (aggregates first, then naggs + the event's index) and how
 * much it moves. */
typedef struct cmd_delta {
    size_t n;
    const uint32_t *at;
    const int64_t *by;
} cmd_delta;

typedef struct plan {
    arena mem;
    doc *source; /* the loaded document, kept for addresses */
    const char *path;
    const char *domain;
    const char *about;
    const ty **types; /* named types in declaration order */
    size_t ntypes;
    aggregate *aggs;
    size_t naggs;
    const command **commands; /* every command and query, by index */
    size_t ncommands;
    name_index verbs; /* "Aggregate.Command" -> its command (or query) */
    event_def *events;
    size_t nevents;
    policy *policies;
    size_t npolicies;
    workload work;
    ty **regex; /* types owning a compiled pattern (malloc'd list) */
    size_t nregex, regex_cap;
    /* per cycle and for setup, what one pass adds to the store (policies
       included, expected refusals not); records are creates minus deletes,
       so a pass may remove more than it adds */
    const int64_t *cycle_aggs, *setup_aggs;
    const uint64_t *cycle_events, *setup_events;
    const plan_totals *totals; /* work.nprefill entries, in prefill order; NULL unless fixed */
    bool totals_overflow;      /* fixed, but the totals do not fit in 64 bits: totals is NULL */
    /* per command index, what one successful dispatch adds (policies
       included), per command index: only what changes */
    const cmd_delta *cmd_delta;
} plan;

/* Compiles a loaded, schema-checked document. Every error found while
 * compiling is appended to d (with its address); the passes over the
 * finished plan and the warnings are lint's (lint.h). Returns 0 and a plan in
 * *out (the caller's, plan_free; the plan takes ownership of dc) or -1 with
 * *out NULL when there is any error (dc is then still the caller's). */
int plan_compile(doc *dc, diag_list *d, plan **out);
void plan_free(plan *p);

/* What the store holds after setup and `cycles` cycles (prefill + warmup +
 * iterations as in force: flags may override the spec): setup plus cycles
 * times what one cycle adds, into the caller's aggs (p->naggs entries) and
 * events (p->nevents entries). A record count that deletes would take below
 * zero is 0 (such a run has refusals that verify reports first). All zeros for
 * a plan that is not fixed (plan_is_fixed). Reads the
 * plan only; never allocates. */
void plan_expected(const plan *p, uint64_t cycles, uint64_t *aggs, uint64_t *events);

/* Whether the workload draws nothing and runs one flow: what the store
 * holds after a run then follows from the plan alone (plan_expected). */
bool plan_is_fixed(const plan *p);

/* Looks a command or query up by its verb "Aggregate.Command"; NULL when
 * unknown. */
const command *plan_find_verb(const plan *p, const char *verb);
/* Whether the plan declares any query (a target must run queries, then). */
bool plan_has_queries(const plan *p);
/* Whether the plan declares a scan query on agg (NULL: on any aggregate;
 * a target must run scans, then). */
bool plan_scans(const plan *p, const aggregate *agg);
/* Whether a step checks its query's answer (expect: {returns} or {rows}):
 * the runner asks the target for the answer after the clock stops. */
static inline bool step_checks_answer(const step *st)
{
    return st->expect_returns || st->expect_rows_set;
}

/* Prints the plan for review (bench plan). */
void plan_print_text(const plan *p, FILE *out);
/* Prints it as JSON. Returns 0 or -1 on an output error. */
int plan_print_json(const plan *p, FILE *out);
/* bench plan --trace: setup and the first `cycles` cycles of run 1 with
 * seed, as drawn, each dispatched on the in-process memory store (the
 * outcomes fill the pools as a run's would): the cycle's phase and flow,
 * each step's arguments and outcome; text, or JSON with json. Stops early
 * when no flow can run or a draw finds its pool empty, and says so.
 * Returns 0, or -1 when it stopped early or could not start. */
int plan_trace(const plan *p, uint64_t cycles, uint64_t seed, bool json, FILE *out);

#endif
