// /model through the real actor tree: listing, switching (the next model
// request carries the preset's settings), surviving a restart, and the
// usage figures per turn, in /status, /stats (the chat's) and GET /stats
// (the gateway's) adding up.
#include <doctest/doctest.h>

#include <memory>
#include <thread>

#include <caf/scoped_actor.hpp>

#include "actors/store/session_files.hpp"
#include "actors/supervisor/runtime.hpp"
#include "tests/integration/gateway_fixture.hpp"
#include "tests/integration/harness.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

namespace {

void with_presets(settings& s) {
  model_preset fast;
  fast.model = "fast-model";
  fast.provider = "custom";
  fast.max_tokens = 1000;
  fast.context_window_tokens = 32000;
  fast.temperature = 0.5;
  s.model_presets["fast"] = fast;
  model_preset tiny;
  tiny.model = "tiny-model";
  tiny.provider = "custom";
  tiny.max_tokens = 500;
  tiny.context_window_tokens = 3000;
  tiny.temperature = 0.2;
  s.model_presets["Tiny"] = tiny;
}

struct model_gateway : gateway_fixture {
  model_gateway() : gateway_fixture([](settings& s, fake_llm&) { with_presets(s); }) {}

  chat_reply say(const std::string& text) { return say_in("m1", text); }

  json last_body() { return llm.requests().back().body; }

  json session_meta() {
    auto snap = load_session(*resolve_sessions_dir(cfg), "test:m1");
    REQUIRE(snap);
    return json::parse(snap->metadata_json);
  }

  /// /stats as JSON once `pred` holds (samples arrive asynchronously).
  template <class Pred>
  json stats_when(Pred pred) {
    json doc;
    for (int i = 0; i < 100; ++i) {
      caf::scoped_actor self{rt->system()};
      self->request(rt->stats(), std::chrono::seconds(5), stats_atom::value,
                    std::string{"json"})
        .receive([&](std::string& s) { doc = json::parse(s); },
                 [](caf::error&) {});
      if (pred(doc))
        return doc;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return doc;
  }
};

json usage_with(int prompt, int completion, int cached) {
  auto u = usage(prompt, completion);
  if (cached > 0)
    u["prompt_tokens_details"] = {{"cached_tokens", cached}};
  return u;
}

/// A reply asking for list_dir, with the given usage.
fake_response list_dir_call(json u) {
  json call{{"id", "c1"},
            {"type", "function"},
            {"function", {{"name", "list_dir"},
                          {"arguments", R"({"path":"."})"}}}};
  return completion({{"role", "assistant"},
                     {"content", nullptr},
                     {"tool_calls", json::array({call})}},
                    "tool_calls", std::move(u));
}

} // namespace

TEST_CASE("model: the list shows every preset and marks the current one") {
  model_gateway gw;
  // The first line; the memory's figures follow.
  CHECK(gw.say("/stats").content.rfind(
          "📊 No token use recorded in this conversation yet.\n🗂 Memory: ", 0)
        == 0);
  auto r = gw.say("/model");
  REQUIRE_FALSE(r.timed_out);
  CHECK(r.content.find("🧠 Model: test-model — preset default")
        != std::string::npos);
  CHECK(r.content.find("• default — test-model (provider custom")
        != std::string::npos);
  CHECK(r.content.find("test-model (provider custom, context 200.0k, up to "
                       "8192 output tokens) ← current")
        != std::string::npos);
  CHECK(r.content.find("• fast — fast-model (provider custom, context 32.0k, "
                       "up to 1000 output tokens)\n")
        != std::string::npos);
  CHECK(r.content.find("• Tiny — tiny-model") != std::string::npos);
  CHECK(gw.llm.request_count() == 0);
  auto help = gw.say("/help");
  CHECK(help.content.find("/model [preset]") != std::string::npos);
}

TEST_CASE("model: a switch changes the next request and default goes back") {
  model_gateway gw;
  gw.say("hello");
  CHECK(gw.last_body()["model"] == "test-model");
  auto sw = gw.say("/model FAST");
  CHECK(sw.content.find("Switched this chat to preset fast: fast-model")
        != std::string::npos);
  gw.say("and now?");
  auto body = gw.last_body();
  CHECK(body["model"] == "fast-model");
  CHECK(body["max_tokens"] == 1000);
  CHECK(body["temperature"] == doctest::Approx(0.5));
  auto again = gw.say("/model fast");
  CHECK(again.content.find("already uses preset fast") != std::string::npos);
  auto listed = gw.say("/model");
  CHECK(listed.content.find("• fast — fast-model (provider custom, context "
                            "32.0k, up to 1000 output tokens) ← current")
        != std::string::npos);
  auto status = gw.say("/status");
  CHECK(status.content.find("🧠 Model: fast-model (preset fast)")
        != std::string::npos);
  CHECK(status.content.find("/32.0k") != std::string::npos);
  auto back = gw.say("/model default");
  CHECK(back.content.find("Switched this chat to preset default: test-model")
        != std::string::npos);
  gw.say("back?");
  CHECK(gw.last_body()["model"] == "test-model");
  CHECK(gw.last_body()["max_tokens"] == 8192);
  CHECK_FALSE(gw.session_meta().contains("model_preset"));
  // Another chat never saw the switch.
  chat(gw.rt->system(), gw.rt->router(), "test", "other", "hi");
  CHECK(gw.last_body()["model"] == "test-model");
}

TEST_CASE("model: an unknown preset gets a did-you-mean and changes nothing") {
  model_gateway gw;
  auto r = gw.say("/model fsat");
  CHECK(r.content.find("Unknown model preset \"fsat\". Did you mean \"fast\"?")
        != std::string::npos);
  CHECK(r.content.find("Available: default, Tiny, fast.") != std::string::npos);
  auto far = gw.say("/model gpt-9000");
  CHECK(far.content.find("Unknown model preset \"gpt-9000\". Available:")
        != std::string::npos);
  auto two = gw.say("/model fast tiny");
  CHECK(two.content.find("Usage: /model [preset]") != std::string::npos);
  gw.say("still default?");
  CHECK(gw.last_body()["model"] == "test-model");
}

TEST_CASE("model: the choice is in the session file and survives a restart") {
  model_gateway gw;
  gw.say("/model tiny");
  CHECK(gw.session_meta()["model_preset"] == "Tiny");
  gw.rt->shutdown(std::chrono::seconds(5));
  gw.rt.reset();
  gw.rt = std::make_unique<runtime>(gw.cfg);
  gw.say("after the restart");
  CHECK(gw.last_body()["model"] == "tiny-model");
  CHECK(gw.last_body()["max_tokens"] == 500);
  // /new starts a fresh conversation but keeps the chat's model.
  gw.say("/new");
  CHECK(gw.session_meta()["model_preset"] == "Tiny");
  gw.say("fresh");
  CHECK(gw.last_body()["model"] == "tiny-model");
}

TEST_CASE("model: the preset's context window sizes the history sent") {
  model_gateway gw;
  std::string big(4000, 'x');
  for (int i = 0; i < 3; ++i)
    gw.say("part " + std::to_string(i) + " " + big);
  gw.say("count them");
  auto with_default = gw.last_body()["messages"].size();
  gw.say("/model tiny"); // 3000 tokens of context, 500 of output
  gw.say("count them again");
  auto with_tiny = gw.last_body()["messages"].size();
  CHECK(with_default >= 8);
  CHECK(with_tiny < with_default);
  CHECK(gw.last_body()["model"] == "tiny-model");
}

TEST_CASE("usage: per turn in the session file and status and per model in stats") {
  model_gateway gw;
  // Turn 1 (default model): a tool call and an answer, 2 requests.
  gw.llm.push(list_dir_call(usage_with(100, 20, 40)));
  gw.llm.push(text("the files", usage_with(150, 30, 100)));
  auto r1 = gw.say("what files?");
  CHECK(r1.content == "the files");
  // The reply carries the turn's usage for the channel (the WebUI's
  // context use): the last request's prompt is the context.
  auto meta1 = json::parse(r1.metadata_json);
  CHECK(meta1["usage"]["prompt_tokens"] == 250);
  CHECK(meta1["usage"]["cached_tokens"] == 140);
  CHECK(meta1["usage"]["total_tokens"] == 300);
  CHECK(meta1["usage"]["context_tokens"] == 150);
  CHECK(meta1["context_window_tokens"] == gw.cfg.agent.context_window_tokens);
  // Turn 2 on the fast preset: one request.
  gw.say("/model fast");
  gw.llm.push(text("quick", usage_with(70, 7, 0)));
  gw.say("quick one");
  auto msgs = session_messages(gw.cfg, "test:m1");
  std::vector<json> records;
  for (auto& m : msgs)
    if (m.contains("usage"))
      records.push_back(m);
  REQUIRE(records.size() == 2);
  CHECK(records[0]["content"] == "the files");
  CHECK(records[0]["model"] == "test-model");
  CHECK(records[0]["usage"]["prompt_tokens"] == 250);
  CHECK(records[0]["usage"]["completion_tokens"] == 50);
  CHECK(records[0]["usage"]["cached_tokens"] == 140);
  CHECK(records[0]["usage"]["total_tokens"] == 300);
  CHECK(records[0]["usage"]["context_tokens"] == 150);
  CHECK(records[0]["usage"]["requests"] == 2);
  CHECK(records[1]["model"] == "fast-model");
  CHECK(records[1]["usage"]["prompt_tokens"] == 70);
  CHECK(records[1]["usage"]["completion_tokens"] == 7);
  auto status = gw.say("/status");
  CHECK(status.content.find("📊 Tokens (last turn): 70 in / 7 out (0% cached)")
        != std::string::npos);
  auto doc = gw.stats_when([](const json& d) {
    return d.contains("provider") && d["provider"]["calls_ok"] == 3;
  });
  auto& p = doc["provider"];
  auto& by = p["by_model"];
  CHECK(by["test-model"]["calls"] == 2);
  CHECK(by["test-model"]["prompt_tokens"] == 250);
  CHECK(by["test-model"]["completion_tokens"] == 50);
  CHECK(by["test-model"]["cached_tokens"] == 140);
  CHECK(by["fast-model"]["calls"] == 1);
  CHECK(by["fast-model"]["prompt_tokens"] == 70);
  CHECK(by["fast-model"]["completion_tokens"] == 7);
  // The totals are the sums over models and over the turns' records.
  int64_t prompt = 0, completion = 0, cached = 0;
  for (auto& [_, m] : by.items()) {
    prompt += m["prompt_tokens"].get<int64_t>();
    completion += m["completion_tokens"].get<int64_t>();
    cached += m["cached_tokens"].get<int64_t>();
  }
  CHECK(p["prompt_tokens"] == prompt);
  CHECK(p["completion_tokens"] == completion);
  CHECK(p["cached_tokens"] == cached);
  int64_t recorded = 0;
  for (auto& r : records)
    recorded += r["usage"]["prompt_tokens"].get<int64_t>();
  CHECK(recorded == prompt);
  // /stats adds this conversation's records up per model and in total.
  auto chat_stats = gw.say("/stats").content;
  CHECK(chat_stats.find("• fast-model: 1 turn(s), 1 request(s), 70 in / 7 "
                        "out (0% cached)")
        != std::string::npos);
  CHECK(chat_stats.find("• test-model: 1 turn(s), 2 request(s), 250 in / 50 "
                        "out (56% cached)")
        != std::string::npos);
  CHECK(chat_stats.find("• total: 2 turn(s), 3 request(s), 320 in / 57 out "
                        "(43% cached)")
        != std::string::npos);
  // After a restart /status still knows the last turn.
  gw.rt.reset();
  gw.rt = std::make_unique<runtime>(gw.cfg);
  auto later = gw.say("/status");
  CHECK(later.content.find("📊 Tokens (last turn): 70 in / 7 out")
        != std::string::npos);
  CHECK(later.content.find("fast-model (preset fast)") != std::string::npos);
}
