/* fuzz_request.c: `bench serve`'s side of the protocol: a request line
 * parsed as serve_answer does, its args decoded against a struct type and
 * checked, and the value encoded again (in the protocol's form and in the
 * stored form, which must decode back). */
#include <stdint.h>
#include <string.h>

#include "fuzz_protocol_types.h"
#include "json_line.h"
#include "value.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    arena a = {0};
    json_request r;
    char why[512];
    if (json_request_parse(s, size, &a, &r, why, sizeof why) == 0 && r.args) {
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
