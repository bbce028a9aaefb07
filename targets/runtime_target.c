/* runtime_target.c: the one driver that runs the C runtime on a store. Each
 * store the registry lists becomes a target of the store's name, options
 * and about line; a run opens a fresh store, puts the runtime on it, and
 * dispatches every command through it. */
#include "runtime_target.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "alloc.h"
#include "runtime.h"
#include "store_driver.h"

typedef struct runtime_target {
    target base;
    const plan *p;
    store *store;
    runtime *rt;
    bool session;         /* a client's session: its store is a session on another's */
    store *own_session;   /* session_for_all: the first client's session on its own store */
    int64_t max_tries;    /* the retry option's, or 1 */
    bool counts_failures; /* the retry option is given: a conflict after the last try is
                             TARGET_FAILED (counted), not an error that fails the run */
} runtime_target;

store *runtime_target_store(target *t)
{
    return t && t->driver->store ? ((runtime_target *)t)->store : NULL;
}

uint64_t runtime_target_lock_waits(target *t)
{
    store *s = runtime_target_store(t);
    return s && t->driver->store->lock_waits ? t->driver->store->lock_waits(s) : 0;
}

/* The retry option (tries of a command in all, the first included), and
 * room to count the tries after the first per command. */
static int retry_init(runtime_target *rt, const plan *p)
{
    /* the spec's driver, as target_opt_int takes it, else the one opening it
       (the registry's for that name): no lookup, so that this file needs
       no registry (which makes these drivers) */
    const target_spec *ts = rt->base.spec;
    rt->max_tries =
        target_driver_opt_int(ts->driver ? ts->driver : rt->base.driver, ts, "retry", 1);
    rt->counts_failures = target_opt_given(ts, "retry") && rt->base.driver->store->retryable;
    if (!rt->counts_failures)
        return 0;
    rt->base.retries = calloc(p->ncommands + 1, sizeof *rt->base.retries);
    return rt->base.retries ? 0 : -1;
}

static int rt_available(const target_driver *self, const target_spec *spec, char *why, size_t size)
{
    const store_driver *sd = self->store;
    return sd->available ? sd->available(spec, why, size) : 0;
}

static void rt_close(target *t)
{
    runtime_target *rt = (runtime_target *)t;
    runtime_free(rt->rt);
    free(t->retries);
    if (rt->own_session)
        t->driver->store->session_close(rt->own_session);
    if (rt->session && rt->store)
        t->driver->store->session_close(rt->store);
    else
        store_close(rt->store);
    free(rt);
}

static int rt_open(const target_driver *self, const plan *p, const target_spec *spec, int run,
                   target **out, char *err, size_t size)
{
    *out = NULL;
    runtime_target *rt = calloc_lines(1, sizeof *rt); /* client 0's thread writes it */
    if (!rt) {
        snprintf(err, size, "%s: out of memory", self->name);
        return TARGET_ERROR;
    }
    rt->base.driver = self;
    rt->base.spec = spec;
    rt->p = p;
    if (store_open(self->store, p, spec, run, &rt->store, err, size) < 0) {
        rt_close(&rt->base);
        return TARGET_ERROR;
    }
    rt->store->round_trips = &rt->base.round_trips;
    if (runtime_new(p, rt->store, &rt->rt) < 0 || retry_init(rt, p) < 0) {
        snprintf(err, size, "%s: out of memory", self->name);
        rt_close(&rt->base);
        return TARGET_ERROR;
    }
    runtime_keep_constants(rt->rt); /* target.args_checked's promise */
    *out = &rt->base;
    return TARGET_OK;
}

/* A store that is not safe beside its sessions: the first client's runtime
 * moves onto a session of its own (the store serves count and read). */
static int own_session(runtime_target *owner, char *err, size_t size)
{
    const store_driver *sd = owner->base.driver->store;
    runtime *r = NULL;
    if (sd->session(owner->store, &owner->own_session, err, size) < 0)
        return -1;
    owner->own_session->driver = sd;
    owner->own_session->round_trips = &owner->base.round_trips;
    if (runtime_new(owner->p, owner->own_session, &r) < 0) {
        snprintf(err, size, "%s: out of memory", sd->name);
        return -1;
    }
    runtime_keep_constants(r);
    runtime_free(owner->rt);
    owner->rt = r;
    return 0;
}

/* A client's session: a session on the store and a runtime of its own. */
static int rt_session(target *t, int client, target **out, char *err, size_t size)
{
    (void)client;
    runtime_target *owner = (runtime_target *)t;
    const store_driver *sd = t->driver->store;
    *out = NULL;
    if (sd->session_for_all && !owner->own_session && own_session(owner, err, size) < 0)
        return TARGET_ERROR;
    runtime_target *rt = calloc_lines(1, sizeof *rt); /* its client's thread writes it */
    if (!rt) {
        snprintf(err, size, "%s: out of memory", sd->name);
        return TARGET_ERROR;
    }
    rt->base.driver = t->driver;
    rt->base.spec = t->spec;
    rt->p = owner->p;
    rt->session = true;
    if (sd->session(owner->store, &rt->store, err, size) < 0) {
        rt_close(&rt->base);
        return TARGET_ERROR;
    }
    rt->store->driver = sd;
    rt->store->round_trips = &rt->base.round_trips;
    if (runtime_new(rt->p, rt->store, &rt->rt) < 0 || retry_init(rt, rt->p) < 0) {
        snprintf(err, size, "%s: out of memory", sd->name);
        rt_close(&rt->base);
        return TARGET_ERROR;
    }
    runtime_keep_constants(rt->rt); /* target.args_checked's promise */
    *out = &rt->base;
    return TARGET_OK;
}

static int rt_dispatch(target *t, const command *cmd, const value *args)
{
    runtime_target *rt = (runtime_target *)t;
    runtime *r = rt->rt;
    uint64_t checked = t->args_checked;
    runtime_status st = runtime_dispatch_checked(r, cmd, args, checked);
    int64_t tries = 1;
    /* the retry option: the same command again, within the latency */
    for (; st == RUNTIME_ERROR && t->retries && tries < rt->max_tries &&
           t->driver->store->retryable(rt->store);
         tries++) {
        t->retries[cmd->index]++;
        st = runtime_dispatch_checked(r, cmd, args, checked);
    }
    if (st == RUNTIME_OK)
        return TARGET_OK;
    if (st == RUNTIME_ERROR && rt->counts_failures && t->driver->store->retryable(rt->store))
        return target_fail(t, TARGET_FAILED, "%s (after %" PRId64 " tr%s)", runtime_message(r),
                           tries, tries == 1 ? "y" : "ies");
    if (st == RUNTIME_ERROR && tries > 1)
        return target_fail(t, TARGET_ERROR, "%s (after %" PRId64 " tries)", runtime_message(r),
                           tries);
    return target_fail(t, st == RUNTIME_REFUSED ? TARGET_REFUSED : TARGET_ERROR, "%s",
                       runtime_message(r));
}

static int rt_answer(target *t, const value **out)
{
    *out = runtime_answer(((runtime_target *)t)->rt);
    return *out ? TARGET_OK : target_fail(t, TARGET_ERROR, "the last dispatch gave no answer");
}

static int rt_count(target *t, uint64_t *aggs, uint64_t *events)
{
    store *s = ((runtime_target *)t)->store;
    if (s->ops->count(s, aggs, events) < 0)
        return target_fail(t, TARGET_ERROR, "%s", s->error);
    return TARGET_OK;
}

static int rt_read(target *t, const aggregate *agg, const value *key, arena *a, value *out)
{
    (void)a; /* the store lends the record until its next commit or rollback */
    store *s = ((runtime_target *)t)->store;
    int rc = s->ops->load(s, agg, key, out);
    if (rc < 0)
        return target_fail(t, TARGET_ERROR, "%s", s->error);
    return rc;
}

/* The store or session this client's runtime dispatches through. */
static int rt_reserve(target *t, uint64_t done, uint64_t cycles)
{
    runtime_target *rt = (runtime_target *)t;
    store *s = rt->own_session ? rt->own_session : rt->store;
    if (t->driver->store->reserve(s, done, cycles) < 0)
        return target_fail(t, TARGET_ERROR, "%s", s->error);
    return TARGET_OK;
}

static int rt_environment(const target_driver *self, char *server, size_t server_size,
                          char *library, size_t library_size)
{
    return self->store->environment(server, server_size, library, library_size);
}

void runtime_target_driver(const store_driver *sd, target_driver *out)
{
    *out = (target_driver){
        .version = TARGET_DRIVER_VERSION,
        .name = sd->name,
        .about = sd->about,
        .options = sd->options,
        .noptions = sd->noptions,
        .caps = TARGET_CAN_COUNT | TARGET_CAN_READ_BACK | TARGET_CAN_QUERY |
                (sd->session ? TARGET_CAN_SESSIONS : 0) | sd->caps,
        .available = rt_available,
        .open = rt_open,
        .dispatch = rt_dispatch,
        .count = rt_count,
        .read = rt_read,
        .answer = rt_answer,
        .session = sd->session ? rt_session : NULL,
        .reserve = sd->reserve ? rt_reserve : NULL,
        .close = rt_close,
        .environment = sd->environment ? rt_environment : NULL,
        .store = sd,
    };
}
