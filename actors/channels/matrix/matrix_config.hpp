// channels.matrix: the keys the Matrix adapter reads.
#pragma once

#include <cstdint>
#include <string>

namespace nb::matrix {

struct matrix_config {
  std::string name = "matrix";
  std::string homeserver = "https://matrix.org"; ///< also accepted as apiBase
  std::string user_id;      ///< @bot:example.org
  std::string access_token; ///< or `password` to log in
  std::string password;
  std::string device_id;
  int32_t sync_timeout_ms = 30000;
  bool auto_join = true; ///< accept room invites
};

/// Parses channels.<name>; `error` names every bad key ("" when fine).
matrix_config parse_matrix_config(const std::string& name,
                                  const std::string& raw_json,
                                  std::string& error);

} // namespace nb::matrix
