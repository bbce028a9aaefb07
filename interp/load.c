#include "load.h"

#include "alloc.h"
#include "utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

/* A collection being built: pairs or items grow here, then move into the arena. */
typedef struct frame {
    node *n;
    node **kids; /* map: key, value, key, value ...; seq: items */
    size_t count, cap;
} frame;

typedef struct loader {
    doc *dc;
    diag_list *d;
    frame stack[LOAD_MAX_DEPTH + 1];
    int depth;
    node *root;
} loader;

static bool match_all(const char *s, const char *accept, size_t from)
{
    if (!s[from])
        return false;
    for (const char *p = s + from; *p; p++)
        if (!strchr(accept, *p))
            return false;
    return true;
}

/* The first characters test most scalars out without a string compare. */
static bool is_null_text(const char *s)
{
    if (*s && *s != '~' && *s != 'n' && *s != 'N')
        return false;
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

static int bool_text(const char *s)
{
    if (*s != 't' && *s != 'T' && *s != 'f' && *s != 'F')
        return -1;
    if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"))
        return 1;
    if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))
        return 0;
    return -1;
}

/* YAML 1.2 core schema integers: decimal with sign, 0o octal, 0x hex.
 * Returns 1 for an int, 0 for not an int, -1 for an int out of range. */
static int int_text(const char *s, int64_t *out)
{
    int base = 10;
    size_t from = (*s == '-' || *s == '+') ? 1 : 0;
    const char *digits = "0123456789";
    if (s[0] == '0' && s[1] == 'o') {
        base = 8, from = 2, digits = "01234567";
    } else if (s[0] == '0' && s[1] == 'x') {
        base = 16, from = 2, digits = "0123456789abcdefABCDEF";
    }
    if (!match_all(s, digits, from))
        return 0;
    errno = 0;
    char *end;
    long long v = strtoll(base == 10 ? s : s + 2, &end, base);
    if (errno == ERANGE)
        return -1;
    *out = v;
    return 1;
}

static bool float_text(const char *s, double *out)
{
    const char *p = s;
    if (*p == '-' || *p == '+')
        p++;
    if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF")) {
        *out = *s == '-' ? -INFINITY : INFINITY;
        return true;
    }
    if (p == s && (!strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN"))) {
        *out = NAN;
        return true;
    }
    bool digits = false;
    while (*p >= '0' && *p <= '9')
        p++, digits = true;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            digits = true;
    if (!digits)
        return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '-' || *p == '+')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return false;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p)
        return false;
    *out = strtod(s, NULL);
    return true;
}

static node *new_node(loader *L, node_kind kind, yaml_mark_t mark)
{
    node *n = arena_alloc(&L->dc->mem, sizeof *n);
    n->kind = kind;
    n->file = L->dc->path;
    n->line = (int)mark.line + 1;
    n->col = (int)mark.column + 1;
    n->text = "";
    n->source = L->dc->source;
    return n;
}

static bool tag_is(const yaml_char_t *tag, const char *name)
{
    return tag && !strcmp((const char *)tag, name);
}

static int resolve_scalar(loader *L, node *n, const yaml_event_t *ev)
{
    const char *s = n->text;
    bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    const yaml_char_t *tag = ev->data.scalar.tag;
    n->quoted = !plain;
    switch (ev->data.scalar.style) {
    case YAML_SINGLE_QUOTED_SCALAR_STYLE: n->style = 's'; break;
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE: n->style = 'd'; break;
    case YAML_LITERAL_SCALAR_STYLE:
    case YAML_FOLDED_SCALAR_STYLE: n->style = 'b'; break;
    default: n->style = 'p';
    }
    n->kind = NODE_STRING;
    if (tag_is(tag, YAML_STR_TAG) || (!plain && !tag))
        return 0;
    if (tag && !tag_is(tag, YAML_INT_TAG) && !tag_is(tag, YAML_BOOL_TAG) &&
        !tag_is(tag, YAML_NULL_TAG) && !tag_is(tag, YAML_FLOAT_TAG)) {
        diag_error_at(L->d, n, "unsupported YAML tag '%s'", (const char *)tag);
        return -1;
    }
    int b;
    int64_t i;
    double f;
    if (is_null_text(s) && !tag_is(tag, YAML_STR_TAG)) {
        n->kind = NODE_NULL;
    } else if ((b = bool_text(s)) >= 0) {
        n->kind = NODE_BOOL;
        n->v.b = b;
    } else if ((b = int_text(s, &i)) != 0) {
        if (b < 0) {
            diag_error_at(L->d, n, "integer %s is out of the 64-bit range", s);
            return -1;
        }
        n->kind = NODE_INT;
        n->v.i = i;
    } else if (float_text(s, &f)) {
        n->kind = NODE_FLOAT;
        n->v.f = f;
    }
    return 0;
}

static uint64_t key_hash(const node *k)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < k->len; i++)
        h = (h ^ (unsigned char)k->text[i]) * 0x100000001b3u;
    return h;
}

static bool same_key(const node *a, const node *b)
{
    return a->len == b->len && !memcmp(a->text, b->text, a->len);
}

static int duplicate(loader *L, const node *k, const node *prev)
{
    diag_error_at(L->d, k, "duplicate key '%s' (first at line %d, column %d)", k->text, prev->line,
                  prev->col);
    return -1;
}

/* libyaml accepts duplicate keys; a spec must not. Small mappings compare
 * pairwise; large ones use a hash set, so a huge flat mapping stays linear. */
static int check_duplicates(loader *L, const frame *fr)
{
    size_t n = fr->count / 2;
    if (n <= 16) {
        for (size_t i = 1; i < n; i++)
            for (size_t j = 0; j < i; j++)
                if (same_key(fr->kids[2 * j], fr->kids[2 * i]))
                    return duplicate(L, fr->kids[2 * i], fr->kids[2 * j]);
        return 0;
    }
    size_t cap = 32;
    while (cap < 2 * n)
        cap *= 2;
    const node **set = xcalloc(cap, sizeof *set);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const node *k = fr->kids[2 * i];
        size_t h = (size_t)key_hash(k) & (cap - 1);
        while (set[h] && !same_key(set[h], k))
            h = (h + 1) & (cap - 1);
        if (set[h])
            rc = duplicate(L, k, set[h]);
        else
            set[h] = k;
    }
    free(set);
    return rc;
}

static int add_child(loader *L, node *n)
{
    if (L->depth == 0) {
        L->root = n;
        return 0;
    }
    frame *fr = &L->stack[L->depth - 1];
    if (fr->n->kind == NODE_MAP && fr->count % 2 == 0 && n->kind >= NODE_MAP) {
        diag_error_at(L->d, n, "a mapping key must be a scalar");
        return -1;
    }
    if (fr->count == fr->cap) {
        fr->cap = fr->cap ? fr->cap * 2 : 8;
        fr->kids = xrealloc(fr->kids, fr->cap * sizeof *fr->kids);
    }
    fr->kids[fr->count++] = n;
    return 0;
}

static int open_collection(loader *L, node_kind kind, yaml_mark_t mark)
{
    node *n = new_node(L, kind, mark);
    if (L->depth >= LOAD_MAX_DEPTH) {
        diag_error_at(L->d, n, "nesting is deeper than %d levels", LOAD_MAX_DEPTH);
        return -1;
    }
    if (add_child(L, n) < 0)
        return -1;
    frame *fr = &L->stack[L->depth++];
    memset(fr, 0, sizeof *fr);
    fr->n = n;
    return 0;
}

static int close_collection(loader *L)
{
    if (L->depth == 0) /* an end event without a start: libyaml never sends one */
        return -1;
    frame *fr = &L->stack[--L->depth];
    node *n = fr->n;
    int rc = 0;
    if (n->kind == NODE_MAP) {
        rc = check_duplicates(L, fr);
        n->count = fr->count / 2;
        n->pairs = arena_alloc(&L->dc->mem, (n->count ? n->count : 1) * sizeof *n->pairs);
        for (size_t i = 0; i < n->count; i++) {
            n->pairs[i].key = fr->kids[2 * i];
            n->pairs[i].value = fr->kids[2 * i + 1];
        }
    } else {
        n->count = fr->count;
        n->items = arena_alloc(&L->dc->mem, (n->count ? n->count : 1) * sizeof *n->items);
        if (n->count)
            memcpy(n->items, fr->kids, n->count * sizeof *n->items);
    }
    /* a map's key and value share their pair's index */
    size_t per = n->kind == NODE_MAP ? 2 : 1;
    for (size_t i = 0; i < fr->count; i++) {
        fr->kids[i]->parent = n;
        fr->kids[i]->index = i / per;
    }
    free(fr->kids);
    fr->kids = NULL;
    return rc;
}

static int on_event(loader *L, const yaml_event_t *ev)
{
    switch (ev->type) {
    case YAML_SCALAR_EVENT: {
        node *n = new_node(L, NODE_STRING, ev->start_mark);
        n->text =
            arena_strndup(&L->dc->mem, (const char *)ev->data.scalar.value, ev->data.scalar.length);
        n->len = ev->data.scalar.length;
        if (memchr(n->text, '\0', n->len)) { /* a "\0" escape: libyaml checked the rest */
            diag_error_at(L->d, n, UTF8_RULE);
            return -1;
        }
        if (resolve_scalar(L, n, ev) < 0)
            return -1;
        return add_child(L, n);
    }
    case YAML_SEQUENCE_START_EVENT: return open_collection(L, NODE_SEQ, ev->start_mark);
    case YAML_MAPPING_START_EVENT: return open_collection(L, NODE_MAP, ev->start_mark);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: return close_collection(L);
    case YAML_ALIAS_EVENT: {
        node *at = new_node(L, NODE_NULL, ev->start_mark);
        diag_error_at(L->d, at, "YAML aliases (*%s) are not allowed in a spec; write the value out",
                      (const char *)ev->data.alias.anchor);
        return -1;
    }
    case YAML_DOCUMENT_START_EVENT:
        if (L->root) {
            node *at = new_node(L, NODE_NULL, ev->start_mark);
            diag_error_at(L->d, at, "a spec file holds one YAML document; found a second");
            return -1;
        }
        return 0;
    default: return 0;
    }
}

static void syntax_error(loader *L, const yaml_parser_t *p)
{
    yaml_mark_t m = p->problem_mark;
    const char *problem = p->problem ? p->problem : "invalid YAML";
    if (p->error == YAML_READER_ERROR) {
        /* the reader reports a byte offset, not a mark */
        int line = 1, col = 1;
        size_t at = p->problem_offset < L->dc->len ? p->problem_offset : L->dc->len;
        const unsigned char *src = (const unsigned char *)L->dc->source;
        if (strstr(problem, "trailing")) { /* point at the sequence the bad byte ends */
            while (at > 0 && (src[at - 1] & 0xC0) == 0x80)
                at--;
            if (at > 0 && src[at - 1] >= 0xC0)
                at--;
        }
        for (size_t i = 0; i < at; i++) {
            unsigned char ch = (unsigned char)L->dc->source[i];
            if (ch == '\n')
                line++, col = 1;
            else if ((ch & 0xC0) != 0x80)
                col++;
        }
        diag_add(L->d, DIAG_ERROR, L->dc->path, line, col, "the file is not valid UTF-8 text (%s)",
                 problem);
        return;
    }
    const char *src = L->dc->source;
    size_t at = m.index < L->dc->len ? m.index : L->dc->len;
    if (src[at] == '\t' && strstr(problem, "cannot start any token")) {
        diag_add(L->d, DIAG_ERROR, L->dc->path, (int)m.line + 1, (int)m.column + 1,
                 "YAML syntax: a tab cannot indent YAML; use spaces");
        return;
    }
    if (p->context && strcmp(p->context, "while scanning for the next token") != 0)
        /* e.g. "while parsing a flow mapping", and where that began */
        diag_add(L->d, DIAG_ERROR, L->dc->path, (int)m.line + 1, (int)m.column + 1,
                 "YAML syntax: %s %s that starts at line %d, column %d", problem, p->context,
                 (int)p->context_mark.line + 1, (int)p->context_mark.column + 1);
    else
        diag_add(L->d, DIAG_ERROR, L->dc->path, (int)m.line + 1, (int)m.column + 1,
                 "YAML syntax: %s", problem);
}

/* The byte-order marks of the encodings a spec is not in, longest first. */
static const struct {
    const char *bytes;
    size_t len;
    const char *name;
} foreign_boms[] = {
    {"\x00\x00\xFE\xFF", 4, "UTF-32 (big-endian)"},
    {"\xFF\xFE\x00\x00", 4, "UTF-32 (little-endian)"},
    {"\xFE\xFF", 2, "UTF-16 (big-endian)"},
    {"\xFF\xFE", 2, "UTF-16 (little-endian)"},
};

/* Refuses text that is not UTF-8 with LF or CRLF line endings before libyaml
 * reads it: libyaml takes UTF-16 and lone CRs, but every column bench gives
 * counts UTF-8 code points on LF-separated lines. */
static int check_text(const doc *dc, diag_list *d)
{
    for (size_t i = 0; i < sizeof foreign_boms / sizeof *foreign_boms; i++)
        if (dc->len >= foreign_boms[i].len &&
            !memcmp(dc->source, foreign_boms[i].bytes, foreign_boms[i].len)) {
            diag_add(d, DIAG_ERROR, dc->path, 0, 0,
                     "the file is in %s: it starts with that byte-order mark; bench reads UTF-8",
                     foreign_boms[i].name);
            return LOAD_INVALID;
        }
    /* a CR that no LF follows, found with memchr; its line and column are
       counted only then (a byte at a time was most of this check's cost
       where every compare is traced, as in the fuzzer) */
    const char *s = dc->source, *end = s + dc->len;
    for (const char *cr = memchr(s, '\r', dc->len); cr;
         cr = memchr(cr + 1, '\r', (size_t)(end - cr - 1))) {
        if (cr + 1 < end && cr[1] == '\n')
            continue;
        int line = 1, col = 1;
        for (const char *p = s; p < cr; p++) {
            if (*p == '\n')
                line++, col = 1;
            else if (((unsigned char)*p & 0xC0) != 0x80)
                col++;
        }
        diag_add(d, DIAG_ERROR, dc->path, line, col,
                 "a carriage return (CR) without a line feed ends this line; bench reads LF "
                 "or CRLF line endings");
        return LOAD_INVALID;
    }
    return 0;
}

static int parse(doc *dc, diag_list *d)
{
    if (check_text(dc, d) != 0)
        return LOAD_INVALID;
    loader L = {.dc = dc, .d = d};
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)dc->source, dc->len);
    int rc = 0;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            syntax_error(&L, &p);
            rc = LOAD_INVALID;
            break;
        }
        bool end = ev.type == YAML_STREAM_END_EVENT;
        int erc = on_event(&L, &ev);
        yaml_event_delete(&ev);
        if (erc < 0) {
            rc = LOAD_INVALID;
            break;
        }
        if (end)
            break;
    }
    while (L.depth > 0)
        free(L.stack[--L.depth].kids);
    yaml_parser_delete(&p);
    if (rc == 0 && !L.root) {
        yaml_mark_t m = {0};
        L.root = new_node(&L, NODE_NULL, m);
    }
    dc->root = L.root;
    return rc;
}

static doc *doc_new(const char *name)
{
    doc *dc = xcalloc(1, sizeof *dc);
    dc->path = xstrdup(name);
    return dc;
}

int load_string(const char *name, const char *text, size_t len, doc **out, diag_list *d)
{
    *out = NULL;
    if (len > LOAD_MAX_BYTES) {
        diag_add(d, DIAG_ERROR, name, 0, 0, "the file is larger than %d bytes", LOAD_MAX_BYTES);
        return LOAD_INVALID;
    }
    doc *dc = doc_new(name);
    dc->source = xmalloc(len + 1);
    memcpy(dc->source, text, len);
    dc->source[len] = '\0';
    dc->len = len;
    *out = dc;
    return parse(dc, d);
}

static const char *file_kind(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a file";
}

/* Opens path for reading if it is a regular file. O_NONBLOCK: opening a FIFO
 * with no writer must not wait for one (fstat then tells what it is). */
static FILE *open_regular(const char *path, diag_list *d)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        diag_add(d, DIAG_ERROR, path, 0, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        diag_add(d, DIAG_ERROR, path, 0, 0, "cannot open: %s", strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        diag_add(d, DIAG_ERROR, path, 0, 0, "%s is not a regular file (%s)", path,
                 file_kind(st.st_mode));
        close(fd);
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    FILE *f = flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 ? NULL : fdopen(fd, "rb");
    if (!f) {
        diag_add(d, DIAG_ERROR, path, 0, 0, "cannot open: %s", strerror(errno));
        close(fd);
    }
    return f;
}

int load_file(const char *path, doc **out, diag_list *d)
{
    *out = NULL;
    bool from_stdin = !strcmp(path, "-");
    const char *name = from_stdin ? LOAD_STDIN_NAME : path;
    FILE *f = stdin;
    if (!from_stdin && (f = open_regular(path, d)) == NULL)
        return LOAD_IO;
    doc *dc = doc_new(name);
    size_t cap = (size_t)64 * 1024, len = 0;
    char *buf = xmalloc(cap + 1);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len > LOAD_MAX_BYTES)
            break;
        if (len == cap) {
            cap *= 2;
            buf = xrealloc(buf, cap + 1);
        }
    }
    bool failed = ferror(f);
    int err = errno;
    if (from_stdin)
        clearerr(stdin);
    else
        fclose(f);
    if (failed) {
        diag_add(d, DIAG_ERROR, name, 0, 0, "cannot read: %s", strerror(err));
        free(buf);
        doc_free(dc);
        return LOAD_IO;
    }
    if (len > LOAD_MAX_BYTES) {
        diag_add(d, DIAG_ERROR, name, 0, 0, "the file is larger than %d bytes", LOAD_MAX_BYTES);
        free(buf);
        doc_free(dc);
        return LOAD_INVALID;
    }
    buf[len] = '\0';
    dc->source = buf;
    dc->len = len;
    *out = dc;
    return parse(dc, d);
}

void doc_free(doc *dc)
{
    if (!dc)
        return;
    arena_free(&dc->mem);
    free(dc->source);
    free(dc->path);
    free(dc);
}
