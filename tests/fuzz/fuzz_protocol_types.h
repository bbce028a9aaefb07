/* fuzz_protocol_types.h: the argument type the protocol fuzzers decode
 * into: every kind of value, constraints, an optional field, nesting. */
#ifndef BENCH_FUZZ_PROTOCOL_TYPES_H
#define BENCH_FUZZ_PROTOCOL_TYPES_H

#include "types.h"

static const char *fz_size_values[] = {"small", "large"};
static const ty fz_size = {.kind = TY_ENUM, .name = "Size", .values = fz_size_values, .nvalues = 2};
static const ty fz_cents = {
    .kind = TY_INT, .has_min = true, .min = 0, .has_max = true, .max = 99999};
static const ty fz_name = {
    .kind = TY_STRING, .has_min_len = true, .min_len = 1, .has_max_len = true, .max_len = 40};
static field fz_topping_fields[] = {{.name = "name", .type = &fz_name},
                                    {.name = "amount", .type = &ty_int}};
static const ty fz_topping = {
    .kind = TY_STRUCT, .name = "Topping", .fields = fz_topping_fields, .nfields = 2};
static const ty fz_toppings = {
    .kind = TY_LIST, .elem = &fz_topping, .has_max_items = true, .max_items = 8};
static field fz_arg_fields[] = {
    {.name = "name", .type = &ty_string}, {.name = "price", .type = &fz_cents},
    {.name = "size", .type = &fz_size},   {.name = "toppings", .type = &fz_toppings},
    {.name = "paid", .type = &ty_bool},   {.name = "nick", .type = &ty_string, .optional = true},
};
static const ty fz_args = {
    .kind = TY_STRUCT, .name = "Order", .fields = fz_arg_fields, .nfields = 6};

#endif
