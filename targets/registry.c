/* registry.c: every target and store built into this binary, in the order
 * `bench targets` lists them. A new store is one file and one line in
 * `entries`; so is a new target. A store becomes the target of its name
 * that runs the C runtime on it.
 *
 * The registry is built on first use (before any thread starts) and checks
 * each declaration then: a driver of another interface version, or one whose
 * declaration does not hold together, is refused and listed with the
 * reason. */
#include <stdio.h>
#include <string.h>

#include "runtime_target.h"
#include "store_driver.h"
#include "target.h"

/* The drivers, each defined in its own file; nothing else names them. */
extern const store_driver memory_store_driver;
extern const target_driver null_target_driver;
extern const store_driver sqlite_store_driver;
extern const store_driver postgres_store_driver;
extern const target_driver process_target_driver;

/* ---- checking a declaration ---- */

static bool identifier(const char *s)
{
    if (!s || !*s)
        return false;
    for (const char *c = s; *c; c++) {
        bool ok = (*c >= 'a' && *c <= 'z') || *c == '_' || (c > s && *c >= '0' && *c <= '9');
        if (!ok)
            return false;
    }
    return true;
}

static int check_option(const target_driver *d, const target_option *o, char *why, size_t size)
{
    if (!identifier(o->name) || !strcmp(o->name, "label")) {
        snprintf(why, size, "the %s target declares an option named '%s'", d->name,
                 o->name ? o->name : "");
        return -1;
    }
    if (!o->about || !*o->about) {
        snprintf(why, size, "the %s target's option %s has no about line", d->name, o->name);
        return -1;
    }
    if ((o->type == TARGET_OPT_ENUM) != (o->values != NULL) || (o->values && !o->values[0])) {
        snprintf(why, size, "the %s target's option %s: only an enum has values, and it needs one",
                 d->name, o->name);
        return -1;
    }
    if (o->check && o->type != TARGET_OPT_STRING) {
        snprintf(why, size, "the %s target's option %s: only a string option has a check", d->name,
                 o->name);
        return -1;
    }
    bool found = !o->excludes;
    for (size_t i = 0; i < d->noptions && !found; i++)
        found =
            d->options[i].name && !strcmp(d->options[i].name, o->excludes) && &d->options[i] != o;
    if (!found) {
        snprintf(why, size,
                 "the %s target's option %s excludes '%s', which is not another of its "
                 "options",
                 d->name, o->name, o->excludes);
        return -1;
    }
    return 0;
}

int target_driver_check(const target_driver *d, char *why, size_t size)
{
    if (d->version != TARGET_DRIVER_VERSION) {
        snprintf(why, size, "built for target interface version %d; this bench has version %d",
                 d->version, TARGET_DRIVER_VERSION);
        return -1;
    }
    if (!identifier(d->name) || !d->about || !d->open || !d->dispatch || !d->close) {
        snprintf(why, size, "the driver '%s' lacks a name, an about line, open, dispatch or close",
                 d->name ? d->name : "");
        return -1;
    }
    if (((d->caps & TARGET_CAN_COUNT) != 0) != (d->count != NULL) ||
        ((d->caps & TARGET_CAN_READ_BACK) != 0) != (d->read != NULL) ||
        ((d->caps & TARGET_CAN_PROBE) != 0) != (d->probe != NULL) ||
        ((d->caps & TARGET_CAN_QUERY) != 0) != (d->answer != NULL) ||
        ((d->caps & TARGET_CAN_SESSIONS) != 0) != (d->session != NULL)) {
        snprintf(why, size, "the %s target's capabilities do not match its callbacks", d->name);
        return -1;
    }
    if ((d->caps & TARGET_CAN_SCAN) && !(d->caps & TARGET_CAN_QUERY)) {
        snprintf(why, size, "the %s target declares scans but not queries, whose answers they are",
                 d->name);
        return -1;
    }
    if (d->noptions && !d->options) {
        snprintf(why, size, "the %s target declares options it does not list", d->name);
        return -1;
    }
    for (size_t i = 0; i < d->noptions; i++) {
        if (check_option(d, &d->options[i], why, size) < 0)
            return -1;
        for (size_t k = 0; k < i; k++)
            if (!strcmp(d->options[k].name, d->options[i].name)) {
                snprintf(why, size, "the %s target declares the option %s twice", d->name,
                         d->options[i].name);
                return -1;
            }
    }
    return 0;
}

bool target_runs_plan(const target_driver *d, const plan *p, char *why, size_t size)
{
    if (!(d->caps & TARGET_CAN_QUERY) && plan_has_queries(p)) {
        snprintf(why, size, "the %s target cannot run queries", d->name);
        return false;
    }
    if (!(d->caps & TARGET_CAN_SCAN) && plan_scans(p, NULL)) {
        snprintf(why, size, "the %s target cannot run scans", d->name);
        return false;
    }
    return true;
}

/* A driver that cannot run here (postgres without a server or without
 * libpq) says so in available(), so the runner skips it with a sentence. */
typedef struct entry {
    const store_driver *store;   /* a store, run by the C runtime ... */
    const target_driver *target; /* ... or a target of its own */
} entry;

static const entry entries[] = {
    {.store = &memory_store_driver},    {.target = &null_target_driver},
    {.store = &sqlite_store_driver},    {.store = &postgres_store_driver},
    {.target = &process_target_driver},
};

enum { NENTRIES = sizeof entries / sizeof *entries };

static struct {
    bool built;
    target_driver runtime[NENTRIES]; /* the targets made from stores */
    const target_driver *targets[NENTRIES];
    size_t ntargets;
    const store_driver *stores[NENTRIES];
    size_t nstores;
    const char *refused_names[NENTRIES];
    const char *refused_reasons[NENTRIES];
    char reasons[NENTRIES][256];
    size_t nrefused;
    char target_names[512], store_names[512];
} reg;

static void refuse(const char *name, const char *why)
{
    size_t k = reg.nrefused++;
    snprintf(reg.reasons[k], sizeof reg.reasons[k], "%s", why);
    reg.refused_names[k] = name ? name : "?";
    reg.refused_reasons[k] = reg.reasons[k];
}

static void append_name(char *list, size_t size, const char *name)
{
    size_t len = strlen(list);
    snprintf(list + len, size - len, "%s%s", len ? ", " : "", name);
}

static void build(void)
{
    if (reg.built)
        return;
    reg.built = true;
    for (size_t i = 0; i < NENTRIES; i++) {
        const target_driver *d = entries[i].target;
        char why[256];
        if (entries[i].store) {
            const store_driver *sd = entries[i].store;
            if (sd->version != STORE_DRIVER_VERSION) {
                snprintf(why, sizeof why,
                         "built for store interface version %d; this bench has version %d",
                         sd->version, STORE_DRIVER_VERSION);
                refuse(sd->name, why);
                continue;
            }
            runtime_target_driver(sd, &reg.runtime[i]);
            d = &reg.runtime[i];
            if (target_driver_check(d, why, sizeof why) == 0)
                reg.stores[reg.nstores++] = sd;
        }
        if (target_driver_check(d, why, sizeof why) < 0) {
            refuse(d->name, why);
            continue;
        }
        reg.targets[reg.ntargets++] = d;
        append_name(reg.target_names, sizeof reg.target_names, d->name);
    }
    for (size_t i = 0; i < reg.nstores; i++)
        append_name(reg.store_names, sizeof reg.store_names, reg.stores[i]->name);
}

const target_driver *const *target_all(size_t *n)
{
    build();
    *n = reg.ntargets;
    return reg.targets;
}

const target_driver *target_find(const char *name)
{
    build();
    for (size_t i = 0; name && i < reg.ntargets; i++)
        if (!strcmp(reg.targets[i]->name, name))
            return reg.targets[i];
    return NULL;
}

const target_driver *target_harness(void)
{
    build();
    for (size_t i = 0; i < reg.ntargets; i++)
        if (reg.targets[i]->caps & TARGET_HARNESS)
            return reg.targets[i];
    return NULL;
}

size_t target_refused(const char *const **names, const char *const **reasons)
{
    build();
    *names = reg.refused_names;
    *reasons = reg.refused_reasons;
    return reg.nrefused;
}

const char *target_names(void)
{
    build();
    return reg.target_names;
}

const store_driver *const *store_all(size_t *n)
{
    build();
    *n = reg.nstores;
    return reg.stores;
}

const store_driver *store_find(const char *name)
{
    build();
    for (size_t i = 0; name && i < reg.nstores; i++)
        if (!strcmp(reg.stores[i]->name, name))
            return reg.stores[i];
    return NULL;
}

const store_driver *store_default(void)
{
    build();
    return reg.nstores ? reg.stores[0] : NULL;
}

const char *store_names(void)
{
    build();
    return reg.store_names;
}
