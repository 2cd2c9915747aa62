// A running gateway's config.json edited by hand (the real executable, its
// API, the scripted LLM): the next turn uses the edited model, as the
// original gateway's does; an edit that does not load is logged with its
// reason and the running settings stay.
#include <doctest/doctest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/integration/gateway_home.hpp"
#include "tests/support/eventually.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

namespace {

/// The model the fake LLM was last asked for.
std::string last_model_asked(const fake_llm& llm) {
  auto all = llm.requests();
  REQUIRE_FALSE(all.empty());
  return all.back().body.value("model", "");
}

/// A turn through the API without naming a model (the API refuses a
/// model other than the one it was started with, as the original's).
httplib::Result ask(const home_with_config& h, const std::string& text) {
  httplib::Client cli{"127.0.0.1", h.api_port};
  cli.set_read_timeout(30, 0);
  json body{{"messages", {{{"role", "user"}, {"content", text}}}},
            {"session_id", "watch"}};
  return cli.Post("/v1/chat/completions", body.dump(), "application/json");
}

json edited_config(const home_with_config& h, const std::string& model) {
  std::ifstream in{h.config};
  auto cfg = json::parse(in);
  cfg["agents"]["defaults"]["model"] = model;
  return cfg;
}

/// Threads of process `pid`: more than one once its actor system runs,
/// which is after it read its settings.
size_t thread_count(pid_t pid) {
  std::error_code ec;
  auto dir = "/proc/" + std::to_string(pid) + "/task";
  size_t n = 0;
  for (auto it = std::filesystem::directory_iterator{dir, ec};
       !ec && it != std::filesystem::directory_iterator{}; it.increment(ec))
    ++n;
  return n;
}

} // namespace

TEST_CASE("an edit while the gateway starts is not taken as its settings") {
  fake_llm llm;
  home_with_config h{custom_provider(llm)};
  auto edited = edited_config(h, "edited-model").dump(2);
  auto gw = h.start_gateway();
  // Written once the gateway has read its settings and is starting its
  // actors: the watch's first look must still see an edit, not the start.
  REQUIRE(eventually([&] { return thread_count(gw.pid()) > 1; }));
  std::ofstream{h.config} << edited;
  REQUIRE(eventually(
    [&] {
      auto r = ask(h, "hello");
      return r && r->status == 200 && last_model_asked(llm) == "edited-model";
    },
    std::chrono::seconds(20)));
  gw.signal(SIGTERM);
  CHECK(gw.wait(std::chrono::seconds(30)) == 0);
}

TEST_CASE("a hand edit of config.json applies from the next turn") {
  fake_llm llm;
  home_with_config h{custom_provider(llm)};
  auto gw = h.start_gateway();
  REQUIRE(eventually([&] {
    auto r = ask(h, "one");
    return r && r->status == 200;
  }));
  CHECK(last_model_asked(llm) == "test-model");

  // Written in place, as an editor that truncates and writes does.
  auto edited = edited_config(h, "edited-model").dump(2);
  std::ofstream{h.config} << edited;
  REQUIRE(gw.wait_for_log("its provider and tools settings apply from the "
                          "next turn",
                          std::chrono::seconds(20)));
  auto r = ask(h, "two");
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(last_model_asked(llm) == "edited-model");

  // A broken edit: named in the log, and the gateway keeps the edited model.
  std::ofstream{h.config} << "{\"agents\": ";
  REQUIRE(gw.wait_for_log("was not applied", std::chrono::seconds(20)));
  r = ask(h, "three");
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(last_model_asked(llm) == "edited-model");

  gw.signal(SIGTERM);
  CHECK(gw.wait(std::chrono::seconds(30)) == 0);
}
