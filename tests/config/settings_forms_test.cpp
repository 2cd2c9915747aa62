// The WebUI settings pages' config edits (issue 20, part 2): each form lands
// in the user's own keys, the loader's checks reject a bad value naming its
// key path, secrets are kept when the page sends none and never appear in
// the view the page gets.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "config/settings_forms.hpp"

using namespace nb;
using nlohmann::json;
using ojson = nlohmann::ordered_json;

namespace {

const char* settings_user_file = R"({
  "myNotes": {"keep": [1, 2]},
  "agents": {"defaults": {"workspace": "/tmp/ws", "model": "m1",
                          "max_tokens": 1234}},
  "modelPresets": {"cheap": {"model": "small"}},
  "providers": {"custom": {"apiKey": "sk-provider-secret"}},
  "tools": {"exec": {"timeout": 60}, "mcpServers": {
    "fs": {"command": "node", "args": ["x.js"], "env": {"TOKEN": "mcp-env-secret"}}}},
  "channels": {
    "telegram": {"enabled": false, "token": "tg-secret-token", "allowFrom": ["1"]},
    "ws2": {"type": "websocket", "enabled": true, "port": 1, "allowFrom": ["*"]}}
})";

env_lookup no_env() {
  return [](const std::string&) -> std::optional<std::string> { return {}; };
}

settings_change ok(const settings_form& f, std::string_view text = settings_user_file) {
  auto r = apply_settings_form(text, f, "/tmp/c.json", no_env());
  if (auto* e = std::get_if<config_error>(&r))
    FAIL("unexpected error: " << e->message());
  return std::get<settings_change>(r);
}

config_error refused(const settings_form& f) {
  auto r = apply_settings_form(settings_user_file, f, "/tmp/c.json", no_env());
  REQUIRE(std::holds_alternative<config_error>(r));
  return std::get<config_error>(r);
}

settings_form form(settings_page page, json body, std::string name = {}) {
  return settings_form{page, std::move(name), std::move(body)};
}

} // namespace

TEST_CASE("the model page sets the model and fallbacks in the user's keys") {
  auto c = ok(form(settings_page::model,
                   {{"model", "m2"}, {"provider", "custom"},
                    {"fallback_models",
                     json::array({"cheap", {{"model", "m3"}}})}}));
  CHECK(c.loaded.value.agent.model == "m2");
  CHECK(c.loaded.value.agent.provider == "custom");
  REQUIRE(c.loaded.value.agent.fallback_models.size() == 2);
  CHECK(c.loaded.value.agent.fallback_models[0].preset == "cheap");
  CHECK(c.loaded.value.agent.fallback_models[1].model == "m3");
  auto root = ojson::parse(c.text);
  CHECK(root.begin().key() == "myNotes"); // order and unknown keys kept
  CHECK(root["agents"]["defaults"]["max_tokens"] == 1234); // its spelling
  CHECK(root["providers"]["custom"]["apiKey"] == "sk-provider-secret");
}

TEST_CASE("a bad value is refused with the loader's error naming the key") {
  auto e = refused(form(settings_page::model,
                        {{"fallback_models", json::array({"nope"})}}));
  CHECK(e.key_path == "agents.defaults.fallbackModels[0]");
  CHECK(e.message().find("unknown preset") != std::string::npos);
  e = refused(form(settings_page::tools, {{"exec_timeout", "soon"}}));
  CHECK(e.key_path == "tools.exec.timeout");
  e = refused(form(settings_page::model, {{"model", ""}}));
  CHECK(e.key_path == "agents.defaults.model");
  e = refused(form(settings_page::mcp, {{"type", "stdio"}}, "new"));
  CHECK(e.key_path == "tools.mcpServers.new.command");
  e = refused(form(settings_page::channel, {{"enabled", "yes"}}, "telegram"));
  CHECK(e.key_path.starts_with("channels.telegram"));
  e = refused(form(settings_page::agents, {{"bindings", json::object()}}));
  CHECK(e.key_path == "agents.bindings");
}

TEST_CASE("the tools page sets exec, the workspace restriction and search") {
  auto c = ok(form(settings_page::tools,
                   {{"exec_enable", false}, {"exec_timeout", 90},
                    {"restrict_to_workspace", false},
                    {"web_search_provider", "brave"},
                    {"web_search_api_key", "brave-key"}}));
  const auto& t = c.loaded.value.tools;
  CHECK_FALSE(t.exec.enable);
  CHECK(t.exec.timeout_s == 90);
  CHECK_FALSE(t.restrict_to_workspace);
  CHECK(t.web.search.provider == "brave");
  CHECK(t.web.search.api_key == "brave-key");
  // An empty key keeps the saved one.
  auto again = ok(form(settings_page::tools, {{"web_search_api_key", ""}}),
                  c.text);
  CHECK(again.loaded.value.tools.web.search.api_key == "brave-key");
}

TEST_CASE("a channel form keeps its token unless a new one is given") {
  auto c = ok(form(settings_page::channel,
                   {{"enabled", true}, {"allow_from", json::array({"7", "8"})},
                    {"group_policy", "open"},
                    {"secrets", {{"token", ""}}}},
                   "telegram"));
  auto root = ojson::parse(c.text);
  auto& tg = root["channels"]["telegram"];
  CHECK(tg["token"] == "tg-secret-token");
  CHECK(tg["enabled"] == true);
  CHECK(tg["allowFrom"] == ojson::array({"7", "8"}));
  CHECK(tg["groupPolicy"] == "open");
  // null allowFrom: pairing mode (the key goes).
  auto p = ok(form(settings_page::channel,
                   {{"allow_from", nullptr}, {"secrets", {{"token", "new"}}}},
                   "telegram"), c.text);
  auto tg2 = ojson::parse(p.text)["channels"]["telegram"];
  CHECK_FALSE(tg2.contains("allowFrom"));
  CHECK(tg2["token"] == "new");
  // Only secrets go through `secrets`.
  auto e = refused(form(settings_page::channel,
                        {{"secrets", {{"port", "9"}}}}, "ws2"));
  CHECK(e.key_path == "channels.ws2.port");
}

TEST_CASE("a new channel needs a free name and a type; its keys are set") {
  auto c = ok(
    form(settings_page::channel_add,
         {{"type", "telegram"},
          {"enabled", true},
          {"allow_from", json::array({"42"})},
          {"secrets", {{"token", "1:new"}}},
          {"options", {{"apiBase", "http://127.0.0.1:9"}, {"pollTimeout", 1}}}},
         "tg2"));
  auto root = ojson::parse(c.text);
  auto& tg = root["channels"]["tg2"];
  CHECK(tg["type"] == "telegram");
  CHECK(tg["token"] == "1:new");
  CHECK(tg["apiBase"] == "http://127.0.0.1:9");
  CHECK(tg["pollTimeout"] == 1);
  CHECK(c.loaded.value.channels.at("tg2").enabled);
  // The old channels stay as they were.
  CHECK(root["channels"]["telegram"]["token"] == "tg-secret-token");
  CHECK(refused(
          form(settings_page::channel_add, {{"type", "telegram"}}, "telegram"))
          .key_path
        == "channels.telegram");
  CHECK(
    refused(form(settings_page::channel_add, {{"enabled", true}}, "x")).key_path
    == "channels.x.type");
  // A secret never travels in plain options.
  CHECK(
    refused(form(settings_page::channel_add,
                 {{"type", "slack"}, {"options", {{"botToken", "t"}}}}, "sl"))
      .key_path
    == "channels.sl.botToken");
}

TEST_CASE("MCP servers are added with secrets kept, and removed") {
  auto c = ok(form(settings_page::mcp,
                   {{"command", "node"}, {"args", json::array({"y.js"})},
                    {"env", {{"TOKEN", ""}, {"MODE", "fast"}}},
                    {"tool_timeout", 20}},
                   "fs"));
  const auto& fs = c.loaded.value.tools.mcp_servers.at("fs");
  CHECK(fs.args == std::vector<std::string>{"y.js"});
  CHECK(fs.env.at("TOKEN") == "mcp-env-secret");
  CHECK(fs.env.at("MODE") == "fast");
  CHECK(fs.tool_timeout_s == 20);
  auto r = ok(form(settings_page::mcp_remove, json::object(), "fs"), c.text);
  CHECK(r.loaded.value.tools.mcp_servers.empty());
  CHECK(refused(form(settings_page::mcp_remove, json::object(), "none"))
          .key_path == "tools.mcpServers.none");
}

TEST_CASE("the view the page gets holds no secret values") {
  auto c = ok(form(settings_page::tools, {{"web_search_api_key", "brave-key"}}));
  auto raw = ojson::parse(c.text);
  auto view = settings_view(raw, c.loaded.value).dump();
  for (auto secret : {"sk-provider-secret", "tg-secret-token", "mcp-env-secret",
                      "brave-key"})
    CHECK_MESSAGE(view.find(secret) == std::string::npos, secret);
  auto v = json::parse(view);
  CHECK(v["tools"]["web_search_key_set"] == true);
  json tg;
  for (auto& ch : v["channels"])
    if (ch["name"] == "telegram")
      tg = ch;
  CHECK(tg["secrets_set"] == json::array({"token"}));
  CHECK(tg["allow_from"] == json::array({"1"}));
  CHECK(v["mcp_servers"][0]["env_keys"] == json::array({"TOKEN"}));
  CHECK(secret_key("botToken"));
  CHECK(secret_key("app_secret"));
  CHECK(secret_key("encodingAESKey"));
  CHECK_FALSE(secret_key("maxTokens"));
  CHECK_FALSE(secret_key("allowFrom"));
}
