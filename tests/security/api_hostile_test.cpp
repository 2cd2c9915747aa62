// The API under the attacks of issue 14, over real sockets: endless chunked
// bodies, oversized plain bodies, pipelining, slowloris, connection floods,
// invalid UTF-8 and a client that never reads its stream.
#include <doctest/doctest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "actors/channels/api/api_server.hpp"
#include "tests/channels/fixture.hpp"
#include "tests/security/raw_http.hpp"
#include "tests/support/eventually.hpp"

using namespace nb;
using namespace nb::test;
using namespace std::chrono_literals;
using json = nlohmann::json;

namespace {

/// Plays the router like fake_router, and for "flood" streams 32 MiB of
/// deltas at once (a model far faster than its client reads).
router_actor::behavior_type flooding_router(router_actor::pointer self) {
  return {
    [self](inbound_msg& in) {
      if (in.content != "flood") {
        outbound_msg m;
        m.chat_id = in.chat_id;
        m.content = "[" + session_key(in) + "] echo: " + in.content;
        self->send(in.reply_to, std::move(m));
        return;
      }
      std::string piece(4096, 'x');
      for (int i = 0; i < 8192; ++i) {
        outbound_msg m;
        m.channel = in.channel;
        m.chat_id = in.chat_id;
        m.kind = outbound_kind::delta;
        m.content = piece;
        self->send(in.reply_to, std::move(m));
      }
      outbound_msg last;
      last.chat_id = in.chat_id;
      last.content = "flooded";
      self->send(in.reply_to, std::move(last));
    },
    [](const session_idle&) {},
    [](const session_services&) {},
    [](live_sessions_atom) { return int32_t{0}; },
    [](flush_atom) { return int32_t{0}; },
  };
}

struct hostile_fixture : system_fixture {
  router_actor router = sys.spawn(fake_router);
  settings cfg;
  api_limits limits;
  std::unique_ptr<api_server> api;
  uint16_t port = 0;

  hostile_fixture() {
    cfg.api.host = "127.0.0.1";
    cfg.api.port = 0;
    cfg.agent.model = "test-model";
    cfg.api.timeout_s = 30;
  }

  ~hostile_fixture() {
    api.reset();
    caf::anon_send_exit(router, caf::exit_reason::user_shutdown);
  }

  void start() {
    api = std::make_unique<api_server>(sys, router, cfg, limits);
    port = api->port();
    REQUIRE(port != 0);
  }

  /// A normal client's completion: the echo text, or "" on failure.
  std::string normal_completion(const std::string& text) {
    httplib::Client cli{"127.0.0.1", port};
    cli.set_read_timeout(20, 0);
    auto res = cli.Post("/v1/chat/completions", chat_body(text),
                        "application/json");
    if (!res || res->status != 200)
      return "";
    return json::parse(res->body)["choices"][0]["message"]["content"];
  }

};

json error_json(const raw_reply& r) {
  auto doc = json::parse(r.body);
  CHECK(doc["error"]["code"] == r.status);
  return doc["error"];
}

std::string chunk(const std::string& data) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return size + data + "\r\n";
}

} // namespace

TEST_CASE_FIXTURE(hostile_fixture, "a chunked body of 50 MB is refused with 413 once past the limit") {
  start();
  raw_conn c{port};
  REQUIRE(c.connected());
  REQUIRE(c.send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                 "Content-Type: application/json\r\n"
                 "Transfer-Encoding: chunked\r\n\r\n"));
  std::atomic<size_t> sent{0};
  std::thread sender{[&] {
    auto piece = chunk(R"({"messages":[{"role":"user","content":")"
                       + std::string(64 * 1024, 'a'));
    std::string filler = chunk(std::string(64 * 1024, 'a'));
    if (!c.send(piece))
      return;
    while (sent < 50u << 20 && c.send(filler))
      sent += 64 * 1024;
  }};
  auto reply = c.read_reply(20s);
  sender.join();
  REQUIRE(reply);
  CHECK(reply->status == 413);
  CHECK(error_json(*reply)["message"] == "request body exceeds 1024 KiB");
  CHECK(reply->headers["connection"] == "close");
  // The server is fine and answers the next client.
  CHECK(normal_completion("after") == "[api:default] echo: after");
}

TEST_CASE_FIXTURE(hostile_fixture, "a plain body over the limit is refused from its Content-Length") {
  start();
  raw_conn c{port};
  REQUIRE(c.send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                 "Content-Type: application/json\r\n"
                 "Content-Length: 52428800\r\n\r\n"));
  auto reply = c.read_reply(10s);
  REQUIRE(reply);
  CHECK(reply->status == 413);
  CHECK(error_json(*reply)["message"] == "request body exceeds 1024 KiB");
  // With Expect: 100-continue the client is refused before it sends.
  raw_conn polite{port};
  REQUIRE(polite.send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                      "Expect: 100-continue\r\n"
                      "Content-Length: 52428800\r\n\r\n"));
  auto refused = polite.read_reply(10s);
  REQUIRE(refused);
  CHECK(refused->status == 413);
}

TEST_CASE_FIXTURE(hostile_fixture, "Expect 100-continue gets its interim answer and the completion") {
  start();
  raw_conn c{port};
  auto body = chat_body("polite");
  REQUIRE(c.send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                 "Expect: 100-continue\r\nContent-Length: "
                 + std::to_string(body.size()) + "\r\n\r\n"));
  std::this_thread::sleep_for(50ms);
  REQUIRE(c.send(body));
  auto reply = c.read_reply(10s);
  REQUIRE(reply);
  CHECK(reply->status == 200);
  CHECK(json::parse(reply->body)["choices"][0]["message"]["content"]
        == "[api:default] echo: polite");
}

TEST_CASE_FIXTURE(hostile_fixture, "pipelined requests are all answered in order") {
  start();
  raw_conn c{port};
  // The first answer takes 600 ms (the router holds it back), the others
  // are immediate: they must still come after it, in the order asked.
  std::string all = completion_request(chat_body("slow", {{"session_id", "p1"}}))
                    + "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
                    + completion_request(chat_body("second", {{"session_id", "p2"}}))
                    + "GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n"
                    + completion_request(chat_body("third", {{"session_id", "p3"}}));
  REQUIRE(c.send(all));
  std::vector<raw_reply> replies;
  for (int i = 0; i < 5; ++i) {
    auto r = c.read_reply(10s);
    REQUIRE(r);
    CHECK(r->status == 200);
    replies.push_back(*r);
  }
  auto content = [](const raw_reply& r) {
    return json::parse(r.body)["choices"][0]["message"]["content"]
      .get<std::string>();
  };
  CHECK(content(replies[0]) == "part one, part two");
  CHECK(json::parse(replies[1].body)["status"] == "ok");
  CHECK(content(replies[2]) == "[api:p2] echo: second");
  CHECK(json::parse(replies[3].body)["object"] == "list");
  CHECK(content(replies[4]) == "[api:p3] echo: third");
  // The connection stays open for more.
  REQUIRE(c.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n"));
  auto more = c.read_reply(10s);
  REQUIRE(more);
  CHECK(more->status == 200);
}

TEST_CASE_FIXTURE(hostile_fixture, "a pipelined stream is answered before the request after it") {
  start();
  raw_conn c{port};
  REQUIRE(c.send(completion_request(chat_body("hi", {{"stream", true}}))
                 + "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"));
  auto stream = c.read_reply(10s);
  REQUIRE(stream);
  CHECK(stream->headers["content-type"] == "text/event-stream");
  CHECK(stream->body.find("data: [DONE]") != std::string::npos);
  auto health = c.read_reply(10s);
  REQUIRE(health);
  CHECK(json::parse(health->body)["status"] == "ok");
}

TEST_CASE_FIXTURE(hostile_fixture, "a normal request is answered while 320 slow connections are open") {
  start();
  // Slowloris from four other loopback addresses, 80 connections each: a
  // header that is never finished.
  std::vector<std::unique_ptr<raw_conn>> slow;
  for (int i = 0; i < 320; ++i) {
    auto source = "127.0.0." + std::to_string(2 + i / 80);
    auto c = std::make_unique<raw_conn>(port, source);
    REQUIRE(c->connected());
    REQUIRE(c->send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"));
    slow.push_back(std::move(c));
  }
  CHECK(eventually([&] { return api->connections() >= 320; }));
  CHECK(normal_completion("through") == "[api:default] echo: through");
  CHECK(api->connections() >= 320);
}

TEST_CASE_FIXTURE(hostile_fixture, "slow headers are cut at the header timeout however they trickle") {
  limits.header_timeout = 1s;
  start();
  raw_conn silent{port};
  REQUIRE(silent.send("GET /health HTTP/1.1\r\n"));
  raw_conn trickle{port};
  std::atomic<bool> stop{false};
  std::thread dripper{[&] {
    // One header byte every 100 ms never completes within the timeout.
    std::string header = "GET /health HTTP/1.1\r\nX-Slow: ";
    trickle.send(header);
    while (!stop && trickle.send("a"))
      std::this_thread::sleep_for(100ms);
  }};
  CHECK(silent.closed_within(5s));
  CHECK(trickle.closed_within(5s));
  stop = true;
  dripper.join();
  CHECK(eventually([&] { return api->connections() == 0; }));
  CHECK(normal_completion("still here") == "[api:default] echo: still here");
}

TEST_CASE_FIXTURE(hostile_fixture, "at the per-client cap the oldest waiting connection makes room") {
  limits.max_connections_per_client = 4;
  start();
  std::vector<std::unique_ptr<raw_conn>> idle;
  for (int i = 0; i < 4; ++i)
    idle.push_back(std::make_unique<raw_conn>(port, "127.0.0.6"));
  CHECK(eventually([&] { return api->connections() == 4; }));
  raw_conn fifth{port, "127.0.0.6"};
  REQUIRE(fifth.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n"));
  auto ok = fifth.read_reply(10s);
  REQUIRE(ok);
  CHECK(ok->status == 200);
  CHECK(idle[0]->closed_within(5s));
  // Another client is not affected by this one's cap.
  CHECK(normal_completion("other") == "[api:default] echo: other");
}

TEST_CASE_FIXTURE(hostile_fixture, "at the per-client cap with every connection busy a new one gets 503") {
  limits.max_connections_per_client = 2;
  start();
  std::vector<std::unique_ptr<raw_conn>> busy;
  for (int i = 0; i < 2; ++i) {
    busy.push_back(std::make_unique<raw_conn>(port, "127.0.0.7"));
    REQUIRE(busy.back()->send(completion_request(chat_body("hang"))));
  }
  CHECK(eventually([&] { return api->connections() == 2; }));
  std::this_thread::sleep_for(100ms); // both requests are being answered
  raw_conn third{port, "127.0.0.7"};
  auto refused = third.read_reply(10s);
  REQUIRE(refused);
  CHECK(refused->status == 503);
  CHECK(error_json(*refused)["message"].get<std::string>().find(
          "too many connections from 127.0.0.7")
        != std::string::npos);
}

TEST_CASE_FIXTURE(hostile_fixture, "invalid UTF-8 anywhere in a request is a 400 naming where") {
  start();
  auto ask = [&](const std::string& request) {
    raw_conn c{port};
    REQUIRE(c.send(request));
    auto r = c.read_reply(10s);
    REQUIRE(r);
    CHECK(r->status == 400);
    return error_json(*r)["message"].get<std::string>();
  };
  auto message = [](const std::string& content_json) {
    return R"({"model":"m","messages":[{"role":"system","content":"ok"},)"
           R"({"role":"user","content":)"
           + content_json + "}]}";
  };
  CHECK(ask(completion_request(message("\"caf\xC3(\"")))
        == "invalid UTF-8 in messages[1].content (byte 87 of the request "
           "body)");
  CHECK(ask(completion_request(
          message("[{\"type\":\"text\",\"text\":\"a\"},"
                  "{\"type\":\"text\",\"text\":\"\xff\"}]")))
        .find("in messages[1].content[1].text")
        != std::string::npos);
  CHECK(ask(completion_request(
          "{\"session_id\":\"s\xed\xa0\x80\",\"messages\":[]}"))
        .find("in session_id") != std::string::npos);
  CHECK(ask(completion_request("{\"\xfe\":1,\"messages\":[]}"))
        .find("in a key of the document") != std::string::npos);
  CHECK(ask(completion_request(chat_body("fine"), "X-Note: caf\xe9\r\n"))
        == "invalid UTF-8 in the header X-Note");
  CHECK(ask("GET /v1/models\xff HTTP/1.1\r\nHost: x\r\n\r\n")
        == "invalid UTF-8 in the request path");
  // A valid request on the same server still works.
  CHECK(normal_completion("caf\xc3\xa9") == "[api:default] echo: caf\xc3\xa9");
}

TEST_CASE_FIXTURE(hostile_fixture, "a stream whose client never reads is dropped at the backlog bound") {
  caf::anon_send_exit(router, caf::exit_reason::user_shutdown);
  router = sys.spawn(flooding_router);
  limits.max_stream_backlog_bytes = 1 << 20;
  start();
  // A small receive buffer, and nothing is ever read.
  raw_conn sink{port, "127.0.0.8", 4096};
  REQUIRE(sink.send(completion_request(chat_body("flood", {{"stream", true}}))));
  CHECK(eventually([&] { return api->connections() == 0; }, 20s));
  CHECK(normal_completion("next") == "[api:default] echo: next");
}

TEST_CASE_FIXTURE(hostile_fixture, "a malformed request line or an oversized header is refused") {
  limits.max_header_bytes = 4096;
  start();
  raw_conn garbage{port};
  REQUIRE(garbage.send("HELLO\x01 WORLD\r\n\r\n"));
  auto bad = garbage.read_reply(10s);
  REQUIRE(bad);
  CHECK(bad->status == 400);
  CHECK(error_json(*bad)["message"].get<std::string>().find(
          "malformed HTTP request") == 0);
  raw_conn huge{port};
  REQUIRE(huge.send("GET /health HTTP/1.1\r\nX-Big: " + std::string(8192, 'b')
                    + "\r\n\r\n"));
  auto big = huge.read_reply(10s);
  REQUIRE(big);
  CHECK(big->status == 431);
}
