// my against the original's contract (agent/tools/self.py): the overview's
// lines in its order and Python's notation, dot paths, the turn's routing,
// the names it refuses, `set` refused as with tools.my.allowSet false, and
// no secret anywhere in what it says.
#include <doctest/doctest.h>

#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/my_format.hpp"
#include "tests/tools/fixture.hpp"

using namespace nb;
using nb::test::has;
using nlohmann::json;

namespace {

struct my_fixture {
  test::temp_tree tree;
  settings cfg;
  tool_context ctx;
  my_fixture() {
    cfg = test::settings_for(tree.ws);
    cfg.agent.model = "anthropic/claude-opus-4-5";
    cfg.providers["openrouter"].api_key = "sk-or-SECRET-1";
    cfg.tools.web.search.api_key = "BRAVE-SECRET-2";
    ctx = make_tool_context(cfg, "cli:direct");
    ctx.channel = "cli";
    ctx.chat_id = "direct";
    ctx.turn_json = json{
      {"model", "openai/gpt-4.1"},
      {"model_preset", nullptr},
      {"context_window_tokens", 65536},
      {"max_iterations", 20},
      {"current_iteration", 3},
      {"last_usage",
       {{"prompt_tokens", 10}, {"completion_tokens", 5}, {"total_tokens", 15}}},
      {"tool_names", {"my", "read_file"}},
      {"max_tool_result_chars", 16000},
      {"sender_id",
       "u1"}}.dump();
  }
  tool_output check(const std::string& key = "") {
    json args{{"action", "check"}};
    if (!key.empty())
      args["key"] = key;
    return test::run(ctx, "my", args);
  }
};

} // namespace

TEST_CASE("my: the schema and flags are the original's") {
  auto reg = make_builtin_registry(settings{});
  auto* tool = reg.find("my");
  REQUIRE(tool);
  CHECK_FALSE(tool->spec.read_only);
  CHECK_FALSE(tool->spec.exclusive);
  auto schema = json::parse(tool->spec.parameters_json);
  CHECK(schema["required"] == json{"action"});
  CHECK(schema["properties"]["action"]["enum"] == json{"check", "set"});
  CHECK(schema["properties"].contains("key"));
  CHECK(schema["properties"].contains("value"));
  settings off;
  off.tools.my_enable = false;
  CHECK(make_builtin_registry(off).find("my") == nullptr);
}

TEST_CASE("my: Python's notation, as the original prints values") {
  using oj = nlohmann::ordered_json;
  CHECK(py_repr(oj("it's")) == "\"it's\"");
  CHECK(py_repr(oj("a\"b")) == "'a\"b'");
  CHECK(py_repr(oj("x\ny")) == "'x\\ny'");
  CHECK(py_repr(oj(1.0)) == "1.0");
  CHECK(py_repr(oj{{"b", true}, {"a", nullptr}}) == "{'b': True, 'a': None}");
  oj many = oj::array();
  for (int i = 0; i < 21; ++i)
    many.push_back(i);
  CHECK(my_format_value(many, "xs") == "xs: [21 items]");
  oj wide = oj::object();
  for (int i = 0; i < 17; ++i)
    wide["k" + std::to_string(i)] = i;
  CHECK(my_format_value(wide, "")
        == "{k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10, k11, k12, k13, "
           "k14, ...}");
}

TEST_CASE("my: check without a key is the original's overview") {
  my_fixture f;
  auto r = f.check();
  REQUIRE_MESSAGE(!r.is_error, r.content);
  CHECK(
    r.content
    == "max_iterations: 20\n"
       "context_window_tokens: 65536\n"
       "model: 'openai/gpt-4.1'\n"
       "model_preset: None\n"
       "workspace: PosixPath('"
         + f.tree.ws
         + "')\n"
           "provider_retry_mode: 'standard'\n"
           "max_tool_result_chars: 16000\n"
           "_current_iteration: 3\n"
           "web_config: {'enable': True, 'proxy': None, 'user_agent': None, "
           "'search': {'provider': 'duckduckgo', 'base_url': '', "
           "'max_results': 5, 'timeout': 30}, 'fetch': {'use_jina_reader': "
           "True}}\n"
           "exec_config: {enable, timeout, path_prepend, path_append, "
           "sandbox, sandbox_ro_binds, sandbox_rw_binds, allowed_env_keys, "
           "allow_patterns, deny_patterns}\n"
           "subagents: {}\n"
           "_last_usage: {'completion_tokens': 5, 'prompt_tokens': 10, "
           "'total_tokens': 15}");
  // Outside a turn the settings answer.
  f.ctx.turn_json = "{}";
  auto bare = f.check();
  CHECK(has(bare.content, "max_iterations: 200\n"));
  CHECK(has(bare.content, "model: 'anthropic/claude-opus-4-5'\n"));
  CHECK_FALSE(has(bare.content, "_last_usage"));
}

TEST_CASE("my: dot paths, the turn's routing and the values it refuses") {
  my_fixture f;
  CHECK(f.check("_last_usage.prompt_tokens").content
        == "_last_usage.prompt_tokens: 10");
  CHECK(f.check("web_config.search.max_results").content
        == "web_config.search.max_results: 5");
  CHECK(f.check("tool_names").content == "tool_names: ['my', 'read_file']");
  CHECK(f.check("exec_config.timeout").content == "exec_config.timeout: 60");
  CHECK(f.check("request.chat_id").content == "request.chat_id: 'direct'");
  CHECK(f.check("request").content
        == "request: {'channel': 'cli', 'chat_id': 'direct', "
           "'sender_id': 'u1'}");
  CHECK(f.check("scratchpad").content == "scratchpad is empty");
  struct refusal {
    const char* key;
    const char* text;
  };
  for (auto [key, text] :
       {refusal{"request.foo", "Error: 'request.foo' not found"},
        refusal{"provider", "Error: 'provider' is not accessible"},
        refusal{"tools", "Error: 'tools' is not accessible"},
        refusal{"web_config.search.api_key",
                "Error: 'api_key' is not accessible"},
        refusal{"__class__", "Error: '__class__' is not accessible"},
        refusal{"nope", "Error: 'nope' not found in mapping"},
        refusal{"model.x", "Error: 'x' not found"}}) {
    auto r = f.check(key);
    CHECK_MESSAGE(r.is_error, key);
    CHECK_MESSAGE(has(r.content, text), r.content);
  }
  auto set = test::run(
    f.ctx, "my", {{"action", "set"}, {"key", "max_iterations"}, {"value", 50}});
  CHECK(set.is_error);
  CHECK(
    has(set.content, "Error: set is disabled (tools.my.allow_set is false)"));
  auto bad = test::run(f.ctx, "my", {{"action", "drop"}});
  CHECK(bad.is_error); // outside the schema's enum
}

TEST_CASE("my: no secret in anything it says") {
  my_fixture f;
  f.cfg.tools.exec.allowed_env_keys = {"GOPATH"};
  std::string all;
  for (auto* key : {"", "web_config", "web_config.search", "exec_config",
                    "model_presets", "request", "_last_usage"})
    all += f.check(key).content + "\n";
  CHECK_FALSE(has(all, "SECRET"));
  CHECK_FALSE(has(all, "sk-or"));
}
