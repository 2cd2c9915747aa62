// Tools: an MCP connection over streamable HTTP. Each JSON-RPC message is a
// POST to the server's URL through the SSRF guard (every request checked,
// the connection pinned to the checked address); the answer comes back as
// JSON or as a server-sent-event stream, matched by id. The session id the
// server hands out at initialize is sent with every later request.
#pragma once

#include <map>
#include <string>

#include "actors/tools/mcp_transport.hpp"
#include "actors/tools/ssrf.hpp"
#include "config/settings.hpp"

namespace nb {

class mcp_http : public mcp_transport {
public:
  mcp_http(const mcp_server_settings& cfg, ssrf_policy policy);

  std::string call(const std::string& method, const nlohmann::json& params,
                   std::chrono::steady_clock::time_point deadline,
                   nlohmann::json& result) override;
  bool notify(const std::string& method,
              const nlohmann::json& params) override;
  bool alive() override {
    return alive_;
  }
  void stop() override {
    alive_ = false;
  }

private:
  /// POSTs `msg`; fills `reply` with the message whose id is `id` (if any).
  std::string post(const nlohmann::json& msg, const nlohmann::json& id,
                   std::chrono::steady_clock::time_point deadline,
                   nlohmann::json& reply);

  std::string url_;
  std::map<std::string, std::string> headers_;
  ssrf_policy policy_;
  std::string session_id_;
  std::string protocol_;
  int64_t next_id_ = 1;
  bool alive_ = true;
};

} // namespace nb
