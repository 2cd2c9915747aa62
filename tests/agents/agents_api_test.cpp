// Choosing an agent from outside: the API's model field and /v1/models,
// over real sockets into the real runtime and the scripted LLM.
#include <doctest/doctest.h>

#include <fstream>

#include <httplib.h>

#include "actors/channels/api/api_server.hpp"
#include "actors/supervisor/runtime.hpp"
#include "config/load.hpp"
#include "tests/integration/harness.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

namespace {

settings agents_home(const temp_home& home, const fake_llm& llm) {
  auto ws = [&](const char* n) { return (home.dir / n).string(); };
  auto text = R"({"providers": {"custom": {"apiBase": ")" + llm.base_url()
              + R"("}},
    "agents": {"defaults": {"workspace": ")" + ws("main") + R"(",
                            "model": "main-model", "provider": "custom"},
      "list": [{"id": "work", "model": "work-model", "workspace": ")"
              + ws("work") + R"("},
               {"id": "family", "model": "family-model", "workspace": ")"
              + ws("family") + R"("}],
      "bindings": [{"agent": "family", "channel": "api"}]}})";
  std::ofstream{home.dir / "config.json"} << text;
  auto r = load_settings((home.dir / "config.json").string());
  if (auto* e = std::get_if<config_error>(&r))
    FAIL(e->message());
  return std::get<loaded_settings>(r).value;
}

std::string body(const std::string& model, const std::string& text) {
  return json{{"model", model},
              {"messages", json::array({{{"role", "user"}, {"content", text}}})}}
    .dump();
}

} // namespace

TEST_CASE("the API lists the agents and model: <agent id> selects one") {
  temp_home home;
  fake_llm llm;
  auto cfg = agents_home(home, llm);
  cfg.api.port = 0; // any free port (the config file cannot say 0)
  runtime rt{cfg};
  api_server api{rt.system(), rt.router(), cfg};
  httplib::Client cli{"127.0.0.1", api.port()};
  cli.set_read_timeout(30, 0);
  auto models = cli.Get("/v1/models");
  REQUIRE(models);
  CAPTURE(models->body);
  std::vector<std::string> ids;
  auto listed = json::parse(models->body); // outlives the loop below
  for (const auto& m : listed["data"])
    ids.push_back(m["id"].get<std::string>());
  CHECK(ids == std::vector<std::string>{"main-model", "main", "work",
                                        "family"});
  auto work = cli.Post("/v1/chat/completions", body("work", "hi work"),
                       "application/json");
  REQUIRE(work);
  CHECK(work->status == 200);
  CHECK(json::parse(work->body)["model"] == "work");
  // Any other model name: the bindings (channel "api" -> family).
  auto other = cli.Post("/v1/chat/completions", body("gpt-4o", "hi there"),
                        "application/json");
  REQUIRE(other);
  CHECK(other->status == 200);
  auto main = cli.Post("/v1/chat/completions", body("main", "hi main"),
                       "application/json");
  REQUIRE(main);
  auto reqs = llm.requests();
  REQUIRE(reqs.size() == 3);
  CHECK(reqs[0].body["model"] == "work-model");
  CHECK(reqs[1].body["model"] == "family-model");
  CHECK(reqs[2].body["model"] == "main-model");
  CHECK_FALSE(session_messages(cfg, "work:api:default").empty());
  CHECK_FALSE(session_messages(cfg, "family:api:default").empty());
  CHECK_FALSE(session_messages(cfg, "api:default").empty());
}
