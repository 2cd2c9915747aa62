#include "actors/channels/api/completion.hpp"

#include <algorithm>

#include "actors/channels/api/turn_bridge.hpp"

namespace nb::api {

namespace {

using clock = std::chrono::steady_clock;

/// How long one wait lasts before the deadline and the stop flag are
/// checked again.
constexpr auto poll_step = std::chrono::milliseconds(200);

inbound_msg make_inbound(const completion_request& req) {
  inbound_msg msg;
  msg.channel = "api";
  msg.sender_id = "api";
  msg.chat_id = req.chat_id;
  msg.content = req.content;
  msg.wants_stream = req.stream;
  return msg;
}

int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

api_error timed_out(const completion_context& ctx) {
  return {504,
          "the agent did not answer within "
            + std::to_string(ctx.timeout.count()) + " s",
          "server_error"};
}

api_error shutting_down() {
  return {503, "the API server is shutting down", "server_error"};
}

/// Waits for the next outbound message until `deadline`; sets `failure`
/// when the deadline passes or the server stops first.
std::optional<outbound_msg> wait_next(const completion_context& ctx,
                                      turn_bridge& bridge,
                                      clock::time_point deadline,
                                      std::optional<api_error>& failure) {
  if (*ctx.stopping) {
    failure = shutting_down();
    return std::nullopt;
  }
  auto left = deadline - clock::now();
  if (left <= clock::duration::zero()) {
    failure = timed_out(ctx);
    return std::nullopt;
  }
  auto step = std::min<clock::duration>(left, poll_step);
  return bridge.next(
    std::chrono::duration_cast<std::chrono::milliseconds>(step)
    + std::chrono::milliseconds(1));
}

void answer_blocking(const completion_context& ctx,
                     const completion_request& req, const std::string& model,
                     httplib::Response& res) {
  turn_bridge bridge{ctx.sys, ctx.router};
  bridge.send(make_inbound(req));
  auto deadline = clock::now() + ctx.timeout;
  std::string streamed; // deltas, should the router send any
  std::optional<api_error> failure;
  while (!failure) {
    auto m = wait_next(ctx, bridge, deadline, failure);
    if (!m)
      continue;
    if (m->kind == outbound_kind::delta)
      streamed += m->content;
    if (m->kind != outbound_kind::final_reply)
      continue;
    if (m->is_error) {
      failure = api_error{502, m->content, "server_error"};
      break;
    }
    auto content = !m->content.empty() ? m->content
                   : !streamed.empty() ? streamed
                                       : std::string{empty_answer};
    res.set_content(completion_body(new_completion_id(), unix_now(), model,
                                    content,
                                    usage_from_metadata(m->metadata_json)),
                    "application/json");
    return;
  }
  ctx.log->warn("[api:{}] request failed: {} {}", req.chat_id,
                failure->status, failure->message);
  res.status = failure->status;
  res.set_content(error_body(*failure), "application/json");
}

/// The state of one SSE response, owned by httplib's content provider.
struct stream_job {
  stream_job(completion_context c, completion_request r, std::string m)
    : ctx(std::move(c)), req(std::move(r)), model(std::move(m)) {
    // nop
  }

  completion_context ctx;
  completion_request req;
  std::string model;
  std::string id = new_completion_id();
  int64_t created = unix_now();
  std::unique_ptr<turn_bridge> bridge;
  clock::time_point deadline;
  bool streamed_any = false;

  /// Writes what is ready; false ends the response (client gone).
  bool pump(httplib::DataSink& sink) {
    auto write = [&](std::string_view s) {
      return sink.write(s.data(), s.size());
    };
    if (!bridge) {
      // Created here, on the thread that waits on it, like every receive.
      bridge = std::make_unique<turn_bridge>(ctx.sys, ctx.router);
      bridge->send(make_inbound(req));
      deadline = clock::now() + ctx.timeout;
      return write(role_frame(id, created, model));
    }
    std::optional<api_error> failure;
    auto m = wait_next(ctx, *bridge, deadline, failure);
    if (failure) {
      ctx.log->warn("[api:{}] stream failed: {}", req.chat_id,
                    failure->message);
      auto ok = write(error_frame(*failure));
      sink.done();
      return ok;
    }
    if (!m)
      return true;
    switch (m->kind) {
      case outbound_kind::delta:
        if (m->content.empty())
          return true;
        streamed_any = true;
        return write(content_frame(id, created, model, m->content));
      case outbound_kind::progress:
      case outbound_kind::retry_wait:
        return write(comment_frame(m->content));
      case outbound_kind::stream_end:
        return true; // tools may follow; the turn is not over
      case outbound_kind::final_reply:
        break;
    }
    if (m->is_error) {
      auto ok = write(error_frame({502, m->content, "server_error"}));
      sink.done();
      return ok;
    }
    if (!streamed_any) {
      auto text = m->content.empty() ? std::string{empty_answer} : m->content;
      if (!write(content_frame(id, created, model, text)))
        return false;
    }
    auto ok = write(stop_frame(id, created, model)) && write(done_frame);
    sink.done();
    return ok;
  }
};

} // namespace

void answer_completion(const completion_context& ctx, completion_request req,
                       httplib::Response& res) {
  auto model = req.model.empty() ? ctx.model : req.model;
  if (!req.stream) {
    answer_blocking(ctx, req, model, res);
    return;
  }
  auto job = std::make_shared<stream_job>(ctx, std::move(req),
                                         std::move(model));
  res.set_header("Cache-Control", "no-cache");
  res.set_header("X-Accel-Buffering", "no");
  res.set_chunked_content_provider(
    "text/event-stream",
    [job](size_t, httplib::DataSink& sink) { return job->pump(sink); });
}

} // namespace nb::api
