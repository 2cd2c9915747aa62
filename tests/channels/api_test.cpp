// The OpenAI-compatible API over real sockets, with a test actor playing
// the router.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "actors/channels/api/api_server.hpp"
#include "actors/channels/api/wire.hpp"
#include "tests/channels/fixture.hpp"

using namespace nb;
using namespace nb::test;
using json = nlohmann::json;

namespace {

struct api_fixture : system_fixture {
  router_actor router = sys.spawn(fake_router);
  settings cfg;
  std::unique_ptr<api_server> api;
  uint16_t port = 0;

  api_fixture() {
    cfg.api.host = "127.0.0.1";
    cfg.api.port = 0;
    cfg.agent.model = "test-model";
    cfg.gateway.http_threads = 16;
  }

  ~api_fixture() {
    api.reset();
    caf::anon_send_exit(router, caf::exit_reason::user_shutdown);
  }

  void start() {
    api = std::make_unique<api_server>(sys, router, cfg);
    port = api->port();
    REQUIRE(port != 0);
  }

  httplib::Client client() {
    httplib::Client cli{"127.0.0.1", port};
    cli.set_read_timeout(20, 0);
    return cli;
  }
};

json error_of(const httplib::Result& res, int status) {
  REQUIRE(res);
  CHECK(res->status == status);
  auto doc = json::parse(res->body);
  CHECK(doc["error"]["code"] == status);
  return doc["error"];
}

std::string content_of(const std::string& chunk) {
  auto c = json::parse(chunk);
  auto& delta = c["choices"][0]["delta"];
  return delta.contains("content") ? delta["content"].get<std::string>() : "";
}

} // namespace

TEST_CASE_FIXTURE(api_fixture, "a plain completion returns the turn's answer") {
  start();
  auto cli = client();
  auto res = cli.Post("/v1/chat/completions", chat_body("hello"),
                      "application/json");
  REQUIRE(res);
  CHECK(res->status == 200);
  auto doc = json::parse(res->body);
  CHECK(doc["id"].get<std::string>().rfind("chatcmpl-", 0) == 0);
  CHECK(doc["object"] == "chat.completion");
  CHECK(doc["model"] == "whatever");
  CHECK(doc["created"].get<int64_t>() > 1600000000);
  CHECK(doc["choices"][0]["message"]["role"] == "assistant");
  CHECK(doc["choices"][0]["message"]["content"]
        == "[api:default] echo: hello");
  CHECK(doc["choices"][0]["finish_reason"] == "stop");
  CHECK(doc["usage"]["total_tokens"] == 0);
}

TEST_CASE_FIXTURE(api_fixture, "session_id picks the chat and usage is passed on") {
  start();
  auto cli = client();
  auto res = cli.Post("/v1/chat/completions",
                      chat_body("hi", {{"session_id", "team-7"}}),
                      "application/json");
  REQUIRE(res);
  CHECK(json::parse(res->body)["choices"][0]["message"]["content"]
        == "[api:team-7] echo: hi");
  auto counted = cli.Post("/v1/chat/completions", chat_body("usage"),
                          "application/json");
  REQUIRE(counted);
  auto usage = json::parse(counted->body)["usage"];
  CHECK(usage["prompt_tokens"] == 7);
  CHECK(usage["completion_tokens"] == 3);
  CHECK(usage["total_tokens"] == 10);
}

TEST_CASE_FIXTURE(api_fixture, "a streamed completion sends SSE chunks then DONE") {
  start();
  auto cli = client();
  auto sse = post_stream(cli, chat_body("hi", {{"stream", true},
                                               {"session_id", "s2"}}));
  REQUIRE(sse.error == httplib::Error::Success);
  CHECK(sse.status == 200);
  CHECK(sse.content_type == "text/event-stream");
  REQUIRE(sse.data.size() == 5);
  auto first = json::parse(sse.data[0]);
  CHECK(first["object"] == "chat.completion.chunk");
  CHECK(first["choices"][0]["delta"]["role"] == "assistant");
  CHECK(content_of(sse.data[1]) == "[api:s2] ");
  CHECK(content_of(sse.data[2]) == "echo: hi");
  auto stop = json::parse(sse.data[3]);
  CHECK(stop["choices"][0]["finish_reason"] == "stop");
  CHECK(sse.data.back() == "[DONE]");
  std::string text;
  for (size_t i = 0; i + 1 < sse.data.size(); ++i) {
    auto c = json::parse(sse.data[i]);
    CHECK(c["id"] == first["id"]);
    text += content_of(sse.data[i]);
  }
  CHECK(text == "[api:s2] echo: hi");
  CHECK(sse.comments == std::vector<std::string>{"thinking"});
}

TEST_CASE_FIXTURE(api_fixture, "stream deltas reach the client before the turn ends") {
  start();
  using clock = std::chrono::steady_clock;
  std::vector<std::pair<std::string, clock::time_point>> frames;
  std::string buf;
  httplib::Request req;
  req.method = "POST";
  req.path = "/v1/chat/completions";
  req.set_header("Content-Type", "application/json");
  req.body = chat_body("slow", {{"stream", true}});
  req.content_receiver = [&](const char* d, size_t n, uint64_t, uint64_t) {
    buf.append(d, n);
    for (size_t p; (p = buf.find("\n\n")) != std::string::npos;
         buf.erase(0, p + 2))
      frames.emplace_back(buf.substr(6, p - 6), clock::now());
    return true;
  };
  auto cli = client();
  REQUIRE(cli.send(req));
  REQUIRE(frames.size() == 4);
  CHECK(content_of(frames[1].first) == "part one, ");
  CHECK(frames[3].first == "[DONE]");
  // The router holds the final reply back 600 ms; a buffered stream would
  // deliver the delta together with it.
  CHECK(frames[3].second - frames[1].second
        > std::chrono::milliseconds(300));
}

TEST_CASE_FIXTURE(api_fixture, "a failed turn is 502 or an error frame") {
  start();
  auto cli = client();
  auto err = error_of(cli.Post("/v1/chat/completions", chat_body("boom"),
                               "application/json"),
                      502);
  CHECK(err["message"] == "provider exploded");
  CHECK(err["type"] == "server_error");
  auto sse = post_stream(cli, chat_body("boom", {{"stream", true}}));
  REQUIRE(sse.data.size() == 2);
  CHECK(json::parse(sse.data[1])["error"]["message"] == "provider exploded");
  CHECK(sse.data.back() != "[DONE]");
}

TEST_CASE_FIXTURE(api_fixture, "a turn past the timeout is 504") {
  cfg.api.timeout_s = 1;
  start();
  auto cli = client();
  auto err = error_of(cli.Post("/v1/chat/completions", chat_body("hang"),
                               "application/json"),
                      504);
  CHECK(err["type"] == "server_error");
  CHECK(err["message"].get<std::string>().find("within 1 s")
        != std::string::npos);
}

TEST_CASE_FIXTURE(api_fixture, "bad requests get 400 404 and 413 in OpenAI shape") {
  start();
  auto cli = client();
  auto post = [&](const std::string& body) {
    return cli.Post("/v1/chat/completions", body, "application/json");
  };
  CHECK(error_of(post("{oops"), 400)["message"].get<std::string>().find(
          "not valid JSON")
        != std::string::npos);
  CHECK(error_of(post(R"({"messages":[]})"), 400)["type"]
        == "invalid_request_error");
  CHECK(error_of(post(R"({"messages":[{"role":"assistant","content":"x"}]})"),
                 400)["message"].get<std::string>().find("role \"user\"")
        != std::string::npos);
  CHECK(error_of(post(R"({"messages":[{"role":"user","content":{"a":1}}]})"),
                 400)["message"].get<std::string>().find("content")
        != std::string::npos);
  auto missing = error_of(cli.Get("/v1/nothing"), 404);
  CHECK(missing["message"] == "unknown endpoint: GET /v1/nothing");
  CHECK(missing["type"] == "invalid_request_error");
  error_of(cli.Get("/v1/chat/completions"), 404);
  std::string huge(nb::api::max_body_bytes + 10, 'x');
  auto too_big = cli.Post("/v1/chat/completions", chat_body(huge),
                          "application/json");
  CHECK(error_of(too_big, 413)["message"].get<std::string>().find("exceeds")
        != std::string::npos);
}

TEST_CASE_FIXTURE(api_fixture, "models and health answer") {
  start();
  auto cli = client();
  auto models = cli.Get("/v1/models");
  REQUIRE(models);
  auto doc = json::parse(models->body);
  CHECK(doc["object"] == "list");
  CHECK(doc["data"][0]["id"] == "test-model");
  auto health = cli.Get("/health");
  REQUIRE(health);
  CHECK(json::parse(health->body)["status"] == "ok");
}

TEST_CASE_FIXTURE(api_fixture, "an API key guards everything but health") {
  cfg.api.api_key = "sekret";
  start();
  auto cli = client();
  auto none = error_of(cli.Post("/v1/chat/completions", chat_body("x"),
                                "application/json"),
                       401);
  CHECK(none["type"] == "authentication_error");
  CHECK(none["message"]
        == "Missing Authorization header. Use: Bearer <api_key>");
  httplib::Headers wrong{{"Authorization", "Bearer sekreT"}};
  auto bad = error_of(cli.Post("/v1/chat/completions", wrong, chat_body("x"),
                               "application/json"),
                      401);
  CHECK(bad["message"] == "Invalid API key");
  error_of(cli.Get("/v1/models"), 401);
  httplib::Headers right{{"Authorization", "Bearer sekret"}};
  auto ok = cli.Post("/v1/chat/completions", right, chat_body("x"),
                     "application/json");
  REQUIRE(ok);
  CHECK(ok->status == 200);
  auto models = cli.Get("/v1/models", right);
  REQUIRE(models);
  CHECK(models->status == 200);
  auto sse = post_stream(cli, chat_body("y", {{"stream", true}}), "sekret");
  CHECK(sse.data.back() == "[DONE]");
  auto health = cli.Get("/health");
  REQUIRE(health);
  CHECK(health->status == 200);
}

TEST_CASE_FIXTURE(api_fixture, "a non-loopback host without a key is refused") {
  cfg.api.host = "0.0.0.0";
  std::string what;
  try {
    api_server refused{sys, router, cfg};
  } catch (const std::runtime_error& e) {
    what = e.what();
  }
  CHECK(what.find("api.apiKey is required") == 0);
  CHECK(what.find("'0.0.0.0'") != std::string::npos);
  cfg.api.host = "::";
  CHECK_THROWS_AS(api_server(sys, router, cfg), std::runtime_error);
}

TEST_CASE_FIXTURE(api_fixture, "concurrent requests on different sessions all finish") {
  start();
  constexpr int n = 12;
  std::vector<std::string> answers(n);
  std::vector<std::thread> clients;
  for (int i = 0; i < n; ++i)
    clients.emplace_back([&, i] {
      auto cli = client();
      auto res = cli.Post("/v1/chat/completions",
                          chat_body("q" + std::to_string(i),
                                    {{"session_id", "c" + std::to_string(i)}}),
                          "application/json");
      if (res && res->status == 200)
        answers[i] = json::parse(res->body)["choices"][0]["message"]["content"];
    });
  for (auto& t : clients)
    t.join();
  for (int i = 0; i < n; ++i)
    CHECK(answers[i]
          == "[api:c" + std::to_string(i) + "] echo: q" + std::to_string(i));
}

TEST_CASE_FIXTURE(api_fixture, "stop ends an open stream and waiting requests") {
  cfg.api.timeout_s = 60;
  start();
  std::atomic<bool> stream_began{false};
  sse_result sse;
  std::thread streamer{[&] {
    auto cli = client();
    httplib::Request req;
    req.method = "POST";
    req.path = "/v1/chat/completions";
    req.body = chat_body("hang", {{"stream", true}});
    req.set_header("Content-Type", "application/json");
    req.content_receiver = [&](const char* d, size_t n, uint64_t, uint64_t) {
      sse.data.emplace_back(d, n);
      stream_began = true;
      return true;
    };
    sse.error = cli.send(req).error();
  }};
  int blocked_status = 0;
  std::thread waiter{[&] {
    auto cli = client();
    auto res = cli.Post("/v1/chat/completions", chat_body("hang"),
                        "application/json");
    if (res)
      blocked_status = res->status;
  }};
  while (!stream_began)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  api->stop();
  streamer.join();
  waiter.join();
  std::string all;
  for (auto& piece : sse.data)
    all += piece;
  CHECK(all.find("[DONE]") == std::string::npos);
  // The waiting request either got its 503 or lost its connection.
  if (blocked_status != 0)
    CHECK(blocked_status == 503);
}
