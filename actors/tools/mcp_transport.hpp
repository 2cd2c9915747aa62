// Tools: what an MCP connection offers the server actor, whatever carries
// it (a child's stdin/stdout, streamable HTTP, legacy SSE). Blocking calls: used from
// a detached actor only.
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

namespace nb {

class mcp_transport {
public:
  virtual ~mcp_transport() = default;

  /// Sends a request and waits for its reply until `deadline`; "" with
  /// `result` set, or the error text.
  virtual std::string call(const std::string& method,
                           const nlohmann::json& params,
                           std::chrono::steady_clock::time_point deadline,
                           nlohmann::json& result)
    = 0;

  /// Sends a notification (no reply expected).
  virtual bool notify(const std::string& method, const nlohmann::json& params)
    = 0;

  /// Whether the connection can still be used.
  virtual bool alive() = 0;

  /// Closes the connection (kills a child process).
  virtual void stop() = 0;
};

/// A JSON-RPC error object as the tool's error text: "MCP error <code>: <message>".
inline std::string mcp_error_text(const nlohmann::json& e) {
  return "MCP error "
         + (e.contains("code") ? e["code"].dump() : std::string{"?"}) + ": "
         + (e.contains("message") && e["message"].is_string()
              ? e["message"].get<std::string>()
              : e.dump());
}

} // namespace nb
