// Tools: MCP's JSON-RPC framing, shared by the three transports (stdio
// lines, streamable HTTP bodies, the legacy HTTP+SSE stream): reading
// server-sent events, telling replies from the server's own requests, and
// reading a reply. Pure: no I/O.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb {

/// Splits a server-sent-event stream into events as its bytes come.
class sse_event_reader {
public:
  using handler = std::function<void(const std::string& event,
                                     const std::string& data)>;

  /// Appends `bytes`; calls `on_event` for each complete event with data
  /// (data lines joined by '\n'; `event` "" when the event had no name).
  /// Comment lines (": ping") and other fields are skipped.
  void feed(std::string_view bytes, const handler& on_event);

  /// Bytes held for a line that has not ended yet.
  size_t buffered() const { return buf_.size(); }

private:
  std::string buf_;
  std::string event_;
  std::string data_;
  bool has_data_ = false;
};

/// The JSON values in a whole server-sent-event body, one per event;
/// events whose data is not JSON are skipped.
std::vector<nlohmann::json> sse_messages(const std::string& body);

/// What one message from a server is to a call waiting for reply `id`.
enum class mcp_message_kind {
  other,          ///< a notification, stray output, a reply to another call
  server_request, ///< the server asks us something: answer it
  reply,          ///< the reply the call waits for
};

mcp_message_kind classify_mcp_message(const nlohmann::json& msg,
                                      const nlohmann::json& id);

/// Our answer to a request from the server: ping gets an empty result,
/// anything else (roots, sampling, ...) "Method not found".
nlohmann::json answer_server_request(const nlohmann::json& request);

/// Reads a reply: "" and `result` (an empty object when absent), or the
/// JSON-RPC error as text ("MCP error <code>: <message>").
std::string read_mcp_reply(const nlohmann::json& reply,
                           nlohmann::json& result);

} // namespace nb
