// New provider settings for a running provider actor (provider_config, the
// WebUI's setup): they take effect without a restart, requests for the
// start-up default model follow the new default, replaced workers do not
// keep calling the old endpoint, a bad config is refused naming its key,
// and the status never carries the key. Real HTTP to two scripted LLMs.
#include <doctest/doctest.h>

#include <chrono>

#include <caf/all.hpp>

#include "actors/provider/provider.hpp"
#include "messages/provider_admin.hpp"
#include "messages/type_ids.hpp"
#include "tests/support/fake_llm_key.hpp"

namespace {

using namespace nb;
using namespace nb::test;
using json = nlohmann::json;

caf::actor_system_config& swap_config(caf::actor_system_config& cfg) {
  register_messages(cfg);
  cfg.set("scheduler.max-threads", 2);
  return cfg;
}

struct swap_env {
  caf::actor_system_config cfg;
  caf::actor_system sys{swap_config(cfg)};
};

/// What a session sends: the model and provider the gateway started with.
model_request as_session(const settings& boot, std::string text) {
  model_request r;
  r.request_id = "k:1:0";
  r.model = boot.agent.model;
  r.provider = boot.agent.provider;
  r.messages_json = json::array({{{"role", "user"}, {"content", text}}}).dump();
  return r;
}

std::string config_for(const fake_llm& llm, const std::string& key) {
  return json{{"agents", {{"defaults", {{"model", "fake-model"},
                                        {"provider", "custom"}}}}},
              {"providers", {{"custom", {{"apiBase", llm.base_url()},
                                         {"apiKey", key}}}}}}
    .dump();
}

model_reply call(caf::actor_system& sys, const provider_actor& p,
                 const model_request& req) {
  caf::scoped_actor self{sys};
  model_reply out;
  self->request(p, std::chrono::seconds(10), req)
    .receive([&](model_reply& r) { out = std::move(r); },
             [&](caf::error& err) { FAIL(sys.render(err)); });
  return out;
}

std::string swap(caf::actor_system& sys, const provider_actor& p,
                 std::string text) {
  caf::scoped_actor self{sys};
  std::string error;
  self->request(caf::actor_cast<provider_admin_actor>(p),
                std::chrono::seconds(10),
                provider_config{std::move(text), "/x/config.json"})
    .receive([](caf::ok_atom) {},
             [&](caf::error& err) { error = sys.render(err); });
  return error;
}

json status(caf::actor_system& sys, const provider_actor& p) {
  caf::scoped_actor self{sys};
  json out;
  self->request(caf::actor_cast<provider_admin_actor>(p),
                std::chrono::seconds(10), provider_status_atom::value)
    .receive([&](std::string& s) { out = json::parse(s); },
             [&](caf::error& err) { FAIL(sys.render(err)); });
  return out;
}

} // namespace

TEST_CASE("new provider settings take effect without a restart") {
  fake_llm first;
  fake_llm second;
  require_key(first, "key-one-1234567");
  require_key(second, "key-two-7654321");
  swap_env e;
  settings boot; // a fresh home: the default model, no key anywhere
  auto provider = spawn_provider(e.sys, boot, stats_actor{});

  auto before = call(e.sys, provider, as_session(boot, "hello"));
  CHECK(before.finish_reason == "error");
  CHECK_FALSE(status(e.sys, provider)["ready"].get<bool>());

  REQUIRE(swap(e.sys, provider, config_for(first, "key-one-1234567")) == "");
  auto st = status(e.sys, provider);
  CHECK(st["ready"] == true);
  CHECK(st["provider"] == "custom");
  CHECK(st["model"] == "fake-model");
  CHECK(st["api_base"] == first.base_url());
  CHECK(st.dump().find("key-one") == std::string::npos);

  auto reply = call(e.sys, provider, as_session(boot, "hello"));
  CHECK(reply.content.rfind("echo: hello", 0) == 0);
  REQUIRE(first.request_count() == 1);
  CHECK(first.requests()[0].body["model"] == "fake-model");
  CHECK(first.requests()[0].headers["authorization"]
        == "Bearer key-one-1234567");

  // A model asked for by name is not the default: it stays as asked.
  auto named = as_session(boot, "named");
  named.model = "other-model";
  named.provider = "custom";
  call(e.sys, provider, named);
  REQUIRE(first.request_count() == 2);
  CHECK(first.requests()[1].body["model"] == "other-model");

  // Again, to another endpoint: the worker that called the first is gone.
  REQUIRE(swap(e.sys, provider, config_for(second, "key-two-7654321")) == "");
  reply = call(e.sys, provider, as_session(boot, "again"));
  CHECK(reply.content.rfind("echo: again", 0) == 0);
  CHECK(first.request_count() == 2);
  CHECK(second.request_count() == 1);

  // A config that does not load is refused, naming the key; nothing changes.
  auto err = swap(e.sys, provider,
                  R"({"agents": {"defaults": {"maxTokens": "many"}}})");
  CHECK(err.find("agents.defaults.maxTokens") != std::string::npos);
  CHECK(status(e.sys, provider)["api_base"] == second.base_url());
  caf::anon_send_exit(provider, caf::exit_reason::user_shutdown);
}
