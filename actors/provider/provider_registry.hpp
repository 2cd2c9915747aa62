// Provider selection: which LLM endpoint, key and model name a config means.
// Pure functions over nb::settings; no actors, no I/O.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/settings.hpp"

namespace nb {

/// The wire protocol an endpoint speaks.
enum class wire_api {
  openai,    ///< OpenAI chat completions (most providers, local servers)
  anthropic, ///< Anthropic's Messages API
  /// OpenAI's Responses API (providers.openai.apiType; chosen per call,
  /// see responses_route.hpp, never by a registry row)
  openai_responses,
};

/// "openai" / "anthropic" / "openai_responses", for logs and `nanobot
/// status`.
std::string_view wire_api_name(wire_api api);

/// How a registry entry is found when agents.defaults.provider is "auto".
enum class provider_kind {
  direct,   ///< the user's own endpoint (custom): needs apiBase, no key
  gateway,  ///< routes any model (OpenRouter, ...): wins the key fallback
  standard, ///< one vendor, matched by model keywords
  local,    ///< a server on the user's machine: no key
};

/// One known provider (data, in priority order; see provider_table()).
struct provider_spec {
  std::string_view name{}; ///< providers.<name> key, snake_case
  std::string_view display{};
  std::array<std::string_view, 5> keywords{}; ///< lowercase, "" = unused
  std::string_view default_base{};            ///< "" = apiBase required
  provider_kind kind = provider_kind::standard;
  /// The environment variable read when providers.<name>.apiKey is empty.
  std::string_view env_key{};
  wire_api wire = wire_api::openai;
  /// Why this entry cannot be used yet ("" = usable).
  std::string_view unsupported{};
  /// Send only the last path segment of the model ("a/b/c" -> "c").
  bool strip_all_prefixes = false;
  /// Substring of an apiBase that identifies this local server ("11434").
  std::string_view base_keyword{};
  /// How the endpoint is told to think when reasoningEffort is set (the
  /// original's registry; providers.<name>.thinkingStyle overrides it).
  std::string_view thinking_style{};
  /// Models this provider serves through the Responses API (the original's
  /// responses_models, lowercase wire names; "" = unused): apiType auto
  /// calls them there (responses_route.hpp).
  std::array<std::string_view, 3> responses_models{};
  /// A hosted tool its Responses calls add unless extraBody names the tools
  /// (the original's responses_default_tools); "" = none.
  std::string_view responses_default_tool{};
};

/// The registry, highest priority first.
const std::vector<provider_spec>& provider_table();

/// Returns the entry named `name` ("lm-studio", "lmStudio" and "lm_studio"
/// are the same name), or nullptr.
const provider_spec* find_provider_spec(std::string_view name);

/// "lmStudio" / "lm-studio" / "LM_Studio" -> "lm_studio".
std::string normalize_provider_name(std::string_view name);

/// True when two provider names are the same name written differently:
/// case, '-', '_' and camelCase are ignored ("myProxy" == "my-proxy").
bool same_provider_name(std::string_view a, std::string_view b);

/// Reads an environment variable; "" when unset.
using env_reader = std::function<std::string(std::string_view name)>;

/// The process environment.
std::string process_env(std::string_view name);

/// The outcome of provider selection. When `problem` is not empty it is a
/// complete sentence for the user (chat reply, `nanobot status`).
struct provider_choice {
  std::string name;     ///< "openrouter", "custom", or a custom key
  std::string api_base; ///< e.g. "https://openrouter.ai/api/v1"
  std::string api_key;  ///< may be empty for local servers
  std::string model;    ///< the name sent on the wire, prefix stripped
  std::map<std::string, std::string> headers; ///< extraHeaders
  std::string extra_body; ///< extraBody: a JSON object as text, "" = none
  std::map<std::string, std::string> query; ///< extraQuery
  std::string proxy;          ///< "http://[user:pass@]host:port", "" = none
  std::string thinking_style; ///< see provider_spec::thinking_style
  /// providers.<name>.apiType: "auto", "chat_completions" or "responses"
  /// (only providers.openai may set it; see responses_route.hpp).
  std::string api_type = "auto";
  wire_api api = wire_api::openai;
  /// Why this provider was chosen ("model prefix \"deepseek/\"", ...).
  std::string reason;
  /// Where the key came from: "providers.x.apiKey", "$X_API_KEY" or "".
  std::string key_source;
  std::string problem;
  bool ready() const { return problem.empty(); }
};

/// Picks the provider for agents.defaults.{provider, model}: an explicit
/// name, or "auto" matching (model prefix, custom prefix, keywords, local
/// servers, the first provider with an apiKey, a custom apiBase). Keys come
/// from providers.<name>.apiKey, else from the entry's environment
/// variable (read through `env`).
provider_choice choose_provider(const settings& cfg,
                                const env_reader& env = process_env);

/// The same for another model / provider pair (presets, fallbacks):
/// `provider` "" or "auto" matches automatically.
provider_choice choose_provider(const settings& cfg, const std::string& model,
                                const std::string& provider,
                                const env_reader& env = process_env);

/// The model name to send for `model` through `choice`: drops a leading
/// "<provider>/" routing segment ("deepseek/deepseek-chat" -> "deepseek-chat",
/// "openrouter/anthropic/x" -> "anthropic/x"); gateways that only know bare
/// names get the last segment. Other prefixes are kept ("meta-llama/x").
std::string request_model(const provider_choice& choice,
                          std::string_view model);

/// A parsed apiBase: what httplib::Client takes, and the path before
/// "/chat/completions".
struct base_url {
  std::string scheme_host_port; ///< "https://api.x.com:8443"
  std::string path_prefix;      ///< "/v1" (no trailing '/'), may be ""
  std::string host;
  bool https = false;
};

/// Parses "http(s)://host[:port][/path]"; nullopt when it is not one.
std::optional<base_url> parse_base_url(std::string_view url);

/// What `nanobot status` and the WebUI show of agents.defaults' provider:
/// {"ready", "problem", "provider", "model", "api_base", "key_source"}.
std::string provider_status_json(const settings& cfg);

/// True for localhost, loopback, private (RFC 1918) and
/// host.docker.internal addresses: servers that usually need no key.
bool is_local_base(std::string_view url);

} // namespace nb
