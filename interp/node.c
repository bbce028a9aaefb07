#include "node.h"

#include <string.h>

const node_pair *node_get_pair(const node *map, const char *key)
{
    if (!map || map->kind != NODE_MAP)
        return NULL;
    size_t klen = strlen(key);
    for (size_t i = 0; i < map->count; i++) {
        const node *k = map->pairs[i].key;
        if (k->len == klen && memcmp(k->text, key, klen) == 0)
            return &map->pairs[i];
    }
    return NULL;
}

node *node_get(const node *map, const char *key)
{
    const node_pair *p = node_get_pair(map, key);
    return p ? p->value : NULL;
}

const char *node_kind_name(node_kind kind)
{
    switch (kind) {
    case NODE_NULL: return "null";
    case NODE_BOOL: return "boolean";
    case NODE_INT: return "integer";
    case NODE_FLOAT: return "number";
    case NODE_STRING: return "string";
    case NODE_MAP: return "mapping";
    case NODE_SEQ: return "sequence";
    }
    return "?";
}

bool node_is_str(const node *n, const char *s)
{
    return n && n->kind == NODE_STRING && strlen(s) == n->len && memcmp(n->text, s, n->len) == 0;
}
