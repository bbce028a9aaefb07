/* sqlgen.c: table and statement texts from a plan (see sqlgen.h). */
#include "sqlgen.h"

#include "alloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* [A-Za-z_][A-Za-z0-9_]*, of any length. */
static bool identifier_chars(const char *name)
{
    if (!*name)
        return false;
    for (size_t i = 0; name[i]; i++) {
        char c = name[i];
        bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
        if (!alpha && !(i > 0 && c >= '0' && c <= '9'))
            return false;
    }
    return true;
}

bool sqlgen_identifier_ok(const char *name)
{
    return strlen(name) <= SQL_NAME_MAX && identifier_chars(name);
}

const char *sqlgen_column_type(sql_dialect d, const ty *t)
{
    bool pg = d == SQL_POSTGRES;
    switch (t->kind) {
    case TY_INT: return pg ? "bigint" : "INTEGER";
    case TY_BOOL: return pg ? "boolean" : "INTEGER";
    case TY_STRING:
    case TY_ENUM: return pg ? "text" : "TEXT";
    case TY_STRUCT:
    case TY_LIST: break;
    }
    return pg ? "json" : "TEXT";
}

/* ---- names ---- */

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 16777619u;
    }
    return h;
}

static bool taken(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcasecmp(names[i], name))
            return true;
    return false;
}

/* want as a name unique (ignoring case) among names[0..n) and at most
 * SQL_NAME_MAX bytes: a long name keeps its first 54 bytes and a hash of the
 * rest; a taken one gets _2, _3 ... */
static const char *unique_name(arena *a, const char *const *names, size_t n, const char *want)
{
    char base[SQL_NAME_MAX + 1];
    if (strlen(want) > SQL_NAME_MAX)
        snprintf(base, sizeof base, "%.54s_%08x", want, (unsigned)fnv1a(want));
    else
        snprintf(base, sizeof base, "%s", want);
    if (!taken(names, n, base))
        return arena_strdup(a, base);
    for (unsigned k = 2;; k++) {
        char tail[16], cand[SQL_NAME_MAX + 1];
        int tl = snprintf(tail, sizeof tail, "_%u", k);
        snprintf(cand, sizeof cand, "%.*s%s", SQL_NAME_MAX - tl, base, tail);
        if (!taken(names, n, cand))
            return arena_strdup(a, cand);
    }
}

/* ---- text building ---- */

typedef struct text {
    char *buf;
    size_t len, cap;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->buf ? t->buf + t->len : NULL, t->buf ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            abort(); /* a programmer error: a format vsnprintf cannot encode */
        if (t->buf && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap : 256;
        while (cap <= t->len + (size_t)n)
            cap *= 2;
        char *more = xrealloc(t->buf, cap);
        t->buf = more;
        t->cap = cap;
    }
}

/* The text so far, copied into the arena; t is emptied. */
static const char *take(arena *a, text *t)
{
    const char *s = arena_strndup(a, t->buf ? t->buf : "", t->len);
    t->len = 0;
    return s;
}

typedef struct gen {
    sql_schema *s;
    text t;
} gen;

/* A table's name as statements write it: "schema"."name" or "name". */
static void add_table(gen *g, const char *name)
{
    if (g->s->schema)
        add(&g->t, "\"%s\".", g->s->schema);
    add(&g->t, "\"%s\"", name);
}

static void add_param(gen *g, size_t n)
{
    add(&g->t, g->s->dialect == SQL_POSTGRES ? "$%zu" : "?%zu", n);
}

static void gen_table(gen *g, sql_table *tb)
{
    const aggregate *agg = tb->agg;
    const ty *st = agg->state;
    bool pg = g->s->dialect == SQL_POSTGRES;
    size_t id = (size_t)agg->identity;

    add(&g->t, "CREATE TABLE ");
    add_table(g, tb->name);
    add(&g->t, " (");
    for (size_t i = 0; i < st->nfields; i++) {
        const field *f = &st->fields[i];
        add(&g->t, "%s\"%s\" %s", i ? ", " : "", tb->columns[i],
            sqlgen_column_type(g->s->dialect, f->type));
        /* identities order by their bytes on every store (scans): SQLite's
           BINARY does, PostgreSQL's default collation may not */
        if (i == id && pg && f->type->kind == TY_STRING)
            add(&g->t, " COLLATE \"C\"");
        if (i == id)
            add(&g->t, " PRIMARY KEY");
        else if (!f->optional)
            add(&g->t, " NOT NULL");
    }
    /* SQLite: the rows live in the primary key's b-tree, found in one search */
    add(&g->t, pg ? ")" : ") WITHOUT ROWID");
    tb->create = take(&g->s->mem, &g->t);

    add(&g->t, "SELECT ");
    bool first = true;
    for (size_t i = 0; i < st->nfields; i++) {
        if (i == id)
            continue;
        add(&g->t, "%s\"%s\"", first ? "" : ", ", tb->columns[i]);
        first = false;
    }
    if (first) /* a record with nothing but its identity */
        add(&g->t, "1");
    add(&g->t, " FROM ");
    add_table(g, tb->name);
    add(&g->t, " WHERE \"%s\" = ", tb->columns[id]);
    add_param(g, 1);
    tb->select = take(&g->s->mem, &g->t);

    add(&g->t, "INSERT INTO ");
    add_table(g, tb->name);
    add(&g->t, " (");
    for (size_t i = 0; i < st->nfields; i++)
        add(&g->t, "%s\"%s\"", i ? ", " : "", tb->columns[i]);
    add(&g->t, ") VALUES (");
    for (size_t i = 0; i < st->nfields; i++) {
        add(&g->t, "%s", i ? ", " : "");
        add_param(g, i + 1);
    }
    add(&g->t, ")");
    tb->insert = take(&g->s->mem, &g->t);

    add(&g->t, "UPDATE ");
    add_table(g, tb->name);
    add(&g->t, " SET ");
    first = true;
    for (size_t i = 0; i < st->nfields; i++) {
        if (i == id)
            continue;
        add(&g->t, "%s\"%s\" = ", first ? "" : ", ", tb->columns[i]);
        add_param(g, i + 1);
        first = false;
    }
    if (first) /* nothing to set but the key itself */
        add(&g->t, "\"%s\" = \"%s\"", tb->columns[id], tb->columns[id]);
    add(&g->t, " WHERE \"%s\" = ", tb->columns[id]);
    add_param(g, id + 1);
    tb->update = take(&g->s->mem, &g->t);

    add(&g->t, "DELETE FROM ");
    add_table(g, tb->name);
    add(&g->t, " WHERE \"%s\" = ", tb->columns[id]);
    add_param(g, 1);
    tb->remove = take(&g->s->mem, &g->t);

    add(&g->t, "SELECT count(*) FROM ");
    add_table(g, tb->name);
    tb->count = take(&g->s->mem, &g->t);

    add(&g->t, "SELECT \"%s\"", tb->columns[id]);
    for (size_t i = 0; i < st->nfields; i++)
        if (i != id)
            add(&g->t, ", \"%s\"", tb->columns[i]);
    add(&g->t, " FROM ");
    add_table(g, tb->name);
    add(&g->t, " WHERE \"%s\" >= ", tb->columns[id]);
    add_param(g, 1);
    add(&g->t, " ORDER BY \"%s\" LIMIT ", tb->columns[id]);
    add_param(g, 2);
    tb->scan = take(&g->s->mem, &g->t);
}

static void gen_events(gen *g)
{
    sql_schema *s = g->s;
    bool pg = s->dialect == SQL_POSTGRES;
    add(&g->t, "CREATE TABLE ");
    add_table(g, s->events);
    if (pg)
        add(&g->t, " (\"sequence\" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
                   "\"aggregate\" text NOT NULL, \"identity\" text NOT NULL, "
                   "\"event\" text NOT NULL, \"payload\" json NOT NULL)");
    else
        add(&g->t,
            " (\"sequence\" INTEGER PRIMARY KEY, \"aggregate\" TEXT NOT NULL, "
            "\"identity\" TEXT NOT NULL, \"event\" TEXT NOT NULL, \"payload\" TEXT NOT NULL)");
    s->create_events = take(&s->mem, &g->t);

    add(&g->t, "INSERT INTO ");
    add_table(g, s->events);
    add(&g->t, " (\"aggregate\", \"identity\", \"event\", \"payload\") VALUES (");
    for (size_t i = 1; i <= 4; i++) {
        add(&g->t, "%s", i > 1 ? ", " : "");
        add_param(g, i);
    }
    add(&g->t, ")");
    s->insert_event = take(&s->mem, &g->t);

    add(&g->t, "SELECT \"event\", count(*) FROM ");
    add_table(g, s->events);
    add(&g->t, " GROUP BY \"event\"");
    s->count_events = take(&s->mem, &g->t);
}

static int bad_name(char *err, size_t size, const char *what, const char *name)
{
    snprintf(err, size,
             "%s '%.100s' is not an identifier ([A-Za-z_][A-Za-z0-9_]*), so it cannot name a "
             "table or column",
             what, name);
    return -1;
}

/* Every name that reaches SQL text; longer names are shortened later, so
 * only their characters matter here. */
static int check_names(const plan *p, const char *schema, char *err, size_t size)
{
    if (schema && !sqlgen_identifier_ok(schema))
        return bad_name(err, size, "the schema", schema);
    for (size_t a = 0; a < p->naggs; a++) {
        const aggregate *agg = &p->aggs[a];
        if (!identifier_chars(agg->name))
            return bad_name(err, size, "the aggregate", agg->name);
        for (size_t i = 0; i < agg->state->nfields; i++)
            if (!identifier_chars(agg->state->fields[i].name))
                return bad_name(err, size, "the field", agg->state->fields[i].name);
    }
    return 0;
}

int sqlgen_schema(const plan *p, sql_dialect d, const char *schema, sql_schema **out, char *err,
                  size_t size)
{
    *out = NULL;
    if (check_names(p, schema, err, size) < 0)
        return -1;
    sql_schema *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, size, "out of memory");
        return -1;
    }
    s->dialect = d;
    s->schema = schema ? arena_strdup(&s->mem, schema) : NULL;
    s->ntables = p->naggs;
    s->tables = arena_alloc(&s->mem, (p->naggs + 1) * sizeof *s->tables);
    const char **names = arena_alloc(&s->mem, (p->naggs + 1) * sizeof *names);
    for (size_t a = 0; a < p->naggs; a++) {
        sql_table *tb = &s->tables[a];
        tb->agg = &p->aggs[a];
        tb->name = names[a] = unique_name(&s->mem, names, a, p->aggs[a].name);
        const ty *st = p->aggs[a].state;
        tb->columns = arena_alloc(&s->mem, (st->nfields + 1) * sizeof *tb->columns);
        for (size_t i = 0; i < st->nfields; i++)
            tb->columns[i] = unique_name(&s->mem, tb->columns, i, st->fields[i].name);
    }
    s->events = unique_name(&s->mem, names, p->naggs, "events");
    gen g = {.s = s};
    for (size_t a = 0; a < p->naggs; a++)
        gen_table(&g, &s->tables[a]);
    gen_events(&g);
    free(g.t.buf);
    *out = s;
    return 0;
}

void sqlgen_free(sql_schema *s)
{
    if (!s)
        return;
    arena_free(&s->mem);
    free(s);
}

const char *sqlgen_select_via(sql_schema *s, const aggregate *agg, const aggregate *from,
                              int from_field)
{
    const sql_table *to = &s->tables[agg->index], *fr = &s->tables[from->index];
    const ty *st = agg->state;
    gen g = {.s = s};
    add(&g.t, "SELECT f.\"%s\", a.\"%s\"", fr->columns[from_field], to->columns[agg->identity]);
    for (size_t i = 0; i < st->nfields; i++)
        if ((int)i != agg->identity)
            add(&g.t, ", a.\"%s\"", to->columns[i]);
    add(&g.t, " FROM ");
    add_table(&g, fr->name);
    add(&g.t, " AS f LEFT JOIN ");
    add_table(&g, to->name);
    add(&g.t, " AS a ON a.\"%s\" = f.\"%s\"", to->columns[agg->identity], fr->columns[from_field]);
    /* the identity column's collation is C (gen_table), the field's the default */
    if (s->dialect == SQL_POSTGRES && st->fields[agg->identity].type->kind == TY_STRING)
        add(&g.t, " COLLATE \"C\"");
    add(&g.t, " WHERE f.\"%s\" = ", fr->columns[from->identity]);
    add_param(&g, 1);
    const char *sql = take(&s->mem, &g.t);
    free(g.t.buf);
    return sql;
}
