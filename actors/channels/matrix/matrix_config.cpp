#include "actors/channels/matrix/matrix_config.hpp"

#include "actors/channels/kit/config_reader.hpp"

namespace nb::matrix {

matrix_config parse_matrix_config(const std::string& name,
                                  const std::string& raw_json,
                                  std::string& error) {
  chan::config_reader r{name, raw_json};
  matrix_config c;
  c.name = name;
  c.homeserver = r.str("apiBase", r.str("homeserver", c.homeserver));
  while (!c.homeserver.empty() && c.homeserver.back() == '/')
    c.homeserver.pop_back();
  c.user_id = r.str("userId");
  c.access_token = r.str("accessToken");
  c.password = r.str("password");
  c.device_id = r.str("deviceId");
  c.sync_timeout_ms = static_cast<int32_t>(
    r.integer("syncTimeoutMs", c.sync_timeout_ms, 0, 120000));
  c.auto_join = r.boolean("autoJoin", c.auto_join);
  if (c.access_token.empty() && c.password.empty())
    r.fail("accessToken", "missing (or give password and userId)");
  if (c.access_token.empty() && !c.password.empty() && c.user_id.empty())
    r.fail("userId", "missing (needed to log in with a password)");
  error = r.error();
  return c;
}

} // namespace nb::matrix
