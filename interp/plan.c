/* plan.c: questions about a compiled plan that the runner and the targets
 * ask (what it needs of a target); it depends on nothing but plan.h, so that
 * targets/ need not reach into the compiler for them. */
#include "plan.h"

bool plan_has_queries(const plan *p)
{
    for (size_t i = 0; i < p->ncommands; i++)
        if (p->commands[i]->query)
            return true;
    return false;
}

bool plan_scans(const plan *p, const aggregate *agg)
{
    for (size_t i = 0; i < p->ncommands; i++)
        if (p->commands[i]->scan && (!agg || p->commands[i]->agg == agg))
            return true;
    return false;
}
