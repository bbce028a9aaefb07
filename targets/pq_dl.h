/* pq_dl.h: libpq, loaded when the postgres target first needs it.
 *
 * Linking libpq into bench would load it (and the TLS, Kerberos and LDAP
 * libraries it pulls in) at the start of every bench command, which costs
 * several milliseconds that `bench lint` cannot afford. So nothing calls
 * libpq directly: pq_load() dlopens libpq.so.5 and fills the table below,
 * and the postgres target calls through it. The types come from libpq-fe.h;
 * no PQ* symbol is referenced by the build. */
#ifndef BENCH_PQ_DL_H
#define BENCH_PQ_DL_H

#include <stddef.h>

#include <libpq-fe.h>

typedef struct pq_api {
    PGconn *(*connectdbParams)(const char *const *keywords, const char *const *values,
                               int expand_dbname);
    PGPing (*pingParams)(const char *const *keywords, const char *const *values, int expand_dbname);
    ConnStatusType (*status)(const PGconn *conn);
    char *(*errorMessage)(const PGconn *conn);
    void (*finish)(PGconn *conn);
    int (*serverVersion)(const PGconn *conn);
    const char *(*parameterStatus)(const PGconn *conn, const char *name);
    int (*libVersion)(void);
    PQnoticeProcessor (*setNoticeProcessor)(PGconn *conn, PQnoticeProcessor proc, void *arg);
    PGresult *(*exec)(PGconn *conn, const char *query);
    PGresult *(*execParams)(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                            const char *const *paramValues, const int *paramLengths,
                            const int *paramFormats, int resultFormat);
    PGresult *(*prepare)(PGconn *conn, const char *stmtName, const char *query, int nParams,
                         const Oid *paramTypes);
    int (*sendQueryPrepared)(PGconn *conn, const char *stmtName, int nParams,
                             const char *const *paramValues, const int *paramLengths,
                             const int *paramFormats, int resultFormat);
    int (*sendPrepare)(PGconn *conn, const char *stmtName, const char *query, int nParams,
                       const Oid *paramTypes);
    PGresult *(*getResult)(PGconn *conn);
    int (*enterPipelineMode)(PGconn *conn);
    int (*exitPipelineMode)(PGconn *conn);
    int (*pipelineSync)(PGconn *conn);
    int (*sendFlushRequest)(PGconn *conn);
    int (*flush)(PGconn *conn);
    int (*consumeInput)(PGconn *conn);
    PGpipelineStatus (*pipelineStatus)(const PGconn *conn);
    PGTransactionStatusType (*transactionStatus)(const PGconn *conn);
    ExecStatusType (*resultStatus)(const PGresult *res);
    char *(*resultErrorMessage)(const PGresult *res);
    char *(*resultErrorField)(const PGresult *res, int fieldcode);
    int (*ntuples)(const PGresult *res);
    int (*nfields)(const PGresult *res);
    char *(*getvalue)(const PGresult *res, int tup_num, int field_num);
    int (*getlength)(const PGresult *res, int tup_num, int field_num);
    int (*getisnull)(const PGresult *res, int tup_num, int field_num);
    char *(*cmdTuples)(PGresult *res);
    void (*clear)(PGresult *res);
} pq_api;

/* The table, loading libpq on the first call (thread-unsafe, like the rest
 * of the runner). Returns NULL when libpq cannot be loaded, with one
 * sentence in why saying what failed and what to install. The table lives
 * until the process ends. */
const pq_api *pq_load(char *why, size_t size);

#endif
