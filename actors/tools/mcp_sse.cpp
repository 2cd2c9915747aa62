#include "actors/tools/mcp_sse.hpp"

#include <algorithm>
#include <condition_variable>
#include <limits>
#include <mutex>

#include "actors/tools/http_fetch.hpp"
#include "actors/tools/mcp_frames.hpp"

namespace nb {

using nlohmann::json;
using steady = std::chrono::steady_clock;

struct mcp_sse::stream_state {
  std::mutex mu;
  std::condition_variable cv;
  std::string endpoint; ///< where messages are POSTed (absolute URL)
  std::map<std::string, json> replies; ///< by the request id's JSON text
  bool closed = false;
  std::string why; ///< why the stream ended
  // For answering the server's own requests (ping) from the reader.
  parsed_url base;
  std::map<std::string, std::string> headers;
  ssrf_policy policy;
};

namespace {

using stream_ptr = std::shared_ptr<mcp_sse::stream_state>;

std::string post_to(const std::string& url,
                    const std::map<std::string, std::string>& headers,
                    const ssrf_policy& policy, const json& msg,
                    int timeout_s) {
  http_request req;
  req.method = "POST";
  req.url = url;
  req.headers = headers;
  req.content_type = "application/json";
  req.body = msg.dump();
  req.timeout_s = std::max(1, timeout_s);
  req.max_redirects = 0;
  req.max_bytes = 1u << 20;
  auto res = http_send(req, policy);
  if (!res.error.empty())
    return res.error;
  if (res.status < 200 || res.status >= 300)
    return "HTTP " + std::to_string(res.status) + " from " + url;
  return {};
}

void close_stream(const stream_ptr& s, std::string why) {
  std::lock_guard<std::mutex> lock{s->mu};
  if (!s->closed) {
    s->closed = true;
    s->why = std::move(why);
  }
  s->cv.notify_all();
}

void on_endpoint(const stream_ptr& s, const std::string& data) {
  parsed_url u;
  auto url = resolve_reference(s->base, data);
  if (auto err = parse_url(url, u); !err.empty()) {
    close_stream(s, "bad endpoint event \"" + data + "\": " + err);
    return;
  }
  // A stream must not send our messages to another origin.
  if (u.origin() != s->base.origin()) {
    close_stream(s, "the endpoint " + u.str()
                      + " is not on the server's origin "
                      + s->base.origin());
    return;
  }
  std::lock_guard<std::mutex> lock{s->mu};
  s->endpoint = u.str();
  s->cv.notify_all();
}

void on_message(const stream_ptr& s, const std::string& data) {
  auto msg = json::parse(data, nullptr, false);
  if (!msg.is_object() || !msg.contains("id"))
    return; // notifications (logging, progress) are not waited for
  auto kind = classify_mcp_message(msg, nullptr);
  if (kind == mcp_message_kind::server_request) {
    auto reply = answer_server_request(msg);
    std::string endpoint;
    {
      std::lock_guard<std::mutex> lock{s->mu};
      endpoint = s->endpoint;
    }
    if (!endpoint.empty())
      post_to(endpoint, s->headers, s->policy, reply, 10);
    return;
  }
  // The key first: the assignment's right side is evaluated before its left.
  auto key = msg["id"].dump();
  std::lock_guard<std::mutex> lock{s->mu};
  s->replies[key] = std::move(msg);
  s->cv.notify_all();
}

/// The reader thread: the event stream until it ends or is stopped.
void read_stream(stream_ptr s, http_request req) {
  sse_event_reader events;
  req.on_data = [&](const char* p, size_t n) {
    {
      std::lock_guard<std::mutex> lock{s->mu};
      if (s->closed)
        return false;
    }
    events.feed({p, n}, [&](const std::string& event,
                            const std::string& data) {
      if (event == "endpoint")
        on_endpoint(s, data);
      else if ((event.empty() || event == "message") && !data.empty())
        on_message(s, data);
    });
    return true;
  };
  auto res = http_send(req, s->policy);
  std::string why = "the server closed the event stream";
  // httplib says "read failed or timed out" for a dropped connection too;
  // the callers must not mistake it for their own deadline.
  if (!res.error.empty())
    why = res.error.find("read failed") != std::string::npos
            ? "the connection to the server broke"
            : res.error;
  else if (res.status != 200)
    why = "HTTP " + std::to_string(res.status) + " from " + req.url;
  close_stream(s, std::move(why));
}

} // namespace

mcp_sse::mcp_sse(const mcp_server_settings& cfg, ssrf_policy policy)
  : url_(cfg.url), headers_(cfg.headers), policy_(std::move(policy)),
    stream_(std::make_shared<stream_state>()) {
  // nop
}

mcp_sse::~mcp_sse() {
  stop();
}

std::string mcp_sse::start(steady::time_point deadline) {
  auto& s = *stream_;
  if (auto err = parse_url(url_, s.base); !err.empty())
    return "url: " + err;
  s.headers = headers_;
  s.policy = policy_;
  http_request req;
  req.url = url_;
  req.headers = headers_;
  req.headers["Accept"] = "text/event-stream";
  req.headers["Cache-Control"] = "no-cache";
  // The stream lives as long as the connection: no overall limit worth
  // the name, no size cap; an hour of silence ends it (the next call
  // reconnects).
  req.timeout_s = 30 * 24 * 3600;
  req.read_timeout_s = 3600;
  req.max_bytes = std::numeric_limits<size_t>::max();
  reader_ = std::thread(read_stream, stream_, std::move(req));
  std::unique_lock<std::mutex> lock{s.mu};
  s.cv.wait_until(lock, deadline,
                  [&] { return !s.endpoint.empty() || s.closed; });
  if (!s.endpoint.empty() && !s.closed)
    return {};
  auto why = s.closed ? s.why
                      : std::string{"no endpoint event on the stream in time"};
  lock.unlock();
  stop();
  return why;
}

std::string mcp_sse::post(const json& msg, steady::time_point deadline) {
  std::string endpoint;
  {
    std::lock_guard<std::mutex> lock{stream_->mu};
    if (stream_->closed)
      return "the MCP server's event stream ended (" + stream_->why + ")";
    endpoint = stream_->endpoint;
  }
  auto left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                   deadline - steady::now())
                   .count();
  if (left_ms <= 0)
    return "timed out waiting for the MCP server";
  // The POST is only accepted (202) here; the call's own deadline is kept
  // while waiting for the reply. http_send counts whole seconds, so never
  // less than 2 (1 would round down to nothing).
  auto post_s = std::clamp<int64_t>(left_ms / 1000 + 1, 2, 30);
  auto err = post_to(endpoint, headers_, policy_, msg,
                     static_cast<int>(post_s));
  if (!err.empty() && err.find("timed out") != std::string::npos)
    return "timed out waiting for the MCP server";
  return err;
}

std::string mcp_sse::call(const std::string& method, const json& params,
                          steady::time_point deadline, json& result) {
  auto id = next_id_++;
  json msg = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null())
    msg["params"] = params;
  if (auto err = post(msg, deadline); !err.empty())
    return err;
  auto key = json(id).dump();
  json reply;
  {
    auto& s = *stream_;
    std::unique_lock<std::mutex> lock{s.mu};
    s.cv.wait_until(lock, deadline,
                    [&] { return s.replies.count(key) > 0 || s.closed; });
    auto it = s.replies.find(key);
    if (it == s.replies.end())
      return s.closed
               ? "the MCP server's event stream ended (" + s.why + ")"
               : std::string{"timed out waiting for the MCP server"};
    reply = std::move(it->second);
    s.replies.erase(it);
  }
  if (reply.contains("error")) {
    return mcp_error_text(reply["error"]);
  }
  result = reply.value("result", json::object());
  return {};
}

bool mcp_sse::notify(const std::string& method, const json& params) {
  json msg = {{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null())
    msg["params"] = params;
  return post(msg, steady::now() + std::chrono::seconds(10)).empty();
}

bool mcp_sse::alive() {
  std::lock_guard<std::mutex> lock{stream_->mu};
  return !stream_->closed;
}

void mcp_sse::stop() {
  close_stream(stream_, "stopped");
  // The reader may sit in a read for a while; it only touches the shared
  // state, so it is left to finish on its own.
  if (reader_.joinable())
    reader_.detach();
}

} // namespace nb
