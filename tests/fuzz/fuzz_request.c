/* fuzz_request.c: `bench serve`'s side of the protocol: a request line
 * parsed as serve_answer does (its fast read of the canonical shape must
 * mean what the full parse means), its args decoded against a struct type and
 * checked, and the value encoded again (in the protocol's form and in the
 * stored form, which must decode back). Args the fast read calls exact
 * must encode to the very bytes read. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_protocol_types.h"
#include "json_line.h"
#include "value.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool only_spaces(const char *p, const char *end)
{
    for (; p < end; p++)
        if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
            return false;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    arena a = {0};
    json_request r;
    char why[512];
    int parsed = json_request_parse(s, size, &a, &r, why, sizeof why);
    /* serve's fast read of the canonical shape means what the full parse does */
    const char *verb, *args, *rest;
    size_t vlen;
    value fast, full;
    bool exact = false;
    if (json_request_canonical(s, size, &verb, &vlen, &args) &&
        json_decode_head(args, size - (size_t)(args - s), &fz_args, "args", &a, &fast, &rest,
                         &exact, why, sizeof why) == 0 &&
        rest < s + size && *rest == '}' && only_spaces(rest + 1, s + size)) {
        if (parsed != 0 || r.kind != JSON_REQUEST_COMMAND || strlen(r.verb) != vlen ||
            memcmp(r.verb, verb, vlen) != 0 || !r.args ||
            json_decode(r.args, r.args_len, &fz_args, "args", &a, &full, why, sizeof why) != 0 ||
            !value_equal(&fast, &full))
            __builtin_trap();
        if (exact) { /* serve echoes such args as an event's payload: the encoder's bytes */
            jline again = {0};
            json_put_value(&again, &fz_args, &fast);
            if (again.len != (size_t)(rest - args) || memcmp(again.data, args, again.len) != 0)
                __builtin_trap();
            jline_free(&again);
        }
    }
    if (parsed == 0 && r.args) {
        value v;
        if (json_decode(r.args, r.args_len, &fz_args, "args", &a, &v, why, sizeof why) == 0 &&
            value_check(&fz_args, &v, "args", why, sizeof why) == 0) {
            jline b = {0}, stored = {0};
            json_put_value(&b, &fz_args, &v);
            json_put_stored(&stored, &fz_args, &v);
            value back;
            if (json_decode_stored(stored.data, stored.len, &fz_args, "stored", &a, &back, why,
                                   sizeof why) != 0)
                __builtin_trap(); /* what bench stored it must read back */
            jline_free(&b);
            jline_free(&stored);
        }
    }
    arena_free(&a);
    return 0;
}
