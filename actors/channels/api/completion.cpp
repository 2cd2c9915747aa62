#include "actors/channels/api/completion.hpp"

namespace nb::api {

namespace {

int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

} // namespace

inbound_msg make_inbound(const completion_request& req) {
  inbound_msg msg;
  msg.channel = "api";
  msg.sender_id = "api";
  msg.chat_id = req.chat_id;
  msg.content = req.content;
  msg.wants_stream = req.stream;
  return msg;
}

api_error timed_out(std::chrono::seconds timeout) {
  return {504,
          "the agent did not answer within " + std::to_string(timeout.count())
            + " s",
          "server_error"};
}

api_error shutting_down() {
  return {503, "the API server is shutting down", "server_error"};
}

reply_collector::reply_collector(std::string model)
  : model_(std::move(model)) {
  // nop
}

std::optional<full_answer>
reply_collector::on_outbound(const outbound_msg& m) {
  if (m.kind == outbound_kind::delta)
    streamed_ += m.content;
  if (m.kind != outbound_kind::final_reply)
    return std::nullopt;
  if (m.is_error)
    return full_answer{502, error_body({502, m.content, "server_error"})};
  const auto& content = !m.content.empty()  ? m.content
                        : !streamed_.empty() ? streamed_
                                             : std::string{empty_answer};
  return full_answer{200, completion_body(new_completion_id(), unix_now(),
                                          model_, content,
                                          usage_from_metadata(
                                            m.metadata_json))};
}

sse_writer::sse_writer(std::string model)
  : model_(std::move(model)), created_(unix_now()) {
  // nop
}

std::string sse_writer::opening() const {
  return role_frame(id_, created_, model_);
}

std::string sse_writer::on_outbound(const outbound_msg& m, bool& finished) {
  finished = false;
  switch (m.kind) {
    case outbound_kind::delta:
      if (m.content.empty())
        return {};
      streamed_any_ = true;
      return content_frame(id_, created_, model_, m.content);
    case outbound_kind::progress:
    case outbound_kind::retry_wait:
      return comment_frame(m.content);
    case outbound_kind::stream_end:
      return {}; // tools may follow; the turn is not over
    case outbound_kind::final_reply:
      break;
  }
  finished = true;
  if (m.is_error)
    return error_frame({502, m.content, "server_error"});
  std::string out;
  if (!streamed_any_)
    out = content_frame(id_, created_, model_,
                        m.content.empty() ? std::string{empty_answer}
                                          : m.content);
  out += stop_frame(id_, created_, model_);
  out += done_frame;
  return out;
}

} // namespace nb::api
