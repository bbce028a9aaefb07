#include "node.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "utf8.h"

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

/* The segment that leads from n's parent to n, written at the end of
 * buf[0..end) when buf is given; returns its length. */
static size_t path_segment(const node *n, char *buf, size_t end)
{
    const node *p = n->parent;
    char num[24];
    const char *s;
    size_t len;
    bool dot = false;
    if (p->kind == NODE_SEQ) {
        len = (size_t)snprintf(num, sizeof num, "[%zu]", n->index);
        s = num;
    } else {
        const node *key = p->pairs[n->index].key;
        s = key->text, len = strlen(key->text); /* a key's text stops at a NUL */
        dot = p->parent != NULL;
    }
    if (buf) {
        memcpy(buf + end - len, s, len);
        if (dot)
            buf[end - len - 1] = '.';
    }
    return len + dot;
}

char *node_path(const node *n)
{
    if (!n || !n->parent)
        return NULL;
    size_t len = 0;
    for (const node *m = n; m->parent; m = m->parent)
        len += path_segment(m, NULL, 0);
    char *buf = xmalloc(len + 1);
    buf[len] = '\0';
    size_t end = len;
    for (const node *m = n; m->parent; m = m->parent)
        end -= path_segment(m, buf, end);
    return buf;
}

static size_t utf8_seq_len(unsigned char c)
{
    return c < 0x80 ? 1 : c >> 5 == 6 ? 2 : c >> 4 == 14 ? 3 : c >> 3 == 30 ? 4 : 1;
}

/* Length in the source of one escape sequence of a double-quoted scalar. */
static size_t escape_len(const char *p)
{
    switch (p[1]) {
    case 'x': return 4;
    case 'u': return 6;
    case 'U': return 10;
    case '\0': return 1;
    default: return 2;
    }
}

void node_locate(const node *n, size_t offset, int *line, int *col)
{
    *line = n->line;
    *col = n->col + (n->quoted ? 1 : 0);
    if (!n->source || n->style == 'b') {
        *col += (int)utf8_length(n->text, offset < n->len ? offset : n->len);
        return;
    }
    const char *p = n->source;
    for (int l = 1; l < n->line && *p; p++)
        if (*p == '\n')
            l++;
    for (int c = 1; c < n->col && *p && *p != '\n'; c++)
        p += utf8_seq_len((unsigned char)*p);
    if (n->quoted && *p)
        p++;
    size_t i = 0;
    while (i < offset && i < n->len && *p) {
        char v = n->text[i];
        bool blank = *p == ' ' || *p == '\t' || *p == '\r' || *p == '\n';
        if (blank && (v != *p || *p == '\n')) {
            /* line folding: a run of blanks and line breaks became one space or newline */
            while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
                if (*p == '\n')
                    ++*line, *col = 0;
                ++*col, p++;
            }
            if (v == ' ' || v == '\n')
                i++;
            continue;
        }
        size_t val = utf8_seq_len((unsigned char)v);
        size_t esc = 0; /* source bytes of a quoting sequence standing for one character */
        if (n->style == 's' && p[0] == '\'' && p[1] == '\'')
            esc = 2;
        else if (n->style == 'd' && *p == '\\')
            esc = escape_len(p);
        if (esc) {
            p += esc, *col += (int)esc;
        } else {
            p += utf8_seq_len((unsigned char)*p), ++*col;
        }
        i += val;
    }
}
