/* sql_scenarios.h: the scenarios that once ran on the SQL stores alone are
 * rows of runtime_scenarios.h's table now, run on every store; this name
 * stays for test_sqlgen.c, which compiles their domains (lending_spec,
 * names_spec). Include after cmocka.h. */
#ifndef BENCH_TESTS_SQL_SCENARIOS_H
#define BENCH_TESTS_SQL_SCENARIOS_H

#include "runtime_scenarios.h"

#endif
