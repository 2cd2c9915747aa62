// choose_provider(): which endpoint, key and model a config means, and the
// sentence a user gets when it means nothing usable.
#include <doctest/doctest.h>

#include "actors/provider/provider_registry.hpp"

namespace {

using namespace nb;

settings with_model(std::string model) {
  settings s;
  s.agent.model = std::move(model);
  s.config_path = "/home/u/.nanobot/config.json";
  return s;
}

provider_settings key(std::string k) {
  provider_settings p;
  p.api_key = std::move(k);
  return p;
}

provider_settings base(std::string b) {
  provider_settings p;
  p.api_base = std::move(b);
  return p;
}

} // namespace

TEST_CASE("nothing configured gives an actionable problem") {
  auto c = choose_provider(with_model("anthropic/claude-opus-4-5"));
  CHECK_FALSE(c.ready());
  CHECK(c.problem.find("/home/u/.nanobot/config.json") != std::string::npos);
  CHECK(c.problem.find("providers.openrouter.apiKey") != std::string::npos);
  CHECK(c.problem.find("providers.custom.apiBase") != std::string::npos);
  CHECK(c.problem.find("agents.defaults.model") != std::string::npos);
}

TEST_CASE("openrouter key routes a vendor-prefixed model unchanged") {
  auto s = with_model("anthropic/claude-opus-4-5");
  s.providers["openrouter"] = key("sk-or-1");
  auto c = choose_provider(s);
  REQUIRE(c.ready());
  CHECK(c.name == "openrouter");
  CHECK(c.api_base == "https://openrouter.ai/api/v1");
  CHECK(c.api_key == "sk-or-1");
  CHECK(c.model == "anthropic/claude-opus-4-5");
}

TEST_CASE("an openrouter prefix is stripped") {
  auto s = with_model("openrouter/anthropic/claude-opus-4-5");
  s.providers["openrouter"] = key("sk-or-1");
  auto c = choose_provider(s);
  REQUIRE(c.ready());
  CHECK(c.model == "anthropic/claude-opus-4-5");
}

TEST_CASE("a model prefix picks its provider and is stripped") {
  auto s = with_model("deepseek/deepseek-chat");
  s.providers["openrouter"] = key("sk-or-1");
  s.providers["deepseek"] = key("sk-ds");
  auto c = choose_provider(s);
  REQUIRE(c.ready());
  CHECK(c.name == "deepseek");
  CHECK(c.api_base == "https://api.deepseek.com");
  CHECK(c.model == "deepseek-chat");
}

TEST_CASE("keywords pick a provider with a key") {
  auto s = with_model("qwen-max");
  s.providers["dashscope"] = key("sk-q");
  s.providers["groq"] = key("gsk");
  auto c = choose_provider(s);
  REQUIRE(c.ready());
  CHECK(c.name == "dashscope");
  CHECK(c.model == "qwen-max");
}

TEST_CASE("without a keyword match the first key wins and gateways come first") {
  auto s = with_model("some-model");
  s.providers["groq"] = key("gsk");
  s.providers["openrouter"] = key("sk-or");
  CHECK(choose_provider(s).name == "openrouter");
}

TEST_CASE("ollama needs no key and no apiBase when named by prefix") {
  auto c = choose_provider(with_model("ollama/llama3.2"));
  REQUIRE(c.ready());
  CHECK(c.name == "ollama");
  CHECK(c.api_base == "http://localhost:11434/v1");
  CHECK(c.api_key.empty());
  CHECK(c.model == "llama3.2");
}

TEST_CASE("a configured local server takes a bare model name") {
  auto s = with_model("llama3.2");
  s.providers["ollama"] = base("http://127.0.0.1:11434/v1");
  auto c = choose_provider(s);
  REQUIRE(c.ready());
  CHECK(c.name == "ollama");
  CHECK(c.api_base == "http://127.0.0.1:11434/v1");
}

TEST_CASE("vllm without apiBase says what to set") {
  auto s = with_model("meta-llama/Llama-3-8B");
  s.agent.provider = "vllm";
  auto c = choose_provider(s);
  CHECK_FALSE(c.ready());
  CHECK(c.problem.find("providers.vllm.apiBase") != std::string::npos);
}

TEST_CASE("vllm keeps organisation prefixes of model names") {
  auto s = with_model("meta-llama/Llama-3-8B");
  s.agent.provider = "vllm";
  s.providers["vllm"] = base("http://localhost:8000/v1");
  auto c = choose_provider(s);
  REQUIRE(c.ready());
  CHECK(c.model == "meta-llama/Llama-3-8B");
}

TEST_CASE("custom apiBase alone is used with the configured model") {
  auto s = with_model("qwen2.5-7b-instruct");
  s.providers["custom"] = base("http://10.0.0.5:8000/v1");
  auto c = choose_provider(s);
  REQUIRE(c.ready());
  CHECK(c.name == "custom");
  CHECK(c.api_base == "http://10.0.0.5:8000/v1");
  CHECK(c.model == "qwen2.5-7b-instruct");
}

TEST_CASE("an unknown provider name is an OpenAI-compatible endpoint") {
  auto s = with_model("myProxy/gpt-x");
  provider_settings p = base("https://proxy.example.com/v1");
  p.extra_headers["X-Team"] = "a";
  s.providers["myProxy"] = p;
  auto c = choose_provider(s);
  REQUIRE(c.ready());
  CHECK(c.name == "myProxy");
  CHECK(c.model == "gpt-x");
  CHECK(c.headers.at("X-Team") == "a");
}

TEST_CASE("an anthropic key selects the native Messages API") {
  auto s = with_model("claude-sonnet-4");
  s.providers["anthropic"] = key("sk-ant");
  auto c = choose_provider(s);
  REQUIRE(c.ready());
  CHECK(c.name == "anthropic");
  CHECK(c.api == wire_api::anthropic);
  CHECK(c.api_base == "https://api.anthropic.com/v1");
  CHECK(c.model == "claude-sonnet-4");
}

TEST_CASE("an explicit provider without a key names the missing key") {
  auto s = with_model("gpt-4o");
  s.agent.provider = "openai";
  auto c = choose_provider(s);
  CHECK_FALSE(c.ready());
  CHECK(c.problem.find("providers.openai.apiKey") != std::string::npos);
}

TEST_CASE("openai pointed at a local server needs no key") {
  auto s = with_model("gpt-4o");
  s.agent.provider = "openai";
  s.providers["openai"] = base("http://localhost:8080/v1");
  CHECK(choose_provider(s).ready());
}

TEST_CASE("an unknown explicit provider is explained") {
  auto s = with_model("x");
  s.agent.provider = "nope";
  auto c = choose_provider(s);
  CHECK_FALSE(c.ready());
  CHECK(c.problem.find("\"nope\"") != std::string::npos);
  CHECK(c.problem.find("auto") != std::string::npos);
}

TEST_CASE("a bad apiBase is reported") {
  auto s = with_model("m");
  s.providers["custom"] = base("localhost:8000");
  auto c = choose_provider(s);
  CHECK_FALSE(c.ready());
  CHECK(c.problem.find("not an http:// or https:// URL") != std::string::npos);
}

TEST_CASE("provider names are normalised") {
  CHECK(normalize_provider_name("lmStudio") == "lm_studio");
  CHECK(normalize_provider_name("lm-studio") == "lm_studio");
  REQUIRE(find_provider_spec("LM_Studio") != nullptr);
  CHECK(find_provider_spec("lmStudio")->default_base
        == "http://localhost:1234/v1");
  auto s = with_model("m");
  s.providers["lmStudio"] = base("http://localhost:1234/v1");
  s.agent.provider = "lm-studio";
  CHECK(choose_provider(s).api_base == "http://localhost:1234/v1");
}

TEST_CASE("gateways that want bare names get the last segment") {
  provider_choice c;
  c.name = "aihubmix";
  CHECK(request_model(c, "anthropic/claude-3") == "claude-3");
  c.name = "openrouter";
  CHECK(request_model(c, "anthropic/claude-3") == "anthropic/claude-3");
  CHECK(request_model(c, "plain") == "plain");
}

TEST_CASE("base urls are parsed") {
  auto b = parse_base_url("https://api.example.com:8443/v1/");
  REQUIRE(b);
  CHECK(b->https);
  CHECK(b->scheme_host_port == "https://api.example.com:8443");
  CHECK(b->path_prefix == "/v1");
  CHECK(b->host == "api.example.com");
  auto plain = parse_base_url("http://127.0.0.1:9000");
  REQUIRE(plain);
  CHECK(plain->path_prefix.empty());
  auto v6 = parse_base_url("http://[::1]:8000/v1");
  REQUIRE(v6);
  CHECK(v6->host == "::1");
  CHECK_FALSE(parse_base_url("ftp://x/v1"));
  CHECK_FALSE(parse_base_url("http://"));
  CHECK_FALSE(parse_base_url("http://user:pw@host/v1"));
}

TEST_CASE("local bases are recognised") {
  CHECK(is_local_base("http://localhost:11434/v1"));
  CHECK(is_local_base("http://127.0.0.1:8000"));
  CHECK(is_local_base("http://192.168.1.20:8000/v1"));
  CHECK(is_local_base("http://172.20.0.2/v1"));
  CHECK(is_local_base("http://[::1]:8000/v1"));
  CHECK_FALSE(is_local_base("https://api.openai.com/v1"));
  CHECK_FALSE(is_local_base("http://172.32.0.1/v1"));
  CHECK_FALSE(is_local_base("http://8.8.8.8/v1"));
}
