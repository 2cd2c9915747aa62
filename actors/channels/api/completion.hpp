// One chat-completion request's answer, built from the outbound messages
// its turn sends back: a chat.completion body, or SSE chunks. Pure, no I/O:
// the connection (api_conn.cpp) writes what these return.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "actors/channels/api/wire.hpp"
#include "messages/chat.hpp"

namespace nb::api {

/// The message a request becomes: a turn in session "api:<chat_id>",
/// streamed when the client asked for a stream.
inbound_msg make_inbound(const completion_request& req);

/// 504: the turn did not end within `timeout`.
api_error timed_out(std::chrono::seconds timeout);

/// 503: the server stops before the turn ended.
api_error shutting_down();

/// A whole JSON answer.
struct full_answer {
  int status = 200;
  std::string body;
};

/// A non-streamed completion: 200 with the answer once the final reply
/// comes (deltas, should any come, stand in for an empty final text), 502
/// with the turn's error text when it failed.
class reply_collector {
public:
  explicit reply_collector(std::string model);

  /// The answer once `m` ends the turn, nullopt while it goes on.
  std::optional<full_answer> on_outbound(const outbound_msg& m);

private:
  std::string model_;
  std::string streamed_;
};

/// A streamed completion: the role chunk, content chunks as deltas come,
/// progress lines as SSE comments, then the stop chunk and [DONE]; a
/// failure is an error frame and no [DONE].
class sse_writer {
public:
  explicit sse_writer(std::string model);

  /// The first frame (the assistant role).
  std::string opening() const;

  /// The frames for `m` (maybe none); sets `finished` when it ends the turn.
  std::string on_outbound(const outbound_msg& m, bool& finished);

  /// The frame that ends a stream which failed after it began.
  static std::string failure(const api_error& err) { return error_frame(err); }

private:
  std::string model_;
  std::string id_ = new_completion_id();
  int64_t created_;
  bool streamed_any_ = false;
};

} // namespace nb::api
