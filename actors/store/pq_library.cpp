#include "actors/store/pq_library.hpp"

#include "actors/common/shared_library.hpp"

namespace nb {

namespace {

constexpr library_spec libpq_spec{"libpq.so.5", "libpq5",
                                  "sessionStore \"postgres\""};

} // namespace

const pq_library* load_pq(std::string& error) {
  static const auto pq = open_functions<pq_library>(
    libpq_spec, [](pq_library& f, auto bind) -> std::string {
      bind("PQconnectdb", f.connectdb) && bind("PQstatus", f.status)
        && bind("PQreset", f.reset) && bind("PQfinish", f.finish)
        && bind("PQerrorMessage", f.error_message)
        && bind("PQsetNoticeProcessor", f.set_notice_processor)
        && bind("PQexecParams", f.exec_params)
        && bind("PQresultStatus", f.result_status)
        && bind("PQresultErrorMessage", f.result_error_message)
        && bind("PQclear", f.clear) && bind("PQntuples", f.ntuples)
        && bind("PQnfields", f.nfields) && bind("PQgetisnull", f.getisnull)
        && bind("PQgetvalue", f.getvalue) && bind("PQgetlength", f.getlength);
      return {};
    });
  return pq.get(error);
}

} // namespace nb
