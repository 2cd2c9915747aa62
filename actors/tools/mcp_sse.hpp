// Tools: an MCP connection over the legacy HTTP+SSE transport (protocol
// 2024-11-05). A GET opens a server-sent-event stream; its first `endpoint`
// event names the URL to POST JSON-RPC messages to (same origin only); the
// replies come back as `message` events on the stream, matched by id. Every
// request passes the SSRF guard. Blocking: used from a detached actor only.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "actors/tools/mcp_transport.hpp"
#include "actors/tools/ssrf.hpp"
#include "config/settings.hpp"

namespace nb {

class mcp_sse : public mcp_transport {
public:
  mcp_sse(const mcp_server_settings& cfg, ssrf_policy policy);
  ~mcp_sse() override;

  /// Opens the event stream and waits for the endpoint event until
  /// `deadline`. "" or why not.
  std::string start(std::chrono::steady_clock::time_point deadline);

  std::string call(const std::string& method, const nlohmann::json& params,
                   std::chrono::steady_clock::time_point deadline,
                   nlohmann::json& result) override;
  bool notify(const std::string& method,
              const nlohmann::json& params) override;
  bool alive() override;
  void stop() override;

  /// What the reader thread and the callers share.
  struct stream_state;

private:
  std::string post(const nlohmann::json& msg,
                   std::chrono::steady_clock::time_point deadline);

  std::string url_;
  std::map<std::string, std::string> headers_;
  ssrf_policy policy_;
  std::shared_ptr<stream_state> stream_;
  std::thread reader_;
  int64_t next_id_ = 1;
};

} // namespace nb
