// Test fixture for the HTTP front doors: a real actor system, and a small
// actor playing the router (the real one is wired in the integration tests).
#pragma once

#include <string>
#include <vector>

#include <caf/all.hpp>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "config/settings.hpp"
#include "messages/type_ids.hpp"

#include "tests/support/system_fixture.hpp"

namespace nb::test {


/// Plays the router: answers each inbound message on its reply_to.
///   "hang"  -> never answers
///   "boom"  -> a failed turn ("provider exploded")
///   "usage" -> an answer whose metadata carries token usage
///   "slow"  -> a delta at once, the final reply 600 ms later
///   other   -> progress "thinking", then (when streaming) the deltas
///              "[<key>] " and "echo: <content>", a stream_end, and the
///              final reply "[<key>] echo: <content>".
/// Messages not from channel/sender "api" get an error naming them.
inline router_actor::behavior_type fake_router(router_actor::pointer self) {
  return {
    [self](inbound_msg& in) {
      auto key = session_key(in);
      auto out = [&](outbound_kind kind, std::string text, bool err = false,
                     std::string meta = "{}") {
        outbound_msg m;
        m.channel = in.channel;
        m.chat_id = in.chat_id;
        m.session_key = key;
        m.kind = kind;
        m.content = std::move(text);
        m.is_error = err;
        m.metadata_json = std::move(meta);
        self->send(in.reply_to, std::move(m));
      };
      if (in.channel != "api" || in.sender_id != "api") {
        out(outbound_kind::final_reply,
            "unexpected origin " + in.channel + "/" + in.sender_id, true);
        return;
      }
      if (in.content == "hang")
        return;
      if (in.content == "boom") {
        out(outbound_kind::final_reply, "provider exploded", true);
        return;
      }
      if (in.content == "usage") {
        out(outbound_kind::final_reply, "counted", false,
            R"({"usage":{"prompt_tokens":7,"completion_tokens":3,)"
            R"("total_tokens":10}})");
        return;
      }
      if (in.content == "slow") {
        out(outbound_kind::delta, "part one, ");
        outbound_msg last;
        last.chat_id = in.chat_id;
        last.content = "part one, part two";
        self->delayed_send(in.reply_to, std::chrono::milliseconds(600),
                           std::move(last));
        return;
      }
      out(outbound_kind::progress, "thinking");
      if (in.wants_stream) {
        out(outbound_kind::delta, "[" + key + "] ");
        out(outbound_kind::delta, "echo: " + in.content);
        out(outbound_kind::stream_end, "");
      }
      out(outbound_kind::final_reply, "[" + key + "] echo: " + in.content);
    },
    [](const session_idle&) {},
    [](const session_services&) {},
    [](live_sessions_atom) { return int32_t{0}; },
    [](flush_atom) { return int32_t{0}; },
  };
}

/// One parsed SSE stream: its data payloads in order, and its comments.
struct sse_result {
  httplib::Error error = httplib::Error::Success;
  int status = 0;
  std::string content_type;
  std::vector<std::string> data;
  std::vector<std::string> comments;
};

inline sse_result post_stream(httplib::Client& cli, const std::string& body,
                              const std::string& key = "") {
  sse_result out;
  std::string buf;
  httplib::Request req;
  req.method = "POST";
  req.path = "/v1/chat/completions";
  req.set_header("Content-Type", "application/json");
  if (!key.empty())
    req.set_header("Authorization", "Bearer " + key);
  req.body = body;
  req.content_receiver = [&](const char* d, size_t n, uint64_t, uint64_t) {
    buf.append(d, n);
    for (size_t p; (p = buf.find("\n\n")) != std::string::npos;
         buf.erase(0, p + 2)) {
      auto ev = buf.substr(0, p);
      if (ev.rfind("data: ", 0) == 0)
        out.data.push_back(ev.substr(6));
      else if (ev.rfind(": ", 0) == 0)
        out.comments.push_back(ev.substr(2));
    }
    return true;
  };
  auto res = cli.send(req);
  out.error = res.error();
  if (res) {
    out.status = res->status;
    out.content_type = res->get_header_value("Content-Type");
  }
  return out;
}

inline std::string chat_body(const std::string& content,
                             nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json body = {
    {"model", "whatever"},
    {"messages", {{{"role", "user"}, {"content", content}}}}};
  body.update(extra);
  return body.dump();
}

} // namespace nb::test
