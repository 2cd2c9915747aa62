// model_client streaming against the fake: deltas, tool-call rebuilding,
// idle timeouts, cut streams and cancellation.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "tests/provider/client_fixture.hpp"

using namespace nb;
using namespace nb::test;

TEST_CASE("streamed text deltas arrive in order") {
  fake_llm llm;
  auto s = stream_text({"The ", "quick ", "brown ", "fox"}, usage(7, 4));
  s.event_delay = milliseconds{5};
  llm.push(s);
  model_client client{choice_for(llm), fast()};
  recorder rec;
  auto r = client.chat(ask("go", true), rec.cb());
  CHECK(r.error.empty());
  CHECK(rec.deltas == std::vector<std::string>{"The ", "quick ", "brown ", "fox"});
  CHECK(r.content == "The quick brown fox");
  CHECK(r.usage.total_tokens == 11);
  auto body = llm.requests().at(0).body;
  CHECK(body["stream"] == true);
  CHECK(body["stream_options"]["include_usage"] == true);
}

TEST_CASE("streamed tool calls split across chunks are rebuilt by index") {
  fake_llm llm;
  llm.push(stream_tool_calls(
    {call("call_a", "read_file", json{{"path", "notes/today.md"}}),
     call("call_b", "list_dir", json{{"path", "."}, {"depth", 2}})},
    4));
  model_client client{choice_for(llm), fast()};
  auto r = client.chat(ask("look", true), {});
  CHECK(r.error.empty());
  CHECK(r.finish_reason == "tool_calls");
  REQUIRE(r.tool_calls.size() == 2);
  CHECK(r.tool_calls[0].id == "call_a");
  CHECK(r.tool_calls[0].name == "read_file");
  CHECK(json::parse(r.tool_calls[0].arguments_json)
        == json{{"path", "notes/today.md"}});
  CHECK(r.tool_calls[1].id == "call_b");
  CHECK(r.tool_calls[1].name == "list_dir");
  CHECK(json::parse(r.tool_calls[1].arguments_json)
        == json{{"path", "."}, {"depth", 2}});
}

TEST_CASE("a stalled stream hits the idle timeout") {
  fake_llm llm;
  for (int i = 0; i < 2; ++i) {
    auto s = stream_text({"Hel", "lo"});
    s.events.resize(2); // role chunk and "Hel", then silence
    s.stall = true;
    llm.push(s);
  }
  auto o = fast();
  o.retry_delays = {milliseconds{10}};
  model_client client{choice_for(llm), o};
  recorder rec;
  auto r = client.chat(ask("x", true), rec.cb());
  CHECK(r.finish_reason == "error");
  CHECK(r.error.find("no stream event for") != std::string::npos);
  // The timeout is retried even after text was shown, but the retry is
  // muted so the user never sees "Hel" twice.
  CHECK(r.attempts == 2);
  CHECK(rec.deltas == std::vector<std::string>{"Hel"});
}

TEST_CASE("a stream cut after text was shown is not retried") {
  fake_llm llm;
  auto s = stream_text({"Hel", "lo"});
  s.events.resize(2);
  s.cut = true;
  llm.push(s);
  model_client client{choice_for(llm), fast()};
  recorder rec;
  auto r = client.chat(ask("x", true), rec.cb());
  CHECK(r.finish_reason == "error");
  CHECK(r.attempts == 1);
  CHECK(llm.request_count() == 1);
  CHECK(rec.deltas == std::vector<std::string>{"Hel"});
}

TEST_CASE("a stream cut before any text is retried") {
  fake_llm llm;
  auto s = stream_text({"Hel", "lo"});
  s.events.resize(1);
  s.cut = true;
  llm.push(s);
  model_client client{choice_for(llm), fast()};
  auto r = client.chat(ask("x", true), {});
  CHECK(r.error.empty());
  CHECK(r.content == "echo: x");
  CHECK(r.attempts == 2);
}

TEST_CASE("ping comments during a stall do not keep the stream alive") {
  fake_llm llm;
  auto s = stream_text({"a"});
  s.events.resize(2);
  s.stall = true;
  s.ping_every = milliseconds{40};
  llm.push(s);
  auto o = fast();
  o.retry_delays = {};
  model_client client{choice_for(llm), o};
  auto r = client.chat(ask("x", true), {});
  CHECK(r.finish_reason == "error");
  CHECK(r.error.find("no stream event for") != std::string::npos);
  CHECK(r.attempts == 1);
}

TEST_CASE("slow but active streams are not cut") {
  fake_llm llm;
  auto s = stream_text({"a", "b", "c", "d", "e", "f"});
  s.event_delay = milliseconds{50}; // 10 events: well past the idle timeout
  llm.push(s);
  model_client client{choice_for(llm), fast()};
  auto r = client.chat(ask("x", true), {});
  CHECK(r.error.empty());
  CHECK(r.content == "abcdef");
}

TEST_CASE("a JSON answer to a stream request still reaches the caller") {
  fake_llm llm;
  llm.push(text("whole"));
  model_client client{choice_for(llm), fast()};
  recorder rec;
  auto r = client.chat(ask("x", true), rec.cb());
  CHECK(r.content == "whole");
  CHECK(rec.deltas == std::vector<std::string>{"whole"});
}

TEST_CASE("cancelling aborts a stalled call quickly") {
  fake_llm llm;
  auto s = stream_text({"a"});
  s.events.resize(2);
  s.stall = true;
  llm.push(s);
  auto stop = std::make_shared<std::atomic<bool>>(false);
  auto o = fast();
  o.stream_idle_timeout = milliseconds{30'000};
  model_client client{choice_for(llm), o, stop};
  std::thread canceller{[stop] {
    std::this_thread::sleep_for(milliseconds{200});
    stop->store(true);
  }};
  auto r = client.chat(ask("x", true), {});
  canceller.join();
  CHECK(r.finish_reason == "error");
  CHECK(r.error == "Model request cancelled.");
}
