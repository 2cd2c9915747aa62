// Tools: an MCP connection over stdio. The server is a child process
// speaking newline-delimited JSON-RPC 2.0 on stdin/stdout. Blocking: use it
// from a detached actor only. Notifications and server requests that
// arrive while waiting are handled; replies are matched by id, so
// out-of-order answers are fine.
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>
#include <sys/types.h>

#include "actors/tools/mcp_transport.hpp"
#include "config/settings.hpp"

namespace nb {

/// One running server process.
class mcp_stdio : public mcp_transport {
public:
  mcp_stdio() = default;
  mcp_stdio(const mcp_stdio&) = delete;
  mcp_stdio& operator=(const mcp_stdio&) = delete;
  ~mcp_stdio() override;

  /// Starts the server (command, args, env on top of a minimal environment,
  /// cwd). Returns "" or the reason it could not start.
  std::string start(const mcp_server_settings& cfg);

  /// Sends a request and waits for its reply until `deadline`. On success
  /// `result` holds the reply's "result"; otherwise returns the error text
  /// (a JSON-RPC error, the server exiting, the deadline).
  std::string call(const std::string& method, const nlohmann::json& params,
                   std::chrono::steady_clock::time_point deadline,
                   nlohmann::json& result) override;

  /// Sends a notification (no reply).
  bool notify(const std::string& method,
              const nlohmann::json& params) override;

  /// Whether the process is running and the pipes are open.
  bool alive() override;

  /// Kills the process group and reaps it.
  void stop() override;

  pid_t pid() const {
    return pid_;
  }

private:
  bool send_line(const std::string& line);
  /// Reads one line; "" with `eof` when the server is gone, "" on deadline.
  std::string read_line(std::chrono::steady_clock::time_point deadline,
                        bool& eof);

  pid_t pid_ = -1;
  int in_ = -1;  ///< the server's stdin (we write)
  int out_ = -1; ///< the server's stdout (we read)
  std::string buf_;
  int64_t next_id_ = 1;
};

} // namespace nb
