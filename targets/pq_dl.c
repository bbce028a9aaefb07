/* pq_dl.c: dlopen("libpq.so.5") and the function table of pq_dl.h. */
#include "pq_dl.h"

#include <dlfcn.h>
#include <stdio.h>

static pq_api api;
static int state; /* 0: not tried, 1: loaded, -1: failed */
static char failure[512];

/* Every entry of pq_api with the libpq symbol it comes from. */
#define PQ_FUNCTIONS(X)                                                                            \
    X(connectdbParams, PQconnectdbParams)                                                          \
    X(pingParams, PQpingParams)                                                                    \
    X(status, PQstatus)                                                                            \
    X(errorMessage, PQerrorMessage)                                                                \
    X(finish, PQfinish)                                                                            \
    X(serverVersion, PQserverVersion)                                                              \
    X(parameterStatus, PQparameterStatus)                                                          \
    X(libVersion, PQlibVersion)                                                                    \
    X(setNoticeProcessor, PQsetNoticeProcessor)                                                    \
    X(exec, PQexec)                                                                                \
    X(execParams, PQexecParams)                                                                    \
    X(prepare, PQprepare)                                                                          \
    X(sendQueryPrepared, PQsendQueryPrepared)                                                      \
    X(sendPrepare, PQsendPrepare)                                                                  \
    X(getResult, PQgetResult)                                                                      \
    X(enterPipelineMode, PQenterPipelineMode)                                                      \
    X(exitPipelineMode, PQexitPipelineMode)                                                        \
    X(pipelineSync, PQpipelineSync)                                                                \
    X(sendFlushRequest, PQsendFlushRequest)                                                        \
    X(flush, PQflush)                                                                              \
    X(consumeInput, PQconsumeInput)                                                                \
    X(pipelineStatus, PQpipelineStatus)                                                            \
    X(transactionStatus, PQtransactionStatus)                                                      \
    X(resultStatus, PQresultStatus)                                                                \
    X(resultErrorMessage, PQresultErrorMessage)                                                    \
    X(resultErrorField, PQresultErrorField)                                                        \
    X(ntuples, PQntuples)                                                                          \
    X(nfields, PQnfields)                                                                          \
    X(getvalue, PQgetvalue)                                                                        \
    X(getlength, PQgetlength)                                                                      \
    X(getisnull, PQgetisnull)                                                                      \
    X(cmdTuples, PQcmdTuples)                                                                      \
    X(clear, PQclear)

static int load(void)
{
    void *lib = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(failure, sizeof failure,
                 "libpq cannot be loaded (%s); install the libpq5 package (libpq 14 or later)",
                 e ? e : "dlopen failed");
        return -1;
    }
    /* dlsym returns void *; POSIX guarantees it converts to a function pointer */
#define PQ_RESOLVE(member, symbol)                                                                 \
    *(void **)&api.member = dlsym(lib, #symbol);                                                   \
    if (!api.member) {                                                                             \
        snprintf(failure, sizeof failure,                                                          \
                 "the libpq found has no " #symbol " (pipeline mode needs libpq 14 or later); "    \
                 "install a newer libpq5 package");                                                \
        return -1;                                                                                 \
    }
    PQ_FUNCTIONS(PQ_RESOLVE)
#undef PQ_RESOLVE
    return 0;
}

const pq_api *pq_load(char *why, size_t size)
{
    if (state == 0)
        state = load() == 0 ? 1 : -1;
    if (state > 0)
        return &api;
    snprintf(why, size, "%s", failure);
    return NULL;
}
