/* value.h: checking values against their types' constraints, comparing and
 * rendering them. Used by the compiler for constants and by the runtime for
 * arguments and new states, so both refuse with the same words. */
#ifndef BENCH_VALUE_H
#define BENCH_VALUE_H

#include <stdio.h>

#include "arena.h"
#include "types.h"

/* The unset-field rule, the one place it is written: a field that nothing
 * sets (a step, an argument line, a new record, an appended or built struct)
 * takes its default, [] when it is a list, and is otherwise unset (VAL_NONE). */
value field_initial(const field *f);
/* True when whoever builds f's struct must give it a value: it is not
 * optional, has no default and is not a list. */
bool field_required(const field *f);

/* Checks v against t's constraints (recursively for structs and lists):
 * int range, string length in code points, pattern, enum index, list
 * max_items, non-optional struct fields set. what names the value in the
 * message (a field or parameter path such as "pizza.price_cents").
 * Returns 0, or -1 with a sentence in why: "price_cents: -1 is less than the
 * minimum 0". Never allocates (pattern matching uses t->md). */
int value_check(const ty *t, const value *v, const char *what, char *why, size_t size);
/* value_check of a struct of type st of which only field f may have changed,
 * to v (every other field, and for a list grown by appends its items before
 * from, passed before): the sentence value_check(st, state, "") gives for
 * that field, in the same words. Never allocates. */
int value_check_field(const ty *st, size_t f, const value *v, uint32_t from, char *why,
                      size_t size);
/* Whether v passes value_check(t, v), without a message: the cheap test a
 * caller makes before it asks value_check for the sentence. */
bool value_valid(const ty *t, const value *v);
/* True when every value of t's kind passes t's checks (an int or string
 * without bounds or pattern, a bool): only an unset one can be refused. */
bool value_type_unconstrained(const ty *t);
/* memcpy of n values, of a constant size for n up to 8 (a struct's items:
 * copied in place, without a call). */
static inline void values_copy(value *dst, const value *src, size_t n)
{
    switch (n) {
    case 0: return;
    case 1: memcpy(dst, src, 1 * sizeof *dst); return;
    case 2: memcpy(dst, src, 2 * sizeof *dst); return;
    case 3: memcpy(dst, src, 3 * sizeof *dst); return;
    case 4: memcpy(dst, src, 4 * sizeof *dst); return;
    case 5: memcpy(dst, src, 5 * sizeof *dst); return;
    case 6: memcpy(dst, src, 6 * sizeof *dst); return;
    case 7: memcpy(dst, src, 7 * sizeof *dst); return;
    case 8: memcpy(dst, src, 8 * sizeof *dst); return;
    default: memcpy(dst, src, n * sizeof *dst); return;
    }
}

/* Quick tests for the runtime's hot path, inline: true when the value
 * certainly passes t's bounds (false: ask value_check, which has the
 * words). An int within t's min and max: */
static inline bool value_int_fits(const ty *t, int64_t i)
{
    return (!t->has_min || i >= t->min) && (!t->has_max || i <= t->max);
}

/* A string of `bytes` bytes of valid UTF-8 (1 to 4 bytes a code point)
 * whose byte count alone says it holds at least t's min_len code points
 * and at most its max_len (t has no pattern). */
static inline bool value_bytes_fit(const ty *t, uint32_t bytes)
{
    return (!t->has_min_len || ((int64_t)bytes + 3) / 4 >= t->min_len) &&
           (!t->has_max_len || (int64_t)bytes <= t->max_len);
}

/* A deep copy of v in arena a: structs, lists and strings are copied, so the
 * copy outlives whatever v points into. */
value value_copy(arena *a, const value *v);
/* Deep equality of two values of compatible types. */
bool value_equal(const value *a, const value *b);
/* Writes v in a compact YAML flow form for plan listings. */
void value_print_flow(FILE *out, const ty *t, const value *v);
/* The same into out (size > 0), cut to fit; returns out. */
const char *value_flow_text(const ty *t, const value *v, char *out, size_t size);

#endif
