/* expr.c: the expression language. Text is parsed into a tree in the arena,
 * the checker resolves every name to (scope, field indices) and types every
 * node, and evaluation walks that tree without parsing or allocating. */
#include "expr.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "value.h"

enum { EXPR_MAX_LEN = 4096, EXPR_MAX_DEPTH = 64, EXPR_MSG_MAX = 512, TY_DESC_MAX = 160 };

typedef enum xop {
    XOP_INT,
    XOP_STR,
    XOP_BOOL,
    XOP_ENUM, /* a bare enum value, resolved by the checker from XOP_NAME */
    XOP_NAME,
    XOP_CALL, /* a function of the table funcs[] */
    XOP_NEG,
    XOP_NOT,
    XOP_AND,
    XOP_OR,
    XOP_EQ,
    XOP_NE,
    XOP_LT,
    XOP_LE,
    XOP_GT,
    XOP_GE,
    XOP_ADD,
    XOP_SUB,
    XOP_MUL,
    XOP_DIV,
    XOP_MOD,
} xop;

static const char *const op_names[] = {
    [XOP_NEG] = "-", [XOP_NOT] = "not", [XOP_AND] = "and", [XOP_OR] = "or", [XOP_EQ] = "==",
    [XOP_NE] = "!=", [XOP_LT] = "<",    [XOP_LE] = "<=",   [XOP_GT] = ">",  [XOP_GE] = ">=",
    [XOP_ADD] = "+", [XOP_SUB] = "-",   [XOP_MUL] = "*",   [XOP_DIV] = "/", [XOP_MOD] = "%",
};

enum { FUNC_MAX_ARGS = 3 };

typedef struct xname {
    expr_scope scope;
    int alias;
    const char *path;   /* as written, without spaces: "arg.topping.name" */
    const char *fields; /* the path inside the scope: "topping.name" */
    const char **seg;   /* the words of path */
    int *segoff;        /* byte offset of each word, for errors */
    int nseg;
    int *idx; /* field index per step from the scope's struct */
    int nidx;
    bool optional; /* the last field may be unset */
    size_t ctxoff; /* where expr_ctx holds the scope's value (not SCOPE_ALIAS): set by lower() */
} xname;

typedef struct xnode xnode;
/* How a node evaluates: chosen by lower() once the tree is checked, for the
 * node's shape and types (a field read by its slot, an int comparison with
 * a constant, a folded constant subtree), so evaluation does not decide
 * again on every call what the checker knew already. */
typedef expr_status (*xrun)(const xnode *n, const expr_ctx *x, value *out);
struct xnode {
    xop op;
    int off;        /* byte offset of the node's own token (operator, name, literal) */
    int start;      /* byte offset of its first token */
    int depth;      /* operators on the longest path down, at most EXPR_MAX_DEPTH */
    const ty *type; /* set by the checker */
    xnode *l, *r;
    value lit;                  /* XOP_INT, XOP_STR, XOP_BOOL, XOP_ENUM */
    xname *name;                /* XOP_NAME */
    const struct func *f;       /* XOP_CALL: its row of funcs[] */
    xnode *args[FUNC_MAX_ARGS]; /* XOP_CALL: f->arity of them */
    xrun run;                   /* set by lower() */
    uint8_t leaf;               /* an int read without a call of its own (int_leaf), set by
                                   lower() */
    bool folded;                /* the whole subtree is a constant: k holds its value */
    value k;                    /* folded: the value; a compare with a constant: that constant */
};

/* ---- functions: one row each, read by the parser, the checker, evaluation,
 * rendering and the messages; a new function is a new row ---- */

struct cx;
typedef struct func {
    const char *name;
    int arity;
    /* the type rule: types n->args and returns n's type, or NULL after failing */
    const ty *(*check)(struct cx *c, xnode *n, const ty *expected);
    expr_status (*eval)(const xnode *n, const expr_ctx *x, value *out);
} func;

static const ty *check_has(struct cx *c, xnode *n, const ty *expected);
static const ty *check_len(struct cx *c, xnode *n, const ty *expected);
static const ty *check_if(struct cx *c, xnode *n, const ty *expected);
static const ty *check_ints(struct cx *c, xnode *n, const ty *expected);
static expr_status ev_has(const xnode *n, const expr_ctx *x, value *out);
static expr_status ev_len(const xnode *n, const expr_ctx *x, value *out);
static expr_status ev_if(const xnode *n, const expr_ctx *x, value *out);
static expr_status ev_min(const xnode *n, const expr_ctx *x, value *out);
static expr_status ev_max(const xnode *n, const expr_ctx *x, value *out);
static expr_status ev_abs(const xnode *n, const expr_ctx *x, value *out);

static const func funcs[] = {
    {"has", 1, check_has, ev_has},  {"len", 1, check_len, ev_len},  {"if", 3, check_if, ev_if},
    {"min", 2, check_ints, ev_min}, {"max", 2, check_ints, ev_max}, {"abs", 1, check_ints, ev_abs},
};
enum { NFUNCS = sizeof funcs / sizeof funcs[0] };

static const func *func_named(const char *name)
{
    for (size_t i = 0; i < NFUNCS; i++)
        if (strcmp(funcs[i].name, name) == 0)
            return &funcs[i];
    return NULL;
}

struct expr {
    expr_head head; /* first: expr_run reads it through the header */
    const char *text;
    const ty *type;
    const xnode *root;
};

/* ---- lexer ---- */

typedef enum tok_kind {
    T_END,
    T_INT,
    T_STR,
    T_UNTERM, /* a string literal without its closing quote */
    T_WORD,
    T_OP,
    T_LP,
    T_RP,
    T_DOT,
    T_COMMA,
    T_BAD,
} tok_kind;

typedef enum keyword { KW_NONE, KW_AND, KW_OR, KW_NOT, KW_TRUE, KW_FALSE } keyword;

typedef struct tok {
    tok_kind kind;
    int off, len;
    xop op;     /* T_OP */
    keyword kw; /* T_WORD */
} tok;

/* Everything compilation needs: the text, the lexer, the first error. */
typedef struct cx {
    arena *a;
    const char *text;
    int len;
    const expr_env *env;
    tok t;     /* the current token */
    int pos;   /* where the next token starts looking */
    int depth; /* parser recursion through parentheses and prefix operators */
    bool failed;
    int err_off;
    char msg[EXPR_MSG_MAX];
} cx;

static bool is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

static bool is_word_start(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}

static bool is_word_char(char ch)
{
    return is_word_start(ch) || is_digit(ch);
}

static bool is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static keyword keyword_of(const char *s, int len)
{
    static const char *const words[] = {[KW_AND] = "and",
                                        [KW_OR] = "or",
                                        [KW_NOT] = "not",
                                        [KW_TRUE] = "true",
                                        [KW_FALSE] = "false"};
    for (int k = KW_AND; k <= KW_FALSE; k++)
        if ((int)strlen(words[k]) == len && memcmp(words[k], s, (size_t)len) == 0)
            return (keyword)k;
    return KW_NONE;
}

static void lex_string(cx *c, tok *t)
{
    int i = t->off + 1;
    while (i < c->len) {
        if (c->text[i] == '\'' && i + 1 < c->len && c->text[i + 1] == '\'')
            i += 2;
        else if (c->text[i] == '\'')
            break;
        else
            i++;
    }
    t->kind = i < c->len ? T_STR : T_UNTERM;
    t->len = (i < c->len ? i + 1 : i) - t->off;
}

static void lex_punct(cx *c, tok *t)
{
    static const struct {
        const char *s;
        tok_kind kind;
        xop op;
    } puncts[] = {
        {"==", T_OP, XOP_EQ}, {"!=", T_OP, XOP_NE}, {"<=", T_OP, XOP_LE}, {">=", T_OP, XOP_GE},
        {"<", T_OP, XOP_LT},  {">", T_OP, XOP_GT},  {"+", T_OP, XOP_ADD}, {"-", T_OP, XOP_SUB},
        {"*", T_OP, XOP_MUL}, {"/", T_OP, XOP_DIV}, {"%", T_OP, XOP_MOD}, {"(", T_LP, 0},
        {")", T_RP, 0},       {".", T_DOT, 0},      {",", T_COMMA, 0},
    };
    const char *p = c->text + t->off;
    int left = c->len - t->off;
    for (size_t i = 0; i < sizeof puncts / sizeof puncts[0]; i++) {
        int n = (int)strlen(puncts[i].s);
        if (n <= left && memcmp(p, puncts[i].s, (size_t)n) == 0) {
            t->kind = puncts[i].kind;
            t->op = puncts[i].op;
            t->len = n;
            return;
        }
    }
    t->kind = T_BAD;
    t->len = 1; /* a whole UTF-8 sequence, so that messages show the character */
    while (t->len < left && ((unsigned char)p[t->len] & 0xC0) == 0x80 &&
           ((unsigned char)p[0] & 0x80))
        t->len++;
}

/* Moves to the next token. */
static void lex(cx *c)
{
    int i = c->pos;
    while (i < c->len && is_space(c->text[i]))
        i++;
    tok t = {.kind = T_END, .off = i, .len = 0};
    if (i < c->len && is_digit(c->text[i])) {
        t.kind = T_INT;
        while (i + t.len < c->len && is_digit(c->text[i + t.len]))
            t.len++;
    } else if (i < c->len && is_word_start(c->text[i])) {
        t.kind = T_WORD;
        while (i + t.len < c->len && is_word_char(c->text[i + t.len]))
            t.len++;
        t.kw = keyword_of(c->text + i, t.len);
    } else if (i < c->len && c->text[i] == '\'') {
        lex_string(c, &t);
    } else if (i < c->len) {
        lex_punct(c, &t);
    }
    c->t = t;
    c->pos = t.off + t.len;
}

static bool at_kw(const cx *c, keyword kw)
{
    return c->t.kind == T_WORD && c->t.kw == kw;
}

static bool at_op(const cx *c, xop op)
{
    return c->t.kind == T_OP && c->t.op == op;
}

/* ---- errors: only the first one is kept ---- */

static void *fail(cx *c, int off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void *fail(cx *c, int off, const char *fmt, ...)
{
    if (c->failed)
        return NULL;
    c->failed = true;
    c->err_off = off;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    return NULL;
}

static void *too_deep(cx *c, int off)
{
    return fail(c, off, "expression nests too deeply (more than %d levels)", EXPR_MAX_DEPTH);
}

static const char *bad_char_hint(char ch)
{
    switch (ch) {
    case '=': return " (did you mean '=='?)";
    case '!': return " (did you mean '!=' or 'not'?)";
    case '&': return " (did you mean 'and'?)";
    case '|': return " (did you mean 'or'?)";
    case '"': return " (strings use single quotes)";
    default: return "";
    }
}

static void *unexpected(cx *c)
{
    const tok *t = &c->t;
    const char *s = c->text + t->off;
    switch (t->kind) {
    case T_END: return fail(c, t->off, "unexpected end of expression");
    case T_UNTERM: return fail(c, t->off, "unterminated string literal");
    case T_STR: return fail(c, t->off, "unexpected string literal in expression");
    case T_BAD:
        if ((unsigned char)s[0] < 0x20 || s[0] == 0x7F)
            return fail(c, t->off, "unexpected character 0x%02x in expression",
                        (unsigned char)s[0]);
        return fail(c, t->off, "unexpected '%.*s' in expression%s", t->len, s, bad_char_hint(s[0]));
    default:
        return fail(c, t->off, "unexpected '%.*s' in expression", t->len > 40 ? 40 : t->len, s);
    }
}

static const char *describe(const ty *t, char buf[TY_DESC_MAX])
{
    return ty_describe(t, buf, TY_DESC_MAX);
}

/* " (did you mean 'x'?)" or "". */
static const char *suggestion(char *buf, size_t size, const char *word, const char *const *cands,
                              size_t n)
{
    const char *s = diag_suggest(word, cands, n);
    if (s)
        snprintf(buf, size, " (did you mean '%s'?)", s);
    else
        buf[0] = '\0';
    return buf;
}

/* ---- parser ---- */

static xnode *parse_or(cx *c);

static bool enter(cx *c, int off)
{
    if (++c->depth <= EXPR_MAX_DEPTH)
        return true;
    too_deep(c, off);
    return false;
}

static xnode *mk(cx *c, xop op, int off, xnode *l, xnode *r)
{
    xnode *n = arena_alloc(c->a, sizeof *n);
    n->op = op;
    n->off = off;
    n->start = l && l->start < off ? l->start : off;
    n->l = l;
    n->r = r;
    int dl = l ? l->depth : 0, dr = r ? r->depth : 0;
    n->depth = l ? 1 + (dl > dr ? dl : dr) : 0;
    return n->depth > EXPR_MAX_DEPTH ? too_deep(c, off) : n;
}

static xnode *mk_lit(cx *c, xop op, value v)
{
    xnode *n = mk(c, op, c->t.off, NULL, NULL);
    n->lit = v;
    lex(c);
    return n;
}

static xnode *parse_int(cx *c)
{
    const char *s = c->text + c->t.off;
    int64_t v = 0;
    for (int i = 0; i < c->t.len; i++) {
        int d = s[i] - '0';
        if (v > (INT64_MAX - d) / 10)
            return fail(c, c->t.off, "integer literal '%.*s' is out of range", c->t.len, s);
        v = v * 10 + d;
    }
    return mk_lit(c, XOP_INT, (value){.kind = VAL_INT, .u.i = v});
}

/* Decodes 'it''s' into the arena. */
static xnode *parse_str(cx *c)
{
    const char *s = c->text + c->t.off + 1;
    int n = c->t.len - 2;
    char *out = arena_alloc(c->a, (size_t)n + 1);
    uint32_t len = 0;
    for (int i = 0; i < n; i++) {
        out[len++] = s[i];
        if (s[i] == '\'')
            i++;
    }
    return mk_lit(c, XOP_STR, (value){.kind = VAL_STRING, .len = len, .u.s = out});
}

/* Collects word ('.' word)* into an xname. */
static xname *parse_path(cx *c)
{
    const char *segs[EXPR_MAX_DEPTH];
    int offs[EXPR_MAX_DEPTH];
    int n = 0;
    for (;;) {
        if (n == EXPR_MAX_DEPTH)
            return too_deep(c, c->t.off);
        segs[n] = arena_strndup(c->a, c->text + c->t.off, (size_t)c->t.len);
        offs[n++] = c->t.off;
        lex(c);
        if (c->t.kind != T_DOT)
            break;
        lex(c);
        if (c->t.kind != T_WORD)
            return unexpected(c);
    }
    xname *nm = arena_alloc(c->a, sizeof *nm);
    nm->seg = arena_alloc(c->a, sizeof *nm->seg * (size_t)n);
    nm->segoff = arena_alloc(c->a, sizeof *nm->segoff * (size_t)n);
    memcpy(nm->seg, segs, sizeof *segs * (size_t)n);
    memcpy(nm->segoff, offs, sizeof *offs * (size_t)n);
    nm->nseg = n;
    nm->path = segs[0];
    for (int i = 1; i < n; i++)
        nm->path = arena_printf(c->a, "%s.%s", nm->path, segs[i]);
    return nm;
}

static xnode *expect_rp(cx *c)
{
    if (c->t.kind == T_BAD || c->t.kind == T_UNTERM)
        return unexpected(c);
    return fail(c, c->t.off, "expected ')'");
}

static void *unknown_function(cx *c, const xname *nm, int off)
{
    const char *names[NFUNCS];
    char hint[64], list[128] = "";
    size_t n = 0;
    for (size_t i = 0; i < NFUNCS; i++) {
        names[i] = funcs[i].name;
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", names[i]);
    }
    return fail(c, off, "unknown function '%s'%s; the functions are %s", nm->path,
                suggestion(hint, sizeof hint, nm->path, names, NFUNCS), list);
}

static xnode *wrong_arity(cx *c, const func *f, int off, int nargs)
{
    static const char *const counts[] = {"no arguments", "one argument", "two arguments",
                                         "three arguments"};
    return fail(c, off, "%s() takes %s, got %d", f->name, counts[f->arity], nargs);
}

/* A call node: its depth covers every argument. */
static xnode *mk_call(cx *c, const func *f, int off, xnode *const *args)
{
    xnode *n = mk(c, XOP_CALL, off, NULL, NULL);
    if (!n)
        return NULL;
    n->f = f;
    for (int i = 0; i < f->arity; i++) {
        n->args[i] = args[i];
        int d = args[i] ? 1 + args[i]->depth : 0; /* parse_call checked the arity */
        if (n->depth < d)
            n->depth = d;
    }
    return n->depth > EXPR_MAX_DEPTH ? too_deep(c, off) : n;
}

/* name '(' args ')', after the name; the name is a row of funcs[]. */
static xnode *parse_call(cx *c, const xname *nm, int off)
{
    const func *f = nm->nseg == 1 ? func_named(nm->path) : NULL;
    if (!f)
        return unknown_function(c, nm, off);
    if (!enter(c, off))
        return NULL;
    lex(c);
    xnode *args[FUNC_MAX_ARGS] = {NULL};
    int nargs = 0;
    while (c->t.kind != T_RP && (nargs == 0 || c->t.kind == T_COMMA)) {
        if (nargs)
            lex(c);
        xnode *x = parse_or(c);
        if (!x)
            return NULL;
        if (nargs < FUNC_MAX_ARGS)
            args[nargs] = x;
        nargs++;
    }
    if (c->t.kind != T_RP)
        return expect_rp(c);
    if (nargs != f->arity)
        return wrong_arity(c, f, off, nargs);
    lex(c);
    c->depth--;
    return mk_call(c, f, off, args);
}

static xnode *parse_word(cx *c)
{
    keyword kw = c->t.kw;
    if (kw == KW_TRUE || kw == KW_FALSE)
        return mk_lit(c, XOP_BOOL, (value){.kind = VAL_BOOL, .u.b = kw == KW_TRUE});
    if (kw != KW_NONE)
        return unexpected(c);
    int off = c->t.off;
    xname *nm = parse_path(c);
    if (!nm)
        return NULL;
    if (c->t.kind == T_LP)
        return parse_call(c, nm, off);
    xnode *n = mk(c, XOP_NAME, off, NULL, NULL);
    if (n)
        n->name = nm;
    return n;
}

static xnode *parse_paren(cx *c)
{
    if (!enter(c, c->t.off))
        return NULL;
    lex(c);
    xnode *x = parse_or(c);
    if (!x)
        return NULL;
    if (c->t.kind != T_RP)
        return expect_rp(c);
    lex(c);
    c->depth--;
    return x;
}

static xnode *parse_primary(cx *c)
{
    switch (c->t.kind) {
    case T_INT: return parse_int(c);
    case T_STR: return parse_str(c);
    case T_WORD: return parse_word(c);
    case T_LP: return parse_paren(c);
    default: return unexpected(c);
    }
}

/* A prefix operator: `op operand`, where operand is parsed by sub. */
static xnode *parse_prefix(cx *c, xop op, xnode *(*sub)(cx *))
{
    int off = c->t.off;
    if (!enter(c, off))
        return NULL;
    lex(c);
    xnode *x = sub(c);
    c->depth--;
    return x ? mk(c, op, off, x, NULL) : NULL;
}

static xnode *parse_unary(cx *c)
{
    if (at_op(c, XOP_SUB))
        return parse_prefix(c, XOP_NEG, parse_unary);
    return parse_primary(c);
}

static bool match_mul(const cx *c)
{
    return at_op(c, XOP_MUL) || at_op(c, XOP_DIV) || at_op(c, XOP_MOD);
}

static bool match_add(const cx *c)
{
    return at_op(c, XOP_ADD) || at_op(c, XOP_SUB);
}

static bool match_cmp(const cx *c)
{
    return c->t.kind == T_OP && c->t.op >= XOP_EQ && c->t.op <= XOP_GE;
}

static bool match_and(const cx *c)
{
    return at_kw(c, KW_AND);
}

static bool match_or(const cx *c)
{
    return at_kw(c, KW_OR);
}

static xop op_of(const cx *c)
{
    return c->t.kind == T_OP ? c->t.op : at_kw(c, KW_AND) ? XOP_AND : XOP_OR;
}

/* Left-associative `sub (op sub)*` for the operators match accepts. */
static xnode *parse_chain(cx *c, xnode *(*sub)(cx *), bool (*match)(const cx *))
{
    xnode *l = sub(c);
    while (l && match(c)) {
        xop op = op_of(c);
        int off = c->t.off;
        lex(c);
        xnode *r = sub(c);
        l = r ? mk(c, op, off, l, r) : NULL;
    }
    return l;
}

static xnode *parse_mul(cx *c)
{
    return parse_chain(c, parse_unary, match_mul);
}

static xnode *parse_add(cx *c)
{
    return parse_chain(c, parse_mul, match_add);
}

/* Comparisons do not associate: `a < b < c` is an error. */
static xnode *parse_cmp(cx *c)
{
    xnode *l = parse_add(c);
    if (!l || !match_cmp(c))
        return l;
    xop op = c->t.op;
    int off = c->t.off;
    lex(c);
    xnode *r = parse_add(c);
    if (r && match_cmp(c))
        return fail(c, c->t.off, "comparison operators cannot be chained; use 'and'");
    return r ? mk(c, op, off, l, r) : NULL;
}

static xnode *parse_not(cx *c)
{
    if (at_kw(c, KW_NOT))
        return parse_prefix(c, XOP_NOT, parse_not);
    return parse_cmp(c);
}

static xnode *parse_and(cx *c)
{
    return parse_chain(c, parse_not, match_and);
}

static xnode *parse_or(cx *c)
{
    return parse_chain(c, parse_and, match_or);
}

static xnode *parse_all(cx *c)
{
    lex(c);
    if (c->t.kind == T_END)
        return fail(c, 0, "empty expression");
    xnode *root = parse_or(c);
    if (root && c->t.kind != T_END)
        return unexpected(c);
    return root;
}

/* ---- names ---- */

/* `item` is a scope only in a for_each policy; elsewhere it may name a field. */
static bool is_reserved(const cx *c, const char *w)
{
    return strcmp(w, "arg") == 0 || strcmp(w, "old") == 0 || strcmp(w, "event") == 0 ||
           (c->env->item && strcmp(w, "item") == 0);
}

static int alias_index(const expr_env *env, const char *w)
{
    for (size_t i = 0; i < env->nalias; i++)
        if (strcmp(env->alias_names[i], w) == 0)
            return (int)i;
    return -1;
}

static bool is_self_field(const cx *c, const char *w)
{
    return ty_field_index(c->env->self, w) >= 0;
}

/* An alias names its aggregate when a field follows, or when no field of self is called so. */
static int alias_of(const cx *c, const xname *nm)
{
    int ai = alias_index(c->env, nm->seg[0]);
    return ai >= 0 && (nm->nseg > 1 || !is_self_field(c, nm->seg[0])) ? ai : -1;
}

/* A name that can only mean an enum value: one word that is nothing else. */
static bool enum_candidate(const cx *c, const xnode *n)
{
    if (n->op != XOP_NAME || n->name->nseg != 1)
        return false;
    const char *w = n->name->seg[0];
    return !is_reserved(c, w) && !is_self_field(c, w) && alias_of(c, n->name) < 0;
}

static bool type_has_value(const ty *t, const char *w, int depth)
{
    if (!t || depth > 8)
        return false;
    if (t->kind == TY_ENUM)
        return ty_enum_index(t, w, strlen(w)) >= 0;
    if (t->kind == TY_LIST)
        return type_has_value(t->elem, w, depth + 1);
    for (size_t i = 0; t->kind == TY_STRUCT && i < t->nfields; i++)
        if (type_has_value(t->fields[i].type, w, depth + 1))
            return true;
    return false;
}

/* Whether w is a value of an enum the spec's types here can reach. */
static bool is_known_enum_value(const cx *c, const char *w)
{
    const expr_env *env = c->env;
    if (type_has_value(env->self, w, 0) || type_has_value(env->args, w, 0) ||
        type_has_value(env->event, w, 0) || type_has_value(env->item, w, 0))
        return true;
    for (size_t i = 0; i < env->nalias; i++)
        if (type_has_value(env->alias_types[i], w, 0))
            return true;
    return false;
}

static const char **field_names(arena *a, const ty *t, size_t extra, size_t *n)
{
    size_t nf = t && t->kind == TY_STRUCT ? t->nfields : 0;
    const char **names = arena_alloc(a, sizeof *names * (nf + extra + 1));
    for (size_t i = 0; i < nf; i++)
        names[i] = t->fields[i].name;
    *n = nf;
    return names;
}

static void *unknown_name(cx *c, const xnode *n, const ty *expected)
{
    const expr_env *env = c->env;
    size_t nenum = expected && expected->kind == TY_ENUM ? expected->nvalues : 0;
    size_t k;
    const char **cands = field_names(c->a, env->self, env->nalias + 4 + nenum, &k);
    for (size_t i = 0; i < env->nalias; i++)
        cands[k++] = env->alias_names[i];
    if (env->args)
        cands[k++] = "arg";
    if (env->allow_old && env->self)
        cands[k++] = "old";
    if (env->event)
        cands[k++] = "event";
    if (env->item)
        cands[k++] = "item";
    for (size_t i = 0; i < nenum; i++)
        cands[k++] = expected->values[i];
    char hint[128];
    const char *w = n->name->seg[0];
    return fail(c, n->start, "unknown name '%s'%s", w, suggestion(hint, sizeof hint, w, cands, k));
}

static void *no_field(cx *c, const ty *t, const char *w, int off)
{
    char desc[TY_DESC_MAX], hint[128];
    size_t k;
    const char **cands = field_names(c->a, t, 0, &k);
    return fail(c, off, "'%s' has no field '%s'%s", describe(t, desc), w,
                suggestion(hint, sizeof hint, w, cands, k));
}

/* A word that is not a field of self: an expected enum's value, or an error. */
static const ty *bare_word(cx *c, xnode *n, const ty *expected)
{
    const char *w = n->name->seg[0];
    bool want_enum = expected && expected->kind == TY_ENUM;
    int i = want_enum ? ty_enum_index(expected, w, strlen(w)) : -1;
    char desc[TY_DESC_MAX];
    if (n->name->nseg == 1 && i >= 0) {
        n->op = XOP_ENUM;
        n->lit = (value){.kind = VAL_ENUM, .u.e = i};
        return expected;
    }
    if (strcmp(w, "item") == 0 && (n->name->nseg > 1 || !is_known_enum_value(c, w)))
        return fail(c, n->start, "%s is only allowed in a for_each policy's args", n->name->path);
    if (n->name->nseg > 1 || !is_known_enum_value(c, w))
        return unknown_name(c, n, expected);
    if (want_enum)
        return fail(c, n->start, "'%s' is not a value of %s", w, describe(expected, desc));
    return fail(c, n->start, "'%s' is an enum value, but no enum is expected here", w);
}

/* The struct type the first word of a prefixed name opens, setting the scope;
 * NULL (after failing) when that scope is not available here. */
static const ty *prefix_scope(cx *c, const xnode *n)
{
    const expr_env *env = c->env;
    xname *nm = n->name;
    const char *w = nm->seg[0];
    if (strcmp(w, "arg") == 0) {
        nm->scope = SCOPE_ARG;
        return env->args ? env->args : fail(c, n->start, "%s is not available here", nm->path);
    }
    if (strcmp(w, "old") == 0) {
        nm->scope = SCOPE_OLD;
        return env->allow_old && env->self
                   ? env->self
                   : fail(c, n->start, "%s is only allowed in ensure", nm->path);
    }
    if (strcmp(w, "event") == 0) {
        nm->scope = SCOPE_EVENT;
        return env->event ? env->event
                          : fail(c, n->start, "%s is only allowed in policies", nm->path);
    }
    if (env->item && strcmp(w, "item") == 0) { /* else `item` may be a read alias */
        nm->scope = SCOPE_ITEM;
        return env->item;
    }
    nm->scope = SCOPE_ALIAS;
    nm->alias = alias_of(c, nm);
    return env->alias_types[nm->alias];
}

/* Resolves nm->seg[first..] as fields from struct t; the type at the end. */
static const ty *walk_fields(cx *c, xname *nm, const ty *t, int first)
{
    nm->nidx = nm->nseg - first;
    nm->idx = arena_alloc(c->a, sizeof *nm->idx * (size_t)nm->nidx);
    nm->fields = !first ? nm->path : nm->nseg > first ? nm->path + strlen(nm->seg[0]) + 1 : "";
    for (int i = first; i < nm->nseg; i++) {
        int fi = ty_field_index(t, nm->seg[i]);
        if (fi < 0)
            return no_field(c, t, nm->seg[i], nm->segoff[i]);
        nm->idx[i - first] = fi;
        nm->optional = t->fields[fi].optional;
        t = t->fields[fi].type;
    }
    return t;
}

static const ty *check_name(cx *c, xnode *n, const ty *expected)
{
    xname *nm = n->name;
    const char *w = nm->seg[0];
    if (!is_reserved(c, w) && alias_of(c, nm) < 0) {
        if (!is_self_field(c, w))
            return bare_word(c, n, expected);
        nm->scope = SCOPE_SELF;
        return walk_fields(c, nm, c->env->self, 0);
    }
    const ty *t = prefix_scope(c, n);
    if (!t)
        return NULL;
    if (nm->nseg == 1 && nm->scope != SCOPE_ITEM) /* the whole item is a value; a scope is not */
        return fail(c, n->start, "'%s' needs a field, as in %s.x", w, w);
    return walk_fields(c, nm, t, 1);
}

/* ---- type checker ---- */

static const ty *check(cx *c, xnode *n, const ty *expected);

static void *fail_operands(cx *c, const xnode *n, const char *need, const ty *l, const ty *r)
{
    char dl[TY_DESC_MAX], dr[TY_DESC_MAX];
    return fail(c, n->off, "'%s' needs %s operands, got %s and %s", op_names[n->op], need,
                describe(l, dl), describe(r, dr));
}

static bool check_pair(cx *c, xnode *n, const ty **l, const ty **r)
{
    *l = check(c, n->l, NULL);
    *r = *l ? check(c, n->r, NULL) : NULL;
    return *r != NULL;
}

static const ty *check_arith(cx *c, xnode *n)
{
    const ty *l, *r;
    if (!check_pair(c, n, &l, &r))
        return NULL;
    if (l->kind != TY_INT || r->kind != TY_INT)
        return fail_operands(c, n, "int", l, r);
    return &ty_int;
}

static const ty *check_logic(cx *c, xnode *n)
{
    const ty *l, *r;
    if (!check_pair(c, n, &l, &r))
        return NULL;
    if (l->kind != TY_BOOL || r->kind != TY_BOOL)
        return fail_operands(c, n, "bool", l, r);
    return &ty_bool;
}

static const ty *check_prefix(cx *c, xnode *n, const ty *need)
{
    const ty *t = check(c, n->l, NULL);
    char dt[TY_DESC_MAX];
    if (t && t->kind != need->kind)
        return fail(c, n->off, "'%s' needs %s %s operand, got %s", op_names[n->op],
                    need->kind == TY_INT ? "an" : "a", need->name, describe(t, dt));
    return t ? need : NULL;
}

static void *cannot_compare(cx *c, const xnode *n, const ty *l, const ty *r)
{
    char dl[TY_DESC_MAX], dr[TY_DESC_MAX];
    return fail(c, n->off, "cannot compare %s with %s", describe(l, dl), describe(r, dr));
}

/* == and !=: a bare enum value on one side takes its enum from the other. */
static const ty *check_eq(cx *c, xnode *n)
{
    const ty *l, *r;
    if (enum_candidate(c, n->l) && !enum_candidate(c, n->r)) {
        r = check(c, n->r, NULL);
        l = r ? check(c, n->l, r) : NULL;
    } else {
        l = check(c, n->l, NULL);
        r = l ? check(c, n->r, l) : NULL;
    }
    if (!l || !r)
        return NULL;
    return ty_compatible(l, r) ? &ty_bool : cannot_compare(c, n, l, r);
}

static const ty *check_order(cx *c, xnode *n)
{
    const ty *l, *r;
    if (!check_pair(c, n, &l, &r))
        return NULL;
    if (!ty_compatible(l, r))
        return cannot_compare(c, n, l, r);
    if (l->kind != TY_INT && l->kind != TY_STRING)
        return fail_operands(c, n, "int or string", l, r);
    return &ty_bool;
}

/* + adds two ints or concatenates two strings. */
static const ty *check_add(cx *c, xnode *n)
{
    const ty *l, *r;
    if (!check_pair(c, n, &l, &r))
        return NULL;
    if (l->kind == TY_INT && r->kind == TY_INT)
        return &ty_int;
    if (l->kind == TY_STRING && r->kind == TY_STRING)
        return &ty_string;
    char dl[TY_DESC_MAX], dr[TY_DESC_MAX];
    return fail(c, n->off, "'+' needs two ints or two strings, got %s and %s", describe(l, dl),
                describe(r, dr));
}

static const ty *check_len(cx *c, xnode *n, const ty *expected)
{
    const ty *t = check(c, n->args[0], NULL);
    char dt[TY_DESC_MAX];
    if (t && t->kind != TY_LIST && t->kind != TY_STRING)
        return fail(c, n->args[0]->start, "len() needs a list or string, got %s", describe(t, dt));
    return t ? &ty_int : NULL;
}

/* if(c, a, b): c is bool, a and b compatible; a bare enum value in one
 * branch takes its enum from the other branch (or from expected). */
static const ty *check_if(cx *c, xnode *n, const ty *expected)
{
    char d1[TY_DESC_MAX], d2[TY_DESC_MAX];
    const ty *tc = check(c, n->args[0], NULL);
    if (!tc)
        return NULL;
    if (tc->kind != TY_BOOL)
        return fail(c, n->args[0]->start, "if() needs a bool condition, got %s", describe(tc, d1));
    xnode *a = n->args[1], *b = n->args[2];
    const ty *ta, *tb;
    if (!expected && enum_candidate(c, a) && !enum_candidate(c, b)) {
        tb = check(c, b, NULL);
        ta = tb ? check(c, a, tb) : NULL;
    } else {
        ta = check(c, a, expected);
        tb = ta ? check(c, b, expected ? expected : ta) : NULL;
    }
    if (!ta || !tb)
        return NULL;
    if (!ty_compatible(ta, tb))
        return fail(c, b->start, "if() needs branches of one type, got %s and %s", describe(ta, d1),
                    describe(tb, d2));
    /* Cents and int mix to int: the result need not keep either constraint */
    if (ta != tb && (ta->kind == TY_INT || ta->kind == TY_STRING || ta->kind == TY_BOOL))
        return ta->kind == TY_INT ? &ty_int : ta->kind == TY_STRING ? &ty_string : &ty_bool;
    return ta;
}

/* min, max, abs: every argument an int. */
static const ty *check_ints(cx *c, xnode *n, const ty *expected)
{
    char dt[TY_DESC_MAX];
    for (int i = 0; i < n->f->arity; i++) {
        const ty *t = check(c, n->args[i], NULL);
        if (!t)
            return NULL;
        if (t->kind != TY_INT)
            return fail(c, n->args[i]->start, "%s() needs %s, got %s", n->f->name,
                        n->f->arity == 1 ? "an int argument" : "int arguments", describe(t, dt));
    }
    return &ty_int;
}

static const ty *check_has(cx *c, xnode *n, const ty *expected)
{
    xnode *f = n->args[0];
    if (f->op != XOP_NAME)
        return fail(c, f->start, "has() needs the name of an optional field");
    if (!check(c, f, NULL))
        return NULL;
    if (!f->name->optional)
        return fail(c, f->start, "has() needs an optional field; '%s' is not optional",
                    f->name->path);
    return &ty_bool;
}

static const ty *check_op(cx *c, xnode *n, const ty *expected)
{
    switch (n->op) {
    case XOP_INT: return &ty_int;
    case XOP_STR: return &ty_string;
    case XOP_BOOL: return &ty_bool;
    case XOP_ENUM: return n->type;
    case XOP_NAME: return check_name(c, n, expected);
    case XOP_CALL: return n->f->check(c, n, expected);
    case XOP_ADD: return check_add(c, n);
    case XOP_NEG: return check_prefix(c, n, &ty_int);
    case XOP_NOT: return check_prefix(c, n, &ty_bool);
    case XOP_AND:
    case XOP_OR: return check_logic(c, n);
    case XOP_EQ:
    case XOP_NE: return check_eq(c, n);
    case XOP_LT:
    case XOP_LE:
    case XOP_GT:
    case XOP_GE: return check_order(c, n);
    default: return check_arith(c, n);
    }
}

/* Types n and everything below it; expected only lets a bare word be an enum value. */
static const ty *check(cx *c, xnode *n, const ty *expected)
{
    n->type = check_op(c, n, expected);
    return n->type;
}

/* ---- compiling ---- */

static void lower(xnode *n);

static int compile(arena *a, const char *text, size_t len, const node *at, const char *file,
                   int line, int col, const expr_env *env, const ty *expected, const expr **out,
                   diag_list *d)
{
    static const expr_env no_env;
    cx c = {.a = a, .text = text, .len = (int)len, .env = env ? env : &no_env};
    xnode *root = NULL;
    if (len > EXPR_MAX_LEN)
        fail(&c, 0, "expression is too long (%zu bytes, at most %d)", len, EXPR_MAX_LEN);
    else
        root = parse_all(&c);
    const ty *t = root ? check(&c, root, expected) : NULL;
    char de[TY_DESC_MAX], dt[TY_DESC_MAX];
    if (t && expected && !ty_compatible(expected, t))
        fail(&c, root->start, "expected %s, got %s", describe(expected, de), describe(t, dt));
    if (c.failed) {
        if (at) { /* where the user wrote it, through YAML's folding and quoting */
            diag_error_in(d, at, (size_t)c.err_off, "%s", c.msg);
            return -1;
        }
        col += (int)utf8_length(text, (size_t)c.err_off);
        diag_add(d, DIAG_ERROR, file, line, col, "%s", c.msg);
        return -1;
    }
    if (root) /* set whenever nothing failed */
        lower(root);
    expr *e = arena_alloc(a, sizeof *e);
    e->text = arena_strndup(a, text, len);
    e->type = t;
    e->root = root;
    e->head = (expr_head){.run = root ? root->run : NULL, .root = root};
    *out = e;
    return 0;
}

int expr_compile(arena *a, const node *n, const expr_env *env, const ty *expected, const expr **out,
                 diag_list *d)
{
    if (n->kind == NODE_MAP || n->kind == NODE_SEQ) {
        diag_error_at(d, n, "expected an expression, got %s", node_kind_name(n->kind));
        return -1;
    }
    return compile(a, n->text, n->len, n, n->file, n->line, n->col, env, expected, out, d);
}

int expr_compile_text(arena *a, const char *text, const char *file, int line, int col,
                      const expr_env *env, const ty *expected, const expr **out, diag_list *d)
{
    return compile(a, text, strlen(text), NULL, file, line, col, env, expected, out, d);
}

const ty *expr_type(const expr *e)
{
    return e->type;
}

const char *expr_text(const expr *e)
{
    return e->text;
}

/* ---- evaluation ---- */

static expr_status ev(const xnode *n, const expr_ctx *x, value *out);

/* The value of nm's scope: by the offset lower() put in ctxoff. */
static const value *scope_value(const xname *nm, const expr_ctx *x)
{
    const value *v = nm->scope != SCOPE_ALIAS
                         ? *(const value *const *)((const char *)x + nm->ctxoff)
                     : x->aliases ? x->aliases[nm->alias]
                                  : NULL;
    assert(v && "expr_eval: the context lacks a scope the expression reads");
    return v;
}

/* The field nm names, or NULL when it or a struct on the way is unset. */
static const value *lookup(const xname *nm, const expr_ctx *x)
{
    const value *v = scope_value(nm, x);
    for (int i = 0; i < nm->nidx; i++) {
        if (v->kind == VAL_NONE)
            return NULL;
        assert(v->kind == VAL_STRUCT && (uint32_t)nm->idx[i] < v->len);
        v = &v->u.items[nm->idx[i]];
    }
    return v->kind == VAL_NONE ? NULL : v;
}

static value int_value(int64_t i)
{
    return (value){.kind = VAL_INT, .u.i = i};
}

static value bool_value(bool b)
{
    return (value){.kind = VAL_BOOL, .u.b = b};
}

static expr_status arith(xop op, int64_t a, int64_t b, int64_t *v)
{
    switch (op) {
    case XOP_NEG: *v = a == INT64_MIN ? 0 : -a; return a == INT64_MIN ? EXPR_OVERFLOW : EXPR_OK;
    case XOP_ADD: return __builtin_add_overflow(a, b, v) ? EXPR_OVERFLOW : EXPR_OK;
    case XOP_SUB: return __builtin_sub_overflow(a, b, v) ? EXPR_OVERFLOW : EXPR_OK;
    case XOP_MUL: return __builtin_mul_overflow(a, b, v) ? EXPR_OVERFLOW : EXPR_OK;
    case XOP_DIV:
        if (b == 0)
            return EXPR_DIV_ZERO;
        if (a == INT64_MIN && b == -1)
            return EXPR_OVERFLOW;
        *v = a / b;
        return EXPR_OK;
    default: /* XOP_MOD: INT64_MIN % -1 is 0, though C leaves it undefined */
        if (b == 0)
            return EXPR_DIV_ZERO;
        *v = b == -1 ? 0 : a % b;
        return EXPR_OK;
    }
}

/* l + r for two strings, in the context's scratch arena. */
static expr_status concat(const value *l, const value *r, const expr_ctx *x, value *out)
{
    if ((uint64_t)l->len + r->len > UINT32_MAX)
        return EXPR_OVERFLOW;
    assert(x->scratch && "expr_eval: '+' on strings needs the context's scratch arena");
    uint32_t len = l->len + r->len;
    char *s = arena_alloc(x->scratch, (size_t)len + 1);
    if (l->len)
        memcpy(s, l->u.s, l->len);
    if (r->len)
        memcpy(s + l->len, r->u.s, r->len);
    *out = (value){.kind = VAL_STRING, .len = len, .u.s = s};
    return EXPR_OK;
}

static expr_status ev_arith(const xnode *n, const expr_ctx *x, value *out)
{
    value l, r = {.kind = VAL_INT};
    expr_status s = ev(n->l, x, &l);
    if (s == EXPR_OK && n->r)
        s = ev(n->r, x, &r);
    if (s == EXPR_OK && l.kind == VAL_STRING)
        return concat(&l, &r, x, out);
    int64_t v;
    if (s == EXPR_OK)
        s = arith(n->op, l.u.i, r.u.i, &v);
    if (s == EXPR_OK)
        *out = int_value(v);
    return s;
}

/* Bytewise, a prefix first. */
static int compare(const value *a, const value *b)
{
    if (a->kind == VAL_INT)
        return (a->u.i > b->u.i) - (a->u.i < b->u.i);
    uint32_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->u.s, b->u.s, n) : 0;
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* value_equal, with the scalars (what guards compare most) inline. */
static bool equal(const value *a, const value *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case VAL_INT: return a->u.i == b->u.i;
    case VAL_ENUM: return a->u.e == b->u.e;
    case VAL_BOOL: return a->u.b == b->u.b;
    default: return value_equal(a, b);
    }
}

static bool compare_holds(xop op, const value *a, const value *b)
{
    switch (op) {
    case XOP_EQ: return equal(a, b);
    case XOP_NE: return !equal(a, b);
    case XOP_LT: return compare(a, b) < 0;
    case XOP_LE: return compare(a, b) <= 0;
    case XOP_GT: return compare(a, b) > 0;
    default: return compare(a, b) >= 0;
    }
}

static expr_status ev_compare(const xnode *n, const expr_ctx *x, value *out)
{
    value l, r;
    expr_status s = ev(n->l, x, &l);
    if (s == EXPR_OK)
        s = ev(n->r, x, &r);
    if (s == EXPR_OK)
        *out = bool_value(compare_holds(n->op, &l, &r));
    return s;
}

/* not, and, or; the right side of and/or only when it decides. */
static expr_status ev_logic(const xnode *n, const expr_ctx *x, value *out)
{
    value l;
    expr_status s = ev(n->l, x, &l);
    if (s != EXPR_OK)
        return s;
    if (n->op == XOP_NOT)
        l.u.b = !l.u.b;
    else if (l.u.b == (n->op == XOP_AND))
        return ev(n->r, x, out);
    *out = bool_value(l.u.b);
    return EXPR_OK;
}

static expr_status ev_len(const xnode *n, const expr_ctx *x, value *out)
{
    value v;
    expr_status s = ev(n->args[0], x, &v);
    if (s == EXPR_OK)
        *out = int_value(v.kind == VAL_STRING ? (int64_t)utf8_length(v.u.s, v.len) : v.len);
    return s;
}

static expr_status ev_has(const xnode *n, const expr_ctx *x, value *out)
{
    *out = bool_value(lookup(n->args[0]->name, x) != NULL);
    return EXPR_OK;
}

/* Only the chosen branch is evaluated. */
static expr_status ev_if(const xnode *n, const expr_ctx *x, value *out)
{
    value c;
    expr_status s = ev(n->args[0], x, &c);
    return s == EXPR_OK ? ev(n->args[c.u.b ? 1 : 2], x, out) : s;
}

/* Both arguments of min or max, as ints. */
static expr_status ev_two(const xnode *n, const expr_ctx *x, int64_t *a, int64_t *b)
{
    value va, vb;
    expr_status s = ev(n->args[0], x, &va);
    if (s == EXPR_OK)
        s = ev(n->args[1], x, &vb);
    if (s == EXPR_OK) {
        *a = va.u.i;
        *b = vb.u.i;
    }
    return s;
}

static expr_status ev_min(const xnode *n, const expr_ctx *x, value *out)
{
    int64_t a, b;
    expr_status s = ev_two(n, x, &a, &b);
    if (s == EXPR_OK)
        *out = int_value(a < b ? a : b);
    return s;
}

static expr_status ev_max(const xnode *n, const expr_ctx *x, value *out)
{
    int64_t a, b;
    expr_status s = ev_two(n, x, &a, &b);
    if (s == EXPR_OK)
        *out = int_value(a > b ? a : b);
    return s;
}

/* abs(INT64_MIN) does not fit: an overflow, like -(INT64_MIN). */
static expr_status ev_abs(const xnode *n, const expr_ctx *x, value *out)
{
    value v;
    expr_status s = ev(n->args[0], x, &v);
    if (s == EXPR_OK && v.u.i == INT64_MIN)
        return EXPR_OVERFLOW;
    if (s == EXPR_OK)
        *out = int_value(v.u.i < 0 ? -v.u.i : v.u.i);
    return s;
}

static expr_status ev_name(const xnode *n, const expr_ctx *x, value *out)
{
    const value *v = lookup(n->name, x);
    if (!v)
        return EXPR_UNSET;
    *out = *v;
    return EXPR_OK;
}

static expr_status ev(const xnode *n, const expr_ctx *x, value *out)
{
    return n->run(n, x, out);
}

/* ---- compiled forms: what lower() picks for each node ---- */

static expr_status run_lit(const xnode *n, const expr_ctx *x, value *out)
{
    (void)x;
    *out = n->lit;
    return EXPR_OK;
}

static expr_status run_const(const xnode *n, const expr_ctx *x, value *out)
{
    (void)x;
    *out = n->k;
    return EXPR_OK;
}

static expr_status run_call(const xnode *n, const expr_ctx *x, value *out)
{
    return n->f->eval(n, x, out);
}

/* A field one step into its scope (`status`, `arg.amount`): by its slot. */
static const value *field1(const xname *nm, const expr_ctx *x)
{
    const value *v = scope_value(nm, x);
    assert(v->kind == VAL_STRUCT && (uint32_t)nm->idx[0] < v->len);
    v = &v->u.items[nm->idx[0]];
    return v->kind == VAL_NONE ? NULL : v;
}

/* Two steps (`arg.amount.cents`, `pizza.price_cents`). */
static const value *field2(const xname *nm, const expr_ctx *x)
{
    const value *v = field1(nm, x);
    if (!v)
        return NULL;
    assert(v->kind == VAL_STRUCT && (uint32_t)nm->idx[1] < v->len);
    v = &v->u.items[nm->idx[1]];
    return v->kind == VAL_NONE ? NULL : v;
}

static expr_status run_name1(const xnode *n, const expr_ctx *x, value *out)
{
    const value *v = field1(n->name, x);
    if (!v)
        return EXPR_UNSET;
    *out = *v;
    return EXPR_OK;
}

static expr_status run_name2(const xnode *n, const expr_ctx *x, value *out)
{
    const value *v = field2(n->name, x);
    if (!v)
        return EXPR_UNSET;
    *out = *v;
    return EXPR_OK;
}

static bool int_holds(xop op, int64_t a, int64_t b)
{
    switch (op) {
    case XOP_EQ: return a == b;
    case XOP_NE: return a != b;
    case XOP_LT: return a < b;
    case XOP_LE: return a <= b;
    case XOP_GT: return a > b;
    default: return a >= b;
    }
}

/* int op int, both sides evaluated. */
static expr_status run_cmp_int(const xnode *n, const expr_ctx *x, value *out)
{
    value l, r;
    expr_status s = ev(n->l, x, &l);
    if (s == EXPR_OK)
        s = ev(n->r, x, &r);
    if (s == EXPR_OK)
        *out = bool_value(int_holds(n->op, l.u.i, r.u.i));
    return s;
}

/* int op constant (n->k): the left side evaluated only. */
static expr_status run_cmp_int_k(const xnode *n, const expr_ctx *x, value *out)
{
    value l;
    expr_status s = ev(n->l, x, &l);
    if (s == EXPR_OK)
        *out = bool_value(int_holds(n->op, l.u.i, n->k.u.i));
    return s;
}

/* a one-step int field op constant: `balance >= 0`. */
static expr_status run_cmp_field_k(const xnode *n, const expr_ctx *x, value *out)
{
    const value *v = field1(n->l->name, x);
    if (!v)
        return EXPR_UNSET;
    *out = bool_value(int_holds(n->op, v->u.i, n->k.u.i));
    return EXPR_OK;
}

/* enum == / != enum, both sides evaluated. */
static expr_status run_eq_enum(const xnode *n, const expr_ctx *x, value *out)
{
    value l, r;
    expr_status s = ev(n->l, x, &l);
    if (s == EXPR_OK)
        s = ev(n->r, x, &r);
    if (s == EXPR_OK)
        *out = bool_value((l.u.e == r.u.e) == (n->op == XOP_EQ));
    return s;
}

/* a one-step enum field == / != a constant: `status == available`. */
static expr_status run_eq_enum_field_k(const xnode *n, const expr_ctx *x, value *out)
{
    const value *v = field1(n->l->name, x);
    if (!v)
        return EXPR_UNSET;
    *out = bool_value((v->u.e == n->k.u.e) == (n->op == XOP_EQ));
    return EXPR_OK;
}

/* len() of a list (a string counts code points: the generic ev_len). */
static expr_status run_len_list(const xnode *n, const expr_ctx *x, value *out)
{
    value v;
    expr_status s = ev(n->args[0], x, &v);
    if (s == EXPR_OK)
        *out = int_value(v.len);
    return s;
}

/* len(list field) op constant: `len(toppings) < 10`. */
static expr_status run_cmp_len_field_k(const xnode *n, const expr_ctx *x, value *out)
{
    const value *v = field1(n->l->args[0]->name, x);
    if (!v)
        return EXPR_UNSET;
    *out = bool_value(int_holds(n->op, v->len, n->k.u.i));
    return EXPR_OK;
}

/* An int operand read in place, without a call of its own: a constant (in
 * k), a field one or two steps into its scope, len() of a one-step list
 * field. */
enum { LEAF_NONE, LEAF_K, LEAF_F1, LEAF_F2, LEAF_LEN1 };

static inline expr_status leaf_int(const xnode *n, const expr_ctx *x, int64_t *out)
{
    const value *v;
    switch (n->leaf) {
    case LEAF_K: *out = n->k.u.i; return EXPR_OK;
    case LEAF_F1: v = field1(n->name, x); break;
    case LEAF_F2: v = field2(n->name, x); break;
    default: /* LEAF_LEN1 */
        if (!(v = field1(n->args[0]->name, x)))
            return EXPR_UNSET;
        *out = v->len;
        return EXPR_OK;
    }
    if (!v)
        return EXPR_UNSET;
    *out = v->u.i;
    return EXPR_OK;
}

/* int op int, both sides leaves: `balance >= arg.amount.cents`. */
static expr_status run_cmp_leaves(const xnode *n, const expr_ctx *x, value *out)
{
    int64_t l, r;
    expr_status s = leaf_int(n->l, x, &l);
    if (s == EXPR_OK)
        s = leaf_int(n->r, x, &r);
    if (s == EXPR_OK)
        *out = bool_value(int_holds(n->op, l, r));
    return s;
}

/* an int leaf op constant: `arg.amount.cents > 0`. */
static expr_status run_cmp_leaf_k(const xnode *n, const expr_ctx *x, value *out)
{
    int64_t l;
    expr_status s = leaf_int(n->l, x, &l);
    if (s == EXPR_OK)
        *out = bool_value(int_holds(n->op, l, n->k.u.i));
    return s;
}

/* int + - * / % int with both sides leaves (`balance + arg.amount.cents`,
 * `len(ledger) + 1`), or unary minus of one. */
static expr_status run_arith_leaves(const xnode *n, const expr_ctx *x, value *out)
{
    int64_t l, r = 0, v;
    expr_status s = leaf_int(n->l, x, &l);
    if (s == EXPR_OK && n->r)
        s = leaf_int(n->r, x, &r);
    if (s == EXPR_OK)
        s = arith(n->op, l, r, &v);
    if (s == EXPR_OK)
        *out = int_value(v);
    return s;
}

/* int + - * / % int, unary minus. */
static expr_status run_arith_int(const xnode *n, const expr_ctx *x, value *out)
{
    value l, r = {.kind = VAL_INT};
    expr_status s = ev(n->l, x, &l);
    if (s == EXPR_OK && n->r)
        s = ev(n->r, x, &r);
    int64_t v;
    if (s == EXPR_OK)
        s = arith(n->op, l.u.i, r.u.i, &v);
    if (s == EXPR_OK)
        *out = int_value(v);
    return s;
}

static bool is_const(const xnode *n)
{
    return n->folded || n->op == XOP_INT || n->op == XOP_STR || n->op == XOP_BOOL ||
           n->op == XOP_ENUM;
}

static value const_of(const xnode *n)
{
    return n->folded ? n->k : n->lit;
}

static bool is_field1(const xnode *n)
{
    return n->op == XOP_NAME && n->name->nidx == 1;
}

static bool is_kind(const xnode *n, ty_kind k)
{
    return n->type && n->type->kind == k;
}

/* The compiled form of a comparison. */
static xrun lower_compare(xnode *n)
{
    bool k = is_const(n->r);
    if (k)
        n->k = const_of(n->r);
    if (is_kind(n->l, TY_INT) && is_kind(n->r, TY_INT)) {
        if (!k)
            return n->l->leaf && n->r->leaf ? run_cmp_leaves : run_cmp_int;
        if (is_field1(n->l))
            return run_cmp_field_k;
        if (n->l->op == XOP_CALL && n->l->run == run_len_list && is_field1(n->l->args[0]))
            return run_cmp_len_field_k;
        return n->l->leaf ? run_cmp_leaf_k : run_cmp_int_k;
    }
    if (is_kind(n->l, TY_ENUM) && is_kind(n->r, TY_ENUM) && (n->op == XOP_EQ || n->op == XOP_NE))
        return k && is_field1(n->l) ? run_eq_enum_field_k : run_eq_enum;
    return ev_compare;
}

static xrun lower_name(xnode *n)
{
    xname *nm = n->name;
    switch (nm->scope) {
    case SCOPE_SELF: nm->ctxoff = offsetof(expr_ctx, self); break;
    case SCOPE_ARG: nm->ctxoff = offsetof(expr_ctx, args); break;
    case SCOPE_OLD: nm->ctxoff = offsetof(expr_ctx, old); break;
    case SCOPE_EVENT: nm->ctxoff = offsetof(expr_ctx, event); break;
    case SCOPE_ITEM: nm->ctxoff = offsetof(expr_ctx, item); break;
    case SCOPE_ALIAS: break;
    }
    return nm->nidx == 1 ? run_name1 : nm->nidx == 2 ? run_name2 : ev_name;
}

/* Picks each node's compiled form, children first, and folds a subtree of
 * constants (but a string '+', whose result needs the scratch arena) into
 * its value when it evaluates; one that fails (an overflow) fails when
 * evaluated, as before. */
/* Whether n has the operands its operator takes (the parser's trees do):
 * checked before lower() evaluates anything of it. */
static bool whole(const xnode *n)
{
    switch (n->op) {
    case XOP_INT:
    case XOP_STR:
    case XOP_BOOL:
    case XOP_ENUM: return true;
    case XOP_NAME: return n->name != NULL;
    case XOP_CALL:
        for (int i = 0; i < n->f->arity; i++)
            if (!n->args[i])
                return false;
        return true;
    case XOP_NOT:
    case XOP_NEG: return n->l != NULL;
    default: return n->l && n->r;
    }
}

/* Whether n, lowered, is an int leaf (leaf_int), and which; a constant's
 * value goes into k. */
static void set_leaf(xnode *n)
{
    n->leaf = LEAF_NONE;
    if (!is_kind(n, TY_INT))
        return;
    if (is_const(n)) {
        n->k = const_of(n);
        n->leaf = LEAF_K;
    } else if (n->op == XOP_NAME && (n->name->nidx == 1 || n->name->nidx == 2)) {
        n->leaf = n->name->nidx == 1 ? LEAF_F1 : LEAF_F2;
    } else if (n->op == XOP_CALL && n->run == run_len_list && is_field1(n->args[0])) {
        n->leaf = LEAF_LEN1;
    }
}

static void lower(xnode *n)
{
    assert(whole(n));
    if (!whole(n)) { /* not reached: evaluates to its (unset) literal */
        n->run = run_lit;
        return;
    }
    if (n->l)
        lower(n->l);
    if (n->r)
        lower(n->r);
    for (int i = 0; n->op == XOP_CALL && i < n->f->arity; i++)
        lower(n->args[i]);
    switch (n->op) {
    case XOP_INT:
    case XOP_STR:
    case XOP_BOOL:
    case XOP_ENUM:
        n->run = run_lit;
        set_leaf(n);
        return;
    case XOP_NAME:
        n->run = lower_name(n);
        set_leaf(n);
        return;
    case XOP_CALL:
        n->run = n->f->eval == ev_len && is_kind(n->args[0], TY_LIST) ? run_len_list : run_call;
        break;
    case XOP_NOT:
    case XOP_AND:
    case XOP_OR: n->run = ev_logic; break;
    case XOP_EQ:
    case XOP_NE:
    case XOP_LT:
    case XOP_LE:
    case XOP_GT:
    case XOP_GE: n->run = lower_compare(n); break;
    default:
        n->run = !is_kind(n, TY_INT)                   ? ev_arith
                 : n->l->leaf && (!n->r || n->r->leaf) ? run_arith_leaves
                                                       : run_arith_int;
        break;
    }
    bool all = n->op != XOP_CALL || n->f->eval != ev_has;
    if (n->l)
        all = all && is_const(n->l);
    if (n->r)
        all = all && is_const(n->r);
    for (int i = 0; n->op == XOP_CALL && i < n->f->arity; i++)
        all = all && is_const(n->args[i]);
    static const expr_ctx none;
    value v;
    if (all && !is_kind(n, TY_STRING) && n->run(n, &none, &v) == EXPR_OK) {
        n->k = v;
        n->folded = true;
        n->run = run_const;
    }
    set_leaf(n);
}

expr_status expr_eval(const expr *e, const expr_ctx *ctx, value *out)
{
    value v;
    expr_status s = e->root->run(e->root, ctx, &v);
    if (s == EXPR_OK)
        *out = v;
    return s;
}

const char *expr_status_text(expr_status s)
{
    switch (s) {
    case EXPR_OK: return "ok";
    case EXPR_OVERFLOW: return "integer overflow";
    case EXPR_DIV_ZERO: return "division by zero";
    case EXPR_UNSET: return "an optional field is not set";
    }
    return "unknown expression status";
}

/* ---- rendering and names ---- */

typedef struct sbuf {
    char *p;
    size_t size, n;
} sbuf;

static void put_ch(sbuf *b, char ch)
{
    if (b->n + 1 < b->size)
        b->p[b->n++] = ch;
}

static void put_s(sbuf *b, const char *s)
{
    while (*s)
        put_ch(b, *s++);
}

static void put_quoted(sbuf *b, const value *v)
{
    put_ch(b, '\'');
    for (uint32_t i = 0; i < v->len; i++) {
        if (v->u.s[i] == '\'')
            put_ch(b, '\'');
        put_ch(b, v->u.s[i]);
    }
    put_ch(b, '\'');
}

static void render(sbuf *b, const xnode *n)
{
    char num[32];
    switch (n->op) {
    case XOP_INT:
        snprintf(num, sizeof num, "%" PRId64, n->lit.u.i);
        put_s(b, num);
        break;
    case XOP_STR: put_quoted(b, &n->lit); break;
    case XOP_BOOL: put_s(b, n->lit.u.b ? "true" : "false"); break;
    case XOP_ENUM: put_s(b, n->type->values[n->lit.u.e]); break;
    case XOP_NAME: put_s(b, n->name->path); break;
    case XOP_CALL:
        put_s(b, n->f->name);
        put_ch(b, '(');
        for (int i = 0; i < n->f->arity; i++) {
            if (i)
                put_s(b, ", ");
            render(b, n->args[i]);
        }
        put_ch(b, ')');
        break;
    case XOP_NEG:
    case XOP_NOT:
        put_s(b, n->op == XOP_NOT ? "(not " : "(-");
        render(b, n->l);
        put_ch(b, ')');
        break;
    default:
        put_ch(b, '(');
        render(b, n->l);
        put_ch(b, ' ');
        put_s(b, op_names[n->op]);
        put_ch(b, ' ');
        render(b, n->r);
        put_ch(b, ')');
    }
}

const char *expr_render(const expr *e, char *buf, size_t size)
{
    sbuf b = {buf, size, 0};
    render(&b, e->root);
    if (size)
        buf[b.n] = '\0';
    return buf;
}

static void visit(const xnode *n,
                  void (*fn)(void *ctx, expr_scope scope, int alias, const char *path), void *ctx)
{
    if (n->op == XOP_NAME) {
        const xname *nm = n->name;
        fn(ctx, nm->scope, nm->scope == SCOPE_ALIAS ? nm->alias : 0, nm->fields);
    }
    if (n->l)
        visit(n->l, fn, ctx);
    if (n->r)
        visit(n->r, fn, ctx);
    for (int i = 0; n->op == XOP_CALL && i < n->f->arity; i++)
        visit(n->args[i], fn, ctx);
}

void expr_visit_names(const expr *e,
                      void (*fn)(void *ctx, expr_scope scope, int alias, const char *path),
                      void *ctx)
{
    visit(e->root, fn, ctx);
}

bool expr_constant(const expr *e, value *out)
{
    if (!is_const(e->root))
        return false;
    *out = const_of(e->root);
    return true;
}

bool expr_name_path(const expr *e, expr_scope *scope, int *alias, const char **path)
{
    if (e->root->op != XOP_NAME)
        return false;
    const xname *nm = e->root->name;
    *scope = nm->scope;
    *alias = nm->scope == SCOPE_ALIAS ? nm->alias : 0;
    *path = nm->fields;
    return true;
}

/* ---- ensures that a command's effects make true ---- */

/* Whether a, an effect's expression (run on the state before), and b, a
 * side of an ensure, always have the same value: the same tree, with each
 * field of the record that a reads bare read by b as old.x, and the same
 * arguments, aliases and constants. */
static bool same_before(const xnode *a, const xnode *b)
{
    if (!a->type || !b->type || a->type->kind != b->type->kind ||
        (a->type->kind == TY_ENUM && a->type != b->type))
        return false;
    if (is_const(a) || is_const(b)) {
        if (!is_const(a) || !is_const(b))
            return false;
        value x = const_of(a), y = const_of(b);
        return equal(&x, &y);
    }
    if (a->op != b->op)
        return false;
    if (a->op == XOP_NAME) {
        const xname *p = a->name, *q = b->name;
        bool scope = p->scope == SCOPE_SELF    ? q->scope == SCOPE_OLD
                     : p->scope == SCOPE_ARG   ? q->scope == SCOPE_ARG
                     : p->scope == SCOPE_ALIAS ? q->scope == SCOPE_ALIAS && q->alias == p->alias
                                               : false;
        return scope && p->nidx == q->nidx &&
               memcmp(p->idx, q->idx, (size_t)p->nidx * sizeof *p->idx) == 0;
    }
    if (a->op == XOP_CALL) {
        if (a->f != b->f)
            return false;
        for (int i = 0; i < a->f->arity; i++)
            if (!same_before(a->args[i], b->args[i]))
                return false;
        return true;
    }
    return !a->l == !b->l && !a->r == !b->r && (!a->l || same_before(a->l, b->l)) &&
           (!a->r || same_before(a->r, b->r));
}

/* n reads field f of the record whole, in scope s (SCOPE_SELF: the new
 * state in an ensure). */
static bool is_record_field(const xnode *n, expr_scope s, int f)
{
    return n->op == XOP_NAME && n->name->scope == s && n->name->nidx == 1 && n->name->idx[0] == f;
}

/* n is len(f) of the record's field f in scope s. */
static bool is_len_of(const xnode *n, expr_scope s, int f)
{
    return n->op == XOP_CALL && n->f->eval == ev_len && is_record_field(n->args[0], s, f);
}

static bool is_one(const xnode *n)
{
    if (!is_const(n))
        return false;
    value v = const_of(n);
    return v.kind == VAL_INT && v.u.i == 1;
}

bool expr_ensure_implied(const expr *e, int f, const expr *set)
{
    const xnode *n = e->root;
    if (n->op != XOP_EQ || is_const(n))
        return false;
    for (int side = 0; side < 2; side++) {
        const xnode *x = side ? n->r : n->l, *y = side ? n->l : n->r;
        if (set ? is_record_field(x, SCOPE_SELF, f) && same_before(set->root, y)
                : is_len_of(x, SCOPE_SELF, f) && y->op == XOP_ADD &&
                      ((is_len_of(y->l, SCOPE_OLD, f) && is_one(y->r)) ||
                       (is_one(y->l) && is_len_of(y->r, SCOPE_OLD, f))))
            return true;
    }
    return false;
}

/* ---- sums read in place, for the runtime's hot path ---- */

static expr_leaf leaf_of(const xnode *n)
{
    expr_leaf f = {.kind = EXPR_LEAF_K, .k = n->k.u.i};
    if (n->leaf == LEAF_K)
        return f;
    const xname *nm = n->leaf == LEAF_LEN1 ? n->args[0]->name : n->name;
    f.kind = n->leaf == LEAF_F1 ? EXPR_LEAF_F1 : n->leaf == LEAF_F2 ? EXPR_LEAF_F2 : EXPR_LEAF_LEN1;
    f.alias = nm->scope == SCOPE_ALIAS;
    f.at = (uint32_t)(f.alias ? (size_t)nm->alias : nm->ctxoff);
    f.idx[0] = nm->idx[0];
    f.idx[1] = nm->nidx > 1 ? nm->idx[1] : 0;
    return f;
}

bool expr_int_sum(const expr *e, expr_sum *out)
{
    const xnode *n = e->root;
    if (n->run != run_arith_leaves || (n->op != XOP_ADD && n->op != XOP_SUB) || !n->r)
        return false;
    *out = (expr_sum){.l = leaf_of(n->l), .r = leaf_of(n->r), .sub = n->op == XOP_SUB};
    return true;
}
