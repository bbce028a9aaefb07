/* fuzz_answer.c: the process target's side of the protocol: an answer line
 * read as dispatch reads it, and decoded as a query's returns; and when
 * settle's fast path (json_answer_events) reads it, cJSON must read it too,
 * to the same event names (a difference traps). */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_protocol_types.h"
#include "json_line.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What targets/process.c's full parse makes of the line's event names, as
 * "A, B" in names; false when it would refuse the line. */
static bool cjson_names(const char *s, size_t n, jline *names)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(s, n, &end, false);
    bool ok = cJSON_IsObject(root) && cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(root, "ok"));
    for (; ok && end && end < s + n; end++)
        ok = *end == ' ' || *end == '\t' || *end == '\r';
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(root, "events"), *ev;
    ok = ok && cJSON_IsArray(events);
    for (ev = ok ? events->child : NULL; ev; ev = ev->next) {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "name"));
        if (!cJSON_IsObject(ev) || !name) {
            ok = false;
            break;
        }
        if (names->len)
            jline_put(names, ", ", 2);
        jline_puts(names, name);
    }
    cJSON_Delete(root);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    char msg[256], why[512];
    json_answer_read(s, size, msg, sizeof msg);
    arena a = {0};
    value v;
    json_decode(s, size, &fz_args, "returns", &a, &v, why, sizeof why);
    arena_free(&a);
    jline fast = {0}, full = {0};
    if (json_answer_events(s, size, &fast, NULL, 0) == 1 &&
        (!cjson_names(s, size, &full) || fast.len != full.len ||
         (fast.len && memcmp(fast.data, full.data, fast.len) != 0)))
        __builtin_trap();
    jline_free(&fast);
    jline_free(&full);
    return 0;
}
