/* fuzz_expr.c: the expression language: any text compiled in a scope that
 * has every kind of name (self, arg, old, an alias, item), rendered, and
 * evaluated on values of those types when it compiles. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *size_values[] = {"small", "large"};
static const ty t_size = {.kind = TY_ENUM, .name = "Size", .values = size_values, .nvalues = 2};
static const ty t_cents = {.kind = TY_INT, .name = "Cents", .has_min = true, .min = 0};
static const ty t_tags = {.kind = TY_LIST, .elem = &ty_string};
static field item_fields[] = {{.name = "name", .type = &ty_string},
                              {.name = "amount", .type = &ty_int}};
static const ty t_item = {.kind = TY_STRUCT, .name = "Item", .fields = item_fields, .nfields = 2};
static const ty t_items = {.kind = TY_LIST, .elem = &t_item};
static field self_fields[] = {
    {.name = "name", .type = &ty_string},
    {.name = "price", .type = &t_cents},
    {.name = "size", .type = &t_size},
    {.name = "tags", .type = &t_tags},
    {.name = "items", .type = &t_items},
    {.name = "open", .type = &ty_bool},
    {.name = "nick", .type = &ty_string, .optional = true},
};
static const ty t_self = {.kind = TY_STRUCT, .name = "Order", .fields = self_fields, .nfields = 7};
static field arg_fields[] = {{.name = "amount", .type = &ty_int},
                             {.name = "who", .type = &ty_string}};
static const ty t_args = {.kind = TY_STRUCT, .name = "Pay", .fields = arg_fields, .nfields = 2};
static const char *alias_names[] = {"owner"};
static const ty *alias_types[] = {&t_args};
static const expr_env env = {.self = &t_self,
                             .args = &t_args,
                             .allow_old = true,
                             .alias_names = alias_names,
                             .alias_types = alias_types,
                             .nalias = 1,
                             .item = &t_item};

#define STR(lit) ((value){.kind = VAL_STRING, .len = sizeof(lit) - 1, .u.s = (lit)})
#define INT(n) ((value){.kind = VAL_INT, .u.i = (n)})

static value item0[] = {STR("basil"), INT(3)};
static value item1[] = {STR("olive"), INT(INT64_MAX)};
static value items[2], tags[2], self[7], args[2];
static value self_v, args_v, item_v;
static const value *aliases[1];

static void build_values(void)
{
    items[0] = (value){.kind = VAL_STRUCT, .len = 2, .u.items = item0};
    items[1] = (value){.kind = VAL_STRUCT, .len = 2, .u.items = item1};
    tags[0] = STR("hot");
    tags[1] = STR("\xc3\xa9t\xc3\xa9");
    self[0] = STR("pizza-1");
    self[1] = INT(1200);
    self[2] = (value){.kind = VAL_ENUM, .u.e = 1};
    self[3] = (value){.kind = VAL_LIST, .len = 2, .u.items = tags};
    self[4] = (value){.kind = VAL_LIST, .len = 2, .u.items = items};
    self[5] = (value){.kind = VAL_BOOL, .u.b = true};
    self[6] = (value){.kind = VAL_NONE};
    self_v = (value){.kind = VAL_STRUCT, .len = 7, .u.items = self};
    args[0] = INT(INT64_MIN);
    args[1] = STR("");
    args_v = (value){.kind = VAL_STRUCT, .len = 2, .u.items = args};
    item_v = items[1];
    aliases[0] = &args_v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    if (!self_v.len)
        build_values();
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    arena a = {0}, scratch = {0};
    diag_list d = {0};
    const expr *e = NULL;
    if (expr_compile_text(&a, text, "fuzz.yaml", 1, 1, &env, NULL, &e, &d) == 0) {
        char buf[256];
        expr_render(e, buf, sizeof buf);
        expr_ctx ctx = {.self = &self_v,
                        .args = &args_v,
                        .old = &self_v,
                        .aliases = aliases,
                        .item = &item_v,
                        .scratch = &scratch};
        value out;
        expr_eval(e, &ctx, &out);
    }
    diag_list_free(&d);
    arena_free(&scratch);
    arena_free(&a);
    free(text);
    return 0;
}
