// A scripted OpenAI chat-completions server on 127.0.0.1 for tests and
// benchmarks: the one stand-in we allow, speaking the real wire protocol.
//
//   nb::test::fake_llm llm;                        // any free port
//   llm.push(nb::test::text("hello"));             // answers in order...
//   llm.push(nb::test::error(429, "slow down", 1));
//   // ...then the default responder: "echo: <last user message>"
//   settings.providers["custom"].api_base = llm.base_url();
//   ... llm.requests()[0].body["messages"] ...
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb::test {

/// A tool call as the fake sends it. `name` and `arguments` are raw JSON so
/// tests can send malformed calls (null or numeric name, bad arguments).
struct fake_call {
  std::string id;
  nlohmann::json name;      ///< normally a string
  nlohmann::json arguments; ///< normally a string holding a JSON object
};

/// Builds a call: an object `arguments` is serialised into a string (the
/// normal case); a string is sent as it is (malformed text stays so).
fake_call call(std::string id, nlohmann::json name, nlohmann::json arguments);

/// One scripted answer. Use the builders below and adjust fields.
struct fake_response {
  int status = 200;
  std::string content_type = "application/json";
  std::map<std::string, std::string> headers; ///< e.g. {"Retry-After", "1"}
  std::string body; ///< the whole body when `events` is empty
  /// SSE frames, each complete ("data: {...}\n\n"). Non-empty = streamed.
  std::vector<std::string> events;
  std::chrono::milliseconds delay{0};       ///< before the status line
  std::chrono::milliseconds event_delay{0}; ///< between two events
  /// ": ping" comments at this interval while waiting between events and
  /// while stalled (0 = none).
  std::chrono::milliseconds ping_every{0};
  /// After the events: send nothing more (pings aside) and keep the
  /// connection open until the client leaves or the fake stops.
  bool stall = false;
  /// After the events: drop the connection without ending the body.
  bool cut = false;
};

/// {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}.
nlohmann::json usage(int prompt, int completion);

/// A completion whose message is `content`.
fake_response text(std::string content,
                   nlohmann::json usage_obj = usage(10, 5));
/// A completion asking for `calls` (finish_reason "tool_calls").
fake_response tool_calls(std::vector<fake_call> calls,
                         std::string content = "");
/// Any completion: `message` is used as choices[0].message verbatim.
fake_response completion(nlohmann::json message,
                         std::string finish_reason = "stop",
                         nlohmann::json usage_obj = nullptr);
/// A stream of text deltas (role chunk, one chunk per piece, finish chunk,
/// usage chunk, [DONE]).
fake_response stream_text(std::vector<std::string> pieces,
                          nlohmann::json usage_obj = usage(10, 5));
/// A stream of tool calls: ids and names first, then each call's argument
/// text in `pieces` fragments, interleaved across calls by index.
fake_response stream_tool_calls(std::vector<fake_call> calls,
                                size_t pieces = 3);
/// An HTTP error with an OpenAI error body; `retry_after` sets the
/// Retry-After header (seconds).
fake_response error(int status, std::string message = "",
                    std::optional<int> retry_after = std::nullopt);
/// The same with a default message: error(429, 1).
fake_response error(int status, int retry_after);
/// Anything at all (an HTML page, truncated JSON, ...).
fake_response raw(int status, std::string content_type, std::string body);

/// "data: <chunk>\n\n" for hand-made streams; sse_done() is "data: [DONE]".
std::string sse(const nlohmann::json& chunk);
std::string sse_done();
/// A chat.completion.chunk with `delta` and `finish_reason` (null if "").
nlohmann::json chunk(nlohmann::json delta, std::string finish_reason = "");

/// One request as the fake received it.
struct recorded_request {
  std::string method;
  std::string path;
  std::map<std::string, std::string> headers; ///< names in lower case
  nlohmann::json body; ///< null when the body was not JSON
  std::string raw_body;
  int remote_port = 0; ///< the client's port: equal ports = one connection
};

/// The server. Serves POST .../chat/completions, POST .../messages
/// (Anthropic, see fake_anthropic.hpp) and POST .../responses (OpenAI's
/// Responses API, see fake_openai_responses.hpp; all share one script
/// queue) under
/// any prefix, and GET .../models. Thread-safe; stops in its destructor.
class fake_llm {
public:
  using responder = std::function<fake_response(const nlohmann::json& body)>;

  /// Listens on 127.0.0.1:`port` (0 = any) with `threads` handler threads
  /// (each open connection holds one).
  explicit fake_llm(int port = 0, size_t threads = 128);
  ~fake_llm();

  fake_llm(const fake_llm&) = delete;
  fake_llm& operator=(const fake_llm&) = delete;

  int port() const;
  /// "http://127.0.0.1:<port>/v1": an apiBase.
  std::string base_url() const;

  /// Queues a scripted answer; queued answers are used first, in order.
  void push(fake_response r);
  /// Answers once the queue is empty (default: echo()). It runs on the
  /// server's threads, possibly several at once.
  void set_responder(responder r);
  /// The same for POST .../messages (Anthropic; default anthropic::echo).
  void set_anthropic_responder(responder r);
  /// The same for POST .../responses (default responses::echo).
  void set_responses_responder(responder r);

  size_t request_count() const;
  std::vector<recorded_request> requests() const;
  /// Most requests that were being answered at the same time.
  size_t max_concurrent() const;
  /// Requests being answered now: a stalled stream with pings counts until
  /// its client leaves (the next ping fails) or the stall's bound ends.
  size_t active() const;
  /// Scripted answers not used yet.
  size_t queued() const;

  /// Ends stalls and closes the server (the destructor calls it).
  void stop();

  /// "echo: <last user content>", streamed when the request asks for it.
  static fake_response echo(const nlohmann::json& body);

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb::test
