/* mix.c: the command stream of one run (mix.h). */
#include "mix.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "bytes.h"
#include "draw.h"
#include "pool.h"

typedef struct bound {
    value v;
    char *buf;
    size_t cap;
} bound;

/* An expansion that every template of the same parts, text and ${n} only,
 * shares within a cycle: "pizza-${n}" is written once a cycle, however many
 * steps name it, and the other steps' values point at the same bytes (in
 * the buffer of the step that wrote them, rewritten only by that step's
 * next expansion, for a later cycle, by which time the ones that share it
 * are done with it: a cycle's steps run one after another). */
typedef struct memo {
    const tmpl *t; /* the first template of these parts */
    uint64_t n_of; /* the cycle of v, plus one; 0: none yet */
    value v;
} memo;

struct mix {
    const plan *p;
    int run;
    int client; /* ${client} */
    uint64_t n; /* the cycle begun */
    int flow;   /* its flow */
    rng r;
    arena mem;
    pool *pools;              /* its own, or those of the stream it shares them with */
    bool own_pools;           /* false: pools are another stream's */
    pthread_mutex_t *lock;    /* keys: shared: guards the shared pools; NULL: none */
    pthread_mutex_t own_lock; /* the lock a stream whose pools are shared holds */
    dist_state *dists;        /* per draw */
    step_inst *setup;
    step_inst **steps; /* per flow */
    bound **binds;     /* per flow: one per binding */
    uint64_t *drawn, *skipped;
    char n_text[24]; /* ${n} in decimal, at n_text + n_at, for the cycle n_text_of - 1 */
    size_t n_at;     /* (every step of a cycle writes the same; 0: none yet) */
    uint64_t n_text_of;
    memo *memos; /* the expansions shared by templates of one text (memo_assign) */
    size_t nmemos;
};

/* The generator's stream of client c of run `run`: client 0's is the run's
 * own (one client gives the stream it always gave); the others' sit where
 * no run number reaches. */
static uint64_t client_stream(int run, int client)
{
    return client == 0 ? (uint64_t)run : (uint64_t)run | (uint64_t)client << 32;
}

/* Whether t's value depends on the cycle number alone: text and ${n}, a
 * string. */
static bool memo_able(const tmpl *t)
{
    if (t->as_int || !t->nparts)
        return false;
    for (size_t k = 0; k < t->nparts; k++)
        if (t->parts[k].var != TMPL_TEXT && t->parts[k].var != TMPL_N)
            return false;
    return true;
}

static bool same_parts(const tmpl *a, const tmpl *b)
{
    if (a->nparts != b->nparts)
        return false;
    for (size_t k = 0; k < a->nparts; k++) {
        const tmpl_part *x = &a->parts[k], *y = &b->parts[k];
        if (x->var != y->var ||
            (x->var == TMPL_TEXT && (x->len != y->len || memcmp(x->text, y->text, x->len) != 0)))
            return false;
    }
    return true;
}

/* Gives every template of the flows' steps that memo_able takes the entry
 * of its parts (made when it is the first of them). */
static void memo_assign(mix *m)
{
    const workload *w = &m->p->work;
    size_t most = 0;
    for (size_t f = 0; f < w->nflows; f++)
        for (size_t s = 0; s < w->flows[f].nsteps; s++)
            most += w->flows[f].steps[s].ntmpls;
    m->memos = arena_alloc(&m->mem, (most + 1) * sizeof *m->memos);
    for (size_t f = 0; f < w->nflows; f++)
        for (size_t s = 0; s < w->flows[f].nsteps; s++) {
            step_inst *si = &m->steps[f][s];
            for (size_t i = 0; i < si->st->ntmpls; i++) {
                const tmpl *t = &si->st->tmpls[i];
                if (!memo_able(t))
                    continue;
                size_t k = 0;
                while (k < m->nmemos && !same_parts(m->memos[k].t, t))
                    k++;
                if (k == m->nmemos)
                    m->memos[m->nmemos++] = (memo){.t = t};
                si->memo[i] = (int)k;
            }
        }
}

mix *mix_new_client(const plan *p, int run, uint64_t seed, int client, mix *pools_of)
{
    const workload *w = &p->work;
    mix *m = xcalloc_lines(1, sizeof *m); /* written by its client's thread alone */
    m->p = p;
    m->run = run;
    m->client = client;
    m->flow = -1;
    rng_seed(&m->r, seed, client_stream(run, client));
    m->own_pools = pools_of == NULL;
    if (pools_of) {
        if (!pools_of->lock) {
            pthread_mutex_init(&pools_of->own_lock, NULL);
            pools_of->lock = &pools_of->own_lock;
        }
        m->pools = pools_of->pools;
        m->lock = pools_of->lock;
    } else {
        m->pools = arena_alloc(&m->mem, (w->npools + 1) * sizeof *m->pools);
        for (size_t i = 0; i < w->npools; i++)
            pool_init(&m->pools[i]);
    }
    m->dists = arena_alloc(&m->mem, (w->ndraws + 1) * sizeof *m->dists);
    m->setup = step_insts_new(&m->mem, w->setup, w->nsetup);
    m->steps = arena_alloc(&m->mem, w->nflows * sizeof *m->steps);
    m->binds = arena_alloc(&m->mem, w->nflows * sizeof *m->binds);
    m->drawn = arena_alloc(&m->mem, w->nflows * sizeof *m->drawn);
    m->skipped = arena_alloc(&m->mem, w->nflows * sizeof *m->skipped);
    for (size_t f = 0; f < w->nflows; f++) {
        const flow *fl = &w->flows[f];
        m->steps[f] = step_insts_new(&m->mem, fl->steps, fl->nsteps);
        m->binds[f] = arena_alloc(&m->mem, (fl->nwith + 1) * sizeof *m->binds[f]);
        for (size_t b = 0; b < fl->nwith; b++) {
            m->binds[f][b].cap = fl->with[b].t.max_len + 1;
            m->binds[f][b].buf = xmalloc(m->binds[f][b].cap);
        }
    }
    memo_assign(m);
    /* every draw's state, found through the templates that hold them */
    for (size_t f = 0; f < w->nflows; f++) {
        const flow *fl = &w->flows[f];
        for (size_t b = 0; b < fl->nwith; b++)
            for (size_t k = 0; k < fl->with[b].t.nparts; k++)
                if (fl->with[b].t.parts[k].var == TMPL_DRAW)
                    dist_init(&m->dists[fl->with[b].t.parts[k].draw->index],
                              &fl->with[b].t.parts[k].draw->dist);
        for (size_t s = 0; s < fl->nsteps; s++)
            for (size_t t = 0; t < fl->steps[s].ntmpls; t++)
                for (size_t k = 0; k < fl->steps[s].tmpls[t].nparts; k++) {
                    const tmpl_part *pt = &fl->steps[s].tmpls[t].parts[k];
                    if (pt->var == TMPL_DRAW)
                        dist_init(&m->dists[pt->draw->index], &pt->draw->dist);
                }
    }
    return m;
}

mix *mix_new(const plan *p, int run, uint64_t seed)
{
    return mix_new_client(p, run, seed, 0, NULL);
}

void mix_free(mix *m)
{
    if (!m)
        return;
    const workload *w = &m->p->work;
    for (size_t i = 0; m->own_pools && i < w->npools; i++)
        pool_free(&m->pools[i]);
    if (m->lock == &m->own_lock)
        pthread_mutex_destroy(&m->own_lock);
    step_insts_free(m->setup, w->nsetup);
    for (size_t f = 0; f < w->nflows; f++) {
        step_insts_free(m->steps[f], w->flows[f].nsteps);
        for (size_t b = 0; b < w->flows[f].nwith; b++)
            free(m->binds[f][b].buf);
    }
    arena_free(&m->mem);
    free(m);
}

step_inst *mix_setup(mix *m, size_t *n)
{
    *n = m->p->work.nsetup;
    return m->setup;
}

step_inst *mix_flow_steps(mix *m, size_t f, size_t *n)
{
    *n = m->p->work.flows[f].nsteps;
    return m->steps[f];
}

/* ---- expanding templates ---- */

/* The text being built, in a buffer that grows (outside the timed region). */
typedef struct text {
    char **buf;
    size_t *cap;
    size_t len;
} text;

static __attribute__((noinline)) void grow(text *t, size_t n)
{
    while (t->len + n + 1 > *t->cap)
        *t->cap *= 2;
    *t->buf = xrealloc(*t->buf, *t->cap);
}

static inline void put(text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > *t->cap)
        grow(t, n);
    bytes_copy(*t->buf + t->len, s, n);
    t->len += n;
}

/* "00" to "99": put_int writes two digits a step. */
static const char digit_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233"
    "34353637383940414243444546474849505152535455565758596061626364656667"
    "6869707172737475767778798081828384858687888990919293949596979899";

/* v in decimal, by hand, two digits a step, ending at b + 24; returns
 * where it starts. snprintf costs more than the rest of an expansion, and
 * this runs before every command of the timed pass. */
static size_t int_text(int64_t v, char b[24])
{
    size_t at = 24;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    for (; u >= 100; u /= 100) {
        at -= 2;
        memcpy(b + at, digit_pairs + 2 * (u % 100), 2);
    }
    if (u >= 10) {
        at -= 2;
        memcpy(b + at, digit_pairs + 2 * u, 2);
    } else {
        b[--at] = (char)('0' + u);
    }
    if (v < 0)
        b[--at] = '-';
    return at;
}

static void put_int(text *t, int64_t v)
{
    char b[24];
    size_t at = int_text(v, b);
    put(t, b + at, sizeof b - at);
}

/* ${n}: written once per cycle, however many steps name it; when the
 * cycle follows the one it was written for (one client's cycles do), the
 * last text is counted up by one in place. */
static void put_n(mix *m, text *t)
{
    if (m->n_text_of != m->n + 1 && m->n_text_of && m->n_text_of == m->n) {
        size_t i = sizeof m->n_text;
        while (i > m->n_at && m->n_text[i - 1] == '9')
            m->n_text[--i] = '0';
        if (i > m->n_at)
            m->n_text[i - 1]++;
        else /* all nines: one digit more */
            m->n_text[--m->n_at] = '1';
        m->n_text_of = m->n + 1;
    } else if (m->n_text_of != m->n + 1) {
        m->n_at = int_text((int64_t)m->n, m->n_text);
        m->n_text_of = m->n + 1;
    }
    put(t, m->n_text + m->n_at, sizeof m->n_text - m->n_at);
}

static void put_value(text *t, const value *v)
{
    if (v->kind == VAL_STRING)
        put(t, v->u.s, v->len);
    else
        put_int(t, v->u.i);
}

/* One draw. Returns 0, or -1 with why set when its pool is empty. */
static int draw(mix *m, const draw_def *d, value *out, bench_error *why)
{
    if (d->kind == DRAW_UNIFORM) {
        *out = (value){.kind = VAL_INT, .u.i = rng_range(&m->r, d->lo, d->hi)};
        return 0;
    }
    pool *pl = &m->pools[d->pool];
    size_t live = pool_live(pl);
    if (live == 0)
        return err_set(why, "cycle %" PRIu64 ", flow %s: pool '%s' is empty", m->n,
                       m->p->work.flows[m->flow].name, m->p->work.pools[d->pool].name);
    size_t k = (size_t)dist_draw(&m->dists[d->index], &m->r, live);
    *out = d->kind == DRAW_TAKE ? pool_take(pl, k) : pool_at(pl, k);
    return 0;
}

/* The value of one part that is not text. */
static int part_value(mix *m, const tmpl_part *pt, value *out, bench_error *why)
{
    switch (pt->var) {
    case TMPL_N: *out = (value){.kind = VAL_INT, .u.i = (int64_t)m->n}; return 0;
    case TMPL_RUN: *out = (value){.kind = VAL_INT, .u.i = m->run}; return 0;
    case TMPL_CLIENT: *out = (value){.kind = VAL_INT, .u.i = m->client}; return 0;
    case TMPL_BIND: *out = m->binds[m->flow][pt->bind].v; return 0;
    case TMPL_DRAW: return draw(m, pt->draw, out, why);
    default: return 0;
    }
}

/* Fills *slot from t: an int, or a string in *buf (cap bytes, grown). */
static int expand(mix *m, const tmpl *t, value *slot, char **buf, size_t *cap, bench_error *why)
{
    if (t->as_int) {
        value v = {0};
        if (part_value(m, &t->parts[0], &v, why) < 0)
            return -1;
        slot->kind = VAL_INT;
        slot->u.i = v.u.i;
        return 0;
    }
    text out = {.buf = buf, .cap = cap};
    for (size_t i = 0; i < t->nparts; i++) {
        const tmpl_part *pt = &t->parts[i];
        value v = {0};
        if (pt->var == TMPL_TEXT)
            put(&out, pt->text, pt->len);
        else if (pt->var == TMPL_N)
            put_n(m, &out);
        else if (part_value(m, pt, &v, why) < 0)
            return -1;
        else
            put_value(&out, &v);
    }
    (*buf)[out.len] = '\0';
    slot->kind = VAL_STRING;
    slot->u.s = *buf;
    slot->len = (uint32_t)out.len;
    return 0;
}

static void lock(mix *m)
{
    if (m->lock)
        pthread_mutex_lock(m->lock);
}

static void unlock(mix *m)
{
    if (m->lock)
        pthread_mutex_unlock(m->lock);
}

/* mix_expand when some template of the step is not one another step of
 * the cycle expanded already. */
__attribute__((noinline)) static int expand_step_templates(mix *m, step_inst *si, bench_error *why)
{
    const step *st = si->st;
    int rc = 0;
    lock(m);
    for (size_t i = 0; i < st->ntmpls && rc == 0; i++) {
        memo *mo = si->memo[i] >= 0 ? &m->memos[si->memo[i]] : NULL;
        if (mo && mo->n_of == m->n + 1) { /* another step wrote it this cycle */
            *si->slots[i] = mo->v;
            continue;
        }
        rc = expand(m, &st->tmpls[i], si->slots[i], &si->bufs[i], &si->caps[i], why);
        if (mo && rc == 0)
            *mo = (memo){.t = mo->t, .n_of = m->n + 1, .v = *si->slots[i]};
    }
    unlock(m);
    return rc;
}

int mix_expand(mix *m, step_inst *si, bench_error *why)
{
    /* most steps of a cycle after its first: every template's text is one
       an earlier step wrote this cycle (the name of its record) */
    const step *st = si->st;
    if (!m->lock) {
        size_t i = 0;
        for (; i < st->ntmpls; i++) {
            int k = si->memo[i];
            if (k < 0 || m->memos[k].n_of != m->n + 1)
                break;
            *si->slots[i] = m->memos[k].v;
        }
        if (i == st->ntmpls)
            return 0;
    }
    return expand_step_templates(m, si, why);
}

/* ---- flows ---- */

static bool can_run(const mix *m, const flow *fl)
{
    for (size_t i = 0; i < m->p->work.npools; i++)
        if (fl->need[i] > pool_live(&m->pools[i]))
            return false;
    return true;
}

/* "pool 'open' is empty (flows top, buy draw from it)": why no flow of the
 * candidates can run. */
static int none_can_run(const mix *m, uint64_t n, int only, bench_error *why)
{
    const workload *w = &m->p->work;
    char pools[512] = "";
    size_t used = 0;
    for (size_t i = 0; i < w->npools; i++) {
        bool short_of = false;
        for (size_t f = 0; f < w->nflows && !short_of; f++)
            short_of = (only < 0 ? w->flows[f].weight > 0 : (int)f == only) &&
                       w->flows[f].need[i] > pool_live(&m->pools[i]);
        if (short_of && used < sizeof pools)
            used += (size_t)snprintf(pools + used, sizeof pools - used, "%s'%s' (%zu held)",
                                     used ? ", " : "", w->pools[i].name, pool_live(&m->pools[i]));
    }
    if (only >= 0)
        return err_set(why, "cycle %" PRIu64 ": flow %s cannot run: too few records in pool %s", n,
                       w->flows[only].name, pools);
    return err_set(why, "cycle %" PRIu64 ": no flow can run: too few records in pool%s %s", n,
                   strchr(pools, ',') ? "s" : "", pools);
}

static int bind(mix *m, size_t f, bench_error *why)
{
    const flow *fl = &m->p->work.flows[f];
    for (size_t b = 0; b < fl->nwith; b++) {
        bound *bd = &m->binds[f][b];
        if (expand(m, &fl->with[b].t, &bd->v, &bd->buf, &bd->cap, why) < 0)
            return -1;
    }
    return 0;
}

int mix_begin_flow(mix *m, uint64_t n, size_t f, bench_error *why)
{
    m->n = n;
    if (!can_run(m, &m->p->work.flows[f]))
        return none_can_run(m, n, (int)f, why);
    m->flow = (int)f;
    m->drawn[f]++;
    return bind(m, f, why) < 0 ? -1 : (int)f;
}

static int begin_unlocked(mix *m, uint64_t n, bool prefill, bench_error *why)
{
    const workload *w = &m->p->work;
    m->n = n;
    if (prefill && w->prefill_flow >= 0)
        return mix_begin_flow(m, n, (size_t)w->prefill_flow, why);
    if (w->nflows == 1)
        return mix_begin_flow(m, n, 0, why);
    uint64_t total = 0;
    for (size_t f = 0; f < w->nflows; f++) {
        if (w->flows[f].weight == 0)
            continue;
        if (can_run(m, &w->flows[f]))
            total += (uint64_t)w->flows[f].weight;
        else
            m->skipped[f]++;
    }
    if (total == 0)
        return none_can_run(m, n, -1, why);
    uint64_t r = rng_below(&m->r, total);
    size_t f = 0;
    for (;; f++) {
        if (w->flows[f].weight == 0 || !can_run(m, &w->flows[f]))
            continue;
        if (r < (uint64_t)w->flows[f].weight)
            break;
        r -= (uint64_t)w->flows[f].weight;
    }
    m->flow = (int)f;
    m->drawn[f]++;
    return bind(m, f, why) < 0 ? -1 : (int)f;
}

int mix_begin(mix *m, uint64_t n, bool prefill, bench_error *why)
{
    lock(m);
    int f = begin_unlocked(m, n, prefill, why);
    unlock(m);
    return f;
}

void mix_done(mix *m, const step_inst *si, bool ok)
{
    const step *st = si->st;
    if (!ok || st->into < 0)
        return;
    lock(m);
    pool_add(&m->pools[st->into], &si->args.u.items[st->cmd->identity_param]);
    unlock(m);
}

uint64_t mix_drawn(const mix *m, size_t f)
{
    return m->drawn[f];
}

uint64_t mix_skipped(const mix *m, size_t f)
{
    return m->skipped[f];
}

void mix_reset_counts(mix *m)
{
    size_t n = m->p->work.nflows;
    memset(m->drawn, 0, n * sizeof *m->drawn);
    memset(m->skipped, 0, n * sizeof *m->skipped);
}

size_t mix_pool_size(const mix *m, size_t i)
{
    return pool_live(&m->pools[i]);
}
