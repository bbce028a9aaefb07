/* shard_set.c: every shard of one run, each once (shard_set.h). */
#include "shard_set.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "error.h"

int shard_set_check(const shard_ref *refs, size_t n, char *err, size_t size)
{
    int64_t count = refs[0].count;
    for (size_t i = 1; i < n; i++)
        if (refs[i].count != count)
            return err_set_buf(
                err, size, "%s is shard %" PRId64 "/%" PRId64 " but %s is of %" PRId64 " shards",
                refs[i].name, refs[i].index, refs[i].count, refs[0].name, count);
    for (size_t i = 0; i < n; i++)
        if (refs[i].index >= count)
            return err_set_buf(err, size,
                               "%s says it is shard %" PRId64 " of %" PRId64 ", past the last",
                               refs[i].name, refs[i].index, count);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < i; k++)
            if (refs[k].index == refs[i].index)
                return err_set_buf(err, size,
                                   "shard %" PRId64 "/%" PRId64 " is given twice: %s and %s",
                                   refs[i].index, count, refs[k].name, refs[i].name);
    /* each index is below count and given once, so count - n are missing;
       the first few are named (count comes from the input: no walk to it) */
    uint64_t nmissing = (uint64_t)count - n;
    char missing[1024] = ""; /* 16 of at most 42 characters, and the rest counted */
    size_t len = 0, named = 0;
    for (int64_t s = 0; s < count && named < nmissing && named < 16; s++) {
        bool found = false;
        for (size_t i = 0; i < n && !found; i++)
            found = refs[i].index == s;
        if (found)
            continue;
        named++;
        len += (size_t)snprintf(missing + len, sizeof missing - len, "%s%" PRId64 "/%" PRId64,
                                len ? ", " : "", s, count);
    }
    if (nmissing > named)
        snprintf(missing + len, sizeof missing - len, " and %" PRIu64 " more", nmissing - named);
    if (nmissing)
        return err_set_buf(err, size, "%s %s missing: %zu of %" PRId64 " shards given",
                           nmissing > 1 ? "shards" : "shard", missing, n, count);
    return 0;
}
