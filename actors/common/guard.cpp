#include "actors/common/guard.hpp"

namespace nb {

caf::error guarded_failure(const char* kind, std::exception_ptr e) {
  std::string what = "unknown exception";
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    what = ex.what();
  } catch (...) {
    // nop: what stays "unknown exception"
  }
  log::get(kind)->error("a handler failed and was contained: {}", what);
  return caf::make_error(errc::turn_failed, std::string{kind} + ": internal error: " + what);
}

} // namespace nb
