// The libpq functions the PostgreSQL store calls, from libpq.so.5 opened
// when the first connection is made (see actors/common/shared_library): a
// gateway on the file store never maps libpq and its Kerberos and LDAP.
#pragma once

#include <string>

#include <libpq-fe.h>

namespace nb {

struct pq_library {
  decltype(&::PQconnectdb) connectdb;
  decltype(&::PQstatus) status;
  decltype(&::PQreset) reset;
  decltype(&::PQfinish) finish;
  decltype(&::PQerrorMessage) error_message;
  decltype(&::PQsetNoticeProcessor) set_notice_processor;
  decltype(&::PQexecParams) exec_params;
  decltype(&::PQresultStatus) result_status;
  decltype(&::PQresultErrorMessage) result_error_message;
  decltype(&::PQclear) clear;
  decltype(&::PQntuples) ntuples;
  decltype(&::PQnfields) nfields;
  decltype(&::PQgetisnull) getisnull;
  decltype(&::PQgetvalue) getvalue;
  decltype(&::PQgetlength) getlength;
};

/// libpq, opened once per process on the first call; null with `error`
/// naming the package when it is missing. Opens a file on the first call:
/// only from the store's worker threads.
const pq_library* load_pq(std::string& error);

} // namespace nb
