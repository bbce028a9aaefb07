/* serve.c: `bench serve`: read a request line, dispatch it (a command or
 * a query) on the C runtime, write the answer line in one write(2), repeat
 * until end of input (or, with --listen, do the same on every connection:
 * serve_listen.c). The events of a command reach the answer through a store that
 * wraps the real one and encodes each event as it is appended (a rollback
 * drops them), so the runtime needs no hook of its own. */
#include "serve.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "json_line.h"
#include "runtime.h"
#include "store_driver.h"
#include "target.h"

/* Appends a string constant, its length known when compiled. */
#define PUT_TEXT(b, text) jline_put((b), (text), sizeof(text) - 1)

static const char empty_answer[] = "{\"ok\":false,\"error\":\"empty request\"}\n";

/* ---- the store that taps events ---- */

typedef struct tap_store {
    store base;
    store_ops ops;
    store *inner;
    jline events; /* the open transaction's events, as comma-separated objects */
    const plan *p;
    jline heads;     /* per event of the plan: {"name":"E","payload": */
    size_t *head_at; /* where each starts in heads; one more for the end */
    /* the request's args, when their text is what json_put_value would
     * write of them (json_decode_head's exact): an event whose payload is
     * those very args (the default payload) copies the text */
    const value *echo_items;
    const ty *echo_type;
    const char *echo_text;
    size_t echo_len;
} tap_store;

static int tap_result(tap_store *t, int rc)
{
    if (rc < 0)
        snprintf(t->base.error, sizeof t->base.error, "%s", t->inner->error);
    return rc;
}

static int tap_begin(store *s)
{
    tap_store *t = (tap_store *)s;
    t->events.len = 0;
    return tap_result(t, t->inner->ops->begin(t->inner));
}

static int tap_load(store *s, const aggregate *agg, const value *key, value *out)
{
    tap_store *t = (tap_store *)s;
    return tap_result(t, t->inner->ops->load(t->inner, agg, key, out));
}

static int tap_save(store *s, const aggregate *agg, const value *key, const value *state,
                    bool created)
{
    tap_store *t = (tap_store *)s;
    return tap_result(t, t->inner->ops->save(t->inner, agg, key, state, created));
}

static int tap_update(store *s, const aggregate *agg, const value *key, const store_change *changes,
                      size_t n, value *state)
{
    tap_store *t = (tap_store *)s;
    return tap_result(t, t->inner->ops->update(t->inner, agg, key, changes, n, state));
}

static int tap_remove(store *s, const aggregate *agg, const value *key)
{
    tap_store *t = (tap_store *)s;
    return tap_result(t, t->inner->ops->remove(t->inner, agg, key));
}

/* The event's JSON object after the transaction's others in t->events. */
static void tap_event(tap_store *t, const event_def *ev, const value *payload)
{
    jline *b = &t->events;
    size_t i = (size_t)(ev - t->p->events);
    if (b->len)
        jline_putc(b, ',');
    jline_put(b, t->heads.data + t->head_at[i], t->head_at[i + 1] - t->head_at[i]);
    if (t->echo_text && payload->kind == VAL_STRUCT && payload->u.items == t->echo_items &&
        (ev->payload == t->echo_type || ty_compatible(ev->payload, t->echo_type)))
        jline_put(b, t->echo_text, t->echo_len);
    else
        json_put_value(b, ev->payload, payload);
    jline_putc(b, '}');
}

static int tap_append_event(store *s, const event_def *ev, const aggregate *agg, const value *key,
                            const value *payload)
{
    tap_store *t = (tap_store *)s;
    int rc = t->inner->ops->append_event(t->inner, ev, agg, key, payload);
    if (rc < 0)
        return tap_result(t, rc);
    tap_event(t, ev, payload);
    return rc;
}

static int tap_direct_find(store *s, const aggregate *agg, const value *key, const store_room *room,
                           size_t nroom, store_ref *ref, value *state)
{
    tap_store *t = (tap_store *)s;
    return tap_result(t, t->inner->ops->direct_find(t->inner, agg, key, room, nroom, ref, state));
}

static void tap_direct_prefetch(store *s, const aggregate *agg, const value *key)
{
    tap_store *t = (tap_store *)s;
    t->inner->ops->direct_prefetch(t->inner, agg, key);
}

/* The direct path's write is the whole dispatch's: its event (encoded
 * before the write, which may free what the payload points into) is the
 * only one. */
static int tap_direct_write(store *s, const store_write *w)
{
    tap_store *t = (tap_store *)s;
    t->events.len = 0;
    if (w->event)
        tap_event(t, w->event, w->payload);
    int rc = t->inner->ops->direct_write(t->inner, w);
    if (rc < 0)
        t->events.len = 0;
    return tap_result(t, rc);
}

static void tap_direct_release(store *s)
{
    tap_store *t = (tap_store *)s;
    t->events.len = 0;
    t->inner->ops->direct_release(t->inner);
}

static int tap_commit(store *s)
{
    tap_store *t = (tap_store *)s;
    return tap_result(t, t->inner->ops->commit(t->inner));
}

static int tap_rollback(store *s)
{
    tap_store *t = (tap_store *)s;
    t->events.len = 0;
    return tap_result(t, t->inner->ops->rollback(t->inner));
}

static int tap_count(store *s, uint64_t *aggs, uint64_t *events)
{
    tap_store *t = (tap_store *)s;
    return tap_result(t, t->inner->ops->count(t->inner, aggs, events));
}

static int tap_prefetch(store *s, const aggregate *agg, const value *key)
{
    tap_store *t = (tap_store *)s;
    return tap_result(t, t->inner->ops->prefetch(t->inner, agg, key));
}

static int tap_prefetch_via(store *s, const aggregate *agg, const aggregate *from,
                            const value *from_key, int from_field)
{
    tap_store *t = (tap_store *)s;
    return tap_result(t, t->inner->ops->prefetch_via(t->inner, agg, from, from_key, from_field));
}

static int tap_read_begin(store *s)
{
    tap_store *t = (tap_store *)s;
    return tap_result(t, t->inner->ops->read_begin(t->inner));
}

static int tap_scan(store *s, const aggregate *agg, const value *from, int64_t limit, value *out)
{
    tap_store *t = (tap_store *)s;
    return tap_result(t, t->inner->ops->scan(t->inner, agg, from, limit, out));
}

static void tap_init(tap_store *t, store *inner, const plan *p)
{
    *t = (tap_store){.inner = inner, .p = p};
    t->head_at = xcalloc(p->nevents + 1, sizeof *t->head_at);
    for (size_t i = 0; i < p->nevents; i++) { /* an event's name, encoded once */
        PUT_TEXT(&t->heads, "{\"name\":");
        json_put_string(&t->heads, p->events[i].name, strlen(p->events[i].name));
        PUT_TEXT(&t->heads, ",\"payload\":");
        t->head_at[i + 1] = t->heads.len;
    }
    t->ops = (store_ops){
        .begin = tap_begin,
        .load = tap_load,
        .save = tap_save,
        .remove = tap_remove,
        .append_event = tap_append_event,
        .commit = tap_commit,
        .rollback = tap_rollback,
        .count = tap_count,
        .prefetch = inner->ops->prefetch ? tap_prefetch : NULL,
        .prefetch_via = inner->ops->prefetch_via ? tap_prefetch_via : NULL,
        .checks_creates = inner->ops->checks_creates,
        .read_begin = inner->ops->read_begin ? tap_read_begin : NULL,
        .scan = inner->ops->scan ? tap_scan : NULL,
        .update = inner->ops->update ? tap_update : NULL,
    };
    if (inner->ops->direct_find) {
        t->ops.direct_find = tap_direct_find;
        t->ops.direct_prefetch = inner->ops->direct_prefetch ? tap_direct_prefetch : NULL;
        t->ops.direct_write = tap_direct_write;
        t->ops.direct_release = tap_direct_release;
    }
    t->base.ops = &t->ops;
}

/* ---- lines in ---- */

bool serve_lines_next(serve_lines *lb, const char **line, size_t *len)
{
    char *nl =
        lb->end > lb->scanned ? memchr(lb->buf + lb->scanned, '\n', lb->end - lb->scanned) : NULL;
    if (!nl) {
        lb->scanned = lb->end;
        return false;
    }
    *line = lb->buf + lb->start;
    *len = (size_t)(nl - *line);
    lb->start = lb->scanned = (size_t)(nl - lb->buf) + 1;
    return true;
}

bool serve_lines_rest(serve_lines *lb, const char **line, size_t *len)
{
    if (lb->end == lb->start)
        return false;
    *line = lb->buf + lb->start;
    *len = lb->end - lb->start;
    lb->start = lb->scanned = lb->end;
    return true;
}

ssize_t serve_lines_fill(serve_lines *lb, int fd)
{
    if (lb->start > 0) {
        memmove(lb->buf, lb->buf + lb->start, lb->end - lb->start);
        lb->end -= lb->start;
        lb->scanned -= lb->start;
        lb->start = 0;
    }
    if (lb->end == lb->cap) {
        size_t cap = lb->cap ? lb->cap * 2 : (size_t)16 * 1024;
        char *more = realloc(lb->buf, cap);
        if (!more) {
            errno = ENOMEM;
            return -1;
        }
        lb->buf = more;
        lb->cap = cap;
    }
    ssize_t n = read(fd, lb->buf + lb->end, lb->cap - lb->end);
    if (n > 0)
        lb->end += (size_t)n;
    return n;
}

void serve_lines_free(serve_lines *lb)
{
    free(lb->buf);
    *lb = (serve_lines){0};
}

static int write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

/* ---- requests ---- */

struct server {
    const plan *p;
    const store_driver *sd; /* for the reset request: a fresh store of the same driver */
    const target_spec *ts;
    int opened; /* stores opened so far (their run numbers) */
    tap_store tap;
    runtime *rt;
    arena scratch; /* per request */
    jline out;
    uint64_t *aggs, *events;
    size_t (*others)(void *ctx); /* how many other connections share the store */
    void *others_ctx;
    /* the commands' requests as the process target begins them,
     * {"verb":"V","args": (verb_heads), for plans of few commands */
    jline verbs;
    size_t *verb_at; /* where each starts in verbs; one more for the end */
    const command **verb_cmd;
    size_t nverbs;
};

static void answer_error(server *sv, const char *msg)
{
    jline_puts(&sv->out, "{\"ok\":false,\"error\":");
    json_put_string(&sv->out, msg, strlen(msg));
    PUT_TEXT(&sv->out, "}\n");
}

static void answer_count(server *sv)
{
    const plan *p = sv->p;
    store *s = &sv->tap.base;
    if (s->ops->count(s, sv->aggs, sv->events) < 0) {
        answer_error(sv, s->error);
        return;
    }
    char num[32];
    jline *b = &sv->out;
    jline_puts(b, "{\"ok\":true,\"aggregates\":{");
    for (size_t i = 0; i < p->naggs; i++) {
        if (i)
            jline_putc(b, ',');
        json_put_string(b, p->aggs[i].name, strlen(p->aggs[i].name));
        snprintf(num, sizeof num, ":%" PRIu64, sv->aggs[i]);
        jline_puts(b, num);
    }
    jline_puts(b, "},\"events\":{");
    for (size_t i = 0; i < p->nevents; i++) {
        if (i)
            jline_putc(b, ',');
        json_put_string(b, p->events[i].name, strlen(p->events[i].name));
        snprintf(num, sizeof num, ":%" PRIu64, sv->events[i]);
        jline_puts(b, num);
    }
    PUT_TEXT(b, "}}\n");
}

static void unknown_verb(server *sv, const char *verb)
{
    const char **names = arena_alloc(&sv->scratch, (sv->p->ncommands + 1) * sizeof *names);
    for (size_t i = 0; i < sv->p->ncommands; i++)
        names[i] = sv->p->commands[i]->verb;
    const char *hint = diag_suggest(verb, names, sv->p->ncommands);
    char msg[512];
    snprintf(msg, sizeof msg, "unknown verb '%.200s'%s%s%s", verb, hint ? " (did you mean '" : "",
             hint ? hint : "", hint ? "'?)" : "");
    answer_error(sv, msg);
}

static void answer_decoded(server *sv, const command *cmd, const value *args);

/* A command request ({"verb": ...}) or a query request ({"query": ...}):
 * the verb must be of that kind. A command answers its events, a query its
 * returns, a scan its rows. */
static void answer_command(server *sv, const json_request *req)
{
    const command *cmd = plan_find_verb(sv->p, req->verb);
    if (!cmd) {
        unknown_verb(sv, req->verb);
        return;
    }
    bool query = req->kind == JSON_REQUEST_QUERY;
    value args;
    char why[512], msg[1024];
    if (cmd->query != query) {
        snprintf(msg, sizeof msg, "%s is a %s: send it as {\"%s\": \"%s\", \"args\": {...}}",
                 cmd->verb, cmd->query ? "query" : "command", cmd->query ? "query" : "verb",
                 cmd->verb);
        answer_error(sv, msg);
        return;
    }
    const char *text = req->args ? req->args : "{}";
    size_t len = req->args ? req->args_len : 2;
    if (json_decode(text, len, cmd->params, "", &sv->scratch, &args, why, sizeof why) < 0) {
        snprintf(msg, sizeof msg, "%s refused: %s", cmd->verb, why);
        answer_error(sv, msg);
        return;
    }
    answer_decoded(sv, cmd, &args);
}

/* The line in the shape the process target writes, {"verb":"V","args":
 * {...}} (json_request_canonical), read in one pass: the verb looked up,
 * the args decoded where they are, then only "}" may follow. false, with
 * nothing answered, for anything else or anything wrong with it, which
 * serve_answer then reads in full and answers as it always has. */
/* The command a line in the canonical shape asks for, with *args at the
 * text after "args": (its object), found by comparing the line's head with
 * each command's; NULL when no head matches (or the plan has too many
 * commands for the table), and json_request_canonical then looks. */
static const command *verb_of_head(const server *sv, const char *line, size_t n, const char **args)
{
    for (size_t i = 0; i < sv->nverbs; i++) {
        size_t k = sv->verb_at[i + 1] - sv->verb_at[i];
        if (n > k && memcmp(line, sv->verbs.data + sv->verb_at[i], k) == 0) {
            *args = line + k;
            return sv->verb_cmd[i];
        }
    }
    return NULL;
}

static bool answer_canonical(server *sv, const char *line, size_t n)
{
    const char *verb, *args, *rest;
    size_t len;
    char name[256], why[512];
    const command *cmd = verb_of_head(sv, line, n, &args);
    if (!cmd) {
        if (!json_request_canonical(line, n, &verb, &len, &args) || len >= sizeof name)
            return false;
        memcpy(name, verb, len);
        name[len] = '\0';
        cmd = plan_find_verb(sv->p, name);
    }
    value a;
    bool exact;
    if (!cmd || cmd->query ||
        json_decode_head(args, n - (size_t)(args - line), cmd->params, "", &sv->scratch, &a, &rest,
                         &exact, why, sizeof why) < 0 ||
        rest == line + n || *rest != '}')
        return false;
    for (const char *p = rest + 1; p < line + n; p++)
        if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
            return false;
    tap_store *t = &sv->tap;
    if (exact && a.kind == VAL_STRUCT) {
        t->echo_items = a.u.items;
        t->echo_type = cmd->params;
        t->echo_text = args;
        t->echo_len = (size_t)(rest - args);
    }
    answer_decoded(sv, cmd, &a);
    t->echo_text = NULL;
    return true;
}

/* A command or a query with its args decoded: dispatched, and answered with
 * its events, returns or rows, or its refusal. */
static void answer_decoded(server *sv, const command *cmd, const value *args)
{
    bool query = cmd->query;
    runtime_status st = runtime_dispatch(sv->rt, cmd, args);
    if (st != RUNTIME_OK) {
        answer_error(sv, runtime_message(sv->rt));
        return;
    }
    jline *b = &sv->out;
    if (cmd->scan) {
        PUT_TEXT(b, "{\"ok\":true,\"rows\":");
        json_put_value(b, cmd->rows, runtime_answer(sv->rt));
        PUT_TEXT(b, "}\n");
        return;
    }
    if (query) {
        PUT_TEXT(b, "{\"ok\":true,\"returns\":");
        json_put_value(b, cmd->returns, runtime_answer(sv->rt));
        PUT_TEXT(b, "}\n");
        return;
    }
    PUT_TEXT(b, "{\"ok\":true,\"events\":[");
    jline_put(b, sv->tap.events.data, sv->tap.events.len);
    PUT_TEXT(b, "]}\n");
}

/* The record request, {"record":{"aggregate":"Order","id":...}}: the record
 * as the store holds it, for verify. */
static void answer_record(server *sv, const cJSON *rq)
{
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rq, "aggregate"));
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(rq, "id");
    const aggregate *agg = NULL;
    for (size_t i = 0; name && i < sv->p->naggs; i++)
        if (!strcmp(sv->p->aggs[i].name, name))
            agg = &sv->p->aggs[i];
    char *text = id ? cJSON_PrintUnformatted(id) : NULL;
    char why[512], msg[600];
    value key, rec;
    store *s = &sv->tap.base;
    if (!agg) {
        snprintf(msg, sizeof msg, "not a request: the record request names no aggregate of %s",
                 sv->p->domain);
        answer_error(sv, msg);
    } else if (!text || json_decode(text, strlen(text), agg->state->fields[agg->identity].type,
                                    "id", &sv->scratch, &key, why, sizeof why) < 0) {
        snprintf(msg, sizeof msg, "not a request: %s", text ? why : "the record request has no id");
        answer_error(sv, msg);
    } else {
        int rc = s->ops->load(s, agg, &key, &rec);
        if (rc < 0) {
            answer_error(sv, s->error);
        } else if (rc == 0) {
            answer_error(sv, "no such record");
        } else {
            jline_puts(&sv->out, "{\"ok\":true,\"record\":");
            json_put_value(&sv->out, agg->state, &rec);
            PUT_TEXT(&sv->out, "}\n");
        }
    }
    free(text);
}

/* The reset request, {"reset":true}: a fresh, empty store in place of the
 * one there, as for a new run; refused while other connections share it. */
static void answer_reset(server *sv)
{
    size_t others = sv->others ? sv->others(sv->others_ctx) : 0;
    char err[1024];
    if (others == 1) {
        answer_error(sv, "reset refused: another connection is open, and a reset would empty the "
                         "store under it");
        return;
    }
    if (others > 1) {
        snprintf(err, sizeof err,
                 "reset refused: %zu other connections are open, and a reset would empty the "
                 "store under them",
                 others);
        answer_error(sv, err);
        return;
    }
    store *fresh = NULL;
    runtime *rt = NULL;
    if (store_open(sv->sd, sv->p, sv->ts, sv->opened + 1, &fresh, err, sizeof err) < 0) {
        answer_error(sv, err);
        return;
    }
    if (runtime_new(sv->p, &sv->tap.base, &rt) < 0) {
        store_close(fresh);
        answer_error(sv, "reset refused: out of memory");
        return;
    }
    sv->opened++;
    runtime_free(sv->rt);
    store_close(sv->tap.inner);
    sv->tap.inner = fresh; /* the same driver: the tap's operations stay */
    sv->rt = rt;
    jline_puts(&sv->out, "{\"ok\":true}\n");
}

/* The requests json_request_parse does not know: record and reset. True
 * when line is one of them (answered). */
static bool answer_other(server *sv, const char *line, size_t n)
{
    cJSON *root = cJSON_ParseWithLength(line, n);
    bool one = cJSON_IsObject(root) && cJSON_GetArraySize(root) == 1;
    const cJSON *record = one ? cJSON_GetObjectItemCaseSensitive(root, "record") : NULL;
    const cJSON *reset = cJSON_GetObjectItemCaseSensitive(root, "reset");
    bool known = true;
    if (cJSON_IsObject(record))
        answer_record(sv, record);
    else if (one && cJSON_IsTrue(reset))
        answer_reset(sv);
    else if (reset)
        answer_error(sv, "not a request: a reset request is {\"reset\":true} and nothing else");
    else
        known = false;
    cJSON_Delete(root);
    return known;
}

static bool is_empty_request(const char *line, size_t n)
{
    while (n && (line[n - 1] == '\r' || line[n - 1] == ' '))
        n--;
    return n == 2 && line[0] == '{' && line[1] == '}';
}

/* Any request line, parsed in full. */
static void answer_parsed(server *sv, const char *line, size_t n)
{
    json_request req;
    char why[512], msg[600];
    if (json_request_parse(line, n, &sv->scratch, &req, why, sizeof why) < 0) {
        if (!answer_other(sv, line, n)) {
            snprintf(msg, sizeof msg, "not a request: %s", why);
            answer_error(sv, msg);
        }
    } else if (req.kind == JSON_REQUEST_EMPTY) {
        jline_puts(&sv->out, empty_answer);
    } else if (req.kind == JSON_REQUEST_COUNT) {
        answer_count(sv);
    } else {
        answer_command(sv, &req);
    }
}

void serve_answer(server *sv, const char *line, size_t n, const char **answer, size_t *len)
{
    if (is_empty_request(line, n)) { /* the floor probe: no parsing at all */
        *answer = empty_answer;
        *len = sizeof empty_answer - 1;
        return;
    }
    sv->out.len = 0;
    arena_reset(&sv->scratch);
    if (!answer_canonical(sv, line, n)) {
        arena_reset(&sv->scratch); /* what a refused fast read left */
        answer_parsed(sv, line, n);
    }
    *answer = sv->out.data;
    *len = sv->out.len;
}

/* ---- the server ---- */

/* More commands than this and the lookup by hash (json_request_canonical,
 * plan_find_verb) is cheaper than comparing heads one by one. */
enum { SERVE_HEADS_MAX = 16 };

/* The table verb_of_head reads: the head of each command's canonical
 * request whose verb needs no escape (json_request_canonical's rule). */
static void verb_heads(server *sv)
{
    const plan *p = sv->p;
    if (p->ncommands > SERVE_HEADS_MAX)
        return;
    sv->verb_at = xcalloc(p->ncommands + 1, sizeof *sv->verb_at);
    sv->verb_cmd = xcalloc(p->ncommands + 1, sizeof *sv->verb_cmd);
    for (size_t i = 0; i < p->ncommands; i++) {
        const command *cmd = p->commands[i];
        bool plain = cmd->verb[0] != '\0';
        for (const char *c = cmd->verb; *c; c++)
            plain = plain && *c >= 0x20 && *c < 0x7f && *c != '"' && *c != '\\';
        if (cmd->query || !plain)
            continue;
        PUT_TEXT(&sv->verbs, "{\"verb\":\"");
        jline_puts(&sv->verbs, cmd->verb);
        PUT_TEXT(&sv->verbs, "\",\"args\":");
        sv->verb_cmd[sv->nverbs++] = cmd;
        sv->verb_at[sv->nverbs] = sv->verbs.len;
    }
}

int serve_open(const plan *p, const store_driver *sd, const target_spec *ts, server **out,
               char *err, size_t size)
{
    *out = NULL;
    server *sv = calloc(1, sizeof *sv);
    if (!sv) {
        snprintf(err, size, "out of memory");
        return -1;
    }
    *sv = (server){.p = p, .sd = sd, .ts = ts, .opened = 1};
    store *s = NULL;
    if ((sd->available && sd->available(ts, err, size) != 0) ||
        store_open(sd, p, ts, sv->opened, &s, err, size) < 0) {
        free(sv);
        return -1;
    }
    tap_init(&sv->tap, s, p);
    sv->aggs = calloc(p->naggs + 1, sizeof *sv->aggs);
    sv->events = calloc(p->nevents + 1, sizeof *sv->events);
    if (!sv->aggs || !sv->events || runtime_new(p, &sv->tap.base, &sv->rt) < 0) {
        snprintf(err, size, "out of memory");
        serve_close(sv);
        return -1;
    }
    verb_heads(sv);
    *out = sv;
    return 0;
}

void serve_close(server *sv)
{
    if (!sv)
        return;
    runtime_free(sv->rt);
    store_close(sv->tap.inner);
    free(sv->aggs);
    free(sv->events);
    jline_free(&sv->out);
    jline_free(&sv->verbs);
    free(sv->verb_at);
    free(sv->verb_cmd);
    jline_free(&sv->tap.events);
    jline_free(&sv->tap.heads);
    free(sv->tap.head_at);
    arena_free(&sv->scratch);
    free(sv);
}

void serve_set_others(server *sv, size_t (*others)(void *ctx), void *ctx)
{
    sv->others = others;
    sv->others_ctx = ctx;
}

/* Set by SIGTERM, SIGINT or SIGHUP while bench serve reads stdin. */
static volatile sig_atomic_t serve_stopped;

static void on_stop(int sig)
{
    (void)sig;
    serve_stopped = 1;
}

/* The loop of serve_stdio, until end of input or a stop signal. */
static int serve_lines_until_end(server *sv, int in_fd, int out_fd)
{
    serve_lines in = {0};
    const char *line, *answer;
    size_t n, len;
    int rc = 0;
    bool too_long = false; /* the line under way passed SERVE_LINE_MAX: its bytes are dropped */
    while (rc == 0 && !serve_stopped) {
        if (serve_lines_next(&in, &line, &n)) {
            if (too_long) {
                too_long = false;
                sv->out.len = 0;
                answer_error(sv, "the request line is longer than 16 MiB");
                rc = write_all(out_fd, sv->out.data, sv->out.len);
                continue;
            }
            serve_answer(sv, line, n, &answer, &len);
            rc = write_all(out_fd, answer, len);
            continue;
        }
        if (serve_lines_pending(&in) > SERVE_LINE_MAX) {
            too_long = true;
            in.start = in.scanned = in.end;
        }
        ssize_t got = serve_lines_fill(&in, in_fd);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            rc = -1;
        if (got != 0)
            continue;
        if (too_long) {
            sv->out.len = 0;
            answer_error(sv, "the request line is longer than 16 MiB");
            rc = write_all(out_fd, sv->out.data, sv->out.len);
        } else if (serve_lines_rest(&in, &line, &n)) { /* a last line without a newline counts */
            serve_answer(sv, line, n, &answer, &len);
            rc = write_all(out_fd, answer, len);
        }
        break;
    }
    int saved = errno;
    serve_lines_free(&in);
    errno = saved;
    return rc;
}

int serve_stdio(server *sv, int in_fd, int out_fd)
{
    /* a signal ends the read (no SA_RESTART), and the caller's serve_close
     * then removes the scratch store as at the end of input */
    static const int stops[] = {SIGTERM, SIGINT, SIGHUP};
    struct sigaction sa = {.sa_handler = on_stop}, old[3];
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; i++)
        sigaction(stops[i], &sa, &old[i]);
    int rc = serve_lines_until_end(sv, in_fd, out_fd);
    int saved = errno;
    for (int i = 0; i < 3; i++)
        sigaction(stops[i], &old[i], NULL);
    errno = saved;
    return rc;
}
