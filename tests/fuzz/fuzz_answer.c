/* fuzz_answer.c: the process target's side of the protocol: an answer line
 * read as dispatch reads it, and decoded as a query's returns. */
#include <stdint.h>

#include "fuzz_protocol_types.h"
#include "json_line.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    char msg[256], why[512];
    json_answer_read(s, size, msg, sizeof msg);
    arena a = {0};
    value v;
    json_decode(s, size, &fz_args, "returns", &a, &v, why, sizeof why);
    arena_free(&a);
    return 0;
}
