/* test_expr.c: the expression language against the pizzas types, built by hand. */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "expr.h"

/* ---- types: pizzas, plus a Customer read as `owner` ---- */

static const ty t_cents = {.kind = TY_INT, .name = "Cents", .has_min = true, .min = 0};
static const char *size_values[] = {"small", "large"};
static const ty t_size = {.kind = TY_ENUM, .name = "Size", .values = size_values, .nvalues = 2};
static field pizza_fields[] = {{.name = "price_cents", .type = &t_cents},
                               {.name = "size", .type = &t_size}};
static const ty t_pizza = {
    .kind = TY_STRUCT, .name = "Pizza", .fields = pizza_fields, .nfields = 2};
static field topping_fields[] = {{.name = "name", .type = &ty_string},
                                 {.name = "amount", .type = &ty_int}};
static const ty t_topping = {
    .kind = TY_STRUCT, .name = "Topping", .fields = topping_fields, .nfields = 2};
static const ty t_toppings = {.kind = TY_LIST, .elem = &t_topping};
static const char *status_values[] = {"available", "sold"};
static const ty t_status = {.kind = TY_ENUM, .values = status_values, .nvalues = 2};
static field order_fields[] = {
    {.name = "name", .type = &ty_string},
    {.name = "pizza", .type = &t_pizza},
    {.name = "toppings", .type = &t_toppings},
    {.name = "customer_name", .type = &ty_string, .optional = true},
    {.name = "status", .type = &t_status},
};
static const ty t_order = {
    .kind = TY_STRUCT, .name = "Order", .fields = order_fields, .nfields = 5};

static field add_topping_fields[] = {{.name = "name", .type = &ty_string},
                                     {.name = "topping", .type = &t_topping}};
static const ty t_add_topping = {
    .kind = TY_STRUCT, .name = "AddTopping", .fields = add_topping_fields, .nfields = 2};
static field purchase_fields[] = {{.name = "name", .type = &ty_string},
                                  {.name = "customer_name", .type = &ty_string},
                                  {.name = "amount", .type = &t_cents}};
static const ty t_purchase = {
    .kind = TY_STRUCT, .name = "Purchase", .fields = purchase_fields, .nfields = 3};
static field create_fields[] = {{.name = "name", .type = &ty_string},
                                {.name = "pizza", .type = &t_pizza}};
static const ty t_create = {
    .kind = TY_STRUCT, .name = "CreatePizza", .fields = create_fields, .nfields = 2};

static const char *cstatus_values[] = {"active", "closed"};
static const ty t_cstatus = {.kind = TY_ENUM, .values = cstatus_values, .nvalues = 2};
static field pname_fields[] = {{.name = "given", .type = &ty_string},
                               {.name = "family", .type = &ty_string}};
static const ty t_pname = {.kind = TY_STRUCT, .name = "Name", .fields = pname_fields, .nfields = 2};
static field customer_fields[] = {{.name = "status", .type = &t_cstatus},
                                  {.name = "name", .type = &t_pname},
                                  {.name = "nick", .type = &ty_string, .optional = true}};
static const ty t_customer = {
    .kind = TY_STRUCT, .name = "Customer", .fields = customer_fields, .nfields = 3};

static const char *alias_names[] = {"owner"};
static const ty *alias_types[] = {&t_customer};

/* A guard of Purchase that also reads `owner`. */
static const expr_env env_guard = {.self = &t_order,
                                   .args = &t_purchase,
                                   .alias_names = alias_names,
                                   .alias_types = alias_types,
                                   .nalias = 1};
/* The same, in ensure. */
static const expr_env env_ensure = {.self = &t_order,
                                    .args = &t_purchase,
                                    .allow_old = true,
                                    .alias_names = alias_names,
                                    .alias_types = alias_types,
                                    .nalias = 1};
/* A policy on ToppingAdded (payload: AddTopping's arguments). */
static const expr_env env_policy = {.event = &t_add_topping};
static const expr_env env_create = {.self = &t_order, .args = &t_create};
/* A for_each policy over an order's toppings (payload: the order), and one
 * over a list of ints. */
static const expr_env env_item = {.event = &t_order, .item = &t_topping};
static const expr_env env_int_item = {.event = &t_order, .item = &ty_int};

/* ---- values ---- */

#define STR(lit) ((value){.kind = VAL_STRING, .len = sizeof(lit) - 1, .u.s = (lit)})
#define INT(n) ((value){.kind = VAL_INT, .u.i = (n)})
#define ENUM(n) ((value){.kind = VAL_ENUM, .u.e = (n)})
#define STRUCT(arr)                                                                                \
    ((value){.kind = VAL_STRUCT, .len = sizeof(arr) / sizeof(value), .u.items = (arr)})
#define LIST(arr) ((value){.kind = VAL_LIST, .len = sizeof(arr) / sizeof(value), .u.items = (arr)})
#define NONE ((value){.kind = VAL_NONE})

static value basil[] = {STR("Basil"), INT(3)};
static value olive[] = {STR("Olive"), INT(2)};
static value toppings[2];
static value pizza[] = {INT(1200), ENUM(1)};
static value order[5];
static value order_v;

static value old_basil[] = {STR("Basil"), INT(3)};
static value old_olive[] = {STR("Olive"), INT(2)};
static value old_toppings[2];
static value old_order[5];
static value old_v;

static value purchase[] = {STR("pizza-1"), STR("Chris"), INT(1200)};
static value purchase_v;
static value given_family[] = {STR("Ada"), STR("Lovelace")};
static value customer[3];
static value customer_v;
static const value *aliases[1];
static value create_pizza[] = {INT(1200), ENUM(1)};
static value create[2];
static value create_v;

static expr_ctx ctx;
static arena A;
static arena S; /* evaluation's scratch, as the runtime's per dispatch */
static diag_list D;

static void build_values(void)
{
    toppings[0] = STRUCT(basil);
    toppings[1] = STRUCT(olive);
    order[0] = STR("pizza-1");
    order[1] = STRUCT(pizza);
    order[2] = LIST(toppings);
    order[3] = NONE;
    order[4] = ENUM(0);
    order_v = STRUCT(order);

    old_toppings[0] = STRUCT(old_basil);
    old_toppings[1] = STRUCT(old_olive);
    memcpy(old_order, order, sizeof order);
    old_order[2] = LIST(old_toppings);
    old_v = STRUCT(old_order);

    purchase_v = STRUCT(purchase);
    customer[0] = ENUM(0);
    customer[1] = STRUCT(given_family);
    customer[2] = NONE;
    customer_v = STRUCT(customer);
    aliases[0] = &customer_v;
    create[0] = STR("pizza-1");
    create[1] = STRUCT(create_pizza);
    create_pizza[1] = ENUM(1);
    create_v = STRUCT(create);

    ctx = (expr_ctx){
        .self = &order_v, .args = &purchase_v, .old = &old_v, .aliases = aliases, .scratch = &S};
}

static int setup(void **state)
{
    build_values();
    return 0;
}

static int teardown(void **state)
{
    arena_free(&A);
    arena_free(&S);
    diag_list_free(&D);
    return 0;
}

/* ---- helpers ---- */

static const expr *compile_in(const expr_env *env, const ty *expected, const char *text)
{
    const expr *e = NULL;
    int rc = expr_compile_text(&A, text, "t.yaml", 3, 1, env, expected, &e, &D);
    if (rc != 0)
        print_error("%s: %s\n", text, D.items[D.count - 1].message);
    assert_int_equal(rc, 0);
    assert_non_null(e);
    return e;
}

static expr_status eval_in(const expr_env *env, const expr_ctx *c, const char *text, value *out)
{
    return expr_eval(compile_in(env, NULL, text), c, out);
}

static expr_status eval_status(const char *text)
{
    value v;
    return eval_in(&env_ensure, &ctx, text, &v);
}

static int64_t eval_int(const char *text)
{
    value v = NONE;
    assert_int_equal(eval_in(&env_ensure, &ctx, text, &v), EXPR_OK);
    assert_int_equal(v.kind, VAL_INT);
    return v.u.i;
}

static bool eval_bool(const char *text)
{
    value v = NONE;
    expr_status s = eval_in(&env_ensure, &ctx, text, &v);
    if (s != EXPR_OK)
        print_error("%s: %s\n", text, expr_status_text(s));
    assert_int_equal(s, EXPR_OK);
    assert_int_equal(v.kind, VAL_BOOL);
    return v.u.b;
}

static void assert_true_expr(const char *text)
{
    if (!eval_bool(text))
        fail_msg("expected true: %s", text);
}

static void assert_false_expr(const char *text)
{
    if (eval_bool(text))
        fail_msg("expected false: %s", text);
}

/* ---- parsing and rendering ---- */

static void test_expr_render_shows_precedence(void **state)
{
    static const char *const cases[][2] = {
        {"1 + 2 * 3", "(1 + (2 * 3))"},
        {"(1 + 2) * 3", "((1 + 2) * 3)"},
        {"1 - 2 - 3", "((1 - 2) - 3)"},
        {"7 % 3 / 2", "((7 % 3) / 2)"},
        {"- - 1", "(-(-1))"},
        {"-arg.amount * 2", "((-arg.amount) * 2)"},
        {"true or false and not true", "(true or (false and (not true)))"},
        {"not status == available", "(not (status == available))"},
        {"not not true", "(not (not true))"},
        {"len(toppings) < 10", "(len(toppings) < 10)"},
        {"arg . amount >= pizza.price_cents", "(arg.amount >= pizza.price_cents)"},
        {"has(customer_name) and customer_name != 'Chris'",
         "(has(customer_name) and (customer_name != 'Chris'))"},
        {"'it''s' == name", "('it''s' == name)"},
        {"owner.status == active", "(owner.status == active)"},
        {"1 + 2 == 3 and 4 * 5 > 6 or false", "((((1 + 2) == 3) and ((4 * 5) > 6)) or false)"},
        {"(((len(old.toppings))))", "len(old.toppings)"},
        {"1 <= 2", "(1 <= 2)"},
        {"1 >= 2", "(1 >= 2)"},
        {"1 != 2", "(1 != 2)"},
        {"1 > 2", "(1 > 2)"},
        {"if(arg.amount > 0, 1, 2) + 1", "(if((arg.amount > 0), 1, 2) + 1)"},
        {"min(1, max(2, abs(-3)))", "min(1, max(2, abs((-3))))"},
        {"name + 'x'", "(name + 'x')"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[256];
        const expr *e = compile_in(&env_ensure, NULL, cases[i][0]);
        assert_string_equal(expr_render(e, buf, sizeof buf), cases[i][1]);
        assert_string_equal(expr_text(e), cases[i][0]);
    }
}

static void test_expr_render_truncates_safely(void **state)
{
    const expr *e = compile_in(&env_guard, NULL, "len(toppings) < 10");
    char buf[8];
    assert_string_equal(expr_render(e, buf, sizeof buf), "(len(to");
    assert_string_equal(expr_render(e, buf, 1), "");
}

static void test_expr_type_is_static(void **state)
{
    assert_ptr_equal(expr_type(compile_in(&env_guard, NULL, "len(toppings) + 1")), &ty_int);
    assert_ptr_equal(expr_type(compile_in(&env_guard, NULL, "status == sold")), &ty_bool);
    assert_ptr_equal(expr_type(compile_in(&env_guard, NULL, "pizza")), &t_pizza);
    assert_ptr_equal(expr_type(compile_in(&env_guard, NULL, "arg.amount")), &t_cents);
    assert_ptr_equal(expr_type(compile_in(&env_guard, NULL, "'x'")), &ty_string);
    /* an int expression fits a Cents field: constraints do not matter */
    compile_in(&env_guard, &t_cents, "arg.amount - 1");
    compile_in(&env_guard, &ty_bool, "(true)");
}

/* ---- evaluation ---- */

static void test_expr_arithmetic_truncates_like_c(void **state)
{
    assert_int_equal(eval_int("2 + 3 * 4"), 14);
    assert_int_equal(eval_int("10 - 4 - 3"), 3);
    assert_int_equal(eval_int("-(3)"), -3);
    assert_int_equal(eval_int("- -3"), 3);
    assert_int_equal(eval_int("7 / 2"), 3);
    assert_int_equal(eval_int("-7 / 2"), -3);
    assert_int_equal(eval_int("7 / -2"), -3);
    assert_int_equal(eval_int("-7 / -2"), 3);
    assert_int_equal(eval_int("7 % 3"), 1);
    assert_int_equal(eval_int("-7 % 3"), -1);
    assert_int_equal(eval_int("7 % -3"), 1);
    assert_int_equal(eval_int("-7 % -3"), -1);
    assert_int_equal(eval_int("arg.amount - pizza.price_cents"), 0);
    assert_int_equal(eval_int("len(toppings) + 1"), 3);
}

static void test_expr_overflow_at_int64_limits(void **state)
{
    assert_int_equal(eval_int("9223372036854775807 + 0"), INT64_MAX);
    assert_int_equal(eval_int("-9223372036854775807 - 1"), INT64_MIN);
    assert_int_equal(eval_int("(-9223372036854775807 - 1) % -1"), 0);
    assert_int_equal(eval_int("(-9223372036854775807 - 1) / 1"), INT64_MIN);
    assert_int_equal(eval_int("4611686018427387903 * 2 + 1"), INT64_MAX);
    assert_int_equal(eval_status("9223372036854775807 + 1"), EXPR_OVERFLOW);
    assert_int_equal(eval_status("-9223372036854775807 - 2"), EXPR_OVERFLOW);
    assert_int_equal(eval_status("4611686018427387904 * 2"), EXPR_OVERFLOW);
    assert_int_equal(eval_status("-3037000500 * 3037000500"), EXPR_OVERFLOW);
    assert_int_equal(eval_status("(-9223372036854775807 - 1) / -1"), EXPR_OVERFLOW);
    assert_int_equal(eval_status("-(-9223372036854775807 - 1)"), EXPR_OVERFLOW);
    assert_int_equal(eval_status("(-9223372036854775807 - 1) * -1"), EXPR_OVERFLOW);
}

static void test_expr_division_by_zero_refuses(void **state)
{
    assert_int_equal(eval_status("1 / 0"), EXPR_DIV_ZERO);
    assert_int_equal(eval_status("1 % 0"), EXPR_DIV_ZERO);
    assert_int_equal(eval_status("arg.amount / (arg.amount - pizza.price_cents)"), EXPR_DIV_ZERO);
    assert_int_equal(eval_status("0 / 0 == 0"), EXPR_DIV_ZERO);
    assert_string_equal(expr_status_text(EXPR_DIV_ZERO), "division by zero");
    assert_string_equal(expr_status_text(EXPR_OVERFLOW), "integer overflow");
    assert_string_equal(expr_status_text(EXPR_UNSET), "an optional field is not set");
}

static void test_expr_comparisons_on_ints_and_strings(void **state)
{
    assert_true_expr("1 < 2");
    assert_false_expr("2 < 2");
    assert_true_expr("2 <= 2");
    assert_true_expr("3 > 2");
    assert_false_expr("2 > 2");
    assert_true_expr("2 >= 2");
    assert_true_expr("-1 < 0");
    assert_true_expr("2 == 2");
    assert_true_expr("2 != 3");
    assert_true_expr("'abc' < 'abd'");
    assert_true_expr("'ab' < 'abc'");
    assert_true_expr("'abc' > 'ab'");
    assert_true_expr("'b' > 'abc'");
    assert_true_expr("'' < 'a'");
    assert_true_expr("'a' <= 'a'");
    assert_true_expr("'a' >= 'a'");
    assert_true_expr("'é' > 'z'"); /* bytewise: 0xC3 after 'z' */
    assert_true_expr("name == 'pizza-1'");
    assert_true_expr("name != 'pizza-2'");
    assert_true_expr("'it''s' != 'its'");
    assert_true_expr("true == true");
    assert_true_expr("(1 < 2) != false");
    assert_true_expr("arg.amount >= pizza.price_cents");
}

static void test_expr_logic_short_circuits(void **state)
{
    assert_false_expr("not true");
    assert_true_expr("not false");
    assert_true_expr("true and true");
    assert_false_expr("true and false");
    assert_true_expr("false or true");
    assert_false_expr("false or false");
    assert_false_expr("false and 1 / 0 == 1");
    assert_true_expr("true or 1 / 0 == 1");
    assert_false_expr("has(customer_name) and customer_name != 'Chris'");
    assert_int_equal(eval_status("true and 1 / 0 == 1"), EXPR_DIV_ZERO);
    assert_int_equal(eval_status("false or customer_name == 'x'"), EXPR_UNSET);
}

static void test_expr_len_counts_items_and_code_points(void **state)
{
    assert_int_equal(eval_int("len(toppings)"), 2);
    assert_int_equal(eval_int("len('héllo')"), 5);
    assert_int_equal(eval_int("len('')"), 0);
    assert_int_equal(eval_int("len('it''s')"), 4);
    assert_int_equal(eval_int("len(name)"), 7);
    assert_int_equal(eval_int("len(owner.name.given)"), 3);
    assert_true_expr("len(toppings) < 10");
}

static void test_expr_has_tests_optional_fields(void **state)
{
    assert_false_expr("has(customer_name)");
    assert_false_expr("has(owner.nick)");
    assert_int_equal(eval_status("customer_name == 'Chris'"), EXPR_UNSET);
    order[3] = STR("Chris");
    assert_true_expr("has(customer_name)");
    assert_true_expr("has(customer_name) and customer_name == 'Chris'");
    assert_true_expr("not has(old.customer_name)");
}

/* The compiled forms (a field by its slot against a constant, len of a list
 * field, ints and enums compared, constants folded) against the values of
 * each evaluation, not of the first: one expression evaluated on two
 * states; an unset optional field refuses through each of them. */
static field tab_fields[] = {
    {.name = "tip", .type = &ty_int, .optional = true},
    {.name = "size", .type = &t_size, .optional = true},
    {.name = "items", .type = &t_toppings, .optional = true},
    {.name = "total", .type = &ty_int},
};
static const ty t_tab = {.kind = TY_STRUCT, .name = "Tab", .fields = tab_fields, .nfields = 4};

static void test_expr_compiled_forms_read_each_state(void **state)
{
    static const struct {
        const char *text;
        bool first, second; /* on tab1, then on tab2 */
    } cases[] = {
        {"tip == 5", true, false},
        {"tip != 5", false, true},
        {"tip < 6", true, false},
        {"tip <= 5", true, false},
        {"tip > 4", true, true},
        {"tip >= 7", false, true},
        {"tip + 1 == total", true, false},
        {"total - tip >= 2 * 3", false, false},
        {"size == large", true, false},
        {"size != large", false, true},
        {"size == size", true, true},
        {"len(items) < 2", true, false},
        {"len(items) + 1 > 2", false, true},
        {"tip < total", true, false},
        {"(1 + 2) * 3 == 9", true, true},
        {"-(2 - 5) > tip - 3", true, false},
    };
    const expr_env env = {.self = &t_tab};
    value one = {.kind = VAL_LIST, .len = 1, .u.items = toppings}; /* Basil */
    value tab1[] = {INT(5), ENUM(1), one, INT(6)};
    value tab2[] = {INT(7), ENUM(0), LIST(toppings), INT(7)};
    value v1 = STRUCT(tab1), v2 = STRUCT(tab2);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const expr *e = compile_in(&env, &ty_bool, cases[i].text);
        expr_ctx c = {.self = &v1, .scratch = &S};
        value v = NONE;
        assert_int_equal(expr_eval(e, &c, &v), EXPR_OK);
        if (v.u.b != cases[i].first)
            fail_msg("first state: %s", cases[i].text);
        c.self = &v2;
        assert_int_equal(expr_eval(e, &c, &v), EXPR_OK);
        if (v.u.b != cases[i].second)
            fail_msg("second state: %s", cases[i].text);
    }
    value unset[] = {NONE, NONE, NONE, INT(1)};
    value vu = STRUCT(unset);
    expr_ctx c = {.self = &vu, .scratch = &S};
    static const char *const refused[] = {"tip == 5",     "tip > total",    "size == large",
                                          "size != size", "len(items) < 2", "tip + 1 > 0"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        value v;
        assert_int_equal(expr_eval(compile_in(&env, &ty_bool, refused[i]), &c, &v), EXPR_UNSET);
    }
    /* a folded constant still renders as written, and an overflow among
       constants refuses when evaluated, not when compiled */
    char buf[64];
    assert_string_equal(expr_render(compile_in(&env, NULL, "(1 + 2) * 3 == 9"), buf, sizeof buf),
                        "(((1 + 2) * 3) == 9)");
    assert_int_equal(eval_status("9223372036854775807 + 1 > arg.amount"), EXPR_OVERFLOW);
}

static void test_expr_enum_values_take_the_expected_enum(void **state)
{
    assert_true_expr("status == available");
    assert_true_expr("available == status");
    assert_true_expr("status != sold");
    assert_true_expr("pizza.size == large");
    assert_false_expr("pizza.size == small");
    assert_true_expr("owner.status == active");
    assert_true_expr("status == old.status");

    value v;
    const expr *e = compile_in(&env_guard, &t_status, "sold");
    assert_ptr_equal(expr_type(e), &t_status);
    assert_int_equal(expr_eval(e, &ctx, &v), EXPR_OK);
    assert_int_equal(v.kind, VAL_ENUM);
    assert_int_equal(v.u.e, 1);
    char buf[32];
    assert_string_equal(expr_render(e, buf, sizeof buf), "sold");

    e = compile_in(&env_guard, &t_size, "(small)");
    assert_int_equal(expr_eval(e, &ctx, &v), EXPR_OK);
    assert_int_equal(v.u.e, 0);
}

static void test_expr_equality_is_deep(void **state)
{
    assert_true_expr("toppings == old.toppings");
    assert_true_expr("pizza == old.pizza");
    assert_true_expr("owner.name == owner.name");
    old_olive[1] = INT(5);
    assert_false_expr("toppings == old.toppings");
    assert_true_expr("toppings != old.toppings");
    old_olive[1] = INT(2);
    old_order[2].len = 1;
    assert_false_expr("toppings == old.toppings");

    value v;
    const expr *e = compile_in(&env_create, NULL, "pizza == arg.pizza");
    expr_ctx c = {.self = &order_v, .args = &create_v};
    assert_int_equal(expr_eval(e, &c, &v), EXPR_OK);
    assert_true(v.u.b);
    create_pizza[1] = ENUM(0);
    assert_int_equal(expr_eval(e, &c, &v), EXPR_OK);
    assert_false(v.u.b);
}

static void test_expr_strings_point_into_context(void **state)
{
    value v;
    assert_int_equal(eval_in(&env_guard, &ctx, "arg.customer_name", &v), EXPR_OK);
    assert_int_equal(v.kind, VAL_STRING);
    assert_ptr_equal(v.u.s, purchase[1].u.s);
    assert_int_equal(eval_in(&env_guard, &ctx, "'it''s'", &v), EXPR_OK);
    assert_int_equal(v.len, 4);
    assert_memory_equal(v.u.s, "it's", 4);
}

static void test_expr_event_payload_in_policy(void **state)
{
    value topping[] = {STR("Basil"), INT(3)};
    value payload[] = {STR("pizza-1"), STRUCT(topping)};
    value ev = STRUCT(payload);
    expr_ctx c = {.event = &ev};
    value v;
    assert_int_equal(eval_in(&env_policy, &c, "event.topping.amount * 2", &v), EXPR_OK);
    assert_int_equal(v.u.i, 6);
    compile_in(&env_policy, &ty_string, "event.name");
}

static void test_expr_item_is_the_for_each_element(void **state)
{
    value topping[] = {STR("Basil"), INT(3)};
    value it = STRUCT(topping);
    expr_ctx c = {.event = &order_v, .item = &it};
    value v;
    assert_int_equal(eval_in(&env_item, &c, "item.amount * 2 + len(event.toppings)", &v), EXPR_OK);
    assert_int_equal(v.u.i, 8);
    assert_int_equal(eval_in(&env_item, &c, "item.name", &v), EXPR_OK);
    assert_ptr_equal(v.u.s, topping[0].u.s);
    assert_int_equal(eval_in(&env_item, &c, "item", &v), EXPR_OK); /* the whole element */
    assert_int_equal(v.kind, VAL_STRUCT);
    assert_ptr_equal(v.u.items, topping);
    compile_in(&env_item, &t_topping, "item");
    value seven = INT(7);
    c.item = &seven;
    assert_int_equal(eval_in(&env_int_item, &c, "item + 1", &v), EXPR_OK);
    assert_int_equal(v.u.i, 8);
    compile_in(&env_int_item, &ty_bool, "item > 0 and event.name == 'pizza-1'");
}

/* Outside a for_each policy `item` is no scope: an enum value or a field may
 * still be called so. */
static void test_expr_item_elsewhere_keeps_its_other_meanings(void **state)
{
    static const char *kind_values[] = {"item", "bundle"};
    static const ty t_kind = {.kind = TY_ENUM, .name = "Kind", .values = kind_values, .nvalues = 2};
    value v;
    assert_int_equal(expr_eval(compile_in(&env_guard, &t_kind, "item"), &ctx, &v), EXPR_OK);
    assert_int_equal(v.kind, VAL_ENUM);
    assert_int_equal(v.u.e, 0);
    static field f[] = {{.name = "item", .type = &ty_int}};
    static const ty t_self = {.kind = TY_STRUCT, .name = "Box", .fields = f, .nfields = 1};
    static const expr_env env_box = {.self = &t_self};
    value items[] = {INT(41)};
    value box = STRUCT(items);
    expr_ctx c = {.self = &box};
    assert_int_equal(eval_in(&env_box, &c, "item + 1", &v), EXPR_OK);
    assert_int_equal(v.u.i, 42);
}

static void test_expr_if_evaluates_only_the_chosen_branch(void **state)
{
    assert_int_equal(eval_int("if(true, 1, 2)"), 1);
    assert_int_equal(eval_int("if(false, 1, 2)"), 2);
    assert_int_equal(eval_int("if(arg.amount != 0, 12000 / arg.amount, 0)"), 10);
    assert_int_equal(eval_int("if(arg.amount == 1200, 0, 1 / 0)"), 0);
    assert_int_equal(eval_int("if(false, 1 / 0, 5)"), 5);
    assert_int_equal(eval_status("if(true, 1 / 0, 5)"), EXPR_DIV_ZERO);
    assert_int_equal(eval_status("if(1 / 0 == 0, 1, 2)"), EXPR_DIV_ZERO);
    /* an unset optional is read only when its branch is chosen */
    assert_true_expr("if(has(customer_name), customer_name, 'anon') == 'anon'");
    assert_int_equal(eval_status("if(true, customer_name, 'anon') == 'anon'"), EXPR_UNSET);
    /* any type: enums (a bare value takes the other branch's or the expected enum), structs, lists
     */
    assert_true_expr("if(true, status, sold) == available");
    assert_true_expr("if(false, sold, status) == available");
    assert_false_expr("status == if(true, sold, available)");
    assert_true_expr("if(len(toppings) > 1, pizza, old.pizza) == pizza");
    assert_int_equal(eval_int("len(if(false, toppings, old.toppings))"), 2);
    value v;
    const expr *e = compile_in(&env_guard, &t_status, "if(len(toppings) == 2, sold, available)");
    assert_int_equal(expr_eval(e, &ctx, &v), EXPR_OK);
    assert_int_equal(v.kind, VAL_ENUM);
    assert_int_equal(v.u.e, 1);
    /* the branches' type; an int and a Cents mix to int */
    assert_ptr_equal(expr_type(compile_in(&env_guard, NULL, "if(true, arg.amount, arg.amount)")),
                     &t_cents);
    assert_ptr_equal(expr_type(compile_in(&env_guard, NULL, "if(true, arg.amount, 0)")), &ty_int);
    assert_ptr_equal(expr_type(compile_in(&env_ensure, NULL, "if(true, pizza, old.pizza)")),
                     &t_pizza);
}

static void test_expr_min_max_abs(void **state)
{
    assert_int_equal(eval_int("min(3, -4)"), -4);
    assert_int_equal(eval_int("min(-4, 3)"), -4);
    assert_int_equal(eval_int("max(3, -4)"), 3);
    assert_int_equal(eval_int("max(arg.amount, 10000) - min(arg.amount, 0)"), 10000);
    assert_int_equal(eval_int("abs(-5)"), 5);
    assert_int_equal(eval_int("abs(5)"), 5);
    assert_int_equal(eval_int("abs(0)"), 0);
    assert_int_equal(eval_int("abs(-9223372036854775807)"), INT64_MAX);
    assert_int_equal(eval_int("min(-9223372036854775807 - 1, 0)"), INT64_MIN);
    assert_int_equal(eval_status("abs(-9223372036854775807 - 1)"), EXPR_OVERFLOW);
    assert_int_equal(eval_status("min(1 / 0, 2)"), EXPR_DIV_ZERO);
    assert_int_equal(eval_status("max(2, 1 % 0)"), EXPR_DIV_ZERO);
    assert_ptr_equal(expr_type(compile_in(&env_guard, NULL, "abs(arg.amount)")), &ty_int);
}

static void test_expr_string_plus_concatenates_in_scratch(void **state)
{
    value v;
    size_t before = S.used;
    assert_int_equal(eval_in(&env_guard, &ctx, "name + '/' + arg.customer_name", &v), EXPR_OK);
    assert_int_equal(v.kind, VAL_STRING);
    assert_int_equal(v.len, 13);
    assert_memory_equal(v.u.s, "pizza-1/Chris", 13);
    assert_true(S.used > before);
    assert_ptr_not_equal(v.u.s, order[0].u.s);
    assert_int_equal(eval_in(&env_guard, &ctx, "'' + ''", &v), EXPR_OK);
    assert_int_equal(v.len, 0);
    assert_int_equal(eval_int("len('hé' + 'llo')"), 5);
    assert_true_expr("name + 'x' == 'pizza-1x'");
    assert_true_expr("'a' + 'b' < 'ac'");
    assert_true_expr("if(true, name + '!', name) == 'pizza-1!'");
    assert_ptr_equal(expr_type(compile_in(&env_guard, NULL, "name + arg.name")), &ty_string);
    compile_in(&env_guard, &ty_string, "owner.name.given + ' ' + owner.name.family");
    /* no scratch is used by ints */
    before = S.used;
    assert_int_equal(eval_int("1 + 2"), 3);
    assert_int_equal(S.used, before);
}

struct seen {
    char names[8][64];
    int n;
};

static void record_name(void *p, expr_scope scope, int alias, const char *path)
{
    static const char *const scopes[] = {"self", "arg", "old", "alias", "event", "item"};
    struct seen *s = p;
    assert_true(s->n < 8);
    snprintf(s->names[s->n++], sizeof s->names[0], "%s%d:%s", scopes[scope], alias, path);
}

static void test_expr_visit_names_reports_each_read(void **state)
{
    const expr *e = compile_in(&env_ensure, NULL,
                               "arg.amount >= pizza.price_cents and owner.status == active "
                               "and has(customer_name) and len(old.toppings) > 0");
    struct seen s = {0};
    expr_visit_names(e, record_name, &s);
    assert_int_equal(s.n, 5);
    assert_string_equal(s.names[0], "arg0:amount");
    assert_string_equal(s.names[1], "self0:pizza.price_cents");
    assert_string_equal(s.names[2], "alias0:status");
    assert_string_equal(s.names[3], "self0:customer_name");
    assert_string_equal(s.names[4], "old0:toppings");
}

static void test_expr_name_path_is_true_only_for_one_whole_name(void **state)
{
    expr_scope scope;
    int alias;
    const char *path;
    assert_true(expr_name_path(compile_in(&env_policy, NULL, "event.name"), &scope, &alias, &path));
    assert_int_equal(scope, SCOPE_EVENT);
    assert_string_equal(path, "name");
    assert_true(
        expr_name_path(compile_in(&env_ensure, NULL, "owner.status"), &scope, &alias, &path));
    assert_int_equal(scope, SCOPE_ALIAS);
    assert_string_equal(path, "status");
    assert_true(
        expr_name_path(compile_in(&env_guard, NULL, "pizza.price_cents"), &scope, &alias, &path));
    assert_int_equal(scope, SCOPE_SELF);
    assert_string_equal(path, "pizza.price_cents");
    assert_true(expr_name_path(compile_in(&env_ensure, NULL, "old.name"), &scope, &alias, &path));
    assert_int_equal(scope, SCOPE_OLD);
    assert_false(
        expr_name_path(compile_in(&env_guard, NULL, "arg.amount + 0"), &scope, &alias, &path));
    assert_false(expr_name_path(compile_in(&env_guard, NULL, "len(name)"), &scope, &alias, &path));
    assert_false(expr_name_path(compile_in(&env_guard, NULL, "'x'"), &scope, &alias, &path));
    assert_true(expr_name_path(compile_in(&env_item, NULL, "item.name"), &scope, &alias, &path));
    assert_int_equal(scope, SCOPE_ITEM);
    assert_string_equal(path, "name");
    assert_true(expr_name_path(compile_in(&env_int_item, NULL, "item"), &scope, &alias, &path));
    assert_int_equal(scope, SCOPE_ITEM);
    assert_string_equal(path, "");
}

/* ---- ensures that the effects make true ---- */

static const ty t_ints = {.kind = TY_LIST, .elem = &ty_int};
static field acct_fields[] = {{.name = "balance", .type = &t_cents},
                              {.name = "ledger", .type = &t_ints},
                              {.name = "notes", .type = &t_ints, .optional = true},
                              {.name = "status", .type = &t_status}};
static const ty t_acct = {.kind = TY_STRUCT, .name = "Acct", .fields = acct_fields, .nfields = 4};
static field move_fields[] = {{.name = "amount", .type = &t_cents},
                              {.name = "status", .type = &t_status}};
static const ty t_move = {.kind = TY_STRUCT, .name = "Move", .fields = move_fields, .nfields = 2};
static const char *menu_names[] = {"menu"};
static const ty *menu_types[] = {&t_pizza};

static void test_expr_ensure_implied_by_the_effect_only_when_it_says_the_same(void **state)
{
    (void)state;
    const expr_env effects = {.self = &t_acct,
                              .args = &t_move,
                              .alias_names = menu_names,
                              .alias_types = menu_types,
                              .nalias = 1};
    expr_env ensures = effects;
    ensures.allow_old = true;
    enum { BALANCE, LEDGER, NOTES, STATUS };
    static const struct {
        int field;
        const char *set; /* NULL: one item appended to the field */
        const char *ensure;
        bool implied;
    } cases[] = {
        {BALANCE, "balance - arg.amount", "balance == old.balance - arg.amount", true},
        {BALANCE, "balance - arg.amount", "old.balance - arg.amount == balance", true},
        {BALANCE, "balance - arg.amount", "balance == old.balance + arg.amount", false},
        {BALANCE, "balance - arg.amount", "balance == arg.amount - old.balance", false},
        {BALANCE, "balance - arg.amount", "balance == old.balance - arg.amount - 1", false},
        {BALANCE, "balance - arg.amount - 1", "balance == old.balance - arg.amount", false},
        {BALANCE, "balance - arg.amount", "balance == balance - arg.amount", false},
        {BALANCE, "balance - arg.amount", "balance >= old.balance - arg.amount", false},
        {BALANCE, "balance - arg.amount", "balance != old.balance - arg.amount", false},
        {BALANCE, "balance - arg.amount", "len(ledger) == len(old.ledger) + 1", false},
        {BALANCE, "arg.amount", "balance == arg.amount", true},
        {BALANCE, "arg.amount", "balance == old.balance", false},
        {BALANCE, "balance", "balance == old.balance", true},
        {BALANCE, "3 + 4", "balance == 7", true},
        {BALANCE, "7", "balance == 8", false},
        {BALANCE, "7", "balance == arg.amount", false},
        {BALANCE, "balance + len(ledger)", "balance == old.balance + len(old.ledger)", true},
        {BALANCE, "balance + len(ledger)", "balance == old.balance + len(ledger)", false},
        {BALANCE, "balance + len(ledger)", "balance == old.balance + max(len(old.ledger), 0)",
         false},
        {BALANCE, "arg.amount + menu.price_cents", "balance == arg.amount + menu.price_cents",
         true},
        {BALANCE, "arg.amount + menu.price_cents", "balance == arg.amount + old.balance", false},
        {BALANCE, "if(has(notes), arg.amount, 0)", "balance == if(has(old.notes), arg.amount, 0)",
         true},
        {BALANCE, "if(has(notes), arg.amount, 0)", "balance == if(has(notes), arg.amount, 0)",
         false},
        {BALANCE, "if(has(notes), arg.amount, 0)", "balance == if(has(old.notes), 0, arg.amount)",
         false},
        {STATUS, "arg.status", "status == arg.status", true},
        {STATUS, "arg.status", "balance == old.balance", false},
        {STATUS, "sold", "status == sold", true},
        {STATUS, "sold", "status == available", false},
        {LEDGER, NULL, "len(ledger) == len(old.ledger) + 1", true},
        {LEDGER, NULL, "len(old.ledger) + 1 == len(ledger)", true},
        {LEDGER, NULL, "len(ledger) == 1 + len(old.ledger)", true},
        {LEDGER, NULL, "len(ledger) == len(old.ledger) + 2", false},
        {LEDGER, NULL, "len(ledger) == len(old.ledger)", false},
        {LEDGER, NULL, "len(ledger) > len(old.ledger)", false},
        {LEDGER, NULL, "len(ledger) == len(ledger) + 1", false},
        {LEDGER, NULL, "len(ledger) == len(old.notes) + 1", false},
        {NOTES, NULL, "len(ledger) == len(old.ledger) + 1", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const expr *set = NULL;
        if (cases[i].set)
            set = compile_in(&effects, acct_fields[cases[i].field].type, cases[i].set);
        const expr *e = compile_in(&ensures, &ty_bool, cases[i].ensure);
        if (expr_ensure_implied(e, cases[i].field, set) != cases[i].implied)
            fail_msg("case %zu: after %s on field %d, `%s` should %sbe implied", i,
                     cases[i].set ? cases[i].set : "an append", cases[i].field, cases[i].ensure,
                     cases[i].implied ? "" : "not ");
    }
}

/* ---- sums read in place ---- */

/* expr_int_sum takes exactly the int sums of two leaves, and what
 * expr_sum_run gives is what expr_eval gives: the same value when it
 * says true, and a status that is not EXPR_OK (an unset field, an
 * overflow) when it says false; in every scope a leaf may read (self,
 * arg, old, an alias). */
static void test_expr_sum_read_in_place_agrees_with_evaluation(void **state)
{
    (void)state;
    expr_env env = {.self = &t_acct,
                    .args = &t_move,
                    .allow_old = true,
                    .alias_names = menu_names,
                    .alias_types = menu_types,
                    .nalias = 1};
    static value ledger[] = {INT(1), INT(2), INT(3)}, notes[] = {INT(7)};
    static value self[4], args[2], old[4], menu[2];
    self[0] = INT(500);
    self[1] = LIST(ledger);
    self[2] = NONE;
    self[3] = ENUM(0);
    args[0] = INT(200);
    args[1] = ENUM(1);
    old[0] = INT(INT64_MAX);
    old[1] = (value){.kind = VAL_LIST};
    old[2] = LIST(notes);
    old[3] = ENUM(0);
    menu[0] = INT(1200);
    menu[1] = ENUM(1);
    value self_v = STRUCT(self), args_v = STRUCT(args), old_v2 = STRUCT(old), menu_v = STRUCT(menu);
    const value *menus[] = {&menu_v};
    expr_ctx c = {
        .self = &self_v, .args = &args_v, .old = &old_v2, .aliases = menus, .scratch = &S};
    static const struct {
        const char *text;
        bool sum;
    } cases[] = {
        {"balance + arg.amount", true},
        {"balance - arg.amount", true},
        {"len(ledger) + 1", true},
        {"1 + len(ledger)", true},
        {"len(notes) + 1", true},
        {"len(old.notes) + 1", true},
        {"old.balance + 1", true},
        {"old.balance - arg.amount", true},
        {"0 - old.balance", true},
        {"-1 - old.balance", true},
        {"menu.price_cents + balance", true},
        {"len(old.ledger) - menu.price_cents", true},
        {"balance * 2", false},
        {"-balance", false},
        {"balance + arg.amount + 1", false},
        {"3 + 4", false},
        {"balance", false},
        {"max(balance, 1) + 1", false},
        {"balance / 2", false},
        {"balance % 7", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const expr *e = compile_in(&env, &ty_int, cases[i].text);
        expr_sum sum;
        bool is = expr_int_sum(e, &sum);
        if (is != cases[i].sum)
            fail_msg("`%s` should %sbe a sum", cases[i].text, cases[i].sum ? "" : "not ");
        if (!is)
            continue;
        int64_t got = 0;
        value want = NONE;
        bool ok = expr_sum_run(&sum, &c, &got);
        expr_status st = expr_eval(e, &c, &want);
        if (ok != (st == EXPR_OK) || (ok && (want.kind != VAL_INT || want.u.i != got)))
            fail_msg("`%s`: in place %s %" PRId64 ", evaluated %s %" PRId64, cases[i].text,
                     ok ? "ok" : "not ok", got, expr_status_text(st), want.u.i);
    }
}

/* ---- errors ---- */

enum { IN_GUARD, IN_ENSURE, IN_POLICY, IN_FOR_EACH, IN_FOR_EACH_INT };

static const expr_env *env_of(int which)
{
    static const expr_env *const envs[] = {&env_guard, &env_ensure, &env_policy, &env_item,
                                           &env_int_item};
    return envs[which];
}

static const struct bad {
    const char *text;
    int env;
    const ty *expected;
    const char *message;
    int col;
} bad[] = {
    {"statu == available", IN_GUARD, NULL, "unknown name 'statu' (did you mean 'status'?)", 1},
    {"zzz", IN_GUARD, NULL, "unknown name 'zzz'", 1},
    {"ownr.status == active", IN_GUARD, NULL, "unknown name 'ownr' (did you mean 'owner'?)", 1},
    {"status == availble", IN_GUARD, NULL, "unknown name 'availble' (did you mean 'available'?)",
     11},
    {"status", IN_POLICY, NULL, "unknown name 'status'", 1},
    {"pizza.prize_cents > 0", IN_GUARD, NULL,
     "'Pizza' has no field 'prize_cents' (did you mean 'price_cents'?)", 7},
    {"arg.amont > 0", IN_GUARD, NULL, "'Purchase' has no field 'amont' (did you mean 'amount'?)",
     5},
    {"owner.statuss == active", IN_GUARD, NULL,
     "'Customer' has no field 'statuss' (did you mean 'status'?)", 7},
    {"event.topping.amont", IN_POLICY, NULL,
     "'Topping' has no field 'amont' (did you mean 'amount'?)", 15},
    {"customer_name.first", IN_GUARD, NULL, "'string' has no field 'first'", 15},
    {"arg.amount.x", IN_GUARD, NULL, "'Cents' has no field 'x'", 12},
    {"name + 1", IN_GUARD, NULL, "'+' needs two ints or two strings, got string and int", 6},
    {"1 + true", IN_GUARD, NULL, "'+' needs two ints or two strings, got int and bool", 3},
    {"name + 'x' + 1", IN_GUARD, NULL, "'+' needs two ints or two strings, got string and int", 12},
    {"'a' - 'b'", IN_GUARD, NULL, "'-' needs int operands, got string and string", 5},
    {"pizza.size == 1", IN_GUARD, NULL, "cannot compare Size with int", 12},
    {"name < 1", IN_GUARD, NULL, "cannot compare string with int", 6},
    {"'héllo' == 1", IN_GUARD, NULL, "cannot compare string with int", 9},
    {"status == pizza.size", IN_GUARD, NULL, "cannot compare enum [available, sold] with Size", 8},
    {"pizza < pizza", IN_GUARD, NULL, "'<' needs int or string operands, got Pizza and Pizza", 7},
    {"not 1", IN_GUARD, NULL, "'not' needs a bool operand, got int", 1},
    {"-name", IN_GUARD, NULL, "'-' needs an int operand, got string", 1},
    {"true and 1", IN_GUARD, NULL, "'and' needs bool operands, got bool and int", 6},
    {"1 or false", IN_GUARD, NULL, "'or' needs bool operands, got int and bool", 3},
    {"len(toppings)", IN_GUARD, &ty_bool, "expected bool, got int", 1},
    {"status", IN_GUARD, &t_size, "expected Size, got enum [available, sold]", 1},
    {"  1 + 1", IN_GUARD, &ty_string, "expected string, got int", 3},
    {"old.status == sold", IN_GUARD, NULL, "old.status is only allowed in ensure", 1},
    {"len(toppings) == len(old.toppings) + 1", IN_GUARD, NULL,
     "old.toppings is only allowed in ensure", 22},
    {"event.topping.amount > 0", IN_GUARD, NULL, "event.topping.amount is only allowed in policies",
     1},
    {"arg.amount > 0", IN_POLICY, NULL, "arg.amount is not available here", 1},
    {"item.name", IN_POLICY, NULL, "item.name is only allowed in a for_each policy's args", 1},
    {"len(item) > 0", IN_GUARD, NULL, "item is only allowed in a for_each policy's args", 5},
    {"item.nam", IN_FOR_EACH, NULL, "'Topping' has no field 'nam' (did you mean 'name'?)", 6},
    {"item.x", IN_FOR_EACH_INT, NULL, "'int' has no field 'x'", 6},
    {"item", IN_FOR_EACH, &ty_int, "expected int, got Topping", 1},
    {"has(item)", IN_FOR_EACH, NULL, "has() needs an optional field; 'item' is not optional", 5},
    {"itme.name", IN_FOR_EACH, NULL, "unknown name 'itme' (did you mean 'item'?)", 1},
    {"arg == 1", IN_GUARD, NULL, "'arg' needs a field, as in arg.x", 1},
    {"owner", IN_GUARD, NULL, "'owner' needs a field, as in owner.x", 1},
    {"sold", IN_GUARD, NULL, "'sold' is an enum value, but no enum is expected here", 1},
    {"sold == available", IN_GUARD, NULL, "'sold' is an enum value, but no enum is expected here",
     1},
    {"status < sold", IN_GUARD, NULL, "'sold' is an enum value, but no enum is expected here", 10},
    {"status == large", IN_GUARD, NULL, "'large' is not a value of enum [available, sold]", 11},
    {"small", IN_GUARD, &t_status, "'small' is not a value of enum [available, sold]", 1},
    {"has(name)", IN_GUARD, NULL, "has() needs an optional field; 'name' is not optional", 5},
    {"has(arg.amount)", IN_GUARD, NULL,
     "has() needs an optional field; 'arg.amount' is not optional", 5},
    {"has(1)", IN_GUARD, NULL, "has() needs the name of an optional field", 5},
    {"len(status) > 0", IN_GUARD, NULL, "len() needs a list or string, got enum [available, sold]",
     5},
    {"lenn(toppings) > 0", IN_GUARD, NULL,
     "unknown function 'lenn' (did you mean 'len'?); the functions are has, len, if, min, max, abs",
     1},
    {"size(toppings) > 0", IN_GUARD, NULL,
     "unknown function 'size'; the functions are has, len, if, min, max, abs", 1},
    {"pizza.size(1)", IN_GUARD, NULL,
     "unknown function 'pizza.size'; the functions are has, len, if, min, max, abs", 1},
    {"1 + first(toppings)", IN_GUARD, NULL,
     "unknown function 'first'; the functions are has, len, if, min, max, abs", 5},
    {"if(1, 2, 3)", IN_GUARD, NULL, "if() needs a bool condition, got int", 4},
    {"if(true, 1, 'x')", IN_GUARD, NULL, "if() needs branches of one type, got int and string", 13},
    {"if(true, pizza, status)", IN_GUARD, NULL,
     "if() needs branches of one type, got Pizza and enum [available, sold]", 17},
    {"if(true, sold, available)", IN_GUARD, NULL,
     "'sold' is an enum value, but no enum is expected here", 10},
    {"if(true, 1, 2)", IN_GUARD, &ty_bool, "expected bool, got int", 1},
    {"if(true, 1)", IN_GUARD, NULL, "if() takes three arguments, got 2", 1},
    {"if(true, 1, 2, 3)", IN_GUARD, NULL, "if() takes three arguments, got 4", 1},
    {"if(true, 1, 1 / 'x')", IN_GUARD, NULL, "'/' needs int operands, got int and string", 15},
    {"min(name, 1)", IN_GUARD, NULL, "min() needs int arguments, got string", 5},
    {"max(1, true)", IN_GUARD, NULL, "max() needs int arguments, got bool", 8},
    {"abs('x')", IN_GUARD, NULL, "abs() needs an int argument, got string", 5},
    {"min(1)", IN_GUARD, NULL, "min() takes two arguments, got 1", 1},
    {"abs(1, 2)", IN_GUARD, NULL, "abs() takes one argument, got 2", 1},
    {"if", IN_GUARD, NULL, "unknown name 'if'", 1},
    {"len(toppings, name)", IN_GUARD, NULL, "len() takes one argument, got 2", 1},
    {"len()", IN_GUARD, NULL, "len() takes one argument, got 0", 1},
    {"len(toppings) <", IN_GUARD, NULL, "unexpected end of expression", 16},
    {"status == available and", IN_GUARD, NULL, "unexpected end of expression", 24},
    {"not", IN_GUARD, NULL, "unexpected end of expression", 4},
    {"arg.", IN_GUARD, NULL, "unexpected end of expression", 5},
    {"(1 + 2", IN_GUARD, NULL, "expected ')'", 7},
    {"len(toppings name)", IN_GUARD, NULL, "expected ')'", 14},
    {"1 + * 2", IN_GUARD, NULL, "unexpected '*' in expression", 5},
    {")", IN_GUARD, NULL, "unexpected ')' in expression", 1},
    {"1 2", IN_GUARD, NULL, "unexpected '2' in expression", 3},
    {"1 + and", IN_GUARD, NULL, "unexpected 'and' in expression", 5},
    {"name 'x'", IN_GUARD, NULL, "unexpected string literal in expression", 6},
    {"name = 'x'", IN_GUARD, NULL, "unexpected '=' in expression (did you mean '=='?)", 6},
    {"name == \"x\"", IN_GUARD, NULL, "unexpected '\"' in expression (strings use single quotes)",
     9},
    {"name == 'a' && true", IN_GUARD, NULL, "unexpected '&' in expression (did you mean 'and'?)",
     13},
    {"name + ü", IN_GUARD, NULL, "unexpected 'ü' in expression", 8},
    {"1 +\t\x01", IN_GUARD, NULL, "unexpected character 0x01 in expression", 5},
    {"name == 'abc", IN_GUARD, NULL, "unterminated string literal", 9},
    {"'it''", IN_GUARD, NULL, "unterminated string literal", 1},
    {"", IN_GUARD, NULL, "empty expression", 1},
    {"   ", IN_GUARD, NULL, "empty expression", 1},
    {"9223372036854775808 > 0", IN_GUARD, NULL,
     "integer literal '9223372036854775808' is out of range", 1},
    {"-9223372036854775808", IN_GUARD, NULL,
     "integer literal '9223372036854775808' is out of range", 2},
    {"1 < 2 < 3", IN_GUARD, NULL, "comparison operators cannot be chained; use 'and'", 7},
    {"status == sold != true", IN_GUARD, NULL, "comparison operators cannot be chained; use 'and'",
     16},
};

/* Whether text fails to compile with exactly message at col (line 3 of t.yaml). */
static bool fails_with(const expr_env *env, const ty *expected, const char *text,
                       const char *message, int col)
{
    const expr *e = NULL;
    size_t before = D.count;
    int rc = expr_compile_text(&A, text, "t.yaml", 3, 1, env, expected, &e, &D);
    if (rc != -1 || D.count != before + 1 || e) {
        print_error("'%s' compiled without the error '%s'\n", text, message);
        return false;
    }
    const diag *g = &D.items[before];
    bool ok = strcmp(g->message, message) == 0 && g->col == col && g->line == 3 &&
              g->severity == DIAG_ERROR && strcmp(g->file, "t.yaml") == 0;
    if (!ok)
        print_error("'%s':\n  got      %d: %s\n  expected %d: %s\n", text, g->col, g->message, col,
                    message);
    return ok;
}

static void expect_error(const expr_env *env, const ty *expected, const char *text,
                         const char *message, int col)
{
    assert_true(fails_with(env, expected, text, message, col));
}

static void test_expr_bad_expressions_report_message_and_column(void **state)
{
    size_t failed = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        failed += !fails_with(env_of(bad[i].env), bad[i].expected, bad[i].text, bad[i].message,
                              bad[i].col);
    assert_int_equal(failed, 0);
}

static char *repeat(const char *head, const char *unit, int n, const char *mid, const char *tail)
{
    size_t len = strlen(head) + strlen(unit) * (size_t)n + strlen(mid) + strlen(tail) * (size_t)n;
    char *s = arena_alloc(&A, len + 1);
    strcpy(s, head);
    for (int i = 0; i < n; i++)
        strcat(s, unit);
    strcat(s, mid);
    for (int i = 0; i < n; i++)
        strcat(s, tail);
    return s;
}

static void test_expr_nesting_is_bounded(void **state)
{
    const char *deep = "expression nests too deeply (more than 64 levels)";
    compile_in(&env_guard, NULL, repeat("", "(", 64, "1", ")"));
    expect_error(&env_guard, NULL, repeat("", "(", 65, "1", ")"), deep, 65);
    expect_error(&env_guard, NULL, repeat("", "(", 4000, "1", ""), deep, 65);
    compile_in(&env_guard, NULL, repeat("", "not ", 64, "true", ""));
    expect_error(&env_guard, NULL, repeat("", "not ", 65, "true", ""), deep, 257);
    expect_error(&env_guard, NULL, repeat("", "-", 2000, "1", ""), deep, 65);
    expect_error(&env_guard, NULL, repeat("", "len(", 65, "name", ")"), deep, 257);
    /* a flat chain is a deep tree too */
    compile_in(&env_guard, NULL, repeat("1", " + 1", 64, "", ""));
    expect_error(&env_guard, NULL, repeat("1", " + 1", 65, "", ""), deep, 259);
}

static void test_expr_length_is_bounded(void **state)
{
    compile_in(&env_guard, NULL, repeat("1", " ", 4095, "", ""));
    expect_error(&env_guard, NULL, repeat("1", " ", 4096, "", ""),
                 "expression is too long (4097 bytes, at most 4096)", 1);
}

static void test_expr_compile_node_columns(void **state)
{
    node n = {.kind = NODE_STRING,
              .file = "spec.yaml",
              .line = 12,
              .col = 20,
              .quoted = true,
              .text = "statu == 1",
              .len = 10};
    const expr *e = NULL;
    assert_int_equal(expr_compile(&A, &n, &env_guard, &ty_bool, &e, &D), -1);
    assert_string_equal(D.items[0].file, "spec.yaml");
    assert_int_equal(D.items[0].line, 12);
    assert_int_equal(D.items[0].col, 21);

    n.quoted = false;
    n.text = "'héllo' == 1";
    n.len = strlen(n.text);
    assert_int_equal(expr_compile(&A, &n, &env_guard, &ty_bool, &e, &D), -1);
    assert_string_equal(D.items[1].message, "cannot compare string with int");
    assert_int_equal(D.items[1].col, 28);

    node m = {.kind = NODE_MAP, .file = "spec.yaml", .line = 4, .col = 7, .text = ""};
    assert_int_equal(expr_compile(&A, &m, &env_guard, &ty_bool, &e, &D), -1);
    assert_string_equal(D.items[2].message, "expected an expression, got mapping");
    assert_int_equal(D.items[2].col, 7);

    /* plain scalars that YAML resolved as bool or int still hold their text */
    node b = {.kind = NODE_BOOL, .text = "true", .len = 4, .v.b = true};
    assert_int_equal(expr_compile(&A, &b, &env_guard, &ty_bool, &e, &D), 0);
    node i = {.kind = NODE_INT, .text = "0", .len = 1};
    assert_int_equal(expr_compile(&A, &i, &env_guard, &t_cents, &e, &D), 0);
    /* a NUL inside a quoted scalar is a character the language does not have */
    node z = {.kind = NODE_STRING, .quoted = true, .col = 1, .text = "1\0", .len = 2};
    assert_int_equal(expr_compile(&A, &z, &env_guard, NULL, &e, &D), -1);
    assert_string_equal(D.items[3].message, "unexpected character 0x00 in expression");
    assert_int_equal(D.items[3].col, 3);
    assert_int_equal(D.count, 4);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_expr_render_shows_precedence),
        T(test_expr_render_truncates_safely),
        T(test_expr_type_is_static),
        T(test_expr_arithmetic_truncates_like_c),
        T(test_expr_overflow_at_int64_limits),
        T(test_expr_division_by_zero_refuses),
        T(test_expr_comparisons_on_ints_and_strings),
        T(test_expr_logic_short_circuits),
        T(test_expr_len_counts_items_and_code_points),
        T(test_expr_has_tests_optional_fields),
        T(test_expr_compiled_forms_read_each_state),
        T(test_expr_enum_values_take_the_expected_enum),
        T(test_expr_equality_is_deep),
        T(test_expr_strings_point_into_context),
        T(test_expr_event_payload_in_policy),
        T(test_expr_item_is_the_for_each_element),
        T(test_expr_item_elsewhere_keeps_its_other_meanings),
        T(test_expr_if_evaluates_only_the_chosen_branch),
        T(test_expr_min_max_abs),
        T(test_expr_string_plus_concatenates_in_scratch),
        T(test_expr_visit_names_reports_each_read),
        T(test_expr_name_path_is_true_only_for_one_whole_name),
        T(test_expr_ensure_implied_by_the_effect_only_when_it_says_the_same),
        T(test_expr_sum_read_in_place_agrees_with_evaluation),
        T(test_expr_bad_expressions_report_message_and_column),
        T(test_expr_nesting_is_bounded),
        T(test_expr_length_is_bounded),
        T(test_expr_compile_node_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
