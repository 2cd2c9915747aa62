// Provider selection rules as a table: explicit provider, model prefix,
// keywords, a configured local apiBase, the first provider with a key
// (config or environment), and the problems a user reads.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "actors/provider/provider_registry.hpp"

using namespace nb;

namespace {

struct row {
  const char* what;
  std::string model;
  std::string provider; ///< agents.defaults.provider
  /// providers.<name> = "key:<k>" or "base:<url>" (both: "key:k|base:u").
  std::map<std::string, std::string> config;
  std::map<std::string, std::string> env;
  // expected
  std::string name;      ///< "" = not ready
  std::string sent;      ///< model on the wire
  std::string reason;    ///< substring of choice.reason
  std::string problem;   ///< substring of choice.problem ("" = ready)
  wire_api api = wire_api::openai;
};

provider_settings parse(const std::string& spec) {
  provider_settings p;
  size_t start = 0;
  while (start < spec.size()) {
    auto bar = spec.find('|', start);
    auto part = spec.substr(start, bar == std::string::npos ? std::string::npos
                                                            : bar - start);
    if (part.starts_with("key:"))
      p.api_key = part.substr(4);
    else if (part.starts_with("base:"))
      p.api_base = part.substr(5);
    start = bar == std::string::npos ? spec.size() : bar + 1;
  }
  return p;
}

const std::vector<row>& table() {
  static const std::vector<row> rows{
    {"explicit provider wins over keywords", "claude-x", "openrouter",
     {{"openrouter", "key:or"}, {"anthropic", "key:an"}}, {},
     "openrouter", "claude-x", "agents.defaults.provider", ""},
    {"prefix names the provider and is stripped", "deepseek/deepseek-chat",
     "auto", {{"deepseek", "key:ds"}, {"openrouter", "key:or"}}, {},
     "deepseek", "deepseek-chat", "model prefix \"deepseek/\"", ""},
    {"prefix without a key falls to the gateway", "deepseek/deepseek-chat",
     "auto", {{"openrouter", "key:or"}}, {}, "openrouter",
     "deepseek/deepseek-chat", "first provider with an API key", ""},
    {"anthropic prefix speaks the Messages API", "anthropic/claude-opus-4-5",
     "auto", {{"anthropic", "key:an"}}, {}, "anthropic", "claude-opus-4-5",
     "model prefix", "", wire_api::anthropic},
    {"claude keyword picks anthropic", "claude-sonnet-4-5", "auto",
     {{"anthropic", "key:an"}, {"openai", "key:oa"}}, {}, "anthropic",
     "claude-sonnet-4-5", "keyword \"claude\"", "", wire_api::anthropic},
    {"gpt keyword picks openai", "gpt-4.1", "auto",
     {{"openai", "key:oa"}, {"groq", "key:gq"}}, {}, "openai", "gpt-4.1",
     "keyword \"gpt\"", ""},
    {"gemini through its OpenAI-compatible endpoint", "gemini-2.5-pro", "auto",
     {{"gemini", "key:g"}}, {}, "gemini", "gemini-2.5-pro", "keyword", ""},
    {"groq by prefix", "groq/llama-3.3-70b", "auto", {{"groq", "key:gq"}}, {},
     "groq", "llama-3.3-70b", "model prefix", ""},
    {"mistral keyword", "mistral-large-latest", "auto",
     {{"mistral", "key:m"}}, {}, "mistral", "mistral-large-latest",
     "keyword", ""},
    {"kimi keyword picks moonshot", "kimi-k2", "auto", {{"moonshot", "key:k"}},
     {}, "moonshot", "kimi-k2", "keyword \"kimi\"", ""},
    {"qwen keyword picks dashscope", "qwen-max", "auto",
     {{"dashscope", "key:q"}}, {}, "dashscope", "qwen-max", "keyword", ""},
    {"glm keyword picks zhipu", "glm-4.6", "auto", {{"zhipu", "key:z"}}, {},
     "zhipu", "glm-4.6", "keyword \"glm\"", ""},
    {"siliconflow as a gateway keeps vendor prefixes", "Qwen/Qwen3-8B", "auto",
     {{"siliconflow", "key:sf"}}, {}, "siliconflow", "Qwen/Qwen3-8B",
     "first provider with an API key", ""},
    {"local vllm by its configured apiBase", "meta-llama/Llama-3-8B", "auto",
     {{"vllm", "base:http://localhost:8000/v1"}}, {}, "vllm",
     "meta-llama/Llama-3-8B", "configured local apiBase", ""},
    {"ollama preferred by its port", "llama3.2", "auto",
     {{"vllm", "base:http://localhost:8000/v1"},
      {"ollama", "base:http://127.0.0.1:11434/v1"}},
     {}, "ollama", "llama3.2", "port 11434", ""},
    {"lm_studio by prefix needs neither key nor base", "lm_studio/qwen3-4b",
     "auto", {}, {}, "lm_studio", "qwen3-4b", "model prefix", ""},
    {"custom apiBase as the last resort", "qwen2.5-7b-instruct", "auto",
     {{"custom", "base:http://10.0.0.5:8000/v1"}}, {}, "custom",
     "qwen2.5-7b-instruct", "providers.custom.apiBase", ""},
    {"a key from the environment counts", "claude-haiku-4-5", "auto", {},
     {{"ANTHROPIC_API_KEY", "sk-env"}}, "anthropic", "claude-haiku-4-5",
     "keyword", "", wire_api::anthropic},
    {"first key from the environment", "some-model", "auto", {},
     {{"GROQ_API_KEY", "g"}}, "groq", "some-model",
     "$GROQ_API_KEY", ""},
    {"explicit provider without a key names it and its variable",
     "gpt-4o", "openai", {}, {}, "", "", "",
     "No API key configured for provider 'openai'"},
    {"the missing key sentence names the environment variable",
     "claude-x", "anthropic", {}, {}, "", "", "", "ANTHROPIC_API_KEY"},
    {"an unknown explicit provider", "m", "nope", {}, {}, "", "", "",
     "neither a known provider"},
    {"nothing configured", "anthropic/claude-opus-4-5", "auto", {}, {}, "", "",
     "", "No LLM provider is configured"},
  };
  return rows;
}

} // namespace

TEST_CASE("provider selection follows the rule table") {
  for (auto& r : table()) {
    CAPTURE(r.what);
    settings s;
    s.agent.model = r.model;
    s.agent.provider = r.provider;
    for (auto& [name, spec] : r.config)
      s.providers[name] = parse(spec);
    auto env = [&r](std::string_view var) {
      auto i = r.env.find(std::string{var});
      return i == r.env.end() ? std::string{} : i->second;
    };
    auto c = choose_provider(s, env);
    if (!r.problem.empty()) {
      CHECK_FALSE(c.ready());
      CHECK(c.problem.find(r.problem) != std::string::npos);
      continue;
    }
    CHECK(c.problem == "");
    CHECK(c.name == r.name);
    CHECK(c.model == r.sent);
    CHECK(c.reason.find(r.reason) != std::string::npos);
    CHECK(c.api == r.api);
  }
}

TEST_CASE("the key source is reported for status") {
  settings s;
  s.agent.model = "claude-x";
  s.providers["anthropic"].api_key = "k";
  CHECK(choose_provider(s).key_source == "providers.anthropic.apiKey");
  settings e;
  e.agent.model = "claude-x";
  auto env = [](std::string_view v) {
    return v == "ANTHROPIC_API_KEY" ? std::string{"k"} : std::string{};
  };
  CHECK(choose_provider(e, env).key_source == "$ANTHROPIC_API_KEY");
}

TEST_CASE("a second model resolves on its own") {
  settings s;
  s.agent.model = "gpt-4o";
  s.providers["openai"].api_key = "oa";
  s.providers["anthropic"].api_key = "an";
  auto c = choose_provider(s, "claude-sonnet-4-5", "auto");
  CHECK(c.name == "anthropic");
  auto forced = choose_provider(s, "claude-sonnet-4-5", "openai");
  CHECK(forced.name == "openai");
  CHECK(forced.reason.find("provider") != std::string::npos);
}
