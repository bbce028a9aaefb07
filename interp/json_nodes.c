/* json_nodes.c: a strict JSON parser that builds nodes as it reads (see
 * json_nodes.h). It takes a subset of what cJSON takes and gives the same
 * tree for it; anything else makes it give up, and the caller's cJSON path
 * decides (and words the error). */
#include "json_nodes.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "jsonschema.h"

/* Bytes of a file held at once, and how many are kept ahead of the parser
 * at every token (a number, a literal, a whole pair fit in it). */
enum { WINDOW = 1 << 20, LOOKAHEAD = 4096 };
/* cJSON reads at most 1,000 levels (CJSON_NESTING_LIMIT); 1,000 and more
 * are left to it. */
enum { DEPTH_MAX = 999 };
/* cJSON reads a number from at most 63 characters. */
enum { NUMBER_MAX = 63 };
/* Digits an integer may have to be read exactly here (below 2^53, where a
 * double holds it as cJSON's strtod does). */
enum { EXACT_DIGITS = 15 };
/* Keys remembered to share their text: a result file's intervals repeat
 * the same nine. */
enum { KEY_SLOTS = 256 };

typedef struct reader {
    const char *p, *end;
    FILE *f;   /* NULL: [p, end) is the whole text */
    char *buf; /* the window on f */
    size_t total, max;
    bool failed;
    arena *tree, *keep;
    const char *file;
    int depth;
    node **items; /* of the sequences being read, innermost last */
    size_t nitems, items_cap;
    node_pair *pairs; /* of the mappings being read */
    size_t npairs, pairs_cap;
    int64_t *packed; /* [first, second] of the pairs of the sequence being packed */
    size_t npacked, packed_cap;
    char *s; /* a string's bytes */
    size_t slen, scap;
    const char *keys[KEY_SLOTS]; /* recent keys' copies, shared by the mappings that repeat them */
} reader;

/* Keeps LOOKAHEAD bytes ahead of r->p when the file has them. */
static void fill(reader *r)
{
    if (!r->f || (size_t)(r->end - r->p) >= LOOKAHEAD || r->failed || feof(r->f))
        return;
    size_t have = (size_t)(r->end - r->p);
    memmove(r->buf, r->p, have);
    size_t n = fread(r->buf + have, 1, WINDOW - have, r->f);
    r->total += n;
    if (ferror(r->f) || r->total > r->max)
        r->failed = true;
    r->p = r->buf;
    r->end = r->buf + have + n;
    r->buf[have + n] = '\0';
}

static bool ahead(reader *r)
{
    if ((size_t)(r->end - r->p) < LOOKAHEAD)
        fill(r);
    return r->p < r->end;
}

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The text is NUL-terminated (the window too), so runs of bytes are
 * measured with strspn and strcspn, which stop at its end: fewer compares
 * of our own where a fuzzer traces every one. */
static void skip_ws(reader *r)
{
    while (ahead(r) && is_ws(*r->p))
        r->p += strspn(r->p, " \t\n\r");
}

static node *give_up(reader *r)
{
    r->failed = true;
    return NULL;
}

static node *new_node(reader *r, node_kind kind, size_t size)
{
    node *n = arena_alloc(r->tree, size);
    n->kind = kind;
    n->file = r->file;
    n->text = "";
    return n;
}

/* ---- scalars ------------------------------------------------------------- */

static void put_bytes(reader *r, const char *s, size_t n)
{
    if (r->slen + n >= r->scap) {
        r->scap = (r->slen + n + 1) * 2;
        r->s = xrealloc(r->s, r->scap);
    }
    memcpy(r->s + r->slen, s, n);
    r->slen += n;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* An escape at r->p (the backslash) into r->s; false for one left to cJSON. */
static bool escape(reader *r)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    ahead(r);
    const char *hit = r->end - r->p >= 2 && r->p[1] ? strchr(from, r->p[1]) : NULL;
    if (hit) {
        put_bytes(r, &to[hit - from], 1);
        r->p += 2;
        return true;
    }
    if (r->end - r->p < 6 || r->p[1] != 'u')
        return false;
    unsigned cp = 0;
    for (int i = 2; i < 6; i++) {
        int d = hex_digit(r->p[i]);
        if (d < 0)
            return false;
        cp = cp << 4 | (unsigned)d;
    }
    if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF))
        return false; /* cJSON cuts the string at a NUL; it pairs surrogates */
    char u[3];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | cp >> 6);
        u[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else {
        u[0] = (char)(0xE0 | cp >> 12);
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    }
    put_bytes(r, u, n);
    r->p += 6;
    return true;
}

/* The string at r->p (its opening quote) into r->s[0..r->slen). */
static bool string(reader *r)
{
    r->slen = 0;
    r->p++;
    for (;;) {
        if (!ahead(r))
            return false;
        /* up to a quote, a backslash or a control character (a NUL ends
           the window, or is a byte of the text) */
        static const char stops[] = "\"\\\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c"
                                    "\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a"
                                    "\x1b\x1c\x1d\x1e\x1f";
        const char *q = r->p + strcspn(r->p, stops);
        put_bytes(r, r->p, (size_t)(q - r->p));
        r->p = q;
        if (q == r->end)
            continue;
        if (*q == '"') {
            r->p++;
            r->s[r->slen] = '\0';
            return true;
        }
        if (*q != '\\' || !escape(r))
            return false; /* a control character, or an escape left to cJSON */
    }
}

static node *string_node(reader *r)
{
    if (!string(r))
        return give_up(r);
    node *n = new_node(r, NODE_STRING, sizeof(node));
    n->quoted = true;
    n->len = r->slen;
    n->text = arena_strndup(r->tree, r->s, r->slen);
    return n;
}

/* A strict JSON integer in [q, end): its value and end, or NULL when it is
 * not one this reads exactly (a fraction or exponent follows, or too many
 * digits). */
static const char *exact_int(const char *q, const char *end, int64_t *v)
{
    bool minus = q < end && *q == '-';
    q += minus;
    const char *digits = q;
    size_t n = strspn(q, "0123456789");
    if (n == 0 || n > EXACT_DIGITS || (n > 1 && *digits == '0') || q + n > end)
        return NULL;
    int64_t x = 0;
    for (size_t i = 0; i < n; i++)
        x = x * 10 + (digits[i] - '0');
    q += n;
    if (q < end && (*q == '.' || *q == 'e' || *q == 'E'))
        return NULL;
    *v = minus ? -x : x;
    return q;
}

/* The end of a strict JSON number at q, or NULL. */
static const char *number_end(const char *q, const char *end)
{
    q += q < end && *q == '-';
    if (q == end || *q < '0' || *q > '9')
        return NULL;
    if (*q == '0')
        q++;
    else
        q += strspn(q, "0123456789");
    if (q < end && *q == '.') {
        const char *f = ++q;
        q += strspn(q, "0123456789");
        if (q == f)
            return NULL;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        q++;
        q += q < end && (*q == '+' || *q == '-');
        const char *e = q;
        q += strspn(q, "0123456789");
        if (q == e)
            return NULL;
    }
    if (q > end)
        return NULL;
    if (q < end && *q >= '0' && *q <= '9')
        return NULL; /* 01: cJSON reads it as 1 */
    return q;
}

static node *number_node(reader *r)
{
    node *n = new_node(r, NODE_INT, sizeof(node));
    int64_t v;
    const char *q = exact_int(r->p, r->end, &v);
    if (q) {
        n->v.i = v;
        r->p = q;
        return n;
    }
    q = number_end(r->p, r->end);
    if (!q || q - r->p > NUMBER_MAX)
        return give_up(r);
    char buf[NUMBER_MAX + 1];
    memcpy(buf, r->p, (size_t)(q - r->p));
    buf[q - r->p] = '\0';
    r->p = q;
    jschema_set_number(NULL, n, strtod(buf, NULL)); /* no text: messages print the value */
    return n;
}

static node *literal_node(reader *r)
{
    static const struct {
        const char *word;
        node_kind kind;
        bool b;
    } words[] = {{"true", NODE_BOOL, true}, {"false", NODE_BOOL, false}, {"null", NODE_NULL, 0}};
    for (size_t i = 0; i < 3; i++) {
        size_t len = strlen(words[i].word);
        if ((size_t)(r->end - r->p) < len || memcmp(r->p, words[i].word, len) != 0)
            continue;
        node *n = new_node(r, words[i].kind, sizeof(node));
        n->v.b = words[i].b;
        n->text = words[i].word;
        n->len = len;
        r->p += len;
        return n;
    }
    return give_up(r);
}

/* ---- collections ---------------------------------------------------------- */

static node *value(reader *r);

static void push_item(reader *r, node *n)
{
    if (r->nitems == r->items_cap) {
        r->items_cap = r->items_cap ? r->items_cap * 2 : 256;
        r->items = xrealloc(r->items, r->items_cap * sizeof *r->items);
    }
    r->items[r->nitems++] = n;
}

/* [a, b] of two integers at r->p, read whole or not at all. */
static bool scan_pair(reader *r, int64_t *a, int64_t *b)
{
    ahead(r);
    const char *q = r->p, *end = r->end;
    if (q == end || *q++ != '[')
        return false;
    q += strspn(q, " \t\n\r");
    if (!(q = exact_int(q, end, a)))
        return false;
    q += strspn(q, " \t\n\r");
    if (q == end || *q++ != ',')
        return false;
    q += strspn(q, " \t\n\r");
    if (!(q = exact_int(q, end, b)))
        return false;
    q += strspn(q, " \t\n\r");
    if (q == end || *q++ != ']')
        return false;
    r->p = q;
    return true;
}

static void push_packed(reader *r, int64_t a, int64_t b)
{
    if (r->npacked + 2 > r->packed_cap) {
        r->packed_cap = r->packed_cap ? r->packed_cap * 2 : 512;
        r->packed = xrealloc(r->packed, r->packed_cap * sizeof *r->packed);
    }
    r->packed[r->npacked++] = a;
    r->packed[r->npacked++] = b;
}

/* The pairs packed so far as ordinary items of seq: a later item is not a
 * pair. */
static void unpack(reader *r, node *seq)
{
    for (size_t i = 0; i < r->npacked / 2; i++) {
        node *pair = new_node(r, NODE_SEQ, sizeof(node));
        pair->count = 2;
        pair->items = arena_alloc(r->tree, 2 * sizeof *pair->items);
        pair->parent = seq;
        pair->index = i;
        for (size_t k = 0; k < 2; k++) {
            node *num = new_node(r, NODE_INT, sizeof(node));
            num->v.i = r->packed[2 * i + k];
            num->parent = pair;
            num->index = k;
            pair->items[k] = num;
        }
        push_item(r, pair);
    }
    r->npacked = 0;
}

/* The pairs of seq, all of its items, packed. */
static node *packed(reader *r, jschema_pairs *seq)
{
    size_t n = r->npacked / 2;
    seq->seq.count = n;
    seq->first = arena_alloc(r->keep, n * sizeof *seq->first);
    seq->second = arena_alloc(r->keep, n * sizeof *seq->second);
    for (size_t i = 0; i < n; i++) {
        seq->first[i] = r->packed[2 * i];
        seq->second[i] = r->packed[2 * i + 1];
    }
    r->npacked = 0;
    return &seq->seq;
}

/* After an item: true at the next one, false at the end (r->p past ']'). */
static bool next_item(reader *r, char close)
{
    skip_ws(r);
    if (r->p < r->end && *r->p == ',') {
        r->p++;
        skip_ws(r);
        return true;
    }
    if (r->p == r->end || *r->p != close)
        r->failed = true;
    else
        r->p++;
    return false;
}

static node *array(reader *r)
{
    r->p++;
    skip_ws(r);
    bool pairs = r->p < r->end && *r->p == '[';
    /* a sequence whose first item looks like a pair is made big enough to
       become a jschema_pairs */
    node *n = new_node(r, NODE_SEQ, pairs ? sizeof(jschema_pairs) : sizeof(node));
    size_t base = r->nitems;
    if (r->p == r->end)
        return give_up(r);
    bool more = *r->p != ']';
    if (!more)
        r->p++;
    int64_t a, b;
    while (more && pairs && !r->failed) {
        if (!scan_pair(r, &a, &b)) {
            unpack(r, n);
            pairs = false;
            break;
        }
        push_packed(r, a, b);
        more = next_item(r, ']');
    }
    if (pairs && !r->failed)
        return packed(r, (jschema_pairs *)n);
    while (more && !r->failed) {
        node *item = value(r);
        if (!item)
            break;
        item->parent = n;
        item->index = r->nitems - base;
        push_item(r, item);
        more = next_item(r, ']');
    }
    if (r->failed) {
        r->nitems = base;
        r->npacked = 0;
        return NULL;
    }
    n->count = r->nitems - base;
    n->items = arena_alloc(r->tree, n->count * sizeof *n->items);
    if (n->count)
        memcpy(n->items, r->items + base, n->count * sizeof *n->items);
    r->nitems = base;
    return n;
}

static void push_pair(reader *r, node_pair p)
{
    if (r->npairs == r->pairs_cap) {
        r->pairs_cap = r->pairs_cap ? r->pairs_cap * 2 : 64;
        r->pairs = xrealloc(r->pairs, r->pairs_cap * sizeof *r->pairs);
    }
    r->pairs[r->npairs++] = p;
}

/* The key in r->s[0..len) as arena text, shared with an earlier key that
 * was the same. */
static const char *key_text(reader *r, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)r->s[i]) * 16777619u;
    const char **slot = &r->keys[h % KEY_SLOTS];
    if (!*slot || strcmp(*slot, r->s) != 0)
        *slot = arena_strndup(r->tree, r->s, len);
    return *slot;
}

static node *object(reader *r)
{
    r->p++;
    skip_ws(r);
    node *n = new_node(r, NODE_MAP, sizeof(node));
    size_t base = r->npairs;
    if (r->p == r->end)
        return give_up(r);
    bool more = *r->p != '}';
    if (!more)
        r->p++;
    while (more && !r->failed) {
        if (r->p == r->end || *r->p != '"' || !string(r)) {
            r->failed = true;
            break;
        }
        node *key = new_node(r, NODE_STRING, sizeof(node));
        key->quoted = true;
        key->len = strlen(r->s); /* cJSON's key is a C string */
        key->text = key_text(r, key->len);
        key->parent = n;
        key->index = r->npairs - base;
        skip_ws(r);
        if (r->p == r->end || *r->p != ':') {
            r->failed = true;
            break;
        }
        r->p++;
        node *v = value(r);
        if (!v)
            break;
        v->parent = n;
        v->index = key->index;
        push_pair(r, (node_pair){key, v});
        more = next_item(r, '}');
    }
    if (r->failed) {
        r->npairs = base;
        return NULL;
    }
    n->count = r->npairs - base;
    n->pairs = arena_alloc(r->tree, n->count * sizeof *n->pairs);
    if (n->count)
        memcpy(n->pairs, r->pairs + base, n->count * sizeof *n->pairs);
    r->npairs = base;
    return n;
}

static node *value(reader *r)
{
    skip_ws(r);
    if (r->p == r->end || r->failed)
        return give_up(r);
    char c = *r->p;
    if (c == '{' || c == '[') {
        if (r->depth >= DEPTH_MAX)
            return give_up(r);
        r->depth++;
        node *n = c == '{' ? object(r) : array(r);
        r->depth--;
        return n;
    }
    if (c == '"')
        return string_node(r);
    if (c == '-' || (c >= '0' && c <= '9'))
        return number_node(r);
    return literal_node(r);
}

static node *document(reader *r)
{
    node *root = value(r);
    skip_ws(r);
    if (r->p != r->end || (r->f && !feof(r->f)))
        r->failed = true;
    free(r->items);
    free(r->pairs);
    free(r->packed);
    free(r->s);
    free(r->buf);
    return r->failed ? NULL : root;
}

node *json_nodes_parse(arena *tree, arena *keep, const char *file, const char *text, size_t len)
{
    reader r = {.p = text, .end = text + len, .tree = tree, .keep = keep};
    r.file = file ? arena_strdup(tree, file) : NULL;
    return document(&r);
}

node *json_nodes_read(arena *tree, arena *keep, const char *file, FILE *f, size_t max)
{
    reader r = {.f = f, .max = max, .tree = tree, .keep = keep, .buf = xmalloc(WINDOW + 1)};
    r.p = r.end = r.buf;
    r.buf[0] = '\0';
    r.file = file ? arena_strdup(tree, file) : NULL;
    return document(&r);
}
