/* sql_scenarios.h: behaviours the sqlite and postgres targets must share
 * with the memory runtime, written once and run by test_sqlite.c and
 * test_postgres.c against the real engines. Each takes the target's options
 * and the function that reaches its store. Include after sql_fixture.h. */
#ifndef BENCH_TESTS_SQL_SCENARIOS_H
#define BENCH_TESTS_SQL_SCENARIOS_H

#include "sql_fixture.h"

typedef store *(*store_fn)(target *t);

/* clang-format off */

/* Values of every kind, nested, optional, and strings that would break SQL
 * if they were ever pasted into it. */
static const char values_spec[] =
    "spec: 1\n"
    "domain: values\n"
    "types:\n"
    "  Mood: {enum: [calm, stormy]}\n"
    "  Inner: {fields: {label: string, n: int, flag: bool, mood: Mood,\n"
    "                   note: {type: string, optional: true}}}\n"
    "aggregates:\n"
    "  Thing:\n"
    "    identity: id\n"
    "    fields:\n"
    "      id: string\n"
    "      text: string\n"
    "      n: int\n"
    "      flag: bool\n"
    "      mood: Mood\n"
    "      inner: Inner\n"
    "      items: {list: Inner}\n"
    "      tags: {list: string}\n"
    "      maybe: {type: string, optional: true}\n"
    "      count: {type: int, optional: true}\n"
    "    commands:\n"
    "      Make:\n"
    "        creates: true\n"
    "        params: {id: string, text: string, n: int, flag: bool, mood: Mood, inner: Inner,\n"
    "                 tags: {list: string}}\n"
    "        set: {text: arg.text, n: arg.n, flag: arg.flag, mood: arg.mood, inner: arg.inner,\n"
    "              tags: arg.tags}\n"
    "        emits: Made\n"
    "      Push:\n"
    "        params: {id: string, item: Inner}\n"
    "        append: {items: arg.item}\n"
    "        set: {maybe: arg.item.label, count: len(items) + 1}\n"
    "        emits: Pushed\n"
    "workload:\n"
    "  cycle:\n"
    "    - Thing.Make: {id: \"t-${n}\", text: x, n: 1, flag: true, mood: calm,\n"
    "                   inner: {label: a, n: 1, flag: true, mood: calm}, tags: []}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 1\n";

/* A policy that refuses (too many loans), a read alias, a policy whose key
 * comes from the record (Return). */
static const char lending_spec[] =
    "spec: 1\n"
    "domain: lending\n"
    "aggregates:\n"
    "  Member:\n"
    "    identity: card\n"
    "    fields: {card: string, loans: {type: int, default: 0}, max_loans: int}\n"
    "    commands:\n"
    "      Join: {creates: true, params: {card: string, max_loans: int},\n"
    "             set: {max_loans: arg.max_loans}, emits: Joined}\n"
    "      CountLoan:\n"
    "        params: {card: string}\n"
    "        guards: [{check: loans < max_loans, refuse: too many loans}]\n"
    "        set: {loans: loans + 1}\n"
    "        emits: LoanCounted\n"
    "      CountReturn:\n"
    "        params: {card: string}\n"
    "        set: {loans: loans - 1}\n"
    "        emits: ReturnCounted\n"
    "  Copy:\n"
    "    identity: barcode\n"
    "    fields: {barcode: string, lent: {type: bool, default: false},\n"
    "             card: {type: string, default: ''}}\n"
    "    commands:\n"
    "      Acquire:\n"
    "        creates: true\n"
    "        params: {barcode: string, title: string}\n"
    "        guards: [{check: \"arg.title != ''\", refuse: a copy needs a title}]\n"
    "        emits: Acquired\n"
    "      Donate:                    # a create with a read: two round trips\n"
    "        creates: true\n"
    "        params: {barcode: string, card: string}\n"
    "        reads: {donor: {Member: arg.card}}\n"
    "        set: {card: arg.card}\n"
    "        emits: Donated\n"
    "      Lend:\n"
    "        params: {barcode: string, card: string}\n"
    "        reads: {reader: {Member: arg.card}}\n"
    "        guards: [{check: not lent, refuse: already lent}]\n"
    "        set: {lent: true, card: arg.card}\n"
    "        emits: Lent\n"
    "      Return:\n"
    "        params: {barcode: string}\n"
    "        guards: [{check: lent, refuse: not lent}]\n"
    "        set: {lent: false}\n"
    "        emits: {event: Returned, payload: {barcode: arg.barcode, card: card}}\n"
    "policies:\n"
    "  - {on: Lent, run: Member.CountLoan, args: {card: event.card}}\n"
    "  - {on: Returned, run: Member.CountReturn, args: {card: event.card}}\n"
    "workload:\n"
    "  setup:\n"
    "    - Member.Join: {card: M-1, max_loans: 1}\n"
    "  cycle:\n"
    "    - Copy.Acquire: {barcode: \"c-${n}\", title: T}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 1\n";

/* clang-format on */

/* Strings that would end a quoted SQL literal or identifier and run more. */
static const char *const nasty[] = {
    "'); DROP TABLE \"Thing\"; --",
    "Robert\"); DROP TABLE events; --",
    "x' OR '1'='1",
    "back\\slash \"quoted\" new\nline\ttab \x01 na\xc3\xafve \xe2\x98\x95 \xf0\x9d\x84\x9e",
    "",
};

/* A YAML double-quoted scalar of s. */
static inline void yaml_quote(const char *s, char *out, size_t size)
{
    size_t n = 0;
    out[n++] = '"';
    for (; *s && n + 8 < size; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            n += (size_t)snprintf(out + n, size - n, "\\%c", c);
        else if (c < 0x20)
            n += (size_t)snprintf(out + n, size - n, "\\x%02x", c);
        else
            out[n++] = (char)c;
    }
    out[n++] = '"';
    out[n] = '\0';
}

static inline void scenario_values_round_trip(const target_spec *ts, store_fn store_of)
{
    fx *f = fx_open(values_spec, ts, store_of);
    for (size_t k = 0; k < sizeof nasty / sizeof *nasty; k++) {
        char id[256], text[256], args[2048];
        char raw_id[128];
        snprintf(raw_id, sizeof raw_id, "%zu%s", k, nasty[k]);
        yaml_quote(raw_id, id, sizeof id);
        yaml_quote(nasty[k], text, sizeof text);
        snprintf(args, sizeof args,
                 "{id: %s, text: %s, n: %s, flag: %s, mood: stormy,"
                 " inner: {label: %s, n: -42, flag: false, mood: calm, note: %s}, tags: [%s, b]}",
                 id, text, k % 2 ? "9223372036854775807" : "-9223372036854775807",
                 k % 2 ? "true" : "false", text, text, text);
        fx_ok(f, "Thing.Make", args);
        snprintf(args, sizeof args, "{id: %s, item: {label: %s, n: 7, flag: true, mood: stormy}}",
                 id, text);
        fx_ok(f, "Thing.Push", args);

        value rec;
        assert_true(fx_load(f, "Thing", raw_id, &rec));
        size_t len = strlen(nasty[k]);
        fx_assert_str(fx_get(f, "Thing", &rec, "id"), raw_id, strlen(raw_id));
        fx_assert_str(fx_get(f, "Thing", &rec, "text"), nasty[k], len);
        assert_int_equal(fx_int(f, "Thing", &rec, "n"), k % 2 ? INT64_MAX : -INT64_MAX);
        const value *flag = fx_get(f, "Thing", &rec, "flag");
        assert_int_equal(flag->kind, VAL_BOOL);
        assert_int_equal(flag->u.b, k % 2 == 1);
        const value *mood = fx_get(f, "Thing", &rec, "mood");
        assert_int_equal(mood->kind, VAL_ENUM);
        assert_int_equal(mood->u.e, 1);
        const value *inner = fx_get(f, "Thing", &rec, "inner");
        assert_int_equal(inner->kind, VAL_STRUCT);
        fx_assert_str(&inner->u.items[0], nasty[k], len);
        assert_int_equal(inner->u.items[1].u.i, -42);
        assert_int_equal(inner->u.items[2].u.b, false);
        assert_int_equal(inner->u.items[3].u.e, 0);
        fx_assert_str(&inner->u.items[4], nasty[k], len);
        const value *items = fx_get(f, "Thing", &rec, "items");
        assert_int_equal(items->kind, VAL_LIST);
        assert_int_equal(items->len, 1);
        fx_assert_str(&items->u.items[0].u.items[0], nasty[k], len);
        assert_int_equal(items->u.items[0].u.items[4].kind, VAL_NONE); /* unset optional */
        const value *tags = fx_get(f, "Thing", &rec, "tags");
        assert_int_equal(tags->len, 2);
        fx_assert_str(&tags->u.items[0], nasty[k], len);
        fx_assert_str(fx_get(f, "Thing", &rec, "maybe"), nasty[k], len);
        assert_int_equal(fx_int(f, "Thing", &rec, "count"), 1);
    }
    /* the tables are all still there, holding exactly what was written */
    assert_int_equal(fx_count(f, "Thing"), sizeof nasty / sizeof *nasty);
    assert_int_equal(fx_count(f, "Made"), sizeof nasty / sizeof *nasty);
    assert_int_equal(fx_count(f, "Pushed"), sizeof nasty / sizeof *nasty);
    fx_close(f);
}

static inline void scenario_new_record_leaves_optionals_unset(const target_spec *ts,
                                                              store_fn store_of)
{
    fx *f = fx_open(values_spec, ts, store_of);
    fx_ok(f, "Thing.Make",
          "{id: a, text: t, n: 0, flag: true, mood: calm,"
          " inner: {label: l, n: 1, flag: true, mood: calm}, tags: []}");
    value rec;
    assert_true(fx_load(f, "Thing", "a", &rec));
    assert_int_equal(fx_get(f, "Thing", &rec, "maybe")->kind, VAL_NONE);
    assert_int_equal(fx_get(f, "Thing", &rec, "count")->kind, VAL_NONE);
    assert_int_equal(fx_get(f, "Thing", &rec, "inner")->u.items[4].kind, VAL_NONE);
    assert_int_equal(fx_get(f, "Thing", &rec, "items")->kind, VAL_LIST);
    assert_int_equal(fx_get(f, "Thing", &rec, "items")->len, 0);
    assert_false(fx_load(f, "Thing", "b", &rec));
    fx_close(f);
}

/* The same refusals, with the same messages, as the memory runtime; and
 * nothing of a refused command is kept, policies included. */
static inline void scenario_refusals_roll_back(const target_spec *ts, store_fn store_of)
{
    fx *f = fx_open(lending_spec, ts, store_of);
    fx_ok(f, "Member.Join", "{card: M-1, max_loans: 1}");
    fx_refused(f, "Member.Join", "{card: M-1, max_loans: 5}",
               "Member.Join refused: Member 'M-1' already exists");
    fx_ok(f, "Copy.Acquire", "{barcode: c-1, title: T}");
    fx_ok(f, "Copy.Acquire", "{barcode: c-2, title: T}");
    /* refused by its guard; but the identity exists, which the memory
     * runtime checks first */
    fx_refused(f, "Copy.Acquire", "{barcode: c-1, title: ''}",
               "Copy.Acquire refused: Copy 'c-1' already exists");
    fx_refused(f, "Copy.Acquire", "{barcode: c-3, title: ''}",
               "Copy.Acquire refused: a copy needs a title");
    fx_refused(f, "Copy.Lend", "{barcode: c-9, card: M-1}",
               "Copy.Lend refused: Copy 'c-9' does not exist");
    /* a create with a read: refused by its key, and, when both fail, by its
     * key first, as the memory runtime checks it first */
    fx_refused(f, "Copy.Donate", "{barcode: c-1, card: M-1}",
               "Copy.Donate refused: Copy 'c-1' already exists");
    fx_refused(f, "Copy.Donate", "{barcode: c-1, card: M-9}",
               "Copy.Donate refused: Copy 'c-1' already exists");
    fx_refused(f, "Copy.Donate", "{barcode: c-7, card: M-9}",
               "Copy.Donate refused: Member 'M-9' does not exist (read as donor)");
    fx_refused(f, "Copy.Lend", "{barcode: c-1, card: M-9}",
               "Copy.Lend refused: Member 'M-9' does not exist (read as reader)");
    fx_ok(f, "Copy.Lend", "{barcode: c-1, card: M-1}");
    /* the policy refuses: the copy's own change and its event go too */
    fx_refused(f, "Copy.Lend", "{barcode: c-2, card: M-1}",
               "Copy.Lend refused: policy Member.CountLoan refused: too many loans");
    value rec;
    assert_true(fx_load(f, "Copy", "c-2", &rec));
    assert_false(fx_get(f, "Copy", &rec, "lent")->u.b);
    fx_assert_str(fx_get(f, "Copy", &rec, "card"), "", 0);
    assert_true(fx_load(f, "Member", "M-1", &rec));
    assert_int_equal(fx_int(f, "Member", &rec, "loans"), 1);
    assert_int_equal(fx_count(f, "Lent"), 1);
    assert_int_equal(fx_count(f, "LoanCounted"), 1);
    assert_int_equal(fx_count(f, "Copy"), 2);
    assert_int_equal(fx_count(f, "Acquired"), 2);
    assert_int_equal(fx_count(f, "Joined"), 1);
    /* and the store still works after the refusals */
    fx_ok(f, "Copy.Return", "{barcode: c-1}");
    fx_ok(f, "Copy.Lend", "{barcode: c-2, card: M-1}");
    assert_true(fx_load(f, "Member", "M-1", &rec));
    assert_int_equal(fx_int(f, "Member", &rec, "loans"), 1);
    assert_int_equal(fx_count(f, "ReturnCounted"), 1);
    assert_int_equal(fx_count(f, "Lent"), 2);
    fx_close(f);
}

/* Both bundled specs and every example run, and verify: results rows in
 * all (the bundled specs list more targets than the examples). */
static inline void scenario_bundled_specs_verify(const char *const *only, size_t results)
{
    static const char *const paths[] = {"specs/pizzas.yaml",       "specs/banking.yaml",
                                        "examples/inventory.yaml", "examples/library.yaml",
                                        "examples/tickets.yaml",   NULL};
    fx_run fr;
    fx_run_specs(&fr, paths, only, 20);
    fx_assert_all_passed(&fr, results);
    fx_run_free(&fr);
}

/* Names that collide once case is ignored, a table named like the events
 * table, SQL keywords, a name longer than PostgreSQL's 63 bytes. */
static const char names_spec[] =
    "spec: 1\n"
    "domain: names\n"
    "aggregates:\n"
    "  events:\n"
    "    identity: select\n"
    "    fields: {select: string, from: int, Where: int, where: int,\n"
    "             a_field_whose_name_is_longer_than_sixty_three_bytes_in_total_x1: int,\n"
    "             a_field_whose_name_is_longer_than_sixty_three_bytes_in_total_x2: int}\n"
    "    commands:\n"
    "      Make:\n"
    "        creates: true\n"
    "        params: {select: string}\n"
    "        set: {from: 1, Where: 2, where: 3,\n"
    "              a_field_whose_name_is_longer_than_sixty_three_bytes_in_total_x1: 4,\n"
    "              a_field_whose_name_is_longer_than_sixty_three_bytes_in_total_x2: 5}\n"
    "        emits: Made\n"
    "      Bump:\n"
    "        params: {select: string}\n"
    "        set: {where: where + 1}\n"
    "        emits: Bumped\n"
    "  Events:\n"
    "    identity: id\n"
    "    fields: {id: int}\n"
    "    commands:\n"
    "      Make: {creates: true, params: {id: int}, emits: Numbered}\n"
    "workload:\n"
    "  cycle:\n"
    "    - events.Make: {select: \"s-${n}\"}\n"
    "    - events.Bump: {select: \"s-${n}\"}\n"
    "    - Events.Make: {id: \"${n}\"}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 1\n";

static inline void scenario_awkward_names(const target_spec *ts, store_fn store_of)
{
    fx *f = fx_open(names_spec, ts, store_of);
    for (int i = 0; i < 3; i++) {
        char a[64];
        snprintf(a, sizeof a, "{select: s-%d}", i);
        fx_ok(f, "events.Make", a);
        fx_ok(f, "events.Bump", a);
        snprintf(a, sizeof a, "{id: %d}", i);
        fx_ok(f, "Events.Make", a);
    }
    value rec;
    assert_true(fx_load(f, "events", "s-1", &rec));
    assert_int_equal(fx_int(f, "events", &rec, "from"), 1);
    assert_int_equal(fx_int(f, "events", &rec, "Where"), 2);
    assert_int_equal(fx_int(f, "events", &rec, "where"), 4);
    assert_int_equal(fx_int(f, "events", &rec,
                            "a_field_whose_name_is_longer_than_sixty_three_bytes_in_total_x2"),
                     5);
    assert_int_equal(fx_count(f, "events"), 3);
    assert_int_equal(fx_count(f, "Events"), 3);
    assert_int_equal(fx_count(f, "Made"), 3);
    assert_int_equal(fx_count(f, "Numbered"), 3);
    assert_int_equal(fx_count(f, "Bumped"), 3);
    fx_close(f);
}

#endif
